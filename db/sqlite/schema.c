/*
 * schema.c - the forward migrations.  migrations[i] takes a database from
 * user_version i to i + 1.  Never edit a released step: add a new one.
 */
#include "sqlite.h"

#include <stddef.h>

static const char *const migrations[] = {
    /* 0 -> 1: the measurement data */
    "CREATE TABLE sites ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL UNIQUE,"
    "  cluster TEXT,"
    "  domain TEXT,"
    "  latitude REAL,"
    "  longitude REAL);"
    "CREATE TABLE pairs ("
    "  id INTEGER PRIMARY KEY,"
    "  src INTEGER NOT NULL REFERENCES sites(id),"
    "  dst INTEGER NOT NULL REFERENCES sites(id),"
    "  UNIQUE (src, dst));"
    "CREATE TABLE samples ("
    "  pair INTEGER NOT NULL REFERENCES pairs(id),"
    "  ts INTEGER NOT NULL,"
    "  seq INTEGER NOT NULL DEFAULT 0,"
    "  rtt_ms REAL CHECK (rtt_ms IS NULL OR rtt_ms >= 0),"
    "  PRIMARY KEY (pair, ts, seq)) WITHOUT ROWID;",

    /* 1 -> 2: where data came from, and what each ingest did */
    "CREATE TABLE sources ("
    "  id INTEGER PRIMARY KEY,"
    "  url TEXT NOT NULL UNIQUE,"
    "  format TEXT NOT NULL,"
    "  cursor_ts INTEGER,"
    "  updated_at INTEGER NOT NULL);"
    "CREATE TABLE ingest_log ("
    "  id INTEGER PRIMARY KEY,"
    "  source INTEGER REFERENCES sources(id),"
    "  format TEXT NOT NULL,"
    "  input TEXT NOT NULL,"
    "  started_at INTEGER NOT NULL,"
    "  finished_at INTEGER NOT NULL,"
    "  rows_read INTEGER NOT NULL,"
    "  stored INTEGER NOT NULL,"
    "  duplicates INTEGER NOT NULL,"
    "  rejected INTEGER NOT NULL,"
    "  skipped INTEGER NOT NULL,"
    "  status TEXT NOT NULL,"
    "  message TEXT);",

    /* 2 -> 3: fitted pair windows kept between runs (db/fitcache.h).  A
       rowid table: in a WITHOUT ROWID table the blob would be part of the
       key, and every seek would walk its overflow pages. */
    "CREATE TABLE fit_cache ("
    "  window INTEGER NOT NULL,"
    "  model TEXT NOT NULL,"
    "  src INTEGER NOT NULL REFERENCES sites(id),"
    "  fits BLOB NOT NULL,"
    "  UNIQUE (window, model, src));"
    "CREATE INDEX fit_cache_src ON fit_cache(src);",

    /* 3 -> 4: keys re-ingested with another value, counted apart from
       duplicates */
    "ALTER TABLE ingest_log ADD COLUMN conflicts INTEGER NOT NULL DEFAULT 0;",

    /* 4 -> 5: the event log (db/eventlog.h) */
    "CREATE TABLE events ("
    "  pair INTEGER NOT NULL REFERENCES pairs(id),"
    "  ts INTEGER NOT NULL,"
    "  kind INTEGER NOT NULL,"
    "  until INTEGER,"
    "  lost INTEGER NOT NULL DEFAULT 0,"
    "  before_ms REAL,"
    "  after_ms REAL,"
    "  PRIMARY KEY (pair, ts, kind)) WITHOUT ROWID;"
    "CREATE INDEX events_ts ON events(ts);"
    "CREATE TABLE event_marks ("
    "  pair INTEGER PRIMARY KEY REFERENCES pairs(id),"
    "  redo_from INTEGER,"
    "  regime INTEGER,"
    "  fitted_at INTEGER);",
};

int sq_schema_count(void)
{
    return (int)(sizeof migrations / sizeof migrations[0]);
}

const char *sq_schema_step(int from_version)
{
    if (from_version < 0 || from_version >= sq_schema_count())
        return NULL;
    return migrations[from_version];
}
