/*
 * events.c - the PostgreSQL backend's event log (db/eventlog.h): the
 * events and event_marks tables.
 */
#include "pg.h"

#include <math.h>
#include <stdio.h>

static int run(struct gt_db *db, enum pg_stmt id, const char *const *v, PGresult **res,
               struct gt_error *err)
{
    PGresult *r = NULL;
    int rc = pg_run(db, id, v, NULL, NULL, false, &r, err);
    if (res && rc == GT_OK)
        *res = r;
    else
        PQclear(r);
    return rc;
}

int pg_event_marks(struct gt_db *db, const char *src, const char *dst,
                   int (*each)(void *ctx, const struct gt_event_mark *m), void *ctx,
                   struct gt_error *err)
{
    const char *v[2] = {src, dst};
    PGresult *res = NULL;
    int rc = run(db, PG_EVENT_MARKS, v, &res, err);
    for (int i = 0; rc == GT_OK && i < PQntuples(res); i++) {
        struct gt_event_mark m = {
            .pair = pg_col_i64(res, i, 0),
            .src = PQgetvalue(res, i, 1),
            .dst = PQgetvalue(res, i, 2),
            .scanned = !PQgetisnull(res, i, 3),
            .redo_from = PQgetisnull(res, i, 3) ? 0 : pg_col_i64(res, i, 3),
            .fitted = !PQgetisnull(res, i, 4),
            .regime = PQgetisnull(res, i, 4) ? 0 : (int)pg_col_i64(res, i, 4),
            .fitted_at = PQgetisnull(res, i, 5) ? 0 : pg_col_i64(res, i, 5),
        };
        rc = each(ctx, &m);
    }
    if (res)
        PQclear(res);
    return rc;
}

/* A row's seven parameters, as text into buf. */
static void row_params(char buf[7][32], int64_t pair, const struct gt_event_row *e,
                       const char *v[7])
{
    pg_i64(buf[0], 32, pair);
    pg_i64(buf[1], 32, e->ts);
    snprintf(buf[2], 32, "%d", e->kind);
    pg_i64(buf[3], 32, e->until);
    snprintf(buf[4], 32, "%ld", e->lost);
    v[0] = buf[0], v[1] = buf[1], v[2] = buf[2];
    v[3] = e->until == INT64_MIN ? NULL : buf[3];
    v[4] = buf[4];
    v[5] = pg_f64(buf[5], 32, e->before);
    v[6] = pg_f64(buf[6], 32, e->after);
}

static int put_row(struct gt_db *db, enum pg_stmt id, int64_t pair,
                   const struct gt_event_row *e, struct gt_error *err)
{
    char buf[7][32];
    const char *v[7];
    row_params(buf, pair, e, v);
    return run(db, id, v, NULL, err);
}

int pg_events_replace(struct gt_db *db, int64_t pair, int64_t since,
                      const struct gt_event_row *rows, size_t n, int64_t redo_from,
                      struct gt_error *err)
{
    char p[32], s[32], k[16], r[32];
    pg_i64(p, sizeof p, pair);
    pg_i64(s, sizeof s, since);
    snprintf(k, sizeof k, "%d", GT_EVROW_FIT_KINDS);
    pg_i64(r, sizeof r, redo_from);
    const char *del[3] = {p, s, k}, *mark[2] = {p, r};
    int rc = run(db, PG_EVENTS_DELETE, del, NULL, err);
    for (size_t i = 0; rc == GT_OK && i < n; i++)
        rc = put_row(db, PG_EVENT_PUT, pair, &rows[i], err);
    return rc ? rc : run(db, PG_MARK_REDO, mark, NULL, err);
}

int pg_event_fit(struct gt_db *db, int64_t pair, const struct gt_event_row *row, int regime,
                 int64_t fitted_at, struct gt_error *err)
{
    int rc = row ? put_row(db, PG_EVENT_ADD, pair, row, err) : GT_OK;
    char p[32], g[16], f[32];
    pg_i64(p, sizeof p, pair);
    snprintf(g, sizeof g, "%d", regime);
    pg_i64(f, sizeof f, fitted_at);
    const char *v[3] = {p, g, f};
    return rc ? rc : run(db, PG_MARK_FIT, v, NULL, err);
}

int pg_events_read(struct gt_db *db, const char *src, const char *dst, int64_t from,
                   int64_t to, int kind,
                   int (*each)(void *ctx, int64_t pair, const char *src, const char *dst,
                               const struct gt_event_row *row),
                   void *ctx, struct gt_error *err)
{
    char f[32], t[32], k[16];
    pg_i64(f, sizeof f, from);
    pg_i64(t, sizeof t, to);
    snprintf(k, sizeof k, "%d", kind);
    const char *v[5] = {src, dst, f, t, k};
    PGresult *res = NULL;
    int rc = run(db, PG_EVENTS_READ, v, &res, err);
    for (int i = 0; rc == GT_OK && i < PQntuples(res); i++) {
        struct gt_event_row e = {
            .ts = pg_col_i64(res, i, 3),
            .kind = (int)pg_col_i64(res, i, 4),
            .until = PQgetisnull(res, i, 5) ? INT64_MIN : pg_col_i64(res, i, 5),
            .lost = (long)pg_col_i64(res, i, 6),
            .before = pg_col_f64(res, i, 7),
            .after = pg_col_f64(res, i, 8),
        };
        rc = each(ctx, pg_col_i64(res, i, 0), PQgetvalue(res, i, 1), PQgetvalue(res, i, 2),
                  &e);
    }
    if (res)
        PQclear(res);
    return rc;
}

int pg_event_rewind(struct gt_db *db, int64_t src, int64_t dst, int64_t ts,
                    struct gt_error *err)
{
    if (src < 0)
        return pg_exec(db, "UPDATE event_marks SET redo_from = NULL", err);
    char s[32], d[32], t[32], r[32];
    pg_i64(s, sizeof s, src);
    pg_i64(d, sizeof d, dst);
    pg_i64(t, sizeof t, ts);
    pg_i64(r, sizeof r, GT_EVENTLOG_REWIND_S);
    const char *v[4] = {s, d, t, r};
    return run(db, PG_MARK_REWIND, v, NULL, err);
}
