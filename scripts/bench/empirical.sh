#!/bin/sh
# What the empirical model costs the advisor: the same exact place search
# (every root and every set of SIZE partners among the synthetic demo's 27
# sites) with --model auto (parametric fits) and --model empirical (each
# window's samples, E[max] an exact sum over them), in one invocation;
# prints both times and their ratio.  Both read the same fit cache.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
SIZE=${SIZE:-4}
WINDOW=${WINDOW:-120}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export GRIDTAIL_CONFIG=/dev/null
"$BIN" synth --span 1d --seed 2026 --sites-out "$WORK/sites.csv" -o "$WORK/rtt.csv" 2>/dev/null
"$BIN" --db "$WORK/t.db" init >/dev/null
"$BIN" --db "$WORK/t.db" ingest --quiet amp-csv "$WORK/rtt.csv"
"$BIN" --db "$WORK/t.db" refit --window "$WINDOW" >/dev/null
pool=$(tail -n +2 "$WORK/sites.csv" | cut -d, -f1 | paste -sd, -)
run() {   # run MODEL: seconds of the exact search
    start=$(date +%s.%N)
    "$BIN" --db "$WORK/t.db" place --pool "$pool" --size "$SIZE" --window "$WINDOW" \
        --exact-limit 1e7 --model "$1" --fallback none --json > "$WORK/$1.json"
    end=$(date +%s.%N)
    echo "$start $end" | awk '{ printf "%.2f", $2 - $1 }'
}
a=$(run auto)
e=$(run empirical)
sets=$(sed -n 's/^ *"evaluated": \([0-9.e+]*\),*/\1/p' "$WORK/auto.json" | head -1)
echo "place --size $SIZE over 27 sites, exact ($sets sets), window $WINDOW:"
echo "  --model auto       $a s"
echo "  --model empirical  $e s"
echo "$a $e" | awk '{ printf "  empirical / auto   %.2fx\n", $2 / $1 }'
