#!/bin/sh
# Make the pictures of the README (docs/img/*.svg) with `gridtail plot` on
# the demo's data: three days of synthetic RTTs for 27 sites (gridtail
# synth, the seed of `make demo`, from a fixed start so that every run
# draws the same pictures), in a store of their own.  Rerun
# after a change to the plots and commit the SVGs it writes.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
OUT=${OUT:-$ROOT/docs/img}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export GRIDTAIL_CONFIG=/dev/null
DB=$WORK/demo.db
mkdir -p "$OUT"
"$BIN" synth --span 3d --seed 2026 --start 2026-11-20 --sites-out "$WORK/sites.csv" -o "$WORK/rtt.amp.csv"
"$BIN" --db "$DB" init >/dev/null
"$BIN" --db "$DB" sites --import "$WORK/sites.csv" >/dev/null
"$BIN" --db "$DB" ingest --quiet amp-csv "$WORK/rtt.amp.csv"
# the store's newest minute: plots of "now" are of the data's end
AT=$("$BIN" --db "$DB" pairs --src CERN --dst FNAL --json |
     python3 -c 'import json, sys; print(json.load(sys.stdin)["pairs"][0]["last_ts"])')
pool=$(tail -n +2 "$WORK/sites.csv" | cut -d, -f1 | paste -sd, -)
"$BIN" --db "$DB" plot ccdf --src CERN --dst RAL --window 240 --at "$AT" -o "$OUT/ccdf.svg"
"$BIN" --db "$DB" plot series --src CERN --dst RAL -o "$OUT/series.svg"
"$BIN" --db "$DB" place --root CERN --pool "$pool" --size 4 --window 60 --at "$AT" \
    --json > "$WORK/place.json"
"$BIN" --db "$DB" plot matrix --metric p99 --place-json "$WORK/place.json" -o "$OUT/matrix.svg"
"$BIN" --db "$DB" plot emax --root CERN --pool "$pool" --sizes 1..8 --window 60 --at "$AT" \
    --exact-limit 5000 -o "$OUT/emax.svg"
"$BIN" --db "$DB" backtest --root CERN --window 8,16,32,64,128,256 --tau 1,4,16,64 \
    --json > "$WORK/bt.json"
"$BIN" plot backtest "$WORK/bt.json" -o "$OUT/backtest.svg"
echo "wrote $(ls "$OUT"/*.svg | wc -l) pictures in $OUT"
