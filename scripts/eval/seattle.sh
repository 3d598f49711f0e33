#!/bin/sh
# The paper's evaluation (docs/METHOD.md section 6) on measured data: the
# Seattle set of ../shared/data (99 sites, 688 slices, RTT in seconds,
# an off-diagonal 0 = a lost probe; NetLatency-Data, MIT).  The source
# gives no interval between slices: they are stamped one minute apart
# from 2026-01-01, which only names the moments (the backtest counts in
# samples).  688 slices allow windows up to 512 and, with them, short lead
# times.  Writes the Markdown report to OUT (default seattle-report.md)
# and the JSON beside it; docs/EVALUATION.md quotes them.  The data is
# unpacked into a temporary folder and never copied into the repository.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
DATA=${DATA:-$ROOT/../shared/data/seattle.tar.xz}
OUT=${OUT:-seattle-report.md}
METHODS=${METHODS:-pareto,normal,last,chi2,empirical,regime,adaptive}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
[ -f "$DATA" ] || { echo "seattle.sh: no data at $DATA" >&2; exit 2; }
export GRIDTAIL_CONFIG=/dev/null
tar -xJf "$DATA" -C "$WORK"
"$BIN" --db "$WORK/s.db" init >/dev/null
"$BIN" --db "$WORK/s.db" ingest --quiet matrix --unit s --zero-is-missing \
    --start 2026-01-01T00:00:00Z --interval 60 "$WORK/Seattle"
"$BIN" --db "$WORK/s.db" backtest --window 2,4,8,16,32,64,128,256,512 \
    --tau 1,2,4,8,16,32,64,128 --method "$METHODS" --report "$OUT" --json "$@" \
    > "${OUT%.md}.json"
echo "seattle.sh: report in $OUT, numbers in ${OUT%.md}.json"
