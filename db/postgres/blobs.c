/*
 * blobs.c - the PostgreSQL backend's fit_cache table: bytea blobs keyed
 * (fit_window, model, src), sent and read in binary (the server reads one
 * per source site of every question).
 */
#include "pg.h"

#include <stdio.h>

/* window, key, src as text parameters into buf */
static void key_params(char buf[2][24], long window, const char *key, int64_t src,
                       const char *v[3])
{
    snprintf(buf[0], 24, "%ld", window);
    pg_i64(buf[1], 24, src);
    v[0] = buf[0];
    v[1] = key;
    v[2] = buf[1];
}

int pg_blob_get(struct gt_db *db, long window, const char *key, int64_t src, gt_blob_fn take,
                void *ctx, struct gt_error *err)
{
    char buf[2][24];
    const char *v[3];
    key_params(buf, window, key, src, v);
    PGresult *res;
    int rc = pg_run(db, PG_BLOB_GET, v, NULL, NULL, true, &res, err);
    if (rc)
        return rc;
    if (PQntuples(res))
        rc = take(ctx, window, key, src, PQgetvalue(res, 0, 0),
                  (size_t)PQgetlength(res, 0, 0));
    PQclear(res);
    return rc;
}

int pg_blob_put(struct gt_db *db, long window, const char *key, int64_t src, const void *blob,
                size_t bytes, struct gt_error *err)
{
    char buf[2][24];
    const char *v[4];
    key_params(buf, window, key, src, v);
    v[3] = blob;
    int lengths[4] = {0, 0, 0, (int)bytes}, formats[4] = {0, 0, 0, 1};
    PGresult *res;
    int rc = pg_run(db, PG_BLOB_PUT, v, lengths, formats, false, &res, err);
    PQclear(res);
    return rc;
}

int pg_blob_delete(struct gt_db *db, long window, const char *key, int64_t src,
                   struct gt_error *err)
{
    char buf[2][24];
    const char *v[3];
    key_params(buf, window, key, src, v);
    PGresult *res;
    int rc = pg_run(db, PG_BLOB_DELETE, v, NULL, NULL, false, &res, err);
    PQclear(res);
    return rc;
}

int pg_blob_scan(struct gt_db *db, int64_t src, gt_blob_fn each, void *ctx,
                 struct gt_error *err)
{
    char s[24];
    pg_i64(s, sizeof s, src);
    const char *v[1] = {s};
    PGresult *res;
    int rc = pg_run(db, PG_BLOB_SCAN, v, NULL, NULL, false, &res, err);
    for (int i = 0; rc == GT_OK && i < PQntuples(res); i++) {
        size_t bytes = 0;
        unsigned char *blob = PQunescapeBytea((const unsigned char *)PQgetvalue(res, i, 3),
                                              &bytes);
        if (!blob) {
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
            break;
        }
        rc = each(ctx, (long)pg_col_i64(res, i, 0), PQgetvalue(res, i, 1),
                  pg_col_i64(res, i, 2), blob, bytes);
        PQfreemem(blob);
    }
    PQclear(res);
    return rc;
}

int pg_blob_delete_src(struct gt_db *db, int64_t src, struct gt_error *err)
{
    char s[24];
    pg_i64(s, sizeof s, src);
    const char *v[1] = {s};
    PGresult *res;
    int rc = pg_run(db, PG_BLOB_DELETE_SRC, v, NULL, NULL, false, &res, err);
    PQclear(res);
    return rc;
}
