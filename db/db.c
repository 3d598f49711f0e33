/*
 * db.c - opening the store and keeping its schema current.
 *
 * WAL mode so readers (the advisor, the server) never block the cron
 * ingest; synchronous=NORMAL, which in WAL mode can lose the last commit
 * on power loss but never corrupts, and survives a killed process fully.
 */
#define _POSIX_C_SOURCE 200809L
#include "db.h"
#include "schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gt_db_latest_version(void)
{
    return gt_schema_count();
}

/* A busy store names the real cause: another writer held the lock for
 * longer than this connection waits. */
static bool busy(struct gt_db *db)
{
    return (sqlite3_extended_errcode(db->h) & 0xff) == SQLITE_BUSY;
}

static int fail_busy(struct gt_db *db, struct gt_error *err, const char *what)
{
    return gt_error_set(err, GT_EDB, db->path,
                        "%s%sthe database is locked by another writer (waited %ld ms, "
                        "[database] busy_timeout_ms)", what ? what : "", what ? ": " : "",
                        db->busy_ms);
}

int gt_db_fail(struct gt_db *db, struct gt_error *err, const char *what)
{
    if (busy(db))
        return fail_busy(db, err, what);
    return gt_error_set(err, GT_EDB, db->path, "%s: %s", what, sqlite3_errmsg(db->h));
}

int gt_db_exec(struct gt_db *db, const char *sql, struct gt_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        if (busy(db)) {
            sqlite3_free(msg);
            return fail_busy(db, err, NULL);
        }
        int rc = gt_error_set(err, GT_EDB, db->path, "%s",
                              msg ? msg : sqlite3_errmsg(db->h));
        sqlite3_free(msg);
        return rc;
    }
    return GT_OK;
}

int gt_db_prepare(struct gt_db *db, const char *sql, sqlite3_stmt **st,
                  struct gt_error *err)
{
    if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK)
        return gt_db_fail(db, err, "prepare");
    return GT_OK;
}

int gt_db_borrow(struct gt_db *db, const char *sql, sqlite3_stmt **st,
                 struct gt_error *err)
{
    struct gt_db_kept *free_slot = NULL;
    for (size_t i = 0; i < db->nkept; i++) {
        struct gt_db_kept *k = &db->kept[i];
        if (!k->lent && !strcmp(k->sql, sql)) {
            k->lent = true;
            *st = k->st;
            return GT_OK;
        }
    }
    if (db->nkept < GT_DB_KEPT_MAX)
        free_slot = &db->kept[db->nkept];
    int rc = gt_db_prepare(db, sql, st, err);
    if (rc || !free_slot || !(free_slot->sql = strdup(sql)))
        return rc;   /* not kept: finalized when given back */
    free_slot->st = *st;
    free_slot->lent = true;
    db->nkept++;
    return GT_OK;
}

void gt_db_giveback(struct gt_db *db, sqlite3_stmt *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < db->nkept; i++)
        if (db->kept[i].st == st) {
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
            db->kept[i].lent = false;
            return;
        }
    sqlite3_finalize(st);
}

/* Steps a kept statement that returns no rows (BEGIN, ROLLBACK). */
static int run_kept(struct gt_db *db, const char *sql, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = gt_db_borrow(db, sql, &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = gt_db_fail(db, err, sql);
    gt_db_giveback(db, st);
    return rc;
}

int gt_db_begin_read(struct gt_db *db, struct gt_error *err)
{
    return run_kept(db, "BEGIN", err);
}

int gt_db_begin(struct gt_db *db, struct gt_error *err)
{
    return gt_db_exec(db, "BEGIN IMMEDIATE", err);
}

int gt_db_try_begin(struct gt_db *db)
{
    sqlite3_busy_timeout(db->h, 0);
    int rc = gt_db_exec(db, "BEGIN IMMEDIATE", NULL);
    sqlite3_busy_timeout(db->h, (int)db->busy_ms);
    return rc;
}

int gt_db_data_version(struct gt_db *db, int64_t *version, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = gt_db_borrow(db, "PRAGMA data_version", &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *version = sqlite3_column_int64(st, 0);
    else
        rc = gt_db_fail(db, err, "reading the data version");
    gt_db_giveback(db, st);
    return rc;
}

int gt_db_commit(struct gt_db *db, struct gt_error *err)
{
    return gt_db_exec(db, "COMMIT", err);
}

void gt_db_rollback(struct gt_db *db)
{
    if (!sqlite3_get_autocommit(db->h))
        run_kept(db, "ROLLBACK", NULL);
}

int gt_db_version(struct gt_db *db, int *version, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = gt_db_prepare(db, "PRAGMA user_version", &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *version = sqlite3_column_int(st, 0);
    } else {
        rc = gt_db_fail(db, err, "reading the schema version");
    }
    sqlite3_finalize(st);
    return rc;
}

int gt_db_migrate_to(struct gt_db *db, int target, struct gt_error *err)
{
    int version, rc = gt_db_version(db, &version, err);
    if (rc)
        return rc;
    if (version > gt_schema_count())
        return gt_error_set(err, GT_ESCHEMA, db->path,
                            "database schema version %d is newer than this gridtail "
                            "supports (%d): upgrade gridtail", version,
                            gt_schema_count());
    if (version >= target)
        return GT_OK;
    if ((rc = gt_db_begin(db, err)) != GT_OK)
        return rc;
    /* Re-read inside the write lock: another process may have migrated. */
    if ((rc = gt_db_version(db, &version, err)) != GT_OK)
        goto fail;
    for (; version < target; version++) {
        char pragma[64];
        if ((rc = gt_db_exec(db, gt_schema_step(version), err)) != GT_OK)
            goto fail;
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", version + 1);
        if ((rc = gt_db_exec(db, pragma, err)) != GT_OK)
            goto fail;
    }
    return gt_db_commit(db, err);
fail:
    gt_db_rollback(db);
    return rc;
}

static int apply_pragmas(struct gt_db *db, long busy_timeout_ms, struct gt_error *err)
{
    db->busy_ms = busy_timeout_ms;
    sqlite3_busy_timeout(db->h, (int)busy_timeout_ms);
    /* A new store frees pages on prune (gt_db_reclaim).  The mode takes
     * only on a file that is still empty, before WAL mode writes its
     * header; an existing store is left alone (the pragma would want its
     * lock). */
    if (db->fresh) {
        int rc0 = gt_db_exec(db, "PRAGMA auto_vacuum = INCREMENTAL", err);
        if (rc0)
            return rc0;
    }
    sqlite3_stmt *st;
    int rc = gt_db_prepare(db, "PRAGMA journal_mode = WAL", &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) != SQLITE_ROW)
        rc = gt_db_fail(db, err, "enabling WAL");
    else if (strcmp((const char *)sqlite3_column_text(st, 0), "wal") != 0)
        rc = gt_error_set(err, GT_EDB, db->path, "cannot enable WAL journal mode");
    sqlite3_finalize(st);
    if (rc)
        return rc;
    /* Memory-mapped reads: the advisor reads whole fit-cache blobs, and
       copying them page by page through read() cost more than the rest of
       a lookup (addresses only: pages come in as they are touched). */
    return gt_db_exec(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"
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
    if (sqlite3_open_v2(db->path, &db->h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        gt_db_version(db, &version, NULL) != GT_OK) {
        /* a WAL store in a folder we cannot write: no -shm can be made;
         * immutable reads the main file as it is (the store is not being
         * written, or we could not be here) */
        sqlite3_close(db->h);
        db->h = NULL;
        char uri[4200];
        snprintf(uri, sizeof uri, "file:%s?immutable=1", db->path);
        if (sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) !=
                SQLITE_OK ||
            gt_db_version(db, &version, err) != GT_OK)
            return err && err->code ? err->code
                                    : gt_error_set(err, GT_EIO, db->path, "cannot open read-only");
    }
    db->readonly = true;
    sqlite3_busy_timeout(db->h, (int)db->busy_ms);
    if (version != gt_schema_count())
        return gt_error_set(err, version > gt_schema_count() ? GT_ESCHEMA : GT_EIO, db->path,
                            "read-only store at schema version %d, this binary reads %d "
                            "(upgrading needs write access: gridtail init)", version,
                            gt_schema_count());
    return GT_OK;
}

int gt_db_open(const char *path, enum gt_db_mode mode, long busy_timeout_ms,
               struct gt_db **out, struct gt_error *err)
{
    *out = NULL;
    struct stat sb;
    if (mode != GT_DB_CREATE && stat(path, &sb) != 0)
        return gt_error_set(err, GT_EIO, path,
                            "no database here (create it with 'gridtail init')");
    struct gt_db *db = calloc(1, sizeof *db);
    if (!db || !(db->path = strdup(path))) {
        free(db);
        return gt_error_set(err, GT_ENOMEM, path, "out of memory");
    }
    db->busy_ms = busy_timeout_ms;
    int rc = GT_OK;
    if (mode == GT_DB_READ && !writable(path)) {
        if ((rc = open_readonly(db, err)) != GT_OK)
            goto fail;
        *out = db;
        return GT_OK;
    }
    db->fresh = mode == GT_DB_CREATE && (stat(path, &sb) != 0 || sb.st_size == 0);
    int flags = SQLITE_OPEN_READWRITE | (mode == GT_DB_CREATE ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
        rc = gt_error_set(err, GT_EIO, path, "cannot open database: %s",
                          db->h ? sqlite3_errmsg(db->h) : "out of memory");
        goto fail;
    }
    sqlite3_extended_result_codes(db->h, 1);
    if ((rc = apply_pragmas(db, busy_timeout_ms, err)) != GT_OK ||
        (rc = gt_db_migrate_to(db, gt_schema_count(), err)) != GT_OK)
        goto fail;
    *out = db;
    return GT_OK;
fail:
    gt_db_close(db);
    return rc;
}

static int pragma_int(struct gt_db *db, const char *sql, long long *v, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = gt_db_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *v = sqlite3_column_int64(st, 0);
    else
        rc = gt_db_fail(db, err, sql);
    sqlite3_finalize(st);
    return rc;
}

int gt_db_reclaim(struct gt_db *db, bool full, long long *before, long long *after,
                  struct gt_error *err)
{
    long long pages0, pages1, size, mode;
    int rc;
    if ((rc = pragma_int(db, "PRAGMA page_size", &size, err)) ||
        (rc = pragma_int(db, "PRAGMA page_count", &pages0, err)) ||
        (rc = pragma_int(db, "PRAGMA auto_vacuum", &mode, err)))
        return rc;
    if (mode == 2)   /* incremental: hand the free pages back */
        rc = gt_db_exec(db, "PRAGMA incremental_vacuum", err);
    else if (full)   /* older stores: rewrite once, incremental from then on */
        rc = gt_db_exec(db, "PRAGMA auto_vacuum = INCREMENTAL; VACUUM", err);
    /* the WAL holds the moved pages until a checkpoint; then the file shrinks */
    if (rc == GT_OK)
        rc = gt_db_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", err);
    if (rc == GT_OK)
        rc = pragma_int(db, "PRAGMA page_count", &pages1, err);
    if (rc == GT_OK) {
        *before = pages0 * size;
        *after = pages1 * size;
    }
    return rc;
}

void gt_db_close(struct gt_db *db)
{
    if (!db)
        return;
    for (size_t i = 0; i < db->nkept; i++) {
        sqlite3_finalize(db->kept[i].st);
        free(db->kept[i].sql);
    }
    sqlite3_close(db->h);
    free(db->path);
    free(db);
}

int gt_db_set_cache_mb(struct gt_db *db, long mb, struct gt_error *err)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA cache_size = -%ld", mb * 1024);
    return gt_db_exec(db, sql, err);
}
