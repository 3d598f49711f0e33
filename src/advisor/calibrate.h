/*
 * calibrate.h - the advisor's quantiles of the collective time
 * calibrated by the root's own past misses, live (METHOD.md section 5,
 * "Calibrated quantiles"): the backtest's calibration asked at one
 * moment.
 *
 * For a root, the partners the request names, the window m and a lead
 * of tau samples (the job's horizon over the nominal interval), the last
 * W moments whose outcome at t + tau is stored are replayed with the
 * backtest method of the answer (advisor/backtest.h); their quantiles at
 * the levels asked feed one calibrator per level (estimators/conformal.h)
 * in time order, each outcome once it would have been known.  What the
 * calibrators say after the last outcome is a factor per level: the
 * quantile answered now is the model's times that factor.  A root
 * without a scored moment, or whose replay was stopped, keeps the
 * model's quantiles (factor 1, no outcomes).
 *
 * The replay is kept, suspended after its last settled moment (its
 * state: METHOD.md section 5, "Kept states"), in the fit cache
 * (db/fitcache.h) under the root, the partners and the options: `gridtail
 * refit` keeps each root's whole collective's, an answer its own
 * (tracked.c).  An answer over the same partners resumes it with the
 * moments since, whose factors are those of one replay from the same
 * origin, or reads its factors when the anchor has not moved.  Levels the
 * state lacks, a state too far behind or one a late sample dropped, and
 * the answer replays the last W moments.
 */
#ifndef GT_CALIBRATE_H
#define GT_CALIBRATE_H

#include "backtest.h"
#include "calibmemo.h"
#include "base/error.h"
#include "db/db.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_CALIB_MAX_OUTCOMES 10000

struct gt_calib_opts {
    size_t window;            /* m, samples */
    double horizon_s;         /* how far ahead the job runs, s (> 0) */
    size_t outcomes;          /* W: the last W moments (1 .. GT_CALIB_MAX_OUTCOMES) */
    int method;               /* the backtest method replayed (not last) */
    size_t adaptive_outcomes; /* method adaptive: its H */
    bool cut_paper;
    int64_t at;               /* outcomes at or before it */
    const char **sites;       /* the partners; NULL: all the root's */
    size_t nsites;
    const double *levels;     /* the quantile levels answered (1 .. */
    size_t nlevels;           /* GT_BT_MAX_LEVELS) */
    const char *(*stop)(void *ctx);   /* the replay stops when it says why */
    void *stop_ctx;
    struct gt_verdict_limits verdict; /* method auto: when it falls back */
    struct gt_calib_memo *memo;       /* a server's copies of the states; NULL */
};

struct gt_calib {
    size_t outcomes;          /* outcomes the factors rest on */
    long lead;                /* tau, samples */
    int64_t interval;         /* nominal interval, s */
    double factor[GT_BT_MAX_LEVELS];   /* calibrated / model, per level */
    bool ready[GT_BT_MAX_LEVELS];      /* enough outcomes for the level */
    bool stopped;             /* the replay was stopped: the model's quantiles */
    bool cached;              /* its kept answer read from the fit cache */
    bool resumed;             /* a kept state gone on with the moments since */
    bool current;             /* anchor is the root's newest sample (not an
                                 --at in the past): worth keeping */
    int64_t anchor;           /* newest outcome time the replay may score */
    int64_t root_id;          /* the root's site id, and the partners the */
    struct gt_bt_scope scope; /* replay took: what a kept state is keyed by */
    int64_t origin;           /* the first moment the calibrators were fed (s) */
    void *state;              /* the state to keep (gt_calib_save), or NULL; */
    size_t state_len;         /* owned: gt_calib_release frees it */
};

/* Kept states per root (gt_calib_save): past it the least recently used
 * go. */
#define GT_CALIB_KEEP 64

/* Free c's state to keep (copies of c share it: one of them releases). */
void gt_calib_release(struct gt_calib *c);

/* The calibration of root's quantiles at o's levels now: from the fit
 * cache when it holds every level for this anchor and o names all the
 * root's partners, else replayed. */
int gt_calib_track(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                   struct gt_calib *out, struct gt_error *err);

/* Many roots' calibrations at once (rank, place): job i's root and
 * options into its out, on up to `threads` threads, the first on db and
 * each other on a connection of its own (the replays are independent);
 * progress (NULL: none) told the jobs done of n from the calling thread.
 * The first failure is returned (the others' outs are then unset). */
struct gt_calib_job {
    const char *root;
    struct gt_calib_opts o;
    struct gt_calib out;
};
int gt_calib_track_many(struct gt_db *db, struct gt_calib_job *jobs, size_t n, int threads,
                        void (*progress)(void *ctx, double done, double total),
                        void *progress_ctx, struct gt_error *err);

/* The replay alone, of the last W moments, without a kept state. */
int gt_calib_replay(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                    struct gt_calib *out, struct gt_error *err);

/* The same from the moment first (a slot's time) on, however many
 * moments that is: what a kept state that started there has reached. */
int gt_calib_replay_from(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                         int64_t first, struct gt_calib *out, struct gt_error *err);

/* The key c's state is kept under (of o, the window apart: the row's own). */
#define GT_CALIB_KEY_MAX 200
void gt_calib_key(const struct gt_calib_opts *o, const struct gt_bt_scope *sc, char *buf,
                  size_t size);

/* A state kept for a root, by whichever answer or refit made it: the
 * options and the partners it goes on with (o.levels and o.sites point
 * into it; o.at is "now"), and the key it is kept under.  Only states
 * that can go on (an engine kept: not adaptive's or combined's). */
struct gt_calib_kept {
    struct gt_calib_opts o;
    char key[GT_CALIB_KEY_MAX];
    double levels[GT_BT_MAX_LEVELS];
    char **names;
    size_t nnames;
};

/* root_id's kept states (*out freed with gt_calib_kept_free); rows that
 * are not one this build wrote are passed over. */
int gt_calib_kept_list(struct gt_db *db, int64_t root_id, struct gt_calib_kept **out,
                       size_t *n, struct gt_error *err);
void gt_calib_kept_free(struct gt_calib_kept *v, size_t n);

/* Keep c's state (of o) in the fit cache under the root and partners it
 * replayed, inside the caller's write transaction, the root's least
 * recently used beyond GT_CALIB_KEEP out; a stopped replay, one with
 * nothing to score or read from a state unchanged keeps nothing. */
int gt_calib_save(struct gt_db *db, const struct gt_calib_opts *o, const struct gt_calib *c,
                  struct gt_error *err);

#endif
