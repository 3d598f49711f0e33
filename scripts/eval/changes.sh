#!/bin/sh
# The change detectors against changes known beforehand, matched one to
# one within W samples (default 2, issues 29 and 46), with precision,
# recall, F1, the mean distance of matched changes and their mean delay:
#   REAL  ../shared/data/rtt-real-dev: 19 real RIPE Atlas traces, 405
#         changes marked by a person (WenqinSHAO/rtt, MIT), the
#         development set of issue 46;
#   SYN   ../shared/data/rtt-changes: 20 traces of the authors' generator,
#         935 changes whose places are exact (traces 1-10 tuned the
#         online detector's defaults, 11-20 held out);
#   and synthetic traces with shifts of 1-30 % and spikes of 1-3 samples
#   (the driver's -g).
# Methods: the offline segmentation (estimators/segment.h, PELT with
# 800 ln n and segments of at least 4) with its penalty grid and the
# choice of its penalty by a rule (the largest of a doubling grid within
# 0.01 of the best F1 on rtt-real-dev) and that rule's leave-out
# stability; the online detector (estimators/
# changepoint.h) with its alert settings, behind `gridtail events`, and
# with its defaults (`regime`); `gridtail events` itself, end to end on a
# store of the real traces (BIN, default build/gridtail; skipped without
# it); the old offline reference (tests/ref/pelt.h) with 10 ln n.  Then
# the spikes test (spikes.py): both methods on a `gridtail synth` store
# with spikes of 1-3 samples on and off, the shifts the spikes made.  The
# data is read where it lies, never copied.  docs/EVALUATION.md quotes it.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SYN=${DATA:-$ROOT/../shared/data/rtt-changes/traces}
REAL=${REAL:-$ROOT/../shared/data/rtt-real-dev/traces}
BIN=${BIN:-$ROOT/build/gridtail}
W=${W:-2}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
[ -d "$SYN" ] || { echo "changes.sh: no traces at $SYN" >&2; exit 2; }
[ -d "$REAL" ] || { echo "changes.sh: no traces at $REAL" >&2; exit 2; }
cc -O2 -std=c11 -Wall -Wextra -I"$ROOT/src" -I"$ROOT" -o "$WORK/driver" \
    "$ROOT/scripts/eval/changes_driver.c" "$ROOT/estimators/changepoint.c" \
    "$ROOT/estimators/segment.c" "$ROOT/tests/ref/pelt.c" -lm
D=$WORK/driver
row() {   # LABEL DRIVER-ARGS...: the pooled line
    label=$1
    shift
    printf '%-26s' "$label"
    "$D" -w "$W" "$@" | tail -1 | cut -c13-
}
echo "match window $W samples        true  found  match    prec recall     F1   dist delay"
echo "offline segmentation (PELT, 800 ln n, segments >= 4):"
row 'rtt-real-dev (19)' -s "$REAL"/*.csv
row 'rtt-changes (20)' -s $(seq -f "$SYN/%g.csv" 1 20)
row 'synthetic (40)' -s -g 40
echo "online detector, alert settings (W 11, z 32; behind gridtail events):"
row 'rtt-real-dev (19)' -a "$REAL"/*.csv
row 'rtt-changes (20)' -a $(seq -f "$SYN/%g.csv" 1 20)
row 'synthetic (40)' -a -g 40
echo "online detector, defaults (W 9, z 8; regime):"
row 'rtt-real-dev (19)' "$REAL"/*.csv
row 'rtt-changes 1-10 (tuned)' $(seq -f "$SYN/%g.csv" 1 10)
row 'rtt-changes 11-20' $(seq -f "$SYN/%g.csv" 11 20)
row 'rtt-changes (20)' $(seq -f "$SYN/%g.csv" 1 20)
row 'synthetic (40)' -g 40
echo "old offline reference, PELT 10 ln n, no minimum length:"
row 'rtt-real-dev (19)' -p 10 "$REAL"/*.csv
row 'rtt-changes (20)' -p 10 $(seq -f "$SYN/%g.csv" 1 20)
echo
echo "offline segmentation by penalty (x ln n), rtt-real-dev | rtt-changes:"
for k in 50 100 200 400 800 1600 3200; do
    printf 'K=%-5s' "$k"
    "$D" -w "$W" -s -K "$k" "$REAL"/*.csv | tail -1 | cut -c13-56 | tr '\n' '|'
    "$D" -w "$W" -s -K "$k" $(seq -f "$SYN/%g.csv" 1 20) | tail -1 | cut -c13-56
    "$D" -w "$W" -s -K "$k" "$REAL"/*.csv | awk -v k="$k" 'NR > 1 && $1 != "all" {print k, $1, $2, $3, $4}' >> "$WORK/grid"
done
echo
echo "the penalty chosen without the traces it is scored on (rtt-real-dev):"
python3 "$ROOT/scripts/eval/changes_select.py" "$WORK/grid"
echo
if [ -x "$BIN" ]; then
    echo "gridtail events --kind shift on a store of the traces, by [thresholds] shift_min:"
    echo "                               true  found  match    prec recall     F1"
    mkdir "$WORK/real" "$WORK/syn"
    python3 "$ROOT/scripts/eval/changes_events.py" "$BIN" "$REAL" "$WORK/real" 0.05 0.01 0 |
        sed 's/^/rtt-real-dev  /'
    python3 "$ROOT/scripts/eval/changes_events.py" "$BIN" "$SYN" "$WORK/syn" 0.05 0.01 0 |
        sed 's/^/rtt-changes   /'
    echo
    SYNTH="--count 6 --span 3d --seed 7 --start 2026-11-27T00:00:00Z"
    echo "spikes: a gridtail synth store ($SYNTH) with spikes of 1-3 samples"
    echo "on (its default, 0.2 % of samples start one) and off, shifts within 2 samples:"
    python3 "$ROOT/scripts/eval/spikes.py" "$BIN" "$WORK" $SYNTH
    echo "the same with five times the spikes (--spike-prob 0.01):"
    python3 "$ROOT/scripts/eval/spikes.py" "$BIN" "$WORK" $SYNTH \
        --spike-prob 0.01 | tail -n +2
else
    echo "gridtail events, spikes: skipped, no binary at $BIN (make first)"
fi
