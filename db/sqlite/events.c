/*
 * events.c - the SQLite backend's event log (db/eventlog.h): the events
 * and event_marks tables.
 */
#include "sqlite.h"

#include <math.h>

static int step_done(struct gt_db *db, sqlite3_stmt *st, const char *what,
                     struct gt_error *err)
{
    int rc = sqlite3_step(st) == SQLITE_DONE ? GT_OK : sq_fail(db, err, what);
    sqlite3_finalize(st);
    return rc;
}

static void bind_i64_or_null(sqlite3_stmt *st, int i, int64_t v)
{
    if (v == INT64_MIN)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, v);
}

static void bind_f64_or_null(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

int sq_event_marks(struct gt_db *db, const char *src, const char *dst,
                   int (*each)(void *ctx, const struct gt_event_mark *m), void *ctx,
                   struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "SELECT p.id, a.name, b.name, m.redo_from, m.regime, m.fitted_at"
                            " FROM pairs p JOIN sites a ON a.id = p.src"
                            " JOIN sites b ON b.id = p.dst"
                            " LEFT JOIN event_marks m ON m.pair = p.id"
                            " WHERE (?1 IS NULL OR a.name = ?1) AND (?2 IS NULL OR b.name = ?2)"
                            " ORDER BY p.id", &st, err);
    if (rc)
        return rc;
    if (src)
        sqlite3_bind_text(st, 1, src, -1, SQLITE_STATIC);
    if (dst)
        sqlite3_bind_text(st, 2, dst, -1, SQLITE_STATIC);
    int r;
    while (rc == GT_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        struct gt_event_mark m = {
            .pair = sqlite3_column_int64(st, 0),
            .src = (const char *)sqlite3_column_text(st, 1),
            .dst = (const char *)sqlite3_column_text(st, 2),
            .scanned = sqlite3_column_type(st, 3) != SQLITE_NULL,
            .redo_from = sqlite3_column_int64(st, 3),
            .fitted = sqlite3_column_type(st, 4) != SQLITE_NULL,
            .regime = sqlite3_column_int(st, 4),
            .fitted_at = sqlite3_column_int64(st, 5),
        };
        rc = each(ctx, &m);
    }
    if (rc == GT_OK && r != SQLITE_DONE)
        rc = sq_fail(db, err, "reading the event marks");
    sqlite3_finalize(st);
    return rc;
}

static int insert_row(struct gt_db *db, int64_t pair, const struct gt_event_row *e,
                      bool replace, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_borrow(db, replace ? "INSERT OR REPLACE INTO events(pair, ts, kind, until, lost,"
                                     " before_ms, after_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
                                   : "INSERT OR IGNORE INTO events(pair, ts, kind, until, lost,"
                                     " before_ms, after_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                       &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, pair);
    sqlite3_bind_int64(st, 2, e->ts);
    sqlite3_bind_int(st, 3, e->kind);
    bind_i64_or_null(st, 4, e->until);
    sqlite3_bind_int64(st, 5, e->lost);
    bind_f64_or_null(st, 6, e->before);
    bind_f64_or_null(st, 7, e->after);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, "writing an event");
    sq_giveback(db, st);
    return rc;
}

int sq_events_replace(struct gt_db *db, int64_t pair, int64_t since,
                      const struct gt_event_row *rows, size_t n, int64_t redo_from,
                      struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_borrow(db, "DELETE FROM events WHERE pair = ?1 AND ts >= ?2 AND kind < ?3",
                       &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, pair);
    sqlite3_bind_int64(st, 2, since);
    sqlite3_bind_int(st, 3, GT_EVROW_FIT_KINDS);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, "replacing events");
    sq_giveback(db, st);
    for (size_t i = 0; rc == GT_OK && i < n; i++)
        rc = insert_row(db, pair, &rows[i], true, err);
    if (rc || (rc = sq_borrow(db, "INSERT INTO event_marks(pair, redo_from) VALUES (?1, ?2)"
                                  " ON CONFLICT (pair) DO UPDATE SET redo_from = excluded.redo_from",
                              &st, err)))
        return rc;
    sqlite3_bind_int64(st, 1, pair);
    sqlite3_bind_int64(st, 2, redo_from);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, "writing an event mark");
    sq_giveback(db, st);
    return rc;
}

int sq_event_fit(struct gt_db *db, int64_t pair, const struct gt_event_row *row, int regime,
                 int64_t fitted_at, struct gt_error *err)
{
    int rc = row ? insert_row(db, pair, row, false, err) : GT_OK;
    sqlite3_stmt *st;
    if (rc || (rc = sq_prepare(db, "INSERT INTO event_marks(pair, regime, fitted_at)"
                                   " VALUES (?1, ?2, ?3) ON CONFLICT (pair) DO UPDATE SET"
                                   " regime = excluded.regime, fitted_at = excluded.fitted_at",
                               &st, err)))
        return rc;
    sqlite3_bind_int64(st, 1, pair);
    sqlite3_bind_int(st, 2, regime);
    sqlite3_bind_int64(st, 3, fitted_at);
    return step_done(db, st, "writing a fit regime", err);
}

int sq_events_read(struct gt_db *db, const char *src, const char *dst, int64_t from,
                   int64_t to, int kind,
                   int (*each)(void *ctx, int64_t pair, const char *src, const char *dst,
                               const struct gt_event_row *row),
                   void *ctx, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "SELECT e.pair, a.name, b.name, e.ts, e.kind, e.until, e.lost,"
                            " e.before_ms, e.after_ms FROM events e"
                            " JOIN pairs p ON p.id = e.pair JOIN sites a ON a.id = p.src"
                            " JOIN sites b ON b.id = p.dst"
                            " WHERE e.ts >= ?3 AND e.ts < ?4"
                            " AND (?1 IS NULL OR a.name = ?1) AND (?2 IS NULL OR b.name = ?2)"
                            " AND (?5 < 0 OR e.kind = ?5)"
                            " ORDER BY e.ts, a.name, b.name, e.kind", &st, err);
    if (rc)
        return rc;
    if (src)
        sqlite3_bind_text(st, 1, src, -1, SQLITE_STATIC);
    if (dst)
        sqlite3_bind_text(st, 2, dst, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, from);
    sqlite3_bind_int64(st, 4, to);
    sqlite3_bind_int(st, 5, kind);
    int r;
    while (rc == GT_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        struct gt_event_row e = {
            .ts = sqlite3_column_int64(st, 3),
            .kind = sqlite3_column_int(st, 4),
            .until = sqlite3_column_type(st, 5) == SQLITE_NULL ? INT64_MIN
                                                               : sqlite3_column_int64(st, 5),
            .lost = (long)sqlite3_column_int64(st, 6),
            .before = sqlite3_column_type(st, 7) == SQLITE_NULL ? NAN
                                                                : sqlite3_column_double(st, 7),
            .after = sqlite3_column_type(st, 8) == SQLITE_NULL ? NAN
                                                               : sqlite3_column_double(st, 8),
        };
        rc = each(ctx, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
                  (const char *)sqlite3_column_text(st, 2), &e);
    }
    if (rc == GT_OK && r != SQLITE_DONE)
        rc = sq_fail(db, err, "reading events");
    sqlite3_finalize(st);
    return rc;
}

int sq_event_rewind(struct gt_db *db, int64_t src, int64_t dst, int64_t ts,
                    struct gt_error *err)
{
    sqlite3_stmt *st;
    if (src < 0) {
        int rc = sq_prepare(db, "UPDATE event_marks SET redo_from = NULL", &st, err);
        return rc ? rc : step_done(db, st, "rewinding the event marks", err);
    }
    int rc = sq_borrow(db, "UPDATE event_marks SET redo_from = ?3 - ?4 WHERE redo_from > ?3"
                           " AND pair = (SELECT id FROM pairs WHERE src = ?1 AND dst = ?2)",
                       &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, src);
    sqlite3_bind_int64(st, 2, dst);
    sqlite3_bind_int64(st, 3, ts);
    sqlite3_bind_int64(st, 4, GT_EVENTLOG_REWIND_S);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, "rewinding an event mark");
    sq_giveback(db, st);
    return rc;
}
