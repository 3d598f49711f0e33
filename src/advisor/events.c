/*
 * events.c - what happened on each pair (events.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "events.h"
#include "advisor.h"
#include "pairfits.h"

#include "base/util.h"
#include "db/eventlog.h"
#include "db/query.h"
#include "estimators/changepoint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[GT_EV_NKINDS] = {"shift", "loss_burst", "outage",
                                                      "outage_end", "silent", "reporting",
                                                      "fit_regime"};

const char *gt_event_name(enum gt_event_kind k)
{
    return kind_names[k];
}

struct gt_event_opts gt_event_opts_of(const struct gt_config *cfg)
{
    return (struct gt_event_opts){cfg->th_burst_min, cfg->th_outage_s, cfg->th_silent_s,
                                  cfg->th_shift_min};
}

bool gt_event_parse(const char *s, enum gt_event_kind *out)
{
    for (int i = 0; i < GT_EV_NKINDS; i++)
        if (!strcmp(s, kind_names[i])) {
            *out = (enum gt_event_kind)i;
            return true;
        }
    return false;
}

/* ------------------------------------------------------------ one series */

struct list {
    struct gt_event *v;
    size_t n, cap;
};

static int add(struct list *l, struct gt_event e)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        struct gt_event *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = e;
    return GT_OK;
}

#define SIDE 30   /* valid samples either side of a shift its medians take */

/* The median of up to SIDE valid samples from i going by step (-1, +1). */
static double side_median(const double *rtt, size_t n, long i, int step)
{
    double v[SIDE];
    size_t k = 0;
    for (; i >= 0 && (size_t)i < n && k < SIDE; i += step)
        if (!isnan(rtt[i]) && rtt[i] > 0)
            v[k++] = rtt[i];
    if (!k)
        return NAN;
    qsort(v, k, sizeof *v, gt_cmp_double);
    return gt_quantile_sorted(v, k, 0.5);
}

static int shifts(const double *rtt, const int64_t *ts, size_t n, double shift_min,
                  struct list *l)
{
    struct gt_cpd *d = gt_cpd_new(&gt_cpd_alerts);
    if (!d)
        return GT_ENOMEM;
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        int64_t at;
        if (!gt_cpd_push(d, rtt[i], &at) || at <= 0 || (size_t)at >= n)
            continue;
        struct gt_event e = {ts[at], GT_EV_SHIFT, INT64_MIN, 0,
                             side_median(rtt, n, (long)at - 1, -1),
                             side_median(rtt, n, (long)at, +1)};
        if (fabs(e.after_ms / e.before_ms - 1) >= shift_min)
            rc = add(l, e);
    }
    gt_cpd_free(d);
    return rc;
}

/* Runs of lost probes: bursts, outages and their ends. */
static int losses(const double *rtt, const int64_t *ts, size_t n, const struct gt_event_opts *o,
                  struct list *l)
{
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i < n;) {
        if (!isnan(rtt[i])) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && isnan(rtt[j]))
            j++;
        /* [i, j) lost; it lasted until the next answer, or is going on */
        int64_t until = j < n ? ts[j] : INT64_MIN;
        int64_t last = j < n ? ts[j] : ts[j - 1];
        long count = (long)(j - i);
        if (last - ts[i] >= o->outage_s) {
            rc = add(l, (struct gt_event){ts[i], GT_EV_OUTAGE, until, count, NAN, NAN});
            if (rc == GT_OK && j < n)
                rc = add(l, (struct gt_event){ts[j], GT_EV_OUTAGE_END, INT64_MIN, count, NAN,
                                              NAN});
        } else if (count >= o->burst_min) {
            rc = add(l, (struct gt_event){ts[i], GT_EV_LOSS_BURST, until, count, NAN, NAN});
        }
        i = j;
    }
    return rc;
}

/* b - a >= min without the subtraction overflowing: times from a probe
 * with a broken clock may lie at either end of int64 */
static bool gap_at_least(int64_t a, int64_t b, int64_t min)
{
    return b >= a && (min <= 0 || (uint64_t)b - (uint64_t)a >= (uint64_t)min);
}

/* Gaps between samples, and the one from the last sample to end. */
static int silences(const int64_t *ts, size_t n, int64_t end, const struct gt_event_opts *o,
                    struct list *l)
{
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i + 1 < n; i++)
        if (gap_at_least(ts[i], ts[i + 1], o->silent_s)) {
            rc = add(l, (struct gt_event){ts[i], GT_EV_SILENT, ts[i + 1], 0, NAN, NAN});
            if (rc == GT_OK)
                rc = add(l, (struct gt_event){ts[i + 1], GT_EV_REPORTING, INT64_MIN, 0, NAN,
                                              NAN});
        }
    if (rc == GT_OK && n && gap_at_least(ts[n - 1], end, o->silent_s))
        rc = add(l, (struct gt_event){ts[n - 1], GT_EV_SILENT, INT64_MIN, 0, NAN, NAN});
    return rc;
}

static int by_time(const void *a, const void *b)
{
    const struct gt_event *x = a, *y = b;
    if (x->ts != y->ts)
        return (x->ts > y->ts) - (x->ts < y->ts);
    return (int)x->kind - (int)y->kind;
}

int gt_events_of_series(const int64_t *ts, const double *rtt, size_t n, int64_t end,
                        const struct gt_event_opts *o, struct gt_event **out, size_t *nout)
{
    struct list l = {0};
    int rc = shifts(rtt, ts, n, o->shift_min, &l);
    if (rc == GT_OK)
        rc = losses(rtt, ts, n, o, &l);
    if (rc == GT_OK)
        rc = silences(ts, n, end, o, &l);
    if (rc != GT_OK) {
        free(l.v);
        return rc;
    }
    if (l.n)   /* qsort's array may not be NULL, even of none */
        qsort(l.v, l.n, sizeof *l.v, by_time);
    *out = l.v;
    *nout = l.n;
    return GT_OK;
}

/* ------------------------------------------------------------ the store */

/* The stored kind of an event kind: the sample-found ones as they are,
 * the fit's from GT_EVROW_FIT_KINDS on (db/eventlog.h). */
static int row_kind(enum gt_event_kind k)
{
    return k == GT_EV_REGIME ? GT_EVROW_FIT_KINDS : (int)k;
}

static bool kind_of_row(int k, enum gt_event_kind *out)
{
    if (k == GT_EVROW_FIT_KINDS)
        *out = GT_EV_REGIME;
    else if (k >= 0 && k < GT_EV_REGIME)
        *out = (enum gt_event_kind)k;
    else
        return false;   /* a kind of a newer gridtail: not shown */
    return true;
}

/* A pair's mark, as the store keeps it. */
struct mark {
    int64_t pair;
    char *src, *dst;
    bool scanned;
    int64_t redo_from;
};

struct marks {
    struct mark *v;
    size_t n, cap;
};

static int add_mark(void *ctx, const struct gt_event_mark *m)
{
    struct marks *ms = ctx;
    if (!strcmp(m->src, m->dst))
        return GT_OK;   /* a site to itself: intra-site, no events */
    if (ms->n == ms->cap) {
        size_t cap = ms->cap ? 2 * ms->cap : 64;
        struct mark *v = realloc(ms->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        ms->v = v, ms->cap = cap;
    }
    struct mark *k = &ms->v[ms->n];
    *k = (struct mark){m->pair, strdup(m->src), strdup(m->dst), m->scanned, m->redo_from};
    if (!k->src || !k->dst) {
        free(k->src), free(k->dst);
        return GT_ENOMEM;
    }
    ms->n++;
    return GT_OK;
}

static int cmp_mark(const void *a, const void *b)
{
    int64_t x = ((const struct mark *)a)->pair, y = ((const struct mark *)b)->pair;
    return (x > y) - (x < y);
}

static void marks_free(struct marks *ms)
{
    for (size_t i = 0; i < ms->n; i++)
        free(ms->v[i].src), free(ms->v[i].dst);
    free(ms->v);
}

/* The marks of the pairs src -> dst (NULL: any), by pair id as the
 * store lists them. */
static int marks_load(struct gt_db *db, const char *src, const char *dst, struct marks *ms,
                      struct gt_error *err)
{
    *ms = (struct marks){0};
    int rc = gt_eventlog_marks(db, src, dst, add_mark, ms, err);
    if (rc == GT_ENOMEM)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    return rc;
}

static struct mark *mark_of(const struct marks *ms, int64_t pair)
{
    struct mark key = {pair, NULL, NULL, false, 0};
    return ms->n ? bsearch(&key, ms->v, ms->n, sizeof *ms->v, cmp_mark) : NULL;
}

/* Where a pair's sample-found events are not final: from here on they
 * are found again.  A scanned pair's read starts GT_EVENTS_LEAD_S
 * before, for the detector. */
static int64_t mark_since(const struct mark *m)
{
    return m && m->scanned ? m->redo_from : INT64_MIN;
}

/* One pair's samples, read by its id down the samples' key. */
struct series {
    int64_t *ts;
    double *rtt;
    size_t n, cap;
    size_t total, max_total;  /* read in this call, over all pairs; the bound */
};

static int series_row(void *ctx, int64_t ts, double rtt)
{
    struct series *s = ctx;
    if (++s->total > s->max_total)
        return GT_ETOOBIG;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        int64_t *t = realloc(s->ts, cap * sizeof *t);
        double *v = t ? realloc(s->rtt, cap * sizeof *v) : NULL;
        if (t)
            s->ts = t;
        if (!v)
            return GT_ENOMEM;
        s->rtt = v, s->cap = cap;
    }
    s->ts[s->n] = ts;
    s->rtt[s->n++] = rtt;
    return GT_OK;
}

/* The pair's samples in [from, to) into s; GT_ETOOBIG and GT_ENOMEM said
 * in err. */
static int read_pair(struct gt_db *db, int64_t pair, int64_t from, int64_t to,
                     struct series *s, struct gt_error *err)
{
    s->n = 0;
    int rc = gt_query_pair_range(db, pair, from, to, series_row, s, err);
    if (rc == GT_ETOOBIG && !err->code)
        rc = gt_error_set(err, GT_ETOOBIG, NULL, "more than %zu samples to read: name a pair "
                          "or narrow --from and --to", s->max_total);
    else if (rc == GT_ENOMEM && !err->code)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    return rc;
}

static void series_free(struct series *s)
{
    free(s->ts), free(s->rtt);
}

/* ---- recording: the events found at ingest and refit, stored */

struct recorder {
    struct gt_db *db;
    const struct gt_event_opts *o;
    int64_t now;
    size_t pairs, found;
    struct gt_error *err;
};

/* Where the pair's events stop being final: the SIDE-th newest sample
 * (a shift near the end is found again with its medians complete), an
 * open run of lost probes, or an event still going. */
static int64_t redo_point(const int64_t *ts, const double *rtt, size_t n,
                          const struct gt_event *ev, size_t nev)
{
    int64_t redo = ts[n > SIDE ? n - SIDE : 0];
    size_t j = n;
    while (j > 0 && isnan(rtt[j - 1]))
        j--;
    if (j < n && ts[j] < redo)
        redo = ts[j];
    for (size_t i = 0; i < nev; i++)
        if (ev[i].until == INT64_MIN && ev[i].ts < redo &&
            (ev[i].kind == GT_EV_LOSS_BURST || ev[i].kind == GT_EV_OUTAGE ||
             ev[i].kind == GT_EV_SILENT))
            redo = ev[i].ts;
    return redo;
}

/* Scan one pair from its redo point and store what it finds. */
static int record_pair(struct recorder *r, const struct mark *m, struct series *s)
{
    int64_t since = mark_since(m);
    s->total = 0;   /* the bound is per pair: a scan reads each in turn */
    /* (a redo point near the far past of int64: from its start) */
    int64_t from = since < INT64_MIN + GT_EVENTS_LEAD_S ? INT64_MIN : since - GT_EVENTS_LEAD_S;
    int rc = read_pair(r->db, m->pair, from, INT64_MAX, s, r->err);
    if (rc || !s->n)
        return rc;
    struct gt_event *ev = NULL;
    size_t nev = 0;
    rc = gt_events_of_series(s->ts, s->rtt, s->n, r->now, r->o, &ev, &nev);
    struct gt_event_row *rows = rc == GT_OK ? malloc((nev ? nev : 1) * sizeof *rows) : NULL;
    if (rc == GT_OK && !rows)
        rc = gt_error_set(r->err, GT_ENOMEM, NULL, "out of memory");
    size_t k = 0;
    for (size_t i = 0; rc == GT_OK && i < nev; i++)
        if (ev[i].ts >= since)
            rows[k++] = (struct gt_event_row){ev[i].ts, row_kind(ev[i].kind), ev[i].until,
                                              ev[i].count, ev[i].before_ms, ev[i].after_ms};
    if (rc == GT_OK)
        rc = gt_eventlog_replace(r->db, m->pair, since, rows, k,
                                 redo_point(s->ts, s->rtt, s->n, ev, nev), r->err);
    r->pairs += rc == GT_OK;
    r->found += rc == GT_OK ? k : 0;
    free(rows);
    free(ev);
    return rc;
}

int gt_events_record(struct gt_db *db, const struct gt_event_opts *o, int64_t now,
                     size_t *pairs, size_t *found, struct gt_error *err)
{
    struct marks ms;
    int rc = marks_load(db, NULL, NULL, &ms, err);
    struct recorder r = {db, o, now, 0, 0, err};
    struct series s = {.max_total = GT_EVENTS_MAX_SAMPLES};
    if (rc == GT_OK && (rc = gt_db_begin(db, err)) == GT_OK) {
        for (size_t i = 0; rc == GT_OK && i < ms.n; i++)
            rc = record_pair(&r, &ms.v[i], &s);
        if (rc == GT_OK)
            rc = gt_db_commit(db, err);
        else
            gt_db_rollback(db);
    }
    series_free(&s);
    marks_free(&ms);
    if (pairs)
        *pairs = r.pairs;
    if (found)
        *found = r.found;
    return rc;
}

/* ---- the fits' regimes, judged at refit */

struct gt_regimes {
    struct gt_pairfits *fits;
    const struct gt_adv_opts *o;
    struct regime_note {
        int64_t pair, ts;
        int now, before;
        bool had;
    } *v;
    size_t n, cap;
    struct gt_error *err;
};

/* One pair: its regime now, beside the one noted. */
static int judge_regime(void *ctx, const struct gt_event_mark *m)
{
    struct gt_regimes *r = ctx;
    const struct gt_pairfit *f;
    if (!strcmp(m->src, m->dst))
        return GT_OK;
    int rc = gt_pairfits_get(r->fits, m->src, m->dst, &f, r->err);
    if (rc || !f->found)
        return rc;
    int now = (int)gt_adv_fit_regime(r->o, f);
    if (now == GT_REGIME_NONE)
        return GT_OK;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct regime_note *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        r->v = v, r->cap = cap;
    }
    r->v[r->n++] = (struct regime_note){m->pair, f->last_ts, now, m->regime, m->fitted};
    return GT_OK;
}

int gt_events_judge_regimes(struct gt_db *db, struct gt_pairfits *fits,
                            const struct gt_adv_opts *o, struct gt_regimes **out,
                            struct gt_error *err)
{
    struct gt_regimes *r = calloc(1, sizeof *r);
    if (!r)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    *r = (struct gt_regimes){fits, o, NULL, 0, 0, err};
    int rc = gt_eventlog_marks(db, NULL, NULL, judge_regime, r, err);
    if (rc == GT_ENOMEM && !err->code)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    r->fits = NULL;
    if (rc) {
        gt_regimes_free(r);
        return rc;
    }
    *out = r;
    return GT_OK;
}

int gt_events_note_regimes(struct gt_db *db, const struct gt_regimes *r, int64_t now,
                           size_t *changed, struct gt_error *err)
{
    *changed = 0;
    int rc = gt_db_begin(db, err);
    for (size_t i = 0; rc == GT_OK && r && i < r->n; i++) {
        const struct regime_note *g = &r->v[i];
        bool change = g->had && g->before != g->now;
        struct gt_event_row row = {g->ts, row_kind(GT_EV_REGIME), INT64_MIN, 0, g->before,
                                   g->now};
        rc = gt_eventlog_fit(db, g->pair, change ? &row : NULL, g->now, now, err);
        *changed += change;
    }
    if (rc == GT_OK)
        rc = gt_db_commit(db, err);
    else
        gt_db_rollback(db);
    return rc;
}

void gt_regimes_free(struct gt_regimes *r)
{
    if (r)
        free(r->v);
    free(r);
}

/* ---- the query: stored events, and those of the samples not yet scanned */

struct query {
    const struct marks *ms;
    const struct gt_event_opts *o;
    int64_t from, to;
    int kind;
    struct gt_pair_event *v;
    size_t nv, capv;
};

static int keep(struct query *q, const char *src, const char *dst, const struct gt_event *e)
{
    if (e->ts < q->from || e->ts >= q->to || (q->kind >= 0 && (int)e->kind != q->kind))
        return GT_OK;
    if (q->nv == q->capv) {
        size_t cap = q->capv ? 2 * q->capv : 64;
        struct gt_pair_event *v = realloc(q->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        q->v = v, q->capv = cap;
    }
    struct gt_pair_event *p = &q->v[q->nv];
    p->src = strdup(src);
    p->dst = strdup(dst);
    p->ev = *e;
    if (!p->src || !p->dst) {
        free(p->src), free(p->dst);
        return GT_ENOMEM;
    }
    q->nv++;
    return GT_OK;
}

/* A stored event counts when it is final: a fit's, or before its pair's
 * redo point (after it, the samples say). */
static int stored_row(void *ctx, int64_t pair, const char *src, const char *dst,
                      const struct gt_event_row *row)
{
    struct query *q = ctx;
    enum gt_event_kind k;
    if (!kind_of_row(row->kind, &k))
        return GT_OK;
    if (k != GT_EV_REGIME && row->ts >= mark_since(mark_of(q->ms, pair)))
        return GT_OK;
    struct gt_event e = {row->ts, k, row->until, row->lost, row->before, row->after};
    return keep(q, src, dst, &e);
}

/* The events of the pair's samples after its redo point (or from `from`,
 * if later), judged at `to`. */
static int tail_pair(struct gt_db *db, struct query *q, const struct mark *m,
                     struct series *s, struct gt_error *err)
{
    int64_t since = mark_since(m), start = since > q->from ? since : q->from;
    if (start >= q->to)
        return GT_OK;
    int rc = read_pair(db, m->pair, start - GT_EVENTS_LEAD_S, q->to, s, err);
    if (rc || !s->n)
        return rc;
    struct gt_event *ev = NULL;
    size_t nev = 0;
    rc = gt_events_of_series(s->ts, s->rtt, s->n, q->to, q->o, &ev, &nev);
    for (size_t i = 0; rc == GT_OK && i < nev; i++)
        if (ev[i].ts >= since)
            rc = keep(q, m->src, m->dst, &ev[i]);
    free(ev);
    return rc;
}

static int cmp_pair_events(const void *a, const void *b)
{
    const struct gt_pair_event *x = a, *y = b;
    int c = by_time(&x->ev, &y->ev);
    if (!c)
        c = strcmp(x->src, y->src);
    return c ? c : strcmp(x->dst, y->dst);
}

int gt_events_query(struct gt_db *db, const char *src, const char *dst, int64_t from,
                    int64_t to, int kind, const struct gt_event_opts *o,
                    struct gt_pair_event **out, size_t *n, struct gt_error *err)
{
    struct marks ms;
    int rc = marks_load(db, src, dst, &ms, err);
    struct query q = {&ms, o, from, to, kind, NULL, 0, 0};
    if (rc == GT_OK)
        rc = gt_eventlog_read(db, src, dst, from, to,
                              kind >= 0 ? row_kind((enum gt_event_kind)kind) : -1, stored_row,
                              &q, err);
    struct series s = {.max_total = GT_EVENTS_MAX_SAMPLES};
    for (size_t i = 0; rc == GT_OK && kind != GT_EV_REGIME && i < ms.n; i++)
        rc = tail_pair(db, &q, &ms.v[i], &s, err);
    series_free(&s);
    marks_free(&ms);
    if (rc == GT_ENOMEM && !err->code)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc != GT_OK) {
        gt_pair_events_free(q.v, q.nv);
        return rc;
    }
    if (q.nv)
        qsort(q.v, q.nv, sizeof *q.v, cmp_pair_events);
    *out = q.v;
    *n = q.nv;
    return GT_OK;
}

void gt_pair_events_free(struct gt_pair_event *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].src), free(v[i].dst);
    free(v);
}

/* ------------------------------------------------------------ text */

static const char *regime_text(int r)
{
    switch (r) {
    case GT_REGIME_FIT: return "the fitted model";
    case GT_REGIME_HEAVY: return "a Pareto with alpha <= 1 (heavy)";
    case GT_REGIME_FALLBACK: return "its samples (fallback)";
    default: return "no fit";
    }
}

void gt_event_detail(const struct gt_event *e, char *buf, size_t size)
{
    char until[32] = "still going";
    if (e->until != INT64_MIN)
        gt_format_time(e->until, until, sizeof until);
    switch (e->kind) {
    case GT_EV_SHIFT:
        snprintf(buf, size, "median %.4g -> %.4g ms (%+.1f %%)", e->before_ms, e->after_ms,
                 100 * (e->after_ms / e->before_ms - 1));
        break;
    case GT_EV_LOSS_BURST:
        snprintf(buf, size, "%ld probes lost in a row, until %s", e->count, until);
        break;
    case GT_EV_OUTAGE:
        snprintf(buf, size, "every probe lost (%ld), until %s", e->count, until);
        break;
    case GT_EV_OUTAGE_END: snprintf(buf, size, "answering again after %ld lost", e->count); break;
    case GT_EV_SILENT: snprintf(buf, size, "no sample stored until %s", until); break;
    case GT_EV_REGIME:
        snprintf(buf, size, "%s -> %s", regime_text((int)e->before_ms),
                 regime_text((int)e->after_ms));
        break;
    default: snprintf(buf, size, "samples again"); break;
    }
}

json_t *gt_events_json(const struct gt_pair_event *v, size_t n, int64_t from, int64_t to,
                       size_t limit)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < n && i < limit; i++) {
        const struct gt_event *e = &v[i].ev;
        bool regime = e->kind == GT_EV_REGIME;
        char ts[32], until[32], detail[160];
        gt_format_time(e->ts, ts, sizeof ts);
        if (e->until != INT64_MIN)
            gt_format_time(e->until, until, sizeof until);
        gt_event_detail(e, detail, sizeof detail);
        json_array_append_new(
            list, json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:I, s:o, s:o}", "ts", ts, "src",
                            v[i].src, "dst", v[i].dst, "kind", gt_event_name(e->kind), "detail",
                            detail, "until", e->until != INT64_MIN ? json_string(until)
                                                                   : json_null(),
                            "lost", (json_int_t)e->count, "before_ms",
                            gt_json_real_or_null(regime ? NAN : e->before_ms), "after_ms",
                            gt_json_real_or_null(regime ? NAN : e->after_ms)));
        if (regime) {
            json_t *last = json_array_get(list, json_array_size(list) - 1);
            json_object_set_new(last, "regime_before", json_string(gt_fit_regime_name(
                                                           (enum gt_fit_regime)e->before_ms)));
            json_object_set_new(last, "regime_after", json_string(gt_fit_regime_name(
                                                          (enum gt_fit_regime)e->after_ms)));
        }
    }
    char f[32], t[32];
    gt_format_time(from, f, sizeof f);
    gt_format_time(to, t, sizeof t);
    return json_pack("{s:s, s:s, s:I, s:o}", "from", f, "to", t, "total", (json_int_t)n,
                     "events", list);
}
