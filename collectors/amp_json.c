/*
 * amp_json.c - the amp-web JSON API shape: a list of streams, each
 *   {"metadata": {"source": A, "destination": B, ...}   (or [[k, v], ...]),
 *    "data": [{"timestamp": T, "rtts": [us | null, ...]}
 *             | {"timestamp": T, "median": us | null}, ...]}
 * RTTs are microseconds; null is a lost probe; the position in rtts is
 * the probe's seq.  A single stream object is accepted as a list of one.
 */
#include "jsonin.h"

#include <math.h>
#include <string.h>

static const char *meta_get(const json_t *meta, const char *key)
{
    if (json_is_object(meta)) {
        const json_t *v = json_object_get(meta, key);
        return json_is_string(v) ? json_string_value(v) : NULL;
    }
    if (json_is_array(meta)) {
        size_t i;
        const json_t *kv;
        json_array_foreach(meta, i, kv) {
            const json_t *k = json_array_get(kv, 0), *v = json_array_get(kv, 1);
            if (json_array_size(kv) == 2 && json_is_string(k) &&
                !strcmp(json_string_value(k), key) && json_is_string(v))
                return json_string_value(v);
        }
    }
    return NULL;
}

/* A stream's sites, or NULL after rejecting the stream. */
static bool stream_sites(const json_t *stream, size_t si, const struct gt_sink *sink,
                         struct gt_sample *s)
{
    char loc[64];
    snprintf(loc, sizeof loc, "[%zu].metadata", si);
    const json_t *meta = json_object_get(stream, "metadata");
    const char *src = meta_get(meta, "source"), *dst = meta_get(meta, "destination");
    if (!src || !dst) {
        gt_reject(sink, loc, "no source and destination strings");
        return false;
    }
    const char *why = gt_site_name_problem(src, strlen(src));
    if (!why)
        why = gt_site_name_problem(dst, strlen(dst));
    if (why) {
        gt_reject(sink, loc, "%s", why);
        return false;
    }
    s->src = src, s->src_len = strlen(src);
    s->dst = dst, s->dst_len = strlen(dst);
    return true;
}

/* RTT in µs (or null) to ms; false if it is neither. */
static bool us_to_ms(const json_t *v, double *ms)
{
    if (json_is_null(v)) {
        *ms = NAN;
        return true;
    }
    double us;
    if (!gt_json_number(v, &us) || us < 0)
        return false;
    *ms = us / 1000.0;
    return true;
}

static int emit_row(const json_t *row, size_t si, size_t ri, const struct gt_sink *sink,
                    struct gt_sample *s)
{
    char loc[96];
    snprintf(loc, sizeof loc, "[%zu].data[%zu]", si, ri);
    if (!json_is_object(row) || !gt_json_time(json_object_get(row, "timestamp"), &s->ts)) {
        gt_reject(sink, loc, "timestamp: missing or not a time");
        return GT_OK;
    }
    const json_t *rtts = json_object_get(row, "rtts");
    const json_t *median = json_object_get(row, "median");
    if (json_is_array(rtts)) {
        size_t k;
        const json_t *v;
        /* Validate the whole row first: a row is one record. */
        json_array_foreach(rtts, k, v) {
            double ms;
            if (!us_to_ms(v, &ms)) {
                gt_reject(sink, loc, "rtts[%zu]: not a non-negative number or null", k);
                return GT_OK;
            }
        }
        json_array_foreach(rtts, k, v) {
            us_to_ms(v, &s->rtt_ms);
            s->seq = (int64_t)k;
            int rc = sink->emit(sink->ctx, s);
            if (rc)
                return rc;
        }
        return GT_OK;
    }
    if (median && us_to_ms(median, &s->rtt_ms)) {
        s->seq = 0;
        return sink->emit(sink->ctx, s);
    }
    gt_reject(sink, loc, "no 'rtts' list and no numeric 'median'");
    return GT_OK;
}

static int parse(const struct gt_input *in, const struct gt_collect_opts *o,
                 const struct gt_sink *sink, struct gt_error *err)
{
    json_t *root;
    int rc = gt_json_load(in, o, "amp-json", &root, err);
    if (rc)
        return rc;
    if (json_is_object(root) && json_object_get(root, "data")) {
        json_t *list = json_array();
        json_array_append_new(list, root);
        root = list;
    }
    if (!json_is_array(root)) {
        json_decref(root);
        return gt_error_set(err, GT_EINPUT, in->name,
                            "not an amp-json file: expected a list of streams");
    }
    size_t si;
    json_t *stream;
    json_array_foreach(root, si, stream) {
        struct gt_sample s = {0};
        char loc[64];
        snprintf(loc, sizeof loc, "[%zu]", si);
        if (!json_is_object(stream)) {
            gt_reject(sink, loc, "stream is not an object");
            continue;
        }
        if (!stream_sites(stream, si, sink, &s))
            continue;
        const json_t *data = json_object_get(stream, "data");
        if (!json_is_array(data)) {
            gt_reject(sink, loc, "data: missing or not a list");
            continue;
        }
        size_t ri;
        const json_t *row;
        json_array_foreach(data, ri, row) {
            if ((rc = emit_row(row, si, ri, sink, &s)) != GT_OK)
                goto out;
        }
    }
out:
    json_decref(root);
    return rc;
}

const struct gt_collector gt_collector_amp_json = {
    "amp-json", "amp-web JSON API: streams of {metadata, data: [{timestamp, rtts|median}]} (us)",
    parse, NULL, false, NULL};
