/*
 * write.c - the SQLite backend's writes: site and pair ids, one sample
 * under the duplicate and conflict rules, sources' cursors and the
 * ingest log.  The generic writer (db/store.c) caches ids in front of
 * these, so SQLite sees a lookup only for the first sample of a pair.
 */
#include "sqlite.h"

#include <math.h>
#include <stdlib.h>

struct sq_writer {
    struct gt_db_writer base;
    sqlite3_stmt *site_sel, *site_ins, *pair_sel, *pair_ins, *sample_ins;
    sqlite3_stmt *sample_sel, *sample_upd;   /* a duplicate key's value; replace it */
};

int sq_writer_open(struct gt_db *db, struct gt_db_writer **out, struct gt_error *err)
{
    struct sq_writer *w = calloc(1, sizeof *w);
    if (!w)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    w->base.db = db;
    int rc;
    if ((rc = sq_prepare(db, "SELECT id FROM sites WHERE name = ?1", &w->site_sel, err)) ||
        (rc = sq_prepare(db, "INSERT INTO sites(name) VALUES (?1)", &w->site_ins, err)) ||
        (rc = sq_prepare(db, "SELECT id FROM pairs WHERE src = ?1 AND dst = ?2",
                         &w->pair_sel, err)) ||
        (rc = sq_prepare(db, "INSERT INTO pairs(src, dst) VALUES (?1, ?2)",
                         &w->pair_ins, err)) ||
        (rc = sq_prepare(db, "INSERT OR IGNORE INTO samples(pair, ts, seq, rtt_ms) "
                             "VALUES (?1, ?2, ?3, ?4)", &w->sample_ins, err)) ||
        (rc = sq_prepare(db, "SELECT rtt_ms FROM samples WHERE pair = ?1 AND ts = ?2 "
                             "AND seq = ?3", &w->sample_sel, err)) ||
        (rc = sq_prepare(db, "UPDATE samples SET rtt_ms = ?4 WHERE pair = ?1 AND ts = ?2 "
                             "AND seq = ?3", &w->sample_upd, err))) {
        sq_writer_free(&w->base);
        return rc;
    }
    *out = &w->base;
    return GT_OK;
}

void sq_writer_free(struct gt_db_writer *base)
{
    struct sq_writer *w = (struct sq_writer *)base;
    if (!w)
        return;
    sqlite3_finalize(w->site_sel);
    sqlite3_finalize(w->site_ins);
    sqlite3_finalize(w->pair_sel);
    sqlite3_finalize(w->pair_ins);
    sqlite3_finalize(w->sample_ins);
    sqlite3_finalize(w->sample_sel);
    sqlite3_finalize(w->sample_upd);
    free(w);
}

int sq_site_id(struct gt_db_writer *base, const char *p, size_t len, int64_t *id,
               struct gt_error *err)
{
    struct sq_writer *w = (struct sq_writer *)base;
    sqlite3_bind_text(w->site_sel, 1, p, (int)len, SQLITE_STATIC);
    int r = sqlite3_step(w->site_sel);
    if (r == SQLITE_ROW)
        *id = sqlite3_column_int64(w->site_sel, 0);
    sqlite3_reset(w->site_sel);
    if (r == SQLITE_ROW)
        return GT_OK;
    if (r != SQLITE_DONE)
        return sq_fail(base->db, err, "looking up a site");
    sqlite3_bind_text(w->site_ins, 1, p, (int)len, SQLITE_STATIC);
    r = sqlite3_step(w->site_ins);
    sqlite3_reset(w->site_ins);
    if (r != SQLITE_DONE)
        return sq_fail(base->db, err, "adding a site");
    *id = sqlite3_last_insert_rowid(sq(base->db)->h);
    return GT_OK;
}

int sq_pair_id(struct gt_db_writer *base, int64_t src, int64_t dst, int64_t *id,
               struct gt_error *err)
{
    struct sq_writer *w = (struct sq_writer *)base;
    sqlite3_bind_int64(w->pair_sel, 1, src);
    sqlite3_bind_int64(w->pair_sel, 2, dst);
    int r = sqlite3_step(w->pair_sel);
    if (r == SQLITE_ROW)
        *id = sqlite3_column_int64(w->pair_sel, 0);
    sqlite3_reset(w->pair_sel);
    if (r == SQLITE_ROW)
        return GT_OK;
    if (r != SQLITE_DONE)
        return sq_fail(base->db, err, "looking up a pair");
    sqlite3_bind_int64(w->pair_ins, 1, src);
    sqlite3_bind_int64(w->pair_ins, 2, dst);
    r = sqlite3_step(w->pair_ins);
    sqlite3_reset(w->pair_ins);
    if (r != SQLITE_DONE)
        return sq_fail(base->db, err, "adding a pair");
    *id = sqlite3_last_insert_rowid(sq(base->db)->h);
    return GT_OK;
}

static void bind_sample(sqlite3_stmt *st, int64_t pair, int64_t ts, int64_t seq, double rtt_ms)
{
    sqlite3_bind_int64(st, 1, pair);
    sqlite3_bind_int64(st, 2, ts);
    sqlite3_bind_int64(st, 3, seq);
    if (sqlite3_bind_parameter_count(st) < 4)
        return;
    if (isnan(rtt_ms))
        sqlite3_bind_null(st, 4);
    else
        sqlite3_bind_double(st, 4, rtt_ms);
}

/* The value stored under a key that is already taken (NAN = lost). */
static int stored_value(struct sq_writer *w, int64_t pair, int64_t ts, int64_t seq,
                        double *value, struct gt_error *err)
{
    sqlite3_stmt *st = w->sample_sel;
    bind_sample(st, pair, ts, seq, 0);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        *value = sqlite3_column_type(st, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 0);
    sqlite3_reset(st);
    return r == SQLITE_ROW ? GT_OK : sq_fail(w->base.db, err, "reading a stored sample");
}

static int put_one(struct gt_db_writer *base, int64_t pair, int64_t ts, int64_t seq,
                   double rtt_ms, bool replace, struct gt_store_outcome *out,
                   struct gt_error *err)
{
    struct sq_writer *w = (struct sq_writer *)base;
    sqlite3_stmt *st = w->sample_ins;
    bind_sample(st, pair, ts, seq, rtt_ms);
    int r = sqlite3_step(st);
    sqlite3_reset(st);
    if (r != SQLITE_DONE)
        return sq_fail(base->db, err, "storing a sample");
    if (sqlite3_changes(sq(base->db)->h) > 0) {
        out->what = GT_SAMPLE_STORED;
        return GT_OK;
    }
    int rc = stored_value(w, pair, ts, seq, &out->stored_rtt, err);
    if (rc)
        return rc;
    bool same = isnan(rtt_ms) ? isnan(out->stored_rtt) : rtt_ms == out->stored_rtt;
    out->what = same ? GT_SAMPLE_DUPLICATE : GT_SAMPLE_CONFLICT;
    if (same || !replace)
        return GT_OK;
    st = w->sample_upd;
    bind_sample(st, pair, ts, seq, rtt_ms);
    r = sqlite3_step(st);
    sqlite3_reset(st);
    if (r != SQLITE_DONE)
        return sq_fail(base->db, err, "replacing a stored sample");
    out->what = GT_SAMPLE_REPLACED;
    return GT_OK;
}

int sq_put_samples(struct gt_db_writer *w, struct gt_sample_put *v, size_t n, bool replace,
                   struct gt_error *err)
{
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i < n; i++)
        rc = put_one(w, v[i].pair, v[i].ts, v[i].seq, v[i].rtt_ms, replace, &v[i].out, err);
    return rc;
}

int sq_source_get(struct gt_db *db, const char *key, int64_t *id, int64_t *cursor,
                  bool *has_cursor, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "SELECT id, cursor_ts FROM sources WHERE url = ?1", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    *id = 0;
    *has_cursor = false;
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        *has_cursor = sqlite3_column_type(st, 1) != SQLITE_NULL;
        *cursor = sqlite3_column_int64(st, 1);
    } else if (r != SQLITE_DONE) {
        rc = sq_fail(db, err, "reading the source cursor");
    }
    sqlite3_finalize(st);
    return rc;
}

int sq_source_advance(struct gt_db *db, const char *key, const char *format, bool has_ts,
                      int64_t max_ts, int64_t now, int64_t ahead, int64_t *id,
                      struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db,
        "INSERT INTO sources(url, format, cursor_ts, updated_at) VALUES (?1, ?2, ?3, ?4) "
        "ON CONFLICT(url) DO UPDATE SET format = excluded.format, "
        "  updated_at = excluded.updated_at, cursor_ts = CASE "
        "    WHEN cursor_ts > ?5 THEN excluded.cursor_ts "   /* ahead of the clock: healed */
        "    WHEN excluded.cursor_ts IS NULL THEN cursor_ts "
        "    WHEN cursor_ts IS NULL THEN excluded.cursor_ts "
        "    ELSE max(cursor_ts, excluded.cursor_ts) END "
        "RETURNING id", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, format, -1, SQLITE_STATIC);
    if (has_ts)
        sqlite3_bind_int64(st, 3, max_ts);
    else
        sqlite3_bind_null(st, 3);
    sqlite3_bind_int64(st, 4, now);
    sqlite3_bind_int64(st, 5, ahead);
    if (sqlite3_step(st) == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    else
        rc = sq_fail(db, err, "updating the source cursor");
    sqlite3_finalize(st);
    return rc;
}

int sq_log_run(struct gt_db *db, const struct gt_log_row *row, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db,
        "INSERT INTO ingest_log(source, format, input, started_at, finished_at, rows_read,"
        " stored, duplicates, rejected, skipped, status, message, conflicts)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)", &st, err);
    if (rc)
        return rc;
    if (row->source)
        sqlite3_bind_int64(st, 1, row->source);
    sqlite3_bind_text(st, 2, row->format, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, row->input, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, row->started);
    sqlite3_bind_int64(st, 5, row->finished);
    sqlite3_bind_int64(st, 6, row->read);
    sqlite3_bind_int64(st, 7, row->stored);
    sqlite3_bind_int64(st, 8, row->duplicates);
    sqlite3_bind_int64(st, 9, row->rejected);
    sqlite3_bind_int64(st, 10, row->skipped);
    sqlite3_bind_text(st, 11, row->status, -1, SQLITE_STATIC);
    if (row->message)
        sqlite3_bind_text(st, 12, row->message, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 13, row->conflicts);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, "writing the ingest log");
    sqlite3_finalize(st);
    return rc;
}

int sq_sources(struct gt_db *db, gt_source_fn each, void *ctx, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "SELECT url, format, cursor_ts, updated_at FROM sources"
                            " ORDER BY url", &st, err);
    if (rc)
        return rc;
    int r = SQLITE_DONE;
    while (rc == GT_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        struct gt_source_row s = {
            (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
            sqlite3_column_type(st, 2) != SQLITE_NULL, sqlite3_column_int64(st, 2),
            sqlite3_column_int64(st, 3)};
        rc = each(ctx, &s);
    }
    if (rc == GT_OK && r != SQLITE_DONE)
        rc = sq_fail(db, err, "reading the sources");
    sqlite3_finalize(st);
    return rc;
}
