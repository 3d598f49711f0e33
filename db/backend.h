/*
 * backend.h - the store interface: what a database must do for gridtail,
 * as a table of functions (the way collectors and models plug in).  Only
 * db/ sees it: the rest of the program calls db.h, query.h, store.h,
 * fitcache.h and ingest.h, whose functions dispatch through the table of
 * the store they were handed.
 *
 * A backend owns its SQL and its connection; the generic db/ code keeps
 * what does not depend on the database: the id caches of the sample
 * writer (store.c), the fit-cache blob format (fitcache.c), the ingest
 * rules (ingest.c) and the pair summaries (query.c).
 *
 * Every function returns a GT_ status and fills err as the rest of
 * gridtail does; "in the caller's transaction" means the generic code
 * has opened a write transaction (begin_write) around the call.
 */
#ifndef GT_BACKEND_H
#define GT_BACKEND_H

#include "db.h"
#include "eventlog.h"
#include "query.h"
#include "store.h"

/* The part of a connection every backend has; a backend's own connection
 * struct starts with it. */
struct gt_db {
    const struct gt_db_backend *be;
    char *addr;         /* as given: a path, or a URL (never with a password) */
    long busy_ms;       /* how long a write waits for another writer */
    int64_t deadline_ns;   /* 0, or when every wait for a lock ends (a monotonic
                              gt_monotonic_ns reading): gt_db_set_deadline */
    bool readonly;      /* opened read-only */
    bool created;       /* this open made the store (it held no schema) */
};

/* A backend's sample writer (its prepared statements) starts with this. */
struct gt_db_writer {
    struct gt_db *db;
};

/* Likewise a reader of pair windows (query.h). */
struct gt_series_reader {
    struct gt_db *db;
};

/* One line of the ingest log. */
struct gt_log_row {
    int64_t source;               /* 0: none (a buffer, stdin) */
    const char *format, *input, *status;
    const char *message;          /* NULL unless something failed */
    int64_t started, finished;
    long read, stored, duplicates, rejected, skipped, conflicts;
};

/* The fit cache is a table of blobs keyed (window, key, src); fitcache.c
 * owns what is inside them.  A scan calls back with each blob, valid
 * only during the call. */
typedef int (*gt_blob_fn)(void *ctx, long window, const char *key, int64_t src,
                          const void *blob, size_t bytes);

struct gt_db_backend {
    const char *name;                         /* "sqlite" */
    bool (*claims)(const char *addr);         /* is this address mine? */
    const char *(*library_version)(void);     /* for `gridtail version` */
    int (*latest_version)(void);              /* the schema version it writes */

    /* connection, schema, transactions */
    int (*open)(const char *addr, enum gt_db_mode mode, long busy_ms, struct gt_db **out,
                struct gt_error *err);
    void (*close)(struct gt_db *db);
    /* the connection can still be used (a server's, after the last
       statement failed to reconnect: false); NULL: always */
    bool (*usable)(struct gt_db *db);
    int (*version)(struct gt_db *db, int *version, struct gt_error *err);
    int (*migrate_to)(struct gt_db *db, int version, struct gt_error *err);
    int (*exec)(struct gt_db *db, const char *sql, struct gt_error *err);
    int (*scalar)(struct gt_db *db, const char *sql, long long *v, struct gt_error *err);
    int (*begin_read)(struct gt_db *db, struct gt_error *err);    /* one snapshot */
    int (*begin_write)(struct gt_db *db, struct gt_error *err);
    int (*try_begin_write)(struct gt_db *db, long wait_ms);   /* GT_EDB when busy
                                                                  after wait_ms */
    int (*commit)(struct gt_db *db, struct gt_error *err);
    void (*rollback)(struct gt_db *db);
    bool (*in_transaction)(struct gt_db *db);
    int (*data_version)(struct gt_db *db, int64_t *version, struct gt_error *err);
    int (*set_cache_mb)(struct gt_db *db, long mb, struct gt_error *err);
    /* a named lock across every host of the store, held until unlock or
     * close; wait false only tries (*got says) */
    int (*lock)(struct gt_db *db, const char *name, bool wait, bool *got,
                struct gt_error *err);
    void (*unlock)(struct gt_db *db, const char *name);
    int (*reclaim)(struct gt_db *db, bool full, long long *before, long long *after,
                   struct gt_error *err);

    /* writing samples: ids found or created, samples under the
     * duplicate and conflict rules of store.h (in the caller's
     * transaction).  put_samples takes up to batch_max samples of
     * distinct keys and fills each one's outcome; a backend whose writes
     * cross a network takes many at once. */
    size_t batch_max;
    int (*writer_open)(struct gt_db *db, struct gt_db_writer **out, struct gt_error *err);
    void (*writer_free)(struct gt_db_writer *w);
    int (*site_id)(struct gt_db_writer *w, const char *name, size_t len, int64_t *id,
                   struct gt_error *err);
    int (*pair_id)(struct gt_db_writer *w, int64_t src, int64_t dst, int64_t *id,
                   struct gt_error *err);
    int (*put_samples)(struct gt_db_writer *w, struct gt_sample_put *v, size_t n,
                       bool replace, struct gt_error *err);

    /* sources' cursors and the ingest log */
    int (*source_get)(struct gt_db *db, const char *key, int64_t *id, int64_t *cursor,
                      bool *has_cursor, struct gt_error *err);
    /* create or update; the cursor only moves forward, and has_ts false
     * leaves it as it is, but a stored cursor past ahead (one a wrong
     * clock left; INT64_MAX: none is) is replaced: by max_ts, or by none
     * with has_ts false */
    int (*source_advance)(struct gt_db *db, const char *key, const char *format, bool has_ts,
                          int64_t max_ts, int64_t now, int64_t ahead, int64_t *id,
                          struct gt_error *err);
    int (*log_run)(struct gt_db *db, const struct gt_log_row *row, struct gt_error *err);
    /* every source, by key (byte order): copy-store copies the cursors */
    int (*sources)(struct gt_db *db, gt_source_fn each, void *ctx, struct gt_error *err);

    /* sites and pairs */
    int (*sites)(struct gt_db *db, struct gt_site_row **rows, size_t *n, struct gt_error *err);
    int (*site_set_attrs)(struct gt_db *db, const char *name, const char *cluster,
                          const char *domain, const double *lat, const double *lon,
                          struct gt_error *err);
    int (*pair_count)(struct gt_db *db, long *n, struct gt_error *err);
    int (*pair_ids)(struct gt_db *db, const char *src_name,   /* NULL: every source */
                    int (*pair)(void *ctx, int64_t src, const char *src_name, int64_t dst,
                                const char *dst_name),
                    void *ctx, struct gt_error *err);
    int (*newest_by_src)(struct gt_db *db, struct gt_newest_row **rows, size_t *n,
                         struct gt_error *err);
    int (*root_newest)(struct gt_db *db, const char *name, int64_t *id, int64_t *partners,
                       int64_t *newest, struct gt_error *err);

    /* samples: in (pair, ts, seq) order with their pair's names */
    int (*export)(struct gt_db *db, const struct gt_export_filter *f,
                  int (*row)(void *ctx, int64_t ts, const char *src, const char *dst,
                             int64_t seq, double rtt_ms),
                  void *ctx, struct gt_error *err);
    /* one pair's samples in [from, to), in (ts, seq) order */
    int (*pair_range)(struct gt_db *db, int64_t pair, int64_t from, int64_t to,
                      int (*row)(void *ctx, int64_t ts, double rtt_ms), void *ctx,
                      struct gt_error *err);
    /* delete samples before cutoff, or count them (dry_run); in the
     * caller's transaction when not a dry run */
    int (*prune)(struct gt_db *db, int64_t cutoff, bool dry_run, long long *removed,
                 struct gt_error *err);
    /* the window read: query.h's gt_query_series and series reader */
    int (*series)(struct gt_db *db, const char *src, const char *dst, int64_t at,
                  size_t limit, int64_t **ts, double **rtt, size_t *n,
                  struct gt_prior *prior, struct gt_error *err);
    int (*reader_new)(struct gt_db *db, struct gt_series_reader **out, struct gt_error *err);
    void (*reader_free)(struct gt_series_reader *r);
    int (*reader_site)(struct gt_series_reader *r, const char *name, int64_t *id,
                       struct gt_error *err);
    int (*reader_read)(struct gt_series_reader *r, int64_t src, int64_t dst, int64_t at,
                       size_t limit, int64_t *ts, double *rtt, size_t cap, size_t *n,
                       int64_t *newest, struct gt_prior *prior, struct gt_error *err);

    /* the fit cache's blobs (fitcache.c); writes in the caller's
     * transaction */
    int (*blob_get)(struct gt_db *db, long window, const char *key, int64_t src,
                    gt_blob_fn take, void *ctx, struct gt_error *err);
    int (*blob_put)(struct gt_db *db, long window, const char *key, int64_t src,
                    const void *blob, size_t bytes, struct gt_error *err);
    int (*blob_delete)(struct gt_db *db, long window, const char *key, int64_t src,
                       struct gt_error *err);
    /* every blob of src, or of every source with src < 0 */
    int (*blob_scan)(struct gt_db *db, int64_t src, gt_blob_fn each, void *ctx,
                     struct gt_error *err);
    int (*blob_delete_src)(struct gt_db *db, int64_t src, struct gt_error *err);  /* < 0: all */

    /* the event log (eventlog.h); writes in the caller's transaction.
       prune drops the events before its cutoff with the samples. */
    int (*event_marks)(struct gt_db *db, const char *src, const char *dst,
                       int (*each)(void *ctx, const struct gt_event_mark *m), void *ctx,
                       struct gt_error *err);
    int (*events_replace)(struct gt_db *db, int64_t pair, int64_t since,
                          const struct gt_event_row *rows, size_t n, int64_t redo_from,
                          struct gt_error *err);
    int (*event_fit)(struct gt_db *db, int64_t pair, const struct gt_event_row *row,
                     int regime, int64_t fitted_at, struct gt_error *err);
    /* samples of src -> dst stored at ts: when before its redo point, the
       point goes back to a day before ts (eventlog.h); src < 0: every
       pair scanned afresh */
    int (*event_rewind)(struct gt_db *db, int64_t src, int64_t dst, int64_t ts,
                        struct gt_error *err);
    int (*events_read)(struct gt_db *db, const char *src, const char *dst, int64_t from,
                       int64_t to, int kind,
                       int (*each)(void *ctx, int64_t pair, const char *src, const char *dst,
                                   const struct gt_event_row *row),
                       void *ctx, struct gt_error *err);
};

extern const struct gt_db_backend gt_db_sqlite;
extern const struct gt_db_backend gt_db_postgres;

/* Shared by the backends' window reads: rows come newest first (the
 * index runs that way); callers want time order. */
void gt_series_reverse(int64_t *ts, double *rtt, size_t n);

#endif
