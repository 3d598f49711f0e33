/*
 * conn.c - the SQLite backend's connection: opening a store file, keeping
 * its schema current, transactions, and the backend's table of functions.
 *
 * WAL mode so readers (the advisor, the server) never block the cron
 * ingest; synchronous=NORMAL, which in WAL mode can lose the last commit
 * on power loss but never corrupts, and survives a killed process fully.
 */
#define _POSIX_C_SOURCE 200809L
#include "sqlite.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Waiting for another writer's lock: SQLite's busy timeout (its back-off
 * of 1 ms to 100 ms sleeps), ended also at the connection's deadline
 * (gt_db_set_deadline), so that the waits of several statements add up to
 * no more than their caller's bound. */
static int on_busy(void *arg, int count)
{
    static const int delays_ms[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
    struct gt_db *db = arg;
    struct sq_db *s = sq(db);
    int64_t now = gt_monotonic_ns();
    if (count == 0)
        s->wait_start_ns = now;
    int64_t end = s->wait_start_ns + (int64_t)s->wait_ms * 1000000;
    if (db->deadline_ns && db->deadline_ns < end)
        end = db->deadline_ns;
    if (now >= end)
        return 0;
    int64_t ms = count < 12 ? delays_ms[count] : 100;
    int64_t left_ms = (end - now + 999999) / 1000000;
    sqlite3_sleep((int)(ms < left_ms ? ms : left_ms));
    return 1;
}

void sq_set_wait(struct gt_db *db, long wait_ms)
{
    sq(db)->wait_ms = wait_ms;
    sqlite3_busy_handler(sq(db)->h, on_busy, db);
}

/* A busy store names the real cause: another writer held the lock for
 * longer than this connection waits. */
static bool busy(struct gt_db *db)
{
    return (sqlite3_extended_errcode(sq(db)->h) & 0xff) == SQLITE_BUSY;
}

static int fail_busy(struct gt_db *db, struct gt_error *err, const char *what)
{
    return gt_error_set(err, GT_EDB, db->addr,
                        "%s%sthe database is locked by another writer (waited %ld ms, "
                        "[database] busy_timeout_ms)", what ? what : "", what ? ": " : "",
                        db->busy_ms);
}

int sq_fail(struct gt_db *db, struct gt_error *err, const char *what)
{
    if (busy(db))
        return fail_busy(db, err, what);
    return gt_error_set(err, GT_EDB, db->addr, "%s: %s", what, sqlite3_errmsg(sq(db)->h));
}

int sq_exec(struct gt_db *db, const char *sql, struct gt_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(sq(db)->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        if (busy(db)) {
            sqlite3_free(msg);
            return fail_busy(db, err, NULL);
        }
        int rc = gt_error_set(err, GT_EDB, db->addr, "%s",
                              msg ? msg : sqlite3_errmsg(sq(db)->h));
        sqlite3_free(msg);
        return rc;
    }
    return GT_OK;
}

int sq_prepare(struct gt_db *db, const char *sql, sqlite3_stmt **st,
                  struct gt_error *err)
{
    if (sqlite3_prepare_v2(sq(db)->h, sql, -1, st, NULL) != SQLITE_OK)
        return sq_fail(db, err, "prepare");
    return GT_OK;
}

int sq_borrow(struct gt_db *db, const char *sql, sqlite3_stmt **st,
                 struct gt_error *err)
{
    struct gt_db_kept *free_slot = NULL;
    for (size_t i = 0; i < sq(db)->nkept; i++) {
        struct gt_db_kept *k = &sq(db)->kept[i];
        if (!k->lent && !strcmp(k->sql, sql)) {
            k->lent = true;
            *st = k->st;
            return GT_OK;
        }
    }
    if (sq(db)->nkept < GT_DB_KEPT_MAX)
        free_slot = &sq(db)->kept[sq(db)->nkept];
    int rc = sq_prepare(db, sql, st, err);
    if (rc || !free_slot || !(free_slot->sql = strdup(sql)))
        return rc;   /* not kept: finalized when given back */
    free_slot->st = *st;
    free_slot->lent = true;
    sq(db)->nkept++;
    return GT_OK;
}

void sq_giveback(struct gt_db *db, sqlite3_stmt *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < sq(db)->nkept; i++)
        if (sq(db)->kept[i].st == st) {
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
            sq(db)->kept[i].lent = false;
            return;
        }
    sqlite3_finalize(st);
}

/* Steps a kept statement that returns no rows (BEGIN, ROLLBACK). */
static int run_kept(struct gt_db *db, const char *sql, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_borrow(db, sql, &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, sql);
    sq_giveback(db, st);
    return rc;
}

int sq_begin_read(struct gt_db *db, struct gt_error *err)
{
    return run_kept(db, "BEGIN", err);
}

int sq_begin_write(struct gt_db *db, struct gt_error *err)
{
    return sq_exec(db, "BEGIN IMMEDIATE", err);
}

int sq_try_begin_write(struct gt_db *db, long wait_ms)
{
    sq_set_wait(db, wait_ms);
    int rc = sq_exec(db, "BEGIN IMMEDIATE", NULL);
    sq_set_wait(db, db->busy_ms);
    return rc;
}

int sq_data_version(struct gt_db *db, int64_t *version, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_borrow(db, "PRAGMA data_version", &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *version = sqlite3_column_int64(st, 0);
    else
        rc = sq_fail(db, err, "reading the data version");
    sq_giveback(db, st);
    return rc;
}

int sq_commit(struct gt_db *db, struct gt_error *err)
{
    return sq_exec(db, "COMMIT", err);
}

void sq_rollback(struct gt_db *db)
{
    if (!sqlite3_get_autocommit(sq(db)->h))
        run_kept(db, "ROLLBACK", NULL);
}

int sq_version(struct gt_db *db, int *version, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "PRAGMA user_version", &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *version = sqlite3_column_int(st, 0);
    } else {
        rc = sq_fail(db, err, "reading the schema version");
    }
    sqlite3_finalize(st);
    return rc;
}

int sq_migrate_to(struct gt_db *db, int target, struct gt_error *err)
{
    int version, rc = sq_version(db, &version, err);
    if (rc)
        return rc;
    if (version > sq_schema_count())
        return gt_error_set(err, GT_ESCHEMA, db->addr,
                            "database schema version %d is newer than this gridtail "
                            "supports (%d): upgrade gridtail", version,
                            sq_schema_count());
    if (version >= target)
        return GT_OK;
    if ((rc = sq_begin_write(db, err)) != GT_OK)
        return rc;
    /* Re-read inside the write lock: another process may have migrated. */
    if ((rc = sq_version(db, &version, err)) != GT_OK)
        goto fail;
    for (; version < target; version++) {
        char pragma[64];
        if ((rc = sq_exec(db, sq_schema_step(version), err)) != GT_OK)
            goto fail;
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", version + 1);
        if ((rc = sq_exec(db, pragma, err)) != GT_OK)
            goto fail;
    }
    return sq_commit(db, err);
fail:
    sq_rollback(db);
    return rc;
}

static int apply_pragmas(struct gt_db *db, long busy_timeout_ms, struct gt_error *err)
{
    db->busy_ms = busy_timeout_ms;
    sq_set_wait(db, busy_timeout_ms);
    /* A new store frees pages on prune (sq_reclaim).  The mode takes
     * only on a file that is still empty, before WAL mode writes its
     * header; an existing store is left alone (the pragma would want its
     * lock). */
    if (sq(db)->fresh) {
        int rc0 = sq_exec(db, "PRAGMA auto_vacuum = INCREMENTAL", err);
        if (rc0)
            return rc0;
    }
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "PRAGMA journal_mode = WAL", &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) != SQLITE_ROW)
        rc = sq_fail(db, err, "enabling WAL");
    else if (strcmp((const char *)sqlite3_column_text(st, 0), "wal") != 0)
        rc = gt_error_set(err, GT_EDB, db->addr, "cannot enable WAL journal mode");
    sqlite3_finalize(st);
    if (rc)
        return rc;
    /* Memory-mapped reads: the advisor reads whole fit-cache blobs, and
       copying them page by page through read() cost more than the rest of
       a lookup (addresses only: pages come in as they are touched). */
    return sq_exec(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"
                          " PRAGMA mmap_size = 1073741824;", err);
}

/* May this process write the store and create its -wal/-shm files? */
static bool writable(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir] = '\0';   /* "/x.db" -> "/" */
    return access(path, W_OK) == 0 && access(slash ? dir : ".", W_OK) == 0;
}

/* Read-only: the schema must be current, since it cannot be migrated. */
static int open_readonly(struct gt_db *db, struct gt_error *err)
{
    int version = -1;
    if (sqlite3_open_v2(db->addr, &sq(db)->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK ||
        sq_version(db, &version, NULL) != GT_OK) {
        /* a WAL store in a folder we cannot write: no -shm can be made;
         * immutable reads the main file as it is (the store is not being
         * written, or we could not be here) */
        sqlite3_close(sq(db)->h);
        sq(db)->h = NULL;
        char uri[4200];
        snprintf(uri, sizeof uri, "file:%s?immutable=1", db->addr);
        if (sqlite3_open_v2(uri, &sq(db)->h,
                            SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                            NULL) != SQLITE_OK ||
            sq_version(db, &version, err) != GT_OK)
            return err && err->code ? err->code
                                    : gt_error_set(err, GT_EIO, db->addr, "cannot open read-only");
    }
    db->readonly = true;
    sq_set_wait(db, db->busy_ms);
    if (version != sq_schema_count())
        return gt_error_set(err, version > sq_schema_count() ? GT_ESCHEMA : GT_EIO, db->addr,
                            "read-only store at schema version %d, this binary reads %d "
                            "(upgrading needs write access: gridtail init)", version,
                            sq_schema_count());
    return GT_OK;
}

int sq_open(const char *path, enum gt_db_mode mode, long busy_timeout_ms,
               struct gt_db **out, struct gt_error *err)
{
    *out = NULL;
    struct stat sb;
    if (mode != GT_DB_CREATE && stat(path, &sb) != 0)
        return gt_error_set(err, GT_EIO, path,
                            "no database here (create it with 'gridtail init')");
    struct sq_db *s = calloc(1, sizeof *s);
    struct gt_db *db = &s->base;
    if (!s || !(db->addr = strdup(path))) {
        free(s);
        return gt_error_set(err, GT_ENOMEM, path, "out of memory");
    }
    db->be = &gt_db_sqlite;
    db->busy_ms = busy_timeout_ms;
    int rc = GT_OK;
    if (mode == GT_DB_READ && !writable(path)) {
        if ((rc = open_readonly(db, err)) != GT_OK)
            goto fail;
        *out = db;
        return GT_OK;
    }
    sq(db)->fresh = mode == GT_DB_CREATE && (stat(path, &sb) != 0 || sb.st_size == 0);
    db->created = mode == GT_DB_CREATE && stat(path, &sb) != 0;
    /* NOMUTEX: a connection is only ever used by one thread at a time
       (parallel.h: each member of a team brings its own; the server: one
       per worker thread or per request), so SQLite's lock around each
       call (four a sample row read) is not taken */
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
                (mode == GT_DB_CREATE ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &sq(db)->h, flags, NULL) != SQLITE_OK) {
        rc = gt_error_set(err, GT_EIO, path, "cannot open database: %s",
                          sq(db)->h ? sqlite3_errmsg(sq(db)->h) : "out of memory");
        goto fail;
    }
    sqlite3_extended_result_codes(sq(db)->h, 1);
    if ((rc = apply_pragmas(db, busy_timeout_ms, err)) != GT_OK ||
        (rc = sq_migrate_to(db, sq_schema_count(), err)) != GT_OK)
        goto fail;
    *out = db;
    return GT_OK;
fail:
    sq_close(db);
    return rc;
}

static int pragma_int(struct gt_db *db, const char *sql, long long *v, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *v = sqlite3_column_int64(st, 0);
    else
        rc = sq_fail(db, err, sql);
    sqlite3_finalize(st);
    return rc;
}

int sq_reclaim(struct gt_db *db, bool full, long long *before, long long *after,
                  struct gt_error *err)
{
    long long pages0, pages1, size, mode;
    int rc;
    if ((rc = pragma_int(db, "PRAGMA page_size", &size, err)) ||
        (rc = pragma_int(db, "PRAGMA page_count", &pages0, err)) ||
        (rc = pragma_int(db, "PRAGMA auto_vacuum", &mode, err)))
        return rc;
    if (mode == 2)   /* incremental: hand the free pages back */
        rc = sq_exec(db, "PRAGMA incremental_vacuum", err);
    else if (full)   /* older stores: rewrite once, incremental from then on */
        rc = sq_exec(db, "PRAGMA auto_vacuum = INCREMENTAL; VACUUM", err);
    /* the WAL holds the moved pages until a checkpoint; then the file shrinks */
    if (rc == GT_OK)
        rc = sq_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", err);
    if (rc == GT_OK)
        rc = pragma_int(db, "PRAGMA page_count", &pages1, err);
    if (rc == GT_OK) {
        *before = pages0 * size;
        *after = pages1 * size;
    }
    return rc;
}

void sq_close(struct gt_db *db)
{
    if (!db)
        return;
    for (size_t i = 0; i < sq(db)->nkept; i++) {
        sqlite3_finalize(sq(db)->kept[i].st);
        free(sq(db)->kept[i].sql);
    }
    sqlite3_close(sq(db)->h);
    free(db->addr);
    free(sq(db));
}

int sq_set_cache_mb(struct gt_db *db, long mb, struct gt_error *err)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA cache_size = -%ld", mb * 1024);
    return sq_exec(db, sql, err);
}

int sq_scalar(struct gt_db *db, const char *sql, long long *v, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    int r = sqlite3_step(st);
    *v = r == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    if (r != SQLITE_ROW && r != SQLITE_DONE)
        rc = sq_fail(db, err, "running SQL");
    sqlite3_finalize(st);
    return rc;
}

/* One file on one host: its write lock already keeps writers one at a
 * time, and a refit that met another's writes retries (its stale check). */
static int sq_lock(struct gt_db *db, const char *name, bool wait, bool *got,
                   struct gt_error *err)
{
    (void)db, (void)name, (void)wait, (void)err;
    *got = true;
    return GT_OK;
}

static void sq_unlock(struct gt_db *db, const char *name)
{
    (void)db, (void)name;
}

bool sq_in_transaction(struct gt_db *db)
{
    return !sqlite3_get_autocommit(sq(db)->h);
}

char *sq_dup_col(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? strdup((const char *)t) : NULL;
}

/* Every address that is not a URL is a store file. */
static bool claims(const char *addr)
{
    return !strstr(addr, "://");
}

static const char *library_version(void)
{
    return sqlite3_libversion();
}

const struct gt_db_backend gt_db_sqlite = {
    .name = "sqlite",
    .claims = claims,
    .library_version = library_version,
    .latest_version = sq_schema_count,
    .open = sq_open,
    .close = sq_close,
    .version = sq_version,
    .migrate_to = sq_migrate_to,
    .exec = sq_exec,
    .scalar = sq_scalar,
    .begin_read = sq_begin_read,
    .begin_write = sq_begin_write,
    .try_begin_write = sq_try_begin_write,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .in_transaction = sq_in_transaction,
    .data_version = sq_data_version,
    .set_cache_mb = sq_set_cache_mb,
    .lock = sq_lock,
    .unlock = sq_unlock,
    .reclaim = sq_reclaim,
    .writer_open = sq_writer_open,
    .writer_free = sq_writer_free,
    .site_id = sq_site_id,
    .pair_id = sq_pair_id,
    .batch_max = 1,   /* in-process: each sample at once, as it is read */
    .put_samples = sq_put_samples,
    .source_get = sq_source_get,
    .source_advance = sq_source_advance,
    .log_run = sq_log_run,
    .sources = sq_sources,
    .sites = sq_sites,
    .site_set_attrs = sq_site_set_attrs,
    .pair_count = sq_pair_count,
    .pair_ids = sq_pair_ids,
    .newest_by_src = sq_newest_by_src,
    .root_newest = sq_root_newest,
    .export = sq_export,
    .prune = sq_prune,
    .series = sq_series,
    .reader_new = sq_reader_new,
    .reader_free = sq_reader_free,
    .reader_site = sq_reader_site,
    .reader_read = sq_reader_read,
    .blob_get = sq_blob_get,
    .blob_put = sq_blob_put,
    .blob_delete = sq_blob_delete,
    .blob_scan = sq_blob_scan,
    .blob_delete_src = sq_blob_delete_src,
    .event_marks = sq_event_marks,
    .events_replace = sq_events_replace,
    .event_fit = sq_event_fit,
    .events_read = sq_events_read,
    .pair_range = sq_pair_range,
    .event_rewind = sq_event_rewind,
};
