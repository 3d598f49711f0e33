#!/bin/sh
# E[max] benchmark: n = 4, 16, 64, 1024 and 10000 heterogeneous partners
# (half Pareto, half normal, parameters drawn with a fixed seed), timed in
# gridtail (gt_emax, median of repeated runs, no process start) and, in
# the same run, in SciPy (integrate.quad of the same integrand, numpy
# vectorized).  Prints both values, their relative difference, the times
# and the ratio.  Needs Debian's python3-scipy (installed if missing).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=${LIB:-$ROOT/build/libgridtail.a}
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if ! $PY -c 'import scipy' 2>/dev/null; then
    echo "installing python3-scipy for the SciPy peer..."
    apt-get install -y -q python3-scipy >/dev/null
fi
cc -O2 -std=c11 -I"$ROOT/src" -I"$ROOT" -o "$WORK/driver" "$ROOT/scripts/bench/emax_driver.c" "$LIB" \
    $(pkg-config --libs gsl jansson) -lm
printf '%6s  %-18s %-13s %10s   %-18s %10s   %9s %8s\n' n gridtail method ms scipy ms rel.diff ratio
for n in 4 16 64 1024 10000; do
    awk -v n="$n" 'BEGIN { srand(20261122); for (i = 0; i < n; i++) {
        u = rand(); v = rand();
        if (i % 2) printf "pareto %.6f %.6f\n", 20 + 30 * u, 2 + 20 * v;
        else printf "normal %.6f %.6f\n", 30 + 30 * u, 1 + 5 * v } }' > "$WORK/p.txt"
    reps=51; [ "$n" -ge 1024 ] && reps=21
    set -- $("$WORK/driver" $reps < "$WORK/p.txt")
    gv=$1 gm=$2 gt=$3
    set -- $($PY "$ROOT/scripts/bench/emax_scipy.py" 3 < "$WORK/p.txt")
    sv=$1 st=$3
    awk -v n="$n" -v gv="$gv" -v gm="$gm" -v gt="$gt" -v sv="$sv" -v st="$st" 'BEGIN {
        d = gv - sv; if (d < 0) d = -d
        printf "%6d  %-18.12f %-13s %10.3f   %-18.12f %10.3f   %9.2e %7.1fx\n", n, gv, gm, gt, sv, st, d / sv, st / gt }'
done
