/*
 * parallel.h - n independent jobs over threads, each thread on a store
 * connection of its own (the first thread is the caller's, on its
 * connection): the roots' replays that refit keeps (rootcache.h) and the
 * calibrations rank and place ask at once (calibrate.h).  A thread that
 * cannot get a connection or be started leaves its share to the others.
 */
#ifndef GT_PARALLEL_H
#define GT_PARALLEL_H

#include "base/error.h"
#include "db/db.h"

#include <stddef.h>

/* One job: job i on db, its failure in err. */
typedef int (*gt_par_job)(void *ctx, struct gt_db *db, size_t i, struct gt_error *err);

/* Run jobs 0 .. n-1 on up to `threads` threads; progress (NULL: none) is
 * told the jobs done of n, from the caller's thread.  The first failure
 * stops the jobs not begun and is returned. */
int gt_par_run(struct gt_db *db, size_t n, int threads, gt_par_job job, void *ctx,
               void (*progress)(void *ctx, double done, double total), void *progress_ctx,
               struct gt_error *err);

#endif
