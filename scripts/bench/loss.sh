#!/bin/sh
# What the loss model (the default: a lost probe is a message resent
# after the RTO) costs the advisor on the data users have, beside the same
# work with --loss ignore in one invocation (issue 30's goals).  The
# store: the synthetic demo's 27 sites over one day (gridtail synth --span
# 1d --seed SEED, default 2026: 0.5 % loss with bursts, spikes, level shifts, outages;
# some windows fall back to their samples), `refit --window 120` first,
# so every run reads the same fit cache.
#
#   1. place --size 3 (the exact search, every root) and --size 6 (beyond
#      the exact limit: greedy and swaps), the defaults against --loss
#      ignore: the advisor's own time (elapsed_ms: fits read, estimates,
#      no process start), the median of RUNS (default 5) runs each, and
#      the sets estimated and left out by their bound;
#   2. plot emax --root CERN over the 27 sites, sizes 1..8, the defaults
#      and --loss ignore: wall seconds (a process each, median of RUNS).
#
# Prints each figure and the ratio of the defaults to --loss ignore.
# Goals: place at most 2x, plot emax under 5 s.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
RUNS=${RUNS:-5}
SEED=${SEED:-2026}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export GRIDTAIL_CONFIG=/dev/null
"$BIN" synth --span 1d --seed "$SEED" --sites-out "$WORK/sites.csv" -o "$WORK/rtt.csv" 2>/dev/null
"$BIN" --db "$WORK/t.db" init >/dev/null
"$BIN" --db "$WORK/t.db" ingest --quiet amp-csv "$WORK/rtt.csv"
"$BIN" --db "$WORK/t.db" refit --window 120 >/dev/null
pool=$(tail -n +2 "$WORK/sites.csv" | cut -d, -f1 | paste -sd, -)
echo "seed $SEED; load before: $(uptime | sed 's/.*load average: //')  ($(nproc) cores)"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { sed -n "s/^  \"$1\": \\([^,]*\\),*\$/\\1/p" "$2" | head -1; }

# place SIZE OPTIONS...: the median elapsed_ms of RUNS runs into $ms,
# the last run's counts into $sets, $pruned, $search
place() {
    size=$1
    shift
    : > "$WORK/ms"
    i=0
    while [ $i -lt "$RUNS" ]; do
        "$BIN" --db "$WORK/t.db" place --pool "$pool" --size "$size" --window 120 --json "$@" \
            > "$WORK/out.json"
        field elapsed_ms "$WORK/out.json" >> "$WORK/ms"
        i=$((i + 1))
    done
    ms=$(median < "$WORK/ms")
    sets=$(field evaluated "$WORK/out.json")
    pruned=$(field pruned "$WORK/out.json")
    search=$(sed -n 's/^  "search": "\([^"]*\)",*$/\1/p' "$WORK/out.json")
    emax=$(sed -n 's/^      "e_max": \([^,]*\),*$/\1/p' "$WORK/out.json" | head -1)
}

# plot OPTIONS...: the median wall seconds of RUNS plot emax runs into $secs
plot() {
    : > "$WORK/secs"
    i=0
    while [ $i -lt "$RUNS" ]; do
        t0=$(date +%s.%N)
        "$BIN" --db "$WORK/t.db" plot emax --root CERN --pool "$pool" --sizes 1..8 --window 120 \
            "$@" -o "$WORK/e.svg"
        t1=$(date +%s.%N)
        echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >> "$WORK/secs"
        i=$((i + 1))
    done
    secs=$(median < "$WORK/secs")
}

printf '%-34s %-12s %7s %9s %12s %12s\n' run search sets pruned "advisor ms" "best E[max]"
for size in 3 6; do
    place "$size"
    model_ms=$ms
    printf '%-34s %-12s %7s %9s %12s %12.6f\n' "place --size $size (defaults)" "$search" "$sets" \
        "$pruned" "$ms" "$emax"
    place "$size" --loss ignore
    printf '%-34s %-12s %7s %9s %12s %12.6f\n' "place --size $size --loss ignore" "$search" \
        "$sets" "$pruned" "$ms" "$emax"
    echo "$model_ms $ms" | awk -v s="$size" '{ printf "  size %d: the loss model costs %.2fx --loss ignore (goal <= 2x)\n", s, $1 / $2 }'
done
plot
model_s=$secs
plot --loss ignore
echo "plot emax --root CERN, 27 sites, sizes 1..8: $model_s s with the defaults, $secs s with --loss ignore (goal < 5 s)"
echo "load after: $(uptime | sed 's/.*load average: //')"
