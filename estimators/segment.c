/*
 * segment.c - PELT with a minimum segment length on winsorized log RTT
 * (segment.h).
 *
 * f[t] is the least cost of the first t valid samples cut into segments
 * of at least L (f[0] = -beta); f[t] = min over the candidate last
 * changes s of f[s] + C(s, t) + beta, C the segment's sum of squares
 * about its mean (from prefix sums).  Candidates: 0 and L..t-L.  A
 * candidate s with f[s] + C(s, t) > f[t] can never be the last change of
 * a u >= t + L (C(s, t) + C(t, u) <= C(s, u)), so it is dropped when t
 * becomes a candidate: Killick et al.'s pruning, which keeps the
 * candidates few when changes keep coming.  When no change comes for long
 * (a flat path, whose candidates all stay within beta of the best) at
 * most MAX_CAND are kept, those of least f[s] + C(s, t): time O(n
 * MAX_CAND) at worst, and the same changes as the exact search in every
 * test and on every evaluation trace.
 * The values are centred on the series' median before the sums, so that
 * the sums of a long flat series do not cancel.
 */
#include "segment.h"

#include "base/error.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct gt_seg_opts gt_seg_defaults = {800, 4};

#define HALF 3        /* the local median: of the 2 HALF + 1 samples around */
#define CLIP 3.0      /* winsorized at this many sigmas from it */
#define MIN_SIGMA 1e-4
#define MAX_CAND 512  /* candidates kept at most (the best by f[s] + C(s, t)) */

static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, gt_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* m[i]: the median of y's samples within HALF of i. */
static void local_median(const double *y, double *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double w[2 * HALF + 1];
        size_t lo = i < HALF ? 0 : i - HALF, hi = i + HALF + 1 < n ? i + HALF + 1 : n, k = 0;
        for (size_t j = lo; j < hi; j++)
            w[k++] = y[j];
        m[i] = median_of(w, k);
    }
}

struct work {
    double *y, *s1, *s2, *f;
    size_t *orig, *last, *cand;
    double *val;              /* the candidates' f[s] + C(s, t) */
};

static void work_free(struct work *w)
{
    free(w->y), free(w->s1), free(w->s2), free(w->f);
    free(w->orig), free(w->last), free(w->cand), free(w->val);
}

/* The valid samples' log RTT, winsorized and scaled by sigma, as prefix
 * sums s1 (values) and s2 (squares) over m samples. */
static void prefix_sums(struct work *w, size_t m)
{
    double *y = w->y, *med = w->s1, *dev = w->s2;
    local_median(y, med, m);
    for (size_t i = 0; i < m; i++)
        dev[i] = fabs(y[i] - med[i]);
    double sigma = fmax(1.4826 * median_of(dev, m), MIN_SIGMA);
    for (size_t i = 0; i < m; i++)
        y[i] = fmin(med[i] + CLIP * sigma, fmax(med[i] - CLIP * sigma, y[i]));
    memcpy(dev, y, m * sizeof *y);
    double center = median_of(dev, m);
    w->s1[0] = w->s2[0] = 0;
    for (size_t i = 0; i < m; i++) {
        double v = (y[i] - center) / sigma;
        w->s1[i + 1] = w->s1[i] + v;
        w->s2[i + 1] = w->s2[i] + v * v;
    }
}

static double cost(const struct work *w, size_t s, size_t t)
{
    double sum = w->s1[t] - w->s1[s];
    return w->s2[t] - w->s2[s] - sum * sum / (double)(t - s);
}

struct ranked {
    double v;
    size_t s;
};

static int by_value(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->v != y->v)
        return (x->v > y->v) - (x->v < y->v);
    return (x->s > y->s) - (x->s < y->s);
}

static int by_place(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    return (x->s > y->s) - (x->s < y->s);
}

/* Keeps the MAX_CAND candidates of least f[s] + C(s, t), in order. */
static size_t cap_candidates(struct work *w, size_t nc, struct ranked *r)
{
    for (size_t c = 0; c < nc; c++)
        r[c] = (struct ranked){w->val[c], w->cand[c]};
    qsort(r, nc, sizeof *r, by_value);
    qsort(r, MAX_CAND, sizeof *r, by_place);
    for (size_t c = 0; c < MAX_CAND; c++)
        w->cand[c] = r[c].s;
    return MAX_CAND;
}

int gt_segment(const double *rtt, size_t n, const struct gt_seg_opts *o, size_t *at,
               size_t *nat)
{
    if (!o)
        o = &gt_seg_defaults;
    *nat = 0;
    if (!(o->penalty > 0 && isfinite(o->penalty)) || o->min_len < 1 || o->min_len > 1000)
        return GT_EUSAGE;
    size_t cap = n + 1, m = 0, L = (size_t)o->min_len;
    struct work w = {malloc(cap * sizeof(double)), malloc(cap * sizeof(double)),
                     malloc(cap * sizeof(double)), malloc(cap * sizeof(double)),
                     malloc(cap * sizeof(size_t)), malloc(cap * sizeof(size_t)),
                     malloc(cap * sizeof(size_t)), malloc(2 * MAX_CAND * sizeof(double))};
    struct ranked *r = malloc(2 * MAX_CAND * sizeof *r);
    if (!w.y || !w.s1 || !w.s2 || !w.f || !w.orig || !w.last || !w.cand || !w.val || !r) {
        free(r);
        work_free(&w);
        return GT_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        if (rtt[i] > 0 && isfinite(rtt[i]))
            w.orig[m] = i, w.y[m++] = log(rtt[i]);
    if (m < 2 * L) {
        free(r);
        work_free(&w);
        return GT_OK;
    }
    prefix_sums(&w, m);
    double beta = o->penalty * log((double)m);
    size_t nc = 1;
    w.cand[0] = 0;
    w.f[0] = -beta;
    w.last[0] = 0;
    for (size_t t = 1; t < L; t++)
        w.f[t] = INFINITY, w.last[t] = 0;
    for (size_t t = L; t <= m; t++) {
        if (t >= 2 * L) {
            /* t0 = t - L becomes the newest place a last change may be;
               first drop the candidates that t0 beats for good: those
               with f[s] + C(s, t0) > f[t0] (decided at t0 but applied
               only now, as t0 is not a place for a t < t0 + L) */
            size_t t0 = t - L, keep = 0;
            for (size_t c = 0; c < nc; c++) {
                double v = w.f[w.cand[c]] + cost(&w, w.cand[c], t0);
                if (v <= w.f[t0])
                    w.val[keep] = v, w.cand[keep++] = w.cand[c];
            }
            nc = keep;
            if (nc == 2 * MAX_CAND - 1)
                nc = cap_candidates(&w, nc, r);
            w.cand[nc++] = t0;
        }
        double best = INFINITY;
        size_t arg = 0;
        for (size_t c = 0; c < nc; c++) {
            double v = w.f[w.cand[c]] + cost(&w, w.cand[c], t) + beta;
            if (v < best)
                best = v, arg = w.cand[c];
        }
        w.f[t] = best;
        w.last[t] = arg;
    }
    size_t k = 0;
    for (size_t t = m; t > 0 && w.last[t] > 0; t = w.last[t])
        at[k++] = w.orig[w.last[t]];
    for (size_t i = 0; i < k / 2; i++) {
        size_t tmp = at[i];
        at[i] = at[k - 1 - i], at[k - 1 - i] = tmp;
    }
    *nat = k;
    free(r);
    work_free(&w);
    return GT_OK;
}
