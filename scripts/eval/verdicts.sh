#!/bin/sh
# Issue 29's fourth part: what auto's verdicts do (METHOD.md 3,
# verdicts).  `backtest --method chi2,empirical,auto` on each data set,
# once with the old rule (--verdict ks: both KS distances above
# [advisor] max_ks fall back to the samples) and once with the rule the
# advisor uses (--verdict quantiles: a fit is flagged when its p50, p90
# or p99 is beyond the window's bounds by more than the margin; the
# other fit, else the samples, is used).  Windows 16, 128, 512, lead
# times 1, 16, 128 (the issue's grid).
#
#   seattle, synth, shifty: scripts/eval/datasets.inc
#
# Usage: sh scripts/eval/verdicts.sh [seattle] [synth] [shifty] (default
# all three); MARGIN=0.25 sets the quantile margin (default: 0.1, the
# config's).  Prints per data set and rule the pooled RMSE, the raw and
# calibrated coverage, and per window the share of partner windows that
# took the other fit or their samples (scripts/eval/verdict_summary.py);
# docs/EVALUATION.md quotes them.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
DATA=${DATA:-$ROOT/../shared/data/seattle.tar.xz}
MARGIN=${MARGIN:-0.1}
sets=${*:-seattle synth shifty}

. "$ROOT/scripts/eval/datasets.inc"

for s in $sets; do
    load "$s"
    for rule in ks quantiles; do
        "$BIN" --db "$WORK/$s.db" backtest --window 16,128,512 --tau 1,16,128 \
            --method chi2,empirical,auto --verdict $rule --quantile-margin "$MARGIN" \
            --json > "$WORK/$s-$rule.json"
    done
    echo "== $s"
    /usr/bin/python3 "$ROOT/scripts/eval/verdict_summary.py" "$WORK/$s-ks.json" \
        "$WORK/$s-quantiles.json"
done
