#!/bin/sh
# The demo: a fresh database from the bundled Seattle data, then the
# pair summary (the 15 pairs with the worst p99, and the totals).
set -eu
BIN=${1:-build/gridtail}
DB=${GRIDTAIL_DEMO_DB:-demo/gridtail.db}
mkdir -p "$(dirname "$DB")"
rm -f "$DB" "$DB-wal" "$DB-shm"
echo "== gridtail init"
"$BIN" --db "$DB" init
echo "== gridtail ingest matrix (bundled Seattle data: 99 sites, 688 slices)"
"$BIN" --db "$DB" ingest matrix --unit s --zero-is-missing \
    --start 2026-11-01T00:00:00Z --interval 60 data/seattle.tar.xz
echo "== gridtail ingest again: nothing new is stored"
"$BIN" --db "$DB" ingest --quiet matrix --unit s --zero-is-missing \
    --start 2026-11-01T00:00:00Z --interval 60 data/seattle.tar.xz --json |
    grep -E '"(stored|duplicates)"'
echo "== gridtail pairs --sort p99 --reverse --limit 15"
"$BIN" --db "$DB" pairs --sort p99 --reverse --limit 15
echo "== gridtail pairs --src s001 --limit 5"
"$BIN" --db "$DB" pairs --src s001 --limit 5
echo
echo "database: $DB  (try: ./gridtail --db $DB pairs --help)"
