-- schema-v1.sql - a version-1 gridtail store, as gridtail wrote it at
-- commit 31bb31843010879a0d8db46003aa1f3ab022b4d7 ("Spine: build, SQLite
-- store with migrations, five collectors, ingest pipeline, CLI"): the
-- CREATE statements are db/schema.c's migration 0 -> 1 of that commit,
-- one C string literal a line, unchanged; db/db.c's gt_db_migrate_to then
-- set user_version = 1, and apply_pragmas had put the file in WAL mode.
-- tests/unit/test_db.c builds a store from this file with sqlite3 alone,
-- puts rows in it, and checks that today's gridtail upgrades it and keeps
-- them.  Never edit: this is what the oldest stores in use look like.
PRAGMA journal_mode = WAL;
CREATE TABLE sites (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  cluster TEXT,
  domain TEXT,
  latitude REAL,
  longitude REAL);
CREATE TABLE pairs (
  id INTEGER PRIMARY KEY,
  src INTEGER NOT NULL REFERENCES sites(id),
  dst INTEGER NOT NULL REFERENCES sites(id),
  UNIQUE (src, dst));
CREATE TABLE samples (
  pair INTEGER NOT NULL REFERENCES pairs(id),
  ts INTEGER NOT NULL,
  seq INTEGER NOT NULL DEFAULT 0,
  rtt_ms REAL CHECK (rtt_ms IS NULL OR rtt_ms >= 0),
  PRIMARY KEY (pair, ts, seq)) WITHOUT ROWID;
PRAGMA user_version = 1;
