/*
 * pg.h - the PostgreSQL backend of the store interface (db/backend.h),
 * on libpq: chosen by a postgresql:// address, for a grid that outgrows
 * one file on one host (several API servers and collectors on one store,
 * months of history, read replicas).  Only db/postgres/ includes
 * libpq-fe.h; libpq itself is loaded when a store is first opened
 * (pq_lazy.h), so that other commands never map it.
 *
 * Schema (db/postgres/schema.c): as SQLite's, with samples partitioned by
 * time (weekly ranges of ts, made as ingest needs them) so that retention
 * drops whole partitions; gt_meta holds the schema version and a data
 * version that every write transaction moves.
 *
 * Statements are prepared once per connection (pg_run), by an id into
 * one table of SQL (stmts.c); after a lost connection the next statement
 * outside a transaction reconnects and prepares again.
 */
#ifndef GT_PG_H
#define GT_PG_H

#include "db/backend.h"
#include "db/postgres/pq_lazy.h"   /* libpq-fe.h, its calls through a table */

/* Seconds of ts one partition of samples holds: a week. */
#define PG_PART_SECONDS 604800
/* How far back the window read looks first: the weeks before are not
 * even opened (a statement sets up every partition it may touch); a
 * window that reaches further is read again without the bound. */
#define PG_RECENT_SECONDS (2 * PG_PART_SECONDS)
/* Weeks after this one whose partitions prune makes ahead. */
#define PG_PARTS_AHEAD 4

/* The prepared statements, by id (stmts.c holds their SQL). */
enum pg_stmt {
    PG_SITE_SEL, PG_SITE_INS, PG_PAIR_SEL, PG_PAIR_INS,
    PG_STAGE_PROBE, PG_STAGE_INSERT, PG_STAGE_STORED, PG_STAGE_REPLACE,
    PG_SOURCE_GET, PG_SOURCE_ADVANCE, PG_LOG_RUN,
    PG_SITES, PG_SITE_ATTRS, PG_PAIR_COUNT, PG_PAIR_IDS, PG_PAIR_IDS_OF, PG_NEWEST_BY_SRC,
    PG_ROOT_NEWEST,
    PG_EXPORT, PG_PAIR_BY_NAMES, PG_SERIES, PG_SERIES_RECENT, PG_PRIOR, PG_NEWEST, PG_SITE_ID,
    PG_BLOB_GET, PG_BLOB_PUT, PG_BLOB_DELETE, PG_BLOB_SCAN, PG_BLOB_DELETE_SRC,
    PG_DATA_VERSION, PG_BUMP_VERSION,
    PG_EVENT_MARKS, PG_EVENTS_DELETE, PG_EVENT_PUT, PG_EVENT_ADD, PG_MARK_REDO,
    PG_MARK_FIT, PG_EVENTS_READ, PG_MARK_REWIND, PG_PAIR_RANGE,
    PG_NSTMT
};

struct pg_db {
    struct gt_db base;
    PGconn *conn;
    PGconn *side;             /* partition DDL, outside the long transactions */
    bool writing;             /* a write transaction: commit moves the data version */
    long long size_before_prune;   /* the database's bytes before prune dropped */
    bool stage_made;          /* the temporary table gt_stage exists (write.c) */
    bool prepared[PG_NSTMT];  /* on this connection */
    int64_t *parts;           /* partitions known to exist (week numbers), sorted */
    size_t nparts, parts_cap;
};

static inline struct pg_db *pg(struct gt_db *db)
{
    return (struct pg_db *)db;
}

/* stmts.c */
const char *pg_stmt_sql(enum pg_stmt id);
int pg_stmt_nparams(enum pg_stmt id);

/* conn.c: running SQL */
/* Run prepared statement id with text parameters (NULL = SQL NULL;
 * lengths/formats NULL for all-text); *res is the result, caller
 * PQclear()s it.  result_binary asks for binary columns. */
int pg_run(struct gt_db *db, enum pg_stmt id, const char *const *values, const int *lengths,
           const int *formats, bool result_binary, PGresult **res, struct gt_error *err);
/* Statement id prepared on the connection (reconnected first when it was
 * lost and no transaction is open); name receives its name. */
int pg_prepared(struct gt_db *db, enum pg_stmt id, char name[16], struct gt_error *err);
/* SQL text without parameters that returns no rows, or one result. */
int pg_exec(struct gt_db *db, const char *sql, struct gt_error *err);
int pg_query(struct gt_db *db, const char *sql, PGresult **res, struct gt_error *err);
/* The error of a failed result (or of the connection) as GT_EDB. */
int pg_fail(struct gt_db *db, struct gt_error *err, const char *what, const PGresult *res);
/* pg_database_size of the store's database. */
int pg_db_size(struct gt_db *db, long long *bytes, struct gt_error *err);
/* Number formatting for text parameters. */
void pg_i64(char *buf, size_t size, int64_t v);
const char *pg_f64(char *buf, size_t size, double v);   /* NULL for NAN */
int64_t pg_col_i64(const PGresult *res, int row, int col);
double pg_col_f64(const PGresult *res, int row, int col);   /* NAN for NULL */
/* The same of a binary result (result_binary): int8 and float8 columns
 * as the server sends them, network byte order; no text to parse. */
int64_t pg_bin_i64(const PGresult *res, int row, int col);
double pg_bin_f64(const PGresult *res, int row, int col);   /* NAN for NULL */
char *pg_col_dup(const PGresult *res, int row, int col);     /* NULL for NULL */

/* schema.c */
int pg_schema_count(void);
const char *pg_schema_step(int from_version);
/* Make the weekly partitions of samples that [lo, hi] needs (on the side
 * connection: short transactions that take no lock a reader or writer
 * holds). */
int pg_partitions_ensure(struct gt_db *db, const int64_t *weeks, size_t n,
                         struct gt_error *err);
int64_t pg_week_of(int64_t ts);

/* The backend's functions, by file: conn.c */
bool pg_usable(struct gt_db *db);
int pg_open(const char *addr, enum gt_db_mode mode, long busy_ms, struct gt_db **out,
            struct gt_error *err);
void pg_close(struct gt_db *db);
int pg_version(struct gt_db *db, int *version, struct gt_error *err);
int pg_migrate_to(struct gt_db *db, int target, struct gt_error *err);
int pg_exec_text(struct gt_db *db, const char *sql, struct gt_error *err);
int pg_scalar(struct gt_db *db, const char *sql, long long *v, struct gt_error *err);
int pg_begin_read(struct gt_db *db, struct gt_error *err);
int pg_begin_write(struct gt_db *db, struct gt_error *err);
int pg_try_begin_write(struct gt_db *db, long wait_ms);
int pg_commit(struct gt_db *db, struct gt_error *err);
void pg_rollback(struct gt_db *db);
bool pg_in_transaction(struct gt_db *db);
int pg_data_version(struct gt_db *db, int64_t *version, struct gt_error *err);
int pg_set_cache_mb(struct gt_db *db, long mb, struct gt_error *err);
int pg_reclaim(struct gt_db *db, bool full, long long *before, long long *after,
               struct gt_error *err);

/* write.c */
int pg_writer_open(struct gt_db *db, struct gt_db_writer **out, struct gt_error *err);
void pg_writer_free(struct gt_db_writer *w);
int pg_site_id(struct gt_db_writer *w, const char *name, size_t len, int64_t *id,
               struct gt_error *err);
int pg_pair_id(struct gt_db_writer *w, int64_t src, int64_t dst, int64_t *id,
               struct gt_error *err);
int pg_put_samples(struct gt_db_writer *w, struct gt_sample_put *v, size_t n, bool replace,
                   struct gt_error *err);
int pg_source_get(struct gt_db *db, const char *key, int64_t *id, int64_t *cursor,
                  bool *has_cursor, struct gt_error *err);
int pg_source_advance(struct gt_db *db, const char *key, const char *format, bool has_ts,
                      int64_t max_ts, int64_t now, int64_t ahead, int64_t *id,
                      struct gt_error *err);
int pg_log_run(struct gt_db *db, const struct gt_log_row *row, struct gt_error *err);
int pg_sources(struct gt_db *db, gt_source_fn each, void *ctx, struct gt_error *err);

/* read.c */
int pg_sites(struct gt_db *db, struct gt_site_row **rows, size_t *n, struct gt_error *err);
int pg_site_set_attrs(struct gt_db *db, const char *name, const char *cluster,
                      const char *domain, const double *lat, const double *lon,
                      struct gt_error *err);
int pg_pair_count(struct gt_db *db, long *n, struct gt_error *err);
int pg_pair_ids(struct gt_db *db, const char *src_name,
                int (*pair)(void *ctx, int64_t src, const char *src_name, int64_t dst,
                            const char *dst_name),
                void *ctx, struct gt_error *err);
int pg_newest_by_src(struct gt_db *db, struct gt_newest_row **rows, size_t *n,
                     struct gt_error *err);
int pg_root_newest(struct gt_db *db, const char *name, int64_t *id, int64_t *partners,
                   int64_t *newest, struct gt_error *err);
int pg_export(struct gt_db *db, const struct gt_export_filter *f,
              int (*row)(void *ctx, int64_t ts, const char *src, const char *dst,
                         int64_t seq, double rtt_ms),
              void *ctx, struct gt_error *err);
int pg_pair_range(struct gt_db *db, int64_t pair, int64_t from, int64_t to,
                  int (*row)(void *ctx, int64_t ts, double rtt_ms), void *ctx,
                  struct gt_error *err);
int pg_prune(struct gt_db *db, int64_t cutoff, bool dry_run, long long *removed,
             struct gt_error *err);
int pg_series(struct gt_db *db, const char *src, const char *dst, int64_t at, size_t limit,
              int64_t **ts, double **rtt, size_t *n, struct gt_prior *prior,
              struct gt_error *err);
int pg_reader_new(struct gt_db *db, struct gt_series_reader **out, struct gt_error *err);
void pg_reader_free(struct gt_series_reader *r);
int pg_reader_site(struct gt_series_reader *r, const char *name, int64_t *id,
                   struct gt_error *err);
int pg_reader_read(struct gt_series_reader *r, int64_t src, int64_t dst, int64_t at,
                   size_t limit, int64_t *ts, double *rtt, size_t cap, size_t *n,
                   int64_t *newest, struct gt_prior *prior, struct gt_error *err);

/* blobs.c */
int pg_blob_get(struct gt_db *db, long window, const char *key, int64_t src, gt_blob_fn take,
                void *ctx, struct gt_error *err);
int pg_blob_put(struct gt_db *db, long window, const char *key, int64_t src, const void *blob,
                size_t bytes, struct gt_error *err);
int pg_blob_delete(struct gt_db *db, long window, const char *key, int64_t src,
                   struct gt_error *err);
int pg_blob_scan(struct gt_db *db, int64_t src, gt_blob_fn each, void *ctx,
                 struct gt_error *err);
int pg_event_marks(struct gt_db *db, const char *src, const char *dst,
                   int (*each)(void *ctx, const struct gt_event_mark *m), void *ctx,
                   struct gt_error *err);
int pg_events_replace(struct gt_db *db, int64_t pair, int64_t since,
                      const struct gt_event_row *rows, size_t n, int64_t redo_from,
                      struct gt_error *err);
int pg_event_fit(struct gt_db *db, int64_t pair, const struct gt_event_row *row, int regime,
                 int64_t fitted_at, struct gt_error *err);
int pg_event_rewind(struct gt_db *db, int64_t src, int64_t dst, int64_t ts,
                    struct gt_error *err);
int pg_events_read(struct gt_db *db, const char *src, const char *dst, int64_t from,
                   int64_t to, int kind,
                   int (*each)(void *ctx, int64_t pair, const char *src, const char *dst,
                               const struct gt_event_row *row),
                   void *ctx, struct gt_error *err);
int pg_blob_delete_src(struct gt_db *db, int64_t src, struct gt_error *err);

#endif
