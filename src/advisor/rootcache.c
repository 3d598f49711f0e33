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
#include "parallel.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct job {
    const char *root;
    const char **names;       /* the partners */
    size_t nnames;
    bool whole;               /* all the root's */
    struct gt_adapt adapt;    /* when whole */
    struct gt_calib cal;
    /* a state an answer kept (its options and partners; names unused):
       gone on as that answer would, kept as it was; NULL: refit's own */
    const struct gt_calib_kept *kept;
};

/* Every stored pair by source then destination (gt_query_pair_ids). */
struct pairs {
    char **src, **dst;
    int64_t *src_id;
    size_t n, cap;
};

/* A root's states kept by answers (gt_calib_kept_list). */
struct kept_of {
    struct gt_calib_kept *v;
    size_t n;
};

struct jobs {
    struct job *v;
    size_t n, cap;
    struct kept_of *kept;     /* what the jobs' kept point into */
    size_t nkept, kept_cap;
};

/* What the replays' threads share. */
struct run {
    const struct gt_rootcache_opts *o;
    struct jobs *jobs;
    int64_t version;        /* the store's data version before the replays */
};

static int take_pair(void *ctx, int64_t src, const char *src_name, int64_t dst,
                     const char *dst_name)
{
    (void)dst;
    struct pairs *p = ctx;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        char **s = realloc(p->src, cap * sizeof *s);
        if (s)
            p->src = s;
        char **d = s ? realloc(p->dst, cap * sizeof *d) : NULL;
        if (d)
            p->dst = d;
        int64_t *id = d ? realloc(p->src_id, cap * sizeof *id) : NULL;
        if (!id)
            return GT_ENOMEM;
        p->src_id = id, p->cap = cap;
    }
    p->src_id[p->n] = src;
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
    free(p->src_id);
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
    for (size_t i = 0; i < j->n; i++) {
        if (!j->v[i].kept)
            free(j->v[i].names);
        gt_calib_release(&j->v[i].cal);
    }
    free(j->v);
    for (size_t i = 0; i < j->nkept; i++)
        gt_calib_kept_free(j->kept[i].v, j->kept[i].n);
    free(j->kept);
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

/* Whether job b (refit's own, of root root_id with `partners` pairs) is
 * kept under (window, key). */
static int keeps_under(struct gt_db *db, const struct gt_calib_opts *co, const struct job *b,
                       int64_t root_id, size_t partners, const struct gt_calib_kept *k,
                       bool *same, struct gt_error *err)
{
    struct gt_bt_scope sc;
    char key[GT_CALIB_KEY_MAX];
    *same = false;
    if (k->o.window != co->window)
        return GT_OK;
    int rc = gt_bt_scope_of(db, b->root, root_id, (int64_t)partners, b->names, b->nnames, &sc,
                            err);
    if (rc == GT_OK) {
        gt_calib_key(co, &sc, key, sizeof key);
        *same = !strcmp(key, k->key);
    }
    return rc;
}

/* A job for each state kept for the root of jobs first.. (its own, just
 * planned) that is not one of them: the sets and options answers asked
 * (the other partners a broker asks, another lead), gone on with the
 * moments since as the next such answer would. */
static int kept_jobs(struct gt_db *db, const struct gt_calib_opts *co, int64_t root_id,
                     size_t partners, struct jobs *j, size_t first, struct gt_error *err)
{
    struct kept_of ko = {NULL, 0};
    int rc = gt_calib_kept_list(db, root_id, &ko.v, &ko.n, err);
    if (rc == GT_OK && ko.n && j->nkept == j->kept_cap) {
        size_t cap = j->kept_cap ? 2 * j->kept_cap : 64;
        struct kept_of *v = realloc(j->kept, cap * sizeof *v);
        if (!v)
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        else
            j->kept = v, j->kept_cap = cap;
    }
    if (rc || !ko.n) {
        gt_calib_kept_free(ko.v, ko.n);
        return rc;
    }
    j->kept[j->nkept++] = ko;
    size_t own = j->n;
    for (size_t i = 0; rc == GT_OK && i < ko.n; i++) {
        bool same = false;
        for (size_t b = first; rc == GT_OK && !same && b < own; b++)
            rc = keeps_under(db, co, &j->v[b], root_id, partners, &ko.v[i], &same, err);
        struct job *b = rc == GT_OK && !same ? job_push(j, j->v[first].root) : NULL;
        if (b)
            b->kept = &ko.v[i];
        else if (rc == GT_OK && !same)
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
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
        size_t first = j->n;
        rc = root_jobs(adv, p, i, k, o->calib != NULL, j, err);
        if (rc == GT_OK && o->calib)
            rc = kept_jobs(db, o->calib, p->src_id[i], k - i, j, first, err);
    }
    gt_advisor_free(adv);   /* its snapshot ends before anything is written */
    return rc;
}

static int replay_job(struct gt_db *db, const struct gt_rootcache_opts *o, struct job *b,
                      struct gt_error *err)
{
    int rc = o->adapt && b->whole && !b->kept
                 ? gt_adapt_replay(db, b->root, o->adapt, &b->adapt, err)
                 : GT_OK;
    if (rc == GT_ENOTFOUND) {   /* only itself: no collective */
        rc = GT_OK;
        b->adapt.anchor = INT64_MIN;
        gt_error_clear(err);
    }
    if (rc == GT_OK && o->calib) {
        struct gt_calib_opts co = b->kept ? b->kept->o : *o->calib;
        if (!b->kept)
            co.sites = b->names, co.nsites = b->nnames;
        rc = gt_calib_track(db, b->root, &co, &b->cal, err);   /* a kept state goes on */
    }
    return rc == GT_OK && gt_interrupted() ? gt_error_set(err, GT_EINTR, NULL, "interrupted")
                                           : rc;
}

/* gt_par_run's job: job i of the list. */
static int run_job(void *ctx, struct gt_db *db, size_t i, struct gt_error *err)
{
    const struct run *r = ctx;
    return replay_job(db, r->o, &r->jobs->v[i], err);
}

/* gt_par_run's progress: the caller's line. */
static void job_progress(void *ctx, double done, double total)
{
    (void)total;
    gt_progress_update(ctx, done);
}

/* Keep every job's results, in one transaction. */
static int save_all(struct gt_db *db, const struct run *r, struct gt_rootcache_counts *out,
                    struct gt_error *err)
{
    const struct gt_rootcache_opts *o = r->o;
    int rc = gt_db_begin(db, err);
    /* a sample stored while the replays read (another process's ingest)
       was not there to drop the states they make: keep none then (the
       next refit or answer replays) */
    int64_t now = r->version;
    if (rc == GT_OK)
        rc = gt_db_data_version(db, &now, err);
    bool fresh = now == r->version;
    for (size_t i = 0; rc == GT_OK && i < r->jobs->n; i++) {
        const struct job *b = &r->jobs->v[i];
        if (o->adapt && b->whole && !b->kept &&
            (rc = gt_adapt_save(db, b->root, o->adapt, &b->adapt, err)) == GT_OK)
            out->tracked += b->adapt.anchor != INT64_MIN;
        if (rc || !o->calib)
            continue;
        if (!fresh)
            continue;   /* nothing kept */
        if ((rc = gt_calib_save(db, b->kept ? &b->kept->o : o->calib, &b->cal, err)) ==
            GT_OK) {
            out->calibrations += b->cal.lead > 0 && !b->kept;
            out->calibrated += b->cal.lead > 0 && b->whole && !b->kept;
            out->advanced += b->cal.lead > 0 && b->kept;
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
    struct run r = {o, &j, 0};
    if (rc == GT_OK)
        rc = gt_db_data_version(db, &r.version, err);
    if (rc == GT_OK) {
        if (o->progress)
            gt_progress_start(o->progress, "refit", "replays", (double)j.n);
        rc = gt_par_run(db, j.n, o->threads, run_job, &r, o->progress ? job_progress : NULL,
                        o->progress, err);
        if (o->progress)
            gt_progress_end(o->progress);
    }
    if (rc == GT_OK)
        rc = save_all(db, &r, out, err);
    jobs_free(&j);
    pairs_free(&p);
    return rc;
}
