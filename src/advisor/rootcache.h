/*
 * rootcache.h - what `gridtail refit` keeps per root beside the fits:
 * each root's tracked errors for --model adaptive (adaptive.h) and the
 * calibration of its quantiles (calibrate.h), replayed over its whole
 * collective (every partner) and saved together in one transaction, so
 * that the answers for those collectives read them instead of replaying.
 * The roots are shared out over threads, each with its own connection:
 * a root's replay is independent of every other's.
 */
#ifndef GT_ROOTCACHE_H
#define GT_ROOTCACHE_H

#include "adaptive.h"
#include "base/error.h"
#include "base/progress.h"
#include "calibrate.h"
#include "db/db.h"

#include <stddef.h>

struct gt_rootcache_opts {
    const struct gt_adapt_opts *adapt;   /* NULL: not kept (sites NULL) */
    const struct gt_calib_opts *calib;   /* NULL: not kept (sites NULL) */
    int threads;                         /* >= 1 */
    struct gt_progress *progress;        /* roots replayed; NULL: none */
};

/* Replay every root with pairs as o says and keep the results; *tracked
 * and *calibrated count the roots kept.  GT_EINTR when interrupted
 * (base/interrupt.h): nothing is kept. */
int gt_rootcache_refresh(struct gt_db *db, const struct gt_rootcache_opts *o, size_t *tracked,
                         size_t *calibrated, struct gt_error *err);

#endif
