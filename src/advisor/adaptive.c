/*
 * adaptive.c - see adaptive.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "adaptive.h"
#include "backtest.h"
#include "db/query.h"
#include "estimators/tracker.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* The candidates, in the order ties are broken (the backtest's). */
static const int methods[GT_ADAPT_NCAND] = {GT_BT_PARETO, GT_BT_NORMAL, GT_BT_LAST,
                                            GT_BT_EMPIRICAL};

const char *gt_adapt_name(int cand)
{
    return cand >= 0 && cand < GT_ADAPT_NCAND ? gt_bt_method_name(methods[cand]) : "none";
}

unsigned gt_adapt_methods(void)
{
    unsigned m = 0;
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        m |= 1u << methods[j];
    return m;
}

/* How many moments a replay at lead takes: H, combined's at least 16
 * leads (backtest.h), at most GT_ADAPT_MAX_OUTCOMES. */
static size_t replayed_moments(const struct gt_adapt_opts *o, long lead)
{
    size_t n = o->combine ? gt_bt_combine_horizon(o->outcomes, lead) : o->outcomes;
    return n < GT_ADAPT_MAX_OUTCOMES ? n : GT_ADAPT_MAX_OUTCOMES;
}

static void cache_key(const struct gt_adapt_opts *o, char *buf, size_t size)
{
    /* "track2": chosen with the guard (records before it chose without) */
    snprintf(buf, size, "%s:%.0fs:%zu:%s", o->combine ? "combine" : "track2", o->horizon_s,
             o->outcomes, o->cut_paper ? "paper" : "censor");
}

static int check(const struct gt_adapt_opts *o, struct gt_error *err)
{
    if (!(o->horizon_s > 0 && o->horizon_s <= GT_ADAPT_MAX_HORIZON_S) || o->outcomes < 1 ||
        o->outcomes > GT_ADAPT_MAX_OUTCOMES || o->window < 2 || o->window > GT_BT_MAX_WINDOW)
        return gt_error_set(err, GT_EUSAGE, "horizon", "adaptive: the horizon is 1 s to 30 "
                            "days, the outcomes 1 to %d, the window 2 to %d samples",
                            GT_ADAPT_MAX_OUTCOMES, GT_BT_MAX_WINDOW);
    return GT_OK;
}

/* The moments of one replay arrive in time order, each moment's methods
 * together: a moment's squared errors go to the tracker when the next
 * one starts.  The moments after the last scored one (to the one after
 * the partners' newest sample) only give the forecasts now. */
struct collect {
    struct gt_tracker *trk;
    int64_t last;             /* the last moment scored, s */
    int64_t t;
    double e[GT_ADAPT_NCAND];
    int64_t now_t;            /* the latest moment, s, and its forecasts */
    double now[GT_ADAPT_NCAND];
    double sq;                /* combined's own squared errors, and how many */
    size_t nsq;
};

static void flush(struct collect *c)
{
    if (c->t != INT64_MIN)
        gt_tracker_add(c->trk, c->e);
    c->t = INT64_MIN;
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        c->e[j] = NAN;
}

static int candidate_of(int method)
{
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        if (method == methods[j])
            return j;
    return -1;
}

static void on_moment(void *ctx, const struct gt_bt_moment *m)
{
    struct collect *c = ctx;
    int j = candidate_of(m->method);
    if (m->t > c->now_t) {
        c->now_t = m->t;
        for (int k = 0; k < GT_ADAPT_NCAND; k++)
            c->now[k] = NAN;
    }
    if (j >= 0)
        c->now[j] = m->predicted;
    if (isnan(m->actual) || m->t > c->last)
        return;
    if (m->method == GT_BT_COMBINED) {
        c->sq += (m->predicted - m->actual) * (m->predicted - m->actual);
        c->nsq++;
        return;
    }
    if (m->t != c->t) {
        flush(c);
        c->t = m->t;
    }
    if (j >= 0)
        c->e[j] = m->predicted - m->actual;
}

static void none(struct gt_adapt *out, int64_t anchor)
{
    memset(out, 0, sizeof *out);
    out->chosen = -1;
    out->anchor = anchor;
    out->rmse_combined = NAN;
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        out->rmse[j] = out->weight[j] = NAN;
}

/* combine: the weights of the kept forecasts, normalized over them (the
 * backtest divides by their sum), and the heaviest as the choice (ties:
 * adaptive's). */
static void weigh(const struct gt_tracker *trk, const bool *use, struct gt_adapt *out)
{
    double w[GT_TRACK_MAX_METHODS], sum = 0;
    gt_tracker_weights(trk, gt_bt_combine_shrink(GT_BT_SHRINK, GT_ADAPT_NCAND,
                                                 gt_tracker_count(trk)), use, w);
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        sum += use[j] ? w[j] : 0;
    for (int j = 0; j < GT_ADAPT_NCAND; j++) {
        out->weight[j] = !use[j] ? NAN : sum > 0 ? w[j] / sum : 0;
        if (use[j] && out->weight[j] > out->weight[out->chosen])
            out->chosen = j;
    }
}

/* The choice: the best tracked of the forecasts now that the guard keeps
 * (backtest.h); without forecasts now (no moment after the newest sample
 * could be replayed) the best tracked of all; combine: the weights too. */
static void choose(const struct collect *c, bool combine, struct gt_adapt *out)
{
    bool use[GT_ADAPT_NCAND];
    out->chosen = gt_bt_adaptive_pick(c->now, c->trk, GT_ADAPT_NCAND, use);
    if (out->chosen < 0) {
        out->chosen = gt_tracker_best(c->trk, NULL);
        for (int j = 0; j < GT_ADAPT_NCAND; j++)
            use[j] = true;
    }
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        if (!isnan(c->now[j]) && !use[j])
            out->left_out |= 1u << j;
    if (combine) {
        weigh(c->trk, use, out);
        out->rmse_combined = c->nsq ? sqrt(c->sq / (double)c->nsq) : NAN;
    }
}

/* Moments t = anchor - lead - H + 1 .. anchor - lead (in slots): the last
 * H whose outcome at t + lead is known at the anchor; then on to the one
 * after the newest slot, for the forecasts now. */
static int replay(struct gt_db *db, const char *root, const struct gt_adapt_opts *o,
                  int64_t anchor, struct gt_adapt *out, struct gt_error *err)
{
    none(out, anchor);
    struct gt_bt_opts bo;
    const char **sites;
    int rc = gt_bt_last_moments(db, root, o->window, o->horizon_s, o->outcomes, anchor, 0,
                                o->sites, o->nsites, &bo, &sites, err);
    if (rc)
        return rc;
    out->interval = bo.interval;
    out->lead = bo.taus[0];
    size_t n = replayed_moments(o, out->lead);
    bo.from = bo.to - (int64_t)(n - 1) * bo.interval;   /* the last n moments */
    struct collect c = {gt_tracker_new(GT_ADAPT_NCAND, n), bo.to, INT64_MIN, {0}, INT64_MIN,
                        {0}, 0, 0};
    bo.to += (int64_t)(out->lead + 1) * bo.interval;   /* the moment after the anchor's slot */
    bo.unscored = true;
    bo.skip_after = c.last;   /* none of the lead's moments between but the latest */
    bo.horizon = bo.combine_horizon = n;
    out->of_outcomes = n;
    bo.cut_paper = o->cut_paper;
    bo.methods = gt_adapt_methods() | (o->combine ? 1u << GT_BT_COMBINED : 0);
    bo.stop = o->stop, bo.stop_ctx = o->stop_ctx;
    if (!c.trk) {
        free(sites);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    flush(&c);
    bo.moment = on_moment, bo.moment_ctx = &c;
    struct gt_bt_result *r = NULL;
    rc = gt_backtest_run(gt_db_address(db), gt_db_busy_ms(db), &bo, &r, err);
    flush(&c);
    gt_bt_result_free(r);
    if (rc == GT_OK) {
        out->outcomes = gt_tracker_count(c.trk);
        for (int j = 0; j < GT_ADAPT_NCAND; j++)
            out->rmse[j] = gt_tracker_rmse(c.trk, j);
        if (out->outcomes)
            choose(&c, o->combine, out);
    }
    gt_tracker_free(c.trk);
    free(sites);
    return rc;
}

/* The root's id, the anchor (the newest outcome the query may see), and
 * whether the collective is all of the root's partners (cacheable). */
static int anchor_of(struct gt_db *db, const char *root, const struct gt_adapt_opts *o,
                     int64_t *id, int64_t *anchor, bool *all, struct gt_error *err)
{
    int64_t newest, partners;
    int rc = gt_query_root_newest(db, root, id, &partners, &newest, err);
    if (rc == GT_ENOTFOUND) {   /* an unknown root: the estimate says so */
        *id = 0;
        *anchor = INT64_MIN;
        *all = false;
        return GT_OK;
    }
    if (rc == GT_OK) {
        *anchor = newest < o->at ? newest : o->at;
        struct gt_bt_scope sc = {0, 0, false};
        rc = gt_bt_scope_of(db, root, *id, partners, o->sites, o->nsites, &sc, err);
        *all = sc.all;
    }
    return rc;
}

/* Check o and find the anchor; *done when nothing can be scored (out
 * then says so). */
static int start(struct gt_db *db, const char *root, const struct gt_adapt_opts *o,
                 int64_t *id, int64_t *anchor, bool *all, struct gt_adapt *out, bool *done,
                 struct gt_error *err)
{
    int rc = check(o, err);
    if (rc == GT_OK)
        rc = anchor_of(db, root, o, id, anchor, all, err);
    *done = rc != GT_OK || *anchor == INT64_MIN;   /* no partner samples */
    if (rc == GT_OK && *done) {
        none(out, *anchor);
        out->of_outcomes = o->outcomes;
    }
    return rc;
}

int gt_adapt_replay(struct gt_db *db, const char *root, const struct gt_adapt_opts *o,
                    struct gt_adapt *out, struct gt_error *err)
{
    int64_t id, anchor;
    bool all, done;
    int rc = start(db, root, o, &id, &anchor, &all, out, &done, err);
    return rc || done ? rc : replay(db, root, o, anchor, out, err);
}

int gt_adapt_track(struct gt_db *db, const char *root, const struct gt_adapt_opts *o,
                   struct gt_adapt *out, struct gt_error *err)
{
    int64_t id, anchor;
    bool all, done;
    int rc = start(db, root, o, &id, &anchor, &all, out, &done, err);
    if (rc || done)
        return rc;
    char key[96];
    cache_key(o, key, sizeof key);
    struct gt_track_rec rec;
    bool found = false;
    if (all && (rc = gt_trackcache_load(db, (long)o->window, key, id, &rec, &found, err)))
        return rc;
    if (!found || rec.anchor != anchor)
        return replay(db, root, o, anchor, out, err);
    none(out, anchor);
    out->chosen = rec.chosen;
    out->of_outcomes = replayed_moments(o, (long)rec.lead);
    out->left_out = (unsigned)rec.left_out;
    out->outcomes = (size_t)rec.outcomes;
    out->lead = (long)rec.lead;
    out->interval = rec.interval;
    memcpy(out->rmse, rec.rmse, sizeof out->rmse);
    memcpy(out->weight, rec.weight, sizeof out->weight);
    out->rmse_combined = rec.rmse_combined;
    out->cached = true;
    return GT_OK;
}

int gt_adapt_save(struct gt_db *db, const char *root, const struct gt_adapt_opts *o,
                  const struct gt_adapt *a, struct gt_error *err)
{
    int64_t id, newest, partners;
    if (a->anchor == INT64_MIN || o->sites)
        return GT_OK;   /* nothing known, or not the root's whole collective */
    int rc = gt_query_root_newest(db, root, &id, &partners, &newest, err);
    if (rc)
        return rc;
    char key[96];
    cache_key(o, key, sizeof key);
    struct gt_track_rec rec = {a->anchor, a->interval, a->lead, (int64_t)a->outcomes,
                               a->chosen, (int32_t)a->left_out, {0}, {0},
                               a->rmse_combined};
    memcpy(rec.rmse, a->rmse, sizeof rec.rmse);
    memcpy(rec.weight, a->weight, sizeof rec.weight);
    return gt_trackcache_save(db, (long)o->window, key, id, &rec, err);
}
