#!/bin/sh
# Ingest benchmark: N amp-csv rows (default 5,000,000) over 100 sites
# (9,900 directed pairs, one sample a minute each), loaded into a fresh
# database by `gridtail ingest amp-csv`, and in the same run by the sqlite3
# shell's own `.import` into a table with the same key (src, dst,
# timestamp), WITHOUT ROWID, same journal mode, synchronous level and
# cache size.  Prints both rates and the ratio gridtail / sqlite3.
#
# usage: scripts/bench/ingest.sh [ROWS]        (BIN=build/gridtail)
set -eu
ROWS=${1:-5000000}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CSV=$WORK/rtt.csv

now() { date +%s.%N; }

echo "generating $ROWS amp-csv rows over 100 sites..."
awk -v rows="$ROWS" 'BEGIN {
    print "timestamp,src,dst,testType,testSubType,packet_size_bytes,rtt_ms"
    srand(42); n = 0
    for (t = 0; n < rows; t++)
        for (s = 0; s < 100 && n < rows; s++)
            for (d = 0; d < 100 && n < rows; d++) {
                if (s == d) continue
                r = rand()
                if (r < 0.005) v = "loss"; else v = sprintf("%.3f", 20 + s + d + 5 / (1.0001 - r))
                printf "%d,site%03d,site%03d,latency,icmp,84,%s\n", 1795305600 + 60 * t, s, d, v
                n++
            }
}' > "$CSV"
ls -l "$CSV" | awk '{ printf "input: %.1f MB\n", $5 / 1e6 }'

export GRIDTAIL_CONFIG=/dev/null
"$BIN" --db "$WORK/g.db" init >/dev/null
t0=$(now)
"$BIN" --db "$WORK/g.db" ingest --quiet amp-csv "$CSV"
t1=$(now)
stored=$(sqlite3 "$WORK/g.db" 'SELECT count(*) FROM samples')

t2=$(now)
sqlite3 "$WORK/s.db" >/dev/null <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA cache_size = -262144;
CREATE TABLE raw (timestamp INTEGER, src TEXT, dst TEXT, testType TEXT, testSubType TEXT,
                  packet_size_bytes INTEGER, rtt_ms,
                  PRIMARY KEY (src, dst, timestamp)) WITHOUT ROWID;
.import --csv --skip 1 $CSV raw
SQL
t3=$(now)
imported=$(sqlite3 "$WORK/s.db" 'SELECT count(*) FROM raw')

awk -v rows="$ROWS" -v g="$t1" -v g0="$t0" -v s="$t3" -v s0="$t2" \
    -v stored="$stored" -v imported="$imported" 'BEGIN {
    g -= g0; s -= s0
    printf "gridtail ingest amp-csv: %d rows stored in %.2f s = %.0f rows/s\n", stored, g, rows / g
    printf "sqlite3 .import:         %d rows stored in %.2f s = %.0f rows/s\n", imported, s, rows / s
    printf "ratio gridtail / sqlite3: %.2fx\n", s / g
}'
