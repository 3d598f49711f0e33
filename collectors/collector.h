/*
 * collector.h - the interface every input format implements.
 *
 * A collector reads one input (a stream, or a directory for the matrix
 * format) and hands each sample to a sink; it never touches the database.
 * Malformed records are passed to sink->reject and parsing goes on; an
 * input that is not the declared format at all makes parse() return
 * GT_EINPUT before the first emit, so the caller can refuse it whole.
 * Formats are registered in collectors.c: adding one is adding a file.
 */
#ifndef GT_COLLECTOR_H
#define GT_COLLECTOR_H

#include "base/error.h"
#include "http.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GT_SITE_NAME_MAX 255

/* Clocks (issue 45): a sample stamped more than GT_CLOCK_SKEW_S after now
 * is refused, not stored (a probe with a wrong clock must not move its
 * source's cursor past today and silence it), and no source's cursor
 * passes now + GT_CLOCK_SKEW_S nor the end of the range it asked for.
 * The archives of other tools (the formats that fetch for themselves:
 * atlas, pscheduler, prometheus) hold nothing before GT_ARCHIVE_EPOCH: an
 * older time there is a clock gone wrong too.  Local files (csv, matrix,
 * ...) keep any time, so that history is imported as it is
 * (tests/cli/edges.sh stores samples at the far past on purpose). */
#define GT_CLOCK_SKEW_S 86400
#define GT_ARCHIVE_EPOCH 946684800   /* 2000-01-01T00:00:00Z */

struct gt_site_map;

/* One RTT sample.  Site names are spans into the collector's buffers and
 * are only valid during the emit call. */
struct gt_sample {
    const char *src;
    size_t src_len;
    const char *dst;
    size_t dst_len;
    int64_t ts;        /* Unix seconds */
    int64_t seq;       /* probe number within (pair, ts); 0 for one probe */
    double rtt_ms;     /* NAN = lost probe (stored as NULL) */
    /* Where the record is, for messages: line > 0 in a text input, in
     * an archive or directory member (NULL = the input itself). */
    const char *member;
    long line;
};

struct gt_sink {
    void *ctx;
    /* A good sample.  A non-OK return is fatal (database error) and the
     * collector must stop and return it. */
    int (*emit)(void *ctx, const struct gt_sample *s);
    /* A rejected record: loc is "line" or "member:line" or a JSON path. */
    void (*reject)(void *ctx, const char *loc, const char *msg);
    /* An assumption the user should know about (matrix start time...). */
    void (*note)(void *ctx, const char *msg);
};

/* Options a collector may use; unset strings are NULL. */
struct gt_collect_opts {
    const char *src, *dst;        /* fixed pair (esmond) */
    const char *sites_file;       /* matrix: one site name per line */
    const char *site_prefix;      /* matrix: name sites PREFIX001... */
    int64_t start;                /* matrix: time of slice 1 */
    bool start_set;
    int64_t interval;             /* matrix: seconds between slices */
    bool interval_set;
    double unit_ms;               /* matrix: ms per unit of the values */
    bool unit_set;
    bool zero_is_missing;         /* matrix: 0 off the diagonal = lost */
    long slice;                   /* matrix: t of a single file (0 = from its name) */
    size_t max_input_bytes;       /* cap for inputs read whole (JSON) */
    long probe_count;             /* probe: rounds (0 = 1) */
    long probe_timeout_ms;        /* probe: wait per round (0 = 2000) */
    unsigned probe_port;          /* probe: port of targets without one */
    /* csv formats: judge every record, never the input as a whole by its
     * bytes (a pushed body: a record of control bytes is that record's
     * problem, and the good records beside it must be stored) */
    bool judge_records;
    /* atlas (and the other archives' formats): KEY,SITE lines naming the
       sites of hosts, probes and addresses (sitemap.h); NULL: none */
    const struct gt_site_map *site_map;
    /* prometheus: the RTT query (seconds), the success query (1 answered,
       0 lost), the label naming the destination, one sample a step */
    const char *query, *success_query, *dst_label;
    long step;
    /* prometheus --exporter smokeping: query names a latency histogram
       (smokeping_prober's), success_query counts the pings sent */
    bool histogram;
    /* A URL input's time range, its {start} and {end} (fetch) */
    int64_t range_from, range_to;
    /* Filled by prepare_url when it learns the pair from metadata. */
    char meta_src[GT_SITE_NAME_MAX + 1], meta_dst[GT_SITE_NAME_MAX + 1];
};

/* An opened input: a stream, or (fp == NULL) a directory at path, or
 * (for a format that fetches for itself) the expanded url. */
struct gt_input {
    const char *name;   /* for messages: path, URL or "<stdin>" */
    const char *path;   /* filesystem path or NULL */
    FILE *fp;
    const char *url;    /* NULL unless fetch() is to read it */
};

struct gt_collector {
    const char *name;
    const char *summary;
    int (*parse)(const struct gt_input *in, const struct gt_collect_opts *o,
                 const struct gt_sink *sink, struct gt_error *err);
    /* Optional: called before fetching URL url, e.g. to read archive
     * metadata into o->meta_src/meta_dst. */
    int (*prepare_url)(const char *url, struct gt_collect_opts *o,
                       const struct gt_http_opts *h, struct gt_error *err);
    bool needs_directory_ok;   /* accepts a directory path as input */
    /* Optional: a URL input read by the format itself, in as many
     * requests as it takes (an archive's pages), emitting as parse()
     * does; url has {src} and {dst} expanded, {start} and {end} left for
     * it, the range being o->range_from and range_to.  Without it, a URL
     * is fetched whole and handed to parse(). */
    int (*fetch)(const char *url, const struct gt_collect_opts *o,
                 const struct gt_http_opts *h, const struct gt_sink *sink,
                 struct gt_error *err);
};

/* ---- the registry ---- */
const struct gt_collector *gt_collector_find(const char *name);
const struct gt_collector *const *gt_collector_all(void);   /* NULL-ended */

/* ---- helpers shared by the formats ---- */

/* An archive of another tool (it fetches for itself): GT_ARCHIVE_EPOCH
 * applies to its times. */
bool gt_collector_is_archive(const struct gt_collector *f);

/* NULL if a sample at ts may be stored at time now, else why not: past
 * now + GT_CLOCK_SKEW_S, or (archive) before GT_ARCHIVE_EPOCH. */
const char *gt_time_problem(int64_t ts, int64_t now, bool archive);

/* NULL if the span is a valid site name, else the reason. */
const char *gt_site_name_problem(const char *s, size_t len);

/* Format a reject message and pass it to the sink. */
void gt_reject(const struct gt_sink *sink, const char *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gt_rejectl(const struct gt_sink *sink, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gt_note(const struct gt_sink *sink, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Read the whole stream into a buffer capped at o->max_input_bytes. */
int gt_input_slurp(const struct gt_input *in, const struct gt_collect_opts *o,
                   struct gt_buf *out, struct gt_error *err);

/* For archives that page by time: the windows [a, b] of at most span
 * seconds, step apart (b + step is the next a), that tile [from, to], the
 * last ending at to, each handed to each(); stops at its first error.
 * A window whose answer is too large (each() says GT_ETOOBIG: more than
 * [http] max_json_mb) is asked again in halves, down to a
 * GT_WINDOW_SPLITS-th of span (the error cleared, said in a note); one
 * that small still too large is the error, naming the window. */
#define GT_WINDOW_SPLITS 64
int gt_each_window(int64_t from, int64_t to, int64_t span, int64_t step,
                   int (*each)(void *ctx, int64_t a, int64_t b), void *ctx,
                   const struct gt_sink *sink, struct gt_error *err);

/* True when the first bytes look like binary (NUL or invalid UTF-8). */
bool gt_looks_binary(const char *p, size_t len);

#endif
