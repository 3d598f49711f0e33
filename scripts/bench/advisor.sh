#!/bin/sh
# Advisor benchmark on a synthetic 500-site store (every ordered pair, 64
# samples a minute apart, Pareto with pair-specific k in [10, 50) ms and
# alpha in [1.5, 21.5), fixed seed):
#   rank of 1,000 candidate sets of 64 sites each (random roots), and
#   place --size 32 over the 500-site pool with --root auto.
# First `refit` fills the store's fit cache (what cron does after each
# ingest); rank and place then read fits instead of fitting.  Rank is also
# timed on one thread, and with an empty cache (every window fitted).
# Prints the advisor's own time (elapsed_ms in the JSON: fits and
# estimates, no process start) and the wall time of each command.
# Targets: rank <= 100 ms of compute, place <= 2 s.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
SITES=${SITES:-500}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export GRIDTAIL_CONFIG=/dev/null
now() { date +%s.%N; }
echo "generating the $SITES-site store ($((SITES * (SITES - 1) * 64)) samples)..."
awk -v n="$SITES" 'BEGIN { srand(42); print "timestamp,src,dst,testType,testSubType,packet_size_bytes,rtt_ms";
  for (i = 0; i < n; i++) for (j = 0; j < n; j++) { if (i == j) continue;
    k = 10 + 40 * rand(); a = 1.5 + 20 * rand();
    for (t = 0; t < 64; t++)
      printf "%d,s%03d,s%03d,latency,icmp,84,%.3f\n", 1795305600 + 60 * t, i, j, k * (1 - rand()) ^ (-1 / a) } }' > "$WORK/in.csv"
"$BIN" --db "$WORK/a.db" init >/dev/null
t0=$(now)
"$BIN" --db "$WORK/a.db" ingest --quiet amp-csv "$WORK/in.csv"
t1=$(now)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "ingest: %.1f s\n", b - a }'
awk -v n="$SITES" 'BEGIN { srand(7); for (c = 0; c < 1000; c++) {
    r = int(rand() * n); printf "s%03d:", r; m = 0;
    while (m < 64) { s = int(rand() * n); if (s == r || seen[c, s]) continue; seen[c, s] = 1;
      printf "%s s%03d", m ? "," : "", s; m++ } printf "\n" } }' > "$WORK/cands.txt"
AT=2026-11-22T01:03:00Z
t0=$(now)
"$BIN" --db "$WORK/a.db" refit --json > "$WORK/refit.json"
t1=$(now)
awk -v a="$t0" -v b="$t1" -v f="$(sed -n 's/^  "fitted": \(.*\),$/\1/p' "$WORK/refit.json")" \
    'BEGIN { printf "refit: %d pair windows fitted and cached, %.2f s wall\n", f, b - a }'
rank() {   # label, extra options
    t0=$(now)
    "$BIN" --db "$WORK/a.db" rank --candidates "$WORK/cands.txt" --at $AT --json --top 1 $2 > "$WORK/rank.json"
    t1=$(now)
    awk -v a="$t0" -v b="$t1" -v l="$1" -v e="$(sed -n 's/^  "elapsed_ms": \(.*\),$/\1/p' "$WORK/rank.json")" \
        -v f="$(sed -n 's/^  "fits": \(.*\),$/\1/p' "$WORK/rank.json")" \
        -v c="$(sed -n 's/^  "cached_fits": \(.*\),$/\1/p' "$WORK/rank.json")" \
        -v x="$(sed -n 's/^      "e_max": \(.*\),$/\1/p' "$WORK/rank.json" | head -n 1)" \
        'BEGIN { printf "rank 1000 x 64 sites, %s: advisor %.1f ms (%d fitted, %d from the cache), command %.2f s wall, best E[max] %.6f ms\n", l, e, f, c, b - a, x }'
}
rank "cached fits" ""
rank "cached fits, 1 thread" "--threads 1"
POOL=$(awk -v n="$SITES" 'BEGIN { for (i = 0; i < n; i++) printf "%ss%03d", i ? "," : "", i }')
t0=$(now)
"$BIN" --db "$WORK/a.db" place --pool "$POOL" --size 32 --at $AT --json > "$WORK/place.json"
t1=$(now)
awk -v a="$t0" -v b="$t1" -v e="$(sed -n 's/^  "elapsed_ms": \(.*\),$/\1/p' "$WORK/place.json")" \
    -v s="$(sed -n 's/^  "search": "\(.*\)",$/\1/p' "$WORK/place.json")" \
    -v v="$(sed -n 's/^  "evaluated": \(.*\),$/\1/p' "$WORK/place.json")" \
    -v x="$(sed -n 's/^      "e_max": \(.*\),$/\1/p' "$WORK/place.json" | head -n 1)" \
    'BEGIN { printf "place --size 32 over %d sites, root auto: advisor %.1f ms (%s, %d sets), command %.2f s wall, E[max] %.3f ms\n", '"$SITES"', e, s, v, b - a, x }'
sqlite3 "$WORK/a.db" 'DELETE FROM fit_cache'
rank "empty cache (every window fitted)" ""
