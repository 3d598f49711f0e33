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
# status 2: some records were rejected (13 values of 90.5 s, above the
# 60 s plausibility cap); the rest is stored, and the count is said here
rc=0
"$BIN" --db "$WORK/s.db" ingest --quiet matrix --unit s --zero-is-missing \
    --start 2026-01-01T00:00:00Z --interval 60 "$WORK/Seattle" 2> "$WORK/ingest.err" || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || { cat "$WORK/ingest.err" >&2; exit "$rc"; }
echo "seattle.sh: ingest rejected $(grep -c ': rtt: ' "$WORK/ingest.err" || true) records:" \
    "$(sed -n 's/.*: rtt: [^:]*: \(.*\)/\1/p' "$WORK/ingest.err" | sort | uniq -c | sort -rn | head -3 | tr -s ' ' | paste -sd';' -)"
"$BIN" --db "$WORK/s.db" backtest --window 2,4,8,16,32,64,128,256,512 \
    --tau 1,2,4,8,16,32,64,128 --method "$METHODS" --report "$OUT" --json "$@" \
    > "${OUT%.md}.json"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    /usr/bin/python3 "$ROOT/scripts/eval/seattle_pairs.py" "$WORK/Seattle" > "${OUT%.md}-pairs.md"
    echo "seattle.sh: per-pair alpha <= 1 shares in ${OUT%.md}-pairs.md"
fi
echo "seattle.sh: report in $OUT, numbers in ${OUT%.md}.json"
