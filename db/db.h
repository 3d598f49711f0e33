/*
 * db.h - the store: opening it, its schema version, transactions.  Every
 * other db/ module works through a struct gt_db.
 *
 * A store is named by its address: a file path is an SQLite store (the
 * default: db/sqlite/).  The backend behind a struct gt_db is a table of
 * functions (db/backend.h), so nothing above db/ knows which database
 * holds the samples.  Opening migrates an older schema forward and
 * refuses a newer one.
 */
#ifndef GT_DB_H
#define GT_DB_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_db;

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

/* The database libraries' versions, for `gridtail version`. */
const char *gt_db_library_versions(void);

/* Open (and migrate) the store at addr.  Caller closes with
 * gt_db_close. */
int gt_db_open(const char *addr, enum gt_db_mode mode, long busy_timeout_ms,
               struct gt_db **out, struct gt_error *err);
void gt_db_close(struct gt_db *db);

/* Is addr a store file (not a server's address)? */
bool gt_db_is_file(const char *addr);

/* The address it was opened with; how long a write waits for another
 * writer; whether it was opened read-only. */
const char *gt_db_address(const struct gt_db *db);
long gt_db_busy_ms(const struct gt_db *db);
/* From now on, every wait of this connection for another writer's lock
 * ends at deadline_ns (a gt_monotonic_ns reading; 0: none) as well as
 * after its busy timeout: a caller with a bound on all its waits (a push's
 * [server] push_wait_ms) keeps it however many statements wait.  SQLite;
 * PostgreSQL's writers do not lock each other out. */
void gt_db_set_deadline(struct gt_db *db, int64_t deadline_ns);
bool gt_db_readonly(const struct gt_db *db);
/* The connection can still be used: false for a database server's whose
 * last statement failed and could not reconnect (a file's: always). */
bool gt_db_usable(struct gt_db *db);
bool gt_db_created(const struct gt_db *db);   /* this open made the store */

/* Give the space of deleted rows back to the file system: an incremental
 * vacuum on stores made since schema 4, a full VACUUM (which also makes the
 * store incremental) when full is true on older ones.  *before and *after
 * are the database's size in bytes. */
int gt_db_reclaim(struct gt_db *db, bool full, long long *before, long long *after,
                  struct gt_error *err);

/* The store's schema version. */
int gt_db_version(struct gt_db *db, int *version, struct gt_error *err);

/* Apply migrations up to version (tests use it to build old databases). */
int gt_db_migrate_to(struct gt_db *db, int version, struct gt_error *err);

/* Run SQL text that returns no rows (tests, maintenance). */
int gt_db_exec(struct gt_db *db, const char *sql, struct gt_error *err);

/* The first column of the first row of SQL text as an integer (0 for
 * NULL or no row): counts and checks, for tests and verification. */
int gt_db_scalar(struct gt_db *db, const char *sql, long long *v, struct gt_error *err);

/* A write transaction that holds the store's write lock from its start. */
int gt_db_begin(struct gt_db *db, struct gt_error *err);
int gt_db_commit(struct gt_db *db, struct gt_error *err);

/* A write transaction without waiting: GT_EDB at once when another
 * connection holds the write lock (or the store is read-only).  For
 * optional writes, such as the fit cache, that must not hold a query up. */
int gt_db_try_begin(struct gt_db *db);

/* The same, waiting up to wait_ms (at most the busy timeout) for another
 * writer's transaction to end: for optional writes that many answers in
 * flight make at once, of which one should land. */
int gt_db_try_begin_within(struct gt_db *db, long wait_ms);

/* Changes whenever another connection commits. */
int gt_db_data_version(struct gt_db *db, int64_t *version, struct gt_error *err);

/* End the open transaction, if any, without its changes. */
void gt_db_rollback(struct gt_db *db);

/* Is a transaction open on this connection? */
bool gt_db_in_transaction(struct gt_db *db);

/* A read snapshot that starts at the first read; gt_db_rollback ends it. */
int gt_db_begin_read(struct gt_db *db, struct gt_error *err);

/* A lock named name over every process and host of the store (refit: one
 * at a time), held until gt_db_unlock or close.  *waited says whether
 * another holder made it wait; on_wait, when not NULL, is called once
 * before waiting. */
int gt_db_lock(struct gt_db *db, const char *name, void (*on_wait)(const char *name),
               struct gt_error *err);
void gt_db_unlock(struct gt_db *db, const char *name);

/* Cache size for bulk work, in MiB. */
int gt_db_set_cache_mb(struct gt_db *db, long mb, struct gt_error *err);

#endif
