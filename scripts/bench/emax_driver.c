/*
 * emax_driver.c - times gt_emax on a partner list read from stdin, one
 * partner per line: "pareto K ALPHA" or "normal MU SIGMA".  Prints the
 * value, the method, and the median wall time over REPS runs (first
 * argument); a second argument "integrate" skips the closed forms;
 * EPSREL in the environment sets the tolerance.
 * Built and run by scripts/bench/emax.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include "estimators/emax.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    size_t n = 0, cap = 1024;
    struct gt_partner_group *g = malloc(cap * sizeof *g);
    char model[16];
    double a, b;
    while (g && scanf("%15s %lf %lf", model, &a, &b) == 3) {
        if (n == cap) {
            struct gt_partner_group *more = realloc(g, (cap *= 2) * sizeof *g);
            if (!more) {
                fprintf(stderr, "emax_driver: out of memory\n");
                return 2;
            }
            g = more;
        }
        /* Every field set: no loss, no samples, no shift unless named. */
        g[n] = (struct gt_partner_group){.dist = {.model = gt_model_find(model), .p = {a, b}},
                                         .count = 1};
        if (!g[n].dist.model) {
            fprintf(stderr, "emax_driver: line %zu: model: unknown model '%s'\n",
                    n + 1, model);
            return 2;
        }
        n++;
    }
    double *t = reps > 0 ? malloc((size_t)reps * sizeof *t) : NULL;
    if (!g || !t) {
        fprintf(stderr, "emax_driver: out of memory (or REPS < 1)\n");
        return 2;
    }
    bool force = argc > 2 && strcmp(argv[2], "integrate") == 0;
    /* EPSREL in the environment: the relative tolerance (default 1e-10) */
    const char *eps = getenv("EPSREL");
    struct gt_emax_opts o = {INFINITY, false, NULL, 0, false, force, NULL, eps ? atof(eps) : 0,
                             NULL, false};
    struct gt_emax_result r = {0};
    struct gt_error err = {0};
    for (int k = 0; k < reps; k++) {
        double t0 = now();
        if (gt_emax(g, n, &o, &r, &err) != GT_OK) {
            fprintf(stderr, "emax: %s\n", err.msg);
            return 1;
        }
        t[k] = now() - t0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("%.15g %s %.6f\n", r.e_max, r.method, t[reps / 2] * 1e3);
    free(t);
    free(g);
    return 0;
}
