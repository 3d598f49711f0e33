/*
 * tracker.c - forecaster selection and combination by tracked errors.
 *
 * The sums over the horizon slide: each new outcome adds its products of
 * errors and the one H outcomes older leaves.  Squared errors span many
 * decades (a spike of 10 s squared beside 1 ms squared), so the sums are
 * compensated and recomputed from the ring every H outcomes, or a
 * departed spike would leave its rounding behind.
 *
 * The combination weights minimize w'Aw over the simplex, A the shrunk
 * second moments.  With at most 8 methods every support set is tried:
 * on a support S the stationary point is w_S = A_S^-1 1 / 1'A_S^-1 1, of
 * value 1 / 1'A_S^-1 1; the minimum over the simplex is the smallest
 * value among the supports whose w_S is nonnegative (the KKT point of
 * the convex problem is one of them).  No iteration, no tolerance.
 */
#include "tracker.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K GT_TRACK_MAX_METHODS

struct gt_tracker {
    int k;
    size_t horizon;        /* 0: all outcomes */
    size_t count;          /* outcomes added */
    double *ring;          /* horizon x k errors, oldest overwritten */
    struct gt_ksum sum[K][K];   /* sum e_i e_j, i <= j */
};

struct gt_tracker *gt_tracker_new(int k, size_t horizon)
{
    if (k < 1 || k > K || horizon > GT_TRACK_MAX_HORIZON)
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

static void add_products(struct gt_tracker *t, const double *e, double sign)
{
    for (int i = 0; i < t->k; i++)
        for (int j = i; j < t->k; j++)
            gt_ksum_add(&t->sum[i][j], sign * e[i] * e[j]);
}

static void resum(struct gt_tracker *t)
{
    size_t n = gt_tracker_count(t);
    memset(t->sum, 0, sizeof t->sum);
    for (size_t r = 0; r < n; r++)
        add_products(t, t->ring + r * (size_t)t->k, 1);
}

void gt_tracker_add(struct gt_tracker *t, const double *e)
{
    for (int j = 0; j < t->k; j++)
        if (!isfinite(e[j]) || !isfinite(e[j] * e[j]))
            return;
    if (!t->horizon) {
        add_products(t, e, 1);
        t->count++;
        return;
    }
    double *slot = t->ring + (t->count % t->horizon) * (size_t)t->k;
    if (t->count >= t->horizon)
        add_products(t, slot, -1);
    add_products(t, e, 1);
    memcpy(slot, e, (size_t)t->k * sizeof *e);
    t->count++;
    if (t->count % t->horizon == 0)
        resum(t);
}

size_t gt_tracker_count(const struct gt_tracker *t)
{
    return t->horizon && t->count > t->horizon ? t->horizon : t->count;
}

static double sq_sum(const struct gt_tracker *t, int j)
{
    double s = gt_ksum_get(&t->sum[j][j]);
    return s > 0 ? s : 0;
}

double gt_tracker_rmse(const struct gt_tracker *t, int j)
{
    size_t n = gt_tracker_count(t);
    if (!n || j < 0 || j >= t->k)
        return NAN;
    return sqrt(sq_sum(t, j) / (double)n);
}

int gt_tracker_best(const struct gt_tracker *t, double *rmse)
{
    return gt_tracker_best_of(t, NULL, rmse);
}

int gt_tracker_best_of(const struct gt_tracker *t, const bool *use, double *rmse)
{
    int best = -1;
    double low = INFINITY;
    for (int j = 0; gt_tracker_count(t) && j < t->k; j++) {
        if (use && !use[j])
            continue;
        double s = sq_sum(t, j);
        if (best < 0 || s < low)
            best = j, low = s;
    }
    if (rmse)
        *rmse = best < 0 ? NAN : gt_tracker_rmse(t, best);
    return best;
}

/* Solve A x = 1 for the n x n symmetric a (row stride K) by Cholesky;
 * false when a is not positive definite. */
static bool solve_ones(double a[K][K], int n, double *x)
{
    double l[K][K] = {{0}};
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = a[i][j];
            for (int p = 0; p < j; p++)
                s -= l[i][p] * l[j][p];
            if (i == j) {
                if (!(s > 1e-13 * a[i][i]))
                    return false;
                l[i][i] = sqrt(s);
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    double y[K];
    for (int i = 0; i < n; i++) {
        double s = 1;
        for (int p = 0; p < i; p++)
            s -= l[i][p] * y[p];
        y[i] = s / l[i][i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = y[i];
        for (int p = i + 1; p < n; p++)
            s -= l[p][i] * x[p];
        x[i] = s / l[i][i];
    }
    return true;
}

/* The stationary point on support mask: its value, or INFINITY when it
 * is not in the simplex; its weights into w. */
static double support_value(double a[K][K], int k, unsigned mask, double *w)
{
    int idx[K], n = 0;
    double sub[K][K], x[K];
    for (int j = 0; j < k; j++)
        if (mask >> j & 1)
            idx[n++] = j;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            sub[i][j] = a[idx[i]][idx[j]];
    if (!solve_ones(sub, n, x))
        return INFINITY;
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (!(x[i] >= 0))
            return INFINITY;
        s += x[i];
    }
    if (!(s > 0))
        return INFINITY;
    for (int j = 0; j < k; j++)
        w[j] = 0;
    for (int i = 0; i < n; i++)
        w[idx[i]] = x[i] / s;
    return 1 / s;
}

void gt_tracker_weights(const struct gt_tracker *t, double shrink, const bool *use, double *w)
{
    int k = t->k, nuse = 0;
    unsigned allowed = 0;
    for (int j = 0; j < k; j++)
        if (!use || use[j])
            allowed |= 1u << j, nuse++;
    for (int j = 0; j < k; j++)
        w[j] = !gt_tracker_count(t) && (allowed >> j & 1) ? 1.0 / nuse : 0;
    if (!gt_tracker_count(t) || !nuse)
        return;
    double a[K][K], top = 0;
    for (int j = 0; j < k; j++)
        top = fmax(top, (allowed >> j & 1) ? sq_sum(t, j) : 0);
    for (int j = 0; j < k; j++)
        if ((allowed >> j & 1) && !(sq_sum(t, j) > 1e-300 * top)) {
            w[j] = 1;   /* no error at all: nothing to combine with */
            return;
        }
    for (int i = 0; i < k; i++)
        for (int j = i; j < k; j++) {
            double s = (i == j ? sq_sum(t, i) * (1 + 1e-12)
                               : (1 - shrink) * gt_ksum_get(&t->sum[i][j])) / top;
            a[i][j] = a[j][i] = s;
        }
    double best = INFINITY, cand[K];
    for (unsigned mask = 1; mask < 1u << k; mask++) {
        if (mask & ~allowed)
            continue;
        double v = support_value(a, k, mask, cand);
        if (v < best) {
            best = v;
            memcpy(w, cand, (size_t)k * sizeof *w);
        }
    }
}
