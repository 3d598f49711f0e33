/*
 * prometheus.c - RTTs a site's Prometheus already scrapes (issue 27):
 * blackbox_exporter's probes, read through /api/v1/query_range.  Two
 * queries over the same range and step: the RTT (--query, default
 * probe_icmp_duration_seconds{phase="rtt"}, in seconds) and the success
 * (--success-query, default probe_success).  Each series of the RTT
 * query is a pair: the source --src, the destination its --dst-label
 * label (default instance), both through --site-map; its success series
 * is the one with the same destination label and job.  At each step
 * time a success of 0 is a lost probe, else the RTT is a sample (ms); a
 * step without a success series' value keeps the RTT.  One sample a step
 * (--step, default 60 s: a scrape a minute; query_range gives each step
 * the newest scrape at or before it).  A range is asked in windows of at
 * most 11,000 steps, Prometheus' limit a query.  A file holds a saved
 * query_range answer of the RTT query (no success: every value a
 * sample).
 *
 * With --exporter smokeping (o->histogram), smokeping_prober's latency
 * histograms instead (promhist.h): --query names the histogram, NAME or
 * NAME{MATCHERS} (default smokeping_response_duration_seconds), read as
 * NAME_bucket and NAME_sum; --success-query counts the pings sent
 * (default smokeping_requests_total with the same matchers); the
 * destination is the label host.  Series of one host are joined by
 * their labels.  A saved answer holds any of them (a series with le is
 * a bucket, a name ending in _sum a sum, _count is skipped, others count
 * pings).
 */
#define _POSIX_C_SOURCE 200809L   /* strdup */
#include "jsonin.h"
#include "promhist.h"
#include "promql.h"
#include "sitemap.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_POINTS 11000    /* Prometheus refuses more a series a query */
#define DEFAULT_QUERY "probe_icmp_duration_seconds{phase=\"rtt\"}"
#define DEFAULT_SUCCESS "probe_success"

#define SMOKEPING_QUERY "smokeping_response_duration_seconds"
#define SMOKEPING_REQUESTS "smokeping_requests_total"
/* A histogram's newest points may still change (a scrape is stored when
 * it ends, stamped when it began): its steps are read this long after. */
#define SETTLE_S 30

struct run {
    const struct gt_collect_opts *o;
    const struct gt_sink *sink;
    struct gt_key_set *told;
    long lost, no_value, answered;
    double widest;   /* of the buckets of the answers stored (hi / lo) */
    int64_t now;     /* the clock, for points in the future */
};

/* The success series of rtt's destination and job, or NULL. */
static const json_t *success_of(const json_t *ok, const json_t *rtt, const char *dlabel)
{
    const char *dst = gt_prom_label(rtt, dlabel), *job = gt_prom_label(rtt, "job");
    size_t i;
    const json_t *s;
    if (!dst)   /* no destination (an aggregate): nothing to join; take_series says so */
        return NULL;
    json_array_foreach(ok, i, s) {
        const char *d = gt_prom_label(s, dlabel), *j = gt_prom_label(s, "job");
        if (d && !strcmp(d, dst) && ((!j && !job) || (j && job && !strcmp(j, job))))
            return s;
    }
    return NULL;
}

static const char *dst_label(const struct gt_collect_opts *o)
{
    return o->dst_label ? o->dst_label : o->histogram ? "host" : "instance";
}

/* The pair of a series into s: --src, and the destination its label
 * names, both through --site-map; false (rejected) when it names none. */
static bool pair_of(struct run *r, const json_t *series, const char *loc, struct gt_sample *s)
{
    const struct gt_collect_opts *o = r->o;
    const char *dlabel = dst_label(o);
    const char *dst = gt_prom_label(series, dlabel);
    if (!dst || !*dst)
        return gt_reject(r->sink, loc, "metric.%s: the series names no destination", dlabel),
               false;
    const char *skeys[2] = {o->src, NULL}, *dkeys[2] = {dst, NULL};
    s->src = gt_site_map_name(o->site_map, r->told, r->sink, "prometheus", "source", skeys);
    s->dst = gt_site_map_name(o->site_map, r->told, r->sink, "prometheus", "destination", dkeys);
    const char *why = gt_site_name_problem(s->dst, strlen(s->dst));
    if (why)
        return gt_reject(r->sink, loc, "metric.%s: %s", dlabel, why), false;
    s->src_len = strlen(s->src), s->dst_len = strlen(s->dst);
    return true;
}

/* One RTT series, joined with its success series (NULL: none), emitted. */
static int take_series(struct run *r, const json_t *rtt, const json_t *ok, const char *loc)
{
    struct gt_sample s = {0};
    if (!pair_of(r, rtt, loc, &s))
        return GT_OK;
    const json_t *vals = json_object_get(rtt, "values"), *okv = json_object_get(ok, "values");
    size_t j = 0, n_ok = json_array_size(okv);
    size_t i;
    const json_t *p;
    int rc = GT_OK;
    json_array_foreach(vals, i, p) {
        double v, good = NAN;
        if (!gt_prom_point(p, &s.ts, &v)) {
            gt_reject(r->sink, loc, "values[%zu]: not [time, \"value\"]", i);
            continue;
        }
        const char *why = gt_time_problem(s.ts, r->now, true);
        if (why) {
            char when[32];
            gt_format_time(s.ts, when, sizeof when);
            gt_reject(r->sink, loc, "values[%zu]: time %s: %s", i, when, why);
            continue;
        }
        for (; j < n_ok; j++) {   /* both in time order */
            int64_t t;
            double g;
            if (!gt_prom_point(json_array_get(okv, j), &t, &g) || t > s.ts)
                break;
            if (t == s.ts)
                good = g;
        }
        if (good == 0) {
            s.rtt_ms = NAN, r->lost++;
        } else if (isfinite(v) && v >= 0) {
            s.rtt_ms = 1e3 * v;
        } else {
            r->no_value++;
            continue;
        }
        if ((rc = r->sink->emit(r->sink->ctx, &s)))
            break;
    }
    return rc;
}

static int take_answer(struct run *r, const json_t *rtt, const json_t *ok, const char *prefix)
{
    size_t i;
    const json_t *series;
    int rc = GT_OK;
    json_array_foreach(ok, i, series) {   /* a success series lost to a bad value */
        const char *bad = gt_json_dropped(series);
        if (bad)
            gt_reject(r->sink, prefix, "success query: result[%zu]: %s; its RTT series "
                      "read without it", i, bad);
    }
    json_array_foreach(rtt, i, series) {
        char loc[64];
        snprintf(loc, sizeof loc, "%sresult[%zu]", prefix, i);
        const char *bad = gt_json_dropped(series);
        if (bad) {
            gt_reject(r->sink, loc, "%s", bad);
            continue;
        }
        if ((rc = take_series(r, series, ok ? success_of(ok, series, dst_label(r->o)) : NULL,
                              loc)))
            break;
    }
    return rc;
}

static void tell_counts(const struct run *r)
{
    if (r->lost && r->o->histogram)
        gt_note(r->sink, "prometheus: %ld pings sent and not answered: stored as lost", r->lost);
    else if (r->lost)
        gt_note(r->sink, "prometheus: %ld probes failed (success 0): stored as lost", r->lost);
    if (r->no_value)
        gt_note(r->sink, "prometheus: %ld steps without an RTT value (NaN) skipped",
                r->no_value);
    if (r->answered)
        gt_note(r->sink, "prometheus: %ld answers read from histograms, each placed within "
                "its bucket (the widest x%.3g) so that a step's answers add up to its sum",
                r->answered, r->widest);
}

/* ---- histograms (smokeping_prober; promhist.h) ---- */

enum role { ROLE_BUCKET, ROLE_SUM, ROLE_REQUESTS, ROLE_NONE };

struct ref {
    char *key;             /* labels but __name__ and le (gt_promhist_key) */
    const json_t *series;
    enum role role;
};

/* What a series of a saved answer is: a bucket has le, a sum's name ends
 * in _sum, a _count is the +Inf bucket again, anything else counts the
 * pings sent. */
static enum role role_of(const json_t *series)
{
    if (gt_prom_label(series, "le"))
        return ROLE_BUCKET;
    const char *name = gt_prom_label(series, "__name__");
    size_t n = name ? strlen(name) : 0;
    if (n > 4 && !strcmp(name + n - 4, "_sum"))
        return ROLE_SUM;
    return n > 6 && !strcmp(name + n - 6, "_count") ? ROLE_NONE : ROLE_REQUESTS;
}

static int cmp_ref(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (int)x->role - (int)y->role;
}

/* The series of the answers as refs: m[0] the buckets (or a saved answer
 * of every kind, m[1] and m[2] NULL), m[1] the sums, m[2] the requests. */
static int collect_refs(struct run *r, const json_t *const m[3], const char *prefix,
                        struct ref **out, size_t *n_out)
{
    size_t cap = 0;
    for (int i = 0; i < 3; i++)
        cap += json_array_size(m[i]);
    struct ref *refs = calloc(cap ? cap : 1, sizeof *refs);
    if (!refs)
        return GT_ENOMEM;
    size_t n = 0;
    for (int i = 0; i < 3; i++) {
        size_t j;
        const json_t *series;
        json_array_foreach(m[i], j, series) {
            char key[4096], loc[96];
            const char *bad = gt_json_dropped(series);
            if (bad) {
                snprintf(loc, sizeof loc, "%s%sresult[%zu]", prefix,
                         m[1] || m[2] ? (const char *[]){"buckets ", "sums ", "requests "}[i]
                                      : "", j);
                gt_reject(r->sink, loc, "%s", bad);
                continue;
            }
            enum role role = m[1] || m[2] ? (enum role)i : role_of(series);
            if (role == ROLE_BUCKET && !gt_prom_label(series, "le"))
                role = ROLE_NONE;
            if (role == ROLE_NONE)
                continue;
            if (!gt_promhist_key(series, key, sizeof key)) {
                snprintf(loc, sizeof loc, "%sresult[%zu]", prefix, j);
                gt_reject(r->sink, loc, "metric: more labels than 64 or 4 KiB");
                continue;
            }
            if (!(refs[n].key = strdup(key))) {
                *out = refs, *n_out = n;
                return GT_ENOMEM;
            }
            refs[n].series = series;
            refs[n++].role = role;
        }
    }
    qsort(refs, n, sizeof *refs, cmp_ref);
    *out = refs, *n_out = n;
    return GT_OK;
}

struct hist_emit {
    struct run *r;
    struct gt_sample s;
    char loc[128];
};

static int hist_sample(void *ctx, int64_t ts, int64_t seq, double rtt_ms)
{
    struct hist_emit *e = ctx;
    e->s.ts = ts, e->s.seq = seq, e->s.rtt_ms = rtt_ms;
    if (isnan(rtt_ms))
        e->r->lost++;
    else
        e->r->answered++;
    return e->r->sink->emit(e->r->sink->ctx, &e->s);
}

static void hist_reject(void *ctx, int64_t ts, const char *why)
{
    struct hist_emit *e = ctx;
    if (ts)
        gt_reject(e->r->sink, e->loc, "at %lld: %s", (long long)ts, why);
    else
        gt_reject(e->r->sink, e->loc, "%s", why);
}

/* One histogram: refs[0..n), a key's bucket, sum and requests series. */
static int take_histogram(struct run *r, const struct ref *refs, size_t n, int64_t first,
                          int64_t last, const char *prefix)
{
    const json_t *buckets[GT_PROMHIST_MAX_BUCKETS + 1];
    struct gt_promhist h = {buckets, 0, NULL, NULL};
    struct hist_emit e = {r, {0}, ""};
    const char *dst = gt_prom_label(refs[0].series, dst_label(r->o));
    snprintf(e.loc, sizeof e.loc, "%s%s=%.60s", prefix, dst_label(r->o), dst ? dst : "");
    for (size_t i = 0; i < n; i++) {
        if (refs[i].role == ROLE_BUCKET && h.n_buckets <= GT_PROMHIST_MAX_BUCKETS)
            buckets[h.n_buckets++] = refs[i].series;
        const json_t **one = refs[i].role == ROLE_SUM ? &h.sum : &h.requests;
        if (refs[i].role != ROLE_BUCKET && *one)
            return hist_reject(&e, 0, "two series of the same labels and kind"), GT_OK;
        if (refs[i].role != ROLE_BUCKET)
            *one = refs[i].series;
    }
    if (!pair_of(r, refs[0].series, e.loc, &e.s))
        return GT_OK;
    struct gt_promhist_out out = {&e, hist_sample, hist_reject};
    return gt_promhist_samples(&h, first, last, &out, &r->widest);
}

/* The histograms of the answers m (collect_refs), their points in
 * [first, last] as samples. */
static int take_histograms(struct run *r, const json_t *const m[3], int64_t first,
                           int64_t last, const char *prefix, struct gt_error *err)
{
    struct ref *refs = NULL;
    size_t n = 0;
    int rc = collect_refs(r, m, prefix, &refs, &n);
    for (size_t i = 0, j; rc == GT_OK && i < n; i = j) {
        for (j = i + 1; j < n && !strcmp(refs[j].key, refs[i].key); j++)
            ;
        rc = take_histogram(r, refs + i, j - i, first, last, prefix);
    }
    for (size_t i = 0; i < n; i++)
        free(refs[i].key);
    free(refs);
    return rc == GT_ENOMEM ? gt_error_set(err, GT_ENOMEM, NULL, "out of memory") : rc;
}

static int check_src(const struct gt_collect_opts *o, const char *name, struct gt_error *err)
{
    if (!o->src)
        return gt_error_set(err, GT_EUSAGE, name, "prometheus series do not name their "
                            "source: give --src SITE (the site that probes)");
    const char *why = gt_site_name_problem(o->src, strlen(o->src));
    return why ? gt_error_set(err, GT_EUSAGE, name, "--src: %s", why) : GT_OK;
}

static int parse(const struct gt_input *in, const struct gt_collect_opts *o,
                 const struct gt_sink *sink, struct gt_error *err)
{
    int rc = check_src(o, in->name, err);
    json_t *root = NULL;
    if (rc == GT_OK &&
        (rc = gt_json_load_records(in, o, "prometheus", "data.result", &root, err)) == GT_OK &&
        !gt_prom_matrix(root))
        rc = gt_error_set(err, GT_EINPUT, in->name, "not a prometheus file: expected a "
                          "query_range answer (data.resultType matrix)");
    struct run r = {o, sink, gt_key_set_new(), 0, 0, 0, 1, (int64_t)time(NULL)};
    if (rc == GT_OK && !r.told)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK && o->histogram) {
        const json_t *m[3] = {gt_prom_matrix(root), NULL, NULL};
        rc = take_histograms(&r, m, INT64_MIN, INT64_MAX, "data.", err);
    } else if (rc == GT_OK) {
        rc = take_answer(&r, gt_prom_matrix(root), NULL, "data.");
    }
    if (rc == GT_OK)
        tell_counts(&r);
    gt_key_set_free(r.told);
    json_decref(root);
    return rc;
}

struct window_run {
    struct run *r;
    const char *url;
    const struct gt_http_opts *h;
    long step;
    struct gt_error *err;
    char query[3][4096];   /* histograms: the buckets, sums and requests */
};

/* The two queries of [a, b], joined. */
static int fetch_window(void *ctx, int64_t a, int64_t b)
{
    struct window_run *w = ctx;
    const struct gt_collect_opts *o = w->r->o;
    json_t *rtt = NULL, *ok = NULL;
    const char *q = o->query ? o->query : DEFAULT_QUERY;
    const char *sq = o->success_query ? o->success_query : DEFAULT_SUCCESS;
    int rc = gt_prom_query_range(w->url, q, a, b, w->step, w->h, &rtt, w->err);
    if (rc == GT_OK)
        rc = gt_prom_query_range(w->url, sq, a, b, w->step, w->h, &ok, w->err);
    char prefix[48];
    snprintf(prefix, sizeof prefix, "start=%lld ", (long long)a);
    if (rc == GT_OK)
        rc = take_answer(w->r, gt_prom_matrix(rtt), gt_prom_matrix(ok), prefix);
    json_decref(rtt);
    json_decref(ok);
    return rc;
}

/* The histogram queries of --query NAME{MATCHERS}: NAME_bucket{...},
 * NAME_sum{...} and the requests (--success-query, else
 * smokeping_requests_total{...}). */
static int histogram_queries(struct window_run *w)
{
    const struct gt_collect_opts *o = w->r->o;
    const char *q = o->query ? o->query : SMOKEPING_QUERY;
    size_t name = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
    const char *m = q + name;
    size_t ml = strlen(m);
    if (!name || (ml && (m[0] != '{' || m[ml - 1] != '}')) || strlen(q) > 4000)
        return gt_error_set(w->err, GT_EUSAGE, "--query", "with --exporter smokeping, the "
                            "histogram's name and matchers, NAME or NAME{...} (4,000 bytes at "
                            "most), not '%.200s'", q);
    snprintf(w->query[0], sizeof w->query[0], "%.*s_bucket%s", (int)name, q, m);
    snprintf(w->query[1], sizeof w->query[1], "%.*s_sum%s", (int)name, q, m);
    if (o->success_query && strlen(o->success_query) > 4000)
        return gt_error_set(w->err, GT_EUSAGE, "--success-query", "4,000 bytes at most");
    if (o->success_query)
        snprintf(w->query[2], sizeof w->query[2], "%s", o->success_query);
    else
        snprintf(w->query[2], sizeof w->query[2], SMOKEPING_REQUESTS "%s", m);
    return GT_OK;
}

/* The three queries of [a - step, b + step]: each point of [a, b] needs
 * the one before (its increase) and the one after (pings in flight). */
static int fetch_hist_window(void *ctx, int64_t a, int64_t b)
{
    struct window_run *w = ctx;
    json_t *ans[3] = {NULL, NULL, NULL};
    int rc = GT_OK;
    for (int i = 0; rc == GT_OK && i < 3; i++)
        rc = gt_prom_query_range(w->url, w->query[i], a - w->step, b + w->step, w->step, w->h,
                                 &ans[i], w->err);
    char prefix[48];
    snprintf(prefix, sizeof prefix, "start=%lld ", (long long)a);
    const json_t *m[3] = {gt_prom_matrix(ans[0]), gt_prom_matrix(ans[1]),
                          gt_prom_matrix(ans[2])};
    if (rc == GT_OK)
        rc = take_histograms(w->r, m, a, b, prefix, w->err);
    for (int i = 0; i < 3; i++)
        json_decref(ans[i]);
    return rc;
}

/* Histograms are read at multiples of the step, so that the point before
 * a run's first is the last one the run before stored (its cursor), and
 * up to SETTLE_S before the range's end, less the point after. */
static int fetch_histograms(struct window_run *w)
{
    int rc = histogram_queries(w);
    const struct gt_collect_opts *o = w->r->o;
    int64_t step = w->step;
    int64_t first = o->range_from <= 0 ? 0 : (o->range_from + step - 1) / step * step;
    int64_t end = o->range_to - SETTLE_S;
    int64_t last = (end < 0 ? 0 : end / step * step) - step;
    if (rc == GT_OK && last < first)
        gt_note(w->r->sink, "prometheus: no complete step of %ld s in the range yet", w->step);
    else if (rc == GT_OK)
        rc = gt_each_window(first, last, step * (MAX_POINTS - 2), step, fetch_hist_window, w,
                            w->r->sink, w->err);
    return rc;
}

static int fetch(const char *url, const struct gt_collect_opts *o, const struct gt_http_opts *h,
                 const struct gt_sink *sink, struct gt_error *err)
{
    int rc = check_src(o, url, err);
    struct run r = {o, sink, gt_key_set_new(), 0, 0, 0, 1, (int64_t)time(NULL)};
    if (rc == GT_OK && !r.told)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    /* windows of at most MAX_POINTS steps, each step in one window only */
    struct window_run w = {&r, url, h, o->step > 0 ? o->step : 60, err, {{0}}};
    if (rc == GT_OK && o->histogram)
        rc = fetch_histograms(&w);
    else if (rc == GT_OK)
        rc = gt_each_window(o->range_from, o->range_to, w.step * MAX_POINTS, w.step,
                            fetch_window, &w, sink, err);
    if (rc == GT_OK)
        tell_counts(&r);
    gt_key_set_free(r.told);
    return rc;
}

const struct gt_collector gt_collector_prometheus = {
    "prometheus", "blackbox_exporter probes (the RTT and probe_success series) or "
                  "smokeping_prober histograms (--exporter smokeping) from Prometheus' "
                  "query_range, from --src to each instance or host",
    parse, NULL, false, fetch};
