/*
 * read.c - the PostgreSQL backend's reads: sites, pairs, the samples in
 * key order (export and the pair summaries, streamed a row at a time so
 * that a large store is never held in memory), pruning by partition, and
 * the window read.
 */
#define _POSIX_C_SOURCE 200809L
#include "pg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int pg_sites(struct gt_db *db, struct gt_site_row **rows, size_t *n, struct gt_error *err)
{
    PGresult *res;
    int rc = pg_run(db, PG_SITES, NULL, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    size_t cnt = (size_t)PQntuples(res);
    struct gt_site_row *v = calloc(cnt ? cnt : 1, sizeof *v);
    if (!v)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < cnt; i++) {
        int r = (int)i;
        struct gt_site_row *row = &v[i];
        row->id = pg_col_i64(res, r, 0);
        row->name = pg_col_dup(res, r, 1);
        row->cluster = pg_col_dup(res, r, 2);
        row->domain = pg_col_dup(res, r, 3);
        row->has_coords = !PQgetisnull(res, r, 4) && !PQgetisnull(res, r, 5);
        row->latitude = row->has_coords ? pg_col_f64(res, r, 4) : 0;
        row->longitude = row->has_coords ? pg_col_f64(res, r, 5) : 0;
        row->pairs_out = (long)pg_col_i64(res, r, 6);
        row->pairs_in = (long)pg_col_i64(res, r, 7);
        if (!row->name)
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    PQclear(res);
    if (rc) {
        gt_sites_free(v, cnt);
        return rc;
    }
    *rows = v;
    *n = cnt;
    return GT_OK;
}

int pg_site_set_attrs(struct gt_db *db, const char *name, const char *cluster,
                      const char *domain, const double *lat, const double *lon,
                      struct gt_error *err)
{
    char a[32], b[32];
    const char *v[5] = {name, cluster, domain, lat ? pg_f64(a, sizeof a, *lat) : NULL,
                        lon ? pg_f64(b, sizeof b, *lon) : NULL};
    PGresult *res;
    int rc = pg_run(db, PG_SITE_ATTRS, v, NULL, NULL, false, &res, err);
    PQclear(res);
    return rc;
}

int pg_pair_count(struct gt_db *db, long *n, struct gt_error *err)
{
    PGresult *res;
    int rc = pg_run(db, PG_PAIR_COUNT, NULL, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    *n = (long)pg_col_i64(res, 0, 0);
    PQclear(res);
    return GT_OK;
}

int pg_pair_ids(struct gt_db *db, const char *src_name,
                int (*pair)(void *ctx, int64_t src, const char *src_name, int64_t dst,
                            const char *dst_name),
                void *ctx, struct gt_error *err)
{
    PGresult *res;
    const char *v[1] = {src_name};
    int rc = src_name ? pg_run(db, PG_PAIR_IDS_OF, v, NULL, NULL, false, &res, err)
                      : pg_run(db, PG_PAIR_IDS, NULL, NULL, NULL, false, &res, err);
    for (int i = 0; rc == GT_OK && i < PQntuples(res); i++)
        rc = pair(ctx, pg_col_i64(res, i, 0), PQgetvalue(res, i, 1), pg_col_i64(res, i, 2),
                  PQgetvalue(res, i, 3));
    PQclear(res);
    return rc;
}

int pg_newest_by_src(struct gt_db *db, struct gt_newest_row **rows, size_t *n,
                     struct gt_error *err)
{
    *rows = NULL;
    *n = 0;
    PGresult *res;
    int rc = pg_run(db, PG_NEWEST_BY_SRC, NULL, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    size_t cnt = (size_t)PQntuples(res);
    struct gt_newest_row *v = calloc(cnt ? cnt : 1, sizeof *v);
    if (!v)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < cnt; i++) {
        v[i].newest = pg_col_i64(res, (int)i, 1);
        if (!(v[i].src = strdup(PQgetvalue(res, (int)i, 0))))
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    PQclear(res);
    if (rc) {
        gt_newest_free(v, cnt);
        return rc;
    }
    *rows = v;
    *n = cnt;
    return GT_OK;
}

int pg_root_newest(struct gt_db *db, const char *name, int64_t *id, int64_t *partners,
                   int64_t *newest, struct gt_error *err)
{
    const char *v[1] = {name};
    PGresult *res;
    int rc = pg_run(db, PG_ROOT_NEWEST, v, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    if (PQntuples(res)) {
        *id = pg_col_i64(res, 0, 0);
        *newest = PQgetisnull(res, 0, 1) ? INT64_MIN : pg_col_i64(res, 0, 1);
        *partners = pg_col_i64(res, 0, 2);
    } else {
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "site %s is not in the store", name);
    }
    PQclear(res);
    return rc;
}

/* Runs statement id and calls row() for each row as it arrives (libpq's
 * single-row mode): a result is never held whole. */
static int stream(struct gt_db *db, enum pg_stmt id, const char *const *values,
                  int (*row)(void *ctx, const PGresult *res), void *ctx, struct gt_error *err)
{
    PGresult *res;
    char name[16];
    int rc = pg_prepared(db, id, name, err);
    if (rc)
        return rc;
    PGconn *c = pg(db)->conn;
    if (!PQsendQueryPrepared(c, name, pg_stmt_nparams(id), values, NULL, NULL, 0) ||
        !PQsetSingleRowMode(c))
        return pg_fail(db, err, "reading samples", NULL);
    while ((res = PQgetResult(c))) {
        ExecStatusType s = PQresultStatus(res);
        if (rc == GT_OK && s == PGRES_SINGLE_TUPLE)
            rc = row(ctx, res);
        else if (rc == GT_OK && s != PGRES_TUPLES_OK)
            rc = pg_fail(db, err, "reading samples", res);
        PQclear(res);
    }
    return rc;
}

struct export_run {
    int (*row)(void *ctx, int64_t ts, const char *src, const char *dst, int64_t seq,
               double rtt_ms);
    void *ctx;
};

static int export_row(void *ctx, const PGresult *res)
{
    struct export_run *e = ctx;
    return e->row(e->ctx, pg_col_i64(res, 0, 0), PQgetvalue(res, 0, 1), PQgetvalue(res, 0, 2),
                  pg_col_i64(res, 0, 3), pg_col_f64(res, 0, 4));
}

int pg_export(struct gt_db *db, const struct gt_export_filter *f,
              int (*row)(void *ctx, int64_t ts, const char *src, const char *dst,
                         int64_t seq, double rtt_ms),
              void *ctx, struct gt_error *err)
{
    char from[24], to[24];
    pg_i64(from, sizeof from, f->from);
    pg_i64(to, sizeof to, f->to);
    const char *v[4] = {f->src, f->dst, f->from_set ? from : NULL, f->to_set ? to : NULL};
    struct export_run e = {row, ctx};
    return stream(db, PG_EXPORT, v, export_row, &e, err);
}

struct range_run {
    int (*row)(void *ctx, int64_t ts, double rtt_ms);
    void *ctx;
};

static int range_row(void *ctx, const PGresult *res)
{
    struct range_run *r = ctx;
    return r->row(r->ctx, pg_col_i64(res, 0, 0), pg_col_f64(res, 0, 1));
}

int pg_pair_range(struct gt_db *db, int64_t pair, int64_t from, int64_t to,
                  int (*row)(void *ctx, int64_t ts, double rtt_ms), void *ctx,
                  struct gt_error *err)
{
    char p[24], f[24], t[24];
    pg_i64(p, sizeof p, pair);
    pg_i64(f, sizeof f, from);
    pg_i64(t, sizeof t, to);
    const char *v[3] = {p, f, t};
    struct range_run r = {row, ctx};
    return stream(db, PG_PAIR_RANGE, v, range_row, &r, err);
}

/* Partitions wholly before cutoff go whole; the one the cutoff falls in
 * loses its older rows.  Inside the caller's transaction: DROP waits for
 * the readers of those partitions. */
int pg_prune(struct gt_db *db, int64_t cutoff, bool dry_run, long long *removed,
             struct gt_error *err)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM samples WHERE ts < %lld",
             (long long)cutoff);
    PGresult *res;
    int rc = pg_query(db, sql, &res, err);
    if (rc)
        return rc;
    *removed = pg_col_i64(res, 0, 0);
    PQclear(res);
    if (dry_run)
        return GT_OK;
    /* the coming weeks' partitions, made ahead (before any DROP below:
       the side connection's ATTACH would wait for this transaction) */
    int64_t ahead[PG_PARTS_AHEAD + 1], now = pg_week_of((int64_t)time(NULL));
    for (int i = 0; i <= PG_PARTS_AHEAD; i++)
        ahead[i] = now + i;
    if ((rc = pg_partitions_ensure(db, ahead, PG_PARTS_AHEAD + 1, err)) || *removed == 0)
        return rc;
    if ((rc = pg_db_size(db, &pg(db)->size_before_prune, err)))
        return rc;
    /* the partitions wholly older than the cutoff, by their bounds */
    snprintf(sql, sizeof sql,
             "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
             " WHERE i.inhparent = 'samples'::regclass"
             " AND (regexp_match(pg_get_expr(c.relpartbound, c.oid),"
             " 'TO \\(''?(-?[0-9]+)''?\\)'))[1]::bigint <= %lld", (long long)cutoff);
    if ((rc = pg_query(db, sql, &res, err)))
        return rc;
    for (int i = 0; rc == GT_OK && i < PQntuples(res); i++) {
        char drop[160];
        snprintf(drop, sizeof drop, "DROP TABLE %s", PQgetvalue(res, i, 0));
        rc = pg_exec(db, drop, err);
    }
    PQclear(res);
    if (rc == GT_OK) {
        snprintf(sql, sizeof sql, "DELETE FROM samples WHERE ts < %lld", (long long)cutoff);
        rc = pg_exec(db, sql, err);
    }
    if (rc == GT_OK) {   /* the events go with their samples */
        snprintf(sql, sizeof sql, "DELETE FROM events WHERE ts < %lld", (long long)cutoff);
        rc = pg_exec(db, sql, err);
    }
    /* dropped partitions are made again if old samples come */
    pg(db)->nparts = 0;
    return rc;
}

/* The pair of src -> dst: GT_ENOTFOUND when there is none. */
static int pair_of(struct gt_db *db, const char *const *v, enum pg_stmt id, int64_t *pair,
                   struct gt_error *err)
{
    PGresult *res;
    int rc = pg_run(db, id, v, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    rc = PQntuples(res) ? GT_OK : GT_ENOTFOUND;
    *pair = rc ? 0 : pg_col_i64(res, 0, 0);
    PQclear(res);
    return rc;
}

/* One read of the window's rows, newest first, looking no further back
 * than from when bounded; *res holds them (caller clears). */
static int window_query(struct gt_db *db, int64_t pair, int64_t at, size_t limit,
                        const int64_t *from, PGresult **res, struct gt_error *err)
{
    char p[24], a[24], l[24], f[24];
    pg_i64(p, sizeof p, pair);
    pg_i64(a, sizeof a, at);
    pg_i64(l, sizeof l, (int64_t)limit);
    if (from)
        pg_i64(f, sizeof f, *from);
    const char *v[4] = {p, a, limit ? l : NULL, f};
    /* binary: a window is thousands of rows, their text parsed costs more
       than the rest of a first answer's reads */
    return pg_run(db, from ? PG_SERIES_RECENT : PG_SERIES, v, NULL, NULL, true, res, err);
}

/* The window's rows: the recent weeks first, all of the history only
 * when they hold fewer than the limit (a sparse or an old pair). */
static int window_result(struct gt_db *db, int64_t pair, int64_t at, size_t limit,
                         PGresult **res, struct gt_error *err)
{
    if (limit) {
        int64_t from = at - PG_RECENT_SECONDS;
        int rc = window_query(db, pair, at, limit, &from, res, err);
        if (rc || (size_t)PQntuples(*res) >= limit)
            return rc;
        PQclear(*res);
    }
    return window_query(db, pair, at, limit, NULL, res, err);
}

/* A window result's rows into ts/rtt, at most cap; how many. */
static size_t copy_rows(const PGresult *res, int64_t *ts, double *rtt, size_t cap)
{
    size_t cnt = (size_t)PQntuples(res);
    if (cnt > cap)
        cnt = cap;
    for (size_t i = 0; i < cnt; i++) {
        ts[i] = pg_bin_i64(res, (int)i, 0);
        rtt[i] = pg_bin_f64(res, (int)i, 1);
    }
    return cnt;
}

/* The window's rows, newest first, into ts/rtt (at most cap); *n rows. */
static int window_rows(struct gt_db *db, int64_t pair, int64_t at, size_t limit,
                       int64_t *ts, double *rtt, size_t cap, size_t *n, struct gt_error *err)
{
    PGresult *res;
    int rc = window_result(db, pair, at, limit, &res, err);
    if (rc)
        return rc;
    *n = copy_rows(res, ts, rtt, cap);
    PQclear(res);
    return GT_OK;
}

static int read_prior(struct gt_db *db, int64_t pair, const int64_t *ts, const double *rtt,
                      size_t n, struct gt_prior *prior, struct gt_error *err)
{
    memset(prior, 0, sizeof *prior);
    if (n == 0 || !isnan(rtt[0]))
        return GT_OK;
    char p[24], a[24];
    pg_i64(p, sizeof p, pair);
    pg_i64(a, sizeof a, ts[0]);
    const char *v[2] = {p, a};
    PGresult *res;
    int rc = pg_run(db, PG_PRIOR, v, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    if (PQntuples(res)) {
        prior->found = true;
        prior->ts = pg_col_i64(res, 0, 0);
        prior->rtt = pg_col_f64(res, 0, 1);
    }
    PQclear(res);
    return GT_OK;
}

int pg_series(struct gt_db *db, const char *src, const char *dst, int64_t at, size_t limit,
              int64_t **ts, double **rtt, size_t *n, struct gt_prior *prior,
              struct gt_error *err)
{
    *ts = NULL;
    *rtt = NULL;
    *n = 0;
    const char *v[2] = {src, dst};
    int64_t pair;
    int rc = pair_of(db, v, PG_PAIR_BY_NAMES, &pair, err);
    if (rc == GT_ENOTFOUND)
        return gt_error_set(err, GT_ENOTFOUND, NULL, "no samples for pair %s -> %s", src, dst);
    PGresult *res = NULL;
    if (rc || (rc = window_result(db, pair, at, limit, &res, err)))
        return rc;
    /* sized by the rows read: the limit may be far above a pair's history */
    size_t cnt = (size_t)PQntuples(res);
    *ts = malloc((cnt ? cnt : 1) * sizeof **ts);
    *rtt = malloc((cnt ? cnt : 1) * sizeof **rtt);
    if (!*ts || !*rtt)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    else
        *n = copy_rows(res, *ts, *rtt, cnt);
    PQclear(res);
    if (rc == GT_OK) {
        gt_series_reverse(*ts, *rtt, *n);   /* oldest first */
        if (prior)
            rc = read_prior(db, pair, *ts, *rtt, *n, prior, err);
    }
    if (rc) {
        free(*ts);
        free(*rtt);
        *ts = NULL, *rtt = NULL, *n = 0;
    }
    return rc;
}

int pg_reader_new(struct gt_db *db, struct gt_series_reader **out, struct gt_error *err)
{
    struct gt_series_reader *r = calloc(1, sizeof *r);
    if (!r)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    r->db = db;
    *out = r;
    return GT_OK;
}

void pg_reader_free(struct gt_series_reader *r)
{
    free(r);
}

int pg_reader_site(struct gt_series_reader *r, const char *name, int64_t *id,
                   struct gt_error *err)
{
    const char *v[1] = {name};
    return pair_of(r->db, v, PG_SITE_ID, id, err);
}

int pg_reader_read(struct gt_series_reader *r, int64_t src, int64_t dst, int64_t at,
                   size_t limit, int64_t *ts, double *rtt, size_t cap, size_t *n,
                   int64_t *newest, struct gt_prior *prior, struct gt_error *err)
{
    struct gt_db *db = r->db;
    *n = 0;
    char a[24], b[24];
    pg_i64(a, sizeof a, src);
    pg_i64(b, sizeof b, dst);
    const char *v[2] = {a, b};
    int64_t pair;
    int rc = pair_of(db, v, PG_PAIR_SEL, &pair, err);
    if (rc)
        return rc;
    size_t want = limit && limit < cap ? limit : cap;
    if ((rc = window_rows(db, pair, at, want, ts, rtt, want, n, err)))
        return rc;
    gt_series_reverse(ts, rtt, *n);   /* oldest first */
    if (prior && (rc = read_prior(db, pair, ts, rtt, *n, prior, err)))
        return rc;
    if (!newest)
        return GT_OK;
    char p[24];
    pg_i64(p, sizeof p, pair);
    const char *pv[1] = {p};
    PGresult *res;
    if ((rc = pg_run(db, PG_NEWEST, pv, NULL, NULL, false, &res, err)))
        return rc;
    *newest = PQgetisnull(res, 0, 0) ? INT64_MIN : pg_col_i64(res, 0, 0);
    PQclear(res);
    return GT_OK;
}
