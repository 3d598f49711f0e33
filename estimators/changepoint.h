/*
 * changepoint.h - online detection of level shifts in one RTT series
 * (route changes), for windows that restart at a shift instead of
 * straddling two regimes (METHOD.md 6, the `regime` method) and for the
 * event list.
 *
 * A shift is declared when the median of the last W samples (log RTT)
 * moves away from the current regime's level, the median of the regime's
 * samples before them, by more than z standard errors of that median
 * (the regime's robust scale) and at least min_rel.  A median of W = 9
 * samples cannot be moved by 4 of them, so a spike of 1 to 4 samples is
 * never a shift, however large; a clean shift is found on its 5th
 * sample.  The shift is placed at the split of the window that best
 * separates the old level from the new (least absolute deviations), and
 * the new regime's level is estimated from its samples from there on.
 */
#ifndef GT_CHANGEPOINT_H
#define GT_CHANGEPOINT_H

#include <stdbool.h>
#include <stdint.h>

struct gt_cpd_opts {
    int window;         /* W, the recent samples whose median is tested (9: odd,
                           5..31); a spike of (W - 1) / 2 samples never alarms */
    double z;           /* standard errors of the median the level must move */
    double min_rel;     /* and at least this relative change (0.01: 1 %) */
};

/* The defaults: chosen on traces 1-10 of the rtt-changes set and on
 * synthetic traces by the best F1 within 2 samples; docs/EVALUATION.md
 * gives the held-out scores (traces 11-20). */
extern const struct gt_cpd_opts gt_cpd_defaults;

/* Precision first, for the event list and alerts ({11, 32, 0.01}): a
 * spike of up to 5 samples never alarms, a clean shift is raised on its
 * 6th sample, and a shift must move the median of 11 by 32 standard
 * errors; chosen on the 19 hand-labelled real traces of rtt-real-dev
 * for a precision of at least 0.70 within 2 samples (docs/EVALUATION.md,
 * "The shift detector"). */
extern const struct gt_cpd_opts gt_cpd_alerts;

struct gt_cpd;

/* NULL opts: the defaults.  NULL on ENOMEM or options out of range. */
struct gt_cpd *gt_cpd_new(const struct gt_cpd_opts *o);
void gt_cpd_free(struct gt_cpd *d);

/* Feed the next sample (index = samples fed before it; NAN or <= 0 =
 * lost, skipped).  Returns true when it completes the evidence for a
 * change; *at is then the index of the new regime's first sample (<=
 * this one). */
bool gt_cpd_push(struct gt_cpd *d, double rtt, int64_t *at);

/* Index of the current regime's first sample (0 before any change). */
int64_t gt_cpd_regime_start(const struct gt_cpd *d);

#endif
