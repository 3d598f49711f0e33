/*
 * pscheduler.c - perfSONAR 5 results (issue 27) as its Logstash pipeline
 * stores them in OpenSearch (perfsonar/logstash, 02-pscheduler_common,
 * 06-result_rtt and 06-result_latency): test types rtt, latency and
 * latencybg, one document a run.  From a URL (OpenSearch's _search, e.g.
 * https://HOST/opensearch/pscheduler/_search, the alias of the
 * pscheduler_TYPE indices), asked in pages of
 * PAGE documents, sorted by pscheduler.start_time and
 * pscheduler.run_href, the next page after the last one's sort values
 * (search_after), until an empty page; or from a file: a saved _search answer, a list of
 * documents or hits, or a document a line.
 *
 * A document is a run at pscheduler.start_time from meta.source to
 * meta.destination (hostname, else ip; through --site-map).  Units,
 * decided per document:
 *   rtt: the round trips of result.packets.json, each {seq, rtt} (rtt an
 *     ISO 8601 duration, "PT0.0123S", or a number of seconds; every
 *     duration kept to the nanosecond) a sample
 *     with its seq, an {seq, error} item lost, a repeated seq a duplicate
 *     reply (skipped), and the seqs 1..result.packets.sent with no item
 *     lost (silent losses).  A run without them is read from its summary
 *     (result.rtt.{min,mean,max} in seconds and the packet counts): min,
 *     max and the received - 2 others at the value that keeps the mean,
 *     lost the rest (METHOD.md, "perfSONAR runs without round trips").
 *   latency, latencybg (one-way, OWAMP): result.latency.histogram
 *     {values, counts}, values in units of test.spec.bucket-width seconds
 *     (default 0.001 for latency, 0.0001 for latencybg), each counted
 *     packet a sample in increasing order, result.packets.lost lost.
 * A run with result.succeeded false has no samples and is counted.
 */
#include "jsonin.h"
#include "sitemap.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAGE 1000                 /* documents asked a request */
#define MAX_PAGES 20000           /* a run of ingest: 20 M documents */
#define MAX_PACKETS 100000        /* samples of one document */

struct pkt {
    int64_t seq;
    double ms;   /* NAN: lost */
};

struct run {
    const struct gt_collect_opts *o;
    const struct gt_sink *sink;
    struct gt_key_set *told;
    struct pkt *p;            /* a document's samples: 2 MAX_PACKETS, made
                                 for the first document that has any */
    long summaries, failed, dups, errors;
    char first_failure[80];
};

/* A run's state; false on ENOMEM. */
static bool run_init(struct run *r, const struct gt_collect_opts *o, const struct gt_sink *sink)
{
    *r = (struct run){.o = o, .sink = sink, .told = gt_key_set_new()};
    return r->told != NULL;
}

static void run_free(struct run *r)
{
    gt_key_set_free(r->told);
    free(r->p);
}

/* Seconds as ms, to the nanosecond: pScheduler's durations have no finer
 * digits, and 0.0102 s * 1000 would store 10.200000000000001. */
static double ms_of(double s)
{
    return round(s * 1e9) / 1e6;
}

/* The member at a dotted path ("result.packets.json"), or NULL. */
static const json_t *at(const json_t *doc, const char *path)
{
    char key[64];
    while (doc && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        doc = json_is_object(doc) ? json_object_get(doc, key) : NULL;
        path += n + (path[n] == '.');
    }
    return doc;
}

static const char *string_at(const json_t *doc, const char *path)
{
    const json_t *v = at(doc, path);
    return json_is_string(v) && json_string_length(v) ? json_string_value(v) : NULL;
}

/* "PT0.0123S", "PT1M2.5S", "P0DT0H0M0.01S": seconds. */
static bool iso_duration(const char *s, double *out)
{
    if (*s++ != 'P')
        return false;
    double total = 0;
    bool time = false, any = false;
    while (*s) {
        if (*s == 'T' && !time) {
            time = true, s++;
            continue;
        }
        char *end;
        double v = strtod(s, &end);
        if (end == s || !isfinite(v) || v < 0)
            return false;
        double unit = *end == 'D' && !time ? 86400 : *end == 'H' && time ? 3600
                    : *end == 'M' && time  ? 60    : *end == 'S' && time ? 1 : -1;
        if (unit < 0)
            return false;
        total += v * unit, any = true;
        s = end + 1;
    }
    *out = total;
    return any;
}

/* An ISO duration string or a number, as seconds. */
static bool seconds(const json_t *v, double *s)
{
    if (json_is_string(v))
        return iso_duration(json_string_value(v), s);
    return gt_json_number(v, s) && *s >= 0;
}

static bool count_at(const json_t *doc, const char *path, long *out)
{
    const json_t *v = at(doc, path);
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > MAX_PACKETS)
        return false;
    *out = (long)json_integer_value(v);
    return true;
}

static int cmp_pkt(const void *a, const void *b)
{
    const struct pkt *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* rtt's round trips into p (sorted by seq); the number, or -1 (*why). */
static long rtt_packets(struct run *r, const json_t *doc, struct pkt *p, const char **why)
{
    const json_t *list = at(doc, "result.packets.json");
    long sent = -1, n = 0;
    if (at(doc, "result.packets.sent") && !count_at(doc, "result.packets.sent", &sent))
        return *why = "result.packets.sent: not a count", -1;
    if (json_array_size(list) > MAX_PACKETS)
        return *why = "result.packets.json: more than 100,000 round trips", -1;
    size_t i;
    const json_t *it;
    json_array_foreach(list, i, it) {
        const json_t *seq = json_object_get(it, "seq"), *rtt = json_object_get(it, "rtt");
        double s;
        if (!json_is_integer(seq) || json_integer_value(seq) < 0)
            return *why = "result.packets.json: an item without a seq", -1;
        if (rtt && !seconds(rtt, &s))
            return *why = "result.packets.json: an rtt that is not a duration", -1;
        if (!rtt && !json_object_get(it, "error"))
            return *why = "result.packets.json: an item with neither rtt nor error", -1;
        p[n++] = (struct pkt){json_integer_value(seq), rtt ? ms_of(s) : NAN};
    }
    qsort(p, (size_t)n, sizeof *p, cmp_pkt);
    long k = 0;   /* the first item of a seq counts; the others are duplicates */
    for (long j = 0; j < n; j++) {
        if (k && p[k - 1].seq == p[j].seq) {
            r->dups++;
            continue;
        }
        r->errors += isnan(p[j].ms);
        p[k++] = p[j];
    }
    long answered = k;   /* then the silent losses: the seqs 1..sent without an item */
    for (long s = 1; s <= sent && k < MAX_PACKETS; s++) {
        struct pkt key = {s, 0};
        if (!bsearch(&key, p, (size_t)answered, sizeof *p, cmp_pkt))
            p[k++] = (struct pkt){s, NAN};
    }
    return k;
}

/* A run without round trips, from its summary (see the header). */
static long rtt_summary(struct run *r, const json_t *doc, struct pkt *p, const char **why)
{
    long rcvd, lost = 0;
    double mn = 0, av = 0, mx = 0;
    if (!count_at(doc, "result.packets.received", &rcvd) ||
        (at(doc, "result.packets.lost") && !count_at(doc, "result.packets.lost", &lost)) ||
        rcvd + lost > MAX_PACKETS)
        return *why = "result.packets: no round trips and no received count", -1;
    if (rcvd && (!seconds(at(doc, "result.rtt.min"), &mn) ||
                 !seconds(at(doc, "result.rtt.mean"), &av) ||
                 !seconds(at(doc, "result.rtt.max"), &mx) || !(mn <= av && av <= mx)))
        return *why = "result.rtt: min <= mean <= max not given in seconds", -1;
    long k = 0;
    mn = ms_of(mn), av = ms_of(av), mx = ms_of(mx);
    if (rcvd >= 1)
        p[k++] = (struct pkt){1, mn};
    if (rcvd >= 2)
        p[k++] = (struct pkt){2, mx};
    if (rcvd >= 3) {
        double rest = ((double)rcvd * av - mn - mx) / (double)(rcvd - 2);
        if (rest < mn - 1e-6 || rest > mx + 1e-6)
            return *why = "result.rtt: no values between min and max keep the mean", -1;
        for (long s = 3; s <= rcvd; s++)
            p[k++] = (struct pkt){s, ms_of(fmin(fmax(rest, mn), mx) / 1e3)};
    }
    for (long s = 1; s <= lost; s++)
        p[k++] = (struct pkt){rcvd + s, NAN};
    r->summaries++;
    return k;
}

struct bucket {
    double ms;
    long count;
};

static int cmp_bucket(const void *a, const void *b)
{
    double x = ((const struct bucket *)a)->ms, y = ((const struct bucket *)b)->ms;
    return (x > y) - (x < y);
}

/* latency's histogram into p, in increasing order, then the lost. */
static long latency_packets(const json_t *doc, bool bg, struct pkt *p, const char **why)
{
    const json_t *vals = at(doc, "result.latency.histogram.values");
    const json_t *counts = at(doc, "result.latency.histogram.counts");
    double bw = bg ? 1e-4 : 1e-3;
    const json_t *w = at(doc, "test.spec.bucket-width");
    if (w && (!gt_json_number(w, &bw) || !(bw > 0 && bw < 1)))
        return *why = "test.spec.bucket-width: not a number of seconds in (0, 1)", -1;
    size_t n = json_array_size(vals);
    if (!json_is_array(vals) || !json_is_array(counts) || json_array_size(counts) != n)
        return *why = "result.latency.histogram: not {values, counts} of one length", -1;
    struct bucket *b = malloc((n ? n : 1) * sizeof *b);
    if (!b)
        return *why = "out of memory", -1;
    long total = 0, lost = 0;
    for (size_t i = 0; i < n && !*why; i++) {
        const json_t *v = json_array_get(vals, i), *c = json_array_get(counts, i);
        double x;
        bool num = json_is_string(v) ? gt_parse_double(json_string_value(v),
                                                      json_string_length(v), &x)
                                     : gt_json_number(v, &x);
        if (!num || !isfinite(x) || x < 0)
            *why = "result.latency.histogram.values: not a delay >= 0 (clock error?)";
        else if (!json_is_integer(c) || json_integer_value(c) < 0 ||
                 (total += (long)json_integer_value(c)) > MAX_PACKETS)
            *why = "result.latency.histogram.counts: not counts of at most 100,000 packets";
        else
            b[i] = (struct bucket){ms_of(bw * x), (long)json_integer_value(c)};
    }
    if (!*why && at(doc, "result.packets.lost") &&
        (!count_at(doc, "result.packets.lost", &lost) || total + lost > MAX_PACKETS))
        *why = "result.packets.lost: not a count";
    long k = 0;
    if (!*why) {
        qsort(b, n, sizeof *b, cmp_bucket);
        for (size_t i = 0; i < n; i++)
            for (long c = 0; c < b[i].count; c++, k++)
                p[k] = (struct pkt){k, b[i].ms};
        for (long s = 0; s < lost; s++, k++)
            p[k] = (struct pkt){k, NAN};
    }
    free(b);
    return *why ? -1 : k;
}

/* One document (a hit's _source): checked whole, then emitted. */
static int take_doc(struct run *r, const json_t *doc, const char *loc)
{
    const struct gt_sink *sink = r->sink;
    const char *bad = gt_json_dropped(doc);
    if (bad)
        return gt_reject(sink, loc, "%s", bad), GT_OK;
    if (json_is_object(doc) && json_is_object(json_object_get(doc, "_source")))
        doc = json_object_get(doc, "_source");   /* a hit */
    const char *type = string_at(doc, "test.type");
    if (!type || (strcmp(type, "rtt") && strcmp(type, "latency") && strcmp(type, "latencybg")))
        return gt_reject(sink, loc, "test.type: '%.40s', not rtt, latency or latencybg",
                         type ? type : "(none)"), GT_OK;
    struct gt_sample s = {0};
    if (!gt_json_time(at(doc, "pscheduler.start_time"), &s.ts))
        return gt_reject(sink, loc, "pscheduler.start_time: missing or not a time"), GT_OK;
    const char *late = gt_time_problem(s.ts, (int64_t)time(NULL), true);
    char when[32];
    if (late)
        return gt_format_time(s.ts, when, sizeof when),
               gt_reject(sink, loc, "pscheduler.start_time: %s: %s", when, late), GT_OK;
    const char *src[2] = {string_at(doc, "meta.source.hostname"), string_at(doc, "meta.source.ip")};
    const char *dst[2] = {string_at(doc, "meta.destination.hostname"),
                          string_at(doc, "meta.destination.ip")};
    if (!src[0])
        src[0] = src[1], src[1] = NULL;
    if (!dst[0])
        dst[0] = dst[1], dst[1] = NULL;
    if (!src[0] || !dst[0])
        return gt_reject(sink, loc, "meta.%s: no hostname or ip", src[0] ? "destination"
                                                                        : "source"), GT_OK;
    const json_t *ok = at(doc, "result.succeeded");
    if (json_is_false(ok)) {
        if (!r->failed++)
            snprintf(r->first_failure, sizeof r->first_failure, "%s",
                     string_at(doc, "result.error") ? string_at(doc, "result.error") : "");
        return GT_OK;
    }
    if (!r->p && !(r->p = malloc(2 * MAX_PACKETS * sizeof *r->p)))
        return GT_ENOMEM;
    struct pkt *p = r->p;
    const char *why = NULL;
    long n = !strcmp(type, "rtt") ? (at(doc, "result.packets.json")
                                         ? rtt_packets(r, doc, p, &why)
                                         : rtt_summary(r, doc, p, &why))
                                  : latency_packets(doc, !strcmp(type, "latencybg"), p, &why);
    int rc = GT_OK;
    if (n < 0) {
        gt_reject(sink, loc, "%s", why);
    } else {
        s.src = gt_site_map_name(r->o->site_map, r->told, sink, "pscheduler", "host", src);
        s.dst = gt_site_map_name(r->o->site_map, r->told, sink, "pscheduler", "host", dst);
        if ((why = gt_site_name_problem(s.src, strlen(s.src))) ||
            (why = gt_site_name_problem(s.dst, strlen(s.dst))))
            gt_reject(sink, loc, "meta: %s", why), n = 0;
        s.src_len = strlen(s.src), s.dst_len = strlen(s.dst);
        for (long i = 0; rc == GT_OK && i < n; i++) {
            s.seq = p[i].seq;
            s.rtt_ms = p[i].ms;
            rc = sink->emit(sink->ctx, &s);
        }
    }
    return rc;
}

static void tell_counts(const struct run *r)
{
    if (r->errors)
        gt_note(r->sink, "pscheduler: %ld round trips answered by an error (stored as lost)",
                r->errors);
    if (r->dups)
        gt_note(r->sink, "pscheduler: %ld duplicate replies skipped", r->dups);
    if (r->summaries)
        gt_note(r->sink, "pscheduler: %ld rtt runs without round trips read from their "
                "summary (min, mean, max)", r->summaries);
    if (r->failed)
        gt_note(r->sink, "pscheduler: %ld failed runs (result.succeeded false) have no "
                "samples%s%s%s", r->failed, r->first_failure[0] ? "; the first: '" : "",
                r->first_failure, r->first_failure[0] ? "'" : "");
}

/* The hits of a _search answer, or a list: each a document. */
static int take_list(struct run *r, const json_t *list, const char *prefix)
{
    size_t i;
    const json_t *doc;
    int rc = GT_OK;
    json_array_foreach(list, i, doc) {
        char loc[64];
        snprintf(loc, sizeof loc, "%s[%zu]", prefix, i);
        if ((rc = take_doc(r, doc, loc)))
            break;
    }
    return rc;
}

static int take_line(void *ctx, const json_t *doc, const char *loc)
{
    return take_doc(ctx, doc, loc);
}

static int take_lines(struct run *r, const char *text, size_t len, const char *name,
                      struct gt_error *err)
{
    return gt_json_lines(text, len, name, "pscheduler",
                         "neither a _search answer, a list nor a document a line", r->sink,
                         take_line, r, err);
}

static int parse(const struct gt_input *in, const struct gt_collect_opts *o,
                 const struct gt_sink *sink, struct gt_error *err)
{
    if (!in->fp)
        return gt_error_set(err, GT_EINPUT, in->name, "not a pscheduler file: a directory");
    struct gt_buf buf;
    int rc = gt_input_slurp(in, o, &buf, err);
    if (rc == GT_OK && gt_looks_binary(buf.data, buf.len))
        rc = gt_error_set(err, GT_EINPUT, in->name, "not a pscheduler file: binary data");
    struct run r;
    if (!run_init(&r, o, sink) && rc == GT_OK)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    json_t *root = NULL;
    if (rc == GT_OK && !(root = gt_json_load_page(buf.data, buf.len, "hits.hits", NULL)))
        root = gt_json_load_page(buf.data, buf.len, "", NULL);
    const json_t *hits = at(root, "hits.hits");
    if (rc == GT_OK && json_is_array(hits))
        rc = take_list(&r, hits, "hits");
    else if (rc == GT_OK && json_is_array(root))
        rc = take_list(&r, root, "");
    else if (rc == GT_OK)
        rc = take_lines(&r, buf.data, buf.len, in->name, err);
    if (rc == GT_OK)
        tell_counts(&r);
    json_decref(root);
    run_free(&r);
    gt_buf_free(&buf);
    return rc;
}

/* The query of one page: the range, the types, the order, after. */
static char *page_query(const struct gt_collect_opts *o, const json_t *after)
{
    char from[32], to[32];
    gt_format_time(o->range_from, from, sizeof from);
    gt_format_time(o->range_to, to, sizeof to);
    json_t *q = json_pack(
        "{s:i, s:{s:{s:[{s:{s:{s:s, s:s}}}, {s:{s:[s, s, s]}}]}}, s:[{s:s}, {s:s}]}", "size",
        PAGE, "query", "bool", "filter", "range", "pscheduler.start_time", "gte", from, "lte", to,
        "terms", "test.type.keyword", "rtt", "latency", "latencybg", "sort",
        "pscheduler.start_time", "asc", "pscheduler.run_href.keyword", "asc");
    if (q && after)
        json_object_set(q, "search_after", (json_t *)after);
    char *text = q ? json_dumps(q, JSON_COMPACT) : NULL;
    json_decref(q);
    return text;
}

static int fetch(const char *url, const struct gt_collect_opts *o, const struct gt_http_opts *h,
                 const struct gt_sink *sink, struct gt_error *err)
{
    struct run r;
    int rc = run_init(&r, o, sink) ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    json_t *after = NULL;
    for (long page = 0; rc == GT_OK; page++) {
        if (page == MAX_PAGES) {
            rc = gt_error_set(err, GT_ETOOBIG, url, "more than %d pages of %d documents: "
                              "narrow the range (--since)", MAX_PAGES, PAGE);
            break;
        }
        char *query = page_query(o, after), prefix[32];
        struct gt_buf answer;
        gt_buf_init(&answer, gt_http_json_cap(h));
        long status = 0;
        rc = query ? gt_http_post(url, h, "application/json", NULL, query, strlen(query),
                                  &status, &answer, err)
                   : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        free(query);
        if (rc == GT_OK && status != 200)
            rc = gt_error_set(err, GT_EIO, url, "OpenSearch answered HTTP %ld: %.200s", status,
                              answer.len ? answer.data : "");
        json_error_t jerr;
        json_t *root = rc == GT_OK ? gt_json_load_page(answer.data ? answer.data : "",
                                                       answer.len, "hits.hits", &jerr)
                                   : NULL;
        gt_buf_free(&answer);
        const json_t *hits = at(root, "hits.hits");
        char why[300] = "";
        if (!root)
            gt_json_error_text(&jerr, why, sizeof why);
        if (rc == GT_OK && !json_is_array(hits))
            rc = gt_error_set(err, GT_EINPUT, url, "page %ld: not an OpenSearch _search answer "
                              "(no hits.hits)%s%s", page + 1, root ? "" : ": ", why);
        snprintf(prefix, sizeof prefix, "page %ld hits", page + 1);
        if (rc == GT_OK)
            rc = take_list(&r, hits, prefix);
        size_t n = json_array_size(hits);
        /* the next page goes on from the last hit read whole (one with a
           bad value, rejected, has no sort values to trust) */
        size_t k = n;
        while (k > 0 && gt_json_dropped(json_array_get(hits, k - 1)))
            k--;
        const json_t *last = k ? json_object_get(json_array_get(hits, k - 1), "sort") : NULL;
        if (rc == GT_OK && n && !k) {   /* nothing left to page on from */
            gt_note(sink, "pscheduler: page %ld: every hit rejected, none whole to go on "
                    "from: no further page asked", page + 1);
            n = 0;
        }
        /* until an empty page: a server may answer fewer than asked */
        if (rc == GT_OK && n && !json_is_array(last))
            rc = gt_error_set(err, GT_EINPUT, url, "page %ld: hits without sort values to go "
                              "on from", page + 1);
        if (rc == GT_OK && n && after && json_equal(after, last))
            rc = gt_error_set(err, GT_EINPUT, url, "page %ld: the server repeated a page (its "
                              "last sort values are the page's before)", page + 1);
        bool more = rc == GT_OK && n;
        if (more) {
            json_decref(after);
            after = json_incref((json_t *)last);
        }
        json_decref(root);
        if (!more)
            break;
    }
    json_decref(after);
    if (rc == GT_OK)
        tell_counts(&r);
    run_free(&r);
    return rc;
}

const struct gt_collector gt_collector_pscheduler = {
    "pscheduler", "perfSONAR 5 rtt, latency and latencybg runs from OpenSearch (_search pages, "
                  "or a saved answer, a list or a document a line)",
    parse, NULL, false, fetch};
