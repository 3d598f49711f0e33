#!/bin/sh
# The backtest at scale (issue 13): SITES synthetic sites (default 100)
# over SPAN (default 7d) at one sample a minute, the full grid (m = 2 ..
# 1024, tau = 1 .. 256) with pareto, normal, last and adaptive, on every
# core.  Prints the time, the E[max] evaluations and their mean cost, and
# the ratio against the baseline of the same invocation: the same
# replay one moment at a time, one `gridtail backtest --root s001 --from T
# --to T` process per moment (same windows, lead times, methods,
# tolerance and calibration; every window fitted from scratch and every
# integral started cold, as without the replay's sliding fits and warm
# starts), on SAMPLE moments spread evenly over the span.  Both sides are
# compared by CPU time (user + system) per E[max]: the replay runs on
# every core, the baseline on one, and CPU time moves less than the wall
# time on a shared machine.
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
echo "load before: $(uptime | sed 's/.*load average: //')  ($(nproc) cores)"
/usr/bin/time -o "$WORK/time" -f '%e %U %S' \
    "$BIN" --db "$WORK/t.db" backtest --method pareto,normal,last,adaptive --json > "$WORK/bt.json"
read -r secs ucpu scpu < "$WORK/time"
evals=$(sed -n 's/^  "emax_evaluations": \([0-9.e+]*\),/\1/p' "$WORK/bt.json")
# the baseline: one process per moment, SAMPLE moments spread over the span
"$BIN" --db "$WORK/t.db" pairs --json > "$WORK/pairs.json"
first=$(sed -n 's/^ *"first_ts": \([0-9]*\),*$/\1/p' "$WORK/pairs.json" | sort -n | head -1)
last=$(sed -n 's/^ *"last_ts": \([0-9]*\),*$/\1/p' "$WORK/pairs.json" | sort -n | tail -1)
: > "$WORK/base"; : > "$WORK/base.evals"
i=0
while [ "$i" -lt "$SAMPLE" ]; do
    t=$((first + (last - first) * (2 * i + 1) / (2 * SAMPLE) / 60 * 60))
    /usr/bin/time -a -o "$WORK/base" -f '%e %U %S' "$BIN" --db "$WORK/t.db" backtest \
        --root s001 --from "$t" --to "$t" --method pareto,normal,last,adaptive --json > "$WORK/one.json"
    sed -n -e 's/^  "emax_evaluations": \([0-9.e+]*\),/\1/p' -e 's/^  "seconds": \([0-9.e+-]*\),/\1/p' \
        "$WORK/one.json" | paste -sd' ' - >> "$WORK/base.evals"
    i=$((i + 1))
done
bevals=$(awk '{ n += $1 } END { print n }' "$WORK/base.evals")
bsecs=$(awk '{ n += $2 } END { print n }' "$WORK/base.evals")
echo "load after:  $(uptime | sed 's/.*load average: //')"
echo "backtest: $SITES sites x $SPAN, windows 2..1024, tau 1..256, pareto,normal,last,adaptive"
echo "  roots                $ROOTS of $SITES, each with $((SITES - 1)) partners"
echo "  time                 $secs s on $(nproc) cores ($(echo "$ucpu $scpu" | awk '{ printf "%.1f", $1 + $2 }') s CPU)"
if [ "$ROOTS" -lt "$SITES" ]; then
    echo "$secs $SITES $ROOTS" | awk '{ printf "  every root           %.0f s (%.1f min), scaled by %d/%d\n", $1 * $2 / $3, $1 * $2 / $3 / 60, $2, $3 }'
fi
echo "  E[max] evaluations   $evals"
echo "$secs $evals $(nproc)" | awk '{ printf "  mean cost            %.1f us per E[max] per core\n", 1e6 * $1 * $3 / $2 }'
awk -v ev="$bevals" -v n="$SAMPLE" -v inproc="$bsecs" '{ w += $1; c += $2 + $3 } END {
    printf "  baseline             %d one-moment processes, %d E[max]: %.2f s wall, %.2f s CPU, %.2f s in process\n", n, ev, w, c, inproc }' "$WORK/base"
awk -v ev="$bevals" -v bt="$evals" -v u="$ucpu" -v s="$scpu" -v secs="$secs" -v inproc="$bsecs" -v cores="$(nproc)" '{
        w += $1; c += $2 + $3 } END {
    mine = (u + s) / bt; per = c / ev; inp = inproc / ev; minew = secs * cores / bt
    printf "  per E[max]           replay %.1f us CPU (%.1f us wall x cores)\n", 1e6 * mine, 1e6 * minew
    printf "                       a moment at a time, in process (\"seconds\": store, fits, integrals): %.1f us wall: %.1fx the replay\n", 1e6 * inp, inp / minew
    printf "                       one process a moment: %.1f us CPU: %.1fx the replay\n", 1e6 * per, per / mine
    printf "  one process a moment %.0f s CPU (%.1f h) for the same %d E[max]\n", per * bt, per * bt / 3600, bt }' "$WORK/base"
