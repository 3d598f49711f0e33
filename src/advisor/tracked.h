/*
 * tracked.h - the advisor's tracked forecasts: what a root's own past
 * says about how to forecast its collective (METHOD.md section 5).
 *
 * Three answers replay the root's past: --model adaptive chooses the
 * candidate model that has forecast best lately (adaptive.h), --model
 * combined weighs the candidates by their tracked errors (adaptive.h),
 * and calibration scales the quantiles answered by the root's past
 * misses (calibrate.h).  The advisor asks each once per root over one
 * scope, the partners the request names for the root (estimate: its
 * sites; rank: every candidate's; place: the pool) and the lead, and
 * keeps it for its lifetime; rank and place calibrate their roots on
 * threads of their own before their estimates, so that no estimate's
 * timing decides.  A combined estimate is its candidates' estimates
 * weighted.
 *
 * Here: the options of those replays as the answers ask them, which
 * `gridtail refit` keeps in the fit cache too (rootcache.h).
 */
#ifndef GT_TRACKED_H
#define GT_TRACKED_H

#include "adaptive.h"
#include "advisor.h"
#include "calibrate.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether model m replays the root's forecast errors: adaptive, combined. */
bool gt_adv_tracked(enum gt_adv_model m);

/* Whether the answers with these options calibrate their quantiles
 * (calibrate.h): quantiles are asked, the model has them, and a history
 * to calibrate on is asked for. */
bool gt_adv_calibrates(const struct gt_adv_opts *o);

/* The calibration of a root's quantiles as the answers with these
 * options ask it (the levels asked, then the objective's, into levels,
 * GT_BT_MAX_LEVELS of them), over the partners names[0..n) (NULL: all
 * the root's) at horizon_s. */
struct gt_calib_opts gt_adv_calib_opts(const struct gt_adv_opts *o, double horizon_s,
                                       const char **names, size_t n, double *levels);

/* The replay of a root's forecast errors as the answers with these options
 * ask it (--model adaptive or combined: combine, and combined's H), over the
 * partners names[0..n) (NULL: all the root's) at horizon_s, as of o->at. */
struct gt_adapt_opts gt_adv_adapt_opts(const struct gt_adv_opts *o, double horizon_s,
                                       const char **names, size_t n);

#endif
