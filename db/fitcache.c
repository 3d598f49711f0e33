/*
 * fitcache.c - the fit_cache table: blobs of struct gt_fit_rec behind a
 * small header.  The read a query makes per source site uses a kept
 * statement (a server answers many); the writes, once per command and
 * site, are prepared per call.
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

/* The row's fit records without those whose dst is in dst[0..n) (sorted),
 * into out (header first); *kept of them remain.  False when the blob is
 * not this format's fits: the row goes whole. */
static bool without_dsts(const void *blob, size_t bytes, const int64_t *dst, size_t n,
                         char *out, size_t *kept)
{
    if (!header_ok(blob, bytes, MAGIC, FORMAT, sizeof(struct gt_fit_rec)))
        return false;
    const char *recs = (const char *)blob + sizeof(struct header);
    size_t nrecs = (bytes - sizeof(struct header)) / sizeof(struct gt_fit_rec), k = 0, j = 0;
    memcpy(out, blob, sizeof(struct header));
    for (size_t i = 0; i < nrecs; i++) {
        struct gt_fit_rec r;
        memcpy(&r, recs + i * sizeof r, sizeof r);
        while (j < n && dst[j] < r.dst)
            j++;
        if (j < n && dst[j] == r.dst)
            continue;
        memcpy(out + sizeof(struct header) + k++ * sizeof r, &r, sizeof r);
    }
    *kept = k;
    return true;
}

/* One source site's rows without the records of dst[0..n); its tracked
 * errors (and any blob of another format) go whole. */
static int forget_dsts(struct gt_db *db, int64_t src, const int64_t *dst, size_t n,
                       struct gt_error *err)
{
    sqlite3_stmt *sel, *del = NULL, *upd = NULL;
    int rc = gt_db_prepare(db, "SELECT rowid, fits FROM fit_cache WHERE src = ?1", &sel, err);
    if (rc == GT_OK && !(rc = gt_db_prepare(db, "DELETE FROM fit_cache WHERE rowid = ?1", &del,
                                            err)))
        rc = gt_db_prepare(db, "UPDATE fit_cache SET fits = ?2 WHERE rowid = ?1", &upd, err);
    /* the rows are read whole first: a table is not changed under its
       own running SELECT */
    struct row { int64_t id; size_t bytes; char *blob; } *rows = NULL;
    size_t nrows = 0, cap = 0;
    int r = SQLITE_DONE;
    if (rc == GT_OK) {
        sqlite3_bind_int64(sel, 1, src);
        while ((r = sqlite3_step(sel)) == SQLITE_ROW) {
            size_t bytes = (size_t)sqlite3_column_bytes(sel, 1);
            const void *b = sqlite3_column_blob(sel, 1);
            if (nrows == cap) {
                struct row *v = realloc(rows, (cap = cap ? 2 * cap : 8) * sizeof *v);
                if (!v)
                    break;
                rows = v;
            }
            char *copy = malloc(bytes ? bytes : 1);
            if (!copy)
                break;
            if (bytes)
                memcpy(copy, b, bytes);
            rows[nrows++] = (struct row){sqlite3_column_int64(sel, 0), bytes, copy};
        }
        if (r == SQLITE_ROW)
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        else if (r != SQLITE_DONE)
            rc = gt_db_fail(db, err, "reading the fit cache");
    }
    for (size_t i = 0; rc == GT_OK && i < nrows; i++) {
        size_t kept = 0, before = rows[i].bytes >= sizeof(struct header)
                                    ? (rows[i].bytes - sizeof(struct header)) /
                                      sizeof(struct gt_fit_rec) : 0;
        char *out = malloc(rows[i].bytes ? rows[i].bytes : 1);
        if (!out) {
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
            break;
        }
        bool fits = without_dsts(rows[i].blob, rows[i].bytes, dst, n, out, &kept);
        sqlite3_stmt *st = !fits || !kept ? del : kept < before ? upd : NULL;
        if (st) {
            sqlite3_bind_int64(st, 1, rows[i].id);
            if (st == upd)
                sqlite3_bind_blob64(st, 2, out, sizeof(struct header) +
                                    kept * sizeof(struct gt_fit_rec), SQLITE_STATIC);
            if (sqlite3_step(st) != SQLITE_DONE)
                rc = gt_db_fail(db, err, "clearing the fit cache");
            sqlite3_reset(st);
        }
        free(out);
    }
    for (size_t i = 0; i < nrows; i++)
        free(rows[i].blob);
    free(rows);
    sqlite3_finalize(sel);
    sqlite3_finalize(del);
    sqlite3_finalize(upd);
    return rc;
}

int gt_fitcache_forget_pairs(struct gt_db *db, const int64_t *src, const int64_t *dst,
                             size_t n, struct gt_error *err)
{
    int rc = GT_OK;
    for (size_t i = 0, j; rc == GT_OK && i < n; i = j) {
        for (j = i + 1; j < n && src[j] == src[i]; j++)
            ;
        rc = forget_dsts(db, src[i], dst + i, j - i, err);
    }
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
