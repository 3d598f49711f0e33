/*
 * fitcache.h - fitted pair windows kept in the store between runs, so an
 * advisor query reads fits instead of refitting every pair window.
 *
 * One row of fit_cache per (window, model choice, source site) holds, as
 * a blob of fixed-width records sorted by destination, the fits of that
 * site's pairs over their newest window.  A record is only ever written
 * for a window that ends at the pair's newest sample, and any ingest that
 * stores a new sample for a pair deletes that pair's record and its
 * source site's tracked errors (see gt_store_flush_changes), so a record
 * that exists describes the pair as it is now: it answers every query at
 * a time >= its last_ts.  The source's other records stay: a collector
 * that adds a site, or reports one pair, does not send every fit of the
 * sites probing it back to their samples.  Pruning
 * empties the cache.  The blob starts with a header naming the format,
 * record size and byte order; a blob written elsewhere reads as absent.
 * The db layer does not know the models: a record carries the model's
 * name and its two parameters as plain data.
 */
#ifndef GT_FITCACHE_H
#define GT_FITCACHE_H

#include "db.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_fit_rec {
    int64_t dst;              /* destination site id */
    int64_t samples;          /* rows in the window (lost ones included) */
    int64_t first_ts;         /* first used sample of the window */
    int64_t last_ts;          /* its last slot: the pair's newest sample */
    int64_t last_valid_ts;    /* newest valid sample */
    double last_value;        /* its RTT, ms */
    double median;            /* of the window's valid samples, ms */
    double p[2];              /* the selected model's parameters */
    int64_t valid, filled;    /* answered samples; lost ones filled */
    int64_t outage_since;     /* valid == 0: the last answer's time */
    double ks, chi2;          /* the selected model's fit (verdicts) */
    char model[8];            /* "pareto", "normal", "delta"; "" when the
                                 window has fewer than 2 samples */
    double other_p[2];        /* the other parametric candidate's fit, so */
    double other_ks, other_chi2;   /* its verdict is known too (the */
    char other_model[8];      /* empirical fallback); "" when not applicable */
    double bounds_lo[3], bounds_hi[3];  /* the window's own p50, p90 and p99
                                           bounds (struct gt_quantile_bounds) */
    int64_t bounds_hi_max;    /* bit k: bounds_hi[k] is the largest sample */
};

/* The records of src's pairs for (window, choice), sorted by dst, into
 * *buf (of *cap records, grown as needed; caller frees); *n is 0 when
 * none are kept. */
int gt_fitcache_load(struct gt_db *db, long window, const char *choice, int64_t src,
                     struct gt_fit_rec **buf, size_t *cap, size_t *n, struct gt_error *err);

/* Replace the records of src's pairs for (window, choice); recs sorted by
 * dst.  Inside the caller's transaction. */
int gt_fitcache_save(struct gt_db *db, long window, const char *choice, int64_t src,
                     const struct gt_fit_rec *recs, size_t n, struct gt_error *err);

/* Forget the cached fits of the pairs src[i] -> dst[i] (sorted by src,
 * then dst), whose oldest new sample is at oldest[i], and their source
 * sites' tracked errors and calibrations; the sources' other records
 * stay, and so do their calibration states that read nothing at or after
 * a new sample (gt_calibstate_head).  Inside the caller's transaction. */
int gt_fitcache_forget_pairs(struct gt_db *db, const int64_t *src, const int64_t *dst,
                             const int64_t *oldest, size_t n, struct gt_error *err);

/* Forget every cached fit of the given source sites, or all with n = 0 and
 * ids NULL.  Inside the caller's transaction. */
int gt_fitcache_forget(struct gt_db *db, const int64_t *src_ids, size_t n,
                       struct gt_error *err);

/* A root's tracked forecast errors (src/advisor/adaptive.h), kept in the
 * same table under a key of its own ("track2:...", "combine:..."), so that whatever
 * forgets the root's fits forgets them too.  As plain data: the db layer
 * does not know the methods. */
#define GT_TRACK_NCAND 4
struct gt_track_rec {
    int64_t anchor;           /* the newest outcome the replay could score */
    int64_t interval, lead;   /* s; samples */
    int64_t outcomes;         /* scored moments */
    int32_t chosen;           /* candidate index, -1: none */
    int32_t left_out;         /* bit j: candidate j's forecast left out */
    double rmse[GT_TRACK_NCAND];
    double weight[GT_TRACK_NCAND];  /* combined's weights (NAN: not kept) */
    double rmse_combined;     /* combined's own RMSE; NAN for adaptive's */
};

/* *found says whether (window, key, src) holds a record. */
int gt_trackcache_load(struct gt_db *db, long window, const char *key, int64_t src,
                       struct gt_track_rec *rec, bool *found, struct gt_error *err);

/* Replace it.  Inside the caller's transaction. */
int gt_trackcache_save(struct gt_db *db, long window, const char *key, int64_t src,
                       const struct gt_track_rec *rec, struct gt_error *err);

/* A root's calibration (src/advisor/calibrate.h), kept likewise under a
 * key of its own ("calib:..."): per quantile level, the factor its
 * calibrator gave after the replay and whether it was ready. */
#define GT_CALIB_REC_LEVELS 33
struct gt_calib_rec {
    int64_t anchor;           /* the newest outcome the replay could score */
    int64_t interval, lead;   /* s; samples */
    int64_t outcomes;         /* replayed outcomes */
    int64_t nlevels;          /* levels held (<= GT_CALIB_REC_LEVELS) */
    int64_t ready;            /* bit k: level k was ready */
    double level[GT_CALIB_REC_LEVELS], factor[GT_CALIB_REC_LEVELS];
};

int gt_calibcache_load(struct gt_db *db, long window, const char *key, int64_t src,
                       struct gt_calib_rec *rec, bool *found, struct gt_error *err);
int gt_calibcache_save(struct gt_db *db, long window, const char *key, int64_t src,
                       const struct gt_calib_rec *rec, struct gt_error *err);

/* A root's calibration state (src/advisor/calibrate.c: its replay and
 * calibrators suspended after the last moment whose samples are all in,
 * and the answer made from it at one anchor), kept likewise under a key
 * of its own ("calib3:..."): bytes the db layer does not read but for
 * their head.  A sample stored for one of the root's pairs before
 * head.read_before drops the state (gt_fitcache_forget_pairs), one before
 * head.answer_before only the answer (answer_before becomes INT64_MIN); a
 * newer one neither: the state goes on from where it was. */
struct gt_calibstate_head {
    int64_t read_before;      /* every sample the state read is older */
    int64_t answer_before;    /* likewise the answer's; INT64_MIN: none */
    int64_t used;             /* the newest anchor an answer kept it at */
};

/* The state of (window, key, src) into *buf (caller frees), *len bytes;
 * *found false when none is kept. */
int gt_calibstate_load(struct gt_db *db, long window, const char *key, int64_t src,
                       void **buf, size_t *len, bool *found, struct gt_error *err);

/* Replace it (buf starts with its head).  Inside the caller's transaction. */
int gt_calibstate_save(struct gt_db *db, long window, const char *key, int64_t src,
                       const void *buf, size_t len, struct gt_error *err);

/* Each state of src whose key starts with prefix: its window, key and
 * bytes (its head first), in no order; each's failure stops the scan and
 * is returned (GT_ENOMEM with err unset: out of memory). */
int gt_calibstate_each(struct gt_db *db, int64_t src, const char *prefix,
                       int (*each)(void *ctx, long window, const char *key, const void *buf,
                                   size_t len),
                       void *ctx, struct gt_error *err);

/* Keep at most keep states of src: the least recently used go.  Inside
 * the caller's transaction. */
int gt_calibstate_trim(struct gt_db *db, int64_t src, size_t keep, struct gt_error *err);

/* Cached rows and records, for `gridtail refit --json` and tests. */
int gt_fitcache_count(struct gt_db *db, long long *rows, long long *records,
                      struct gt_error *err);

#endif
