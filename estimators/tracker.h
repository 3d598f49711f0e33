/*
 * tracker.h - choosing a forecaster by its tracked error, as the Network
 * Weather Service did (METHOD.md section 3, adaptive selection).
 *
 * A tracker follows k forecasting methods for one series and one lead
 * time: each outcome that becomes known adds every method's squared
 * error, and the best method is the one whose mean squared error over
 * the last H known outcomes (or all of them) is smallest.  The caller
 * decides when an outcome is known (no look-ahead is the caller's rule:
 * a prediction made at t' for t' + tau is added only once t' + tau has
 * been observed).
 */
#ifndef GT_TRACKER_H
#define GT_TRACKER_H

#include <stdbool.h>
#include <stddef.h>

#define GT_TRACK_MAX_METHODS 8
#define GT_TRACK_MAX_HORIZON 1000000

struct gt_tracker;

/* A tracker of k (1..GT_TRACK_MAX_METHODS) methods over the last horizon
 * outcomes (0: all of them; at most GT_TRACK_MAX_HORIZON).  NULL on ENOMEM
 * or a bad argument. */
struct gt_tracker *gt_tracker_new(int k, size_t horizon);
void gt_tracker_free(struct gt_tracker *t);

/* One known outcome: sq[j] is method j's squared error.  An outcome where
 * some method had no prediction (a non-finite sq[j]) is not counted, so
 * the methods are always compared on the same outcomes. */
void gt_tracker_add(struct gt_tracker *t, const double *sq);

/* Outcomes counted now (at most the horizon). */
size_t gt_tracker_count(const struct gt_tracker *t);

/* The method with the smallest mean squared error over the counted
 * outcomes (the first of equal ones), and that error's root into *rmse;
 * -1 (and *rmse NAN) before any outcome is known. */
int gt_tracker_best(const struct gt_tracker *t, double *rmse);

/* Method j's root mean squared error over the counted outcomes (NAN
 * before any). */
double gt_tracker_rmse(const struct gt_tracker *t, int j);

#endif
