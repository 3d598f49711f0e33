/*
 * sliding.h - Pareto and normal parameters over a sliding window of the
 * last m samples in O(1) amortized per step (METHOD.md section 1.1):
 * monotonic deques for the window minimum and maximum, and compensated
 * running sums of ln x, x and x^2 (taken about the first sample, so the
 * variance does not cancel away).  Lost samples (NAN) take the previous
 * valid value, as in gt_fit_window; leading lost samples are skipped.
 */
#ifndef GT_SLIDING_H
#define GT_SLIDING_H

#include <stdbool.h>
#include <stddef.h>

struct gt_slider;

/* A slider for windows of m >= 2 samples; caller frees. NULL on ENOMEM. */
struct gt_slider *gt_slider_new(size_t m);
void gt_slider_free(struct gt_slider *s);

/* Empty the window, as gt_slider_new left it (same m, no allocation). */
void gt_slider_reset(struct gt_slider *s);

/* Add the next sample (NAN = lost).  Returns false if it was skipped
 * (a leading lost sample). */
bool gt_slider_push(struct gt_slider *s, double x);

/* Samples in the window now (<= m). */
size_t gt_slider_count(const struct gt_slider *s);

struct gt_slider_params {
    size_t m;
    double min, max;
    double k, alpha;     /* alpha = INFINITY when every sample is equal,
                            NAN when a sample is 0 (no Pareto) */
    double mu, sigma;
    bool degenerate;     /* min == max: a delta */
};

void gt_slider_params(const struct gt_slider *s, struct gt_slider_params *p);

/* Copy the window, oldest first, into out (count doubles). */
void gt_slider_window(const struct gt_slider *s, double *out);

/* Copy the natural logarithms of the window's samples, oldest first, into
 * out: the very values log() gives, each computed once when its sample
 * came in.  False (out untouched) when a sample is 0 (log -inf: the
 * caller takes its own). */
bool gt_slider_window_logs(const struct gt_slider *s, double *out);

/* Keep the window sorted too, from now on (the slider must be empty):
 * O(m) per push in memory moves instead of an O(m) selection or an
 * O(m log m) sort per question, for windows asked for order statistics
 * at every step.  False on ENOMEM. */
bool gt_slider_keep_sorted(struct gt_slider *s);

/* The window ascending (count doubles), or NULL when not kept sorted. */
const double *gt_slider_sorted(const struct gt_slider *s);

/* The logarithms gt_slider_window_logs gives, ascending, or NULL when not
 * kept sorted or a sample is 0. */
const double *gt_slider_sorted_logs(const struct gt_slider *s);

/* A slider's whole state as bytes, so that a replay suspended between two
 * samples goes on later exactly as if it had never stopped (the running
 * sums carry their own rounding: refilling the window would not give the
 * same bits).  gt_slider_state_size bytes go to buf; gt_slider_state_load
 * reads them into s, made with the same m (false, s untouched, when the
 * bytes are not a state of a slider of s's m and sortedness). */
size_t gt_slider_state_size(const struct gt_slider *s);
void gt_slider_state_save(const struct gt_slider *s, void *buf);
bool gt_slider_state_load(struct gt_slider *s, const void *buf, size_t len);

#endif
