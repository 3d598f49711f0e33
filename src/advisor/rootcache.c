/*
 * rootcache.c - see rootcache.h.
 *
 * A job is one root's collective: all its partners (whole; the adaptive
 * errors go with it) or those rank and place take, named either way (a
 * calibration is kept under the partners it replayed: naming them spares
 * a scan of every pair per root).  The jobs are
 * judged first on the caller's connection (the fits say which partners
 * max_loss leaves out), replayed on the threads, then saved.
 */
#define _POSIX_C_SOURCE 200809L
#include "rootcache.h"
#include "base/interrupt.h"
#include "db/query.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

struct job {
    const char *root;
    const char **names;       /* the partners */
    size_t nnames;
    bool whole;               /* all the root's */
    struct gt_adapt adapt;    /* when whole */
    struct gt_calib cal;
};

/* Every stored pair by source then destination (gt_query_pair_ids). */
struct pairs {
    char **src, **dst;
    size_t n, cap;
};

struct jobs {
    struct job *v;
    size_t n, cap;
};

/* The work the threads share. */
struct shared {
    const struct gt_rootcache_opts *o;
    struct job *jobs;
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

static int take_pair(void *ctx, int64_t src, const char *src_name, int64_t dst,
                     const char *dst_name)
{
    (void)src, (void)dst;
    struct pairs *p = ctx;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        char **s = realloc(p->src, cap * sizeof *s);
        if (s)
            p->src = s;
        char **d = s ? realloc(p->dst, cap * sizeof *d) : NULL;
        if (!d)
            return GT_ENOMEM;
        p->dst = d, p->cap = cap;
    }
    p->src[p->n] = strdup(src_name);
    p->dst[p->n] = strdup(dst_name);
    if (!p->src[p->n] || !p->dst[p->n]) {
        free(p->src[p->n]);
        free(p->dst[p->n]);
        return GT_ENOMEM;
    }
    p->n++;
    return GT_OK;
}

static void pairs_free(struct pairs *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->src[i]);
        free(p->dst[i]);
    }
    free(p->src);
    free(p->dst);
}

static struct job *job_push(struct jobs *j, const char *root)
{
    if (j->n == j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 64;
        struct job *v = realloc(j->v, cap * sizeof *v);
        if (!v)
            return NULL;
        j->v = v, j->cap = cap;
    }
    struct job *b = &j->v[j->n++];
    memset(b, 0, sizeof *b);
    b->root = root;
    b->adapt.anchor = INT64_MIN;
    return b;
}

static void jobs_free(struct jobs *j)
{
    for (size_t i = 0; i < j->n; i++)
        free(j->v[i].names);
    free(j->v);
}

/* The jobs of the root whose partners are p->dst[from..to): its whole
 * collective, and the partners rank and place take when max_loss leaves
 * some out (and not all). */
static int root_jobs(struct gt_advisor *adv, const struct pairs *p, size_t from, size_t to,
                     bool calib, struct jobs *j, struct gt_error *err)
{
    const char *root = p->src[from];
    struct job *whole = job_push(j, root);
    const char **all = whole ? malloc((to - from) * sizeof *all) : NULL;
    if (!all)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = from; i < to; i++)
        all[i - from] = p->dst[i];
    whole->names = all, whole->nnames = to - from, whole->whole = true;
    if (!calib)
        return GT_OK;
    const char **names = malloc((to - from) * sizeof *names);
    if (!names)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    size_t n = 0;
    int rc = GT_OK;
    for (size_t i = from; rc == GT_OK && i < to; i++) {
        bool takes;
        if ((rc = gt_advisor_takes(adv, root, p->dst[i], &takes, err)) == GT_OK && takes)
            names[n++] = p->dst[i];
    }
    struct job *b = rc == GT_OK && n > 0 && n < to - from ? job_push(j, root) : NULL;
    if (b) {
        b->names = names, b->nnames = n;
        return GT_OK;
    }
    free(names);
    if (rc == GT_OK && n > 0 && n < to - from)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    return rc;
}

/* The jobs of every root with pairs. */
static int plan(struct gt_db *db, const struct gt_rootcache_opts *o, struct pairs *p,
                struct jobs *j, struct gt_error *err)
{
    int rc = gt_query_pair_ids(db, take_pair, p, err);
    if (rc == GT_ENOMEM && !err->code)
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    struct gt_advisor *adv = rc == GT_OK && o->calib ? gt_advisor_new(db, o->adv) : NULL;
    if (rc == GT_OK && o->calib && !adv)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0, k; rc == GT_OK && i < p->n; i = k) {
        for (k = i + 1; k < p->n && !strcmp(p->src[k], p->src[i]); k++)
            ;
        rc = root_jobs(adv, p, i, k, o->calib != NULL, j, err);
    }
    gt_advisor_free(adv);   /* its snapshot ends before anything is written */
    return rc;
}

static int replay_job(struct gt_db *db, const struct gt_rootcache_opts *o, struct job *b,
                      struct gt_error *err)
{
    int rc = o->adapt && b->whole ? gt_adapt_replay(db, b->root, o->adapt, &b->adapt, err)
                                  : GT_OK;
    if (rc == GT_ENOTFOUND) {   /* only itself: no collective */
        rc = GT_OK;
        b->adapt.anchor = INT64_MIN;
        gt_error_clear(err);
    }
    if (rc == GT_OK && o->calib) {
        struct gt_calib_opts co = *o->calib;
        co.sites = b->names, co.nsites = b->nnames;
        rc = gt_calib_replay(db, b->root, &co, &b->cal, err);
    }
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
        w->rc = replay_job(w->db, sh->o, &sh->jobs[i], &w->err);
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

/* Replay the jobs on o->threads threads: the first on db, the others
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
        worker_main(&w[0]);   /* here, to the end of the queue: a thread not
                                 started leaves its share to it */
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

/* Keep every job's results, in one transaction. */
static int save_all(struct gt_db *db, const struct shared *sh, struct gt_rootcache_counts *out,
                    struct gt_error *err)
{
    const struct gt_rootcache_opts *o = sh->o;
    int rc = gt_db_begin(db, err);
    for (size_t i = 0; rc == GT_OK && i < sh->n; i++) {
        const struct job *b = &sh->jobs[i];
        if (o->adapt && b->whole &&
            (rc = gt_adapt_save(db, b->root, o->adapt, &b->adapt, err)) == GT_OK)
            out->tracked += b->adapt.anchor != INT64_MIN;
        if (rc || !o->calib)
            continue;
        struct gt_calib_opts co = *o->calib;
        co.sites = b->names, co.nsites = b->nnames;
        if ((rc = gt_calib_save(db, b->root, &co, &b->cal, err)) == GT_OK) {
            out->calibrations += b->cal.lead > 0;
            out->calibrated += b->cal.lead > 0 && b->whole;
        }
    }
    if (rc == GT_OK)
        return gt_db_commit(db, err);
    gt_db_rollback(db);
    memset(out, 0, sizeof *out);
    return rc;
}

int gt_rootcache_refresh(struct gt_db *db, const struct gt_rootcache_opts *o,
                         struct gt_rootcache_counts *out, struct gt_error *err)
{
    memset(out, 0, sizeof *out);
    if (!o->adapt && !o->calib)
        return GT_OK;
    struct pairs p = {0};
    struct jobs j = {0};
    int rc = plan(db, o, &p, &j, err);
    struct shared sh = {o, j.v, j.n, 0, 0};
    if (rc == GT_OK) {
        if (o->progress)
            gt_progress_start(o->progress, "refit", "replays", (double)j.n);
        rc = replay_all(db, &sh, err);
        if (o->progress)
            gt_progress_end(o->progress);
    }
    if (rc == GT_OK)
        rc = save_all(db, &sh, out, err);
    jobs_free(&j);
    pairs_free(&p);
    return rc;
}
