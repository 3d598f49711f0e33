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
# CALLGRIND=1 also counts instructions (see the end).
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
. "$ROOT/scripts/bench/cputime.inc"
: > "$WORK/time"
cputime "$WORK/time" "$BIN" --db "$WORK/t.db" backtest --method pareto,normal,last,adaptive --json > "$WORK/bt.json"
read -r secs ucpu scpu < "$WORK/time"
evals=$(sed -n 's/^  "emax_evaluations": \([0-9.e+]*\),/\1/p' "$WORK/bt.json")
# the baseline: one process per moment, SAMPLE moments spread over the span
"$BIN" --db "$WORK/t.db" pairs --json > "$WORK/pairs.json"
first=$(sed -n 's/^ *"first_ts": \([0-9]*\),*$/\1/p' "$WORK/pairs.json" | sort -n | head -1)
last=$(sed -n 's/^ *"last_ts": \([0-9]*\),*$/\1/p' "$WORK/pairs.json" | sort -n | tail -1)
moment() {   # moment I N: the I-th of N moments spread evenly over the span
    echo $((first + (last - first) * (2 * $1 + 1) / (2 * $2) / 60 * 60))
}
: > "$WORK/base"; : > "$WORK/base.evals"
i=0
while [ "$i" -lt "$SAMPLE" ]; do
    t=$(moment "$i" "$SAMPLE")
    cputime "$WORK/base" "$BIN" --db "$WORK/t.db" backtest \
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
    printf "  baseline             %d one-moment processes, %d E[max]: %.2f s wall, %.2f s CPU (%.2f s wall inside the run)\n", n, ev, w, c, inproc }' "$WORK/base"
awk -v ev="$bevals" -v bt="$evals" -v u="$ucpu" -v s="$scpu" -v secs="$secs" '{
        w += $1; c += $2 + $3 } END {
    mine = (u + s) / bt; per = c / ev
    printf "  per E[max], CPU      replay %.1f us, one process a moment %.1f us: %.1fx\n", 1e6 * mine, 1e6 * per, per / mine
    printf "  one process a moment %.0f s CPU (%.1f h) for the same %d E[max]\n", per * bt, per * bt / 3600, bt }' "$WORK/base"
# CALLGRIND=1: instructions, which the machine's load does not move, of
# root s001's replay (every moment, one thread) against CG_MOMENTS
# (default 3) one-moment runs of the same root: in the whole process, and
# inside the run (gt_backtest_run and its worker thread: the store read,
# the fits and the integrals; no process start, no JSON).
if [ -n "${CALLGRIND:-}" ]; then
    CG_MOMENTS=${CG_MOMENTS:-3}
    cg() {   # cg OUT ARGS...: the run under callgrind; "total inside evals" into OUT
        out=$1; shift
        valgrind -q --tool=callgrind --callgrind-out-file="$WORK/cg" "$BIN" --db "$WORK/t.db" \
            backtest --root s001 --method pareto,normal,last,adaptive --json "$@" > "$WORK/cg.json"
        callgrind_annotate --inclusive=yes "$WORK/cg" 2>/dev/null | tr -d , | awk -v tot="$(sed -n 's/^summary: //p' "$WORK/cg")" \
            -v ev="$(sed -n 's/^  "emax_evaluations": \([0-9.e+]*\),/\1/p' "$WORK/cg.json")" '
            /:gt_backtest_run \[/ || /:worker_main \[/ { inside += $1 }
            END { print tot, inside, ev }' >> "$out"
    }
    : > "$WORK/cg.replay"; : > "$WORK/cg.moments"
    cg "$WORK/cg.replay" --threads 1
    i=0
    while [ "$i" -lt "$CG_MOMENTS" ]; do
        t=$(moment "$i" "$CG_MOMENTS")
        cg "$WORK/cg.moments" --from "$t" --to "$t"
        i=$((i + 1))
    done
    read -r rt ri re < "$WORK/cg.replay"
    awk -v rt="$rt" -v ri="$ri" -v re="$re" -v n="$CG_MOMENTS" '{ t += $1; i += $2; e += $3 } END {
        printf "  instructions per E[max], root s001 (callgrind):\n"
        printf "    replay, every moment (%d E[max])    %.0f in the process, %.0f inside the run\n", re, rt / re, ri / re
        printf "    %d one-moment runs (%d E[max])         %.0f in the process, %.0f inside the run\n", n, e, t / e, i / e
        printf "    one moment at a time / replay        %.1fx in the process, %.1fx inside the run\n", (t / e) / (rt / re), (i / e) / (ri / re) }' "$WORK/cg.moments"
fi
