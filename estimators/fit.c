/*
 * fit.c - window fits, the chi-square fit index and model selection.
 */
#include "fit.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

double gt_pareto_alpha(double m, double sum_log, double log_min)
{
    double s = sum_log - m * log_min;   /* sum of ln(x_j / k) */
    return s > 0 ? m / s : INFINITY;
}

double gt_cut_x0(double k, double alpha, double m)
{
    return alpha <= 1 ? k * exp(log(m) / alpha) : INFINITY;
}

/* The classes of ln x (Scott's rule): their width, first edge and counts,
 * the same for every model fitted to the window. */
struct log_hist {
    double lo, w;
    int n;                  /* 0: every sample equal (no classes) */
    long stack[64], *count;
    double edge_stack[64], *edge;   /* hist_edges' */
};

/* Whether x's class floor((x - lo) / w) is below j. */
static bool class_below(double x, double lo, double w, int j)
{
    return floor((x - lo) / w) < j;
}

/* The first of sorted[from..m) whose class floor((x - lo) / w) is j or
 * more: the class is monotone in x (a subtraction, a division by w > 0
 * and floor each keep the order), so it divides sorted where a class
 * counted sample by sample would.  Found by comparisons with the edge
 * lo + j w, then moved to where the class itself changes (a rounding
 * apart: a step or two), so that only those steps divide. */
static size_t class_start(const double *sorted, size_t from, size_t m, double lo, double w,
                          int j)
{
    double edge = lo + j * w;
    size_t a = from, b = m;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (sorted[mid] < edge)
            a = mid + 1;
        else
            b = mid;
    }
    while (a > from && !class_below(sorted[a - 1], lo, w, j))
        a--;
    while (a < m && class_below(sorted[a], lo, w, j))
        a++;
    return a;
}

/* The sum of x[0..m) and of (x - c)^2, each over four running sums (every
 * fourth value; then added in pairs): one chain of m additions waited on
 * each, and the window's is the fit's hottest loop. */
static double sum_of(const double *x, size_t m)
{
    double s[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= m; i += 4)
        for (int k = 0; k < 4; k++)
            s[k] += x[i + k];
    for (int k = 0; i < m; i++, k++)
        s[k] += x[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

static double squares_about(const double *x, size_t m, double c)
{
    double s[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= m; i += 4)
        for (int k = 0; k < 4; k++)
            s[k] += (x[i + k] - c) * (x[i + k] - c);
    for (int k = 0; i < m; i++, k++)
        s[k] += (x[i] - c) * (x[i] - c);
    return (s[0] + s[1]) + (s[2] + s[3]);
}

/* m^(-1/3), the last m's kept: a replay asks it of one window size. */
static double cube_root_inverse(size_t m)
{
    static _Thread_local size_t last_m;
    static _Thread_local double last;
    if (m != last_m) {
        last = pow((double)m, -1.0 / 3);
        last_m = m;
    }
    return last;
}

static bool hist_build(const double *lx, const double *sorted, size_t m, struct log_hist *h)
{
    double lo = INFINITY, hi = -INFINITY;
    if (sorted) {
        lo = sorted[0], hi = sorted[m - 1];
    } else {
        for (size_t i = 0; i < m; i++) {
            lo = lx[i] < lo ? lx[i] : lo;
            hi = lx[i] > hi ? lx[i] : hi;
        }
    }
    double mean = sum_of(lx, m) / (double)m;
    double sd = sqrt(squares_about(lx, m, mean) / (double)(m - 1));
    double w = 3.49 * sd * cube_root_inverse(m);
    h->n = 0;
    h->count = h->stack;
    if (!(w > 0) || !(hi > lo))
        return true;
    double span = (hi - lo) / w;
    int n = span > 1e6 ? 1000000 : (int)ceil(span);
    if (n < 1)
        n = 1;
    h->lo = lo, h->w = w, h->n = n;
    if (n > 64 && !(h->count = calloc((size_t)n, sizeof *h->count)))
        return false;
    memset(h->count, 0, (size_t)n * sizeof *h->count);
    if (sorted && n <= 64) {   /* (the first class starts at lo: class 0) */
        size_t at = 0;
        for (int j = 1; j < n; j++) {
            size_t next = class_start(sorted, at, m, lo, w, j);
            h->count[j - 1] = (long)(next - at);
            at = next;
        }
        h->count[n - 1] = (long)(m - at);   /* and those past the last edge */
        return true;
    }
    for (size_t i = 0; i < m; i++) {
        double c = floor((lx[i] - lo) / w);
        int j = c < 0 ? 0 : (c >= n ? n - 1 : (int)c);
        h->count[j]++;
    }
    return true;
}

static void hist_free(struct log_hist *h)
{
    if (h->count != h->stack)
        free(h->count);
    if (h->edge != h->edge_stack)
        free(h->edge);
}

/* Room for the upper edges of h's classes but the last (it has none), each
 * computed when first asked (edge_at): the same for each model. */
static bool hist_edges(struct log_hist *h)
{
    h->edge = h->n - 1 <= 64 ? h->edge_stack : malloc((size_t)h->n * sizeof *h->edge);
    if (!h->edge)
        return false;
    for (int j = 0; j < h->n - 1; j++)
        h->edge[j] = NAN;
    return true;
}

static double edge_at(struct log_hist *h, int j)
{
    if (isnan(h->edge[j]))
        h->edge[j] = exp(h->lo + (j + 1) * h->w);
    return h->edge[j];
}

/* The survival function of model(p) at class j's upper edge: the
 * Pareto's from the edge's logarithm, which the classes are made of
 * ((k / x)^alpha with no log of x), any other model's at the edge. */
static double class_sf(const struct gt_model *model, const double *p, double log_k,
                       struct log_hist *h, int j)
{
    if (model != &gt_model_pareto)
        return model->sf(p, edge_at(h, j));
    double lx = h->lo + (j + 1) * h->w;
    return lx > log_k ? exp(p[1] * (log_k - lx)) : 1;
}

/* The index of model(p) on the classes h of m samples. */
static double index_on(const struct gt_model *model, const double *p, struct log_hist *h,
                       size_t m)
{
    if (!h->n)
        return NAN;
    /* Per class, (Y - e)(Y - 1 - e) / e: algebraically the paper's two sums,
       but it keeps its digits when a class holds one sample and a tiny e.
       e comes from CDF differences below the model's median and from
       survival-function differences above it, where CDFs cancel to 0. */
    double s = 0, md = (double)m, cdf_a = 0, sf_a = 1, edge_a = 0;
    double log_k = model == &gt_model_pareto ? log(p[0]) : NAN;   /* class_sf's */
    bool sf_known = true;   /* sf_a computed: below the median only the CDF is asked */
    bool above = false;     /* past the median: there the CDF only says so (the
                               models' CDFs do not decrease), 1 stands for it */
    for (int j = 0; j < h->n; j++) {
        if (above && !h->count[j]) {
            /* a run of empty classes past the median (a tail's spikes
               spread over many): each adds 1 + e, and their e add up to
               the survival function's drop over the run */
            int r = j;
            while (r + 1 < h->n && !h->count[r + 1])
                r++;
            double sf_b = r == h->n - 1 ? 0 : class_sf(model, p, log_k, h, r);
            s += (double)(r - j + 1) + fmax(0, md * (sf_a - sf_b));
            sf_a = sf_b;
            j = r;
            continue;
        }
        bool last = j == h->n - 1;
        double edge = last ? INFINITY : edge_at(h, j);
        double cdf_b = last || above ? 1 : model->cdf(p, edge), sf_b = NAN, e;
        above = cdf_b > 0.5;
        if (cdf_b <= 0.5) {
            e = md * (cdf_b - cdf_a);
        } else {
            if (!sf_known)   /* the edge before, as it would have been */
                sf_a = model->sf(p, edge_a);
            sf_b = last ? 0 : class_sf(model, p, log_k, h, j);
            e = md * (sf_a - sf_b);
        }
        sf_known = cdf_b > 0.5;
        edge_a = edge;
        double y = (double)h->count[j];
        if (e > 0)
            s += (y - e) * (y - 1 - e) / e;
        else if (y >= 2)
            return INFINITY;   /* two samples where the model puts none */
        else
            s += y == 0 ? 1 : -1;   /* the limits as e -> 0 */
        cdf_a = cdf_b;
        sf_a = sf_b;
    }
    double df = h->n - 1 - 2;
    return (s - df) / (md - 1);
}

double gt_fit_index_logs(const struct gt_model *model, const double *p, const double *lx,
                         size_t m, int *classes)
{
    double r;
    gt_fit_index_logs2(model, p, &r, NULL, NULL, NULL, lx, NULL, m, classes);
    return r;
}

void gt_fit_index_logs2(const struct gt_model *a, const double *pa, double *ra,
                        const struct gt_model *b, const double *pb, double *rb,
                        const double *lx, const double *sorted_lx, size_t m, int *classes)
{
    struct log_hist h;
    h.edge = NULL;
    bool ok = hist_build(lx, sorted_lx, m, &h) && hist_edges(&h);
    *classes = ok ? h.n : 0;
    if (a)
        *ra = ok ? index_on(a, pa, &h, m) : NAN;
    if (b)
        *rb = ok ? index_on(b, pb, &h, m) : NAN;
    hist_free(&h);
}

double gt_fit_index(const struct gt_model *model, const double *p, const double *x,
                    size_t m, int *classes)
{
    double *lx = malloc((m ? m : 1) * sizeof *lx);
    if (!lx)
        return NAN;
    for (size_t i = 0; i < m; i++)
        lx[i] = log(x[i]);
    double r = gt_fit_index_logs(model, p, lx, m, classes);
    free(lx);
    return r;
}

double gt_ks_distance(const struct gt_model *model, const double *p, const double *xs,
                      size_t m)
{
    double d = 0, md = (double)m;
    for (size_t i = 0; i < m; i++) {
        double f = model->cdf(p, xs[i]);
        double a = (double)(i + 1) / md - f, b = f - (double)i / md;
        d = a > d ? a : d;
        d = b > d ? b : d;
    }
    return d;
}

const struct gt_model *gt_fit_select(const struct gt_model_fit *pareto,
                                     const struct gt_model_fit *normal)
{
    if (!pareto->ok || !normal->ok)
        return pareto->ok ? &gt_model_pareto : normal->ok ? &gt_model_normal : NULL;
    double a = pareto->chi2, b = normal->chi2;
    if (isnan(a) || isnan(b) || a == b)
        return pareto->ks <= normal->ks ? &gt_model_pareto : &gt_model_normal;
    return a < b ? &gt_model_pareto : &gt_model_normal;
}

/* Replace lost values by the previous valid one (the prior before the
 * window for leading ones); leading lost with no prior are dropped. */
static size_t fill_lost(const double *x, size_t n, double prior, double *out,
                        struct gt_fit *f)
{
    size_t m = 0;
    f->filled = f->dropped = f->valid = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isnan(x[i])) {
            out[m++] = x[i];
            f->valid++;
        } else if (m > 0 || !isnan(prior)) {
            out[m] = m > 0 ? out[m - 1] : prior;
            m++;
            f->filled++;
        } else {
            f->dropped++;
        }
    }
    return m;
}

size_t gt_fit_window_values(const double *x, size_t n, double prior, double *out)
{
    struct gt_fit f;
    size_t m = fill_lost(x, n, prior, out, &f);
    qsort(out, m, sizeof *out, gt_cmp_double);
    return m;
}

/* A fitted window's quantile bounds, from its m ascending samples. */
static void window_bounds(const double *sorted, size_t m, struct gt_quantile_bounds *b)
{
    struct gt_quantile_ranks r;
    gt_quantile_ranks_of(m, &r);
    gt_quantile_bounds_at(sorted, m, &r, b);
}

static void fit_candidates(const double *w, double *sorted, size_t m, struct gt_fit *f)
{
    double sum = 0, sum_log = 0, mn = INFINITY;
    for (size_t i = 0; i < m; i++) {
        sum += w[i];
        mn = w[i] < mn ? w[i] : mn;
    }
    double mean = sum / (double)m, ss = 0;
    for (size_t i = 0; i < m; i++)
        ss += (w[i] - mean) * (w[i] - mean);
    f->normal.ok = true;
    f->normal.p[0] = mean;
    f->normal.p[1] = sqrt(ss / (double)(m - 1));
    if (mn > 0) {
        for (size_t i = 0; i < m; i++)
            sum_log += log(w[i]);
        f->pareto.ok = true;
        f->pareto.p[0] = mn;
        f->pareto.p[1] = gt_pareto_alpha((double)m, sum_log, log(mn));
    } else {
        f->pareto.why = "window minimum is 0: no Pareto location";
    }
    memcpy(sorted, w, m * sizeof *w);
    qsort(sorted, m, sizeof *sorted, gt_cmp_double);
    int classes = 0;
    if (mn > 0) {
        /* the logs of the samples, once for both fit indices */
        double *lx = malloc(m * sizeof *lx);
        for (size_t i = 0; lx && i < m; i++)
            lx[i] = log(w[i]);
        f->pareto.chi2 =
            lx ? gt_fit_index_logs(&gt_model_pareto, f->pareto.p, lx, m, &classes) : NAN;
        f->normal.chi2 =
            lx ? gt_fit_index_logs(&gt_model_normal, f->normal.p, lx, m, &classes) : NAN;
        free(lx);
        f->pareto.ks = gt_ks_distance(&gt_model_pareto, f->pareto.p, sorted, m);
    } else {
        f->normal.chi2 = NAN;   /* log classes need positive samples */
    }
    f->normal.ks = gt_ks_distance(&gt_model_normal, f->normal.p, sorted, m);
    f->classes = classes;
    window_bounds(sorted, m, &f->bounds);
}

int gt_fit_window(const double *x, size_t n, enum gt_fit_choice choice,
                  struct gt_fit *f, struct gt_error *err)
{
    return gt_fit_series(x, NULL, n, NAN, 0, choice, f, err);
}

int gt_fit_series(const double *x, const int64_t *ts, size_t n, double prior,
                  int64_t prior_ts, enum gt_fit_choice choice, struct gt_fit *f,
                  struct gt_error *err)
{
    memset(f, 0, sizeof *f);
    f->cut_x0 = INFINITY;
    double *w = malloc(2 * (n ? n : 1) * sizeof *w);
    if (!w)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    size_t m = fill_lost(x, n, prior, w, f);
    f->m = m;
    if (f->valid == 0 && m > 0)
        f->outage_since = prior_ts;
    if (ts && m) {
        f->timed = true;
        f->first_ts = ts[f->dropped];
        f->last_ts = ts[n - 1];
    }
    int rc = GT_OK;
    for (size_t i = 0; i < m && rc == GT_OK; i++)
        if (!isfinite(w[i]) || w[i] < 0)
            rc = gt_error_set(err, GT_EINPUT, NULL, "sample %zu (%g) is not a finite RTT >= 0",
                              i + 1, w[i]);
    if (rc == GT_OK && m == 0)
        rc = gt_error_set(err, GT_EINPUT, NULL, "no valid sample in the window, and none "
                          "before it");
    else if (rc == GT_OK && m < 2)
        rc = gt_error_set(err, GT_EINPUT, NULL,
                          "a window needs at least 2 samples, got %zu", m);
    if (rc) {
        free(w);
        return rc;
    }
    bool equal = true;
    for (size_t i = 1; i < m; i++)
        equal = equal && w[i] == w[0];
    if (equal) {
        f->degenerate = true;
        f->selected = &gt_model_delta;
        f->p[0] = w[0];
        f->pareto.why = f->normal.why = "all samples equal: a delta";
        window_bounds(w, m, &f->bounds);   /* all equal: sorted */
        free(w);
        return GT_OK;
    }
    fit_candidates(w, w + n, m, f);
    free(w);
    const struct gt_model_fit *chosen;
    if (choice == GT_FIT_PARETO && !f->pareto.ok)
        return gt_error_set(err, GT_EINPUT, NULL, "Pareto does not fit: %s", f->pareto.why);
    if (choice == GT_FIT_AUTO)
        f->selected = gt_fit_select(&f->pareto, &f->normal);
    else
        f->selected = choice == GT_FIT_PARETO ? &gt_model_pareto : &gt_model_normal;
    chosen = f->selected == &gt_model_pareto ? &f->pareto : &f->normal;
    memcpy(f->p, chosen->p, sizeof f->p);
    if (f->selected == &gt_model_pareto)
        f->cut_x0 = gt_cut_x0(f->p[0], f->p[1], (double)m);
    return GT_OK;
}

/* ---------------------------------------------------------------- verdicts */

const double gt_verdict_levels[GT_VERDICT_NQ] = {0.5, 0.9, 0.99};

void gt_quantile_ranks(size_t m, double p, double conf, size_t *kl, size_t *kh)
{
    /* Walk j down from m, upper = P(Bin >= j): the smallest kh has
     * P(Bin >= kh) <= (1 - conf) / 2, the largest kl P(Bin >= kl) >=
     * (1 + conf) / 2.  The walk stops there, about m (1 - p) + a few
     * standard deviations of the count down.  ln P(Bin = j) by the
     * pmf's ratio from ln P(Bin = m) = m ln p (lgamma is not reentrant). */
    long double tail = (1 - conf) / 2, upper = 0, lpmf = (long double)m * logl(p);
    long double odds = log1pl(-p) - logl(p);   /* long: m may be 1e8 steps */
    *kh = m + 1, *kl = 0;
    for (size_t j = m; j >= 1; j--) {
        if (j < m)
            lpmf += logl((long double)(j + 1)) - logl((long double)(m - j)) + odds;
        upper += expl(lpmf);
        if (upper <= tail)
            *kh = j;
        if (upper >= 1 - tail) {
            *kl = j;
            break;
        }
    }
}

void gt_quantile_ranks_of(size_t m, struct gt_quantile_ranks *r)
{
    for (int k = 0; k < GT_VERDICT_NQ; k++)
        gt_quantile_ranks(m, gt_verdict_levels[k], GT_VERDICT_CONFIDENCE, &r->lo[k],
                          &r->hi[k]);
}

void gt_quantile_bounds_select(double *xs, size_t m, const struct gt_quantile_ranks *r,
                               struct gt_quantile_bounds *b)
{
    /* every rank the bounds read (lo 0: none; hi past m: the largest),
     * ascending, each selected in the part above the one before */
    size_t want[2 * GT_VERDICT_NQ], n = 0;
    for (int k = 0; k < GT_VERDICT_NQ; k++) {
        if (r->lo[k])
            want[n++] = r->lo[k];
        want[n++] = r->hi[k] <= m ? r->hi[k] : m;
    }
    for (size_t i = 1; i < n; i++)   /* insertion sort of at most 6 */
        for (size_t j = i; j > 0 && want[j] < want[j - 1]; j--) {
            size_t t = want[j];
            want[j] = want[j - 1], want[j - 1] = t;
        }
    for (size_t i = 0, from = 0; i < n; i++) {
        gt_select(xs, from, m - 1, want[i] - 1);
        from = want[i] - 1;
    }
    gt_quantile_bounds_at(xs, m, r, b);
}

void gt_quantile_bounds_at(const double *xs, size_t m, const struct gt_quantile_ranks *r,
                           struct gt_quantile_bounds *b)
{
    b->hi_max = 0;
    for (int k = 0; k < GT_VERDICT_NQ; k++) {
        b->hi_max |= (r->hi[k] > m) << k;
        b->lo[k] = r->lo[k] ? xs[r->lo[k] - 1] : 0;
        b->hi[k] = xs[(r->hi[k] <= m ? r->hi[k] : m) - 1];
    }
}

static double neg_mass(const struct gt_verdict *v)
{
    return v->model == &gt_model_normal ? v->model->cdf(v->p, 0) : 0;
}

/* What the two fits' quantiles at the verdict's levels take of the level
 * alone, computed once: the unit normal's (normal.c: mu + sigma z) and
 * -log1p(-q) (pareto.c: k exp(-log1p(-q) / alpha)).  auto asks them of
 * every partner at every replayed moment, and the normal's inverse CDF
 * was most of the verdict's cost; test_fit checks the bits against the
 * models' own. */
static double unit_z[GT_VERDICT_NQ], pareto_c[GT_VERDICT_NQ];
static once_flag level_constants_once = ONCE_FLAG_INIT;

static void level_constants(void)
{
    for (int k = 0; k < GT_VERDICT_NQ; k++) {
        unit_z[k] = gt_model_normal.quantile((const double[]){0, 1}, gt_verdict_levels[k]);
        pareto_c[k] = -log1p(-gt_verdict_levels[k]);
    }
}

double gt_verdict_quantile(const struct gt_model *model, const double *p, int k)
{
    call_once(&level_constants_once, level_constants);
    if (model == &gt_model_normal)
        return p[0] + p[1] * unit_z[k];
    if (model == &gt_model_pareto)
        return p[0] * exp(pareto_c[k] / p[1]);
    return model->quantile(p, gt_verdict_levels[k]);
}

/* The first level whose model quantile lies outside the window's bounds
 * widened by the margin (lo / (1 + margin), hi (1 + margin)); -1: none. */
static int off_quantile(struct gt_verdict *v, double margin)
{
    for (int k = 0; v->bounds && k < GT_VERDICT_NQ; k++) {
        double q = gt_verdict_quantile(v->model, v->p, k);
        if (q < v->bounds->lo[k] / (1 + margin) || q > v->bounds->hi[k] * (1 + margin)) {
            v->off_q = q;
            return k;
        }
    }
    return -1;
}

void gt_verdict_short(unsigned flags, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s%s%s", flags & GT_VERDICT_OFF_QUANTILE ? "quantiles off" : "",
             (flags & GT_VERDICT_OFF_QUANTILE) && (flags & (GT_VERDICT_NEG_MASS |
                                                          GT_VERDICT_NO_INDEX)) ? ", " : "",
             flags & GT_VERDICT_NEG_MASS ? "mass below 0 ms" : "",
             (flags & GT_VERDICT_NEG_MASS) && (flags & GT_VERDICT_NO_INDEX) ? ", " : "",
             flags & GT_VERDICT_NO_INDEX ? "no finite index" : "");
}

void gt_verdict_check(struct gt_verdict *v, const struct gt_verdict_limits *lim)
{
    v->flags = 0;
    v->off = -1;
    if (!v->model || v->model == &gt_model_delta) {
        if (v->window && v->m < v->window)
            v->flags |= GT_VERDICT_NOT_FULL;
        return;
    }
    if (v->ks > lim->max_ks)
        v->flags |= GT_VERDICT_POOR_FIT;
    if ((v->off = off_quantile(v, lim->margin)) >= 0)
        v->flags |= GT_VERDICT_OFF_QUANTILE;
    if (neg_mass(v) > GT_VERDICT_MAX_NEG_MASS)
        v->flags |= GT_VERDICT_NEG_MASS;
    if (v->window && v->m < v->window)
        v->flags |= GT_VERDICT_NOT_FULL;
    if (!isfinite(v->chi2) && !isnan(v->chi2))
        v->flags |= GT_VERDICT_NO_INDEX;
}

unsigned gt_verdict_flags(const struct gt_model *model, const double *p, double ks, double chi2,
                          const struct gt_quantile_bounds *b,
                          const struct gt_verdict_limits *lim)
{
    struct gt_verdict v = {.model = model, .p = {p[0], p[1]}, .ks = ks, .chi2 = chi2,
                           .bounds = b};
    gt_verdict_check(&v, lim);
    return v.flags;
}

int gt_verdict_lines(const struct gt_verdict *v, const struct gt_verdict_limits *lim,
                     char (*out)[GT_VERDICT_LINE], int max)
{
    int n = 0;
    if ((v->flags & GT_VERDICT_OFF_QUANTILE) && n < max) {
        const struct gt_quantile_bounds *b = v->bounds;
        bool hi_max = b->hi_max >> v->off & 1;
        snprintf(out[n++], GT_VERDICT_LINE, "quantiles off: the %s's p%g %.4g ms is outside "
                 "the window's %.4g-%.4g ms (%g%% bounds%s, %g%% margin)", v->model->name,
                 100 * gt_verdict_levels[v->off], v->off_q, b->lo[v->off], b->hi[v->off],
                 100 * GT_VERDICT_CONFIDENCE, hi_max ? "; above, its largest sample" : "",
                 100 * lim->margin);
    }
    if ((v->flags & GT_VERDICT_POOR_FIT) && n < max)
        snprintf(out[n++], GT_VERDICT_LINE, "poor fit: the %s's KS distance %.3g is above %.3g "
                 "(information: its quantiles decide)", v->model->name, v->ks, lim->max_ks);
    if ((v->flags & GT_VERDICT_NEG_MASS) && n < max)
        snprintf(out[n++], GT_VERDICT_LINE, "impossible values: the normal puts %.1f%% of its mass "
                 "below 0 ms", 100 * neg_mass(v));
    if ((v->flags & GT_VERDICT_NOT_FULL) && n < max)
        snprintf(out[n++], GT_VERDICT_LINE, "the window is not full: %zu of %zu samples", v->m,
                 v->window);
    if ((v->flags & GT_VERDICT_NO_INDEX) && n < max)
        snprintf(out[n++], GT_VERDICT_LINE, "no finite fit index: the %s puts no mass where two "
                 "samples are", v->model->name);
    return n;
}
