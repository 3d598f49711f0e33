/*
 * events.c - what happened on each pair (events.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "events.h"

#include "base/util.h"
#include "db/query.h"
#include "estimators/changepoint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[GT_EV_NKINDS] = {"shift", "loss_burst", "outage",
                                                      "outage_end", "silent", "reporting"};

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
    struct gt_cpd *d = gt_cpd_new(NULL);
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

/* Gaps between samples, and the one from the last sample to end. */
static int silences(const int64_t *ts, size_t n, int64_t end, const struct gt_event_opts *o,
                    struct list *l)
{
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i + 1 < n; i++)
        if (ts[i + 1] - ts[i] >= o->silent_s) {
            rc = add(l, (struct gt_event){ts[i], GT_EV_SILENT, ts[i + 1], 0, NAN, NAN});
            if (rc == GT_OK)
                rc = add(l, (struct gt_event){ts[i + 1], GT_EV_REPORTING, INT64_MIN, 0, NAN,
                                              NAN});
        }
    if (rc == GT_OK && n && end - ts[n - 1] >= o->silent_s)
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

struct reader {
    const struct gt_event_opts *o;
    int64_t from, to;
    int kind;
    char *src, *dst;          /* the pair being gathered */
    int64_t *ts;
    double *rtt;
    size_t n, cap, total;
    struct gt_pair_event *v;
    size_t nv, capv;
    int rc;
};

static int keep(struct reader *r, const struct gt_event *e)
{
    if (e->ts < r->from || e->ts >= r->to || (r->kind >= 0 && (int)e->kind != r->kind))
        return GT_OK;
    if (r->nv == r->capv) {
        size_t cap = r->capv ? 2 * r->capv : 64;
        struct gt_pair_event *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        r->v = v, r->capv = cap;
    }
    struct gt_pair_event *p = &r->v[r->nv];
    p->src = strdup(r->src);
    p->dst = strdup(r->dst);
    p->ev = *e;
    if (!p->src || !p->dst) {
        free(p->src), free(p->dst);
        return GT_ENOMEM;
    }
    r->nv++;
    return GT_OK;
}

/* The gathered pair's events, kept when in range; the pair emptied. */
static int flush_pair(struct reader *r)
{
    struct gt_event *ev = NULL;
    size_t nev = 0;
    int rc = r->n ? gt_events_of_series(r->ts, r->rtt, r->n, r->to, r->o, &ev, &nev) : GT_OK;
    for (size_t i = 0; rc == GT_OK && i < nev; i++)
        rc = keep(r, &ev[i]);
    free(ev);
    r->n = 0;
    return rc;
}

static int on_row(void *ctx, int64_t ts, const char *src, const char *dst, int64_t seq,
                  double rtt)
{
    struct reader *r = ctx;
    (void)seq;
    if (!strcmp(src, dst))
        return 0;   /* a site to itself: intra-site, not a pair's events */
    if (!r->src || strcmp(r->src, src) || strcmp(r->dst, dst)) {
        if (r->src && (r->rc = flush_pair(r)))
            return r->rc;
        free(r->src), free(r->dst);
        r->src = strdup(src), r->dst = strdup(dst);
        if (!r->src || !r->dst)
            return r->rc = GT_ENOMEM;
    }
    if (++r->total > GT_EVENTS_MAX_SAMPLES)
        return r->rc = GT_ETOOBIG;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 4096;
        int64_t *t = realloc(r->ts, cap * sizeof *t);
        double *v = t ? realloc(r->rtt, cap * sizeof *v) : NULL;
        if (t)
            r->ts = t;
        if (!v)
            return r->rc = GT_ENOMEM;
        r->rtt = v, r->cap = cap;
    }
    r->ts[r->n] = ts;
    r->rtt[r->n++] = rtt;
    return 0;
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
    struct reader r = {.o = o, .from = from, .to = to, .kind = kind};
    struct gt_export_filter f = {src, dst, from - GT_EVENTS_LEAD_S, to, true, true};
    int rc = gt_query_export(db, &f, on_row, &r, err);
    if (rc == GT_OK && r.src)
        rc = flush_pair(&r);
    if (rc == GT_ETOOBIG || r.rc == GT_ETOOBIG)
        rc = gt_error_set(err, GT_ETOOBIG, NULL, "more than %d samples in the range: name a "
                          "pair or narrow --from and --to", GT_EVENTS_MAX_SAMPLES);
    else if (rc == GT_ENOMEM || r.rc == GT_ENOMEM)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    free(r.src), free(r.dst), free(r.ts), free(r.rtt);
    if (rc != GT_OK) {
        gt_pair_events_free(r.v, r.nv);
        return rc;
    }
    if (r.nv)
        qsort(r.v, r.nv, sizeof *r.v, cmp_pair_events);
    *out = r.v;
    *n = r.nv;
    return GT_OK;
}

void gt_pair_events_free(struct gt_pair_event *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].src), free(v[i].dst);
    free(v);
}

/* ------------------------------------------------------------ text */

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
    default: snprintf(buf, size, "samples again"); break;
    }
}

json_t *gt_events_json(const struct gt_pair_event *v, size_t n, int64_t from, int64_t to,
                       size_t limit)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < n && i < limit; i++) {
        const struct gt_event *e = &v[i].ev;
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
                            gt_json_real_or_null(e->before_ms), "after_ms",
                            gt_json_real_or_null(e->after_ms)));
    }
    char f[32], t[32];
    gt_format_time(from, f, sizeof f);
    gt_format_time(to, t, sizeof t);
    return json_pack("{s:s, s:s, s:I, s:o}", "from", f, "to", t, "total", (json_int_t)n,
                     "events", list);
}
