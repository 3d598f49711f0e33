/*
 * parallel.h - the one place that starts and joins threads.
 *
 * A team: n members run at once, member 0 on the caller's thread, each
 * other on a thread of its own; the members share out the work between
 * them (the advisor's placements, the backtest's roots).
 *
 * Jobs: n independent jobs over a team, each member on a store
 * connection of its own (the first is the caller's, on its connection):
 * the roots' replays that refit keeps (rootcache.h) and the calibrations
 * rank and place ask at once (calibrate.h).  A member that cannot get a
 * connection or be started leaves its share to the others.
 */
#ifndef GT_PARALLEL_H
#define GT_PARALLEL_H

#include "base/error.h"
#include "db/db.h"

#include <stddef.h>

/* One member of a team: member i of the n. */
typedef void (*gt_par_member)(void *ctx, int i);

/* Run member(ctx, i) for i = 0 .. n-1 at once and return when all have
 * returned: member 0 on the caller's thread (after the others are
 * started), the others on threads of their own; a member whose thread
 * cannot be started runs on the caller's thread after member 0.  No
 * store connection: a member that reads the store brings its own. */
void gt_par_team_run(int n, gt_par_member member, void *ctx);

/* One job: job i on db, its failure in err. */
typedef int (*gt_par_job)(void *ctx, struct gt_db *db, size_t i, struct gt_error *err);

/* Run jobs 0 .. n-1 on up to `threads` threads; progress (NULL: none) is
 * told the jobs done of n, from the caller's thread: 0 first, n last.  The first failure
 * stops the jobs not begun and is returned. */
int gt_par_run(struct gt_db *db, size_t n, int threads, gt_par_job job, void *ctx,
               void (*progress)(void *ctx, double done, double total), void *progress_ctx,
               struct gt_error *err);

#endif
