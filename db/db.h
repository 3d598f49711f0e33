/*
 * db.h - the SQLite store: opening, pragmas, schema migrations and
 * transactions.  Every other db/ module works through a struct gt_db.
 *
 * Schema (see db/schema.c): sites, pairs (directed src -> dst), samples
 * keyed by (pair, ts, seq) with rtt_ms NULL for a lost probe, sources with
 * their ingest cursor, the ingest log, and the fit cache
 * (db/fitcache.h).  PRAGMA user_version holds the
 * schema version: opening migrates an older database forward and refuses
 * a newer one.
 */
#ifndef GT_DB_H
#define GT_DB_H

#include "base/error.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many statements one connection keeps prepared (gt_db_borrow). */
#define GT_DB_KEPT_MAX 16

struct gt_db {
    sqlite3 *h;
    char *path;
    long busy_ms;       /* how long a write waits for another writer */
    bool readonly;      /* opened read-only (GT_DB_READ on a store we cannot write) */
    bool fresh;         /* created by this open: a new, empty file */
    /* Statements kept prepared between uses (gt_db_borrow): a server
     * thread's connection answers request after request with the same few
     * statements, and preparing them anew was a fifth of an answer. */
    struct gt_db_kept {
        char *sql;
        sqlite3_stmt *st;
        bool lent;
    } kept[GT_DB_KEPT_MAX];
    size_t nkept;
};

enum gt_db_mode {
    GT_DB_EXISTING,  /* fail with GT_ENOTFOUND if the file does not exist */
    GT_DB_CREATE,    /* create it if needed */
    /* An existing store for a command that only reads: read-write when
     * this process may write the file and its folder (fit-cache saves),
     * else read-only (immutable if even the WAL index cannot be made), and
     * then its schema must already be current. */
    GT_DB_READ
};

/* The schema version this binary writes. */
int gt_db_latest_version(void);

/* Open (and migrate) the database at path.  Caller closes with
 * gt_db_close. */
int gt_db_open(const char *path, enum gt_db_mode mode, long busy_timeout_ms,
               struct gt_db **out, struct gt_error *err);
void gt_db_close(struct gt_db *db);

/* Give the space of deleted rows back to the file system: an incremental
 * vacuum on stores made since schema 4, a full VACUUM (which also makes the
 * store incremental) when full is true on older ones.  *before and *after
 * are the database's size in bytes. */
int gt_db_reclaim(struct gt_db *db, bool full, long long *before, long long *after,
                  struct gt_error *err);

/* Current PRAGMA user_version. */
int gt_db_version(struct gt_db *db, int *version, struct gt_error *err);

/* Apply migrations up to version (tests use it to build old databases). */
int gt_db_migrate_to(struct gt_db *db, int version, struct gt_error *err);

int gt_db_exec(struct gt_db *db, const char *sql, struct gt_error *err);
int gt_db_begin(struct gt_db *db, struct gt_error *err);   /* IMMEDIATE */
int gt_db_commit(struct gt_db *db, struct gt_error *err);

/* BEGIN IMMEDIATE without waiting: GT_EDB at once when another
 * connection holds the write lock (or the file is read-only).  For
 * optional writes, such as the fit cache, that must not hold a query up. */
int gt_db_try_begin(struct gt_db *db);

/* PRAGMA data_version: changes whenever another connection commits. */
int gt_db_data_version(struct gt_db *db, int64_t *version, struct gt_error *err);
void gt_db_rollback(struct gt_db *db);

/* Prepare a statement; on failure records the SQLite message. */
int gt_db_prepare(struct gt_db *db, const char *sql, sqlite3_stmt **st,
                  struct gt_error *err);

/* A prepared statement for sql that the connection keeps between uses:
 * the caller binds and steps it, then gives it back with gt_db_giveback,
 * which resets it (so it holds no read snapshot) and clears its bindings.
 * A statement already lent out, or one past GT_DB_KEPT_MAX, is prepared
 * afresh and finalized when given back.  For statements run again and
 * again on one connection; one-off SQL uses gt_db_prepare. */
int gt_db_borrow(struct gt_db *db, const char *sql, sqlite3_stmt **st,
                 struct gt_error *err);
void gt_db_giveback(struct gt_db *db, sqlite3_stmt *st);

/* BEGIN (deferred) with a kept statement: a read snapshot that starts at
 * the first read; gt_db_rollback ends it. */
int gt_db_begin_read(struct gt_db *db, struct gt_error *err);

/* Record the connection's last SQLite error as GT_EDB. */
int gt_db_fail(struct gt_db *db, struct gt_error *err, const char *what);

/* Page cache size for bulk work, in MiB. */
int gt_db_set_cache_mb(struct gt_db *db, long mb, struct gt_error *err);

#endif
