/*
 * sqlite.h - the SQLite backend of the store interface (db/backend.h):
 * one file per store, WAL mode, statements kept prepared per connection.
 * Only db/sqlite/ and the tests of this backend include it; nothing else
 * in gridtail sees sqlite3.h.
 *
 * Schema (db/sqlite/schema.c): sites, pairs (directed src -> dst), samples
 * keyed by (pair, ts, seq) with rtt_ms NULL for a lost probe, sources with
 * their ingest cursor, the ingest log, and the fit cache.  PRAGMA
 * user_version holds the schema version: opening migrates an older
 * database forward and refuses a newer one.
 */
#ifndef GT_SQLITE_H
#define GT_SQLITE_H

#include "db/backend.h"

#include <sqlite3.h>

/* How many statements one connection keeps prepared (sq_borrow). */
#define GT_DB_KEPT_MAX 16

struct sq_db {
    struct gt_db base;
    sqlite3 *h;
    long wait_ms;           /* this wait for a lock (sq_set_wait) */
    int64_t wait_start_ns;  /* when it began */
    bool fresh;         /* created by this open: a new, empty file */
    /* Statements kept prepared between uses (sq_borrow): a server
     * thread's connection answers request after request with the same few
     * statements, and preparing them anew was a fifth of an answer. */
    struct gt_db_kept {
        char *sql;
        sqlite3_stmt *st;
        bool lent;
    } kept[GT_DB_KEPT_MAX];
    size_t nkept;
};

static inline struct sq_db *sq(struct gt_db *db)
{
    return (struct sq_db *)db;
}

/* The forward migrations (schema.c): the count is the latest version. */
int sq_schema_count(void);
const char *sq_schema_step(int from_version);   /* NULL past the last */

int sq_exec(struct gt_db *db, const char *sql, struct gt_error *err);
int sq_scalar(struct gt_db *db, const char *sql, long long *v, struct gt_error *err);

/* Prepare a statement; on failure records the SQLite message. */
int sq_prepare(struct gt_db *db, const char *sql, sqlite3_stmt **st, struct gt_error *err);

/* A prepared statement for sql that the connection keeps between uses:
 * the caller binds and steps it, then gives it back with sq_giveback,
 * which resets it (so it holds no read snapshot) and clears its bindings.
 * A statement already lent out, or one past GT_DB_KEPT_MAX, is prepared
 * afresh and finalized when given back.  For statements run again and
 * again on one connection; one-off SQL uses sq_prepare. */
int sq_borrow(struct gt_db *db, const char *sql, sqlite3_stmt **st, struct gt_error *err);
void sq_giveback(struct gt_db *db, sqlite3_stmt *st);

/* Record the connection's last SQLite error as GT_EDB (naming a busy
 * store's real cause). */
int sq_fail(struct gt_db *db, struct gt_error *err, const char *what);

/* A column as a malloc'd string, NULL for NULL. */
char *sq_dup_col(sqlite3_stmt *st, int col);

/* The backend's functions, by file: conn.c */
int sq_open(const char *path, enum gt_db_mode mode, long busy_ms, struct gt_db **out,
            struct gt_error *err);
void sq_close(struct gt_db *db);
int sq_version(struct gt_db *db, int *version, struct gt_error *err);
int sq_migrate_to(struct gt_db *db, int target, struct gt_error *err);
int sq_begin_read(struct gt_db *db, struct gt_error *err);
int sq_begin_write(struct gt_db *db, struct gt_error *err);
int sq_try_begin_write(struct gt_db *db, long wait_ms);
/* Waits for another writer's lock end after wait_ms (and at the
 * connection's deadline, gt_db_set_deadline). */
void sq_set_wait(struct gt_db *db, long wait_ms);
int sq_commit(struct gt_db *db, struct gt_error *err);
void sq_rollback(struct gt_db *db);
bool sq_in_transaction(struct gt_db *db);
int sq_data_version(struct gt_db *db, int64_t *version, struct gt_error *err);
int sq_set_cache_mb(struct gt_db *db, long mb, struct gt_error *err);
int sq_reclaim(struct gt_db *db, bool full, long long *before, long long *after,
               struct gt_error *err);

/* write.c */
int sq_writer_open(struct gt_db *db, struct gt_db_writer **out, struct gt_error *err);
void sq_writer_free(struct gt_db_writer *w);
int sq_site_id(struct gt_db_writer *w, const char *name, size_t len, int64_t *id,
               struct gt_error *err);
int sq_pair_id(struct gt_db_writer *w, int64_t src, int64_t dst, int64_t *id,
               struct gt_error *err);
int sq_put_samples(struct gt_db_writer *w, struct gt_sample_put *v, size_t n, bool replace,
                   struct gt_error *err);
int sq_source_get(struct gt_db *db, const char *key, int64_t *id, int64_t *cursor,
                  bool *has_cursor, struct gt_error *err);
int sq_source_advance(struct gt_db *db, const char *key, const char *format, bool has_ts,
                      int64_t max_ts, int64_t now, int64_t ahead, int64_t *id,
                      struct gt_error *err);
int sq_log_run(struct gt_db *db, const struct gt_log_row *row, struct gt_error *err);
int sq_sources(struct gt_db *db, gt_source_fn each, void *ctx, struct gt_error *err);

/* read.c */
int sq_sites(struct gt_db *db, struct gt_site_row **rows, size_t *n, struct gt_error *err);
int sq_site_set_attrs(struct gt_db *db, const char *name, const char *cluster,
                      const char *domain, const double *lat, const double *lon,
                      struct gt_error *err);
int sq_pair_count(struct gt_db *db, long *n, struct gt_error *err);
int sq_pair_ids(struct gt_db *db, const char *src_name,
                int (*pair)(void *ctx, int64_t src, const char *src_name, int64_t dst,
                            const char *dst_name),
                void *ctx, struct gt_error *err);
int sq_newest_by_src(struct gt_db *db, struct gt_newest_row **rows, size_t *n,
                     struct gt_error *err);
int sq_root_newest(struct gt_db *db, const char *name, int64_t *id, int64_t *partners,
                   int64_t *newest, struct gt_error *err);
int sq_export(struct gt_db *db, const struct gt_export_filter *f,
              int (*row)(void *ctx, int64_t ts, const char *src, const char *dst,
                         int64_t seq, double rtt_ms),
              void *ctx, struct gt_error *err);
int sq_pair_range(struct gt_db *db, int64_t pair, int64_t from, int64_t to,
                  int (*row)(void *ctx, int64_t ts, double rtt_ms), void *ctx,
                  struct gt_error *err);
int sq_prune(struct gt_db *db, int64_t cutoff, bool dry_run, long long *removed,
             struct gt_error *err);
int sq_series(struct gt_db *db, const char *src, const char *dst, int64_t at, size_t limit,
              int64_t **ts, double **rtt, size_t *n, struct gt_prior *prior,
              struct gt_error *err);
int sq_reader_new(struct gt_db *db, struct gt_series_reader **out, struct gt_error *err);
void sq_reader_free(struct gt_series_reader *r);
int sq_reader_site(struct gt_series_reader *r, const char *name, int64_t *id,
                   struct gt_error *err);
int sq_reader_read(struct gt_series_reader *r, int64_t src, int64_t dst, int64_t at,
                   size_t limit, int64_t *ts, double *rtt, size_t cap, size_t *n,
                   int64_t *newest, struct gt_prior *prior, struct gt_error *err);

/* blobs.c */
int sq_blob_get(struct gt_db *db, long window, const char *key, int64_t src, gt_blob_fn take,
                void *ctx, struct gt_error *err);
int sq_blob_put(struct gt_db *db, long window, const char *key, int64_t src, const void *blob,
                size_t bytes, struct gt_error *err);
int sq_blob_delete(struct gt_db *db, long window, const char *key, int64_t src,
                   struct gt_error *err);
int sq_blob_scan(struct gt_db *db, int64_t src, gt_blob_fn each, void *ctx,
                 struct gt_error *err);
int sq_event_marks(struct gt_db *db, const char *src, const char *dst,
                   int (*each)(void *ctx, const struct gt_event_mark *m), void *ctx,
                   struct gt_error *err);
int sq_events_replace(struct gt_db *db, int64_t pair, int64_t since,
                      const struct gt_event_row *rows, size_t n, int64_t redo_from,
                      struct gt_error *err);
int sq_event_fit(struct gt_db *db, int64_t pair, const struct gt_event_row *row, int regime,
                 int64_t fitted_at, struct gt_error *err);
int sq_event_rewind(struct gt_db *db, int64_t src, int64_t dst, int64_t ts,
                    struct gt_error *err);
int sq_events_read(struct gt_db *db, const char *src, const char *dst, int64_t from,
                   int64_t to, int kind,
                   int (*each)(void *ctx, int64_t pair, const char *src, const char *dst,
                               const struct gt_event_row *row),
                   void *ctx, struct gt_error *err);
int sq_blob_delete_src(struct gt_db *db, int64_t src, struct gt_error *err);

#endif
