/*
 * tracker.h - choosing or combining forecasters by their tracked errors,
 * as the Network Weather Service chose (METHOD.md section 5, adaptive
 * selection) and as forecast combination weighs them (Bates and Granger
 * 1969; METHOD.md section 5, "Combined").
 *
 * A tracker follows k forecasting methods for one series and one lead
 * time: each outcome that becomes known adds every method's error
 * (predicted - actual).  Over the last H known outcomes (or all of them)
 * it keeps the second moments of the errors, sum e_i e_j: the best method
 * is the one whose mean squared error is smallest, and the combination
 * weights are those of the smallest mean squared error of a convex
 * combination.  The caller decides when an outcome is known (no
 * look-ahead is the caller's rule: a prediction made at t' for t' + tau
 * is added only once t' + tau has been observed).
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

/* One known outcome: e[j] is method j's error, predicted - actual.  An
 * outcome where some method had no prediction (a non-finite e[j]) is not
 * counted, so the methods are always compared on the same outcomes. */
void gt_tracker_add(struct gt_tracker *t, const double *e);

/* Outcomes counted now (at most the horizon). */
size_t gt_tracker_count(const struct gt_tracker *t);

/* The method with the smallest mean squared error over the counted
 * outcomes (the first of equal ones), and that error's root into *rmse;
 * -1 (and *rmse NAN) before any outcome is known. */
int gt_tracker_best(const struct gt_tracker *t, double *rmse);

/* The same among the methods j with use[j] (NULL: all); -1 when none. */
int gt_tracker_best_of(const struct gt_tracker *t, const bool *use, double *rmse);

/* Method j's root mean squared error over the counted outcomes (NAN
 * before any). */
double gt_tracker_rmse(const struct gt_tracker *t, int j);

/* Combination weights w[0..k-1] (>= 0, summing to 1 over the methods use
 * allows; 0 for the others; use NULL: all) minimizing the mean squared
 * error of sum_j w_j f_j over the counted outcomes, with the errors'
 * second-moment matrix S shrunk towards its diagonal: (1 - shrink) S +
 * shrink diag(S) (its diagonal raised by 1e-12 of itself, so that errors
 * exactly proportional to each other still combine).  shrink 1
 * gives weights in inverse proportion to the mean squared errors; 0 the
 * least-squares convex combination.  Equal weights before any outcome; a
 * method without error takes all the weight (the first of several).
 * shrink in [0, 1]; all w 0 when use allows none. */
void gt_tracker_weights(const struct gt_tracker *t, double shrink, const bool *use, double *w);

#endif
