/*
 * write.c - the PostgreSQL backend's writes: site and pair ids, batches
 * of samples through COPY into a staging table and one insert, sources'
 * cursors and the ingest log.
 *
 * A batch (keys distinct: db/store.c sees to it) is copied into gt_stage,
 * a temporary table of this connection, and inserted into samples in one
 * statement that skips taken keys; the staged rows it skipped are then
 * read against samples in a statement of their own, which sees another
 * writer's committed rows too: each is a duplicate (same value, NULL =
 * NULL) or a conflict, replaced with --on-conflict replace.  Two
 * collectors writing the same keys at once each count the other's as
 * duplicates: nothing is lost or stored twice.
 */
#define _POSIX_C_SOURCE 200809L
#include "pg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_writer {
    struct gt_db_writer base;
    char *copybuf;            /* the batch as COPY text */
    size_t copycap;
};

int pg_writer_open(struct gt_db *db, struct gt_db_writer **out, struct gt_error *err)
{
    struct pg_writer *w = calloc(1, sizeof *w);
    if (!w)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    w->base.db = db;
    *out = &w->base;
    return GT_OK;
}

void pg_writer_free(struct gt_db_writer *base)
{
    struct pg_writer *w = (struct pg_writer *)base;
    if (!w)
        return;
    free(w->copybuf);
    free(w);
}

/* The id a select or an insert returns; a concurrent insert of the same
 * name makes ours return nothing, and the select then finds it. */
static int find_or_make(struct gt_db *db, enum pg_stmt sel, enum pg_stmt ins,
                        const char *const *values, int64_t *id, const char *what,
                        struct gt_error *err)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        PGresult *res;
        int rc = pg_run(db, sel, values, NULL, NULL, false, &res, err);
        if (rc)
            return rc;
        bool found = PQntuples(res) > 0;
        if (found)
            *id = pg_col_i64(res, 0, 0);
        PQclear(res);
        if (found)
            return GT_OK;
        if ((rc = pg_run(db, ins, values, NULL, NULL, false, &res, err)))
            return rc;
        found = PQntuples(res) > 0;
        if (found)
            *id = pg_col_i64(res, 0, 0);
        PQclear(res);
        if (found)
            return GT_OK;
    }
    return gt_error_set(err, GT_EDB, db->addr, "%s: neither found nor added", what);
}

int pg_site_id(struct gt_db_writer *w, const char *name, size_t len, int64_t *id,
               struct gt_error *err)
{
    char *copy = strndup(name, len);
    if (!copy)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    const char *v[1] = {copy};
    int rc = find_or_make(w->db, PG_SITE_SEL, PG_SITE_INS, v, id, "a site", err);
    free(copy);
    return rc;
}

int pg_pair_id(struct gt_db_writer *w, int64_t src, int64_t dst, int64_t *id,
               struct gt_error *err)
{
    char a[24], b[24];
    pg_i64(a, sizeof a, src);
    pg_i64(b, sizeof b, dst);
    const char *v[2] = {a, b};
    return find_or_make(w->db, PG_PAIR_SEL, PG_PAIR_INS, v, id, "a pair", err);
}

/* The staging table, once per connection (it lives as long as the
 * session; its rows as long as the transaction). */
static int stage_ready(struct gt_db *db, struct gt_error *err)
{
    if (pg(db)->stage_made)
        return pg_exec(db, "TRUNCATE gt_stage", err);
    int rc = pg_exec(db, "CREATE TEMP TABLE IF NOT EXISTS gt_stage (ord integer NOT NULL,"
                         " pair bigint NOT NULL, ts bigint NOT NULL, seq bigint NOT NULL,"
                         " rtt_ms double precision) ON COMMIT DELETE ROWS;"
                         " TRUNCATE gt_stage", err);
    pg(db)->stage_made = rc == GT_OK;   /* until a rollback (pg_rollback) */
    return rc;
}

static int copy_text(struct pg_writer *w, const struct gt_sample_put *v, size_t n, size_t *len,
                     struct gt_error *err)
{
    size_t need = n * 96 + 1;
    if (need > w->copycap) {
        char *b = realloc(w->copybuf, need);
        if (!b)
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        w->copybuf = b, w->copycap = need;
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        char rtt[32];
        const char *r = pg_f64(rtt, sizeof rtt, v[i].rtt_ms);
        at += (size_t)snprintf(w->copybuf + at, w->copycap - at, "%zu\t%lld\t%lld\t%lld\t%s\n",
                               i, (long long)v[i].pair, (long long)v[i].ts,
                               (long long)v[i].seq, r ? r : "\\N");
    }
    *len = at;
    return GT_OK;
}

static int copy_in(struct gt_db *db, const char *data, size_t len, struct gt_error *err)
{
    PGconn *c = pg(db)->conn;
    PGresult *res = PQexec(c, "COPY gt_stage (ord, pair, ts, seq, rtt_ms) FROM STDIN");
    int rc = PQresultStatus(res) == PGRES_COPY_IN ? GT_OK
                                                   : pg_fail(db, err, "staging samples", res);
    PQclear(res);
    if (rc)
        return rc;
    if (PQputCopyData(c, data, (int)len) != 1 || PQputCopyEnd(c, NULL) != 1)
        return pg_fail(db, err, "staging samples", NULL);
    while ((res = PQgetResult(c))) {
        if (rc == GT_OK && PQresultStatus(res) != PGRES_COMMAND_OK)
            rc = pg_fail(db, err, "staging samples", res);
        PQclear(res);
    }
    return rc;
}

/* The weeks the batch falls in, each made a partition if it is new. */
static int partitions_for(struct gt_db *db, const struct gt_sample_put *v, size_t n,
                          struct gt_error *err)
{
    int64_t weeks[64];
    size_t nw = 0;
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        int64_t wk = pg_week_of(v[i].ts);
        bool seen = false;
        for (size_t j = 0; j < nw && !seen; j++)
            seen = weeks[j] == wk;
        if (seen)
            continue;
        if (nw == sizeof weeks / sizeof *weeks) {
            rc = pg_partitions_ensure(db, weeks, nw, err);
            nw = 0;
        }
        weeks[nw++] = wk;
    }
    return rc ? rc : pg_partitions_ensure(db, weeks, nw, err);
}

/* "{1,5,9}": the staged rows of the given order numbers */
static char *ord_array(const struct gt_sample_put *v, const int *ords, size_t n)
{
    (void)v;
    char *s = malloc(n * 12 + 3), *p = s;
    if (!s)
        return NULL;
    *p++ = '{';
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s%d", i ? "," : "", ords[i]);
    *p++ = '}';
    *p = '\0';
    return s;
}

/* The rows insert skipped: their stored values, then duplicate or
 * conflict (and replaced). */
static int settle_taken(struct gt_db *db, struct gt_sample_put *v, const int *ords, size_t n,
                        bool replace, struct gt_error *err)
{
    char *arr = ord_array(v, ords, n);
    if (!arr)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    const char *p[1] = {arr};
    PGresult *res;
    int rc = pg_run(db, PG_STAGE_STORED, p, NULL, NULL, false, &res, err);
    size_t conflicts = 0;
    for (int i = 0; rc == GT_OK && i < PQntuples(res); i++) {
        struct gt_sample_put *s = &v[pg_col_i64(res, i, 0)];
        double was = pg_col_f64(res, i, 1);
        bool same = isnan(s->rtt_ms) ? isnan(was) : s->rtt_ms == was;
        s->out = (struct gt_store_outcome){same ? GT_SAMPLE_DUPLICATE : GT_SAMPLE_CONFLICT, was};
        conflicts += !same;
    }
    PQclear(res);
    if (rc == GT_OK && replace && conflicts) {
        if ((rc = pg_run(db, PG_STAGE_REPLACE, p, NULL, NULL, false, &res, err)) == GT_OK)
            PQclear(res);
        for (size_t i = 0; rc == GT_OK && i < n; i++)
            if (v[ords[i]].out.what == GT_SAMPLE_CONFLICT)
                v[ords[i]].out.what = GT_SAMPLE_REPLACED;
    }
    free(arr);
    return rc;
}

int pg_put_samples(struct gt_db_writer *base, struct gt_sample_put *v, size_t n, bool replace,
                   struct gt_error *err)
{
    struct pg_writer *w = (struct pg_writer *)base;
    struct gt_db *db = base->db;
    size_t len = 0;
    int rc;
    if ((rc = partitions_for(db, v, n, err)) || (rc = stage_ready(db, err)) ||
        (rc = copy_text(w, v, n, &len, err)) || (rc = copy_in(db, w->copybuf, len, err)))
        return rc;
    for (size_t i = 0; i < n; i++)
        v[i].out = (struct gt_store_outcome){GT_SAMPLE_STORED, NAN};
    PGresult *res;
    if ((rc = pg_run(db, PG_STAGE_INSERT, NULL, NULL, NULL, false, &res, err)))
        return rc;
    size_t taken = (size_t)PQntuples(res);
    int *ords = taken ? malloc(taken * sizeof *ords) : NULL;
    if (taken && !ords)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < taken; i++)
        ords[i] = (int)pg_col_i64(res, (int)i, 0);
    PQclear(res);
    if (rc == GT_OK && taken)
        rc = settle_taken(db, v, ords, taken, replace, err);
    free(ords);
    return rc;
}

int pg_source_get(struct gt_db *db, const char *key, int64_t *id, int64_t *cursor,
                  bool *has_cursor, struct gt_error *err)
{
    const char *v[1] = {key};
    PGresult *res;
    int rc = pg_run(db, PG_SOURCE_GET, v, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    *id = 0;
    *has_cursor = false;
    if (PQntuples(res)) {
        *id = pg_col_i64(res, 0, 0);
        *has_cursor = !PQgetisnull(res, 0, 1);
        *cursor = *has_cursor ? pg_col_i64(res, 0, 1) : 0;
    }
    PQclear(res);
    return GT_OK;
}

int pg_source_advance(struct gt_db *db, const char *key, const char *format, bool has_ts,
                      int64_t max_ts, int64_t now, int64_t *id, struct gt_error *err)
{
    char ts[24], at[24];
    pg_i64(ts, sizeof ts, max_ts);
    pg_i64(at, sizeof at, now);
    const char *v[4] = {key, format, has_ts ? ts : NULL, at};
    PGresult *res;
    int rc = pg_run(db, PG_SOURCE_ADVANCE, v, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    *id = PQntuples(res) ? pg_col_i64(res, 0, 0) : 0;
    PQclear(res);
    return GT_OK;
}

int pg_log_run(struct gt_db *db, const struct gt_log_row *row, struct gt_error *err)
{
    char n[9][24];
    pg_i64(n[0], sizeof n[0], row->source);
    pg_i64(n[1], sizeof n[1], row->started);
    pg_i64(n[2], sizeof n[2], row->finished);
    pg_i64(n[3], sizeof n[3], row->read);
    pg_i64(n[4], sizeof n[4], row->stored);
    pg_i64(n[5], sizeof n[5], row->duplicates);
    pg_i64(n[6], sizeof n[6], row->rejected);
    pg_i64(n[7], sizeof n[7], row->skipped);
    pg_i64(n[8], sizeof n[8], row->conflicts);
    const char *v[13] = {row->source ? n[0] : NULL, row->format, row->input, n[1], n[2],
                         n[3], n[4], n[5], n[6], n[7], row->status, row->message, n[8]};
    PGresult *res;
    int rc = pg_run(db, PG_LOG_RUN, v, NULL, NULL, false, &res, err);
    PQclear(res);
    return rc;
}

int pg_sources(struct gt_db *db, gt_source_fn each, void *ctx, struct gt_error *err)
{
    PGresult *res;
    int rc = pg_query(db, "SELECT url, format, cursor_ts, updated_at FROM sources"
                          " ORDER BY url COLLATE \"C\"", &res, err);
    for (int i = 0; rc == GT_OK && i < PQntuples(res); i++) {
        struct gt_source_row s = {PQgetvalue(res, i, 0), PQgetvalue(res, i, 1),
                                  !PQgetisnull(res, i, 2), pg_col_i64(res, i, 2),
                                  pg_col_i64(res, i, 3)};
        rc = each(ctx, &s);
    }
    PQclear(res);
    return rc;
}
