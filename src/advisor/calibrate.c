/*
 * calibrate.c - see calibrate.h.
 *
 * The replay reports each moment's quantiles at the levels asked
 * (gt_bt_opts.levels); the calibrators are run here over that stream
 * with the backtest's rule of when an outcome is known (its moment plus
 * the lead is at most the current moment less one sample), so that a
 * quantile answered live is calibrated as the backtest scores it.
 */
#define _POSIX_C_SOURCE 200809L
#include "calibrate.h"
#include "adaptive.h"
#include "db/fitcache.h"
#include "db/query.h"
#include "estimators/conformal.h"
#include "parallel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(GT_CALIB_REC_LEVELS == GT_BT_MAX_LEVELS, "a cached calibration holds every level");

/* One replayed moment of the method calibrated. */
struct moment {
    int64_t t;
    double actual;
    double raw[GT_BT_MAX_LEVELS], issued[GT_BT_MAX_LEVELS];
};

struct stream {
    int method;
    size_t nlevels;
    struct moment *m;
    size_t n, cap;
    bool nomem;
};

static void on_moment(void *ctx, const struct gt_bt_moment *bm)
{
    struct stream *s = ctx;
    if (bm->method != s->method || !bm->lq || s->nomem)
        return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct moment *m = realloc(s->m, cap * sizeof *m);
        if (!m) {
            s->nomem = true;
            return;
        }
        s->m = m, s->cap = cap;
    }
    struct moment *m = &s->m[s->n++];
    m->t = bm->t;
    m->actual = bm->actual;
    memcpy(m->raw, bm->lq, s->nlevels * sizeof *m->raw);
}

/* Feed the calibrators over the moments in order, each outcome once its
 * moment + lead <= the current moment - 1 slot, and all by the end. */
static void run(struct stream *s, struct gt_conf **c, int64_t lead_s, int64_t iv)
{
    size_t known = 0;
    for (size_t i = 0; i <= s->n; i++) {
        int64_t now = i < s->n ? s->m[i].t : INT64_MAX;
        for (; known < i && (now == INT64_MAX || s->m[known].t + lead_s <= now - iv); known++)
            for (size_t k = 0; k < s->nlevels; k++)
                gt_conf_observe(c[k], s->m[known].raw[k], s->m[known].issued[k],
                                s->m[known].actual);
        for (size_t k = 0; i < s->n && k < s->nlevels; k++)
            s->m[i].issued[k] = gt_conf_adjust(c[k], s->m[i].raw[k]);
    }
}

static int check(const struct gt_calib_opts *o, struct gt_error *err)
{
    if (o->outcomes < 1 || o->outcomes > GT_CALIB_MAX_OUTCOMES || o->nlevels < 1 ||
        o->nlevels > GT_BT_MAX_LEVELS || o->method == GT_BT_LAST || o->method < 0 ||
        o->method >= GT_BT_NMETHODS)
        return gt_error_set(err, GT_EUSAGE, "calibration", "calibration: 1 to %d outcomes "
                            "and 1 to %d levels of a method with quantiles",
                            GT_CALIB_MAX_OUTCOMES, GT_BT_MAX_LEVELS);
    return GT_OK;
}

static void none(struct gt_calib *out, int64_t anchor)
{
    bool current = out->current;
    memset(out, 0, sizeof *out);
    out->current = current;
    for (size_t k = 0; k < GT_BT_MAX_LEVELS; k++)
        out->factor[k] = 1;
    out->anchor = anchor;
}

/* The cache key: every option the factors depend on but the window (the
 * row's own) and the levels (the record's), and the partners replayed. */
static void cache_key(const struct gt_calib_opts *o, const struct gt_bt_scope *sc, char *buf,
                      size_t size)
{
    /* "calib2": adaptive's and combined's forecasts with the guard */
    snprintf(buf, size, "calib2:%s:%.17gs:%zu:%zu:%s:%.17g:%.17g:%zu:%016llx",
             gt_bt_method_name(o->method), o->horizon_s, o->outcomes, o->adaptive_outcomes,
             o->cut_paper ? "paper" : "censor", o->verdict.max_ks, o->verdict.margin, sc->count,
             (unsigned long long)sc->hash);
}

static int replay(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                  int64_t anchor, struct stream *s, struct gt_calib *out, struct gt_error *err)
{
    struct gt_bt_opts bo;
    const char **sites;
    int rc = gt_bt_last_moments(db, root, o->window, o->horizon_s, o->outcomes, anchor,
                                o->sites, o->nsites, &bo, &sites, err);
    if (rc)
        return rc;
    out->lead = bo.taus[0];
    out->interval = bo.interval;
    bo.methods = 1u << o->method;
    if (GT_BT_IS_META(o->method))   /* adaptive, combined: and their candidates */
        bo.methods |= gt_adapt_methods();
    bo.horizon = o->adaptive_outcomes;
    bo.verdict = o->verdict;
    bo.cut_paper = o->cut_paper;
    bo.calibration = true;
    bo.levels = o->levels, bo.nlevels = o->nlevels;
    bo.moment = on_moment, bo.moment_ctx = s;
    bo.stop = o->stop, bo.stop_ctx = o->stop_ctx;
    struct gt_bt_result *r = NULL;
    rc = gt_backtest_run(gt_db_address(db), gt_db_busy_ms(db), &bo, &r, err);
    gt_bt_result_free(r);
    free(sites);
    if (rc == GT_OK && s->nomem)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    return rc;
}

/* The replay at anchor and the calibrators run over it. */
static int calibrate_at(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                        int64_t anchor, struct gt_calib *out, struct gt_error *err)
{
    struct stream s = {o->method, o->nlevels, NULL, 0, 0, false};
    none(out, anchor);
    int rc = replay(db, root, o, anchor, &s, out, err);
    if (rc == GT_ENOTFOUND || rc == GT_EINPUT || (rc == GT_EINTR && o->stop)) {
        /* nothing to replay (the partners named have no pairs, or too few
           samples to tell the interval), or stopped: the model's
           quantiles; the estimate says what is missing */
        free(s.m);
        none(out, anchor);
        out->stopped = rc == GT_EINTR;
        gt_error_clear(err);
        return GT_OK;
    }
    struct gt_conf *c[GT_BT_MAX_LEVELS] = {NULL};
    struct gt_conf_opts co = {o->outcomes, GT_BT_CAL_GAMMA};
    for (size_t k = 0; rc == GT_OK && k < o->nlevels; k++)
        if (!(c[k] = gt_conf_new(o->levels[k], &co)))
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK) {
        run(&s, c, out->lead * out->interval, out->interval);
        out->outcomes = s.n;
        for (size_t k = 0; k < o->nlevels; k++) {
            out->factor[k] = gt_conf_adjust(c[k], 1);
            out->ready[k] = gt_conf_ready(c[k]);
        }
    }
    for (size_t k = 0; k < o->nlevels; k++)
        gt_conf_free(c[k]);
    free(s.m);
    return rc;
}

/* Check o, find root and the anchor; *done when nothing is stored for
 * root (out then holds the model's quantiles). */
static int start(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                 int64_t *id, int64_t *partners, int64_t *anchor, bool *done,
                 struct gt_calib *out, struct gt_error *err)
{
    int64_t newest = INT64_MIN;
    out->current = false;
    none(out, INT64_MIN);
    *done = true;
    int rc = check(o, err);
    if (rc)
        return rc;
    if ((rc = gt_query_root_newest(db, root, id, partners, &newest, err)))
        return rc == GT_ENOTFOUND ? GT_OK : rc;   /* nothing stored: the model's */
    *anchor = newest < o->at ? newest : o->at;
    out->current = newest <= o->at;
    *done = false;
    return GT_OK;
}

int gt_calib_replay(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                    struct gt_calib *out, struct gt_error *err)
{
    int64_t id, partners, anchor;
    bool done;
    struct gt_bt_scope sc;
    int rc = start(db, root, o, &id, &partners, &anchor, &done, out, err);
    if (rc || done || (rc = gt_bt_scope_of(db, id, partners, o->sites, o->nsites, &sc, err)))
        return rc;
    if ((rc = calibrate_at(db, root, o, anchor, out, err)) == GT_OK)
        out->root_id = id, out->scope = sc;
    return rc;
}

/* Level k of rec, or -1. */
static int level_in(const struct gt_calib_rec *rec, double level)
{
    for (int k = 0; k < (int)rec->nlevels; k++)
        if (rec->level[k] == level)
            return k;
    return -1;
}

/* out from rec when it was kept at anchor and holds every level of o's. */
static bool from_record(const struct gt_calib_rec *rec, const struct gt_calib_opts *o,
                        int64_t anchor, struct gt_calib *out)
{
    if (rec->anchor != anchor)
        return false;
    for (size_t k = 0; k < o->nlevels; k++)
        if (level_in(rec, o->levels[k]) < 0)
            return false;
    none(out, anchor);
    for (size_t k = 0; k < o->nlevels; k++) {
        int j = level_in(rec, o->levels[k]);
        out->factor[k] = rec->factor[j];
        out->ready[k] = (rec->ready >> j) & 1;
    }
    out->outcomes = (size_t)rec->outcomes;
    out->lead = (long)rec->lead;
    out->interval = rec->interval;
    out->cached = true;
    return true;
}

int gt_calib_track(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                   struct gt_calib *out, struct gt_error *err)
{
    int64_t id, partners, anchor;
    bool done;
    int rc = start(db, root, o, &id, &partners, &anchor, &done, out, err);
    if (rc || done)
        return rc;
    struct gt_bt_scope sc;
    if ((rc = gt_bt_scope_of(db, id, partners, o->sites, o->nsites, &sc, err)))
        return rc;
    if (sc.count) {
        char key[200];
        cache_key(o, &sc, key, sizeof key);
        struct gt_calib_rec rec;
        bool found = false;
        rc = gt_calibcache_load(db, (long)o->window, key, id, &rec, &found, err);
        if (rc == GT_OK && !(found && from_record(&rec, o, anchor, out)))
            rc = calibrate_at(db, root, o, anchor, out, err);
    } else {
        rc = calibrate_at(db, root, o, anchor, out, err);
    }
    if (rc == GT_OK)
        out->root_id = id, out->scope = sc;
    return rc;
}

int gt_calib_save(struct gt_db *db, const struct gt_calib_opts *o, const struct gt_calib *c,
                  struct gt_error *err)
{
    if (c->stopped || c->lead < 1 || c->anchor == INT64_MIN || !c->scope.count ||
        o->nlevels > GT_CALIB_REC_LEVELS)
        return GT_OK;   /* nothing replayed */
    struct gt_calib_rec rec = {c->anchor, c->interval, c->lead, (int64_t)c->outcomes,
                               (int64_t)o->nlevels, 0, {0}, {0}};
    for (size_t k = 0; k < o->nlevels; k++) {
        rec.level[k] = o->levels[k];
        rec.factor[k] = c->factor[k];
        rec.ready |= (int64_t)c->ready[k] << k;
    }
    char key[200];
    cache_key(o, &c->scope, key, sizeof key);
    return gt_calibcache_save(db, (long)o->window, key, c->root_id, &rec, err);
}

/* gt_par_run's job: calibration i. */
static int track_job(void *ctx, struct gt_db *db, size_t i, struct gt_error *err)
{
    struct gt_calib_job *j = (struct gt_calib_job *)ctx + i;
    return gt_calib_track(db, j->root, &j->o, &j->out, err);
}

int gt_calib_track_many(struct gt_db *db, struct gt_calib_job *jobs, size_t n, int threads,
                        void (*progress)(void *ctx, double done, double total),
                        void *progress_ctx, struct gt_error *err)
{
    return gt_par_run(db, n, threads, track_job, jobs, progress, progress_ctx, err);
}
