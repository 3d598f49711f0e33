/*
 * atlas.c - RIPE Atlas ping results (issue 27): a page of the results API
 * (/api/v2/measurements/ID/results/?start=&stop=, a JSON array) or a
 * daily dump (one result a line), plain or compressed (bzip2, gzip, xz:
 * libarchive's filters).  A result is one probe's round to one
 * destination at `timestamp`; each ping of it is one sample, numbered by
 * seq in its order: {"rtt": ms} answered, {"x": "*"} a timeout and
 * {"error": "..."} a ping that failed, both stored as lost and counted
 * apart; {"rtt", "dup": 1} a duplicate reply, not a ping, skipped and
 * counted.  Firmware 1 results have no per-ping list, only sent, rcvd and
 * min/avg/max: with 3 replies or fewer these are the replies exactly (min;
 * min and max; min, max and 3 avg - min - max), and the rest lost; more
 * cannot be told apart, and the result is rejected.
 *
 * The probe is the source, the site of "prb<ID>" (or of its "from"
 * address) in --site-map, else prb<ID>; the destination is the site of
 * its dst_name (or dst_addr), else that name.  Firmware before 4460 says
 * name/addr for dst_name/dst_addr.  A key the map has no line for is told
 * once in a note.
 */
#include "archive_lazy.h"
#include "jsonin.h"
#include "sitemap.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PINGS 1000   /* per result: Atlas sends at most 16 */

struct run {
    const struct gt_collect_opts *o;
    const struct gt_sink *sink;
    struct gt_key_set *told;
    long timeouts, errors, dups, summaries;
    char first_error[80];
};

/* The input, decompressed if it is, whole into buf (at most max bytes). */
static int read_input(const struct gt_input *in, size_t max, struct gt_buf *buf,
                      struct gt_error *err)
{
    int loaded = archive_lazy_load(err);
    if (loaded)
        return loaded;
    struct archive *a = archive_read_new();
    if (!a)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    archive_read_support_filter_all(a);
    archive_read_support_format_raw(a);
    struct archive_entry *e;
    int rc = GT_OK;
    if (archive_read_open_FILE(a, in->fp) != ARCHIVE_OK ||
        archive_read_next_header(a, &e) != ARCHIVE_OK) {
        /* an empty input has no raw entry: no results */
        rc = archive_errno(a) ? gt_error_set(err, GT_EINPUT, in->name, "cannot read: %s",
                                             archive_error_string(a))
                              : GT_OK;
        archive_read_free(a);
        return rc;
    }
    char chunk[65536];
    la_ssize_t n;
    while (rc == GT_OK && (n = archive_read_data(a, chunk, sizeof chunk)) > 0) {
        if (buf->len + (size_t)n > max)
            rc = gt_error_set(err, GT_ETOOBIG, in->name, "more than %zu bytes (uncompressed; "
                              "[http] max_mb)", max);
        else
            rc = gt_buf_append(buf, chunk, (size_t)n);
    }
    if (rc == GT_OK && n < 0)
        rc = gt_error_set(err, GT_EINPUT, in->name, "cannot read: %s", archive_error_string(a));
    archive_read_free(a);
    return rc;
}

static const char *string_of(const json_t *obj, const char *k1, const char *k2)
{
    const json_t *v = json_object_get(obj, k1);
    if (!json_is_string(v) && k2)
        v = json_object_get(obj, k2);
    return json_is_string(v) && json_string_length(v) ? json_string_value(v) : NULL;
}

/* What one ping of result[] is: 1 answered (*rtt), 0 lost (timeout or
 * error, counted), -1 a duplicate reply (no ping), -2 none of these. */
static int ping_of(struct run *r, const json_t *p, double *rtt, bool count)
{
    const json_t *dup = json_object_get(p, "dup");
    if (json_object_get(p, "rtt")) {
        if (!gt_json_number(json_object_get(p, "rtt"), rtt) || *rtt < 0)
            return -2;
        if (dup && !(json_is_integer(dup) && json_integer_value(dup) == 0))
            return r->dups += count, -1;
        return 1;
    }
    *rtt = NAN;
    if (json_is_string(json_object_get(p, "x")))
        return r->timeouts += count, 0;
    const json_t *e = json_object_get(p, "error");
    if (e) {
        if (count && !r->errors++)
            snprintf(r->first_error, sizeof r->first_error, "%s",
                     json_is_string(e) ? json_string_value(e) : "(not a string)");
        return 0;
    }
    return -2;
}

/* The replies of a firmware 1 summary into v (at most 3), lost the rest:
 * how many samples, or -1 (and why) when they cannot be told. */
static long summary_pings(const json_t *res, double v[16], const char **why)
{
    double sent, rcvd, mn = NAN, av = NAN, mx = NAN;
    if (!gt_json_number(json_object_get(res, "sent"), &sent) ||
        !gt_json_number(json_object_get(res, "rcvd"), &rcvd) || sent < 0 || rcvd < 0 ||
        rcvd > sent || sent > 16 || sent != floor(sent) || rcvd != floor(rcvd))
        return *why = "sent, rcvd: not counts with rcvd <= sent <= 16", -1;
    if (rcvd > 3)
        return *why = "firmware 1 gives min/avg/max only: more than 3 replies cannot be told "
                      "apart", -1;
    if (rcvd >= 1 && (!gt_json_number(json_object_get(res, "min"), &mn) ||
                      !gt_json_number(json_object_get(res, "avg"), &av) ||
                      !gt_json_number(json_object_get(res, "max"), &mx) || !(0 <= mn) ||
                      !(mn <= av) || !(av <= mx)))
        return *why = "min, avg, max: not 0 <= min <= avg <= max", -1;
    long k = 0;
    if (rcvd >= 1)
        v[k++] = mn;
    if (rcvd >= 2)
        v[k++] = mx;
    if (rcvd == 3) {
        double mid = 3 * av - mn - mx;   /* the sum of three is 3 avg */
        if (mid < mn - 1e-3 || mid > mx + 1e-3)
            return *why = "min, avg, max: no third reply fits them", -1;
        v[k++] = fmin(fmax(mid, mn), mx);
    }
    while (k < (long)sent)
        v[k++] = NAN;
    return k;
}

/* One result: checked whole, then its pings emitted. */
static int take_result(struct run *r, const json_t *res, const char *loc)
{
    const struct gt_sink *sink = r->sink;
    const char *bad = gt_json_dropped(res);
    if (bad)
        return gt_reject(sink, loc, "%s", bad), GT_OK;
    if (!json_is_object(res))
        return gt_reject(sink, loc, "not a result object"), GT_OK;
    const char *type = string_of(res, "type", NULL), *name = string_of(res, "msm_name", NULL);
    if ((type && strcmp(type, "ping")) || (!type && name && strcmp(name, "Ping")))
        return gt_reject(sink, loc, "type: '%.40s', not a ping result", type ? type : name),
               GT_OK;
    const json_t *prb = json_object_get(res, "prb_id");
    struct gt_sample s = {0};
    if (!json_is_integer(prb) || json_integer_value(prb) < 0)
        return gt_reject(sink, loc, "prb_id: missing or not a probe number"), GT_OK;
    if (!gt_json_time(json_object_get(res, "timestamp"), &s.ts))
        return gt_reject(sink, loc, "timestamp: missing or not a time"), GT_OK;
    const char *why = gt_time_problem(s.ts, (int64_t)time(NULL), true);
    char when[32];
    if (why)
        return gt_format_time(s.ts, when, sizeof when),
               gt_reject(sink, loc, "timestamp: %s: %s", when, why), GT_OK;
    const char *dname = string_of(res, "dst_name", "name"), *daddr = string_of(res, "dst_addr",
                                                                               "addr");
    if (!dname && !daddr)
        return gt_reject(sink, loc, "dst_name, dst_addr: the destination is not named"), GT_OK;
    char probe[32];
    snprintf(probe, sizeof probe, "prb%lld", (long long)json_integer_value(prb));
    const char *src_keys[2] = {probe, string_of(res, "from", NULL)};
    const char *dst_keys[2] = {dname ? dname : daddr, dname ? daddr : NULL};
    const json_t *list = json_object_get(res, "result");
    double v[16];
    long n = 0;
    if (!list) {
        if ((n = summary_pings(res, v, &why)) < 0)
            return gt_reject(sink, loc, "%s", why), GT_OK;
        r->summaries++;
    } else if (!json_is_array(list) || json_array_size(list) > MAX_PINGS) {
        return gt_reject(sink, loc, "result: not a list of at most %d pings", MAX_PINGS), GT_OK;
    }
    size_t i;
    const json_t *p;
    double rtt;
    json_array_foreach(list, i, p) {   /* checked before any is emitted */
        if (!json_is_object(p) || ping_of(r, p, &rtt, false) == -2)
            return gt_reject(sink, loc, "result[%zu]: neither {rtt}, {x} nor {error}", i),
                   GT_OK;
    }
    s.src = gt_site_map_name(r->o->site_map, r->told, sink, "atlas", "probe", src_keys);
    s.dst = gt_site_map_name(r->o->site_map, r->told, sink, "atlas", "destination", dst_keys);
    if ((why = gt_site_name_problem(s.src, strlen(s.src))) ||
        (why = gt_site_name_problem(s.dst, strlen(s.dst))))
        return gt_reject(sink, loc, "site: %s", why), GT_OK;
    s.src_len = strlen(s.src), s.dst_len = strlen(s.dst);
    int rc = GT_OK;
    for (long k = 0; rc == GT_OK && k < n; k++, s.seq++) {
        s.rtt_ms = v[k];
        rc = sink->emit(sink->ctx, &s);
    }
    json_array_foreach(list, i, p) {
        if (rc != GT_OK)
            break;
        if (ping_of(r, p, &s.rtt_ms, true) < 0)
            continue;
        rc = sink->emit(sink->ctx, &s);
        s.seq++;
    }
    return rc;
}

/* A dump: a result a line. */
static int take_line(void *ctx, const json_t *doc, const char *loc)
{
    return take_result(ctx, doc, loc);
}

static int take_lines(struct run *r, const char *text, size_t len, const char *name,
                      struct gt_error *err)
{
    return gt_json_lines(text, len, name, "atlas",
                         "line 1 is not a JSON result nor the start of a list of them",
                         r->sink, take_line, r, err);
}

static int take_page(struct run *r, const char *text, size_t len, const char *name,
                     const char *prefix, struct gt_error *err)
{
    json_error_t jerr;
    json_t *root = gt_json_load_page(text, len, "", &jerr);
    if (!json_is_array(root)) {
        char why[300];
        gt_json_error_text(&jerr, why, sizeof why);
        json_decref(root);
        return gt_error_set(err, GT_EINPUT, name, "not an atlas file: %s",
                            root ? "a JSON value that is not a list of results" : why);
    }
    size_t i;
    json_t *res;
    int rc = GT_OK;
    json_array_foreach(root, i, res) {
        char loc[64];
        snprintf(loc, sizeof loc, "%s[%zu]", prefix, i);
        if ((rc = take_result(r, res, loc)))
            break;
    }
    json_decref(root);
    return rc;
}

static void tell_counts(const struct run *r)
{
    if (r->timeouts || r->errors)
        gt_note(r->sink, "atlas: %ld pings timed out and %ld failed (stored as lost)%s%s%s",
                r->timeouts, r->errors, r->errors ? "; the first error: '" : "",
                r->errors ? r->first_error : "", r->errors ? "'" : "");
    if (r->dups)
        gt_note(r->sink, "atlas: %ld duplicate replies skipped (not pings)", r->dups);
    if (r->summaries)
        gt_note(r->sink, "atlas: %ld firmware 1 results read from their min/avg/max",
                r->summaries);
}

static int parse(const struct gt_input *in, const struct gt_collect_opts *o,
                 const struct gt_sink *sink, struct gt_error *err)
{
    if (!in->fp)
        return gt_error_set(err, GT_EINPUT, in->name, "not an atlas file: a directory");
    size_t max = o->max_input_bytes ? o->max_input_bytes : (size_t)1 << 30;
    struct gt_buf buf;
    gt_buf_init(&buf, max);
    int rc = read_input(in, max, &buf, err);
    if (rc == GT_OK && gt_looks_binary(buf.data, buf.len))
        rc = gt_error_set(err, GT_EINPUT, in->name, "not an atlas file: binary data");
    struct run r = {o, sink, gt_key_set_new(), 0, 0, 0, 0, ""};
    if (rc == GT_OK && !r.told)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK) {
        const char *p = buf.data;
        size_t n = buf.len;
        gt_trim_span(&p, &n);
        rc = n && p[0] == '[' ? take_page(&r, buf.data, buf.len, in->name, "", err)
                              : take_lines(&r, buf.data, buf.len, in->name, err);
    }
    if (rc == GT_OK)
        tell_counts(&r);
    gt_key_set_free(r.told);
    gt_buf_free(&buf);
    return rc;
}

/* The results endpoint, a window of ATLAS_WINDOW_S at a time (the API
 * pages by time only): each window a request of its own, its results
 * named start=S[i]; a URL without {start} is one request. */
#define ATLAS_WINDOW_S 86400

struct window_run {
    struct run *r;
    const char *url;
    const struct gt_http_opts *h;
    bool named;               /* windows: records named start=S[i] */
    struct gt_error *err;
};

/* One request of [a, b]. */
static int fetch_window(void *ctx, int64_t a, int64_t b)
{
    struct window_run *w = ctx;
    char s[24], e[24], prefix[40];
    snprintf(s, sizeof s, "%lld", (long long)a);
    snprintf(e, sizeof e, "%lld", (long long)b);
    snprintf(prefix, sizeof prefix, "start=%lld", (long long)a);
    struct gt_buf u, body;
    gt_buf_init(&u, 8192);
    gt_buf_init(&body, gt_http_json_cap(w->h));
    int rc = gt_url_expand(w->url, NULL, NULL, s, e, &u, w->err);
    if (rc == GT_OK)
        rc = gt_http_get(u.data, w->h, &body, NULL, w->err);
    if (rc == GT_OK)
        rc = take_page(w->r, body.data ? body.data : "[]", body.len ? body.len : 2, u.data,
                       w->named ? prefix : "", w->err);
    gt_buf_free(&u);
    gt_buf_free(&body);
    return rc;
}

static int fetch(const char *url, const struct gt_collect_opts *o, const struct gt_http_opts *h,
                 const struct gt_sink *sink, struct gt_error *err)
{
    struct run r = {o, sink, gt_key_set_new(), 0, 0, 0, 0, ""};
    int rc = r.told ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    struct window_run w = {&r, url, h, strstr(url, "{start}") != NULL, err};
    if (rc == GT_OK)
        rc = w.named ? gt_each_window(o->range_from, o->range_to, ATLAS_WINDOW_S, 1,
                                      fetch_window, &w, sink, err)
                     : fetch_window(&w, o->range_from, o->range_to);
    if (rc == GT_OK)
        tell_counts(&r);
    gt_key_set_free(r.told);
    return rc;
}

const struct gt_collector gt_collector_atlas = {
    "atlas", "RIPE Atlas ping results: an API page [{prb_id, timestamp, dst_name, result: "
             "[{rtt}|{x}|{error}]}] or a daily dump, a result a line (bz2/gz/xz too)",
    parse, NULL, false, fetch};
