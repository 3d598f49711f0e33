/*
 * pairfits.h - the fitted window of every pair the advisor asks about.
 *
 * A pair's fit comes from the store's fit cache (db/fitcache.h) when the
 * cache holds the pair's current window and the query time is at or after
 * its end; otherwise the window of the last m samples at or before the
 * query time is read and fitted (estimators/fit.h).  Either way it is kept
 * for the object's life, so no window is fitted twice, and fits of current
 * windows made here go back to the store on gt_pairfits_save.  Everything
 * is read in one read transaction: one snapshot of the store.
 */
#ifndef GT_PAIRFITS_H
#define GT_PAIRFITS_H

#include "base/error.h"
#include "db/db.h"
#include "estimators/fit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_pairfit {
    bool found;               /* >= 2 valid samples and a fit: model, p set */
    const struct gt_model *model;
    double p[2];
    size_t samples;           /* rows in the window */
    int64_t first_ts, last_ts;    /* the window's span */
    int64_t last_valid_ts;    /* newest valid sample (data age) */
    double last_value;        /* its RTT */
    double median;            /* of the window's valid samples; self pairs
                                 (intra-site latency) only, else NAN */
    size_t valid, filled;     /* answered samples; lost ones filled with the
                                 previous value (METHOD.md 1.1) */
    int64_t outage_since;     /* valid == 0: the last answer's time; else 0 */
    double ks, chi2;          /* the selected model's; NAN for a delta */
    const struct gt_model *other;     /* the other parametric candidate, NULL */
    double other_p[2], other_ks, other_chi2;   /* when not applicable */
    struct gt_quantile_bounds bounds;   /* the window's own quantiles, which
                                           both candidates are held to */
    const char *why;          /* when !found: which pair and why */
};

struct gt_pairfits;

/* Fits of `window` samples at or before `at` with the given model choice.
 * db is borrowed.  NULL on ENOMEM (err says so). */
struct gt_pairfits *gt_pairfits_new(struct gt_db *db, size_t window, enum gt_fit_choice choice,
                                    int64_t at, struct gt_error *err);
void gt_pairfits_free(struct gt_pairfits *p);

/* The fit of src -> dst; *out stays valid for the object's life.  A pair
 * without data is not an error: (*out)->found is false and why says so. */
int gt_pairfits_get(struct gt_pairfits *p, const char *src, const char *dst,
                    const struct gt_pairfit **out, struct gt_error *err);

/* The window's values behind src -> dst's fit (lost ones filled as the
 * fit fills them), ascending, for the empirical model: read once and kept
 * for the object's life.  *n = 0 when the pair has no fit. */
int gt_pairfits_samples(struct gt_pairfits *p, const char *src, const char *dst,
                        const double **xs, size_t *n, struct gt_error *err);

/* Fit every pair of the store (current windows, at = +infinity: the
 * newest m samples), for `gridtail refit`. */
int gt_pairfits_all(struct gt_pairfits *p, struct gt_error *err);

/* Call fn every 64 pairs that gt_pairfits_all(_part) visits here, with
 * the count so far (for a progress line).  Ctrl-C (base/interrupt.h)
 * stops the visit with GT_EINTR. */
void gt_pairfits_on_progress(struct gt_pairfits *p, void (*fn)(void *ctx, size_t pairs),
                             void *ctx);

/* The same for the pairs whose source site's id is part modulo nparts:
 * nparts objects, each on its own connection, can fit a store on as many
 * threads (every pair of one source in one part). */
int gt_pairfits_all_part(struct gt_pairfits *p, int part, int nparts, struct gt_error *err);

/* Take over from's fits to be saved, and its counts, so that one object
 * saves them all against its own snapshot: from must have been made
 * after p (a change to the store in between then makes p's save stale). */
int gt_pairfits_adopt(struct gt_pairfits *p, struct gt_pairfits *from, struct gt_error *err);

/* Write the fits of current windows made here into the store's fit cache
 * (*saved records).  Skipped with *stale set (and GT_OK) when another
 * process has changed the store since this object's snapshot, since a fit
 * is only cached when it is known to describe the pair as stored, or when
 * another process holds the write lock and wait is false (queries do not
 * wait).  With wait true (`gridtail refit`) the lock is waited for up to
 * the busy timeout, and a lock still held then is an error naming it. */
int gt_pairfits_save(struct gt_pairfits *p, bool wait, size_t *saved, bool *stale,
                     struct gt_error *err);

/* How long an answer's save waits for another writer when it keeps
 * calibrations (gt_pairfits_save_also): the answers in flight when a new
 * sample lands each go on from the kept state, and each would find the
 * others' writes in the way, so that none would land. */
#define GT_PAIRFITS_SAVE_WAIT_MS 100

/* The same (the fits only when fits is true), and also (when not NULL)
 * what else the answer made of the same snapshot (the calibrations it
 * replayed), in the same write transaction and under the same staleness
 * rule: also(ctx, db, err). */
int gt_pairfits_save_also(struct gt_pairfits *p, bool wait, bool fits,
                          int (*also)(void *ctx, struct gt_db *db, struct gt_error *err),
                          void *ctx, size_t *saved, bool *stale, struct gt_error *err);

/* Pair windows fitted from samples, and answered from the fit cache. */
size_t gt_pairfits_fitted(const struct gt_pairfits *p);
size_t gt_pairfits_cached(const struct gt_pairfits *p);

#endif
