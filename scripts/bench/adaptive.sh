#!/bin/sh
# What the live choice of --model adaptive adds to an answer: on the
# demo's store (gridtail synth --span 3d --seed 2026: 27 sites, 702
# pairs, `refit --window 60` run first), the collective rooted at CERN
# with every other site (--skip-missing), window 60, horizon 600 s, the
# model's own quantiles (--calibration 0):
#   auto                       the fits from the cache, with the loss
#                              model (the default) and with --loss ignore;
#   adaptive, replayed live    the last 50 moments of the root's
#                              collective replayed with 4 methods;
#   refit --model adaptive     every root's choice replayed and kept;
#   adaptive, from the cache   the kept choice read back;
#   combined, replayed live    the last 500 moments replayed with the 4
#                              methods, then each method's estimate;
#   refit --model combined     every root's weights replayed and kept;
#   combined, from the cache   the kept weights read back;
#   place, auto and combined   size 4 from the other 26 sites (the greedy
#                              search: each set's E[max] under 4 models).
# Each estimate runs REPS times (default 10), the refit once: mean wall
# and CPU (user + system) seconds (cputime.inc: CPU to 10 ms);
# with valgrind present, each also once under callgrind (instructions do
# not move with the machine's load).  Checks that the
# live and the cached answer agree.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
REPS=${REPS:-10}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export GRIDTAIL_CONFIG=/dev/null
DB=$W/t.db
. "$ROOT/scripts/bench/cputime.inc"
. "$ROOT/scripts/bench/stores.inc"
demo_store "$BIN" "$DB" "$W"
sites=$(tail -n +2 "$W/sites.csv" | cut -d, -f1 | grep -vx CERN | paste -sd, -)
echo "load before: $(uptime | sed 's/.*load average: //')  ($(nproc) cores)"
echo "  (CERN + 25 partners)              wall        CPU   instructions   (mean of $REPS runs)"
# the quantiles uncalibrated (--calibration 0): what the model costs, not
# the calibration's replay (scripts/bench/calibration.sh)
set -- "$BIN" --db "$DB" estimate --root CERN --sites "$sites" --skip-missing --window 60 \
    --horizon 600s --calibration 0 --json
timed auto "$W/auto.json" "$@"
timed "auto, --loss ignore" "$W/ignore.json" "$@" --loss ignore
timed "adaptive, replayed live" "$W/live.json" "$@" --model adaptive
reps=$REPS REPS=1   # refit replays every root: once
timed "refit --model adaptive" /dev/null "$BIN" --db "$DB" refit --window 60 --model adaptive
REPS=$reps
timed "adaptive, from the cache" "$W/cached.json" "$@" --model adaptive
timed "combined, replayed live" "$W/comb.json" "$@" --model combined
reps=$REPS REPS=1
timed "refit --model combined" /dev/null "$BIN" --db "$DB" refit --window 60 --horizon 600s \
    --model combined
REPS=$reps
timed "combined, from the cache" "$W/combc.json" "$@" --model combined
set -- "$BIN" --db "$DB" place --root CERN --pool "CERN,$sites" --size 4 --window 60 \
    --horizon 600s --calibration 0 --json
timed "place, auto" "$W/pauto.json" "$@"
timed "place, combined" "$W/pcomb.json" "$@" --model combined
echo "load after:  $(uptime | sed 's/.*load average: //')"
# the two adaptive answers: the same choice and E[max]
pick() { sed -n -e 's/^  "e_max": \(.*\),/\1/p' -e 's/^    "chosen": \(.*\),/\1/p' "$1"; }
if [ "$(pick "$W/live.json")" = "$(pick "$W/cached.json")" ] &&
    grep -q '"cached": false' "$W/live.json" && grep -q '"cached": true' "$W/cached.json"; then
    echo "live and cached answers: the same choice ($(pick "$W/live.json" | tail -1)) and E[max]"
else
    echo "live and cached answers DIFFER"; exit 1
fi
