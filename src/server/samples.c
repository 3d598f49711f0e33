/*
 * samples.c - see samples.h.  A JSON body is turned into the csv format
 * (records with a bad field are named and left out), so both bodies go
 * through the one csv collector and db/ingest's rules; the collector's
 * line numbers are mapped back to record indices in the answer.
 */
#define _DEFAULT_SOURCE
#include "samples.h"
#include "base/error.h"
#include "base/util.h"
#include "collectors/collector.h"
#include "db/ingest.h"
#include "db/store.h"
#include "base/jsonscan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* what one record may take parsed: a sample is a few hundred bytes */
#define RECORD_MAX_COST ((size_t)64 << 10)

struct report {
    json_t *rejects, *conflicts;  /* the first GT_PUSH_MAX_REPORTED of each */
    long json_rejected;           /* records of a JSON body left out, all of them */
    const long *record_of_line;   /* JSON bodies: CSV line -> record index */
    size_t nlines;
};

static json_t *answer_error(unsigned *status, unsigned code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static json_t *answer_error(unsigned *status, unsigned code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    *status = code;
    char text[4 * sizeof msg];   /* the client's bytes may not be UTF-8 */
    gt_utf8_escape(msg, text, sizeof text);
    return json_pack("{s:s, s:n}", "error", text, "field");
}

/* "LINE: field" of the collector as the client knows it: "records[i]:
 * field" for a JSON body, "line LINE: field" for CSV */
static void where(const struct report *r, const char *loc, char *out, size_t size)
{
    char *end;
    long line = strtol(loc, &end, 10);
    if (r->record_of_line && end != loc && line > 0 && (size_t)line < r->nlines)
        snprintf(out, size, "records[%ld]%s", r->record_of_line[line], end);
    else
        snprintf(out, size, "line %s", loc);
}

/* a record named with why: its text may quote the client's bytes, which
 * need not be UTF-8 (json_pack refuses them: the reject vanished) */
static void add(json_t *list, const char *at, const char *msg)
{
    char where_text[1024], why[4096];
    if (json_array_size(list) >= GT_PUSH_MAX_REPORTED)
        return;
    gt_utf8_escape(at, where_text, sizeof where_text);
    gt_utf8_escape(msg, why, sizeof why);
    json_array_append_new(list, json_pack("{s:s, s:s}", "where", where_text, "reason", why));
}

/* a record of the collector's, named as the client knows it, into list */
static void report_record(struct report *r, json_t *list, const char *loc, const char *msg)
{
    char at[256];
    where(r, loc, at, sizeof at);
    add(list, at, msg);
}

static void on_reject(void *ctx, const char *input, const char *loc, const char *msg)
{
    (void)input;
    struct report *r = ctx;
    report_record(r, r->rejects, loc, msg);
}

static void on_conflict(void *ctx, const char *input, const char *loc, const char *msg)
{
    (void)input;
    struct report *r = ctx;
    report_record(r, r->conflicts, loc, msg);
}

/* a site name that the CSV line can carry as it is */
static const char *bad_name(const json_t *v)
{
    if (!json_is_string(v))
        return "expected a string";
    const char *s = json_string_value(v);
    if (!*s || strlen(s) > 255)
        return "expected 1 to 255 characters";
    if (strpbrk(s, ",\"\r\n"))
        return "a comma, quote or line break is not allowed in a site name";
    return NULL;
}

/* One record into the CSV line; NULL or why not (*field says where). */
static const char *record_line(const json_t *o, struct gt_buf *csv, const char **field)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        if (strcmp(key, "ts") && strcmp(key, "src") && strcmp(key, "dst") &&
            strcmp(key, "rtt_ms") && strcmp(key, "seq")) {
            *field = key;
            return "unknown field (ts, src, dst, rtt_ms, seq)";
        }
    }
    const json_t *ts = json_object_get(o, "ts"), *rtt = json_object_get(o, "rtt_ms"),
                 *seq = json_object_get(o, "seq");
    int64_t t;
    *field = "ts";
    if (json_is_integer(ts))
        t = json_integer_value(ts);
    else if (!json_is_string(ts) || !gt_parse_time(json_string_value(ts),
                                                   strlen(json_string_value(ts)), &t))
        return "expected Unix seconds or an ISO-8601 time";
    const char *why;
    *field = "src";
    if ((why = bad_name(json_object_get(o, "src"))))
        return why;
    *field = "dst";
    if ((why = bad_name(json_object_get(o, "dst"))))
        return why;
    *field = "rtt_ms";
    if (!json_is_null(rtt) && !json_is_number(rtt))
        return "expected a number of ms, or null for a lost probe";
    *field = "seq";
    if (seq && !json_is_integer(seq))
        return "expected an integer";
    char rtt_text[40] = "";
    if (json_is_number(rtt))
        snprintf(rtt_text, sizeof rtt_text, "%.17g", json_number_value(rtt));
    gt_buf_printf(csv, "%lld,%s,%s,%s,%lld\n", (long long)t,
                  json_string_value(json_object_get(o, "src")),
                  json_string_value(json_object_get(o, "dst")), rtt_text,
                  seq ? (long long)json_integer_value(seq) : 0LL);
    return NULL;
}

static size_t skip_space(const char *p, size_t len, size_t i)
{
    while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
        i++;
    return i;
}

/* record_of_line[line] = record, grown as needed */
static int note_line(long **record_of_line, size_t *cap, size_t line, long record)
{
    if (line >= *cap) {
        size_t n = *cap ? 2 * *cap : 1024;
        long *grown = realloc(*record_of_line, n * sizeof *grown);
        if (!grown)
            return GT_ENOMEM;
        *record_of_line = grown, *cap = n;
    }
    (*record_of_line)[line] = record;
    return GT_OK;
}

/* One record of a JSON body (text, its cost scanned by the caller), at
 * most RECORD_MAX_COST parsed: its CSV line into csv, or named in the
 * rejects.  GT_EINPUT (why set) when it is not JSON: the body is refused
 * whole, as a CSV body whose header is bad. */
static int one_record(const char *text, const struct gt_json_cost *cost, size_t record,
                      size_t at, struct gt_buf *csv, struct report *r, bool *stored, char *why,
                      size_t why_size)
{
    char where_text[300];
    const char *field = "", *bad;
    json_error_t je;
    json_t *o = NULL;
    *stored = false;
    if (cost->bytes > RECORD_MAX_COST) {
        bad = "larger than a sample can be (its JSON would take more than 64 KiB parsed)";
    } else if (!(o = json_loadb(text, cost->end, JSON_DECODE_ANY, &je))) {
        snprintf(why, why_size, "the body is not JSON: records[%zu], at byte %zu: %s", record,
                 at, je.text);
        return GT_EINPUT;
    } else {
        bad = json_is_object(o) ? record_line(o, csv, &field) : "expected an object";
    }
    if (bad) {   /* field may be a key of o: named before o goes */
        snprintf(where_text, sizeof where_text, "records[%zu]%s%s", record, *field ? ": " : "",
                 field);
        add(r->rejects, where_text, bad);
        r->json_rejected++;
    }
    json_decref(o);
    *stored = !bad;
    return GT_OK;
}

/* A JSON array of samples as csv text, with each CSV line's record.  The
 * records are parsed one at a time: the array parsed whole is 20 to 100
 * times the body (1.8 GiB for 16 MiB of "[{},{},...]"). */
static int json_to_csv(const char *body, size_t len, struct gt_buf *csv, long **record_of_line,
                       size_t *nlines, struct report *r, char *why, size_t why_size)
{
    size_t i = skip_space(body, len, 0), cap = 0, record = 0;
    *nlines = 2;   /* line 1 is the header */
    if (i >= len || body[i] != '[') {
        bool json = i < len && strchr("{\"-0123456789tfn", body[i]);
        snprintf(why, why_size, json ? "the body is not a JSON array of samples"
                 : "the body is not JSON: byte %zu: an array of samples starts with '['", i);
        return GT_EINPUT;
    }
    int rc = gt_buf_printf(csv, "ts,src,dst,rtt_ms,seq\n");
    i = skip_space(body, len, i + 1);
    bool closed = i < len && body[i] == ']';
    if (closed)
        i = skip_space(body, len, i + 1);
    while (rc == GT_OK && !closed) {
        struct gt_json_cost cost;
        gt_json_cost(body + i, len - i, &cost);
        bool stored;
        rc = one_record(body + i, &cost, record, i, csv, r, &stored, why, why_size);
        if (rc == GT_OK && stored)
            rc = note_line(record_of_line, &cap, (*nlines)++, (long)record);
        record++;
        i = skip_space(body, len, i + cost.end);
        if (rc == GT_OK && (i >= len || (body[i] != ',' && body[i] != ']'))) {
            snprintf(why, why_size, "the body is not JSON: byte %zu: expected ',' or ']' "
                     "after records[%zu]", i, record - 1);
            rc = GT_EINPUT;
        }
        closed = i < len && body[i] == ']';
        i = skip_space(body, len, i + 1);
    }
    if (rc == GT_OK && i < len) {
        snprintf(why, why_size, "the body is not JSON: byte %zu: more after the array", i);
        rc = GT_EINPUT;
    }
    if (rc == GT_OK && !*record_of_line)
        rc = note_line(record_of_line, &cap, 0, 0);
    return rc;
}

static bool type_is(const char *ctype, const char *want)
{
    size_t n = strlen(want);
    return ctype && !strncasecmp(ctype, want, n) && (!ctype[n] || ctype[n] == ';' ||
                                                     ctype[n] == ' ');
}

/* busy_ms bounds all the push's waits for the store's write lock
 * together (its begin, the log row of a run that failed, ...): each
 * statement used to wait it again, and a push answered after 4.1 s against
 * push_wait_ms 2 s (issue 45, point 13). */
static json_t *store_csv(const char *db_path, long busy_ms, const char *name, const char *csv,
                         size_t len, struct report *r, long json_rejects, unsigned *status)
{
    struct gt_db *db = NULL;
    struct gt_store *store = NULL;
    struct gt_error err = {0};
    int64_t deadline = gt_monotonic_ns() + (int64_t)busy_ms * 1000000;
    int orc = gt_db_open(db_path, GT_DB_EXISTING, busy_ms, &db, &err);
    if (orc == GT_OK) {
        gt_db_set_deadline(db, deadline);
        orc = gt_store_open(db, &store, &err);
    }
    if (orc) {
        if (db)
            gt_db_close(db);
        return answer_error(status, 503, "the store cannot be written now: %s",
                            err.code == GT_EDB || err.code == GT_EIO ? "it is busy or missing"
                                                                    : err.msg);
    }
    struct gt_ingest_opts o = {.format = gt_collector_find("csv"), .now = time(NULL),
                               .collect.judge_records = true, .on_reject = on_reject,
                               .on_conflict = on_conflict, .cb_ctx = r};
    struct gt_ingest_result res;
    int rc = gt_ingest_buffer(db, store, name, csv, len, &o, &res);
    gt_store_free(store);
    gt_db_close(db);
    if (rc == GT_EINPUT || rc == GT_EUSAGE || rc == GT_ETOOBIG)
        return answer_error(status, 400, "%s", res.err.msg);
    if (rc)
        return answer_error(status, 503, "the samples were not stored (nothing was): %s",
                            rc == GT_EDB ? "the store is busy; try again" : gt_strerror(rc));
    *status = 200;
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:O, s:O}", "read",
                     (json_int_t)(res.read + json_rejects), "stored", (json_int_t)res.stored,
                     "duplicates", (json_int_t)res.duplicates, "conflicts",
                     (json_int_t)res.conflicts, "rejected",
                     (json_int_t)(res.rejected + json_rejects), "lost", (json_int_t)res.lost,
                     "rejects", r->rejects, "conflicts_list", r->conflicts);
}

json_t *gt_samples_push(const char *db_path, long busy_timeout_ms, const char *content_type,
                        const char *body, size_t len, const char *name, unsigned *status)
{
    struct report r = {json_array(), json_array(), 0, NULL, 0};
    json_t *a;
    if (type_is(content_type, "text/csv")) {
        a = store_csv(db_path, busy_timeout_ms, name, body, len, &r, 0, status);
    } else if (type_is(content_type, "application/json")) {
        struct gt_buf csv;
        long *lines = NULL;
        char why[300];
        gt_buf_init(&csv, 4 * len + 4096);
        int rc = json_to_csv(body, len, &csv, &lines, &r.nlines, &r, why, sizeof why);
        r.record_of_line = lines;
        long json_rejects = r.json_rejected;
        a = rc == GT_EINPUT  ? answer_error(status, 400, "%s", why)
            : rc             ? answer_error(status, 503, "out of memory")
                             : store_csv(db_path, busy_timeout_ms, name, csv.data, csv.len, &r,
                                         json_rejects, status);
        gt_buf_free(&csv);
        free(lines);
    } else {
        a = answer_error(status, 415, "samples are sent as Content-Type: text/csv (the csv "
                         "format) or application/json (an array of {ts, src, dst, rtt_ms})");
    }
    json_decref(r.rejects);
    json_decref(r.conflicts);
    return a;
}
