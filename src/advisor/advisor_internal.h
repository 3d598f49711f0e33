/*
 * advisor_internal.h - what the advisor's three files share, and no one
 * else: the advisor's state, the steps of an estimate (advisor.c) that
 * the tracked forecasts (tracked.c) and the placement search
 * (placement.c) call, and the tracked forecasts' answers the estimate
 * asks.  Not part of the library's API: include advisor.h, tracked.h or
 * placement.h instead.
 *
 * Threads: gt_advisor_estimate_many runs estimates on several threads.
 * Whatever reads pair fits or the roots' tracked state (the functions
 * marked "under the lock") runs under the lock those estimates pass
 * down (NULL: one thread, no lock); the rest is thread-safe.
 */
#ifndef GT_ADVISOR_INTERNAL_H
#define GT_ADVISOR_INTERNAL_H

#include "advisor.h"
#include "pairfits.h"

#include <threads.h>

struct root_choice;               /* tracked.c: a root's tracked state */
struct advisor_worker;            /* advisor.c: one thread's scratch */

struct gt_advisor {
    struct gt_db *db;
    struct gt_adv_opts o;
    struct gt_pairfits *fits;
    struct root_choice *choices;  /* tracked.c's, one per root asked */
    size_t nchoices;
    struct advisor_worker *main_worker;
    _Atomic(const char *) stopped;   /* o.stop's first reason */
};

/* ---- advisor.c: pair fits */

/* The fit of root -> site; with --symmetric, site -> root's when root ->
 * site has none (an RTT is a round trip: the probe's view of the pair
 * answers for the root's), *reversed then set.  Under the lock. */
int advisor_pair_fit(struct gt_advisor *a, const char *root, const char *site,
                     const struct gt_pairfit **f, bool *reversed, struct gt_error *err);

/* Whether max_loss leaves the pair out (not with loss ignore); why into
 * buf. */
bool advisor_too_lossy(const struct gt_advisor *a, const struct gt_pairfit *f,
                       const char *root, const char *site, char *why, size_t size);

/* The distribution of the fit f of src -> dst under model m, as an
 * estimate takes it (auto's verdicts, the window's samples for
 * empirical, the loss).  Under the lock. */
int advisor_partner_dist(struct gt_advisor *a, enum gt_adv_model m, const struct gt_pairfit *f,
                         const char *src, const char *dst, struct gt_dist *d,
                         struct gt_error *err);

/* ---- advisor.c: the steps of one estimate */

/* e's partners from pl under the root's model, or the model forced (>= 0:
 * a candidate of combined's), into w's scratch, ready for
 * advisor_compute_model; *oldest: the oldest partner's newest sample.
 * Takes the lock (NULL: none). */
int advisor_prepare(struct gt_advisor *a, struct advisor_worker *w,
                    const struct gt_placement *pl, int forced, struct gt_estimate *e,
                    int64_t *oldest, mtx_t *lock, struct gt_error *err);

/* The levels of the collective time's quantiles computed into qs: those
 * asked (with full detail), then the objective's; how many. */
size_t advisor_levels(const struct gt_advisor *a, const struct gt_estimate *e, double *qs);

/* E[max] of w's partners under e's model, its quantiles at
 * advisor_levels' levels into qv, and each partner's share of being the
 * slowest and the cost of its loss. */
int advisor_compute_model(const struct gt_advisor *a, struct advisor_worker *w,
                          struct gt_estimate *e, double *qv, struct gt_error *err);

/* The rest of e from its E[max] and the model's quantiles qv: those
 * calibrated, the objective, the job's time, the warnings. */
void advisor_finish(const struct gt_advisor *a, struct gt_estimate *e, double *qv,
                    int64_t oldest);

/* ---- tracked.c: the roots' tracked forecasts */

/* The model of root's placements: the one asked, or with adaptive the
 * root's choice (auto while nothing is known), tracked over pl's partners
 * unless the request said more before; with adapt, the root's tracked
 * errors (adaptive, combined), with cal its calibration (NULL: not
 * asked, or not calibrated).  Under the lock. */
int tracked_root_model(struct gt_advisor *a, const struct gt_placement *pl,
                       enum gt_adv_model *m, const struct gt_adapt **adapt,
                       const struct gt_calib **cal, struct gt_error *err);

/* Before many estimates: each root of pl[0..n) tracked with the union of
 * its placements' partners, and calibrated when quantiles are answered. */
int tracked_scopes(struct gt_advisor *a, const struct gt_placement *pl, size_t n,
                   struct gt_error *err);

/* The root's combined weights into *comb; *combines: the root has them
 * (else its model answers: auto while nothing is known).  Takes the lock
 * (NULL: none). */
int tracked_weights(struct gt_advisor *a, const struct gt_placement *pl, struct gt_adapt *comb,
                    bool *combines, mtx_t *lock, struct gt_error *err);

/* combined: the candidates' estimates of pl weighted by c (E[max] and
 * the models' quantiles; adaptive.h), into e, which is otherwise the
 * heaviest's: its partners, method and warnings. */
int tracked_estimate_combined(struct gt_advisor *a, struct advisor_worker *w,
                              const struct gt_placement *pl, const struct gt_adapt *c,
                              struct gt_estimate *e, mtx_t *lock, struct gt_error *err);

/* Whether some root's calibration was replayed here for the store's
 * newest samples (not read from the fit cache, not stopped): worth
 * keeping for the next answer over the same scope. */
bool tracked_unsaved_calibrations(const struct gt_advisor *a);

/* Keep those in the fit cache (calibrate.h's gt_calib_save), inside the
 * caller's write transaction on db. */
int tracked_save_calibrations(struct gt_advisor *a, struct gt_db *db, struct gt_error *err);

/* The roots' calibrations by where they came from (gt_advisor_calibrations). */
void tracked_calibrations(const struct gt_advisor *a, size_t *kept, size_t *resumed,
                          size_t *replayed);

/* Free the roots' tracked state. */
void tracked_free(struct gt_advisor *a);

#endif
