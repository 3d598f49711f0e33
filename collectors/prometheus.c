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
 */
#include "jsonin.h"
#include "sitemap.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POINTS 11000    /* Prometheus refuses more a series a query */
#define DEFAULT_QUERY "probe_icmp_duration_seconds{phase=\"rtt\"}"
#define DEFAULT_SUCCESS "probe_success"

struct run {
    const struct gt_collect_opts *o;
    const struct gt_sink *sink;
    struct gt_key_set *told;
    long lost, no_value;
};

/* A value of a matrix: [time, "value"]; false when not one. */
static bool point(const json_t *p, int64_t *ts, double *v)
{
    const json_t *t = json_array_get(p, 0), *s = json_array_get(p, 1);
    double d;
    if (json_array_size(p) != 2 || !gt_json_number(t, &d) || !json_is_string(s))
        return false;
    *ts = (int64_t)floor(d);
    const char *text = json_string_value(s);
    if (!gt_parse_double(text, strlen(text), v))
        *v = NAN;   /* "NaN", "+Inf": no value */
    return true;
}

static const char *label(const json_t *series, const char *name)
{
    const json_t *v = json_object_get(json_object_get(series, "metric"), name);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The success series of rtt's destination and job, or NULL. */
static const json_t *success_of(const json_t *ok, const json_t *rtt, const char *dlabel)
{
    const char *dst = label(rtt, dlabel), *job = label(rtt, "job");
    size_t i;
    const json_t *s;
    json_array_foreach(ok, i, s) {
        const char *d = label(s, dlabel), *j = label(s, "job");
        if (d && !strcmp(d, dst) && ((!j && !job) || (j && job && !strcmp(j, job))))
            return s;
    }
    return NULL;
}

/* One RTT series, joined with its success series (NULL: none), emitted. */
static int take_series(struct run *r, const json_t *rtt, const json_t *ok, const char *loc)
{
    const struct gt_collect_opts *o = r->o;
    const char *dlabel = o->dst_label ? o->dst_label : "instance";
    const char *dst = label(rtt, dlabel);
    if (!dst || !*dst)
        return gt_reject(r->sink, loc, "metric.%s: the series names no destination", dlabel),
               GT_OK;
    const char *skeys[2] = {o->src, NULL}, *dkeys[2] = {dst, NULL};
    struct gt_sample s = {0};
    s.src = gt_site_map_name(o->site_map, r->told, r->sink, "prometheus", "source", skeys);
    s.dst = gt_site_map_name(o->site_map, r->told, r->sink, "prometheus", "destination", dkeys);
    const char *why = gt_site_name_problem(s.dst, strlen(s.dst));
    if (why)
        return gt_reject(r->sink, loc, "metric.%s: %s", dlabel, why), GT_OK;
    s.src_len = strlen(s.src), s.dst_len = strlen(s.dst);
    const json_t *vals = json_object_get(rtt, "values"), *okv = json_object_get(ok, "values");
    size_t j = 0, n_ok = json_array_size(okv);
    size_t i;
    const json_t *p;
    int rc = GT_OK;
    json_array_foreach(vals, i, p) {
        double v, good = NAN;
        if (!point(p, &s.ts, &v)) {
            gt_reject(r->sink, loc, "values[%zu]: not [time, \"value\"]", i);
            continue;
        }
        for (; j < n_ok; j++) {   /* both in time order */
            int64_t t;
            double g;
            if (!point(json_array_get(okv, j), &t, &g) || t > s.ts)
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

/* The series of a query_range answer (data.result of a matrix). */
static const json_t *matrix_of(const json_t *root)
{
    const json_t *data = json_object_get(root, "data");
    const json_t *type = json_object_get(data, "resultType");
    if (!json_is_string(type) || strcmp(json_string_value(type), "matrix"))
        return NULL;
    const json_t *res = json_object_get(data, "result");
    return json_is_array(res) ? res : NULL;
}

static int take_answer(struct run *r, const json_t *rtt, const json_t *ok, const char *prefix)
{
    size_t i;
    const json_t *series;
    int rc = GT_OK;
    json_array_foreach(rtt, i, series) {
        char loc[64];
        snprintf(loc, sizeof loc, "%sresult[%zu]", prefix, i);
        if ((rc = take_series(r, series, ok ? success_of(ok, series,
                                                         r->o->dst_label ? r->o->dst_label
                                                                         : "instance")
                                            : NULL, loc)))
            break;
    }
    return rc;
}

static void tell_counts(const struct run *r)
{
    if (r->lost)
        gt_note(r->sink, "prometheus: %ld probes failed (success 0): stored as lost", r->lost);
    if (r->no_value)
        gt_note(r->sink, "prometheus: %ld steps without an RTT value (NaN) skipped",
                r->no_value);
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
    if (rc == GT_OK && (rc = gt_json_load(in, o, "prometheus", &root, err)) == GT_OK &&
        !matrix_of(root))
        rc = gt_error_set(err, GT_EINPUT, in->name, "not a prometheus file: expected a "
                          "query_range answer (data.resultType matrix)");
    struct run r = {o, sink, gt_key_set_new(), 0, 0};
    if (rc == GT_OK && !r.told)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK)
        rc = take_answer(&r, matrix_of(root), NULL, "data.");
    if (rc == GT_OK)
        tell_counts(&r);
    gt_key_set_free(r.told);
    json_decref(root);
    return rc;
}

/* One query_range request: its answer's root (caller decrefs). */
static int query_range(const char *base, const char *query, int64_t from, int64_t to, long step,
                       const struct gt_http_opts *h, json_t **root, struct gt_error *err)
{
    struct gt_buf url, answer;
    gt_buf_init(&url, 65536);
    gt_buf_init(&answer, h->max_bytes ? h->max_bytes : (size_t)1 << 30);
    char tail[96];
    snprintf(tail, sizeof tail, "&start=%lld&end=%lld&step=%ld", (long long)from, (long long)to,
             step);
    size_t n = strlen(base);
    int rc = gt_buf_append(&url, base, n);
    if (rc == GT_OK && !strstr(base, "/api/v1/query_range"))
        rc = gt_buf_append(&url, n && base[n - 1] == '/' ? "api/v1/query_range"
                                                         : "/api/v1/query_range", 
                           n && base[n - 1] == '/' ? 18 : 19);
    if (rc == GT_OK)
        rc = gt_buf_append(&url, strchr(base, '?') ? "&query=" : "?query=", 7);
    if (rc == GT_OK)
        rc = gt_http_escape(&url, query);
    if (rc == GT_OK)
        rc = gt_buf_append(&url, tail, strlen(tail));
    if (rc == GT_ENOMEM)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK)
        rc = gt_http_get(url.data, h, &answer, NULL, err);
    json_error_t jerr;
    *root = rc == GT_OK ? json_loadb(answer.data ? answer.data : "", answer.len, 0, &jerr)
                        : NULL;
    if (rc == GT_OK && !matrix_of(*root)) {
        const char *e = json_is_string(json_object_get(*root, "error"))
                            ? json_string_value(json_object_get(*root, "error")) : "";
        rc = gt_error_set(err, GT_EINPUT, url.data, "not a query_range answer of a range "
                          "vector%s%s", *e ? ": " : "", e);
    }
    gt_buf_free(&url);
    gt_buf_free(&answer);
    return rc;
}

struct window_run {
    struct run *r;
    const char *url;
    const struct gt_http_opts *h;
    long step;
    struct gt_error *err;
};

/* The two queries of [a, b], joined. */
static int fetch_window(void *ctx, int64_t a, int64_t b)
{
    struct window_run *w = ctx;
    const struct gt_collect_opts *o = w->r->o;
    json_t *rtt = NULL, *ok = NULL;
    int rc = query_range(w->url, o->query ? o->query : DEFAULT_QUERY, a, b, w->step, w->h, &rtt,
                         w->err);
    if (rc == GT_OK)
        rc = query_range(w->url, o->success_query ? o->success_query : DEFAULT_SUCCESS, a, b,
                         w->step, w->h, &ok, w->err);
    char prefix[48];
    snprintf(prefix, sizeof prefix, "start=%lld ", (long long)a);
    if (rc == GT_OK)
        rc = take_answer(w->r, matrix_of(rtt), matrix_of(ok), prefix);
    json_decref(rtt);
    json_decref(ok);
    return rc;
}

static int fetch(const char *url, const struct gt_collect_opts *o, const struct gt_http_opts *h,
                 const struct gt_sink *sink, struct gt_error *err)
{
    int rc = check_src(o, url, err);
    struct run r = {o, sink, gt_key_set_new(), 0, 0};
    if (rc == GT_OK && !r.told)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    /* windows of at most MAX_POINTS steps, each step in one window only */
    struct window_run w = {&r, url, h, o->step > 0 ? o->step : 60, err};
    if (rc == GT_OK)
        rc = gt_each_window(o->range_from, o->range_to, w.step * MAX_POINTS, w.step,
                            fetch_window, &w);
    if (rc == GT_OK)
        tell_counts(&r);
    gt_key_set_free(r.told);
    return rc;
}

const struct gt_collector gt_collector_prometheus = {
    "prometheus", "blackbox_exporter probes from Prometheus' query_range: the RTT and "
                  "probe_success series from --src to each instance",
    parse, NULL, false, fetch};
