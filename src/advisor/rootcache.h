/*
 * rootcache.h - what `gridtail refit` keeps per root beside the fits:
 * each root's tracked errors for --model adaptive (adaptive.h) and the
 * calibration of its quantiles (calibrate.h), replayed and saved
 * together in one transaction, so that the answers over those
 * collectives read them instead of replaying.  Every other state an
 * answer kept for a root (the sets a broker asks, at its options) goes on
 * to the newest moment too, as the next such answer would take it on.
 * A root's calibration is kept for two collectives: all its partners (an estimate of the whole
 * collective), and, where max_loss leaves some out, those that rank and
 * place would take (a place over every site).  The replays are shared
 * out over threads, each with its own connection: each is independent
 * of every other.
 */
#ifndef GT_ROOTCACHE_H
#define GT_ROOTCACHE_H

#include "adaptive.h"
#include "advisor.h"
#include "base/error.h"
#include "base/progress.h"
#include "calibrate.h"
#include "db/db.h"
#include "tracked.h"   /* the replays' options as the answers ask them */

#include <stddef.h>

struct gt_rootcache_opts {
    const struct gt_adv_opts *adv;       /* the answers' options (max_loss, fits) */
    const struct gt_adapt_opts *adapt;   /* NULL: not kept (sites NULL); */
    const struct gt_calib_opts *calib;   /* NULL: not kept (sites NULL); both
                                            as gt_adv_adapt_opts and
                                            gt_adv_calib_opts give them */
    int threads;                         /* >= 1 */
    struct gt_progress *progress;        /* replays done; NULL: none */
};

struct gt_rootcache_counts {
    size_t tracked;           /* roots whose adaptive errors were kept */
    size_t calibrated;        /* roots whose calibration was kept */
    size_t calibrations;      /* calibrations kept (a root's two collectives) */
    size_t advanced;          /* states answers kept (other partners or
                                 options) gone on to the newest moment */
};

/* Replay every root with pairs as o says and keep the results.
 * GT_EINTR when interrupted (base/interrupt.h): nothing is kept. */
int gt_rootcache_refresh(struct gt_db *db, const struct gt_rootcache_opts *o,
                         struct gt_rootcache_counts *out, struct gt_error *err);

#endif
