/*
 * tracker.c - forecaster selection by tracked squared error.
 *
 * The sums over the horizon slide: each new outcome adds its errors and
 * the one H outcomes older leaves.  Squared errors span many decades (a
 * spike of 10 s squared beside 1 ms squared), so the sums are compensated
 * and recomputed from the ring every H outcomes, or a departed spike
 * would leave its rounding behind.
 */
#include "tracker.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

struct gt_tracker {
    int k;
    size_t horizon;        /* 0: all outcomes */
    size_t count;          /* outcomes added */
    double *ring;          /* horizon x k squared errors, oldest overwritten */
    struct gt_ksum sum[GT_TRACK_MAX_METHODS];
};

struct gt_tracker *gt_tracker_new(int k, size_t horizon)
{
    if (k < 1 || k > GT_TRACK_MAX_METHODS || horizon > GT_TRACK_MAX_HORIZON)
        return NULL;
    struct gt_tracker *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->k = k;
    t->horizon = horizon;
    if (horizon && !(t->ring = malloc(horizon * (size_t)k * sizeof *t->ring))) {
        free(t);
        return NULL;
    }
    return t;
}

void gt_tracker_free(struct gt_tracker *t)
{
    if (!t)
        return;
    free(t->ring);
    free(t);
}

static void resum(struct gt_tracker *t)
{
    size_t n = gt_tracker_count(t);
    for (int j = 0; j < t->k; j++) {
        t->sum[j] = (struct gt_ksum){0, 0};
        for (size_t i = 0; i < n; i++)
            gt_ksum_add(&t->sum[j], t->ring[i * (size_t)t->k + (size_t)j]);
    }
}

void gt_tracker_add(struct gt_tracker *t, const double *sq)
{
    for (int j = 0; j < t->k; j++)
        if (!isfinite(sq[j]))
            return;
    if (!t->horizon) {
        for (int j = 0; j < t->k; j++)
            gt_ksum_add(&t->sum[j], sq[j]);
        t->count++;
        return;
    }
    double *slot = t->ring + (t->count % t->horizon) * (size_t)t->k;
    bool full = t->count >= t->horizon;
    for (int j = 0; j < t->k; j++) {
        if (full)
            gt_ksum_add(&t->sum[j], -slot[j]);
        gt_ksum_add(&t->sum[j], sq[j]);
        slot[j] = sq[j];
    }
    t->count++;
    if (t->count % t->horizon == 0)
        resum(t);
}

size_t gt_tracker_count(const struct gt_tracker *t)
{
    return t->horizon && t->count > t->horizon ? t->horizon : t->count;
}

double gt_tracker_rmse(const struct gt_tracker *t, int j)
{
    size_t n = gt_tracker_count(t);
    if (!n || j < 0 || j >= t->k)
        return NAN;
    double s = gt_ksum_get(&t->sum[j]);
    return sqrt((s > 0 ? s : 0) / (double)n);
}

int gt_tracker_best(const struct gt_tracker *t, double *rmse)
{
    int best = -1;
    double low = INFINITY;
    for (int j = 0; gt_tracker_count(t) && j < t->k; j++) {
        double s = gt_ksum_get(&t->sum[j]);
        if (best < 0 || s < low)
            best = j, low = s;
    }
    if (rmse)
        *rmse = best < 0 ? NAN : gt_tracker_rmse(t, best);
    return best;
}
