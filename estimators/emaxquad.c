/*
 * emaxquad.c - numerical integration of a function of G (1 - G for
 * E[max], a share's density) over a range of the max's support, with
 * GSL's adaptive Gauss-Kronrod rules (emaxquad.h).
 *
 * The rules are handed break points where the integrand is not smooth:
 * point masses, the starts of loss retries, the narrow climbs of steep
 * partners that a panel could straddle unseen.  Power-law tails and
 * ranges over decades are integrated in u = ln x.  Step tables cut the
 * range at their points (the integrand is smooth between them); with
 * only step CDFs the integral is a finite sum.  Similar integrals in a
 * row start from the last partition (struct gt_emax_warm).  Beyond where
 * G reaches 1 - 1e-10, E[max]'s 1 - G has a closed-form tail
 * (emax_bulk_and_tail).
 */
#define _DEFAULT_SOURCE
#include "emaxquad.h"
#include "base/util.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int emax_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Drop repeated break points (two partners retrying at the same delays):
 * GSL wants them strictly increasing. */
static size_t unique_points(double *pts, size_t n)
{
    size_t k = n ? 1 : 0;
    for (size_t i = 1; i < n; i++)
        if (pts[i] > pts[k - 1])
            pts[k++] = pts[i];
    return k;
}

/* Takes the error by pointer: the integration call is another argument,
 * and C does not order argument evaluation. */
void emax_quad_add(struct emax_quad *qd, const double *err, int status)
{
    qd->abserr += *err;
    if (!qd->status)
        qd->status = status;
}

/* which integral a warm partition belongs to (its coordinates) */
enum { WARM_BULK_LOG = 1, WARM_RANGE_LOG, WARM_RANGE_LIN };

#define MAX_POINTS 66   /* break points a caller hands over (64 + the ends) */

/* Into out: pts[0..np) (ascending) and the previous partition's points
 * of the same kind strictly inside the range; returns the count (np
 * when there are none). */
static size_t warm_points(const struct emax_quad *qd, int kind, const double *pts, size_t np,
                          double *out)
{
    const struct gt_emax_warm *wm = qd->warm;
    memcpy(out, pts, np * sizeof *pts);
    if (!wm || wm->kind != kind || np < 2)
        return np;
    double a = pts[0], b = pts[np - 1];
    size_t k = np - 1;   /* the right end goes back last */
    for (size_t i = 0; i < wm->n; i++)
        if (wm->pts[i] > a && wm->pts[i] < b)
            out[k++] = wm->pts[i];
    out[k++] = b;
    qsort(out + 1, k - 2, sizeof *out, emax_cmp_double);
    return unique_points(out, k);
}

/* Keep the partition the last rule ended with, when it is small: one
 * that needed more points than GT_EMAX_WARM_MAX was for an integrand
 * unlike the next one (a window of two samples, refitted wildly from
 * moment to moment), and starting from it would cost more than it saves.
 * A partition that met the tolerance a thousand times over (thin) keeps
 * every other point: points are only ever added, so without thinning a
 * series of integrals keeps every panel any one of them needed (over a
 * backtest's day, half the rules ended 1e-8 of the tolerance; thinned,
 * 11 % fewer evaluations). */
static void warm_keep(const struct emax_quad *qd, int kind, int status, bool thin)
{
    struct gt_emax_warm *wm = qd->warm;
    const gsl_integration_workspace *w = qd->w;
    if (!wm)
        return;
    double left[EMAX_WORKSPACE];
    size_t n = 0;
    for (size_t i = 0; i < w->size && n < EMAX_WORKSPACE; i++)
        left[n++] = w->alist[i];
    qsort(left, n, sizeof *left, emax_cmp_double);
    n = unique_points(left, n);
    /* left[0] is the range's own left end */
    size_t inner = n > 1 ? n - 1 : 0;
    if (status || inner > GT_EMAX_WARM_MAX) {
        wm->n = 0, wm->kind = 0;
        return;
    }
    if (thin) {
        size_t k = 0;
        for (size_t i = 1; i < inner; i += 2)
            left[1 + k++] = left[1 + i];
        inner = k;
    }
    memcpy(wm->pts, left + 1, inner * sizeof *left);
    wm->n = inner;
    wm->kind = kind;
}

/* qagp over the break points pts[0..np) (np <= MAX_POINTS), starting
 * from the last partition of the same kind; where that misleads the rule
 * (it fails), again from the caller's points alone. */
static void qagp_warm(struct emax_quad *qd, int kind, gsl_function *fn, const double *pts,
                      size_t np, double *r)
{
    double e = 0, merged[MAX_POINTS + GT_EMAX_WARM_MAX];
    size_t nm = warm_points(qd, kind, pts, np, merged);
    int status = GSL_FAILURE;
    if (nm == 2 && kind == WARM_BULK_LOG) {
        /* the bulk of a max holds its whole climb: one panel never
           passes, and starting from two saves the rule's first pass
           (-5 % evaluations over a backtest's cold windows) */
        merged[2] = merged[1];
        merged[1] = merged[0] + (merged[2] - merged[0]) / 2;
        nm = 3;
    }
    if (nm > np)
        status = gsl_integration_qagp(fn, merged, nm, 0, qd->epsrel, EMAX_WORKSPACE, qd->w, r, &e);
    if (status) {
        memcpy(merged, pts, np * sizeof *pts);   /* GSL takes them non-const */
        status = gsl_integration_qagp(fn, merged, np, 0, qd->epsrel, EMAX_WORKSPACE, qd->w, r, &e);
    }
    emax_quad_add(qd, &e, status);
    warm_keep(qd, kind, status, e < 1e-3 * qd->epsrel * fabs(*r));
}

struct logx {
    double (*f)(double, void *);
    void *param;
};

static double f_logx(double u, void *p)
{
    const struct logx *lx = p;
    double x = exp(u);
    return isinf(x) ? 0 : lx->f(x, lx->param) * x;
}

/* Where the last retry copy of a loss mixture has all but 1e-15 of its
 * mass: beyond it 1 - G has no more kinks (-INFINITY without loss). */
static double last_retry_end(const struct emax_ctx *c)
{
    double hi = -INFINITY;
    for (size_t i = 0; i < c->ng; i++) {
        const struct gt_ladder *l = ladder_at(c, i);
        if (l)
            hi = fmax(hi, l->model->quantile(l->p, 1 - 1e-15) + l->shift + l->delay[l->n - 1]);
    }
    return hi;
}

#define MAX_BREAKS 512   /* of qagp's EMAX_WORKSPACE intervals */

/* int f over pts[0..np) with the break points given: QAGP's extrapolation
 * helps at an end singularity (a cut), but over the many steep steps of
 * loss retries its roundoff test fails where one adaptive rule per
 * interval converges (a four-partner case: QAGP's error 2.2, per interval
 * below 3e-10). */
static double over_breaks(struct emax_quad *qd, gsl_function *fn, double *pts, size_t np,
                          bool per_interval, int kind)
{
    double r = 0, e = 0, total = 0;
    if (!per_interval) {
        qagp_warm(qd, kind, fn, pts, np, &r);
        return r;
    }
    for (size_t i = 0; i + 1 < np; i++) {
        emax_quad_add(qd, &e, gsl_integration_qag(fn, pts[i], pts[i + 1], 0, qd->epsrel,
                                                  EMAX_WORKSPACE, GSL_INTEG_GAUSS21, qd->w, &r,
                                                  &e));
        total += r;
    }
    return total;
}

#define LN_1E12 27.631021115928547   /* a Pareto's climb in ln x is LN_1E12 / alpha */
#define Z_1E12 7.034                 /* Phi(-7.034) = 1e-12 */

/* The width of partner g's climb from about 1e-12 to 1 - 1e-12, in x or
 * (logspace) in ln x: cheap, as every E[max] asks it of every partner;
 * NAN for the models without a closed form here (a point mass is a
 * break point of its own). */
double emax_climb_width(const struct gt_dist *g, bool logspace)
{
    if (g->model == &gt_model_pareto) {
        /* in ln x with the shift: a partner shifted far beyond its k climbs
           in far less of ln x than LN_1E12 / alpha (its own ln y) */
        double w = g->p[0] * expm1(LN_1E12 / g->p[1]), lo = g->p[0] + g->shift;
        return !logspace ? w : lo > 0 ? log1p(w / lo) : INFINITY;
    }
    if (g->model == &gt_model_normal) {
        double lo = g->p[0] + g->shift - Z_1E12 * g->p[1];
        return !logspace ? 2 * Z_1E12 * g->p[1]
               : lo > 0  ? log1p(2 * Z_1E12 * g->p[1] / lo) : INFINITY;
    }
    return NAN;
}

/* emax_climb_width(g, logspace) < limit; in ln x without a log or an exp per
 * partner (every E[max] asks it of every partner): log1p(r) < limit is
 * r < elimit, expm1(limit) taken once by the caller, and an unshifted
 * Pareto's width in ln x is LN_1E12 / alpha itself. */
static bool climb_narrow(const struct gt_dist *g, bool logspace, double limit, double elimit)
{
    if (!logspace)
        return emax_climb_width(g, false) < limit;
    if (g->model == &gt_model_pareto && g->shift == 0)
        return LN_1E12 / g->p[1] < limit;
    double lo = g->p[0] + g->shift - (g->model == &gt_model_normal ? Z_1E12 * g->p[1] : 0);
    return lo > 0 && emax_climb_width(g, false) / lo < elimit;
}

/* Where that climb starts, its median and where it ends (shift included). */
void emax_climb(const struct gt_dist *g, double *x)
{
    if (g->model == &gt_model_pareto) {
        x[0] = g->p[0];
        x[1] = g->p[0] * exp(M_LN2 / g->p[1]);
        x[2] = g->p[0] * exp(LN_1E12 / g->p[1]);
    } else {
        x[0] = g->p[0] - Z_1E12 * g->p[1];
        x[1] = g->p[0];
        x[2] = g->p[0] + Z_1E12 * g->p[1];
    }
    for (int k = 0; k < 3; k++)
        x[k] += g->shift;
}

/* A partner whose whole climb takes less than 1/64 of the range [from,
 * to] (in ln x when logspace) is a step that one Gauss-Kronrod panel can
 * straddle unseen: a Pareto fitted to two close samples has alpha in the
 * thousands, and missing its step cost 8e-5 of E[max] at a tolerance of
 * 1e-10.  Its climb's ends and median become break points, appended to
 * pts[0..np) up to cap; returns the new count. */
static size_t narrow_points(const struct emax_ctx *c, double from, double to, bool logspace,
                            double *pts, size_t np, size_t cap)
{
    double limit = (logspace ? log(to / from) : to - from) / 64, elimit = expm1(limit);
    for (size_t i = 0; i < c->ng && np + 3 <= cap; i++) {
        const struct gt_dist *g = &c->g[i].dist;
        double x[3];
        if (tabled(c, i) || !climb_narrow(g, logspace, limit, elimit))
            continue;
        emax_climb(g, x);
        if (!(x[2] > from && x[0] < to) || (logspace && !(x[0] > 0)))
            continue;
        for (int k = 0; k < 3; k++)
            if (x[k] > from && x[k] < to)
                pts[np++] = x[k];
    }
    return np;
}

/* robust: over every loss retry with break points, one adaptive rule per
 * interval (see over_breaks), for when the quicker way fails. */
static double integrate_smooth_as(struct emax_quad *qd, double (*f)(double, void *), void *param,
                                  const struct emax_ctx *c, double n, double from, double to,
                                  bool robust)
{
    gsl_function fn = {f, param};
    double r = 0, e = 0, total = 0, end = to;
    size_t np = 0;
    if (isinf(to)) {
        double lo;
        emax_bracket(c, n, 1 - 1e-4, 1e-3, &lo, &end);
        /* retries far out put steep steps into 1 - G: integrate over them
           with break points, leaving the smooth tail to the tail rule */
        if (robust)
            end = fmax(end, last_retry_end(c));
        if (!(end > from))
            end = from;
    }
    double pts_small[MAX_POINTS] = {0}, *pts = pts_small;
    size_t cap = 64;
    if (robust && (pts = malloc((MAX_BREAKS + 2) * sizeof *pts)))
        cap = MAX_BREAKS;
    else
        pts = pts_small;
    pts[np++] = from;
    for (size_t i = 0; i < c->ng && np < cap; i++) {
        const struct gt_dist *g = &c->g[i].dist;
        if (tabled(c, i))
            continue;
        if (g->model == &gt_model_delta) {
            double d = g->p[0] + g->shift;
            if (d > from && d < end)
                pts[np++] = d;
        }
        /* a retry starts another copy of the distribution: a kink there */
        const struct gt_ladder *l = ladder_at(c, i);
        for (int j = 0; l && j < l->n && np < cap; j++) {
            double d = gt_ladder_start(l, j);
            if (d >= end)
                break;
            if (d > from)
                pts[np++] = d;
        }
    }
    bool logspace = end > from && !isinf(to) && from > 0 && end > 100 * from;
    if (end > from)
        np = narrow_points(c, from, end, logspace, pts, np, cap);
    qsort(pts + 1, np - 1, sizeof *pts, emax_cmp_double);
    np = unique_points(pts, np);
    pts[np++] = end;
    if (logspace) {
        /* a finite range over decades (an alpha <= 1 cut at x0 = k m^(1/alpha)):
           in u = ln x the power-law tail is smooth, as for the infinite tail */
        struct logx lx = {f, param};
        gsl_function fu = {f_logx, &lx};
        for (size_t i = 0; i < np; i++)
            pts[i] = log(pts[i]);
        total += over_breaks(qd, &fu, pts, np, robust, WARM_RANGE_LOG);
    } else if (end > from) {
        total += over_breaks(qd, &fn, pts, np, robust, WARM_RANGE_LIN);
    }
    if (isinf(to) && end > 0) {
        /* the tail in u = ln x: a power-law tail x^-a becomes e^((1-a)u),
           which Gauss-Kronrod resolves in a few panels */
        struct logx lx = {f, param};
        gsl_function fu = {f_logx, &lx};
        emax_quad_add(qd, &e, gsl_integration_qagiu(&fu, log(end), 0, qd->epsrel, EMAX_WORKSPACE,
                                                    qd->w, &r, &e));
        total += r;
    } else if (isinf(to)) {
        emax_quad_add(qd, &e, gsl_integration_qagiu(&fn, end, 0, qd->epsrel, EMAX_WORKSPACE, qd->w,
                                                    &r, &e));
        total += r;
    }
    if (pts != pts_small)
        free(pts);
    return total;
}

/* Integrate f(x, param) over [from, to] (to may be INFINITY): adaptive
 * Gauss-Kronrod over the bulk of the max with the delta steps (where the
 * integrand jumps) and loss retries as break points, then the infinite
 * tail; where that fails with loss retries among the partners, again
 * robustly.  Tabled step CDFs are constant here (integrate_steps hands
 * over beyond their points). */
static double integrate_smooth(struct emax_quad *qd, double (*f)(double, void *), void *param,
                               const struct emax_ctx *c, double n, double from, double to)
{
    struct emax_quad first = {qd->w, 0, 0, qd->epsrel, qd->warm};
    double r = integrate_smooth_as(&first, f, param, c, n, from, to, false);
    if (first.status && (c->extra || c->mixed)) {
        first = (struct emax_quad){qd->w, 0, 0, qd->epsrel, NULL};
        r = integrate_smooth_as(&first, f, param, c, n, from, to, true);
    }
    emax_quad_add(qd, &first.abserr, first.status);
    return r;
}

/* The points of every step table in (from, to), and with ladders the
 * retry starts of the loss mixtures there, ascending and distinct, in a
 * malloc'd array of *np (NULL on ENOMEM). */
double *emax_union_points(const struct emax_ctx *c, double from, double to, bool ladders,
                          size_t *np)
{
    size_t total = 0;
    for (size_t i = 0; i < c->ng; i++)
        total += tabled(c, i)                  ? c->tabs[i].n
                 : ladders && ladder_at(c, i) ? (size_t)ladder_at(c, i)->n : 0;
    double *pts = malloc((total ? total : 1) * sizeof *pts);
    if (!pts)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < c->ng; i++) {
        size_t k0 = k;
        for (size_t j = tabled(c, i) ? gt_steps_upto(&c->tabs[i], from) : 0;
             tabled(c, i) && j < c->tabs[i].n && c->tabs[i].t[j] < to; j++)
            pts[k++] = c->tabs[i].t[j];
        const struct gt_ladder *l = ladders ? ladder_at(c, i) : NULL;
        for (int j = 0; l && j < l->n; j++) {
            double d = gt_ladder_start(l, j);
            if (d >= to)
                break;
            if (d > from)
                pts[k++] = d;
        }
        if (!gt_merge_runs(pts, sizeof *pts, k0, k)) {   /* each group's points ascend */
            free(pts);
            return NULL;
        }
    }
    *np = unique_points(pts, k);
    return pts;
}

/* The same integral with step CDFs among the partners: between two
 * consecutive points of their tables each is constant, so with nothing
 * else f is constant there too and the interval adds f(left end) times
 * its length, exactly; otherwise f is smooth inside and one adaptive
 * Gauss-Kronrod rule per interval (it never samples the ends, where f
 * jumps) integrates it.  Beyond the last point the step CDFs are 1. */
static double integrate_steps(struct emax_quad *qd, double (*f)(double, void *), void *param,
                              const struct emax_ctx *c, double n, double from, double to)
{
    size_t np;
    double *pts = emax_union_points(c, from, to, true, &np);
    if (!pts) {
        emax_quad_add(qd, &(double){0}, GSL_ENOMEM);
        return NAN;
    }
    gsl_function fn = {f, param};
    double a = from;
    struct gt_ksum sum = {0, 0};   /* thousands of intervals */
    for (size_t k = 0; k <= np; k++) {
        double b = k < np ? pts[k] : to, r = 0, e = 0;
        if (k == np && !c->only_steps) {
            r = integrate_smooth(qd, f, param, c, n, a, to);
        } else if (!(b > a)) {
            continue;
        } else if (c->only_steps) {
            double v = f(a, param);
            if (isinf(b))
                break;   /* 1 - G = 0 beyond every point */
            r = v * (b - a);
        } else {
            emax_quad_add(qd, &e, gsl_integration_qag(&fn, a, b, 0, qd->epsrel, EMAX_WORKSPACE,
                                                      GSL_INTEG_GAUSS21, qd->w, &r, &e));
        }
        gt_ksum_add(&sum, r);
        a = b;
    }
    free(pts);
    return gt_ksum_get(&sum);
}

/* int_from^inf (1 - G) when every partner is a step CDF, by one sweep
 * up the tables together: at each point the groups whose tables step
 * there move to their next log F, and G changes nowhere else.  The same
 * sum as integrate_steps, without sorting the points or searching the
 * tables: O(points x groups).  false on ENOMEM. */
static bool sweep_one_minus_G(const struct emax_ctx *c, double from, double *out)
{
    size_t ng = c->ng, *pos = malloc(ng * sizeof *pos);
    double *lf = malloc(ng * sizeof *lf), a = from;
    struct gt_ksum sum = {0, 0};
    if (!pos || !lf) {
        free(pos);
        free(lf);
        return false;
    }
    for (size_t i = 0; i < ng; i++) {
        pos[i] = gt_steps_upto(&c->tabs[i], from);
        lf[i] = pos[i] ? c->tabs[i].lcdf[pos[i] - 1] : -INFINITY;
    }
    for (;;) {
        double next = INFINITY, S = 0;
        for (size_t i = 0; i < ng; i++) {
            if (pos[i] < c->tabs[i].n && c->tabs[i].t[pos[i]] < next)
                next = c->tabs[i].t[pos[i]];
            S += c->g[i].count * lf[i];
        }
        if (isinf(next))
            break;   /* G = 1 from here on */
        gt_ksum_add(&sum, -expm1(S) * (next - a));
        for (size_t i = 0; i < ng; i++)
            if (pos[i] < c->tabs[i].n && c->tabs[i].t[pos[i]] == next)
                lf[i] = c->tabs[i].lcdf[pos[i]++];
        a = next;
    }
    free(pos);
    free(lf);
    *out = gt_ksum_get(&sum);
    return true;
}

double emax_integrate(struct emax_quad *qd, double (*f)(double, void *), void *param,
                      const struct emax_ctx *c, double n, double from, double to)
{
    double r;
    if (c->only_steps && f == emax_f_one_minus_G && isinf(to)) {
        if (sweep_one_minus_G(c, from, &r))
            return r;
        emax_quad_add(qd, &(double){0}, GSL_ENOMEM);
        return NAN;
    }
    return c->steps ? integrate_steps(qd, f, param, c, n, from, to)
                    : integrate_smooth(qd, f, param, c, n, from, to);
}

/* From this many partner groups on, an evaluation of log G costs more
 * than the rule's own work, and the bulk is integrated by the rule that
 * needs the fewest partner terms: 61-point Gauss-Kronrod per interval
 * (no warm start, no extrapolation).  At 10,000 partners it asks 183
 * evaluations where GK21 asked 168, but more of them far out, where few
 * partners are still active: 30 % less time (docs/BENCHMARKS.md); at
 * 1,024 the two are even, and below GK21's warm partitions win. */
#define BULK_GK61_FROM 2048

static double bulk_gk61(struct emax_quad *qd, gsl_function *fu, const double *pts, size_t np)
{
    double r = 0, e = 0, total = 0;
    for (size_t i = 0; i + 1 < np; i++) {
        /* the bulk holds the whole climb of the max and its approach to
           xt: one panel never passes, so the rule starts from two (at
           10,000 partners, 122 evaluations instead of 183) */
        double a = pts[i], b = pts[i + 1], mid = np == 2 ? a + (b - a) / 2 : b;
        for (double lo = a, hi = mid; lo < b; lo = hi, hi = b) {
            emax_quad_add(qd, &e, gsl_integration_qag(fu, lo, hi, 0, qd->epsrel, EMAX_WORKSPACE,
                                                      GSL_INTEG_GAUSS61, qd->w, &r, &e));
            total += r;
        }
    }
    return total;
}

/* int_flat^inf (1 - G) as a bulk and a tail.  Beyond xt, where
 * S = -log G <= eps, 1 - G = S - S^2/2 + ... = S to eps/2 relative, and
 * S is a sum of per-partner terms with closed-form integrals
 * (model->tail_integral).  eps is the tolerance asked for, but at most
 * 1e-10: a backtest's 1e-6 moves xt down by decades of a power-law tail
 * and leaves a much shorter bulk to integrate.
 * The bulk [flat, xt] is integrated in u = ln x, where both the steep step
 * of G and a power-law approach to xt are smooth.  Returns false (nothing
 * added) when a tail diverges, so the caller integrates numerically. */
bool emax_bulk_and_tail(const struct emax_ctx *c, double n, double flat, struct emax_quad *qd,
                        double *out)
{
    double lo, xt;
    if (c->extra)
        return false;   /* a step table's tail has no closed-form integral */
    double eps = fmax(qd->epsrel, 1e-10);
    emax_bracket_warm(c, n, exp(-eps), 1e-3, qd->warm, GT_EMAX_WARM_TOP, &lo, &xt);
    if (!(xt > flat))
        return false;
    double tail = 0;
    for (size_t i = 0; i < c->ng; i++) {
        const struct gt_dist *d = &c->g[i].dist;
        tail += c->g[i].count * d->model->tail_integral(d->p, xt - d->shift);
    }
    if (!isfinite(tail))
        return false;
    double pts[MAX_POINTS], r = 0;
    size_t np = 0;
    pts[np++] = flat;
    for (size_t i = 0; i < c->ng && np < 64; i++)
        if (c->g[i].dist.model == &gt_model_delta) {
            double d = c->g[i].dist.p[0] + c->g[i].dist.shift;
            if (d > flat && d < xt)
                pts[np++] = d;
        }
    np = narrow_points(c, flat, xt, true, pts, np, 64);
    for (size_t i = 0; i < np; i++)
        pts[i] = log(pts[i]);
    qsort(pts + 1, np - 1, sizeof *pts, emax_cmp_double);
    np = unique_points(pts, np);
    pts[np++] = log(xt);
    struct logx lx = {emax_f_one_minus_G, (void *)c};
    gsl_function fu = {f_logx, &lx};
    if (c->ng >= BULK_GK61_FROM)
        r = bulk_gk61(qd, &fu, pts, np);
    else
        qagp_warm(qd, WARM_BULK_LOG, &fu, pts, np, &r);
    *out = r + tail;
    return true;
}
