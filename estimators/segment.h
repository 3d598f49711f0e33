/*
 * segment.h - the offline segmentation of one whole RTT series into
 * levels (route changes), for the series plot and the dashboard
 * (METHOD.md 6, "Offline segmentation"); estimators/changepoint.h is the
 * online detector behind the event list and alerts.
 *
 * PELT (Killick, Fearnhead and Eckley, JASA 2012) with a minimum segment
 * length, on log RTT with lost samples dropped and each sample kept
 * within 3 sigma of the median of the 7 around it (winsorized): the
 * segmentation minimizes the sum over segments of sum (z - segment
 * mean)^2 / sigma^2, plus beta = penalty x ln n for each change, sigma
 * the jitter of the series (1.4826 MAD of the samples' distances to their
 * local median, at least 0.01 %), n the valid samples.  Every segment
 * holds at least min_len valid samples, so with min_len 4 a spike of 1 to
 * 3 samples is never a segment of its own, however tall.
 *
 * The penalty is large in these units (800 ln n, where BIC's would be 2
 * ln n) because sigma is the sample-to-sample jitter, and a real path's
 * level also wanders (daily load, flapping between two routes) by more
 * than the jitter over hundreds of samples, which a person marking
 * changes ignores: it was chosen on the 19 hand-labelled RIPE Atlas
 * traces of rtt-real-dev by the best F1 within 2 samples on a grid of
 * doublings (docs/EVALUATION.md gives the scores and their leave-out
 * stability).
 */
#ifndef GT_SEGMENT_H
#define GT_SEGMENT_H

#include <stddef.h>

struct gt_seg_opts {
    double penalty;     /* beta / ln n, in units of the jitter's variance (> 0) */
    int min_len;        /* valid samples a segment holds at least (1..1000) */
};

/* {800, 4}: docs/EVALUATION.md, "Offline segmentation". */
extern const struct gt_seg_opts gt_seg_defaults;

/* The changes of rtt[0..n) (ms; NAN or <= 0 = lost, skipped): the index
 * of the first sample of each new segment, ascending, into at (caller's,
 * room for n), their number into *nat.  NULL o: the defaults.  0 (GT_OK),
 * GT_EUSAGE for options out of range, GT_ENOMEM.  Time O(n) when changes
 * are regular, O(n^2) at worst; memory O(n). */
int gt_segment(const double *rtt, size_t n, const struct gt_seg_opts *o, size_t *at,
               size_t *nat);

#endif
