/*
 * parallel.c - see parallel.h.  gt_par_team_run is the only thrd_create
 * of the advisor; gt_par_run is a team over a queue of jobs.
 */
#define _POSIX_C_SOURCE 200809L
#include "parallel.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <threads.h>

/* ------------------------------------------------------------ a team */

struct member_arg {
    gt_par_member member;
    void *ctx;
    int i;
};

static int member_main(void *arg)
{
    const struct member_arg *m = arg;
    m->member(m->ctx, m->i);
    return 0;
}

void gt_par_team_run(int n, gt_par_member member, void *ctx)
{
    if (n < 1)
        return;
    thrd_t *th = calloc((size_t)n, sizeof *th);
    struct member_arg *args = calloc((size_t)n, sizeof *args);
    bool *started = calloc((size_t)n, sizeof *started);
    for (int i = 1; th && args && started && i < n; i++) {
        args[i] = (struct member_arg){member, ctx, i};
        started[i] = thrd_create(&th[i], member_main, &args[i]) == thrd_success;
    }
    member(ctx, 0);   /* here, while the others run */
    for (int i = 1; i < n; i++) {
        if (started && started[i])
            thrd_join(th[i], NULL);
        else
            member(ctx, i);   /* not started (or no memory): here, after */
    }
    free(th);
    free(args);
    free(started);
}

/* ------------------------------------------------------------ jobs */

struct shared {
    size_t n;
    atomic_size_t next, done;
    gt_par_job job;
    void *ctx;
    void (*progress)(void *ctx, double done, double total);
    void *progress_ctx;
    size_t told;              /* the last done told (the caller's thread only) */
};

struct worker {
    struct shared *sh;
    struct gt_db *db;
    bool first;               /* the caller's thread: tells the progress */
    int rc;
    struct gt_error err;
};

/* Member m of the team: members[m] of the workers (ctx), the caller's
 * first, then those that have a connection. */
static void worker_main(void *ctx, int m)
{
    struct worker *w = ((struct worker **)ctx)[m];
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
        if (w->first && sh->progress) {
            sh->progress(sh->progress_ctx, (double)done, (double)sh->n);
            sh->told = done;
        }
    }
}

int gt_par_run(struct gt_db *db, size_t n, int threads, gt_par_job job, void *ctx,
               void (*progress)(void *ctx, double done, double total), void *progress_ctx,
               struct gt_error *err)
{
    struct shared sh = {n, 0, 0, job, ctx, progress, progress_ctx, 0};
    int nt = threads < 1 ? 1 : threads;
    if ((size_t)nt > n)
        nt = n ? (int)n : 1;
    struct worker *w = calloc((size_t)nt, sizeof *w);
    struct worker **members = calloc((size_t)nt, sizeof *members);
    int rc = w && members ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    int nm = 0;
    for (int i = 0; rc == GT_OK && i < nt; i++) {
        w[i] = (struct worker){&sh, db, i == 0, GT_OK, {0}};
        if (i > 0 && gt_db_open(gt_db_address(db), GT_DB_EXISTING, gt_db_busy_ms(db),
                                &w[i].db, &w[i].err) != GT_OK)
            w[i].db = NULL;   /* no connection: its share is the others' */
        if (i == 0 || w[i].db)
            members[nm++] = &w[i];
    }
    if (rc == GT_OK && progress)   /* from the start: its rate counts from here */
        progress(progress_ctx, 0, (double)n);
    if (rc == GT_OK)
        gt_par_team_run(nm, worker_main, members);
    /* the others may have done the last jobs (or all: quick ones) */
    if (rc == GT_OK && progress && sh.told < n && atomic_load(&sh.done) == n)
        progress(progress_ctx, (double)n, (double)n);
    for (int i = 1; w && i < nt; i++)
        if (w[i].db)
            gt_db_close(w[i].db);
    for (int i = 0; rc == GT_OK && w && i < nt; i++)
        if (w[i].rc) {
            *err = w[i].err;
            rc = w[i].rc;
        }
    free(w);
    free(members);
    return rc;
}
