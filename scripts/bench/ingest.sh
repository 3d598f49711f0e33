#!/bin/sh
# Ingest benchmark: N amp-csv rows (default 5,000,000) over 100 sites
# (9,900 directed pairs, one sample a minute each, 0.5 % "loss"), loaded
# into a fresh store by `gridtail ingest amp-csv`, and in the same run by
# the sqlite3 shell into a second fresh store doing the same work:
#
#   - the same schema (made by `gridtail init`: sites, pairs, samples
#     WITHOUT ROWID keyed (pair, ts, seq), the same UNIQUE indexes, CHECK
#     and foreign keys, incremental auto-vacuum) and the same pragmas
#     (WAL, synchronous=NORMAL, foreign_keys=ON, 256 MiB cache, mmap);
#   - one transaction: `.import` of the file into an in-memory staging
#     table, then sites and pairs added by name with ON CONFLICT DO
#     NOTHING, then every row into samples through the two name lookups
#     and the pair lookup, "loss" as NULL, INSERT ... ON CONFLICT DO
#     NOTHING (a duplicate key is skipped, as ingest skips it).
#
# What only gridtail does: it validates every field (time, names, RTT
# plausibility), compares a duplicate key's value with the stored one
# (conflicts counted apart), and logs the input (sources, ingest_log).
# Both stores are then checked to hold the same samples (per pair by
# name: count, lost, sum of times and of RTTs).
# Each load is timed in wall and CPU (user + system) seconds
# (cputime.inc); on a shared machine the CPU time moves less than the wall time.
# RUNS=N (default 1) repeats the pair of loads, alternating, each on fresh
# stores, and prints each run's ratios.  CALLGRIND=1 runs each load once
# more under callgrind and prints the instructions of each (the steadiest
# comparison; about 50 times slower, so use a smaller ROWS).
#
# usage: scripts/bench/ingest.sh [ROWS]   (BIN=build/gridtail, RUNS=1, CALLGRIND=)
set -eu
ROWS=${1:-5000000}
RUNS=${RUNS:-1}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CSV=$WORK/rtt.csv
export GRIDTAIL_CONFIG=/dev/null

. "$ROOT/scripts/bench/cputime.inc"
. "$ROOT/scripts/bench/stores.inc"
# timed CMD...: runs CMD (under callgrind with CALLGRIND=1, as $WRAP);
# "wall user system" into $WORK/time
timed() {
    : > "$WORK/time"
    cputime "$WORK/time" ${WRAP:-} "$@"
}

echo "generating $ROWS amp-csv rows over 100 sites..."
amp_csv_rows "$ROWS" > "$CSV"
ls -l "$CSV" | awk '{ printf "input: %.1f MB\n", $5 / 1e6 }'

# gridtail's load
load_gridtail() {
    rm -f "$WORK"/g.db*
    "$BIN" --db "$WORK/g.db" init >/dev/null
    timed "$BIN" --db "$WORK/g.db" ingest --quiet amp-csv "$CSV"
}

# the sqlite3 shell's load of the same rows into the same schema
load_sqlite() {
    rm -f "$WORK"/s.db*
    "$BIN" --db "$WORK/s.db" init >/dev/null
    cat > "$WORK/load.sql" <<SQL
PRAGMA synchronous = NORMAL;
PRAGMA foreign_keys = ON;
PRAGMA mmap_size = 1073741824;
PRAGMA cache_size = -262144;
PRAGMA temp_store = MEMORY;
BEGIN IMMEDIATE;
CREATE TEMP TABLE raw (timestamp INTEGER, src TEXT, dst TEXT, testType TEXT,
                       testSubType TEXT, packet_size_bytes INTEGER, rtt_ms TEXT);
.import --csv --skip 1 --schema temp $CSV raw
INSERT INTO sites(name) SELECT src FROM raw UNION SELECT dst FROM raw
    WHERE true ON CONFLICT(name) DO NOTHING;
INSERT INTO pairs(src, dst)
    SELECT DISTINCT a.id, b.id FROM raw CROSS JOIN sites a CROSS JOIN sites b
    WHERE a.name = raw.src AND b.name = raw.dst
    ON CONFLICT(src, dst) DO NOTHING;
INSERT INTO samples(pair, ts, seq, rtt_ms)
    SELECT p.id, raw.timestamp, 0,
           CASE raw.rtt_ms WHEN 'loss' THEN NULL ELSE CAST(raw.rtt_ms AS REAL) END
    FROM raw CROSS JOIN sites a CROSS JOIN sites b CROSS JOIN pairs p
    WHERE a.name = raw.src AND b.name = raw.dst AND p.src = a.id AND p.dst = b.id
    ON CONFLICT(pair, ts, seq) DO NOTHING;
COMMIT;
SQL
    timed sqlite3 -bail -init "$WORK/load.sql" "$WORK/s.db" .quit >/dev/null
}

# per pair, by name: samples, lost, sum of times, sum of RTTs
digest() {
    sqlite3 "$1" "SELECT a.name, b.name, count(*), count(x.rtt_ms), sum(x.ts), total(x.rtt_ms)
        FROM samples x JOIN pairs p ON p.id = x.pair JOIN sites a ON a.id = p.src
        JOIN sites b ON b.id = p.dst GROUP BY x.pair ORDER BY 1, 2" | md5sum | cut -c1-32
}

echo "load before: $(uptime | sed 's/.*load average: //')  ($(nproc) cores)"
run=1
while [ "$run" -le "$RUNS" ]; do
    load_gridtail; g=$(cat "$WORK/time")
    load_sqlite; q=$(cat "$WORK/time")
    echo "$g $q" | awk -v rows="$ROWS" -v run="$run" '{
        printf "run %d: gridtail ingest amp-csv %.2f s (CPU %.2f s) = %.0f rows/s\n", run, $1, $2 + $3, rows / $1
        printf "       sqlite3, same work      %.2f s (CPU %.2f s) = %.0f rows/s\n", $4, $5 + $6, rows / $4
        printf "       ratio gridtail / sqlite3: %.2fx wall, %.2fx CPU\n", $4 / $1, ($5 + $6) / ($2 + $3) }'
    run=$((run + 1))
done
echo "load after:  $(uptime | sed 's/.*load average: //')"
stored=$(sqlite3 "$WORK/g.db" 'SELECT count(*) FROM samples')
imported=$(sqlite3 "$WORK/s.db" 'SELECT count(*) FROM samples')
if [ "$(digest "$WORK/g.db")" = "$(digest "$WORK/s.db")" ]; then same=same; else same=DIFFERENT; fi
echo "samples stored: gridtail $stored, sqlite3 $imported; per-pair counts and sums: $same"
[ "$same" = same ]
if [ -n "${CALLGRIND:-}" ]; then
    ir() { sed -n 's/^summary: //p' "$1"; }
    WRAP="valgrind -q --tool=callgrind --callgrind-out-file=$WORK/cg.g"; load_gridtail
    WRAP="valgrind -q --tool=callgrind --callgrind-out-file=$WORK/cg.s"; load_sqlite
    echo "$(ir "$WORK/cg.g") $(ir "$WORK/cg.s")" | awk '{
        printf "instructions (callgrind): gridtail %.0f, sqlite3 %.0f: ratio %.2fx\n", $1, $2, $2 / $1 }'
fi
