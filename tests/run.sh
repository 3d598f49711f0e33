#!/bin/sh
# Runs every test: the cmocka unit binaries, then the CLI scenario
# scripts (tests/cli/*.sh, TAP-style "ok"/"not ok" lines).  Ends with one
# line "N passed, N failed"; exits non-zero if anything failed.
# GT_VALGRIND=1 runs the CLI under valgrind with leaks as errors.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export GT_ROOT="$ROOT"
export GT_BIN="$ROOT/$BUILD/gridtail"
if [ "${GT_VALGRIND:-0}" = 1 ]; then
    export GT_WRAP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
else
    export GT_WRAP=""
fi
passed=0
failed=0
log=$(mktemp)
for t in "$ROOT/$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    (cd "$ROOT" && "$t") >"$log" 2>&1
    rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    p=${p:-0}
    f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1   # crashed or exited before reporting
    fi
    if [ "$f" -ne 0 ]; then
        echo "FAIL $name (exit $rc):"
        grep -E '^\[  (FAILED|  ERROR)|Error|error|FAIL' "$log" | head -n 30
        tail -n 5 "$log"
    else
        echo "ok   $name: $p passed"
    fi
    passed=$((passed + p))
    failed=$((failed + f))
done
for s in "$ROOT"/tests/cli/*.sh; do
    name=$(basename "$s")
    work=$(mktemp -d)
    (cd "$work" && sh "$s") >"$log" 2>&1
    rc=$?
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
    fi
    if [ "$f" -ne 0 ]; then
        echo "FAIL $name (exit $rc):"
        grep -B 3 -A 8 '^not ok ' "$log" | head -n 60
        [ "$rc" -ne 0 ] && tail -n 10 "$log"
    else
        echo "ok   $name: $p passed"
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    rm -rf "$work"
done
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
