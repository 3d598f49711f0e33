/*
 * refit.h - the work of `gridtail refit`: every stored pair's newest
 * window fitted and kept in the store's fit cache, the fits' regime
 * changes noted, each root's replays kept beside them (rootcache.h) and
 * the pairs' events recorded.  The pairs are shared out over threads,
 * each on a connection of its own (parallel.h), every pair of one source
 * site in one part; the fits are saved together against the snapshot of
 * the caller's connection, and a run whose store another process changed
 * meanwhile starts over, at most GT_REFIT_ATTEMPTS times.
 */
#ifndef GT_REFIT_H
#define GT_REFIT_H

#include "advisor.h"
#include "base/error.h"
#include "db/db.h"
#include "events.h"
#include "rootcache.h"

#include <stdbool.h>
#include <stddef.h>

#define GT_REFIT_ATTEMPTS 3

struct gt_refit_opts {
    const struct gt_adv_opts *adv;        /* window, model, horizon, threads... */
    bool calibrate;                       /* keep the roots' calibration too */
    const struct gt_event_opts *events;   /* the events' thresholds */
    /* told when another process holds the store's refit lock (NULL: not) */
    void (*waits)(const char *name);
};

struct gt_refit_result {
    size_t fitted, cached, saved;   /* pair windows fitted, read from the cache; fits saved */
    bool stale;               /* the store changed during every attempt: nothing cached */
    int attempts;             /* attempts made stale (stale: GT_REFIT_ATTEMPTS) */
    bool fits_saved;          /* the fits are in the cache (also after GT_EINTR) */
    size_t regimes;           /* fits that changed regime */
    size_t event_pairs, events;   /* pairs scanned for events, events found */
    struct gt_rootcache_counts kept;   /* the roots' replays kept */
};

/* Refit the store of db (borrowed; opened GT_DB_EXISTING) as o says,
 * with progress lines on a terminal.  GT_EINTR when interrupted
 * (base/interrupt.h): out->fits_saved says how far it got.  A stale run
 * (out->stale) is GT_OK with nothing cached. */
int gt_refit_run(struct gt_db *db, const struct gt_refit_opts *o, struct gt_refit_result *out,
                 struct gt_error *err);

#endif
