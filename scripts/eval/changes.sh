#!/bin/sh
# The change detector (estimators/changepoint) against the 935 known
# changes of ../shared/data/rtt-changes (WenqinSHAO/rtt, MIT): precision,
# recall, F1 and the mean distance of matched changes, one to one within
# W samples (default 5), per trace and in all, for the traces the
# defaults were tuned on (1-10) and the held-out ones (11-20).  The data
# is read where it lies, never copied.  docs/EVALUATION.md quotes it.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=${DATA:-$ROOT/../shared/data/rtt-changes/traces}
W=${W:-5}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
[ -d "$DATA" ] || { echo "changes.sh: no traces at $DATA" >&2; exit 2; }
cc -O2 -std=c11 -Wall -Wextra -I"$ROOT/src" -I"$ROOT" -o "$WORK/driver" \
    "$ROOT/scripts/eval/changes_driver.c" "$ROOT/estimators/changepoint.c" -lm
echo "tuned on (traces 1-10), match window $W samples:"
"$WORK/driver" -w "$W" $(seq -f "$DATA/%g.csv" 1 10)
echo
echo "held out (traces 11-20):"
"$WORK/driver" -w "$W" $(seq -f "$DATA/%g.csv" 11 20) | tail -1
echo
echo "all 20 traces, by match window:"
for w in 0 1 2 5 10; do
    printf 'w=%-3s ' "$w"
    "$WORK/driver" -w "$w" $(seq -f "$DATA/%g.csv" 1 20) | tail -1
done
