/*
 * emax.c - E[max] by closed form where one exists and is accurate, by
 * GSL adaptive Gauss-Kronrod integration otherwise.
 *
 * The integrand 1 - G(x), G = prod_g F_g(x)^count_g, is evaluated as
 * -expm1(sum_g count_g log F_g(x)): a product of thousands of CDFs near 1
 * would round to 1 and lose the tail that decides the answer.
 */
#define _DEFAULT_SOURCE
#include "emax.h"
#include "chebfit.h"
#include "ladder.h"
#include "lcsum.h"
#include "steps.h"
#include "base/util.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <threads.h>
#include <stdlib.h>
#include <string.h>

#define WORKSPACE 1000
#define EPSREL 1e-10    /* the default; gt_emax_opts.epsrel asks for less */
/* from this tolerance on, the fast sum may be coarse (lcsum.h): its
 * absolute error, n ulp of 1, is then below a millionth of the tolerance
 * for up to a few thousand partners */
#define COARSE_EPSREL 1e-9
/* Inclusion-exclusion costs (terms x groups); integration about 220
 * evaluations x groups.  Measured crossover (scripts/bench/closed_form.sh):
 * 255 terms (8 distinct partners) 0.013 ms against 0.016 ms integrating,
 * 1,023 terms 0.064 ms against 0.016 ms. */
#define MAX_CLOSED_TERMS 256

struct ctx {
    const struct gt_partner_group *g;
    size_t ng;
    long skip;            /* group whose one member is excluded (slowest) */
    double log_g_cut;     /* log G(x0) for the cut-off integrand */
    const struct gt_lcsum *sum;   /* the fast sum over the other partners */
    bool extra;           /* some partner is a tabled step CDF (steps.h):
                             those are summed here, outside the compiled sum */
    bool mixed;           /* some partner of the compiled sum is a loss
                             mixture (its ladder, ladder.h) */
    bool steps;           /* some partner is empirical: every step CDF
                             (empirical or delta) is then tabled */
    bool only_steps;      /* every partner is: 1 - G is piecewise constant */
    const struct gt_steps *tabs;  /* per group; n > 0: its step table */
    struct gt_cheb *cheb;         /* the workspace's fit (chebfit.h) */
    double scale;                 /* the largest partner median: E[max] >= scale / 2 */
};

static bool tabled(const struct ctx *c, size_t i)
{
    return c->tabs && c->tabs[i].n > 0;
}

static bool extra_at(const struct ctx *c, size_t i)
{
    return tabled(c, i);
}

/* group i's compiled loss mixture, or NULL */
static const struct gt_ladder *ladder_at(const struct ctx *c, size_t i)
{
    return c->mixed && !tabled(c, i) ? gt_lcsum_ladder(c->sum, i) : NULL;
}

static double group_logcdf(const struct ctx *c, size_t i, double x)
{
    if (tabled(c, i))
        return gt_steps_logcdf(&c->tabs[i], x);
    const struct gt_ladder *l = ladder_at(c, i);
    return l ? gt_ladder_logcdf(l, x) : gt_dist_logcdf(&c->g[i].dist, x);
}

/* sum over the partners outside the compiled sum of count * log F(x) */
static double log_extra(const struct ctx *c, double x)
{
    double s = 0;
    for (size_t i = 0; i < c->ng && s > -INFINITY; i++)
        if (extra_at(c, i))
            s += c->g[i].count * group_logcdf(c, i, x);
    return s;
}

static double log_G_slow(const struct ctx *c, double x)
{
    double s = 0;
    for (size_t i = 0; i < c->ng; i++) {
        double l = group_logcdf(c, i, x);
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
static double log_G(const struct ctx *c, double x)
{
    double s = gt_lcsum_eval(c->sum, x);
    if (c->extra && s > -INFINITY)
        s += log_extra(c, x);
    if (c->skip < 0)
        return s;
    double l = group_logcdf(c, (size_t)c->skip, x);
    return l == -INFINITY ? log_G_slow(c, x) : s - l;
}

static double f_one_minus_G(double x, void *p)
{
    return -expm1(log_G(p, x));
}

static double f_G(double x, void *p)
{
    return exp(log_G(p, x));
}

static double f_cut(double x, void *p)
{
    const struct ctx *c = p;
    double l = log_G(c, x);
    return exp(c->log_g_cut) * (l == -INFINITY ? 1 : -expm1(l - c->log_g_cut));
}

static double lower_bound(const struct gt_partner_group *g, size_t ng)
{
    double a = -INFINITY;
    for (size_t i = 0; i < ng; i++) {
        double l = gt_dist_lower(&g[i].dist);
        a = l > a ? l : a;
    }
    return a;
}

/* Bracket the q-quantile of the max, the x where log G(x) = log q, to a
 * relative width tol, starting from bounds that always hold:
 * G <= F_i^c_i for each i, and G >= q where every F_i^c_i >= q^(c_i/n).
 * On return log G(*lo) < log q <= log G(*hi). */
static void max_bracket_from(const struct ctx *base, double n, double q, double tol,
                             double guess, double *lo_out, double *hi_out)
{
    double lq = log(q);
    double lo = gt_lcsum_quantile_max(base->sum, lq, true);
    double hi = gt_lcsum_quantile_max(base->sum, lq / n, false);
    struct ctx c = *base;
    c.skip = -1;
    if (base->extra || base->mixed) {
        /* a mixture's quantile is at least its first term's (retries only
           delay); above, widen until G reaches q */
        for (size_t i = 0; i < c.ng; i++) {
            const struct gt_dist *d = &c.g[i].dist;
            if (!extra_at(&c, i))
                continue;
            double ql = gt_dist_quantile0(d, exp(lq / c.g[i].count));
            double qh = gt_dist_quantile0(d, exp(lq / n));
            lo = isfinite(lo) ? fmax(lo, ql) : ql;
            hi = isfinite(hi) ? fmax(hi, qh) : qh;
        }
        for (int it = 0; it < 400 && log_G(&c, hi) < lq; it++)
            hi += fmax(hi - lo, 1.0);
    }
    if (base->steps) {
        /* G jumps: start where it is 0, below every partner's support */
        double a = lower_bound(c.g, c.ng);
        lo = a - (fabs(a) * 1e-9 + 1e-300);
    }
    /* the lower bound may itself reach q (a point mass): step below it */
    for (int it = 0; it < 64 && log_G(&c, lo) >= lq; it++)
        lo -= fabs(lo) * 1e-9 + 1e-300;
    /* a guess (the last moment's answer) that brackets q within 0.2 %
       replaces the wide bounds: two evaluations instead of a dozen */
    double flo = NAN, fhi = NAN;
    if (isfinite(guess) && guess != 0) {
        double gl = guess - fabs(guess) * 2e-3, gh = guess + fabs(guess) * 2e-3;
        double fl = log_G(&c, gl) - lq, fh = log_G(&c, gh) - lq;
        if (fl < 0 && fh >= 0)
            lo = gl, hi = gh, flo = fl, fhi = fh;
    }
    /* Illinois regula falsi on log G - log q (smooth, increasing), with a
       bisection step wherever an end value is infinite, and only
       bisection across the jumps of step CDFs (the smallest x with
       G >= q is then found to the last bit) */
    if (isnan(flo))
        flo = log_G(&c, lo) - lq, fhi = log_G(&c, hi) - lq;
    int side = 0;
    for (int it = 0; it < (base->steps ? 2100 : 200) && hi - lo > tol * fabs(hi); it++) {
        double mid = lo + (hi - lo) / 2;
        if (!base->steps && isfinite(flo) && isfinite(fhi) && fhi > flo)
            mid = lo + (hi - lo) * (-flo / (fhi - flo));
        if (!(mid > lo && mid < hi))
            mid = lo + (hi - lo) / 2;
        if (!(mid > lo && mid < hi))
            break;
        double fm = log_G(&c, mid) - lq;
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

static void max_bracket(const struct ctx *base, double n, double q, double tol,
                        double *lo_out, double *hi_out)
{
    max_bracket_from(base, n, q, tol, NAN, lo_out, hi_out);
}

/* max_bracket starting from the answer kept in warm slot (if any), where
 * it then keeps this one. */
static void max_bracket_warm(const struct ctx *base, double n, double q, double tol,
                             struct gt_emax_warm *wm, int slot, double *lo_out, double *hi_out)
{
    max_bracket_from(base, n, q, tol, wm ? wm->at[slot] : NAN, lo_out, hi_out);
    if (wm)
        wm->at[slot] = *hi_out;
}

static double max_quantile(const struct ctx *base, double n, double q, double tol)
{
    double lo, hi;
    max_bracket(base, n, q, tol, &lo, &hi);
    return hi;
}

static int cmp_double(const void *a, const void *b)
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

struct quad {
    gsl_integration_workspace *w;
    double abserr;
    int status;
    double epsrel;        /* relative tolerance of every rule */
    struct gt_emax_warm *warm;   /* NULL: start cold */
};

/* Takes the error by pointer: the integration call is another argument,
 * and C does not order argument evaluation. */
static void quad_add(struct quad *qd, const double *err, int status)
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
static size_t warm_points(const struct quad *qd, int kind, const double *pts, size_t np,
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
    qsort(out + 1, k - 2, sizeof *out, cmp_double);
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
static void warm_keep(const struct quad *qd, int kind, int status, bool thin)
{
    struct gt_emax_warm *wm = qd->warm;
    const gsl_integration_workspace *w = qd->w;
    if (!wm)
        return;
    double left[WORKSPACE];
    size_t n = 0;
    for (size_t i = 0; i < w->size && n < WORKSPACE; i++)
        left[n++] = w->alist[i];
    qsort(left, n, sizeof *left, cmp_double);
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
static void qagp_warm(struct quad *qd, int kind, gsl_function *fn, const double *pts, size_t np,
                      double *r)
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
        status = gsl_integration_qagp(fn, merged, nm, 0, qd->epsrel, WORKSPACE, qd->w, r, &e);
    if (status) {
        memcpy(merged, pts, np * sizeof *pts);   /* GSL takes them non-const */
        status = gsl_integration_qagp(fn, merged, np, 0, qd->epsrel, WORKSPACE, qd->w, r, &e);
    }
    quad_add(qd, &e, status);
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
static double last_retry_end(const struct ctx *c)
{
    double hi = -INFINITY;
    for (size_t i = 0; i < c->ng; i++) {
        const struct gt_ladder *l = ladder_at(c, i);
        if (l)
            hi = fmax(hi, l->model->quantile(l->p, 1 - 1e-15) + l->shift + l->delay[l->n - 1]);
    }
    return hi;
}

#define MAX_BREAKS 512   /* of qagp's WORKSPACE intervals */

/* int f over pts[0..np) with the break points given: QAGP's extrapolation
 * helps at an end singularity (a cut), but over the many steep steps of
 * loss retries its roundoff test fails where one adaptive rule per
 * interval converges (a four-partner case: QAGP's error 2.2, per interval
 * below 3e-10). */
static double over_breaks(struct quad *qd, gsl_function *fn, double *pts, size_t np,
                          bool per_interval, int kind)
{
    double r = 0, e = 0, total = 0;
    if (!per_interval) {
        qagp_warm(qd, kind, fn, pts, np, &r);
        return r;
    }
    for (size_t i = 0; i + 1 < np; i++) {
        quad_add(qd, &e, gsl_integration_qag(fn, pts[i], pts[i + 1], 0, qd->epsrel, WORKSPACE,
                                             GSL_INTEG_GAUSS21, qd->w, &r, &e));
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
static double climb_width(const struct gt_dist *g, bool logspace)
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

/* climb_width(g, logspace) < limit; in ln x without a log or an exp per
 * partner (every E[max] asks it of every partner): log1p(r) < limit is
 * r < elimit, expm1(limit) taken once by the caller, and an unshifted
 * Pareto's width in ln x is LN_1E12 / alpha itself. */
static bool climb_narrow(const struct gt_dist *g, bool logspace, double limit, double elimit)
{
    if (!logspace)
        return climb_width(g, false) < limit;
    if (g->model == &gt_model_pareto && g->shift == 0)
        return LN_1E12 / g->p[1] < limit;
    double lo = g->p[0] + g->shift - (g->model == &gt_model_normal ? Z_1E12 * g->p[1] : 0);
    return lo > 0 && climb_width(g, false) / lo < elimit;
}

/* Where that climb starts, its median and where it ends (shift included). */
static void climb(const struct gt_dist *g, double *x)
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
static size_t narrow_points(const struct ctx *c, double from, double to, bool logspace,
                            double *pts, size_t np, size_t cap)
{
    double limit = (logspace ? log(to / from) : to - from) / 64, elimit = expm1(limit);
    for (size_t i = 0; i < c->ng && np + 3 <= cap; i++) {
        const struct gt_dist *g = &c->g[i].dist;
        double x[3];
        if (tabled(c, i) || !climb_narrow(g, logspace, limit, elimit))
            continue;
        climb(g, x);
        if (!(x[2] > from && x[0] < to) || (logspace && !(x[0] > 0)))
            continue;
        for (int k = 0; k < 3; k++)
            if (x[k] > from && x[k] < to)
                pts[np++] = x[k];
    }
    return np;
}

/* The break points of copy j of group i in (from, to): a Pareto copy's
 * start; a normal copy's median, or its whole climb where it is narrow;
 * into pts from *first (set to 0); returns the end. */
static size_t retry_points_of(const struct ctx *c, size_t i, int j, double from, double to,
                              double *pts, size_t *first)
{
    const struct gt_ladder *l = ladder_at(c, i);
    struct gt_dist d0 = {.model = l->model, .p = {l->p[0], l->p[1]}, .shift = l->shift};
    double x[3];
    climb(&d0, x);
    /* a Pareto copy's segment is fitted in ln(x - its zero), where its
       steep start is spread out: its start alone will do */
    bool narrow = l->model != &gt_model_pareto && climb_width(&d0, false) < (to - from) / 64;
    double v[3] = {x[narrow || l->model == &gt_model_pareto ? 0 : 1], x[1], x[2]};
    size_t n = 0;
    *first = 0;
    for (int k = 0; k < (narrow ? 3 : 1); k++) {
        double at = v[k] + l->delay[j];
        if (at > from && at < to)
            pts[n++] = at;
    }
    return n;
}

/* robust: over every loss retry with break points, one adaptive rule per
 * interval (see over_breaks), for when the quicker way fails. */
static double integrate_smooth_as(struct quad *qd, double (*f)(double, void *), void *param,
                                  const struct ctx *c, double n, double from, double to,
                                  bool robust)
{
    gsl_function fn = {f, param};
    double r = 0, e = 0, total = 0, end = to;
    size_t np = 0;
    if (isinf(to)) {
        double lo;
        max_bracket(c, n, 1 - 1e-4, 1e-3, &lo, &end);
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
    qsort(pts + 1, np - 1, sizeof *pts, cmp_double);
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
        quad_add(qd, &e, gsl_integration_qagiu(&fu, log(end), 0, qd->epsrel, WORKSPACE, qd->w,
                                               &r, &e));
        total += r;
    } else if (isinf(to)) {
        quad_add(qd, &e, gsl_integration_qagiu(&fn, end, 0, qd->epsrel, WORKSPACE, qd->w, &r, &e));
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
static double integrate_smooth(struct quad *qd, double (*f)(double, void *), void *param,
                               const struct ctx *c, double n, double from, double to)
{
    struct quad first = {qd->w, 0, 0, qd->epsrel, qd->warm};
    double r = integrate_smooth_as(&first, f, param, c, n, from, to, false);
    if (first.status && (c->extra || c->mixed)) {
        first = (struct quad){qd->w, 0, 0, qd->epsrel, NULL};
        r = integrate_smooth_as(&first, f, param, c, n, from, to, true);
    }
    quad_add(qd, &first.abserr, first.status);
    return r;
}

/* The points of every step table in (from, to), and with ladders the
 * retry starts of the loss mixtures there, ascending and distinct, in a
 * malloc'd array of *np (NULL on ENOMEM). */
static double *union_points(const struct ctx *c, double from, double to, bool ladders,
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
static double integrate_steps(struct quad *qd, double (*f)(double, void *), void *param,
                              const struct ctx *c, double n, double from, double to)
{
    size_t np;
    double *pts = union_points(c, from, to, true, &np);
    if (!pts) {
        quad_add(qd, &(double){0}, GSL_ENOMEM);
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
            quad_add(qd, &e, gsl_integration_qag(&fn, a, b, 0, qd->epsrel, WORKSPACE,
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
static bool sweep_one_minus_G(const struct ctx *c, double from, double *out)
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

static double integrate(struct quad *qd, double (*f)(double, void *), void *param,
                        const struct ctx *c, double n, double from, double to)
{
    double r;
    if (c->only_steps && f == f_one_minus_G && isinf(to)) {
        if (sweep_one_minus_G(c, from, &r))
            return r;
        quad_add(qd, &(double){0}, GSL_ENOMEM);
        return NAN;
    }
    return c->steps ? integrate_steps(qd, f, param, c, n, from, to)
                    : integrate_smooth(qd, f, param, c, n, from, to);
}

double gt_emax_cut_for_window(const struct gt_partner_group *g, size_t ng, double m)
{
    double x0 = INFINITY;
    bool any = false;
    for (size_t i = 0; i < ng; i++) {
        const struct gt_dist *d = &g[i].dist;
        if (d->model != &gt_model_pareto || d->p[1] > 1)
            continue;
        double c = d->p[0] * exp(log(m) / d->p[1]) + d->shift;
        x0 = !any || c > x0 ? c : x0;
        any = true;
    }
    return x0;
}

/* eq. 8, using Gamma(-1/a) / a = -Gamma(1 - 1/a) and Gamma(n) /
 * Gamma(n + 1 - 1/a) = 1 / poch(n, 1 - 1/a), which stays accurate for
 * large n where a difference of lgammas would not. */
static double pareto_iid(double k, double alpha, double n)
{
    double b = 1 - 1 / alpha;
    return n * k * gsl_sf_gamma(b) * exp(-gsl_sf_lnpoch(n, b));
}

/* Inclusion-exclusion (METHOD.md section 2) over multiplicities j_g in
 * [0, count_g], C(count_g, j_g) subsets each.  Returns false when the
 * term count is too large or the cancellation it measures (sum of |terms|
 * against the result) would cost more than 1e-12 relative. */
static bool pareto_closed(const struct gt_partner_group *g, size_t ng, double *e_out,
                          double *err_out)
{
    double K = 0, terms = 1;
    for (size_t i = 0; i < ng; i++) {
        K = g[i].dist.p[0] > K ? g[i].dist.p[0] : K;
        terms *= g[i].count + 1;
    }
    if (ng > 64 || terms > MAX_CLOSED_TERMS)
        return false;
    long j[64] = {0};
    double sum = K, comp = 0, abs_sum = K;
    for (;;) {
        size_t i = 0;
        while (i < ng && j[i] == (long)g[i].count)
            j[i++] = 0;
        if (i == ng)
            break;
        j[i]++;
        double a_s = 0, log_t = log(K);
        long J = 0;
        for (size_t h = 0; h < ng; h++) {
            if (!j[h])
                continue;
            a_s += (double)j[h] * g[h].dist.p[1];
            log_t += (double)j[h] * g[h].dist.p[1] * log(g[h].dist.p[0] / K) +
                     gsl_sf_lnchoose((unsigned)g[h].count, (unsigned)j[h]);
            J += j[h];
        }
        double t = exp(log_t) / (a_s - 1) * (J % 2 ? 1 : -1);
        double s2 = sum + t;   /* Neumaier compensated summation */
        comp += fabs(sum) >= fabs(t) ? (sum - s2) + t : (t - s2) + sum;
        sum = s2;
        abs_sum += fabs(t);
    }
    double e = sum + comp, err = abs_sum * 4 * 2.2e-16;
    if (!(e > 0) || err > 1e-12 * e)
        return false;
    *e_out = e;
    *err_out = err;
    return true;
}

static bool closed_form_applies(const struct gt_partner_group *g, size_t ng)
{
    for (size_t i = 0; i < ng; i++)
        if (g[i].dist.model != &gt_model_pareto || !(g[i].dist.p[1] > 1) ||
            g[i].dist.loss_p > 0 ||
            g[i].dist.shift != g[0].dist.shift)
            return false;
    return true;
}

/* From this many partner groups on, an evaluation of log G costs more
 * than the rule's own work, and the bulk is integrated by the rule that
 * needs the fewest partner terms: 61-point Gauss-Kronrod per interval
 * (no warm start, no extrapolation).  At 10,000 partners it asks 183
 * evaluations where GK21 asked 168, but more of them far out, where few
 * partners are still active: 30 % less time (docs/BENCHMARKS.md); at
 * 1,024 the two are even, and below GK21's warm partitions win. */
#define BULK_GK61_FROM 2048

static double bulk_gk61(struct quad *qd, gsl_function *fu, const double *pts, size_t np)
{
    double r = 0, e = 0, total = 0;
    for (size_t i = 0; i + 1 < np; i++) {
        /* the bulk holds the whole climb of the max and its approach to
           xt: one panel never passes, so the rule starts from two (at
           10,000 partners, 122 evaluations instead of 183) */
        double a = pts[i], b = pts[i + 1], mid = np == 2 ? a + (b - a) / 2 : b;
        for (double lo = a, hi = mid; lo < b; lo = hi, hi = b) {
            quad_add(qd, &e, gsl_integration_qag(fu, lo, hi, 0, qd->epsrel, WORKSPACE,
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
static bool bulk_and_tail(const struct ctx *c, double n, double flat, struct quad *qd,
                          double *out)
{
    double lo, xt;
    if (c->extra)
        return false;   /* a step table's tail has no closed-form integral */
    double eps = fmax(qd->epsrel, 1e-10);
    max_bracket_warm(c, n, exp(-eps), 1e-3, qd->warm, GT_EMAX_WARM_TOP, &lo, &xt);
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
    qsort(pts + 1, np - 1, sizeof *pts, cmp_double);
    np = unique_points(pts, np);
    pts[np++] = log(xt);
    struct logx lx = {f_one_minus_G, (void *)c};
    gsl_function fu = {f_logx, &lx};
    if (c->ng >= BULK_GK61_FROM)
        r = bulk_gk61(qd, &fu, pts, np);
    else
        qagp_warm(qd, WARM_BULK_LOG, &fu, pts, np, &r);
    *out = r + tail;
    return true;
}

/* ---- step tables and ladders: the smooth part fitted once ----
 *
 * With step tables among the partners, log G = T + S: T the tables'
 * (constant between their points), S the compiled sum's (smooth but for
 * the kinks where a Pareto copy or a retry starts).  Between two
 * consecutive table points, 1 - G = (1 - e^T) + e^T (1 - e^S): the first
 * part is a constant, the second the integral of one function fitted
 * once over the whole range (chebfit.h), whatever the number of points. */

/* Where the compiled sum has kinks in (from, to): each Pareto's start and
 * each retry's (retry_points_of), ascending and distinct, and the origin of
 * the segment each starts (chebfit.h): after a Pareto copy's start, its
 * own zero (the shift and the delay), where the copy falls off like a
 * power; elsewhere the segment before's.  In one malloc'd block: *pts
 * (*np of them) then *origin (*np + 1, the first for the segment before
 * the first kink, 0). */
struct kink {
    double at, origin;   /* origin NAN: the segment before's */
};

static int by_at(const void *a, const void *b)
{
    double x = ((const struct kink *)a)->at, y = ((const struct kink *)b)->at;
    return (x > y) - (x < y);
}

static double *smooth_kinks(const struct ctx *c, double from, double to, size_t *np,
                            double **origin)
{
    size_t cap = 1;
    for (size_t i = 0; i < c->ng; i++) {
        const struct gt_ladder *l = ladder_at(c, i);
        cap += 3 + (l ? 3 * (size_t)l->n : 0);
    }
    struct kink *k = malloc(cap * sizeof *k);
    double *pts = malloc(cap * sizeof *pts), *out = malloc(3 * cap * sizeof *out);
    size_t n = 0;
    if (!k || !pts || !out) {
        free(k), free(pts), free(out);
        return NULL;
    }
    for (size_t i = 0; i < c->ng; i++) {
        const struct gt_dist *d = &c->g[i].dist;
        const struct gt_ladder *l = ladder_at(c, i);
        if (tabled(c, i) || d->model != &gt_model_pareto)
            continue;
        /* its start, and its median and end where its climb is narrow
           (a partner shifted far beyond the others climbs within 1e-4
           of the range in ln x: panels that no point of which falls in
           it would pass it by) */
        double x[3];
        climb(d, x);
        bool narrow = climb_width(d, false) < (to - from) / 64;
        for (int q = 0; q < (narrow ? 3 : 1); q++)
            if (x[q] > from && x[q] < to)
                k[n++] = (struct kink){x[q], d->shift};
        for (int j = 1; l && j < l->n && l->shift + l->p[0] + l->delay[j] < to; j++) {
            /* the copy's start, and within its climb where it is narrow */
            size_t m0 = 0, m = retry_points_of(c, i, j, from, to, pts, &m0);
            for (size_t q = m0; q < m; q++)
                k[n++] = (struct kink){pts[q], l->shift + l->delay[j]};
        }
    }
    for (size_t i = 0; i < c->ng; i++) {
        const struct gt_dist *d = &c->g[i].dist;
        const struct gt_ladder *l = ladder_at(c, i);
        /* a normal's narrow climb (shifted far beyond the others: a copy
           of 1.5 ms at 356 ms is 1e-3 of ln x) gives break points */
        double x[3];
        if (!tabled(c, i) && d->model == &gt_model_normal &&
            climb_width(d, false) < (to - from) / 64) {
            climb(d, x);
            for (int q = 0; q < 3; q++)
                if (x[q] > from && x[q] < to)
                    k[n++] = (struct kink){x[q], NAN};
        }
        for (int j = 1; l && l->model != &gt_model_pareto && j < l->n; j++) {
            size_t m0 = 0, m = retry_points_of(c, i, j, from, to, pts, &m0);
            for (size_t q = m0; q < m; q++)
                k[n++] = (struct kink){pts[q], NAN};
        }
    }
    qsort(k, n, sizeof *k, by_at);
    size_t u = 0;
    for (size_t q = 0; q < n; q++) {
        if (u && k[q].at == k[u - 1].at) {   /* the same point twice: the nearer origin */
            if (isnan(k[u - 1].origin) || k[q].origin > k[u - 1].origin)
                k[u - 1].origin = k[q].origin;
            continue;
        }
        k[u++] = k[q];
    }
    /* the first segment's origin: the zero of the Pareto copy that started
       last before from, whose climb the segment may begin with */
    double *o = out + u;
    o[0] = from > 0 ? 0 : from - fmax(1, fabs(from));   /* below from, for ln(x - o) */
    for (size_t i = 0; i < c->ng; i++) {
        const struct gt_dist *d = &c->g[i].dist;
        const struct gt_ladder *l = ladder_at(c, i);
        if (tabled(c, i) || d->model != &gt_model_pareto)
            continue;
        for (int j = 0; j < (l ? l->n : 1); j++) {
            double zero = d->shift + (l ? l->delay[j] : 0);
            if (zero + d->p[0] <= from && zero > o[0] && zero < from)
                o[0] = zero;
        }
    }
    for (size_t q = 0; q < u; q++) {
        out[q] = k[q].at;
        o[q + 1] = isnan(k[q].origin) ? o[q] : k[q].origin;
    }
    free(k);
    free(pts);
    *np = u;
    *origin = o;
    return out;
}

/* What a fit of the smooth part carries, S the compiled sum alone (the
 * tables multiply each interval by their e^T), all as functions of
 * u = ln x (times dx/du = x): a power-law tail and the steep climb of a
 * max are smooth there, and the fit needs far fewer panels than in x.
 *   [0]            1 - e^S, when q (E[max]);
 *   then for each of mc lossy ladder groups, e^S (e^(c (log F0 - log F)) - 1):
 *                  G with that group loss-free less G, its loss cost's integrand;
 *   then for each of ms groups, count f e^(S - log F): the density of
 *                  "the group holds the max at x", its share's integrand. */
struct qfit {
    const struct ctx *c;
    bool q;
    size_t mc, ms;
    const size_t *cost_who, *share_who;
    double *logf, *pdf, *log0;   /* per ladder, at the point (gt_lcsum_eval_keep) */
};

/* f_i(x) G(x) / F_i(x), G = exp(S) >= 1e-17 here (the integral runs from
 * where G reaches that): for Pareto and normal partners from one tail
 * term each, f and F sharing it, instead of a pdf, a log-CDF and an exp
 * apiece (the shares were half of a served estimate's time). */
static double density_over_cdf(const struct gt_dist *d, double x, double S, double G)
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

static double share_density(const struct qfit *q, size_t i, double x, double S, double G)
{
    const struct ctx *c = q->c;
    long slot = ladder_at(c, i) ? gt_lcsum_slot(c->sum, i) : -1;
    if (S == -INFINITY)
        return 0;
    if (slot < 0)
        return c->g[i].count * density_over_cdf(&c->g[i].dist, x, S, G);
    double pdf = q->pdf[slot];
    return pdf > 0 ? c->g[i].count * pdf * exp(S - q->logf[slot]) : 0;
}

static double cost_integrand(const struct qfit *q, size_t i, double S)
{
    long slot = gt_lcsum_slot(q->c->sum, i);
    if (S == -INFINITY)
        return 0;
    return exp(S) * expm1(q->c->g[i].count * (q->log0[slot] - q->logf[slot]));
}

static void f_smooth_q(double x, void *p, double *out)
{
    const struct qfit *q = p;
    const struct ctx *c = q->c;
    double S = isinf(x) ? -INFINITY : gt_lcsum_eval_keep(c->sum, x, q->logf, q->pdf, q->log0);
    if (q->q)
        *out++ = isinf(x) ? 0 : -expm1(S);
    for (size_t k = 0; k < q->mc; k++)
        *out++ = cost_integrand(q, q->cost_who[k], S);
    double G = exp(S);
    for (size_t k = 0; k < q->ms; k++)
        *out++ = share_density(q, q->share_who[k], x, S, G);
}

/* the tables' part of log G at x (constant up to the next table point) */
static double tables_log(const struct ctx *c, double x)
{
    return c->extra ? log_extra(c, x) : 0;
}

/* The same along ascending x, each table's count of points <= x in at[]
 * (zeroed first) moved forward instead of searched for at every point. */
static double tables_log_walk(const struct ctx *c, size_t *at, double x)
{
    double s = 0;
    for (size_t i = 0; c->extra && i < c->ng && s > -INFINITY; i++) {
        const struct gt_steps *t = &c->tabs[i];
        if (!tabled(c, i))
            continue;
        while (at[i] < t->n && t->t[at[i]] <= x)
            at[i]++;
        s += c->g[i].count * (at[i] ? t->lcdf[at[i] - 1] : -INFINITY);
    }
    return s;
}

/* What the fit answers beside E[max]: NULL, or per group arrays for the
 * loss costs and the shares of being slowest.  A ladder group's cost is
 * its function's integral weighted by e^T on each interval; a tabled
 * lossy group's is, on each, (e^T with its loss-free table's log F -
 * e^T) times the integral of e^S; beyond end, a ladder's is its
 * retries' part of the tail.  A fitted group's share is its density's
 * integral weighted by e^T (beyond end the max lies with probability
 * below 1e-10); a tabled group's is a sum over its points
 * (slowest_steps), a point mass's is G without it at the point. */
struct asks {
    double *costs, *shares;
    struct gt_steps *free_tabs;  /* the tabled lossy groups' loss-free tables */
    size_t mc, ms;
    size_t *cost_who, *share_who;
};

static void asks_free(struct asks *k, size_t ng)
{
    for (size_t i = 0; k->free_tabs && i < ng; i++)
        gt_steps_free(&k->free_tabs[i]);
    free(k->free_tabs);
    free(k->cost_who);
    free(k->share_who);
}

static double slowest_steps(const struct ctx *all, size_t i);

/* Shares fitted at once at most: the fit keeps 70 doubles a function and
 * panel, and a thousand groups' shares held 258 MB. */
#define FIT_MAX_SHARES 64
/* Loss-free groups without tables whose shares a fit takes (all_slowest) */
#define FIT_FEW_SHARES 16

/* What the fit cannot answer well, left to the other ways: a lossy
 * group's loss cost when G with it loss-free, up to G / w_0^count, is
 * not negligible where G reaches 1e-17 and the fit starts (count x
 * log(1 / w_0) > 9: G0 there above 1e-13); the shares of more than
 * FIT_MAX_SHARES fitted groups. */
/* the groups whose shares a fit carries: neither tabled nor point masses */
static size_t fitted_groups(const struct ctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->ng; i++)
        n += !tabled(c, i) && c->g[i].dist.model != &gt_model_delta;
    return n;
}

static void asks_trim(const struct ctx *c, struct asks *k)
{
    for (size_t i = 0; i < c->ng; i++) {
        const struct gt_dist *d = &c->g[i].dist;
        const struct gt_ladder *l = ladder_at(c, i);
        double lw0 = l ? -l->log_w0 : d->loss_p > 0 ? -log1p(-d->loss_p) : 0;
        if (c->g[i].count * lw0 > 9)
            k->costs = NULL;
    }
    if (fitted_groups(c) > FIT_MAX_SHARES)
        k->shares = NULL;
}

/* The groups each answer fits, and what is known without a fit (a
 * table's share, unless by_fit: then from the fit's 1 - e^S, after it). */
static bool asks_init(const struct ctx *c, struct asks *k, bool by_fit)
{
    k->mc = k->ms = 0;
    k->cost_who = malloc(c->ng * sizeof *k->cost_who);
    k->share_who = malloc(c->ng * sizeof *k->share_who);
    k->free_tabs = calloc(c->ng, sizeof *k->free_tabs);
    if (!k->cost_who || !k->share_who || !k->free_tabs)
        return false;
    for (size_t i = 0; i < c->ng; i++) {
        const struct gt_dist *d = &c->g[i].dist;
        if (k->costs) {
            k->costs[i] = 0;
            if (ladder_at(c, i))
                k->cost_who[k->mc++] = i;
            struct gt_dist d0 = *d;
            d0.loss_p = 0;
            if (tabled(c, i) && d->loss_p > 0 && gt_steps_build(&d0, &k->free_tabs[i]))
                return false;
        }
        if (!k->shares)
            continue;
        if (tabled(c, i)) {
            k->shares[i] = by_fit ? 0 : slowest_steps(c, i);
        } else if (d->model == &gt_model_delta) {
            struct ctx one = *c;
            one.skip = (long)i;
            k->shares[i] = exp(log_G(&one, d->p[0] + d->shift));
        } else {
            k->shares[i] = 0;
            k->share_who[k->ms++] = i;
        }
    }
    return true;
}

/* interval [a, b) of the tables (their log at a: T), qint = int_a^b
 * (1 - e^S); the fit's integrals over it in in[], from first on */
static void asks_add(const struct ctx *c, struct asks *k, double a, double b, double T,
                     double qint, const double *in, size_t first)
{
    for (size_t j = 0; j < k->mc && T > -INFINITY; j++)
        k->costs[k->cost_who[j]] += exp(T) * in[first + j];
    for (size_t i = 0; k->costs && i < c->ng; i++) {
        if (!k->free_tabs[i].n)
            continue;
        double L = gt_steps_logcdf(&c->tabs[i], a), L0 = gt_steps_logcdf(&k->free_tabs[i], a);
        if (L > -INFINITY)
            k->costs[i] += (exp(T + c->g[i].count * (L0 - L)) - exp(T)) * ((b - a) - qint);
    }
    for (size_t j = 0; j < k->ms && T > -INFINITY; j++)
        k->shares[k->share_who[j]] += exp(T) * in[first + k->mc + j];
}

/* A fit's scratch arrays: the table points, the kinks (their origins
 * after them), the tolerances, the interval ends, their integrals and
 * the ladders' values. */
static void free_fit_arrays(double *const a[6])
{
    for (int i = 0; i < 6; i++)
        free(a[i]);
}

/* flat, the table points and end: the ends of the intervals the fit is
 * integrated over, malloc'd (np + 2 of them) */
static double *interval_ends(double flat, const double *pts, size_t np, double end)
{
    double *u = malloc((np + 2) * sizeof *u);
    if (!u)
        return NULL;
    u[0] = flat;
    if (np)   /* pts may be NULL then */
        memcpy(u + 1, pts, np * sizeof *pts);
    u[np + 1] = end;
    return u;
}

/* A table's share (slowest_steps) over its points in [flat, end], with
 * e^S from the fit of 1 - e^S (function 0) instead of the compiled sum:
 * below flat G < 1e-17, beyond end the max lies with probability below
 * 1e-10.  false on ENOMEM. */
static bool table_share(const struct ctx *c, size_t i, double flat, double end, double *out)
{
    const struct gt_steps *t = &c->tabs[i];
    size_t a = gt_steps_upto(t, flat), b = gt_steps_upto(t, end);
    a = a ? a - 1 : 0;   /* the point at or below flat: its F starts the sums */
    double *q = malloc((b > a ? b - a : 1) * sizeof *q), cnt = c->g[i].count;
    if (!q)
        return false;
    gt_cheb_values(c->cheb, 0, t->t + a, b - a, q);
    struct gt_ksum sum = {0, 0};
    double prev = a ? exp(cnt * t->lcdf[a - 1]) : 0;
    for (size_t j = a; j < b; j++) {
        double own = cnt * t->lcdf[j], cur = exp(own), T = tables_log(c, t->t[j]);
        double e_s = t->t[j] < flat ? 0 : 1 - q[j - a];
        if (T > -INFINITY && e_s > 0)
            gt_ksum_add(&sum, (cur - prev) * exp(T - own) * e_s);
        prev = cur;
    }
    free(q);
    *out = gt_ksum_get(&sum);
    return true;
}


/* sigma = sum_i c_i (1 - F_i(x)), each group's c (1 - F) in s[i] (if
 * s), and I = the integral of sigma from x on, in closed form (a
 * ladder's, the models' tail_integral, a table's by its steps).  1 - G
 * lies within [sigma - sigma^2 / 2, sigma] (G >= 1 - sigma and G <=
 * e^-sigma), sigma falls, so beyond x the tails' sum I is within
 * sigma(x) I / 2 of the integral of 1 - G. */
/* integral_x^inf of one member of group i's 1 - F, in closed form (a
 * table's by its steps, a ladder's term by term, the model's) */
static double group_tail(const struct ctx *c, size_t i, double x)
{
    const struct gt_dist *d = &c->g[i].dist;
    const struct gt_ladder *l = ladder_at(c, i);
    return tabled(c, i) ? gt_steps_tail(&c->tabs[i], x)
           : l          ? gt_ladder_sf_integral(l, x)
                        : d->model->tail_integral(d->p, x - d->shift);
}

/* one member of group i's 1 - F at x */
static double group_sf(const struct ctx *c, size_t i, double x)
{
    const struct gt_dist *d = &c->g[i].dist;
    const struct gt_ladder *l = ladder_at(c, i);
    if (tabled(c, i)) {
        size_t j = gt_steps_upto(&c->tabs[i], x);
        return -expm1(j ? c->tabs[i].lcdf[j - 1] : -INFINITY);
    }
    return l ? gt_ladder_sf(l, x) : d->model->sf(d->p, x - d->shift);
}

static double first_order_tail(const struct ctx *c, double x, double *s, double *I)
{
    double sigma = 0, in = 0;
    for (size_t i = 0; i < c->ng; i++) {
        double cnt = c->g[i].count, si = cnt * group_sf(c, i, x);
        if (s)
            s[i] = si;
        sigma += si;
        in += cnt * group_tail(c, i, x);
    }
    *I = in;
    return sigma;
}

/* Whether the fit may end at x, the tails' first order beyond it: E[max]
 * and the loss costs within tol (sigma I / 2, first_order_tail), and the
 * shares, c_i (1 - F_i(x)) each beyond x, within 1e-11 in all (group i
 * is above x and not the max only if another is: c_i (1 - F_i) sigma) */
static bool tail_holds(const struct ctx *c, double x, double tol, bool shares)
{
    double I, sigma = first_order_tail(c, x, NULL, &I);
    return sigma * I / 2 <= tol && (!shares || sigma * sigma <= 1e-11);
}

/* the loss terms of group i's ladder or lossy table (0: neither) */
static int retry_terms(const struct ctx *c, size_t i)
{
    const struct gt_dist *d = &c->g[i].dist;
    const struct gt_ladder *l = ladder_at(c, i);
    return l ? l->n : tabled(c, i) && d->loss_p > 0 ? gt_loss_terms(d->loss_p) : 0;
}

/* the retries' starts (j >= 1) of group i, a ladder or a lossy table,
 * in (flat, xt) into x from n; returns the end (at most retry_terms) */
static size_t retry_starts(const struct ctx *c, size_t i, double flat, double xt, double *x,
                           size_t n)
{
    const struct gt_dist *d = &c->g[i].dist;
    const struct gt_ladder *l = ladder_at(c, i);
    int terms = retry_terms(c, i);
    for (int j = 1; j < terms; j++) {
        double at = l ? gt_ladder_start(l, j) : gt_dist_lower(d) + gt_loss_delay(d->rto_ms, j);
        if (at >= xt)
            break;
        if (at > flat)
            x[n++] = at;
    }
    return n;
}

/* Where the fit ends: xt (G = 1 - eps there), or the lowest retry start
 * of a ladder or a lossy table below it where the first order of the
 * tails holds (tail_holds): the retries of 2^j RTO beyond it, each a
 * segment of its own in the fit or a table's copy of points, then cost
 * nothing but their closed forms. */
static double fit_end(const struct ctx *c, double flat, double xt, double tol, bool shares)
{
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < c->ng; i++)
        cap += (size_t)retry_terms(c, i);
    double *x = cap ? malloc(cap * sizeof *x) : NULL;
    for (size_t i = 0; x && i < c->ng; i++)
        n = retry_starts(c, i, flat, xt, x, n);
    if (!n) {
        free(x);
        return xt;
    }
    qsort(x, n, sizeof *x, cmp_double);
    /* the condition only gets easier as x grows: the first start that
       meets it by bisection */
    size_t lo = 0, hi = n;   /* x[hi] meets it (x[n]: xt) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tail_holds(c, x[mid], tol, shares))
            hi = mid;
        else
            lo = mid + 1;
    }
    double end = hi < n ? x[hi] : xt;
    free(x);
    return end;
}

/* The fitted groups' shares of the max beyond end, and the tabled ones'
 * if their sums stopped at end: c (1 - F(end)) each, to within 1e-11 in
 * all where tail_holds (a point mass's own is exact).  false on ENOMEM. */
static bool shares_beyond(const struct ctx *c, double end, const struct asks *k, bool tables)
{
    double I, *s = malloc(c->ng * sizeof *s);
    if (!s)
        return false;
    first_order_tail(c, end, s, &I);
    for (size_t j = 0; j < k->ms; j++)
        k->shares[k->share_who[j]] += s[k->share_who[j]];
    for (size_t i = 0; tables && i < c->ng; i++)
        if (tabled(c, i))
            k->shares[i] += s[i];
    free(s);
    return true;
}

/* int_flat^inf (1 - G) by the fit over [flat, end], end where the tails'
 * first order holds (fit_end), with what k asks for on the same points;
 * beyond end, 1 - G is the sum of every partner's c (1 - F) to within
 * tol, each integrated in closed form (first_order_tail), and a group's
 * share beyond end its c (1 - F(end)), within 1e-11 in all.  false:
 * nothing done (a tail diverges, the fit did not converge, ENOMEM), the
 * caller integrates the general way. */
static bool fitted_one_minus_G(const struct ctx *c, double n, double flat, struct quad *qd,
                               struct asks *k, double *out)
{
    double lo, xt, eps = fmax(qd->epsrel, 1e-10);
    double tol0 = 0.1 * qd->epsrel * fmax(c->scale, fmax(fabs(flat), 1));
    max_bracket(c, n, exp(-eps), 1e-3, &lo, &xt);
    double end = fit_end(c, flat, xt, tol0, k->shares), tail = 0;
    size_t np = 0, nk = 0;
    double *pts = union_points(c, flat, end, false, &np);
    bool ok = asks_init(c, k, true) && (pts || !c->extra);
    for (size_t i = 0; ok && i < c->ng; i++) {
        /* beyond end, a lossy group's cost is its tail less its loss-free one */
        const struct gt_dist *d = &c->g[i].dist;
        double cnt = c->g[i].count, t = cnt * group_tail(c, i, end);
        tail += t;
        if (k->costs && tabled(c, i) && k->free_tabs[i].n)
            k->costs[i] = t - cnt * gt_steps_tail(&k->free_tabs[i], end);
        else if (k->costs && ladder_at(c, i))
            k->costs[i] = t - cnt * d->model->tail_integral(d->p, end - d->shift);
    }
    double *origin = NULL, *kinks = ok && isfinite(tail) && end > flat
                                        ? smooth_kinks(c, flat, end, &nk, &origin) : NULL;
    size_t nl = gt_lcsum_ladders(c->sum), m = 1 + k->mc + k->ms;
    double *lad = malloc(3 * (nl ? nl : 1) * sizeof *lad);
    struct qfit q = {c, true, k->mc, k->ms, k->cost_who, k->share_who, lad, lad + nl,
                     lad + 2 * nl};
    double *tol = kinks && lad ? malloc(m * sizeof *tol) : NULL;
    for (size_t j = 0; tol && j < m; j++)   /* shares are probabilities */
        tol[j] = j < 1 + q.mc ? tol0 : 1e-10;
    ok = tol && gt_cheb_fit(c->cheb, f_smooth_q, &q, m, flat, end, kinks, origin, nk, tol);
    double *u = ok ? interval_ends(flat, pts, np, end) : NULL;
    double *in = u ? malloc((np + 1) * m * sizeof *in) : NULL;
    ok = in && gt_cheb_intervals(c->cheb, u, np + 2, in);
    struct gt_ksum sum = {0, 0};
    size_t *at = ok ? calloc(c->ng, sizeof *at) : NULL;
    ok = at != NULL;
    for (size_t j = 0; ok && j <= np; j++) {
        double a = j ? pts[j - 1] : flat, b = j < np ? pts[j] : end, T = tables_log_walk(c, at, a);
        const double *ij = in + j * m;
        gt_ksum_add(&sum, -expm1(T) * (b - a));
        if (T > -INFINITY)
            gt_ksum_add(&sum, exp(T) * ij[0]);
        asks_add(c, k, a, b, T, ij[0], ij, 1);
    }
    for (size_t i = 0; ok && k->shares && i < c->ng; i++)
        if (tabled(c, i))
            ok = table_share(c, i, flat, end, &k->shares[i]);
    if (ok && k->shares)
        ok = shares_beyond(c, end, k, true);
    free(at);
    free_fit_arrays((double *[]){pts, kinks, tol, u, in, lad});
    if (ok)
        *out = gt_ksum_get(&sum) + tail;
    return ok;
}

/* k: what the fit may answer beside E[max]; *fitted says whether it did */
static double emax_integrated(const struct ctx *base, double n, double cut, bool cut_paper,
                              struct quad *qd, struct asks *k, bool *fitted)
{
    const struct gt_partner_group *g = base->g;
    size_t ng = base->ng;
    struct ctx c = *base;
    double a = lower_bound(g, ng);
    if (!isinf(cut) && !cut_paper) {
        /* E[min(max, x0)] = int_0^x0 (1 - G): 1 - G is 1 below from */
        double from = a > 0 ? a : 0;
        if (!(cut > from))
            return cut;
        return from + integrate(qd, f_one_minus_G, &c, &c, n, from, cut);
    }
    if (!isinf(cut)) {
        /* E = int_0^x0 x dG = from G(x0) + int_from^x0 (G(x0) - G(x)) dx */
        double from = a > 0 ? a : 0;
        c.log_g_cut = log_G(&c, cut);
        if (!(cut > from) || c.log_g_cut == -INFINITY)
            return 0;
        return from * exp(c.log_g_cut) + integrate(qd, f_cut, &c, &c, n, from, cut);
    }
    if (isfinite(a)) {
        /* below the point where G reaches 1e-17, 1 - G is 1 to double
           precision: that stretch integrates to its length exactly */
        double flat, hi, tail;
        max_bracket_warm(&c, n, 1e-17, 1e-3, qd->warm, GT_EMAX_WARM_FLAT, &flat, &hi);
        if (!(flat > a))
            flat = a;
        if ((c.extra || c.mixed) && !c.only_steps &&
            fitted_one_minus_G(&c, n, flat, qd, k, &tail)) {
            *fitted = true;
            return flat + tail;
        }
        /* with ladders, one rule over many retries' break points can
           pass its own error test and miss by 1e-5 (a narrow lossy normal
           at 50 % loss): the fit, else one rule per interval */
        if (flat > 0 && !c.mixed && bulk_and_tail(&c, n, flat, qd, &tail))
            return flat + tail;
        return flat + integrate(qd, f_one_minus_G, &c, &c, n, flat, INFINITY);
    }
    /* only normal partners: E = b + int_b^inf (1 - G) - int_-inf^b G.
       Where G has reached only 1e-17 at a positive flat (RTT fits), the
       part below flat is below 1e-17 of the scale and the rest is a
       bulk and a closed-form tail, as for the bounded models: a third of
       the evaluations of integrating both tails numerically. */
    double flat, hi, tail;
    max_bracket_warm(&c, n, 1e-17, 1e-3, qd->warm, GT_EMAX_WARM_FLAT, &flat, &hi);
    if ((c.extra || c.mixed) && !c.only_steps &&
        fitted_one_minus_G(&c, n, flat, qd, k, &tail)) {
        *fitted = true;
        return flat + tail;
    }
    if (flat > 0 && !c.mixed && bulk_and_tail(&c, n, flat, qd, &tail))
        return flat + tail;
    double b = max_quantile(&c, n, 0.5, 0), r = 0, e = 0;
    double up = integrate(qd, f_one_minus_G, &c, &c, n, b, INFINITY);
    gsl_function fn = {f_G, &c};
    quad_add(qd, &e, gsl_integration_qagil(&fn, b, 0, qd->epsrel, WORKSPACE, qd->w, &r, &e));
    return b + up - r;
}

static int validate(const struct gt_partner_group *g, size_t ng, const struct gt_emax_opts *o,
                    struct gt_error *err)
{
    if (ng == 0)
        return gt_error_set(err, GT_EINPUT, NULL, "no partners");
    for (size_t i = 0; i < ng; i++) {
        const char *why = gt_dist_is_step(&g[i].dist) ? gt_emp_check(&g[i].dist)
                                                      : g[i].dist.model->check(g[i].dist.p);
        if (why)
            return gt_error_set(err, GT_EINPUT, NULL, "partner %zu (%s): %s", i + 1,
                                g[i].dist.model->name, why);
        double k = g[i].count;   /* in range before the cast: whole without a floor call */
        if (!(k >= 1 && k <= 1e9) || k != (double)(int64_t)k)
            return gt_error_set(err, GT_EINPUT, NULL, "partner %zu: count must be a whole "
                                "number in [1, 1e9]", i + 1);
        if (!isfinite(g[i].dist.shift))
            return gt_error_set(err, GT_EINPUT, NULL, "partner %zu: shift is not finite", i + 1);
        if (!(g[i].dist.loss_p >= 0 && g[i].dist.loss_p < 1) ||
            (g[i].dist.loss_p > 0 && !(g[i].dist.rto_ms > 0 && g[i].dist.rto_ms < 1e9)))
            return gt_error_set(err, GT_EINPUT, NULL, "partner %zu: loss must be in [0, 1) "
                                "with a retransmission timeout > 0", i + 1);
        if (g[i].dist.model == &gt_model_pareto && g[i].dist.p[1] <= 1 && isinf(o->cut_x0))
            return gt_error_set(err, GT_EINPUT, NULL, "partner %zu: alpha = %g <= 1 has no "
                                "mean; give the window size for the cut-off", i + 1,
                                g[i].dist.p[1]);
    }
    for (size_t k = 0; k < o->nq; k++)
        if (!(o->q[k] > 0 && o->q[k] < 1))
            return gt_error_set(err, GT_EINPUT, NULL, "quantile %g is not in (0, 1)", o->q[k]);
    return GT_OK;
}

/* P(group i holds the slowest partner), for every group in one pass:
 * P_i = count_i * int p_i(x) G(x) / F_i(x) dx over [flat, xt] (the max
 * lies outside with probability < 1e-10), by composite 20-point
 * Gauss-Legendre on panels uniform in ln x, doubling the panels until no
 * P_i moves by more than 1e-10 (or the last two changes show the finer
 * level within 1e-12).  G is evaluated once per node for all
 * groups, so the cost is O(nodes x n) rather than a separate adaptive
 * integral per group.  Point masses use their closed form. */
struct slow {
    const struct ctx *all;
    size_t i;
};

/* count_i p_i(x) G(x) / F_i(x): the density of "group i holds the max at x" */
static double f_slowest(double x, void *p)
{
    const struct slow *s = p;
    const struct gt_partner_group *g = &s->all->g[s->i];
    double S = log_G(s->all, x), pdf = gt_dist_pdf(&g->dist, x);
    if (S == -INFINITY || !(pdf > 0))
        return 0;
    return g->count * pdf * exp(S - gt_dist_logcdf(&g->dist, x));
}

struct slow_term {
    const struct ctx *all;
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
    double S = log_G(s->all, x);
    if (S == -INFINITY || !(pdf > 0))
        return 0;
    return g->count * s->weight * pdf * exp(S - gt_dist_logcdf(d, x));
}

/* A step CDF's share, P(its group's max >= every other partner's) =
 * sum over its points t of (F^c(t) - F^c(t-)) G_-i(t), exactly; a tie
 * counts for every group in it, so with step CDFs the shares can sum to
 * more than 1. */
static double slowest_steps(const struct ctx *all, size_t i)
{
    const struct gt_steps *t = &all->tabs[i];
    double c = all->g[i].count, prev = 0;
    struct gt_ksum sum = {0, 0};
    for (size_t k = 0; k < t->n; k++) {
        double own = c * t->lcdf[k], cur = exp(own), S = log_G(all, t->t[k]);
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
static void all_slowest_adaptive(const struct ctx *base, double n, double *ps)
{
    struct ctx all = *base;
    all.skip = -1;
    struct quad qd = {gsl_integration_workspace_alloc(WORKSPACE), 0, 0, EPSREL, NULL};
    double flat, hi;
    max_bracket(&all, n, 1e-17, 1e-3, &flat, &hi);
    for (size_t i = 0; qd.w && i < base->ng; i++) {
        const struct gt_dist *d = &base->g[i].dist;
        if (tabled(base, i)) {
            ps[i] = slowest_steps(&all, i);
            continue;
        }
        if (d->model == &gt_model_delta && !(d->loss_p > 0)) {
            struct ctx c = *base;
            c.skip = (long)i;
            ps[i] = exp(log_G(&c, d->p[0] + d->shift));
            continue;
        }
        if (!(d->loss_p > 0)) {
            struct slow s = {&all, i};
            ps[i] = integrate(&qd, f_slowest, &s, &all, n, flat, INFINITY);
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
                ps[i] += integrate(&qd, f_slowest_term, &s, &all, n, a, b);
        }
    }
    if (qd.w)
        gsl_integration_workspace_free(qd.w);
}

/* The shares where E[max] did not fit them (no step table or ladder
 * among the partners, or not asked of it: asks_init, asks_add), by a fit
 * of the densities over [flat, xt], the tails' first order beyond.
 * false: the fit failed (or ENOMEM), the caller integrates another way. */
static bool all_slowest_fitted(const struct ctx *base, double n, double *ps)
{
    struct ctx all = *base;
    all.skip = -1;
    double flat, hi, lo, xt;
    max_bracket(&all, n, 1e-17, 1e-3, &flat, &hi);
    /* the shares beyond where G reaches 1 - 1e-6 are the tails' first
       order to sigma^2 = 1e-12 (tail_holds): a heavy tail's decades up
       to 1 - 1e-10 were most of the fit (narrow climbs, each kinks) */
    max_bracket(&all, n, exp(-1e-6), 1e-3, &lo, &xt);
    if (!tail_holds(&all, xt, INFINITY, true))
        max_bracket(&all, n, exp(-1e-10), 1e-3, &lo, &xt);
    struct asks k = {NULL, ps, NULL, 0, 0, NULL, NULL};
    asks_trim(&all, &k);
    if (!k.shares)
        return false;
    size_t np = 0, nk = 0;
    double *pts = union_points(&all, flat, xt, false, &np);
    double *origin = NULL, *kinks = xt > flat
                                        ? smooth_kinks(&all, flat, xt, &nk, &origin) : NULL;
    bool ok = asks_init(&all, &k, false) && kinks && (pts || !base->extra);
    size_t nl = gt_lcsum_ladders(all.sum);
    double *lad = malloc(3 * (nl ? nl : 1) * sizeof *lad);
    struct qfit q = {&all, false, 0, k.ms, NULL, k.share_who, lad, lad + nl, lad + 2 * nl};
    double *tol = lad ? malloc((k.ms ? k.ms : 1) * sizeof *tol) : NULL;
    for (size_t j = 0; tol && j < k.ms; j++)
        tol[j] = 1e-10;
    ok = ok && tol && (!k.ms || gt_cheb_fit(base->cheb, f_smooth_q, &q, k.ms, flat, xt, kinks,
                                             origin, nk, tol));
    double *u = ok && k.ms ? interval_ends(flat, pts, np, xt) : NULL;
    double *in = u ? malloc((np + 1) * k.ms * sizeof *in) : NULL;
    ok = ok && (!k.ms || (in && gt_cheb_intervals(base->cheb, u, np + 2, in)));
    for (size_t j = 0; ok && k.ms && j <= np; j++) {
        double a = j ? pts[j - 1] : flat, b = j < np ? pts[j] : xt;
        asks_add(&all, &k, a, b, tables_log(&all, a), 0, in + j * k.ms, 0);
    }
    ok = ok && shares_beyond(&all, xt, &k, false);
    asks_free(&k, base->ng);
    free_fit_arrays((double *[]){pts, kinks, tol, u, in, lad});
    return ok;
}

static void all_slowest(const struct ctx *base, double n, double *ps)
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
    bool few = fitted_groups(base) <= FIT_FEW_SHARES;
    if ((base->extra || base->mixed || few) && all_slowest_fitted(base, n, ps))
        return;
    if (base->extra || base->mixed) {
        all_slowest_adaptive(base, n, ps);
        return;
    }
    double flat, hi, lo, xt;
    max_bracket(base, n, 1e-17, 1e-3, &flat, &hi);
    max_bracket(base, n, exp(-1e-10), 1e-3, &lo, &xt);
    bool logx = flat > 0;
    double a = logx ? log(flat) : flat, b = logx ? log(xt) : xt;
    double *prev = calloc(ng, sizeof *prev), *cur = calloc(ng, sizeof *cur);
    gsl_integration_glfixed_table *t = gsl_integration_glfixed_table_alloc(20);
    if (!prev || !cur || !t || !(b > a))
        goto done;
    struct ctx all = *base;
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
                double S = log_G(&all, x);
                if (S == -INFINITY)
                    continue;
                w *= logx ? x : 1;
                double G = exp(S);
                for (size_t i = 0; i < ng; i++)
                    cur[i] += w * base->g[i].count * density_over_cdf(&base->g[i].dist, x, S, G);
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
            struct ctx c = *base;
            c.skip = (long)i;
            ps[i] = exp(log_G(&c, d->p[0] + d->shift));
        } else {
            ps[i] = prev ? prev[i] : NAN;
        }
    }
    free(prev);
    free(cur);
    gsl_integration_glfixed_table_free(t);
}

/* GSL's default handler aborts; the engine checks every status itself.
 * Set once: the handler is global state shared by threads. */
static once_flag gsl_quiet = ONCE_FLAG_INIT;

static void silence_gsl(void)
{
    gsl_set_error_handler_off();
}

struct gt_emax_ws {
    gsl_integration_workspace *w;
    struct gt_lcsum *sum;
    struct gt_cheb *cheb;
};

struct gt_emax_ws *gt_emax_ws_new(void)
{
    struct gt_emax_ws *ws = calloc(1, sizeof *ws);
    if (ws && (!(ws->w = gsl_integration_workspace_alloc(WORKSPACE)) ||
               !(ws->sum = gt_lcsum_new(NULL, 0, 0)) || !(ws->cheb = gt_cheb_new()))) {
        gt_emax_ws_free(ws);
        return NULL;
    }
    return ws;
}

void gt_emax_ws_free(struct gt_emax_ws *ws)
{
    if (!ws)
        return;
    if (ws->w)
        gsl_integration_workspace_free(ws->w);
    gt_lcsum_free(ws->sum);
    gt_cheb_free(ws->cheb);
    free(ws);
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
static int build_tables(const struct gt_partner_group *g, size_t ng, struct gt_steps **out,
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

static void free_tables(struct gt_steps *t, size_t ng)
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
 * not tabled, loss mixtures as ladders, in ws. */
static int make_ctx(const struct gt_partner_group *g, size_t ng, double n,
                    const struct gt_emax_opts *o, struct gt_steps *tabs, struct gt_emax_ws *ws,
                    struct ctx *c)
{
    /* what may be left out: 1e-13 of the scale, or a thousandth of a
       coarser tolerance asked for */
    double rel = o->epsrel > 0 ? fmax(1e-13, 1e-3 * o->epsrel) : 1e-13;
    /* the scale only where loss or tables may need it: a quantile per
       partner is a fifth of a loss-free E[max] of 10,000 */
    bool lossy = tabs != NULL;
    for (size_t i = 0; i < ng && !lossy; i++)
        lossy = g[i].dist.loss_p > 0;
    *c = (struct ctx){g, ng, -1, 0, ws->sum, false, false, tabs != NULL, tabs != NULL, tabs,
                      ws->cheb, lossy ? median_scale(g, ng) : 0};
    bool *skip = tabs ? malloc(ng * sizeof *skip) : NULL;
    if (tabs && !skip)
        return GT_ENOMEM;
    for (size_t i = 0; i < ng; i++) {
        c->extra = c->extra || extra_at(c, i);
        c->only_steps = c->only_steps && tabled(c, i);
        if (skip)
            skip[i] = tabled(c, i);
    }
    gt_lcsum_set_coarse(ws->sum, o->epsrel >= COARSE_EPSREL);
    gt_lcsum_set_exact_starts(ws->sum, o->slowest);
    struct gt_lcsum_opts so = {isinf(o->cut_x0) ? drop_budget(g, ng, n, rel) : 0,
                               loss_budget(c->scale, n, rel), skip};
    bool ok = gt_lcsum_compile(ws->sum, g, ng, &so);
    free(skip);
    c->mixed = ok && gt_lcsum_ladders(ws->sum) > 0;
    return ok ? GT_OK : GT_ENOMEM;
}

/* Each lossy group's loss cost as E[max] less E[max] with it loss-free,
 * for when the fit did not give them. */
static int costs_one_by_one(const struct gt_partner_group *g, size_t ng,
                            const struct gt_emax_opts *o, struct gt_emax_result *r,
                            struct gt_emax_ws *ws, struct gt_error *err)
{
    struct gt_partner_group *h = malloc(ng * sizeof *h);
    if (!h)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    memcpy(h, g, ng * sizeof *h);
    int rc = GT_OK;
    for (size_t i = 0; i < ng && rc == GT_OK; i++) {
        r->loss_cost[i] = 0;
        if (!(g[i].dist.loss_p > 0))
            continue;
        h[i].dist.loss_p = 0;
        struct gt_emax_opts o0 = {o->cut_x0, o->cut_paper, NULL, 0, false, false, ws,
                                  o->epsrel, NULL, false};
        struct gt_emax_result r0 = {0};
        rc = gt_emax(h, ng, &o0, &r0, err);
        r->loss_cost[i] = r->e_max - r0.e_max;
        h[i].dist.loss_p = g[i].dist.loss_p;
    }
    free(h);
    return rc;
}

static int run(const struct ctx *base, double n, const struct gt_emax_opts *o,
               struct gt_emax_result *r, struct gt_emax_ws *ws, struct gt_error *err)
{
    const struct gt_partner_group *g = base->g;
    size_t ng = base->ng;
    struct quad qd = {ws->w, 0, 0, o->epsrel > 0 ? o->epsrel : EPSREL, o->warm};
    double shift = g[0].dist.shift, e;
    bool all_delta = !base->tabs, fitted = false;
    struct asks asks = {o->loss_cost ? r->loss_cost : NULL,
                        o->slowest && ng > 1 ? r->p_slowest : NULL, NULL, 0, 0, NULL, NULL};
    for (size_t i = 0; i < ng; i++)
        all_delta = all_delta && g[i].dist.model == &gt_model_delta;
    asks_trim(base, &asks);
    int rc = GT_OK;
    if (all_delta) {
        r->method = "delta";
        r->e_max = lower_bound(g, ng);
        if (!isinf(o->cut_x0) && r->e_max > o->cut_x0)
            r->e_max = o->cut_paper ? 0 : o->cut_x0;
    } else if (!o->force_integration && isinf(o->cut_x0) && ng == 1 && !base->extra &&
               closed_form_applies(g, ng)) {
        r->method = "pareto-iid";
        r->e_max = shift + pareto_iid(g[0].dist.p[0], g[0].dist.p[1], n);
    } else if (!o->force_integration && isinf(o->cut_x0) && n == 1 && ladder_at(base, 0) &&
               isfinite(gt_dist_mean0(&g[0].dist))) {
        /* one lossy partner: E[L + D_K] = E[L] + sum_j w_j D_j */
        const struct gt_ladder *l = ladder_at(base, 0);
        struct gt_ksum sum = {0, 0};
        gt_ksum_add(&sum, gt_dist_mean0(&g[0].dist));
        for (int j = 1; j < l->n; j++)
            gt_ksum_add(&sum, l->w[j] * l->delay[j]);
        r->method = "loss-mean";
        r->e_max = gt_ksum_get(&sum);
    } else if (!o->force_integration && isinf(o->cut_x0) && closed_form_applies(g, ng) &&
               pareto_closed(g, ng, &e, &r->abserr)) {
        r->method = "pareto-closed";
        r->e_max = shift + e;
    } else {
        r->method = base->only_steps ? "steps" : "integration";
        r->e_max = emax_integrated(base, n, o->cut_x0, o->cut_paper, &qd, &asks, &fitted);
        r->abserr = qd.abserr;
        if (qd.status == GSL_ENOMEM)
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        else if (qd.status && qd.abserr > fmax(1e-9, 10 * qd.epsrel) * fabs(r->e_max))
            rc = gt_error_set(err, GT_EINPUT, NULL, "integration did not converge: %s "
                              "(estimated error %g)", gsl_strerror(qd.status), qd.abserr);
    }
    for (size_t k = 0; rc == GT_OK && r->q_values && k < o->nq; k++) {
        double lo, tol = o->epsrel > 0 ? o->epsrel : 0;
        if (o->warm && k < GT_EMAX_WARM_NQ)
            max_bracket_warm(base, n, o->q[k], tol, o->warm, GT_EMAX_WARM_Q0 + (int)k, &lo,
                             &r->q_values[k]);
        else
            r->q_values[k] = max_quantile(base, n, o->q[k], tol);
    }
    asks_free(&asks, ng);
    if (rc == GT_OK && o->slowest && r->p_slowest && !(fitted && asks.shares))
        all_slowest(base, n, r->p_slowest);
    /* last: another E[max] rebuilds the workspace base lives in */
    if (rc == GT_OK && o->loss_cost && r->loss_cost && !(fitted && asks.costs))
        rc = costs_one_by_one(g, ng, o, r, ws, err);
    return rc;
}

int gt_emax(const struct gt_partner_group *g, size_t ng, const struct gt_emax_opts *o,
            struct gt_emax_result *r, struct gt_error *err)
{
    int rc = validate(g, ng, o, err);
    if (rc)
        return rc;
    call_once(&gsl_quiet, silence_gsl);
    double n = 0;
    for (size_t i = 0; i < ng; i++)
        n += g[i].count;
    r->n = n;
    r->abserr = 0;
    struct gt_steps *tabs;
    if ((rc = build_tables(g, ng, &tabs, err)))
        return rc;
    struct gt_emax_ws *ws = o->ws ? o->ws : gt_emax_ws_new();
    struct ctx base;
    if (!ws || make_ctx(g, ng, n, o, tabs, ws, &base))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    else
        rc = run(&base, n, o, r, ws, err);
    if (ws != o->ws)
        gt_emax_ws_free(ws);
    free_tables(tabs, ng);
    return rc;
}

/* One loss-free draw of d, shift included. */
static double draw0(const struct gt_dist *d, gsl_rng *rng)
{
    if (gt_dist_is_step(d))
        return d->xs[gsl_rng_uniform_int(rng, d->nx)] * d->p[0] + d->shift;
    return d->model->quantile(d->p, gsl_rng_uniform_pos(rng) * (1 - 1e-16)) + d->shift;
}

double gt_emax_monte_carlo(const struct gt_partner_group *g, size_t ng, double cut_x0,
                           bool cut_paper, long draws, unsigned long seed)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    double sum = 0, comp = 0;
    for (long k = 0; k < draws; k++) {
        double mx = -INFINITY;
        for (size_t i = 0; i < ng; i++) {
            const struct gt_dist *d = &g[i].dist;
            /* the max of count iid draws is F^-1(U^(1/count)) */
            double u = gsl_rng_uniform_pos(rng), x;
            if (d->loss_p > 0) {   /* each member: its own retries */
                x = -INFINITY;
                for (double m = 0; m < g[i].count; m++) {
                    int losses = 0;
                    while (losses < GT_LOSS_MAX_TERMS && gsl_rng_uniform(rng) < d->loss_p)
                        losses++;
                    double v = draw0(d, rng) + gt_loss_delay(d->rto_ms, losses);
                    x = v > x ? v : x;
                }
                (void)u;
            } else if (gt_dist_is_step(d)) {
                x = -INFINITY;
                for (double m = 0; m < g[i].count; m++)
                    x = fmax(x, draw0(d, rng));
            } else {
                if (d->model == &gt_model_normal)
                    x = d->model->quantile(d->p, exp(log(u) / g[i].count));
                else if (d->model == &gt_model_pareto)
                    x = d->p[0] * exp(-log(-expm1(log(u) / g[i].count)) / d->p[1]);
                else
                    x = d->p[0];
                x += d->shift;
            }
            mx = x > mx ? x : mx;
        }
        double v = mx <= cut_x0 ? mx : cut_paper ? 0 : cut_x0;
        double y = v - comp, t = sum + y;   /* Kahan */
        comp = (t - sum) - y;
        sum = t;
    }
    gsl_rng_free(rng);
    return sum / (double)draws;
}
