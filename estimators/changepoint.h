/*
 * changepoint.h - online detection of level shifts in one RTT series
 * (route changes), for windows that restart at a shift instead of
 * straddling two regimes (METHOD.md 3.2, the `regime` method).
 *
 * A two-sided CUSUM on log RTT, each sample standardised against the
 * current regime's median and MAD and clipped, so that one spike cannot
 * raise an alarm but a few shifted samples in a row do.  The change is
 * placed where the alarming sum last left zero (the first shifted
 * sample); the new regime's level is estimated from its samples from
 * there on, re-estimated while it is young, and refreshed from its
 * recent in-control samples as it ages.
 */
#ifndef GT_CHANGEPOINT_H
#define GT_CHANGEPOINT_H

#include <stdbool.h>
#include <stdint.h>

struct gt_cpd_opts {
    double k;           /* allowance per sample, in scale units (1) */
    double h;           /* alarm threshold of either sum (6) */
    double clip;        /* |z| is clipped here: one spike adds <= clip - k (6),
                           so one spike never alarms and two in a row do */
    double min_scale;   /* floor of the scale of log RTT (0.05: 5 %) */
};

/* The defaults above: the best F1 of a grid (k, h, clip, min_scale) on
 * traces 1-10 of the rtt-changes set; docs/EVALUATION.md gives the
 * scores on the held-out traces 11-20. */
extern const struct gt_cpd_opts gt_cpd_defaults;

struct gt_cpd;

/* NULL opts: the defaults.  NULL on ENOMEM. */
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
