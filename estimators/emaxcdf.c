/*
 * emaxcdf.c - the CDF of the max, G(x) = prod_g F_g(x)^count_g, over one
 * call's context, its quantiles, and the building of that context
 * (emaxcdf.h).
 *
 * G is kept in log space and 1 - G evaluated as -expm1(log G): a product
 * of thousands of CDFs near 1 would round to 1 and lose the tail that
 * decides the answer.  The quantiles are roots of log G - log q, by
 * regula falsi where G is smooth and bisection across the jumps of step
 * CDFs.
 */
#include "emaxcdf.h"

#include <math.h>
#include <stdlib.h>

/* from this tolerance on, the fast sum may be coarse (lcsum.h): its
 * absolute error, n ulp of 1, is then below a millionth of the tolerance
 * for up to a few thousand partners */
#define COARSE_EPSREL 1e-9

double emax_group_logcdf(const struct emax_ctx *c, size_t i, double x)
{
    if (tabled(c, i))
        return gt_steps_logcdf(&c->tabs[i], x);
    const struct gt_ladder *l = ladder_at(c, i);
    return l ? gt_ladder_logcdf(l, x) : gt_dist_logcdf(&c->g[i].dist, x);
}

/* sum over the partners outside the compiled sum of count * log F(x) */
double emax_log_extra(const struct emax_ctx *c, double x)
{
    double s = 0;
    for (size_t i = 0; i < c->ng && s > -INFINITY; i++)
        if (extra_at(c, i))
            s += c->g[i].count * emax_group_logcdf(c, i, x);
    return s;
}

static double log_G_slow(const struct emax_ctx *c, double x)
{
    double s = 0;
    for (size_t i = 0; i < c->ng; i++) {
        double l = emax_group_logcdf(c, i, x);
        double n = c->g[i].count - ((long)i == c->skip);
        if (n == 0)
            continue;
        if (l == -INFINITY)
            return -INFINITY;
        s += n * l;
    }
    return s;
}

/* log G(x), from the compiled fast sum when there is one; with a member
 * of group skip left out, that member's log-CDF is taken off again. */
double emax_log_G(const struct emax_ctx *c, double x)
{
    double s = gt_lcsum_eval(c->sum, x);
    if (c->extra && s > -INFINITY)
        s += emax_log_extra(c, x);
    if (c->skip < 0)
        return s;
    double l = emax_group_logcdf(c, (size_t)c->skip, x);
    return l == -INFINITY ? log_G_slow(c, x) : s - l;
}

double emax_f_one_minus_G(double x, void *p)
{
    return -expm1(emax_log_G(p, x));
}

double emax_f_G(double x, void *p)
{
    return exp(emax_log_G(p, x));
}

double emax_f_cut(double x, void *p)
{
    const struct emax_ctx *c = p;
    double l = emax_log_G(c, x);
    return exp(c->log_g_cut) * (l == -INFINITY ? 1 : -expm1(l - c->log_g_cut));
}

double emax_lower_bound(const struct gt_partner_group *g, size_t ng)
{
    double a = -INFINITY;
    for (size_t i = 0; i < ng; i++) {
        double l = gt_dist_lower(&g[i].dist);
        a = l > a ? l : a;
    }
    return a;
}

/* Bounds that always hold around the x where log G(x) = lq:
 * G <= F_i^c_i for each i, and G >= q where every F_i^c_i >= q^(c_i/n);
 * log G(*lo) < lq <= log G(*hi). */
static void wide_bracket(const struct emax_ctx *c, double n, double lq, double *lo_out,
                         double *hi_out)
{
    double lo = gt_lcsum_quantile_max(c->sum, lq, true);
    double hi = gt_lcsum_quantile_max(c->sum, lq / n, false);
    if (c->extra || c->mixed) {
        /* a mixture's quantile is at least its first term's (retries only
           delay); above, widen until G reaches q */
        for (size_t i = 0; i < c->ng; i++) {
            const struct gt_dist *d = &c->g[i].dist;
            if (!extra_at(c, i))
                continue;
            double ql = gt_dist_quantile0(d, exp(lq / c->g[i].count));
            double qh = gt_dist_quantile0(d, exp(lq / n));
            lo = isfinite(lo) ? fmax(lo, ql) : ql;
            hi = isfinite(hi) ? fmax(hi, qh) : qh;
        }
        for (int it = 0; it < 400 && emax_log_G(c, hi) < lq; it++)
            hi += fmax(hi - lo, 1.0);
    }
    if (c->steps) {
        /* G jumps: start where it is 0, below every partner's support */
        double a = emax_lower_bound(c->g, c->ng);
        lo = a - (fabs(a) * 1e-9 + 1e-300);
    }
    /* the lower bound may itself reach q (a point mass): step below it */
    for (int it = 0; it < 64 && emax_log_G(c, lo) >= lq; it++)
        lo -= fabs(lo) * 1e-9 + 1e-300;
    *lo_out = lo;
    *hi_out = hi;
}

/* Bracket the q-quantile of the max, the x where log G(x) = log q, to a
 * relative width tol, from the guess or else wide_bracket's bounds.
 * On return log G(*lo) < log q <= log G(*hi). */
static void max_bracket_from(const struct emax_ctx *base, double n, double q, double tol,
                             double guess, double *lo_out, double *hi_out)
{
    double lq = log(q), lo = NAN, hi = NAN, flo = NAN, fhi = NAN;
    struct emax_ctx c = *base;
    c.skip = -1;
    /* a guess (the last moment's answer) that brackets q within 0.2 %
       replaces the wide bounds: two evaluations instead of a dozen (and
       the bounds are not needed) */
    if (isfinite(guess) && guess != 0) {
        double gl = guess - fabs(guess) * 2e-3, gh = guess + fabs(guess) * 2e-3;
        double fl = emax_log_G(&c, gl) - lq, fh = emax_log_G(&c, gh) - lq;
        if (fl < 0 && fh >= 0)
            lo = gl, hi = gh, flo = fl, fhi = fh;
    }
    if (isnan(flo)) {
        wide_bracket(&c, n, lq, &lo, &hi);
        flo = emax_log_G(&c, lo) - lq, fhi = emax_log_G(&c, hi) - lq;
    }
    /* Illinois regula falsi on log G - log q (smooth, increasing), with a
       bisection step wherever an end value is infinite, and only
       bisection across the jumps of step CDFs (the smallest x with
       G >= q is then found to the last bit) */
    int side = 0;
    for (int it = 0; it < (base->steps ? 2100 : 200) && hi - lo > tol * fabs(hi); it++) {
        double mid = lo + (hi - lo) / 2;
        if (!base->steps && isfinite(flo) && isfinite(fhi) && fhi > flo)
            mid = lo + (hi - lo) * (-flo / (fhi - flo));
        if (!(mid > lo && mid < hi))
            mid = lo + (hi - lo) / 2;
        if (!(mid > lo && mid < hi))
            break;
        double fm = emax_log_G(&c, mid) - lq;
        if (fm < 0) {
            lo = mid, flo = fm;
            if (side == -1)
                fhi /= 2;
            side = -1;
        } else {
            hi = mid, fhi = fm;
            if (side == 1)
                flo /= 2;
            side = 1;
        }
    }
    *lo_out = lo;
    *hi_out = hi;
}

void emax_bracket(const struct emax_ctx *base, double n, double q, double tol, double *lo_out,
                  double *hi_out)
{
    max_bracket_from(base, n, q, tol, NAN, lo_out, hi_out);
}

/* emax_bracket starting from the answer kept in warm slot (if any), where
 * it then keeps this one. */
void emax_bracket_warm(const struct emax_ctx *base, double n, double q, double tol,
                       struct gt_emax_warm *wm, int slot, double *lo_out, double *hi_out)
{
    max_bracket_from(base, n, q, tol, wm ? wm->at[slot] : NAN, lo_out, hi_out);
    if (wm)
        wm->at[slot] = *hi_out;
}

double emax_quantile(const struct emax_ctx *base, double n, double q, double tol)
{
    double lo, hi;
    emax_bracket(base, n, q, tol, &lo, &hi);
    return hi;
}

/* What each partner may leave out of the integral (see lcsum.h): in all
 * at most 1e-13 of max_i E[L_i] <= E[max], so partners far below the max
 * or with steep tails stop costing work where they no longer matter. */
static double drop_budget(const struct gt_partner_group *g, size_t ng, double n, double rel)
{
    double scale = 0;
    for (size_t i = 0; i < ng; i++) {
        double m = gt_dist_mean0(&g[i].dist);
        scale = m > scale ? m : scale;
    }
    return isfinite(scale) ? rel * scale / n : 0;
}

/* Step CDFs are tabled when some partner is empirical, or a point mass
 * with loss (its retries make it a step CDF with many points): every
 * empirical and delta group then gets a table in *out (ng entries, n = 0
 * for the others), at most GT_STEPS_MAX_POINTS points in all. */
int emax_build_tables(const struct gt_partner_group *g, size_t ng, struct gt_steps **out,
                      struct gt_error *err)
{
    bool want = false;
    double points = 0;
    *out = NULL;
    for (size_t i = 0; i < ng; i++) {
        const struct gt_dist *d = &g[i].dist;
        want = want || gt_dist_is_step(d) || (d->model == &gt_model_delta && d->loss_p > 0);
        if (gt_dist_is_step(d) || d->model == &gt_model_delta)
            points += gt_steps_size(d);
    }
    if (!want)
        return GT_OK;
    if (points > GT_STEPS_MAX_POINTS)
        return gt_error_set(err, GT_EINPUT, NULL, "the empirical partners have %.0f sample "
                            "points with their loss retries, more than %d: fewer samples "
                            "(--window) or a parametric model", points, GT_STEPS_MAX_POINTS);
    struct gt_steps *t = calloc(ng, sizeof *t);
    for (size_t i = 0; t && i < ng; i++) {
        const struct gt_dist *d = &g[i].dist;
        if ((gt_dist_is_step(d) || d->model == &gt_model_delta) && gt_steps_build(d, &t[i])) {
            for (size_t k = 0; k < i; k++)
                gt_steps_free(&t[k]);
            free(t);
            t = NULL;
        }
    }
    if (!t)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    *out = t;
    return GT_OK;
}

void emax_free_tables(struct gt_steps *t, size_t ng)
{
    for (size_t i = 0; t && i < ng; i++)
        gt_steps_free(&t[i]);
    free(t);
}

/* What each lossy partner's ladder may leave out (ladder.h): in all at
 * most rel of the largest partner median, below E[max] up to a factor 2
 * (and a lower bound whatever the cut-off). */
static double median_scale(const struct gt_partner_group *g, size_t ng)
{
    double scale = 0;
    for (size_t i = 0; i < ng; i++)
        scale = fmax(scale, gt_dist_quantile0(&g[i].dist, 0.5));
    return scale;
}

static double loss_budget(double scale, double n, double rel)
{
    return isfinite(scale) ? rel * scale / (2 * n) : 0;
}

/* The context of one call: the compiled sum over the partners that are
 * not tabled, loss mixtures as ladders, in sum (the workspace's). */
int emax_make_ctx(const struct gt_partner_group *g, size_t ng, double n,
                  const struct gt_emax_opts *o, struct gt_steps *tabs, struct gt_lcsum *sum,
                  struct gt_cheb *cheb, struct emax_ctx *c)
{
    /* what may be left out: 1e-13 of the scale, or a thousandth of a
       coarser tolerance asked for */
    double rel = o->epsrel > 0 ? fmax(1e-13, 1e-3 * o->epsrel) : 1e-13;
    /* the scale only where loss or tables may need it: a quantile per
       partner is a fifth of a loss-free E[max] of 10,000 */
    bool lossy = tabs != NULL;
    for (size_t i = 0; i < ng && !lossy; i++)
        lossy = g[i].dist.loss_p > 0;
    *c = (struct emax_ctx){g, ng, -1, 0, sum, false, false, tabs != NULL, tabs != NULL, tabs,
                           cheb, lossy ? median_scale(g, ng) : 0};
    bool *skip = tabs ? malloc(ng * sizeof *skip) : NULL;
    if (tabs && !skip)
        return GT_ENOMEM;
    for (size_t i = 0; i < ng; i++) {
        c->extra = c->extra || extra_at(c, i);
        c->only_steps = c->only_steps && tabled(c, i);
        if (skip)
            skip[i] = tabled(c, i);
    }
    gt_lcsum_set_coarse(sum, o->epsrel >= COARSE_EPSREL);
    gt_lcsum_set_exact_starts(sum, o->slowest);
    struct gt_lcsum_opts so = {isinf(o->cut_x0) ? drop_budget(g, ng, n, rel) : 0,
                               loss_budget(c->scale, n, rel), skip};
    bool ok = gt_lcsum_compile(sum, g, ng, &so);
    free(skip);
    c->mixed = ok && gt_lcsum_ladders(sum) > 0;
    return ok ? GT_OK : GT_ENOMEM;
}
