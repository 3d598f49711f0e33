#!/bin/sh
# Sliding-window fit throughput: `gridtail fit --all-windows` over a
# series of N samples (default 1,000,000, Pareto-distributed, 1 % lost),
# with parameters only (the O(1)-per-step path) and with the chi-square
# selection (O(m) per step), for windows of 60 and 1024.  Prints
# samples/s.  The sqlite3-free baseline is reading the same file with
# `wc -l` (I/O and process start).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
N=${1:-1000000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
awk -v n="$N" 'BEGIN { srand(7); for (i = 0; i < n; i++)
    if (rand() < 0.01) print "loss"; else printf "%.3f\n", 40 * (1 - rand()) ^ (-1 / 4) }' > "$WORK/s.txt"
now() { date +%s.%N; }
run() {   # label, then the command
    label=$1; shift
    t0=$(now); "$@" > /dev/null; t1=$(now)
    awk -v l="$label" -v n="$N" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-44s %8.3f s  %12.0f samples/s\n", l, b - a, n / (b - a) }'
}
export GRIDTAIL_CONFIG=/dev/null
run "wc -l (reading the file)" wc -l "$WORK/s.txt"
run "fit --all-windows --params-only, m = 60" "$BIN" fit --all-windows --params-only --window 60 "$WORK/s.txt"
run "fit --all-windows --params-only, m = 1024" "$BIN" fit --all-windows --params-only --window 1024 "$WORK/s.txt"
M=$((N / 10))
head -n "$M" "$WORK/s.txt" > "$WORK/s10.txt"
N=$M
run "fit --all-windows (chi-square selection), m = 60" "$BIN" fit --all-windows --window 60 "$WORK/s10.txt"
