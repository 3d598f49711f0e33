/*
 * read.c - the SQLite backend's reads: sites, pairs, the samples in key
 * order (export and the pair summaries), pruning, and the window read
 * ("the last M samples of a pair before t", newest first down the primary
 * key's index, with the valid sample before a window that starts lost).
 */
#define _POSIX_C_SOURCE 200809L
#include "sqlite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sq_sites(struct gt_db *db, struct gt_site_row **rows, size_t *n,
                   struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db,
        "SELECT id, name, cluster, domain, latitude, longitude,"
        " (SELECT count(*) FROM pairs WHERE src = sites.id),"
        " (SELECT count(*) FROM pairs WHERE dst = sites.id)"
        " FROM sites ORDER BY name", &st, err);
    if (rc)
        return rc;
    struct gt_site_row *v = NULL;
    size_t cnt = 0, cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (cnt == cap) {
            cap = cap ? cap * 2 : 64;
            struct gt_site_row *nv = realloc(v, cap * sizeof *nv);
            if (!nv) {
                rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
                break;
            }
            v = nv;
        }
        struct gt_site_row *row = &v[cnt++];
        memset(row, 0, sizeof *row);
        row->id = sqlite3_column_int64(st, 0);
        row->name = sq_dup_col(st, 1);
        row->cluster = sq_dup_col(st, 2);
        row->domain = sq_dup_col(st, 3);
        row->has_coords = sqlite3_column_type(st, 4) != SQLITE_NULL &&
                          sqlite3_column_type(st, 5) != SQLITE_NULL;
        row->latitude = sqlite3_column_double(st, 4);
        row->longitude = sqlite3_column_double(st, 5);
        row->pairs_out = sqlite3_column_int(st, 6);
        row->pairs_in = sqlite3_column_int(st, 7);
        if (!row->name)
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    if (rc == GT_OK && r != SQLITE_DONE)
        rc = sq_fail(db, err, "listing sites");
    sqlite3_finalize(st);
    if (rc) {
        gt_sites_free(v, cnt);
        return rc;
    }
    *rows = v;
    *n = cnt;
    return GT_OK;
}

int sq_site_set_attrs(struct gt_db *db, const char *name, const char *cluster,
                      const char *domain, const double *lat, const double *lon,
                      struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db,
        "INSERT INTO sites(name, cluster, domain, latitude, longitude)"
        " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(name) DO UPDATE SET"
        " cluster = coalesce(excluded.cluster, cluster),"
        " domain = coalesce(excluded.domain, domain),"
        " latitude = coalesce(excluded.latitude, latitude),"
        " longitude = coalesce(excluded.longitude, longitude)", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (cluster)
        sqlite3_bind_text(st, 2, cluster, -1, SQLITE_STATIC);
    if (domain)
        sqlite3_bind_text(st, 3, domain, -1, SQLITE_STATIC);
    if (lat)
        sqlite3_bind_double(st, 4, *lat);
    if (lon)
        sqlite3_bind_double(st, 5, *lon);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, "setting site attributes");
    sqlite3_finalize(st);
    return rc;
}

int sq_export(struct gt_db *db, const struct gt_export_filter *f,
                    int (*row)(void *ctx, int64_t ts, const char *src, const char *dst,
                               int64_t seq, double rtt_ms),
                    void *ctx, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db,
        "SELECT s.ts, a.name, b.name, s.seq, s.rtt_ms"
        " FROM samples s JOIN pairs p ON p.id = s.pair"
        " JOIN sites a ON a.id = p.src JOIN sites b ON b.id = p.dst"
        " WHERE (?1 IS NULL OR a.name = ?1) AND (?2 IS NULL OR b.name = ?2)"
        " AND (?3 IS NULL OR s.ts >= ?3) AND (?4 IS NULL OR s.ts < ?4)"
        " ORDER BY s.pair, s.ts, s.seq", &st, err);
    if (rc)
        return rc;
    if (f->src)
        sqlite3_bind_text(st, 1, f->src, -1, SQLITE_STATIC);
    if (f->dst)
        sqlite3_bind_text(st, 2, f->dst, -1, SQLITE_STATIC);
    if (f->from_set)
        sqlite3_bind_int64(st, 3, f->from);
    if (f->to_set)
        sqlite3_bind_int64(st, 4, f->to);
    int r;
    while (rc == GT_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        double rtt = sqlite3_column_type(st, 4) == SQLITE_NULL
                         ? NAN : sqlite3_column_double(st, 4);
        rc = row(ctx, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
                 (const char *)sqlite3_column_text(st, 2), sqlite3_column_int64(st, 3), rtt);
    }
    if (rc == GT_OK && r != SQLITE_DONE)
        rc = sq_fail(db, err, "exporting samples");
    sqlite3_finalize(st);
    return rc;
}

int sq_pair_range(struct gt_db *db, int64_t pair, int64_t from, int64_t to,
                  int (*row)(void *ctx, int64_t ts, double rtt_ms), void *ctx,
                  struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_borrow(db, "SELECT ts, rtt_ms FROM samples WHERE pair = ?1 AND ts >= ?2"
                           " AND ts < ?3 ORDER BY ts, seq", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, pair);
    sqlite3_bind_int64(st, 2, from);
    sqlite3_bind_int64(st, 3, to);
    int r;
    while (rc == GT_OK && (r = sqlite3_step(st)) == SQLITE_ROW)
        rc = row(ctx, sqlite3_column_int64(st, 0),
                 sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 1));
    if (rc == GT_OK && r != SQLITE_DONE)
        rc = sq_fail(db, err, "reading a pair's samples");
    sq_giveback(db, st);
    return rc;
}

int sq_prune(struct gt_db *db, int64_t cutoff, bool dry_run, long long *removed,
             struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, dry_run ? "SELECT count(*) FROM samples WHERE ts < ?1"
                                    : "DELETE FROM samples WHERE ts < ?1", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, cutoff);
    int r = sqlite3_step(st);
    if (dry_run && r == SQLITE_ROW)
        *removed = sqlite3_column_int64(st, 0);
    else if (!dry_run && r == SQLITE_DONE)
        *removed = sqlite3_changes64(sq(db)->h);
    else
        rc = sq_fail(db, err, "pruning samples");
    sqlite3_finalize(st);
    if (rc || dry_run || (rc = sq_prepare(db, "DELETE FROM events WHERE ts < ?1", &st, err)))
        return rc;
    sqlite3_bind_int64(st, 1, cutoff);   /* the events go with their samples */
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sq_fail(db, err, "pruning events");
    sqlite3_finalize(st);
    return rc;
}

#define PRIOR_SQL "SELECT ts, rtt_ms FROM samples WHERE pair = ?1 AND ts < ?2" \
                  " AND rtt_ms IS NOT NULL ORDER BY ts DESC, seq DESC LIMIT 1"

/* st (PRIOR_SQL) for the pair's window ts[0..n): the prior when the
 * window starts with a lost sample. */
static int read_prior(struct gt_db *db, sqlite3_stmt *st, int64_t pair, const int64_t *ts,
                      const double *rtt, size_t n, struct gt_prior *prior,
                      struct gt_error *err)
{
    memset(prior, 0, sizeof *prior);
    if (n == 0 || !isnan(rtt[0]))
        return GT_OK;
    sqlite3_bind_int64(st, 1, pair);
    sqlite3_bind_int64(st, 2, ts[0]);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        prior->found = true;
        prior->ts = sqlite3_column_int64(st, 0);
        prior->rtt = sqlite3_column_double(st, 1);
    }
    sqlite3_reset(st);
    return s == SQLITE_ROW || s == SQLITE_DONE ? GT_OK
                                               : sq_fail(db, err, "reading the prior sample");
}

int sq_series(struct gt_db *db, const char *src, const char *dst, int64_t at,
                    size_t limit, int64_t **ts, double **rtt, size_t *n,
                    struct gt_prior *prior, struct gt_error *err)
{
    *ts = NULL;
    *rtt = NULL;
    *n = 0;
    sqlite3_stmt *st;
    /* (the connection's kept statements: a replay reads a series per
       partner and root, thousands in a place over a big grid) */
    int rc = sq_borrow(db,
        "SELECT p.id FROM pairs p JOIN sites a ON a.id = p.src JOIN sites b ON b.id = p.dst"
        " WHERE a.name = ?1 AND b.name = ?2", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, src, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, dst, -1, SQLITE_STATIC);
    int r = sqlite3_step(st);
    int64_t pair = r == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sq_giveback(db, st);
    if (r != SQLITE_ROW)
        return r == SQLITE_DONE ? gt_error_set(err, GT_ENOTFOUND, NULL, "no samples for pair "
                                               "%s -> %s", src, dst)
                                : sq_fail(db, err, "looking up a pair");
    if ((rc = sq_borrow(db, "SELECT ts, rtt_ms FROM samples WHERE pair = ?1 AND ts <= ?2"
                               " ORDER BY ts DESC, seq DESC LIMIT ?3", &st, err)))
        return rc;
    sqlite3_bind_int64(st, 1, pair);
    sqlite3_bind_int64(st, 2, at);
    sqlite3_bind_int64(st, 3, limit ? (sqlite3_int64)limit : -1);
    /* room for the limit at once (up to 64 Ki): a replay asks a few
       thousand, which doubling from 256 copied four times */
    size_t cap = 0, cnt = 0, first = limit && limit <= 65536 ? limit : 256;
    while (rc == GT_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        if (cnt == cap) {
            cap = cap ? cap * 2 : first;
            int64_t *t2 = realloc(*ts, cap * sizeof *t2);
            double *r2 = t2 ? realloc(*rtt, cap * sizeof *r2) : NULL;
            if (t2)
                *ts = t2;
            if (!t2 || !r2) {
                rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
                break;
            }
            *rtt = r2;
        }
        (*ts)[cnt] = sqlite3_column_int64(st, 0);
        (*rtt)[cnt++] = sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN
                                                                  : sqlite3_column_double(st, 1);
    }
    if (rc == GT_OK && r != SQLITE_DONE)
        rc = sq_fail(db, err, "reading samples");
    sq_giveback(db, st);
    if (rc) {
        free(*ts);
        free(*rtt);
        *ts = NULL;
        *rtt = NULL;
        return rc;
    }
    gt_series_reverse(*ts, *rtt, cnt);   /* oldest first */
    *n = cnt;
    if (!prior)
        return GT_OK;
    if ((rc = sq_borrow(db, PRIOR_SQL, &st, err)))
        return rc;
    rc = read_prior(db, st, pair, *ts, *rtt, cnt, prior, err);
    sq_giveback(db, st);
    return rc;
}

int sq_newest_by_src(struct gt_db *db, struct gt_newest_row **rows, size_t *n,
                           struct gt_error *err)
{
    sqlite3_stmt *st;
    *rows = NULL;
    *n = 0;
    int rc = sq_prepare(db, "SELECT s.name, max((SELECT max(ts) FROM samples"
                               " WHERE pair = p.id)) AS newest FROM pairs p"
                               " JOIN sites s ON s.id = p.src GROUP BY p.src"
                               " HAVING newest IS NOT NULL ORDER BY s.name", &st, err);
    if (rc)
        return rc;
    size_t cap = 0;
    int r;
    while (rc == GT_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t c = cap ? 2 * cap : 64;
            struct gt_newest_row *g = realloc(*rows, c * sizeof *g);
            if (!g) {
                rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
                break;
            }
            *rows = g, cap = c;
        }
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (!((*rows)[*n].src = strdup(name ? name : ""))) {
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
            break;
        }
        (*rows)[(*n)++].newest = sqlite3_column_int64(st, 1);
    }
    if (rc == GT_OK && r != SQLITE_DONE)
        rc = sq_fail(db, err, "reading the newest samples");
    sqlite3_finalize(st);
    if (rc) {
        gt_newest_free(*rows, *n);
        *rows = NULL, *n = 0;
    }
    return rc;
}

int sq_root_newest(struct gt_db *db, const char *name, int64_t *id, int64_t *partners,
                         int64_t *newest, struct gt_error *err)
{
    sqlite3_stmt *st;
    /* (kept: every calibrated answer asks it of each root) */
    int rc = sq_borrow(db, "SELECT s.id, max((SELECT max(ts) FROM samples WHERE pair = p.id)),"
                              " count(p.id)"
                              " FROM sites s LEFT JOIN pairs p ON p.src = s.id AND p.dst <> s.id"
                              " WHERE s.name = ?1 GROUP BY s.id", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        *newest = sqlite3_column_type(st, 1) == SQLITE_NULL ? INT64_MIN
                                                            : sqlite3_column_int64(st, 1);
        *partners = sqlite3_column_int64(st, 2);
    } else if (r == SQLITE_DONE) {
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "site %s is not in the store", name);
    } else {
        rc = sq_fail(db, err, "reading a site's newest sample");
    }
    sq_giveback(db, st);
    return rc;
}

int sq_pair_count(struct gt_db *db, long *n, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(db, "SELECT count(*) FROM pairs", &st, err);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *n = (long)sqlite3_column_int64(st, 0);
    else
        rc = sq_fail(db, err, "counting pairs");
    sqlite3_finalize(st);
    return rc;
}

int sq_pair_ids(struct gt_db *db, const char *src_name,
                      int (*pair)(void *ctx, int64_t src, const char *src_name, int64_t dst,
                                  const char *dst_name),
                      void *ctx, struct gt_error *err)
{
    sqlite3_stmt *st;
    int rc = sq_borrow(db, src_name ? "SELECT p.src, a.name, p.dst, b.name FROM sites a"
                                       " JOIN pairs p ON p.src = a.id JOIN sites b ON b.id = p.dst"
                                       " WHERE a.name = ?1 ORDER BY p.src, p.dst"
                                     : "SELECT p.src, a.name, p.dst, b.name FROM pairs p"
                                       " JOIN sites a ON a.id = p.src JOIN sites b ON b.id = p.dst"
                                       " ORDER BY p.src, p.dst", &st, err);
    if (rc)
        return rc;
    if (src_name)
        sqlite3_bind_text(st, 1, src_name, -1, SQLITE_STATIC);
    int r;
    while (rc == GT_OK && (r = sqlite3_step(st)) == SQLITE_ROW)
        rc = pair(ctx, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
                  sqlite3_column_int64(st, 2), (const char *)sqlite3_column_text(st, 3));
    if (rc == GT_OK && r != SQLITE_DONE)
        rc = sq_fail(db, err, "listing pairs");
    sq_giveback(db, st);
    return rc;
}

struct sq_reader {
    struct gt_series_reader base;
    struct gt_db *db;
    sqlite3_stmt *site, *pair, *rows, *newest, *prior;
};

int sq_reader_new(struct gt_db *db, struct gt_series_reader **out, struct gt_error *err)
{
    struct sq_reader *r = calloc(1, sizeof *r);
    if (!r)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    r->base.db = r->db = db;
    int rc;
    if ((rc = sq_borrow(db, "SELECT id FROM sites WHERE name = ?1", &r->site, err)) ||
        (rc = sq_borrow(db, "SELECT id FROM pairs WHERE src = ?1 AND dst = ?2", &r->pair,
                           err)) ||
        (rc = sq_borrow(db, "SELECT ts, rtt_ms FROM samples WHERE pair = ?1 AND ts <= ?2"
                               " ORDER BY ts DESC, seq DESC LIMIT ?3", &r->rows, err)) ||
        (rc = sq_borrow(db, "SELECT max(ts) FROM samples WHERE pair = ?1", &r->newest,
                           err)) ||
        (rc = sq_borrow(db, PRIOR_SQL, &r->prior, err))) {
        sq_reader_free(&r->base);
        return rc;
    }
    *out = &r->base;
    return GT_OK;
}

void sq_reader_free(struct gt_series_reader *base)
{
    struct sq_reader *r = (struct sq_reader *)base;
    if (!r)
        return;
    sq_giveback(r->db, r->site);
    sq_giveback(r->db, r->pair);
    sq_giveback(r->db, r->rows);
    sq_giveback(r->db, r->newest);
    sq_giveback(r->db, r->prior);
    free(r);
}

int sq_reader_site(struct gt_series_reader *base, const char *name, int64_t *id,
                   struct gt_error *err)
{
    struct sq_reader *r = (struct sq_reader *)base;
    sqlite3_bind_text(r->site, 1, name, -1, SQLITE_STATIC);
    int s = sqlite3_step(r->site);
    *id = s == SQLITE_ROW ? sqlite3_column_int64(r->site, 0) : 0;
    sqlite3_reset(r->site);
    if (s == SQLITE_DONE)
        return GT_ENOTFOUND;
    return s == SQLITE_ROW ? GT_OK : sq_fail(r->db, err, "looking up a site");
}

int sq_reader_read(struct gt_series_reader *base, int64_t src, int64_t dst, int64_t at,
                   size_t limit, int64_t *ts, double *rtt, size_t cap, size_t *n,
                   int64_t *newest, struct gt_prior *prior, struct gt_error *err)
{
    struct sq_reader *r = (struct sq_reader *)base;
    *n = 0;
    sqlite3_bind_int64(r->pair, 1, src);
    sqlite3_bind_int64(r->pair, 2, dst);
    int s = sqlite3_step(r->pair);
    int64_t pair = s == SQLITE_ROW ? sqlite3_column_int64(r->pair, 0) : 0;
    sqlite3_reset(r->pair);
    if (s == SQLITE_DONE)
        return GT_ENOTFOUND;
    if (s != SQLITE_ROW)
        return sq_fail(r->db, err, "looking up a pair");
    size_t want = limit && limit < cap ? limit : cap;
    sqlite3_bind_int64(r->rows, 1, pair);
    sqlite3_bind_int64(r->rows, 2, at);
    sqlite3_bind_int64(r->rows, 3, (sqlite3_int64)want);
    size_t cnt = 0;
    while ((s = sqlite3_step(r->rows)) == SQLITE_ROW && cnt < want) {
        ts[cnt] = sqlite3_column_int64(r->rows, 0);
        rtt[cnt++] = sqlite3_column_type(r->rows, 1) == SQLITE_NULL
                         ? NAN : sqlite3_column_double(r->rows, 1);
    }
    sqlite3_reset(r->rows);
    if (s != SQLITE_DONE && s != SQLITE_ROW)
        return sq_fail(r->db, err, "reading samples");
    gt_series_reverse(ts, rtt, cnt);   /* oldest first */
    *n = cnt;
    if (prior && (s = read_prior(r->db, r->prior, pair, ts, rtt, cnt, prior, err)) != GT_OK)
        return s;
    if (!newest)
        return GT_OK;
    sqlite3_bind_int64(r->newest, 1, pair);
    s = sqlite3_step(r->newest);
    *newest = s == SQLITE_ROW && sqlite3_column_type(r->newest, 0) != SQLITE_NULL
                  ? sqlite3_column_int64(r->newest, 0) : INT64_MIN;
    sqlite3_reset(r->newest);
    return s == SQLITE_ROW ? GT_OK : sq_fail(r->db, err, "reading samples");
}
