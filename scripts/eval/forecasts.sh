#!/bin/sh
# Issue 29's forecast goals, measured with `gridtail backtest` on the
# data sets we have: calibrated quantiles (pooled p99 coverage in [98.0,
# 99.7] %, no cell below 96 %, pooled p90 in [88, 92] %) and the
# combination (pooled RMSE 5 % below the best fixed method, within 2 % of
# each cell's best in 90 % of the cells).  The grid is the issue's:
# windows 16, 128, 512 and lead times 1, 16, 128 samples.
#
#   seattle, synth, shifty, rttchanges: scripts/eval/datasets.inc
#
# Usage: sh scripts/eval/forecasts.sh [seattle] [synth] [shifty] [rttchanges]
# (default all four); extra backtest options in BT_OPTS, e.g.
# BT_OPTS="--horizon 200".  Prints one summary per data set
# (scripts/eval/forecast_summary.py); with BOUNDS=1 also how far the
# goals can be reached on the set at all (scripts/eval/forecast_bounds.py,
# from every moment: 0.5 GB a set in a temporary folder, needs numpy);
# docs/EVALUATION.md quotes them.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
DATA=${DATA:-$ROOT/../shared/data/seattle.tar.xz}
METHODS=${METHODS:-pareto,normal,last,empirical,adaptive,combined}
BT_OPTS=${BT_OPTS:-}
KEEP=${KEEP:-}          # a folder to keep each set's backtest JSON in
BOUNDS=${BOUNDS:-}
sets=${*:-seattle synth shifty rttchanges}

. "$ROOT/scripts/eval/datasets.inc"

for s in $sets; do
    load "$s"
    # shellcheck disable=SC2086
    "$BIN" --db "$WORK/$s.db" backtest --window 16,128,512 --tau 1,16,128 \
        --method "$METHODS" --json $BT_OPTS ${BOUNDS:+--moments "$WORK/$s.csv"} \
        > "$WORK/$s.json"
    echo "== $s"
    /usr/bin/python3 "$ROOT/scripts/eval/forecast_summary.py" "$WORK/$s.json"
    if [ -n "$BOUNDS" ]; then
        /usr/bin/python3 "$ROOT/scripts/eval/forecast_bounds.py" "$WORK/$s.csv"
        rm -f "$WORK/$s.csv"
    fi
    [ -z "$KEEP" ] || cp "$WORK/$s.json" "$KEEP/"
done
