/*
 * emaxfit.c - E[max], the loss costs and the shares of being slowest
 * with step tables or ladders among the partners: the smooth part of G
 * fitted once (emaxfit.h).
 *
 * With step tables among the partners, log G = T + S: T the tables'
 * (constant between their points), S the compiled sum's (smooth but for
 * the kinks where a Pareto copy or a retry starts).  Between two
 * consecutive table points, 1 - G = (1 - e^T) + e^T (1 - e^S): the first
 * part is a constant, the second the integral of one function fitted
 * once over the whole range (chebfit.h), whatever the number of points.
 * The same fit carries each lossy group's loss-cost integrand and each
 * group's share density (struct qfit); beyond where it ends, the tails'
 * first order in closed form.
 */
#include "emaxfit.h"
#include "slowest.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The break points of copy j of group i in (from, to): a Pareto copy's
 * start; a normal copy's median, or its whole climb where it is narrow;
 * into pts from *first (set to 0); returns the end. */
static size_t retry_points_of(const struct emax_ctx *c, size_t i, int j, double from, double to,
                              double *pts, size_t *first)
{
    const struct gt_ladder *l = ladder_at(c, i);
    struct gt_dist d0 = {.model = l->model, .p = {l->p[0], l->p[1]}, .shift = l->shift};
    double x[3];
    emax_climb(&d0, x);
    /* a Pareto copy's segment is fitted in ln(x - its zero), where its
       steep start is spread out: its start alone will do */
    bool narrow = l->model != &gt_model_pareto && emax_climb_width(&d0, false) < (to - from) / 64;
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

static double *smooth_kinks(const struct emax_ctx *c, double from, double to, size_t *np,
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
        emax_climb(d, x);
        bool narrow = emax_climb_width(d, false) < (to - from) / 64;
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
            emax_climb_width(d, false) < (to - from) / 64) {
            emax_climb(d, x);
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
    const struct emax_ctx *c;
    bool q;
    size_t mc, ms;
    const size_t *cost_who, *share_who;
    double *logf, *pdf, *log0;   /* per ladder, at the point (gt_lcsum_eval_keep) */
};

static double share_density(const struct qfit *q, size_t i, double x, double S, double G)
{
    const struct emax_ctx *c = q->c;
    long slot = ladder_at(c, i) ? gt_lcsum_slot(c->sum, i) : -1;
    if (S == -INFINITY)
        return 0;
    if (slot < 0)
        return c->g[i].count * emax_density_over_cdf(&c->g[i].dist, x, S, G);
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
    const struct emax_ctx *c = q->c;
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
static double tables_log(const struct emax_ctx *c, double x)
{
    return c->extra ? emax_log_extra(c, x) : 0;
}

/* The same along ascending x, each table's count of points <= x in at[]
 * (zeroed first) moved forward instead of searched for at every point. */
static double tables_log_walk(const struct emax_ctx *c, size_t *at, double x)
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

void emax_asks_free(struct emax_asks *k, size_t ng)
{
    for (size_t i = 0; k->free_tabs && i < ng; i++)
        gt_steps_free(&k->free_tabs[i]);
    free(k->free_tabs);
    free(k->cost_who);
    free(k->share_who);
}

/* Shares fitted at once at most: the fit keeps 70 doubles a function and
 * panel, and a thousand groups' shares held 258 MB. */
#define FIT_MAX_SHARES 64

/* the groups whose shares a fit carries: neither tabled nor point masses */
size_t emax_fitted_groups(const struct emax_ctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->ng; i++)
        n += !tabled(c, i) && c->g[i].dist.model != &gt_model_delta;
    return n;
}

/* What the fit cannot answer well, left to the other ways: a lossy
 * group's loss cost when G with it loss-free, up to G / w_0^count, is
 * not negligible where G reaches 1e-17 and the fit starts (count x
 * log(1 / w_0) > 9: G0 there above 1e-13); the shares of more than
 * FIT_MAX_SHARES fitted groups. */
void emax_asks_trim(const struct emax_ctx *c, struct emax_asks *k)
{
    for (size_t i = 0; i < c->ng; i++) {
        const struct gt_dist *d = &c->g[i].dist;
        const struct gt_ladder *l = ladder_at(c, i);
        double lw0 = l ? -l->log_w0 : d->loss_p > 0 ? -log1p(-d->loss_p) : 0;
        if (c->g[i].count * lw0 > 9)
            k->costs = NULL;
    }
    if (emax_fitted_groups(c) > FIT_MAX_SHARES)
        k->shares = NULL;
}

/* The groups each answer fits, and what is known without a fit (a
 * table's share, unless by_fit: then from the fit's 1 - e^S, after it). */
static bool asks_init(const struct emax_ctx *c, struct emax_asks *k, bool by_fit)
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
            k->shares[i] = by_fit ? 0 : emax_slowest_steps(c, i);
        } else if (d->model == &gt_model_delta) {
            struct emax_ctx one = *c;
            one.skip = (long)i;
            k->shares[i] = exp(emax_log_G(&one, d->p[0] + d->shift));
        } else {
            k->shares[i] = 0;
            k->share_who[k->ms++] = i;
        }
    }
    return true;
}

/* interval [a, b) of the tables (their log at a: T), qint = int_a^b
 * (1 - e^S); the fit's integrals over it in in[], from first on */
static void asks_add(const struct emax_ctx *c, struct emax_asks *k, double a, double b, double T,
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

/* A table's share (emax_slowest_steps) over its points in [flat, end], with
 * e^S from the fit of 1 - e^S (function 0) instead of the compiled sum:
 * below flat G < 1e-17, beyond end the max lies with probability below
 * 1e-10.  false on ENOMEM. */
static bool table_share(const struct emax_ctx *c, size_t i, double flat, double end, double *out)
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

/* integral_x^inf of one member of group i's 1 - F, in closed form (a
 * table's by its steps, a ladder's term by term, the model's) */
static double group_tail(const struct emax_ctx *c, size_t i, double x)
{
    const struct gt_dist *d = &c->g[i].dist;
    const struct gt_ladder *l = ladder_at(c, i);
    return tabled(c, i) ? gt_steps_tail(&c->tabs[i], x)
           : l          ? gt_ladder_sf_integral(l, x)
                        : d->model->tail_integral(d->p, x - d->shift);
}

/* one member of group i's 1 - F at x */
static double group_sf(const struct emax_ctx *c, size_t i, double x)
{
    const struct gt_dist *d = &c->g[i].dist;
    const struct gt_ladder *l = ladder_at(c, i);
    if (tabled(c, i)) {
        size_t j = gt_steps_upto(&c->tabs[i], x);
        return -expm1(j ? c->tabs[i].lcdf[j - 1] : -INFINITY);
    }
    return l ? gt_ladder_sf(l, x) : d->model->sf(d->p, x - d->shift);
}

/* sigma = sum_i c_i (1 - F_i(x)), each group's c (1 - F) in s[i] (if
 * s), and I = the integral of sigma from x on, in closed form (a
 * ladder's, the models' tail_integral, a table's by its steps).  1 - G
 * lies within [sigma - sigma^2 / 2, sigma] (G >= 1 - sigma and G <=
 * e^-sigma), sigma falls, so beyond x the tails' sum I is within
 * sigma(x) I / 2 of the integral of 1 - G. */
static double first_order_tail(const struct emax_ctx *c, double x, double *s, double *I)
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
static bool tail_holds(const struct emax_ctx *c, double x, double tol, bool shares)
{
    double I, sigma = first_order_tail(c, x, NULL, &I);
    return sigma * I / 2 <= tol && (!shares || sigma * sigma <= 1e-11);
}

/* the loss terms of group i's ladder or lossy table (0: neither) */
static int retry_terms(const struct emax_ctx *c, size_t i)
{
    const struct gt_dist *d = &c->g[i].dist;
    const struct gt_ladder *l = ladder_at(c, i);
    return l ? l->n : tabled(c, i) && d->loss_p > 0 ? gt_loss_terms(d->loss_p) : 0;
}

/* the retries' starts (j >= 1) of group i, a ladder or a lossy table,
 * in (flat, xt) into x from n; returns the end (at most retry_terms) */
static size_t retry_starts(const struct emax_ctx *c, size_t i, double flat, double xt, double *x,
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
static double fit_end(const struct emax_ctx *c, double flat, double xt, double tol, bool shares)
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
    qsort(x, n, sizeof *x, emax_cmp_double);
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
static bool shares_beyond(const struct emax_ctx *c, double end, const struct emax_asks *k,
                          bool tables)
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
bool emax_fitted_one_minus_G(const struct emax_ctx *c, double n, double flat,
                             struct emax_quad *qd, struct emax_asks *k, double *out)
{
    double lo, xt, eps = fmax(qd->epsrel, 1e-10);
    double tol0 = 0.1 * qd->epsrel * fmax(c->scale, fmax(fabs(flat), 1));
    emax_bracket(c, n, exp(-eps), 1e-3, &lo, &xt);
    double end = fit_end(c, flat, xt, tol0, k->shares), tail = 0;
    size_t np = 0, nk = 0;
    double *pts = emax_union_points(c, flat, end, false, &np);
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

/* The shares where E[max] did not fit them (no step table or ladder
 * among the partners, or not asked of it: asks_init, asks_add), by a fit
 * of the densities over [flat, xt], the tails' first order beyond.
 * false: the fit failed (or ENOMEM), the caller integrates another way. */
bool emax_fitted_shares(const struct emax_ctx *base, double n, double *ps)
{
    struct emax_ctx all = *base;
    all.skip = -1;
    double flat, hi, lo, xt;
    emax_bracket(&all, n, 1e-17, 1e-3, &flat, &hi);
    /* the shares beyond where G reaches 1 - 1e-6 are the tails' first
       order to sigma^2 = 1e-12 (tail_holds): a heavy tail's decades up
       to 1 - 1e-10 were most of the fit (narrow climbs, each kinks) */
    emax_bracket(&all, n, exp(-1e-6), 1e-3, &lo, &xt);
    if (!tail_holds(&all, xt, INFINITY, true))
        emax_bracket(&all, n, exp(-1e-10), 1e-3, &lo, &xt);
    struct emax_asks k = {NULL, ps, NULL, 0, 0, NULL, NULL};
    emax_asks_trim(&all, &k);
    if (!k.shares)
        return false;
    size_t np = 0, nk = 0;
    double *pts = emax_union_points(&all, flat, xt, false, &np);
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
    emax_asks_free(&k, base->ng);
    free_fit_arrays((double *[]){pts, kinks, tol, u, in, lad});
    return ok;
}
