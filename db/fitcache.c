/*
 * fitcache.c - what the fit cache's blobs hold: records of struct
 * gt_fit_rec (or one gt_track_rec or gt_calib_rec) behind a small header.  The backend
 * keeps the blobs (db/backend.h: blob_get, blob_put, ...); this file
 * writes, checks and edits them, the same for every backend.
 */
#define _POSIX_C_SOURCE 200809L
#include "fitcache.h"
#include "backend.h"

#include <stdlib.h>
#include <string.h>

#define MAGIC "GTFC"
#define FORMAT 4u   /* 2: exact fit index (the selections may differ), counts;
                        3: the other candidate's fit; 4: quantile bounds */
#define TRACK_MAGIC "GTTR"  /* a root's tracked errors (gt_track_rec) */
#define TRACK_FORMAT 2u   /* 2: combined's weights and RMSE */
#define CALIB_MAGIC "GTCA"  /* a root's calibration (gt_calib_rec) */
#define CALIB_FORMAT 1u
#define STATE_MAGIC "GTCS"  /* a root's calibration state (gt_calibstate_head, then bytes) */
#define STATE_FORMAT 1u
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

struct loaded {
    const char *magic;
    uint32_t format;
    size_t rec_size;
    void **buf;
    size_t *cap, *n;
    struct gt_error *err;
};

/* blob_get's callback: the blob's records into the caller's buffer */
static int take_records(void *ctx, long window, const char *key, int64_t src,
                        const void *blob, size_t bytes)
{
    (void)window, (void)key, (void)src;
    struct loaded *l = ctx;
    size_t cnt = blob && header_ok(blob, bytes, l->magic, l->format, l->rec_size)
                     ? (bytes - sizeof(struct header)) / l->rec_size : 0;
    if (cnt > *l->cap) {
        void *b = realloc(*l->buf, cnt * l->rec_size);
        if (!b)
            return gt_error_set(l->err, GT_ENOMEM, NULL, "out of memory");
        *l->buf = b, *l->cap = cnt;
    }
    if (cnt)
        memcpy(*l->buf, (const char *)blob + sizeof(struct header), cnt * l->rec_size);
    *l->n = cnt;
    return GT_OK;
}

/* The records of (window, key, src) into *buf (grown), or *n = 0 when the
 * row is absent or was written in another format. */
static int load_blob(struct gt_db *db, long window, const char *key, int64_t src,
                     const char *magic, uint32_t format, size_t rec_size, void **buf,
                     size_t *cap, size_t *n, struct gt_error *err)
{
    *n = 0;
    struct loaded l = {magic, format, rec_size, buf, cap, n, err};
    return db->be->blob_get(db, window, key, src, take_records, &l, err);
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
    int rc = db->be->blob_put(db, window, key, src, blob, bytes, err);
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

/* The one record of (window, key, src) in format (magic, format) into
 * rec; *found is false when there is none in that format. */
static int load_one(struct gt_db *db, long window, const char *key, int64_t src,
                    const char *magic, uint32_t format, size_t rec_size, void *rec,
                    bool *found, struct gt_error *err)
{
    void *b = NULL;
    size_t cap = 0, n = 0;
    int rc = load_blob(db, window, key, src, magic, format, rec_size, &b, &cap, &n, err);
    *found = rc == GT_OK && n == 1;
    if (*found)
        memcpy(rec, b, rec_size);
    free(b);
    return rc;
}

int gt_trackcache_load(struct gt_db *db, long window, const char *key, int64_t src,
                       struct gt_track_rec *rec, bool *found, struct gt_error *err)
{
    return load_one(db, window, key, src, TRACK_MAGIC, TRACK_FORMAT, sizeof *rec, rec, found,
                    err);
}

int gt_trackcache_save(struct gt_db *db, long window, const char *key, int64_t src,
                       const struct gt_track_rec *rec, struct gt_error *err)
{
    return save_blob(db, window, key, src, TRACK_MAGIC, TRACK_FORMAT, sizeof *rec, rec, 1, err);
}

int gt_calibcache_load(struct gt_db *db, long window, const char *key, int64_t src,
                       struct gt_calib_rec *rec, bool *found, struct gt_error *err)
{
    int rc = load_one(db, window, key, src, CALIB_MAGIC, CALIB_FORMAT, sizeof *rec, rec, found,
                      err);
    if (*found && !(rec->nlevels >= 0 && rec->nlevels <= GT_CALIB_REC_LEVELS))
        *found = false;   /* not one this build wrote */
    return rc;
}

int gt_calibcache_save(struct gt_db *db, long window, const char *key, int64_t src,
                       const struct gt_calib_rec *rec, struct gt_error *err)
{
    return save_blob(db, window, key, src, CALIB_MAGIC, CALIB_FORMAT, sizeof *rec, rec, 1, err);
}

int gt_calibstate_load(struct gt_db *db, long window, const char *key, int64_t src,
                       void **buf, size_t *len, bool *found, struct gt_error *err)
{
    size_t cap = 0;
    *buf = NULL;
    *len = 0;
    int rc = load_blob(db, window, key, src, STATE_MAGIC, STATE_FORMAT, 1, buf, &cap, len,
                       err);
    *found = rc == GT_OK && *len >= sizeof(struct gt_calibstate_head);
    if (!*found) {
        free(*buf);
        *buf = NULL;
        *len = 0;
    }
    return rc;
}

int gt_calibstate_save(struct gt_db *db, long window, const char *key, int64_t src,
                       const void *buf, size_t len, struct gt_error *err)
{
    return save_blob(db, window, key, src, STATE_MAGIC, STATE_FORMAT, 1, buf, len, err);
}

/* A row's calibration state head, if it is one. */
static bool state_head(const void *blob, size_t bytes, struct gt_calibstate_head *h)
{
    if (!header_ok(blob, bytes, STATE_MAGIC, STATE_FORMAT, 1) ||
        bytes < sizeof(struct header) + sizeof *h)
        return false;
    memcpy(h, (const char *)blob + sizeof(struct header), sizeof *h);
    return true;
}

struct state_each {
    const char *prefix;
    int (*each)(void *ctx, long window, const char *key, const void *buf, size_t len);
    void *ctx;
};

/* blob_scan's callback: the states whose key has the prefix */
static int each_state(void *ctx, long window, const char *key, int64_t src, const void *blob,
                      size_t bytes)
{
    (void)src;
    const struct state_each *e = ctx;
    struct gt_calibstate_head h;
    if (!key || strncmp(key, e->prefix, strlen(e->prefix)) || !state_head(blob, bytes, &h))
        return GT_OK;
    return e->each(e->ctx, window, key, (const char *)blob + sizeof(struct header),
                   bytes - sizeof(struct header));
}

int gt_calibstate_each(struct gt_db *db, int64_t src, const char *prefix,
                       int (*each)(void *ctx, long window, const char *key, const void *buf,
                                   size_t len),
                       void *ctx, struct gt_error *err)
{
    struct state_each e = {prefix, each, ctx};
    int rc = db->be->blob_scan(db, src, each_state, &e, err);
    if (rc == GT_ENOMEM && err && !err->code)
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    return rc;
}

struct state_row {
    long window;
    char *key;
    int64_t used;
};

struct state_rows {
    struct state_row *v;
    size_t n, cap;
};

/* blob_scan's callback: the calibration states' keys and use */
static int take_state(void *ctx, long window, const char *key, int64_t src, const void *blob,
                      size_t bytes)
{
    (void)src;
    struct state_rows *r = ctx;
    struct gt_calibstate_head h;
    if (!state_head(blob, bytes, &h))
        return GT_OK;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct state_row *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        r->v = v, r->cap = cap;
    }
    if (!(r->v[r->n].key = strdup(key ? key : "")))
        return GT_ENOMEM;
    r->v[r->n].window = window;
    r->v[r->n++].used = h.used;
    return GT_OK;
}

static int by_use(const void *a, const void *b)
{
    const struct state_row *x = a, *y = b;
    return (x->used < y->used) - (x->used > y->used);   /* the latest first */
}

int gt_calibstate_trim(struct gt_db *db, int64_t src, size_t keep, struct gt_error *err)
{
    struct state_rows r = {0};
    int rc = db->be->blob_scan(db, src, take_state, &r, err);
    if (rc == GT_ENOMEM && err && !err->code)
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK && r.n > keep) {
        qsort(r.v, r.n, sizeof *r.v, by_use);
        for (size_t i = keep; rc == GT_OK && i < r.n; i++)
            rc = db->be->blob_delete(db, r.v[i].window, r.v[i].key, src, err);
    }
    for (size_t i = 0; i < r.n; i++)
        free(r.v[i].key);
    free(r.v);
    return rc;
}

int gt_fitcache_forget(struct gt_db *db, const int64_t *src_ids, size_t n,
                       struct gt_error *err)
{
    if (!src_ids)
        return db->be->blob_delete_src(db, -1, err);
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i < n; i++)
        rc = db->be->blob_delete_src(db, src_ids[i], err);
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

struct blob_row {
    long window;
    char *key;
    size_t bytes;
    char *blob;
};

struct blob_rows {
    struct blob_row *v;
    size_t n, cap;
};

/* blob_scan's callback: a copy of every row */
static int copy_row(void *ctx, long window, const char *key, int64_t src, const void *blob,
                    size_t bytes)
{
    (void)src;
    struct blob_rows *rows = ctx;
    if (rows->n == rows->cap) {
        size_t cap = rows->cap ? 2 * rows->cap : 8;
        struct blob_row *v = realloc(rows->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        rows->v = v, rows->cap = cap;
    }
    struct blob_row *r = &rows->v[rows->n];
    r->window = window;
    r->bytes = bytes;
    r->key = strdup(key ? key : "");
    r->blob = malloc(bytes ? bytes : 1);
    if (!r->key || !r->blob) {
        free(r->key);
        free(r->blob);
        return GT_ENOMEM;
    }
    if (bytes)
        memcpy(r->blob, blob, bytes);
    rows->n++;
    return GT_OK;
}

static void free_rows(struct blob_rows *rows)
{
    for (size_t i = 0; i < rows->n; i++) {
        free(rows->v[i].key);
        free(rows->v[i].blob);
    }
    free(rows->v);
}

/* One row without the records of dst[0..n), whose oldest new sample is at
 * oldest: rewritten, deleted when none remain or it is not this format's
 * fits (a calibration state only when it read a sample at or after
 * oldest), or left alone. */
static int forget_in_row(struct gt_db *db, int64_t src, const struct blob_row *row,
                         const int64_t *dst, size_t n, int64_t oldest, struct gt_error *err)
{
    struct gt_calibstate_head h;
    if (state_head(row->blob, row->bytes, &h)) {
        if (oldest < h.read_before)
            return db->be->blob_delete(db, row->window, row->key, src, err);
        if (oldest >= h.answer_before)
            return GT_OK;
        h.answer_before = INT64_MIN;   /* the answer read it: only that goes */
        memcpy(row->blob + sizeof(struct header), &h, sizeof h);
        return db->be->blob_put(db, row->window, row->key, src, row->blob, row->bytes, err);
    }
    size_t kept = 0, before = row->bytes >= sizeof(struct header)
                                  ? (row->bytes - sizeof(struct header)) /
                                    sizeof(struct gt_fit_rec) : 0;
    char *out = malloc(row->bytes ? row->bytes : 1);
    if (!out)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    bool fits = without_dsts(row->blob, row->bytes, dst, n, out, &kept);
    int rc = GT_OK;
    if (!fits || !kept)
        rc = db->be->blob_delete(db, row->window, row->key, src, err);
    else if (kept < before)
        rc = db->be->blob_put(db, row->window, row->key, src, out,
                              sizeof(struct header) + kept * sizeof(struct gt_fit_rec), err);
    free(out);
    return rc;
}

/* One source site's rows without the records of dst[0..n); its tracked
 * errors (and any blob of another format) go whole. */
static int forget_dsts(struct gt_db *db, int64_t src, const int64_t *dst, size_t n,
                       int64_t oldest, struct gt_error *err)
{
    /* the rows are read whole first: a table is not changed under its
       own running SELECT */
    struct blob_rows rows = {0};
    int rc = db->be->blob_scan(db, src, copy_row, &rows, err);
    if (rc == GT_ENOMEM && err && !err->code)
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < rows.n; i++)
        rc = forget_in_row(db, src, &rows.v[i], dst, n, oldest, err);
    free_rows(&rows);
    return rc;
}

int gt_fitcache_forget_pairs(struct gt_db *db, const int64_t *src, const int64_t *dst,
                             const int64_t *oldest, size_t n, struct gt_error *err)
{
    int rc = GT_OK;
    for (size_t i = 0, j; rc == GT_OK && i < n; i = j) {
        int64_t first = oldest[i];
        for (j = i + 1; j < n && src[j] == src[i]; j++)
            first = oldest[j] < first ? oldest[j] : first;
        rc = forget_dsts(db, src[i], dst + i, j - i, first, err);
    }
    return rc;
}

struct counts {
    long long rows, records;
};

/* blob_scan's callback: fit rows (not tracked errors or calibrations) and
 * their records */
static int count_row(void *ctx, long window, const char *key, int64_t src, const void *blob,
                     size_t bytes)
{
    (void)window, (void)src, (void)blob;
    struct counts *c = ctx;
    if (key && (!strncmp(key, "track", 5) || !strncmp(key, "calib", 5) ||
                !strncmp(key, "combine", 7)))
        return GT_OK;
    c->rows++;
    c->records += ((long long)bytes - (long long)sizeof(struct header)) /
                  (long long)sizeof(struct gt_fit_rec);
    return GT_OK;
}

int gt_fitcache_count(struct gt_db *db, long long *rows, long long *records,
                      struct gt_error *err)
{
    struct counts c = {0, 0};
    int rc = db->be->blob_scan(db, -1, count_row, &c, err);
    if (rc == GT_OK)
        *rows = c.rows, *records = c.records;
    return rc;
}
