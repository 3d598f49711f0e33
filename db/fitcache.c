/*
 * fitcache.c - the fit_cache table: blobs of struct gt_fit_rec behind a
 * small header.  Statements are prepared per call: a command touches the
 * cache once per source site, and the blob copy dominates.
 */
#include "fitcache.h"

#include <stdlib.h>
#include <string.h>

#define MAGIC "GTFC"
#define FORMAT 3u   /* 2: exact fit index (the selections may differ), counts;
                        3: the other candidate's fit */
#define TRACK_MAGIC "GTTR"  /* a root's tracked errors (gt_track_rec) */
#define TRACK_FORMAT 1u
#define BYTE_ORDER_MARK 0x01020304u

struct header {
    char magic[4];
    uint32_t format;
    uint32_t rec_size;
    uint32_t byte_order;    /* BYTE_ORDER_MARK as the writer stored it */
};

static bool header_ok(const void *blob, size_t bytes, const char *magic, uint32_t format,
                      size_t rec_size)
{
    struct header h;
    if (bytes < sizeof h)
        return false;
    memcpy(&h, blob, sizeof h);
    return !memcmp(h.magic, magic, 4) && h.format == format && h.rec_size == rec_size &&
           h.byte_order == BYTE_ORDER_MARK && (bytes - sizeof h) % rec_size == 0;
}

/* The records of (window, key, src) into *buf (grown), or *n = 0 when the
 * row is absent or was written in another format. */
static int load_blob(struct gt_db *db, long window, const char *key, int64_t src,
                     const char *magic, uint32_t format, size_t rec_size, void **buf,
                     size_t *cap, size_t *n, struct gt_error *err)
{
    *n = 0;
    sqlite3_stmt *st;
    int rc = gt_db_borrow(db, "SELECT fits FROM fit_cache WHERE window = ?1 AND model = ?2"
                              " AND src = ?3", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, window);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, src);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        const char *blob = sqlite3_column_blob(st, 0);
        size_t bytes = (size_t)sqlite3_column_bytes(st, 0);
        size_t cnt = blob && header_ok(blob, bytes, magic, format, rec_size)
                         ? (bytes - sizeof(struct header)) / rec_size : 0;
        if (cnt > *cap) {
            void *b = realloc(*buf, cnt * rec_size);
            if (b)
                *buf = b, *cap = cnt;
            else
                rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        }
        if (rc == GT_OK && cnt) {
            memcpy(*buf, blob + sizeof(struct header), cnt * rec_size);
            *n = cnt;
        }
    } else if (r != SQLITE_DONE) {
        rc = gt_db_fail(db, err, "reading the fit cache");
    }
    gt_db_giveback(db, st);
    return rc;
}

static int save_blob(struct gt_db *db, long window, const char *key, int64_t src,
                     const char *magic, uint32_t format, size_t rec_size, const void *recs,
                     size_t n, struct gt_error *err)
{
    struct header h = {{0}, format, (uint32_t)rec_size, BYTE_ORDER_MARK};
    memcpy(h.magic, magic, 4);
    size_t bytes = sizeof h + n * rec_size;
    char *blob = malloc(bytes);
    if (!blob)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    memcpy(blob, &h, sizeof h);
    if (n)
        memcpy(blob + sizeof h, recs, n * rec_size);
    sqlite3_stmt *st;
    int rc = gt_db_prepare(db, "INSERT OR REPLACE INTO fit_cache(window, model, src, fits)"
                               " VALUES (?1, ?2, ?3, ?4)", &st, err);
    if (rc == GT_OK) {
        sqlite3_bind_int64(st, 1, window);
        sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, src);
        sqlite3_bind_blob64(st, 4, blob, bytes, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = gt_db_fail(db, err, "writing the fit cache");
        sqlite3_finalize(st);
    }
    free(blob);
    return rc;
}

int gt_fitcache_load(struct gt_db *db, long window, const char *choice, int64_t src,
                     struct gt_fit_rec **buf, size_t *cap, size_t *n, struct gt_error *err)
{
    void *b = *buf;
    int rc = load_blob(db, window, choice, src, MAGIC, FORMAT, sizeof **buf, &b, cap, n, err);
    *buf = b;
    return rc;
}

int gt_fitcache_save(struct gt_db *db, long window, const char *choice, int64_t src,
                     const struct gt_fit_rec *recs, size_t n, struct gt_error *err)
{
    return save_blob(db, window, choice, src, MAGIC, FORMAT, sizeof *recs, recs, n, err);
}

int gt_trackcache_load(struct gt_db *db, long window, const char *key, int64_t src,
                       struct gt_track_rec *rec, bool *found, struct gt_error *err)
{
    void *b = NULL;
    size_t cap = 0, n = 0;
    int rc = load_blob(db, window, key, src, TRACK_MAGIC, TRACK_FORMAT, sizeof *rec, &b, &cap,
                       &n, err);
    *found = rc == GT_OK && n == 1;
    if (*found)
        memcpy(rec, b, sizeof *rec);
    free(b);
    return rc;
}

int gt_trackcache_save(struct gt_db *db, long window, const char *key, int64_t src,
                       const struct gt_track_rec *rec, struct gt_error *err)
{
    return save_blob(db, window, key, src, TRACK_MAGIC, TRACK_FORMAT, sizeof *rec, rec, 1, err);
}

int gt_fitcache_forget(struct gt_db *db, const int64_t *src_ids, size_t n,
                       struct gt_error *err)
{
    if (!src_ids)
        return gt_db_exec(db, "DELETE FROM fit_cache", err);
    sqlite3_stmt *st = NULL;
    int rc = gt_db_prepare(db, "DELETE FROM fit_cache WHERE src = ?1", &st, err);
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        sqlite3_bind_int64(st, 1, src_ids[i]);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = gt_db_fail(db, err, "clearing the fit cache");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

int gt_fitcache_count(struct gt_db *db, long long *rows, long long *records,
                      struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = gt_db_prepare(db, "SELECT count(*), coalesce(sum((length(fits) - ?1) / ?2), 0)"
                               " FROM fit_cache WHERE model NOT LIKE 'track:%'", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)sizeof(struct header));
    sqlite3_bind_int64(st, 2, (sqlite3_int64)sizeof(struct gt_fit_rec));
    if (sqlite3_step(st) == SQLITE_ROW) {
        *rows = sqlite3_column_int64(st, 0);
        *records = sqlite3_column_int64(st, 1);
    } else {
        rc = gt_db_fail(db, err, "counting the fit cache");
    }
    sqlite3_finalize(st);
    return rc;
}
