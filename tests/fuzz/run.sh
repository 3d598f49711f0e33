#!/bin/sh
# tests/fuzz/run.sh DIR RUNS TARGET...: each libFuzzer target in DIR runs
# RUNS inputs, starting from its seeds (tests/fuzz/seeds/TARGET/) and a
# corpus of its own kept in DIR/corpus/TARGET (it grows run after run).
# A crash, a leak, a sanitizer report or an abort() of a target's own
# check stops that target and leaves the input as DIR/crash-TARGET-*;
# the status is 1 when any target found something.
set -u
dir=$1
runs=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
found=0
for t in "$@"; do
    mkdir -p "$dir/corpus/$t"
    log="$dir/$t.log"
    start=$(date +%s)
    "$dir/$t" -runs="$runs" -seed=1 -max_len=65536 -rss_limit_mb=2048 -timeout=60 \
        -artifact_prefix="$dir/crash-$t-" "$dir/corpus/$t" "$root/tests/fuzz/seeds/$t" \
        > "$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    done_line=$(grep -E '^Done [0-9]+ runs' "$log" | tail -n 1)
    if [ $rc -eq 0 ] && [ -n "$done_line" ]; then
        echo "fuzz: $t: clean: $done_line ($(ls "$dir/corpus/$t" | wc -l) inputs in its corpus)"
    else
        echo "fuzz: $t: FOUND something (status $rc, ${secs} s); the input and report:"
        ls "$dir"/crash-"$t"-* 2>/dev/null | sed 's/^/  /'
        grep -E 'ERROR|SUMMARY|runtime error|deadly' "$log" | head -n 5 | sed 's/^/  /'
        echo "  the whole report: $log"
        found=1
    fi
done
exit $found
