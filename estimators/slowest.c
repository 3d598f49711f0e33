/*
 * slowest.c - each partner group's share of being slowest,
 * P_i = count_i int f_i(x) G(x) / F_i(x) dx, the probability that the
 * group holds the slowest partner (slowest.h).
 *
 * The first way that applies: the fit of the densities (emaxfit.h) with
 * step tables or ladders among the partners or few loss-free groups;
 * where that fails with tables or ladders, adaptive integrals per group
 * and per retry term of a loss mixture; otherwise composite
 * Gauss-Legendre panels for all groups at once.  A step CDF's share is
 * an exact sum over its points, a point mass's G without it at the point.
 */
#include "slowest.h"
#include "emaxfit.h"
#include "emaxquad.h"
#include "base/util.h"

#include <gsl/gsl_integration.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* f_i(x) G(x) / F_i(x), G = exp(S) >= 1e-17 here (the integral runs from
 * where G reaches that): for Pareto and normal partners from one tail
 * term each, f and F sharing it, instead of a pdf, a log-CDF and an exp
 * apiece (the shares were half of a served estimate's time). */
double emax_density_over_cdf(const struct gt_dist *d, double x, double S, double G)
{
    double y = x - d->shift;
    if (d->model == &gt_model_pareto) {
        double k = d->p[0], a = d->p[1];
        if (!(y > k))
            return 0;
        double u = a * log(k / y), t = exp(u);   /* (k/y)^alpha = 1 - F */
        /* near k, log F as pareto.c has it: 1 - t would cancel */
        return t < 0.5 ? a * t / y * G / (1 - t) : a * t / y * exp(S - log(-expm1(u)));
    }
    if (d->model == &gt_model_normal) {
        double z = (y - d->p[0]) / d->p[1];
        double pdf = exp(-0.5 * z * z) / (d->p[1] * 2.5066282746310002);
        double F = 0.5 * erfc(-z * 0.70710678118654752440);
        return F > 0 ? pdf * G / F : 0;
    }
    if (d->model == &gt_model_delta)
        return 0;
    double pdf = gt_dist_pdf(d, x);
    return pdf > 0 ? pdf * exp(S - gt_dist_logcdf(d, x)) : 0;
}

/* f_slowest's parameter: the context and the group */
struct slow {
    const struct emax_ctx *all;
    size_t i;
};

/* count_i p_i(x) G(x) / F_i(x): the density of "group i holds the max at x" */
static double f_slowest(double x, void *p)
{
    const struct slow *s = p;
    const struct gt_partner_group *g = &s->all->g[s->i];
    double S = emax_log_G(s->all, x), pdf = gt_dist_pdf(&g->dist, x);
    if (S == -INFINITY || !(pdf > 0))
        return 0;
    return g->count * pdf * exp(S - gt_dist_logcdf(&g->dist, x));
}

struct slow_term {
    const struct emax_ctx *all;
    size_t i;
    double weight, delay;   /* the retry term: (1 - p) p^j normalized, D_j */
};

/* one retry term of a loss mixture's share: w_j p(x - D_j) G / F_i */
static double f_slowest_term(double x, void *p)
{
    const struct slow_term *s = p;
    const struct gt_partner_group *g = &s->all->g[s->i];
    const struct gt_dist *d = &g->dist;
    double pdf = d->model->pdf(d->p, x - d->shift - s->delay);
    double S = emax_log_G(s->all, x);
    if (S == -INFINITY || !(pdf > 0))
        return 0;
    return g->count * s->weight * pdf * exp(S - gt_dist_logcdf(d, x));
}

/* A step CDF's share, P(its group's max >= every other partner's) =
 * sum over its points t of (F^c(t) - F^c(t-)) G_-i(t), exactly; a tie
 * counts for every group in it, so with step CDFs the shares can sum to
 * more than 1. */
double emax_slowest_steps(const struct emax_ctx *all, size_t i)
{
    const struct gt_steps *t = &all->tabs[i];
    double c = all->g[i].count, prev = 0;
    struct gt_ksum sum = {0, 0};
    for (size_t k = 0; k < t->n; k++) {
        double own = c * t->lcdf[k], cur = exp(own), S = emax_log_G(all, t->t[k]);
        gt_ksum_add(&sum, S == -INFINITY ? 0 : (cur - prev) * exp(S - own));
        prev = cur;
    }
    return gt_ksum_get(&sum);
}

/* With loss mixtures the density of the max has a narrow peak at every
 * retry.  A loss-free group's share is one adaptive integral (the others'
 * retries only put steps into G); a mixture's is a sum over its retry
 * terms, each integrated over where its copy of the density lives; a
 * step CDF's is a sum over its points, and a point mass's is G without
 * it at the point. */
static void all_slowest_adaptive(const struct emax_ctx *base, double n, double *ps)
{
    struct emax_ctx all = *base;
    all.skip = -1;
    struct emax_quad qd = {gsl_integration_workspace_alloc(EMAX_WORKSPACE), 0, 0, EMAX_EPSREL,
                           NULL};
    double flat, hi;
    emax_bracket(&all, n, 1e-17, 1e-3, &flat, &hi);
    for (size_t i = 0; qd.w && i < base->ng; i++) {
        const struct gt_dist *d = &base->g[i].dist;
        if (tabled(base, i)) {
            ps[i] = emax_slowest_steps(&all, i);
            continue;
        }
        if (d->model == &gt_model_delta && !(d->loss_p > 0)) {
            struct emax_ctx c = *base;
            c.skip = (long)i;
            ps[i] = exp(emax_log_G(&c, d->p[0] + d->shift));
            continue;
        }
        if (!(d->loss_p > 0)) {
            struct slow s = {&all, i};
            ps[i] = emax_integrate(&qd, f_slowest, &s, &all, n, flat, INFINITY);
            continue;
        }
        int terms = gt_loss_terms(d->loss_p);
        double w = gt_loss_weight0(d->loss_p, terms);
        double lo = d->model->quantile(d->p, 1e-16), up = d->model->quantile(d->p, 1 - 1e-16);
        ps[i] = 0;
        for (int j = 0; j < terms; j++, w *= d->loss_p) {
            struct slow_term s = {&all, i, w, gt_loss_delay(d->rto_ms, j)};
            double a = fmax(lo + d->shift + s.delay, flat);
            double b = up + d->shift + s.delay;
            if (b > a)
                ps[i] += emax_integrate(&qd, f_slowest_term, &s, &all, n, a, b);
        }
    }
    if (qd.w)
        gsl_integration_workspace_free(qd.w);
}

/* Loss-free groups without tables whose shares a fit takes */
#define FIT_FEW_SHARES 16

/* Every group's share, the first way that answers (the top of the file).
 * The last computes P(group i holds the slowest partner) for every group
 * in one pass: P_i = count_i * int p_i(x) G(x) / F_i(x) dx over [flat, xt]
 * (the max lies outside with probability < 1e-10), by composite 20-point
 * Gauss-Legendre on panels uniform in ln x, doubling the panels until no
 * P_i moves by more than 1e-10 (or the last two changes show the finer
 * level within 1e-12).  G is evaluated once per node for all
 * groups, so the cost is O(nodes x n) rather than a separate adaptive
 * integral per group.  Point masses use their closed form. */
void emax_all_slowest(const struct emax_ctx *base, double n, double *ps)
{
    size_t ng = base->ng;
    if (ng == 1) {
        ps[0] = 1;
        return;
    }
    /* loss-free and without tables, the fit of the densities answers a
       few groups best (8 Pareto partners: 89 against 287 us, and exact
       around a far-shifted steep one, where the panels below settled 7e-7
       off), the panels below many (64 heavy-tailed partners, whose
       decades of tail hold a narrow climb each: 1.4 against 4.5 ms) */
    bool few = emax_fitted_groups(base) <= FIT_FEW_SHARES;
    if ((base->extra || base->mixed || few) && emax_fitted_shares(base, n, ps))
        return;
    if (base->extra || base->mixed) {
        all_slowest_adaptive(base, n, ps);
        return;
    }
    double flat, hi, lo, xt;
    emax_bracket(base, n, 1e-17, 1e-3, &flat, &hi);
    emax_bracket(base, n, exp(-1e-10), 1e-3, &lo, &xt);
    bool logx = flat > 0;
    double a = logx ? log(flat) : flat, b = logx ? log(xt) : xt;
    double *prev = calloc(ng, sizeof *prev), *cur = calloc(ng, sizeof *cur);
    gsl_integration_glfixed_table *t = gsl_integration_glfixed_table_alloc(20);
    if (!prev || !cur || !t || !(b > a))
        goto done;
    struct emax_ctx all = *base;
    all.skip = -1;
    double last_moved = INFINITY;
    for (size_t panels = 8; panels <= 1024; panels *= 2) {
        memset(cur, 0, ng * sizeof *cur);
        double h = (b - a) / (double)panels;
        for (size_t p = 0; p < panels; p++)
            for (size_t k = 0; k < 20; k++) {
                double u, w;
                gsl_integration_glfixed_point(a + h * (double)p, a + h * (double)(p + 1), k, &u,
                                              &w, t);
                double x = logx ? exp(u) : u;
                double S = emax_log_G(&all, x);
                if (S == -INFINITY)
                    continue;
                w *= logx ? x : 1;
                double G = exp(S);
                for (size_t i = 0; i < ng; i++)
                    cur[i] += w * base->g[i].count *
                              emax_density_over_cdf(&base->g[i].dist, x, S, G);
            }
        double moved = 0;
        for (size_t i = 0; i < ng; i++)
            moved = fmax(moved, fabs(cur[i] - prev[i]));
        double *tmp = prev;
        prev = cur;
        cur = tmp;
        /* the change measures the coarser level's error; the finer one's
           is about moved^2 / last_moved while the rule converges (each
           halving of 20-point panels gains a factor ~2^40 once resolved) */
        bool settled = panels > 16 && moved <= 1e-7 && moved < last_moved &&
                       moved * moved / last_moved <= 1e-12;
        if ((panels > 8 && moved <= 1e-10) || settled)
            break;
        last_moved = moved;
    }
done:
    for (size_t i = 0; i < ng; i++) {
        const struct gt_dist *d = &base->g[i].dist;
        if (d->model == &gt_model_delta) {
            struct emax_ctx c = *base;
            c.skip = (long)i;
            ps[i] = exp(emax_log_G(&c, d->p[0] + d->shift));
        } else {
            ps[i] = prev ? prev[i] : NAN;
        }
    }
    free(prev);
    free(cur);
    gsl_integration_glfixed_table_free(t);
}
