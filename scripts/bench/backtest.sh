#!/bin/sh
# The backtest at scale (issue 13): SITES synthetic sites (default 100)
# over SPAN (default 7d) at one sample a minute, the full grid (m = 2 ..
# 1024, tau = 1 .. 256) with pareto, normal, last and adaptive, on every
# core.  Prints the time, the E[max] evaluations and their mean cost, and
# the ratio against the baseline of the same invocation: the same
# forecasts made by hand, one `gridtail estimate --at` process per moment
# and method (timed on SAMPLE moments, scaled to the count).
# ROOTS=N stores only the pairs from the first N sites (each still with
# SITES - 1 partners) and also prints the time scaled to every root: a
# root's replay reads only its own pairs, so the cost is linear in roots,
# and the full store (100 sites x 1 week: 100 million rows, ~30 GB) takes
# longer to ingest than the backtest takes to run.
# Needs ROOTS x (SITES - 1) x SPAN/60s rows of disk (~300 bytes each).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
SITES=${SITES:-100}
SPAN=${SPAN:-7d}
SAMPLE=${SAMPLE:-40}
ROOTS=${ROOTS:-$SITES}
WORK=${WORK:-$(mktemp -d)}
trap 'rm -rf "$WORK"' EXIT
export GRIDTAIL_CONFIG=/dev/null
printf 'name,latitude,longitude\n' > "$WORK/sites.csv"
awk -v n="$SITES" 'BEGIN { srand(2026); for (i = 1; i <= n; i++)
    printf "s%03d,%.3f,%.3f\n", i, -50 + 110 * rand(), -170 + 340 * rand() }' >> "$WORK/sites.csv"
"$BIN" --db "$WORK/t.db" init >/dev/null
"$BIN" synth --sites "$WORK/sites.csv" --span "$SPAN" --seed 2026 --format csv \
    --start 2026-01-01 |
    awk -F, -v n="$ROOTS" 'NR == 1 || substr($2, 2) + 0 <= n' |
    "$BIN" --db "$WORK/t.db" ingest --quiet --max-rows 1000000000 csv -
start=$(date +%s.%N)
"$BIN" --db "$WORK/t.db" backtest --method pareto,normal,last,adaptive --json > "$WORK/bt.json"
end=$(date +%s.%N)
secs=$(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }')
evals=$(sed -n 's/^  "emax_evaluations": \([0-9.e+]*\),/\1/p' "$WORK/bt.json")
# the baseline: estimate --at per moment and method, on SAMPLE moments
sites=$(tail -n +3 "$WORK/sites.csv" | cut -d, -f1 | paste -sd, -)
t0=$(date -d 2026-01-01T12:00:00Z +%s)
bstart=$(date +%s.%N)
i=0
while [ "$i" -lt "$SAMPLE" ]; do
    "$BIN" --db "$WORK/t.db" estimate --root s001 --sites "$sites" --window 64 \
        --model pareto --loss ignore --at $((t0 + 60 * i)) --json > /dev/null
    i=$((i + 1))
done
bend=$(date +%s.%N)
per=$(echo "$bstart $bend $SAMPLE" | awk '{ printf "%.4f", ($2 - $1) / $3 }')
echo "backtest: $SITES sites x $SPAN, windows 2..1024, tau 1..256, pareto,normal,last,adaptive"
echo "  roots                $ROOTS of $SITES, each with $((SITES - 1)) partners"
echo "  time                 $secs s on $(nproc) cores"
if [ "$ROOTS" -lt "$SITES" ]; then
    echo "$secs $SITES $ROOTS" | awk '{ printf "  every root           %.0f s (%.1f min), scaled by %d/%d\n", $1 * $2 / $3, $1 * $2 / $3 / 60, $2, $3 }'
fi
echo "  E[max] evaluations   $evals"
echo "$secs $evals $(nproc)" | awk '{ printf "  mean cost            %.1f us per E[max] per core\n", 1e6 * $1 * $3 / $2 }'
echo "  baseline             estimate --at: $per s per moment and method"
echo "$per $evals $secs" | awk '{ printf "  by hand              %.0f s (%.0f h) for the same forecasts: %.0fx slower\n", $1 * $2, $1 * $2 / 3600, $1 * $2 / $3 }'
