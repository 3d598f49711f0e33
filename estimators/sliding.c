/*
 * sliding.c - O(1) amortized sliding-window parameters.
 *
 * Each value enters and leaves the running sums once, with Neumaier
 * compensation.  The sums of x are taken about a reference value near the
 * window's mean, so sum x^2 - (sum x)^2 / m does not cancel for tight
 * distributions; every m steps the sums are rebuilt from the window about
 * its current mean (O(m) every m steps: still O(1) amortized), which also
 * stops rounding error from accumulating over long series.
 */
#include "sliding.h"
#include "fit.h"
#include "base/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A deque of sample numbers whose values are monotonic, each with its
 * value (no ring lookup, so no division, on the hot path). */
struct deque {
    size_t *idx;
    double *val;
    size_t head, len, cap;
};

struct gt_slider {
    size_t m;
    double *ring;           /* values by sample number mod m */
    double *lring;          /* their logarithms (0 for a 0 ms sample) */
    size_t pos;             /* pushed mod m: where the next sample goes */
    size_t pushed;          /* sample numbers 0 .. pushed-1 */
    double last, ref;
    bool have_last;
    struct gt_ksum sum_log, sum, sum2;   /* sum_log over positive samples */
    size_t zeros;                     /* samples of 0 in the window */
    struct deque mins, maxs;
    double *sorted;         /* the window ascending (gt_slider_keep_sorted), */
    double *lsorted;        /* and its lring values ascending */
};

struct gt_slider *gt_slider_new(size_t m)
{
    if (m < 2)
        return NULL;
    struct gt_slider *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->m = m;
    s->ring = malloc(m * sizeof *s->ring);
    s->lring = malloc(m * sizeof *s->lring);
    s->mins.cap = s->maxs.cap = m + 1;
    s->mins.idx = malloc(s->mins.cap * sizeof(size_t));
    s->maxs.idx = malloc(s->maxs.cap * sizeof(size_t));
    s->mins.val = malloc(s->mins.cap * sizeof(double));
    s->maxs.val = malloc(s->maxs.cap * sizeof(double));
    if (!s->ring || !s->lring || !s->mins.idx || !s->maxs.idx || !s->mins.val ||
        !s->maxs.val) {
        gt_slider_free(s);
        return NULL;
    }
    return s;
}

void gt_slider_reset(struct gt_slider *s)
{
    s->pushed = s->pos = s->zeros = 0;
    s->last = s->ref = 0;
    s->have_last = false;
    s->sum_log = s->sum = s->sum2 = (struct gt_ksum){0, 0};
    s->mins.head = s->mins.len = s->maxs.head = s->maxs.len = 0;
}

void gt_slider_free(struct gt_slider *s)
{
    if (!s)
        return;
    free(s->ring);
    free(s->lring);
    free(s->mins.idx);
    free(s->maxs.idx);
    free(s->mins.val);
    free(s->maxs.val);
    free(s->sorted);
    free(s->lsorted);
    free(s);
}

/* Slot of the i-th element (i <= len < cap, head < cap). */
static size_t dq_slot(const struct deque *d, size_t i)
{
    size_t j = d->head + i;
    return j >= d->cap ? j - d->cap : j;
}

/* Push sample number n of value v, dropping from the back those it
 * dominates. */
static void dq_push(struct deque *d, size_t n, double v, bool is_min)
{
    while (d->len) {
        double back = d->val[dq_slot(d, d->len - 1)];
        if (is_min ? back < v : back > v)
            break;
        d->len--;
    }
    size_t j = dq_slot(d, d->len);
    d->idx[j] = n;
    d->val[j] = v;
    d->len++;
}

static void dq_expire(struct deque *d, size_t oldest)
{
    while (d->len && d->idx[d->head] < oldest) {
        d->head = d->head + 1 == d->cap ? 0 : d->head + 1;
        d->len--;
    }
}

/* Rebuild the sums exactly from the window, about its mean. */
/* Called when the ring is full and its slot 0 holds the oldest sample,
 * so ring order is sample order. */
static void rebase(struct gt_slider *s)
{
    size_t m = s->m;
    double mean = 0;
    for (size_t i = 0; i < m; i++)
        mean += s->ring[i];
    mean /= (double)m;
    s->ref = mean;
    s->sum = s->sum2 = s->sum_log = (struct gt_ksum){0, 0};
    s->zeros = 0;
    for (size_t i = 0; i < m; i++) {
        double v = s->ring[i];
        gt_ksum_add(&s->sum, v - mean);
        gt_ksum_add(&s->sum2, (v - mean) * (v - mean));
        if (v > 0)
            gt_ksum_add(&s->sum_log, s->lring[i]);
        else
            s->zeros++;
    }
}

bool gt_slider_keep_sorted(struct gt_slider *s)
{
    if (!s->sorted && !(s->sorted = malloc(s->m * sizeof *s->sorted)))
        return false;
    if (!s->lsorted && !(s->lsorted = malloc(s->m * sizeof *s->lsorted)))
        return false;
    return s->pushed == 0;
}

const double *gt_slider_sorted(const struct gt_slider *s)
{
    return s->sorted;
}

const double *gt_slider_sorted_logs(const struct gt_slider *s)
{
    return s->lsorted && !s->zeros ? s->lsorted : NULL;
}

bool gt_slider_push(struct gt_slider *s, double x)
{
    if (isnan(x)) {
        if (!s->have_last)
            return false;
        x = s->last;
    }
    if (!s->have_last)
        s->ref = x;
    s->last = x;
    s->have_last = true;
    size_t n = s->pushed++, at = s->pos;
    s->pos = at + 1 == s->m ? 0 : at + 1;
    /* the same x as before (a held or lost sample): the same logarithm */
    double lx = n && x == s->ring[at ? at - 1 : s->m - 1] ? s->lring[at ? at - 1 : s->m - 1]
              : x > 0 ? log(x) : 0;
    if (s->sorted) {
        if (n >= s->m) {
            gt_sorted_replace(s->sorted, s->m, s->ring[at], x);
            gt_sorted_replace(s->lsorted, s->m, s->lring[at], lx);
        } else {
            gt_sorted_insert(s->sorted, n, x);
            gt_sorted_insert(s->lsorted, n, lx);
        }
    }
    if (n >= s->m) {
        double old = s->ring[at];
        if (old > 0)
            gt_ksum_add(&s->sum_log, -s->lring[at]);
        else
            s->zeros--;
        gt_ksum_add(&s->sum, -(old - s->ref));
        gt_ksum_add(&s->sum2, -(old - s->ref) * (old - s->ref));
    }
    s->ring[at] = x;
    s->lring[at] = lx;
    if (x > 0)
        gt_ksum_add(&s->sum_log, lx);
    else
        s->zeros++;
    gt_ksum_add(&s->sum, x - s->ref);
    gt_ksum_add(&s->sum2, (x - s->ref) * (x - s->ref));
    size_t oldest = s->pushed > s->m ? s->pushed - s->m : 0;
    dq_expire(&s->mins, oldest);
    dq_expire(&s->maxs, oldest);
    dq_push(&s->mins, n, x, true);
    dq_push(&s->maxs, n, x, false);
    if (s->pos == 0)
        rebase(s);
    return true;
}

size_t gt_slider_count(const struct gt_slider *s)
{
    return s->pushed < s->m ? s->pushed : s->m;
}

void gt_slider_params(const struct gt_slider *s, struct gt_slider_params *p)
{
    size_t m = gt_slider_count(s);
    double md = (double)m;
    p->m = m;
    p->min = m ? s->mins.val[s->mins.head] : NAN;
    p->max = m ? s->maxs.val[s->maxs.head] : NAN;
    p->degenerate = m > 0 && p->min == p->max;
    double sum = gt_ksum_get(&s->sum), sum2 = gt_ksum_get(&s->sum2);
    p->mu = s->ref + sum / md;
    double ss = sum2 - sum * sum / md;
    p->sigma = p->degenerate || m < 2 ? 0 : sqrt(ss > 0 ? ss / (md - 1) : 0);
    p->k = p->min;
    /* a 0 ms sample leaves Pareto without a location: alpha is NAN */
    p->alpha = p->degenerate ? INFINITY
               : s->zeros ? NAN : gt_pareto_alpha(md, gt_ksum_get(&s->sum_log), log(p->min));
}

/* Copy ring's window, oldest first, in at most two pieces. */
static void copy_window(const struct gt_slider *s, const double *ring, double *out)
{
    size_t m = gt_slider_count(s), first = (s->pushed - m) % s->m;
    size_t head = s->m - first < m ? s->m - first : m;
    memcpy(out, ring + first, head * sizeof *out);
    memcpy(out + head, ring, (m - head) * sizeof *out);
}

void gt_slider_window(const struct gt_slider *s, double *out)
{
    copy_window(s, s->ring, out);
}

bool gt_slider_window_logs(const struct gt_slider *s, double *out)
{
    if (s->zeros)
        return false;
    copy_window(s, s->lring, out);
    return true;
}

/* A saved state: this, then the window's samples oldest first.  The
 * rest is rebuilt from them exactly: each logarithm is log() of its
 * sample (as push takes it), the sorted copies are the samples sorted,
 * and the deques are what pushing the window's samples in order leaves
 * (each holds the window's suffix minima or maxima, the latest of equals). */
struct saved {
    uint64_t m, pushed, have_last, has_sorted, count;
    double last, ref;
    struct gt_ksum sum_log, sum, sum2;
};

size_t gt_slider_state_size(const struct gt_slider *s)
{
    return sizeof(struct saved) + gt_slider_count(s) * sizeof(double);
}

void gt_slider_state_save(const struct gt_slider *s, void *buf)
{
    struct saved h = {s->m, s->pushed, s->have_last, s->sorted != NULL, gt_slider_count(s),
                      s->last, s->ref, s->sum_log, s->sum, s->sum2};
    memcpy(buf, &h, sizeof h);
    copy_window(s, s->ring, (double *)((char *)buf + sizeof h));
}

bool gt_slider_state_load(struct gt_slider *s, const void *buf, size_t len)
{
    struct saved h;
    if (len < sizeof h)
        return false;
    memcpy(&h, buf, sizeof h);
    if (h.m != s->m || h.has_sorted != (s->sorted != NULL) || h.count > s->m ||
        h.count != (h.pushed < s->m ? h.pushed : s->m) ||
        len != sizeof h + h.count * sizeof(double))
        return false;
    const char *p = (const char *)buf + sizeof h;
    size_t n = (size_t)h.count, first = (size_t)h.pushed - n;
    s->pushed = (size_t)h.pushed;
    s->pos = s->pushed % s->m;
    s->have_last = h.have_last;
    s->last = h.last, s->ref = h.ref;
    s->sum_log = h.sum_log, s->sum = h.sum, s->sum2 = h.sum2;
    s->zeros = 0;
    s->mins.head = s->mins.len = s->maxs.head = s->maxs.len = 0;
    for (size_t i = 0; i < n; i++) {
        double x;
        memcpy(&x, p + i * sizeof x, sizeof x);
        size_t at = (first + i) % s->m;
        s->ring[at] = x;
        s->lring[at] = x > 0 ? log(x) : 0;
        s->zeros += !(x > 0);
        dq_push(&s->mins, first + i, x, true);
        dq_push(&s->maxs, first + i, x, false);
        if (s->sorted) {
            s->sorted[i] = x;
            s->lsorted[i] = s->lring[at];
        }
    }
    if (s->sorted) {
        qsort(s->sorted, n, sizeof *s->sorted, gt_cmp_double);
        qsort(s->lsorted, n, sizeof *s->lsorted, gt_cmp_double);
    }
    return true;
}
