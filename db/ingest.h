/*
 * ingest.h - one input (file, directory, stdin or URL) through a collector
 * into the store, as one transaction.
 *
 * Contract: malformed records are reported through on_reject, counted and
 * skipped; the good records of an input are committed together; an input
 * that is not the declared format is refused with nothing written; a
 * rerun stores nothing new (duplicates are counted).  Each run is logged
 * in ingest_log, and the source's cursor (latest timestamp seen, at most
 * the end of the range asked and now + GT_CLOCK_SKEW_S) is advanced in the
 * same transaction as the data.  Samples more than GT_CLOCK_SKEW_S in the
 * future (and an archive's before GT_ARCHIVE_EPOCH) are rejected.
 */
#ifndef GT_INGEST_H
#define GT_INGEST_H

#include "db.h"
#include "store.h"
#include "collectors/collector.h"

/* RTTs above this are refused as implausible (a unit slip), as are
 * non-finite values and 0 ms between two different sites. */
#define GT_RTT_MAX_MS 60000.0

struct gt_ingest_opts {
    const struct gt_collector *format;
    struct gt_collect_opts collect;
    struct gt_http_opts http;
    int64_t since;          /* with since_set: drop samples older than this */
    bool since_set;
    int64_t now;            /* {end} of URL templates, log times */
    long cache_mb;
    long max_rows;          /* records one input may hold; 0 = no limit */
    int64_t lookback_s;     /* {start} of a URL source with no cursor: now - this */
    /* With spool set, every sample is also appended to it as a CSV line
     * "ts,src,dst,rtt_ms,seq" (the csv format; empty rtt = lost) before it
     * is stored, and after a database error the rest of the input still
     * goes to the spool: a caller that measured the samples (probe) can
     * keep them for a later run instead of losing them. */
    struct gt_buf *spool;
    /* Called every few thousand records: records so far, and bytes read
     * of a regular file (done, total; 0, 0 when not known). */
    void (*on_progress)(void *ctx, const char *input, long records, double done, double total);
    void (*on_reject)(void *ctx, const char *input, const char *loc, const char *msg);
    void (*on_note)(void *ctx, const char *input, const char *msg);
    /* A key already stored with another value: loc as for on_reject. */
    void (*on_conflict)(void *ctx, const char *input, const char *loc, const char *msg);
    bool replace_conflicts;  /* --on-conflict replace: the new value wins */
    void *cb_ctx;
};

struct gt_ingest_result {
    const char *status;     /* "ok", "refused" or "failed" */
    long read, stored, duplicates, rejected, skipped, lost;
    long conflicts;         /* keys stored with another value (kept or replaced) */
    long replaced;          /* of those, replaced by the new value */
    bool new_source;        /* the input had never been ingested before */
    int64_t min_ts, max_ts; /* of the samples read; valid if read > 0 */
    int attempts;           /* HTTP requests made (0 for files) */
    char fetched[2048];     /* the URL actually fetched, if any */
    struct gt_error err;    /* why, when refused or failed */
};

/* The key a source's cursor is kept under: a URL with {src}/{dst} filled
 * in (and, for a format that fetches for a probing site, "#src=..." and
 * its queries), or a file's absolute path. */
int gt_ingest_source_key(const char *input, const struct gt_ingest_opts *o,
                         struct gt_buf *key, struct gt_error *err);

/* {start} of a URL source: --since, else after its cursor, else now minus
 * the look-back.  A cursor more than GT_CLOCK_SKEW_S ahead of the clock
 * (o->now, else the time) is set aside as if there were none. */
int64_t gt_ingest_url_start(const struct gt_ingest_opts *o, bool has_cursor, int64_t cursor);
/* True when that cursor is set aside. */
bool gt_ingest_cursor_ahead(const struct gt_ingest_opts *o, bool has_cursor, int64_t cursor);

/* Ingest input ("-" = stdin, http(s):// = URL, else a path).  Returns
 * GT_OK (records may still have been rejected: see res), GT_EINPUT/
 * GT_EUSAGE when the input was refused, or an I/O or database error. */
int gt_ingest_input(struct gt_db *db, struct gt_store *store, const char *input,
                    struct gt_ingest_opts *o, struct gt_ingest_result *res);

/* The same for len bytes in memory (a request body), called name in
 * messages and the log; no source cursor is kept. */
int gt_ingest_buffer(struct gt_db *db, struct gt_store *store, const char *name,
                     const char *data, size_t len, struct gt_ingest_opts *o,
                     struct gt_ingest_result *res);
/* Record in ingest_log a run that failed when the log itself could not
 * be written (the store was locked): read records, why. */
int gt_ingest_log_failed(struct gt_db *db, const char *format, const char *input,
                         int64_t started, long read, const char *message,
                         struct gt_error *err);

#endif
