/*
 * blobs.c - the SQLite backend's fit_cache table: blobs keyed (window,
 * model, src).  The read a query makes per source site uses a kept
 * statement (a server answers many); the writes, once per command and
 * site, are prepared per call.
 */
#include "sqlite.h"

static void bind_key(sqlite3_stmt *st, long window, const char *key, int64_t src)
{
    sqlite3_bind_int64(st, 1, window);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, src);
}

int sq_blob_get(struct gt_db *db, long window, const char *key, int64_t src, gt_blob_fn take,
                void *ctx, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_borrow(db, "SELECT fits FROM fit_cache WHERE window = ?1 AND model = ?2"
                           " AND src = ?3", &st, err);
    if (rc)
        return rc;
    bind_key(st, window, key, src);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        rc = take(ctx, window, key, src, sqlite3_column_blob(st, 0),
                  (size_t)sqlite3_column_bytes(st, 0));
    else if (r != SQLITE_DONE)
        rc = sq_fail(db, err, "reading the fit cache");
    sq_giveback(db, st);
    return rc;
}

int sq_blob_put(struct gt_db *db, long window, const char *key, int64_t src, const void *blob,
                size_t bytes, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "INSERT OR REPLACE INTO fit_cache(window, model, src, fits)"
                            " VALUES (?1, ?2, ?3, ?4)", &st, err);
    if (rc)
        return rc;
    bind_key(st, window, key, src);
    sqlite3_bind_blob64(st, 4, blob, bytes, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, "writing the fit cache");
    sqlite3_finalize(st);
    return rc;
}

int sq_blob_delete(struct gt_db *db, long window, const char *key, int64_t src,
                   struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "DELETE FROM fit_cache WHERE window = ?1 AND model = ?2"
                            " AND src = ?3", &st, err);
    if (rc)
        return rc;
    bind_key(st, window, key, src);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, "clearing the fit cache");
    sqlite3_finalize(st);
    return rc;
}

int sq_blob_scan(struct gt_db *db, int64_t src, gt_blob_fn each, void *ctx,
                 struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "SELECT window, model, src, fits FROM fit_cache"
                            " WHERE ?1 < 0 OR src = ?1", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, src);
    int r;
    while (rc == GT_OK && (r = sqlite3_step(st)) == SQLITE_ROW)
        rc = each(ctx, (long)sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
                  sqlite3_column_int64(st, 2), sqlite3_column_blob(st, 3),
                  (size_t)sqlite3_column_bytes(st, 3));
    if (rc == GT_OK && r != SQLITE_DONE)
        rc = sq_fail(db, err, "reading the fit cache");
    sqlite3_finalize(st);
    return rc;
}

int sq_blob_delete_src(struct gt_db *db, int64_t src, struct gt_error *err)
{
    if (src < 0)
        return sq_exec(db, "DELETE FROM fit_cache", err);
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "DELETE FROM fit_cache WHERE src = ?1", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, src);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, "clearing the fit cache");
    sqlite3_finalize(st);
    return rc;
}
