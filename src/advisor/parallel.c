/*
 * parallel.c - see parallel.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "parallel.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <threads.h>

struct shared {
    size_t n;
    atomic_size_t next, done;
    gt_par_job job;
    void *ctx;
    void (*progress)(void *ctx, double done, double total);
    void *progress_ctx;
};

struct worker {
    struct shared *sh;
    struct gt_db *db;
    bool first;               /* the caller's thread: tells the progress */
    int rc;
    struct gt_error err;
};

static int worker_main(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;
    for (;;) {
        size_t i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->n)
            break;
        if ((w->rc = sh->job(sh->ctx, w->db, i, &w->err))) {
            atomic_store(&sh->next, sh->n);   /* the others stop too */
            break;
        }
        size_t done = atomic_fetch_add(&sh->done, 1) + 1;
        if (w->first && sh->progress)
            sh->progress(sh->progress_ctx, (double)done, (double)sh->n);
    }
    return 0;
}

int gt_par_run(struct gt_db *db, size_t n, int threads, gt_par_job job, void *ctx,
               void (*progress)(void *ctx, double done, double total), void *progress_ctx,
               struct gt_error *err)
{
    struct shared sh = {n, 0, 0, job, ctx, progress, progress_ctx};
    int nt = threads < 1 ? 1 : threads;
    if ((size_t)nt > n)
        nt = n ? (int)n : 1;
    struct worker *w = calloc((size_t)nt, sizeof *w);
    thrd_t *th = calloc((size_t)nt, sizeof *th);
    bool *started = calloc((size_t)nt, sizeof *started);
    int rc = w && th && started ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (int i = 0; rc == GT_OK && i < nt; i++) {
        w[i] = (struct worker){&sh, db, i == 0, GT_OK, {0}};
        if (i > 0 && gt_db_open(gt_db_address(db), GT_DB_EXISTING, gt_db_busy_ms(db),
                                &w[i].db, &w[i].err) != GT_OK)
            w[i].db = NULL;   /* no connection: its share is the others' */
    }
    for (int i = 1; rc == GT_OK && i < nt; i++)
        started[i] = w[i].db && thrd_create(&th[i], worker_main, &w[i]) == thrd_success;
    if (rc == GT_OK)
        worker_main(&w[0]);   /* here, to the end of the queue */
    for (int i = 1; w && i < nt; i++) {
        if (started[i])
            thrd_join(th[i], NULL);
        if (w[i].db)
            gt_db_close(w[i].db);
    }
    for (int i = 0; rc == GT_OK && w && i < nt; i++)
        if (w[i].rc) {
            *err = w[i].err;
            rc = w[i].rc;
        }
    free(w);
    free(th);
    free(started);
    return rc;
}
