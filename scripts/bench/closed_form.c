/*
 * closed_form.c - where the Pareto inclusion-exclusion closed form stops
 * paying.  Part 1: n distinct Pareto partners (k = 20 ms for all: every
 * term the same size, the worst cancellation; alpha in [2, 22); 20 draws
 * per n): the method gt_emax picks, the closed form's own bound on its
 * cancellation (abserr / E), its worst difference to forced integration,
 * and the mean time of each.  Part 2: a group of c identical partners
 * plus one other (2(c + 1) terms): the bound as c grows, and where the
 * engine steps aside for integration.
 * Built and run by scripts/bench/closed_form.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include "estimators/emax.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define DRAWS 20
#define REPS 50

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double draw(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(*s >> 11) * 0x1.0p-53;
}

/* E[max] of g, timed over REPS runs (ms per run). */
static int timed(const struct gt_partner_group *g, size_t ng, bool force,
                 struct gt_emax_result *r, double *ms)
{
    struct gt_emax_opts o = {INFINITY, false, NULL, 0, false, force, NULL, 0, NULL, false};
    struct gt_error err = {0};
    double t0 = now();
    for (int k = 0; k < REPS; k++)
        if (gt_emax(g, ng, &o, r, &err) != GT_OK)
            return -1;
    *ms = (now() - t0) * 1e3 / REPS;
    return 0;
}

static int distinct_partners(void)
{
    printf("%3s %6s %10s %10s %12s %12s\n", "n", "closed", "max bound", "max diff",
           "closed ms", "integr. ms");
    for (size_t n = 2; n <= 12; n++) {
        int closed = 0;
        double bound = 0, diff = 0, t_closed = 0, t_int = 0;
        for (int s = 0; s < DRAWS; s++) {
            unsigned long st = 1000UL * n + (unsigned long)s;
            struct gt_partner_group g[12];
            for (size_t i = 0; i < n; i++) {
                g[i].dist.model = &gt_model_pareto;
                g[i].dist.p[0] = 20;
                g[i].dist.p[1] = 2 + 20 * draw(&st);
                g[i].dist.shift = 0;
                g[i].count = 1;
            }
            struct gt_emax_result r = {0}, ri = {0};
            double ms, msi;
            if (timed(g, n, false, &r, &ms) || timed(g, n, true, &ri, &msi))
                return 1;
            t_int += msi / DRAWS;
            if (strcmp(r.method, "pareto-closed") != 0)
                continue;
            closed++;
            t_closed += ms;
            bound = fmax(bound, r.abserr / r.e_max);
            diff = fmax(diff, fabs(r.e_max - ri.e_max) / ri.e_max);
        }
        printf("%3zu %3d/%-2d %10.2e %10.2e %12.4f %12.4f\n", n, closed, DRAWS, bound, diff,
               closed ? t_closed / closed : NAN, t_int);
    }
    return 0;
}

static int one_large_group(void)
{
    printf("\n%5s %8s %14s %10s\n", "c", "terms", "method", "bound");
    static const int sizes[] = {1, 2, 4, 6, 8, 10, 11, 12, 13, 14, 15, 16, 20, 32, 64, 127};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int c = sizes[s];
        struct gt_partner_group g[2] = {
            {{&gt_model_pareto, {20, 16.9}, 0, 0, 0}, (double)c},
            {{&gt_model_pareto, {20, 4.5}, 0, 0, 0}, 1}};
        struct gt_emax_result r = {0};
        double ms;
        if (timed(g, 2, false, &r, &ms))
            return 1;
        printf("%5d %8d %14s %10.2e\n", c, 2 * (c + 1), r.method,
               strcmp(r.method, "pareto-closed") ? NAN : r.abserr / r.e_max);
    }
    return 0;
}

int main(void)
{
    return distinct_partners() || one_large_group();
}
