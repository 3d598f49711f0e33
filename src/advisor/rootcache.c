/*
 * rootcache.c - see rootcache.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "rootcache.h"
#include "base/interrupt.h"
#include "db/query.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <threads.h>

/* What is replayed of one root. */
struct root_result {
    struct gt_adapt adapt;
    struct gt_calib cal;
};

/* The work the threads share. */
struct shared {
    const struct gt_rootcache_opts *o;
    const struct gt_newest_row *roots;
    struct root_result *res;
    size_t n;
    atomic_size_t next, done;
};

struct worker {
    struct shared *sh;
    struct gt_db *db;
    bool first;               /* draws the progress line */
    int rc;
    struct gt_error err;
};

static int replay_root(struct gt_db *db, const struct gt_rootcache_opts *o, const char *root,
                       struct root_result *r, struct gt_error *err)
{
    r->adapt.anchor = INT64_MIN;
    int rc = o->adapt ? gt_adapt_replay(db, root, o->adapt, &r->adapt, err) : GT_OK;
    if (rc == GT_ENOTFOUND) {   /* only itself: no collective */
        rc = GT_OK;
        r->adapt.anchor = INT64_MIN;
        gt_error_clear(err);
    }
    if (rc == GT_OK && o->calib)
        rc = gt_calib_replay(db, root, o->calib, &r->cal, err);
    return rc == GT_OK && gt_interrupted() ? gt_error_set(err, GT_EINTR, NULL, "interrupted")
                                           : rc;
}

static int worker_main(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;
    for (;;) {
        size_t i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->n)
            break;
        w->rc = replay_root(w->db, sh->o, sh->roots[i].src, &sh->res[i], &w->err);
        if (w->rc) {
            atomic_store(&sh->next, sh->n);   /* the others stop too */
            break;
        }
        size_t done = atomic_fetch_add(&sh->done, 1) + 1;
        if (w->first && sh->o->progress)
            gt_progress_update(sh->o->progress, (double)done);
    }
    return 0;
}

/* Replay the roots on o->threads threads: the first on db, the others
 * each on a connection of its own. */
static int replay_all(struct gt_db *db, struct shared *sh, struct gt_error *err)
{
    int n = sh->o->threads < 1 ? 1 : sh->o->threads;
    if ((size_t)n > sh->n)
        n = sh->n ? (int)sh->n : 1;
    struct worker *w = calloc((size_t)n, sizeof *w);
    thrd_t *th = calloc((size_t)n, sizeof *th);
    bool *started = calloc((size_t)n, sizeof *started);
    int rc = w && th && started ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (int i = 0; rc == GT_OK && i < n; i++) {
        w[i] = (struct worker){sh, db, i == 0, GT_OK, {0}};
        if (i > 0)
            rc = gt_db_open(gt_db_address(db), GT_DB_EXISTING, gt_db_busy_ms(db), &w[i].db,
                            err);
    }
    for (int i = 1; rc == GT_OK && i < n; i++)
        started[i] = thrd_create(&th[i], worker_main, &w[i]) == thrd_success;
    if (rc == GT_OK)
        worker_main(&w[0]);   /* the first here; a thread not started did nothing */
    for (int i = 1; w && i < n; i++) {
        if (started[i])
            thrd_join(th[i], NULL);
        if (w[i].db)
            gt_db_close(w[i].db);
    }
    for (int i = 0; rc == GT_OK && w && i < n; i++)
        if (w[i].rc) {
            *err = w[i].err;
            rc = w[i].rc;
        }
    free(w);
    free(th);
    free(started);
    return rc;
}

/* Keep every root's results, in one transaction. */
static int save_all(struct gt_db *db, const struct shared *sh, size_t *tracked,
                    size_t *calibrated, struct gt_error *err)
{
    const struct gt_rootcache_opts *o = sh->o;
    int rc = gt_db_begin(db, err);
    for (size_t i = 0; rc == GT_OK && i < sh->n; i++) {
        const struct root_result *r = &sh->res[i];
        const char *root = sh->roots[i].src;
        if (o->adapt && (rc = gt_adapt_save(db, root, o->adapt, &r->adapt, err)) == GT_OK)
            *tracked += r->adapt.anchor != INT64_MIN;
        if (rc == GT_OK && o->calib &&
            (rc = gt_calib_save(db, root, o->calib, &r->cal, err)) == GT_OK)
            *calibrated += r->cal.lead > 0;
    }
    if (rc == GT_OK)
        return gt_db_commit(db, err);
    gt_db_rollback(db);
    *tracked = *calibrated = 0;
    return rc;
}

int gt_rootcache_refresh(struct gt_db *db, const struct gt_rootcache_opts *o, size_t *tracked,
                         size_t *calibrated, struct gt_error *err)
{
    *tracked = *calibrated = 0;
    if (!o->adapt && !o->calib)
        return GT_OK;
    struct gt_newest_row *roots = NULL;
    size_t n = 0;
    int rc = gt_query_newest_by_src(db, &roots, &n, err);
    if (rc)
        return rc;
    struct shared sh = {o, roots, calloc(n ? n : 1, sizeof *sh.res), n, 0, 0};
    if (!sh.res)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK) {
        if (o->progress)
            gt_progress_start(o->progress, "refit", "roots", (double)n);
        rc = replay_all(db, &sh, err);
        if (o->progress)
            gt_progress_end(o->progress);
    }
    if (rc == GT_OK)
        rc = save_all(db, &sh, tracked, calibrated, err);
    free(sh.res);
    gt_newest_free(roots, n);
    return rc;
}
