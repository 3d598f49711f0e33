#!/bin/sh
# What the empirical model, the empirical fallback and the loss model cost
# the advisor, each beside its baseline in one invocation.  The store:
# the synthetic demo's 27 sites over one day (gridtail synth --span 1d
# --seed 2026, its 0.5 % loss), `refit --window 120` run first, so every
# run reads the same fit cache.  The exact place search (every root and
# every set of SIZE partners, default 3):
#
#   1. --loss ignore, all 27 sites: --model auto --fallback none (the
#      parametric fits only: the baseline), --model empirical (each
#      window's samples, E[max] an exact sum), --model auto (a pair whose
#      fits are both flagged takes its samples: mixed sets integrated
#      between sample values);
#   2. the loss model (the default) against --loss ignore, the same three
#      models, on the first LOSS_POOL sites of the preset (default 16:
#      the loss model costs 50-100 times more, and the 27 sites' 70,200
#      sets take minutes a run; LOSS_POOL=27 for all of them);
#   3. the greedy search the demo runs (place --size 4, beyond the exact
#      limit) with the default settings and with --fallback none.
#
# Prints, per run, the sets estimated, wall and CPU (user + system)
# seconds, and each run's ratio to its baseline.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
SIZE=${SIZE:-3}
WINDOW=${WINDOW:-120}
LOSS_POOL=${LOSS_POOL:-16}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export GRIDTAIL_CONFIG=/dev/null
. "$ROOT/scripts/bench/cputime.inc"
"$BIN" synth --span 1d --seed 2026 --sites-out "$WORK/sites.csv" -o "$WORK/rtt.csv" 2>/dev/null
"$BIN" --db "$WORK/t.db" init >/dev/null
"$BIN" --db "$WORK/t.db" ingest --quiet amp-csv "$WORK/rtt.csv"
"$BIN" --db "$WORK/t.db" refit --window "$WINDOW" >/dev/null
all=$(tail -n +2 "$WORK/sites.csv" | cut -d, -f1 | paste -sd, -)
few=$(tail -n +2 "$WORK/sites.csv" | cut -d, -f1 | head -n "$LOSS_POOL" | paste -sd, -)

# run LABEL POOL SIZE OPTIONS...: one place search; prints a line and
# leaves its CPU seconds in $WORK/cpu (the baseline's in $WORK/base)
run() {
    label=$1 pool=$2 size=$3; shift 3
    : > "$WORK/time"
    cputime "$WORK/time" "$BIN" --db "$WORK/t.db" place \
        --pool "$pool" --size "$size" --window "$WINDOW" --json "$@" > "$WORK/out.json"
    sets=$(sed -n 's/^ *"evaluated": \([0-9]*\),*/\1/p' "$WORK/out.json" | head -1)
    search=$(sed -n 's/^ *"search": "\([^"]*\)",*/\1/p' "$WORK/out.json" | head -1)
    awk '{ print $2 + $3 }' "$WORK/time" > "$WORK/cpu"
    [ -s "$WORK/base" ] || cp "$WORK/cpu" "$WORK/base"
    awk -v label="$label" -v sets="$sets" -v search="$search" -v base="$(cat "$WORK/base")" '{
        printf "  %-44s %8s %-12s %8.2f s %8.2f s  %6.1fx\n", label, sets, search, $1, $2 + $3, ($2 + $3) / base }' "$WORK/time"
}
header() {
    rm -f "$WORK/base"
    echo "$1"
    printf '  %-44s %8s %-12s %10s %10s  %7s\n' run sets search wall CPU "CPU/1st"
}

echo "load before: $(uptime | sed 's/.*load average: //')  ($(nproc) cores)"
header "1. place --size $SIZE, exact, 27 sites, window $WINDOW, --loss ignore"
run "--model auto --fallback none" "$all" "$SIZE" --exact-limit 1e7 --model auto --fallback none --loss ignore
run "--model empirical" "$all" "$SIZE" --exact-limit 1e7 --model empirical --loss ignore
run "--model auto (fallback to the samples)" "$all" "$SIZE" --exact-limit 1e7 --model auto --loss ignore
header "2. the loss model: place --size $SIZE, exact, the first $LOSS_POOL sites, window $WINDOW"
run "--model auto --fallback none --loss ignore" "$few" "$SIZE" --exact-limit 1e7 --model auto --fallback none --loss ignore
run "--model auto --fallback none (loss model)" "$few" "$SIZE" --exact-limit 1e7 --model auto --fallback none
run "--model empirical --loss ignore" "$few" "$SIZE" --exact-limit 1e7 --model empirical --loss ignore
run "--model empirical (loss model)" "$few" "$SIZE" --exact-limit 1e7 --model empirical
run "--model auto --loss ignore" "$few" "$SIZE" --exact-limit 1e7 --model auto --loss ignore
run "the defaults (auto, fallback, loss model)" "$few" "$SIZE" --exact-limit 1e7
header "3. the demo's search: place --size 4, greedy, 27 sites, window $WINDOW"
run "the defaults" "$all" 4
run "--fallback none" "$all" 4 --fallback none
echo "load after:  $(uptime | sed 's/.*load average: //')"
