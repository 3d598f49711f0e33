/*
 * esmond.c - perfSONAR esmond histogram-rtt base data:
 *   [{"ts": T, "val": {"<rtt ms>": count, ...}}, ...]
 * Each counted probe becomes one sample at T, numbered by seq in
 * increasing RTT order.  The pair comes from --src/--dst or, for an
 * archive URL .../archive/<key>/histogram-rtt/..., from the archive's
 * metadata document .../archive/<key>/ (input-source/input-destination,
 * else source/destination).
 */
#include "jsonin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROBES_PER_TS 100000   /* one histogram */
/* Probes a point may count per byte of its text: a document expands at
 * most this much (an 842-byte one of 25 histograms of 100,000 probes was
 * 2.5 M rows).  A bucket of 3 digits and a count of 600 is 10 bytes:
 * real histograms (10 to 600 probes a test) stay far below it. */
#define MAX_PROBES_PER_BYTE 64

struct bucket {
    double ms;
    int64_t count;
};

static int by_ms(const void *a, const void *b)
{
    double x = ((const struct bucket *)a)->ms, y = ((const struct bucket *)b)->ms;
    return (x > y) - (x < y);
}

/* Validate a histogram into buckets (caller frees); false after reject. */
static bool read_histogram(const json_t *val, const char *loc, const struct gt_sink *sink,
                           struct bucket **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (json_is_null(val))
        return true;
    if (!json_is_object(val)) {
        gt_reject(sink, loc, "val: not an object of \"ms\": count");
        return false;
    }
    size_t size = json_object_size(val), i = 0;
    struct bucket *b = calloc(size ? size : 1, sizeof *b);
    if (!b) {
        gt_reject(sink, loc, "out of memory");
        return false;
    }
    const char *key;
    const json_t *count;
    int64_t total = 0;
    size_t text = 24;   /* the point's own text, {"ts": ..., "val": {}} at least */
    json_object_foreach((json_t *)val, key, count) {
        if (!gt_parse_double(key, strlen(key), &b[i].ms) || !isfinite(b[i].ms) ||
            b[i].ms < 0) {
            gt_reject(sink, loc, "val: bucket '%.40s' is not a non-negative RTT", key);
            free(b);
            return false;
        }
        if (!json_is_integer(count) || json_integer_value(count) < 0 ||
            (total += json_integer_value(count)) > MAX_PROBES_PER_TS) {
            gt_reject(sink, loc, "val['%.40s']: count is not an integer in [0, %d]",
                      key, MAX_PROBES_PER_TS);
            free(b);
            return false;
        }
        b[i++].count = json_integer_value(count);
        text += strlen(key) + 4 + (size_t)snprintf(NULL, 0, "%lld", (long long)b[i - 1].count);
    }
    if (total > (int64_t)(MAX_PROBES_PER_BYTE * text)) {
        gt_reject(sink, loc, "val: %lld probes in about %zu bytes: at most %d a byte (a "
                  "document expands no more than that)", (long long)total, text,
                  MAX_PROBES_PER_BYTE);
        free(b);
        return false;
    }
    qsort(b, size, sizeof *b, by_ms);
    *out = b;
    *n = size;
    return true;
}

static int emit_point(const json_t *pt, size_t i, struct gt_sample *s,
                      const struct gt_sink *sink)
{
    char loc[48];
    snprintf(loc, sizeof loc, "[%zu]", i);
    const char *bad = gt_json_dropped(pt);
    if (bad) {   /* a value jansson refused: this point only */
        gt_reject(sink, loc, "%s", bad);
        return GT_OK;
    }
    if (!json_is_object(pt) || !gt_json_time(json_object_get(pt, "ts"), &s->ts)) {
        gt_reject(sink, loc, "ts: missing or not a time");
        return GT_OK;
    }
    struct bucket *b;
    size_t n;
    if (!read_histogram(json_object_get(pt, "val"), loc, sink, &b, &n))
        return GT_OK;
    int rc = GT_OK;
    s->seq = 0;
    for (size_t k = 0; k < n && rc == GT_OK; k++)
        for (int64_t c = 0; c < b[k].count && rc == GT_OK; c++) {
            s->rtt_ms = b[k].ms;
            rc = sink->emit(sink->ctx, s);
            s->seq++;
        }
    free(b);
    return rc;
}

static int parse(const struct gt_input *in, const struct gt_collect_opts *o,
                 const struct gt_sink *sink, struct gt_error *err)
{
    const char *src = o->src ? o->src : (o->meta_src[0] ? o->meta_src : NULL);
    const char *dst = o->dst ? o->dst : (o->meta_dst[0] ? o->meta_dst : NULL);
    if (!src || !dst)
        return gt_error_set(err, GT_EUSAGE, in->name,
                            "esmond data does not name its sites: give --src and --dst");
    const char *why = gt_site_name_problem(src, strlen(src));
    if (!why)
        why = gt_site_name_problem(dst, strlen(dst));
    if (why)
        return gt_error_set(err, GT_EUSAGE, in->name, "--src/--dst: %s", why);
    json_t *root;
    int rc = gt_json_load_records(in, o, "esmond", "", &root, err);
    if (rc)
        return rc;
    if (!json_is_array(root)) {
        json_decref(root);
        return gt_error_set(err, GT_EINPUT, in->name,
                            "not an esmond file: expected a list of {ts, val}");
    }
    struct gt_sample s = {0};
    s.src = src, s.src_len = strlen(src);
    s.dst = dst, s.dst_len = strlen(dst);
    size_t i;
    json_t *pt;
    json_array_foreach(root, i, pt) {
        if ((rc = emit_point(pt, i, &s, sink)) != GT_OK)
            break;
    }
    json_decref(root);
    return rc;
}

static int copy_meta(const json_t *doc, const char *k1, const char *k2, char *out)
{
    const json_t *v = json_object_get(doc, k1);
    if (!json_is_string(v))
        v = json_object_get(doc, k2);
    if (!json_is_string(v) || json_string_length(v) > GT_SITE_NAME_MAX)
        return GT_EINPUT;
    memcpy(out, json_string_value(v), json_string_length(v) + 1);
    return GT_OK;
}

/* For .../archive/<key>/..., read .../archive/<key>/ for the pair. */
static int prepare_url(const char *url, struct gt_collect_opts *o,
                       const struct gt_http_opts *h, struct gt_error *err)
{
    if (o->src && o->dst)
        return GT_OK;
    const char *a = strstr(url, "/archive/");
    const char *key_end = a ? strchr(a + 9, '/') : NULL;
    if (!key_end)
        return GT_OK;   /* parse() will ask for --src/--dst */
    struct gt_buf meta_url, body;
    gt_buf_init(&meta_url, 8192);
    gt_buf_init(&body, gt_http_json_cap(h));
    int rc = gt_buf_append(&meta_url, url, (size_t)(key_end - url) + 1);
    if (rc == GT_OK)
        rc = gt_http_get(meta_url.data, h, &body, NULL, err);
    if (rc == GT_OK) {
        json_error_t jerr;
        json_t *doc = json_loadb(body.data, body.len, 0, &jerr);
        if (json_is_array(doc)) {
            json_t *first = json_incref(json_array_get(doc, 0));
            json_decref(doc);
            doc = first;
        }
        if (!json_is_object(doc) ||
            copy_meta(doc, "input-source", "source", o->meta_src) ||
            copy_meta(doc, "input-destination", "destination", o->meta_dst))
            rc = gt_error_set(err, GT_EINPUT, meta_url.data,
                              "esmond metadata names no source/destination");
        json_decref(doc);
    }
    gt_buf_free(&meta_url);
    gt_buf_free(&body);
    return rc;
}

const struct gt_collector gt_collector_esmond = {
    "esmond", "perfSONAR esmond histogram-rtt: [{ts, val: {\"ms\": count}}]",
    parse, prepare_url, false, NULL};
