/*
 * stmts.c - the SQL of every statement the PostgreSQL backend prepares,
 * by id (pg.h).  Names sort with COLLATE "C", byte order, as SQLite's
 * BINARY does, so both backends list sites in the same order.
 */
#include "pg.h"

struct stmt {
    const char *sql;
    int nparams;
};

#define NAME_ORDER " COLLATE \"C\""

static const struct stmt stmts[PG_NSTMT] = {
    [PG_SITE_SEL] = {"SELECT id FROM sites WHERE name = $1", 1},
    [PG_SITE_INS] = {"INSERT INTO sites(name) VALUES ($1) ON CONFLICT (name) DO NOTHING"
                     " RETURNING id", 1},
    [PG_PAIR_SEL] = {"SELECT id FROM pairs WHERE src = $1 AND dst = $2", 2},
    [PG_PAIR_INS] = {"INSERT INTO pairs(src, dst) VALUES ($1, $2)"
                     " ON CONFLICT (src, dst) DO NOTHING RETURNING id", 2},
    /* does samples hold a row of any of the pairs in the batch's time
       range of that pair?  (one index probe a pair; partitions pruned as
       it runs) */
    [PG_STAGE_PROBE] = {"SELECT EXISTS (SELECT 1 FROM unnest($1::bigint[], $2::bigint[],"
                        " $3::bigint[]) t(pair, lo, hi) WHERE EXISTS (SELECT 1 FROM samples s"
                        " WHERE s.pair = t.pair AND s.ts >= t.lo AND s.ts <= t.hi))", 3},
    /* the staged batch into samples in key order (two writers of the
       same keys wait for each other in one order); the keys it stored
       come back, the others were taken */
    [PG_STAGE_INSERT] = {"INSERT INTO samples(pair, ts, seq, rtt_ms)"
                         " SELECT pair, ts, seq, rtt_ms FROM gt_stage ORDER BY pair, ts, seq"
                         " ON CONFLICT DO NOTHING RETURNING pair, ts, seq", 0},
    /* a statement of its own, so that it sees a concurrent writer's
       committed rows too */
    [PG_STAGE_STORED] = {"SELECT g.ord, s.rtt_ms FROM unnest($1::integer[]) t(ord)"
                         " JOIN gt_stage g ON g.ord = t.ord JOIN samples s"
                         " ON s.pair = g.pair AND s.ts = g.ts AND s.seq = g.seq", 1},
    [PG_STAGE_REPLACE] = {"UPDATE samples s SET rtt_ms = g.rtt_ms FROM unnest($1::integer[]) t(ord)"
                          " JOIN gt_stage g ON g.ord = t.ord WHERE s.pair = g.pair"
                          " AND s.ts = g.ts AND s.seq = g.seq", 1},
    [PG_SOURCE_GET] = {"SELECT id, cursor_ts FROM sources WHERE url = $1", 1},
    [PG_SOURCE_ADVANCE] = {"INSERT INTO sources(url, format, cursor_ts, updated_at)"
                           " VALUES ($1, $2, $3, $4) ON CONFLICT (url) DO UPDATE SET"
                           " format = excluded.format, updated_at = excluded.updated_at,"
                           " cursor_ts = CASE WHEN sources.cursor_ts > $5::bigint"
                           " THEN excluded.cursor_ts"   /* ahead of the clock: healed */
                           " WHEN excluded.cursor_ts IS NULL THEN sources.cursor_ts"
                           " WHEN sources.cursor_ts IS NULL THEN excluded.cursor_ts"
                           " ELSE greatest(sources.cursor_ts, excluded.cursor_ts) END"
                           " RETURNING id", 5},
    [PG_LOG_RUN] = {"INSERT INTO ingest_log(source, format, input, started_at, finished_at,"
                    " rows_read, stored, duplicates, rejected, skipped, status, message,"
                    " conflicts) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
                    " $13)", 13},
    [PG_SITES] = {"SELECT id, name, cluster, domain, latitude, longitude,"
                  " (SELECT count(*) FROM pairs WHERE src = sites.id),"
                  " (SELECT count(*) FROM pairs WHERE dst = sites.id)"
                  " FROM sites ORDER BY name" NAME_ORDER, 0},
    [PG_SITE_ATTRS] = {"INSERT INTO sites(name, cluster, domain, latitude, longitude)"
                       " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO UPDATE SET"
                       " cluster = coalesce(excluded.cluster, sites.cluster),"
                       " domain = coalesce(excluded.domain, sites.domain),"
                       " latitude = coalesce(excluded.latitude, sites.latitude),"
                       " longitude = coalesce(excluded.longitude, sites.longitude)", 5},
    [PG_PAIR_COUNT] = {"SELECT count(*) FROM pairs", 0},
    [PG_PAIR_IDS] = {"SELECT p.src, a.name, p.dst, b.name FROM pairs p"
                     " JOIN sites a ON a.id = p.src JOIN sites b ON b.id = p.dst"
                     " ORDER BY p.src, p.dst", 0},
    [PG_PAIR_IDS_OF] = {"SELECT p.src, a.name, p.dst, b.name FROM sites a"
                        " JOIN pairs p ON p.src = a.id JOIN sites b ON b.id = p.dst"
                        " WHERE a.name = $1 ORDER BY p.src, p.dst", 1},
    [PG_NEWEST_BY_SRC] = {"SELECT name, newest FROM (SELECT s.name,"
                          " max((SELECT max(ts) FROM samples WHERE pair = p.id)) AS newest"
                          " FROM pairs p JOIN sites s ON s.id = p.src GROUP BY p.src, s.name) x"
                          " WHERE newest IS NOT NULL ORDER BY name" NAME_ORDER, 0},
    [PG_ROOT_NEWEST] = {"SELECT s.id, max((SELECT max(ts) FROM samples WHERE pair = p.id)),"
                        " count(p.id) FROM sites s"
                        " LEFT JOIN pairs p ON p.src = s.id AND p.dst <> s.id"
                        " WHERE s.name = $1 GROUP BY s.id", 1},
    [PG_EXPORT] = {"SELECT s.ts, a.name, b.name, s.seq, s.rtt_ms"
                   " FROM samples s JOIN pairs p ON p.id = s.pair"
                   " JOIN sites a ON a.id = p.src JOIN sites b ON b.id = p.dst"
                   " WHERE ($1::text IS NULL OR a.name = $1)"
                   " AND ($2::text IS NULL OR b.name = $2)"
                   " AND ($3::bigint IS NULL OR s.ts >= $3)"
                   " AND ($4::bigint IS NULL OR s.ts < $4)"
                   " ORDER BY s.pair, s.ts, s.seq", 4},
    [PG_PAIR_BY_NAMES] = {"SELECT p.id FROM pairs p JOIN sites a ON a.id = p.src"
                          " JOIN sites b ON b.id = p.dst WHERE a.name = $1 AND b.name = $2",
                          2},
    /* the window read: newest first down the primary key's index, one
       partition after another, stopping at the limit (NULL: all) */
    [PG_SERIES] = {"SELECT ts, rtt_ms FROM samples WHERE pair = $1 AND ts <= $2"
                   " ORDER BY ts DESC, seq DESC LIMIT $3", 3},
    /* the same within (from, to]: partitions before from are pruned when
       the statement starts, so a long history costs the read nothing */
    [PG_SERIES_RECENT] = {"SELECT ts, rtt_ms FROM samples WHERE pair = $1 AND ts <= $2"
                          " AND ts > $4 ORDER BY ts DESC, seq DESC LIMIT $3", 4},
    [PG_PRIOR] = {"SELECT ts, rtt_ms FROM samples WHERE pair = $1 AND ts < $2"
                  " AND rtt_ms IS NOT NULL ORDER BY ts DESC, seq DESC LIMIT 1", 2},
    [PG_NEWEST] = {"SELECT max(ts) FROM samples WHERE pair = $1", 1},
    [PG_SITE_ID] = {"SELECT id FROM sites WHERE name = $1", 1},
    [PG_BLOB_GET] = {"SELECT fits FROM fit_cache WHERE fit_window = $1 AND model = $2"
                     " AND src = $3", 3},
    [PG_BLOB_PUT] = {"INSERT INTO fit_cache(fit_window, model, src, fits)"
                     " VALUES ($1, $2, $3, $4) ON CONFLICT (fit_window, model, src)"
                     " DO UPDATE SET fits = excluded.fits", 4},
    [PG_BLOB_DELETE] = {"DELETE FROM fit_cache WHERE fit_window = $1 AND model = $2"
                        " AND src = $3", 3},
    [PG_BLOB_SCAN] = {"SELECT fit_window, model, src, fits FROM fit_cache"
                      " WHERE $1::bigint < 0 OR src = $1", 1},
    [PG_BLOB_DELETE_SRC] = {"DELETE FROM fit_cache WHERE $1::bigint < 0 OR src = $1", 1},
    [PG_DATA_VERSION] = {"SELECT data_version FROM gt_meta", 0},
    [PG_BUMP_VERSION] = {"UPDATE gt_meta SET data_version = data_version + 1", 0},
    [PG_EVENT_MARKS] = {"SELECT p.id, a.name, b.name, m.redo_from, m.regime, m.fitted_at"
                        " FROM pairs p JOIN sites a ON a.id = p.src JOIN sites b ON b.id = p.dst"
                        " LEFT JOIN event_marks m ON m.pair = p.id"
                        " WHERE ($1::text IS NULL OR a.name = $1)"
                        " AND ($2::text IS NULL OR b.name = $2) ORDER BY p.id", 2},
    [PG_EVENTS_DELETE] = {"DELETE FROM events WHERE pair = $1 AND ts >= $2 AND kind < $3", 3},
    [PG_EVENT_PUT] = {"INSERT INTO events(pair, ts, kind, until, lost, before_ms, after_ms)"
                      " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (pair, ts, kind)"
                      " DO UPDATE SET until = excluded.until, lost = excluded.lost,"
                      " before_ms = excluded.before_ms, after_ms = excluded.after_ms", 7},
    [PG_EVENT_ADD] = {"INSERT INTO events(pair, ts, kind, until, lost, before_ms, after_ms)"
                      " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING", 7},
    [PG_MARK_REDO] = {"INSERT INTO event_marks(pair, redo_from) VALUES ($1, $2)"
                      " ON CONFLICT (pair) DO UPDATE SET redo_from = excluded.redo_from", 2},
    [PG_MARK_FIT] = {"INSERT INTO event_marks(pair, regime, fitted_at) VALUES ($1, $2, $3)"
                     " ON CONFLICT (pair) DO UPDATE SET regime = excluded.regime,"
                     " fitted_at = excluded.fitted_at", 3},
    [PG_MARK_REWIND] = {"UPDATE event_marks SET redo_from = $3::bigint - $4::bigint"
                        " WHERE redo_from > $3::bigint AND pair ="
                        " (SELECT id FROM pairs WHERE src = $1 AND dst = $2)", 4},
    [PG_PAIR_RANGE] = {"SELECT ts, rtt_ms FROM samples WHERE pair = $1 AND ts >= $2"
                       " AND ts < $3 ORDER BY ts, seq", 3},
    [PG_EVENTS_READ] = {"SELECT e.pair, a.name, b.name, e.ts, e.kind, e.until, e.lost,"
                        " e.before_ms, e.after_ms FROM events e"
                        " JOIN pairs p ON p.id = e.pair JOIN sites a ON a.id = p.src"
                        " JOIN sites b ON b.id = p.dst WHERE e.ts >= $3 AND e.ts < $4"
                        " AND ($1::text IS NULL OR a.name = $1)"
                        " AND ($2::text IS NULL OR b.name = $2)"
                        " AND ($5::integer < 0 OR e.kind = $5)"
                        " ORDER BY e.ts, a.name" NAME_ORDER ", b.name" NAME_ORDER ", e.kind", 5},
};

const char *pg_stmt_sql(enum pg_stmt id)
{
    return stmts[id].sql;
}

int pg_stmt_nparams(enum pg_stmt id)
{
    return stmts[id].nparams;
}
