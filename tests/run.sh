#!/bin/sh
# Runs every test: the cmocka unit binaries, then the CLI scenario
# scripts (tests/cli/*.sh, TAP: "ok"/"not ok" lines, a plan "1..N", and
# "ok - what # SKIP why" for a check that could not run).  Ends with one
# line "N passed, N failed, N skipped", the skipped checks named above
# it; exits non-zero if anything failed.
#
# A script counts as failed as a whole (one failure more) when it exits
# non-zero, prints no plan, or ran another number of checks than it
# planned: a script that dies half-way must not pass on what it did
# before.  Likewise a unit binary that does not run the tests it
# announced, or exits non-zero.
# GT_VALGRIND=1 runs the CLI under valgrind with leaks as errors.
# GT_TESTS="name ..." runs only those (unit binaries or scripts, by name).
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
skipped=0
log=$(mktemp)
skips=$(mktemp)
# The tests' python3 is Debian's, with the packages scripts/install-deps.sh
# installs, whatever python3 comes first on PATH: a version manager's shim
# (pyenv) costs 0.4 s a start, and may lack those packages.
pybin=""
if [ -x /usr/bin/python3 ]; then
    pybin=$(mktemp -d)
    ln -s /usr/bin/python3 "$pybin/python3"
    PATH="$pybin:$PATH"
    export PATH
fi

# A PostgreSQL 15 server for the tests that use one (issue 25), started
# once for the run by tests/pg/server.sh in a temporary directory (as an
# unprivileged user, on a socket there and on 127.0.0.1) and stopped at
# the end, also when the run is interrupted: the postmaster runs in a
# session of its own, a Ctrl-C does not reach it.  The tests read
# GT_PG_URL (database gridtail_test), GT_PG_BIN and GT_PG_DIR, or, when
# none could be started, skip with GT_PG_SKIP, why.  A GT_PG_URL given
# from outside is used as it is: nothing started, no GT_PG_DIR.
PG_BIN=${GT_PG_BIN:-/usr/lib/postgresql/15/bin}
pg_dir=""
unset pg_why
pg_end() {
    [ -n "$pg_dir" ] || return 0
    sh "$ROOT/tests/pg/server.sh" stop "$pg_dir" && rm -rf "$pg_dir"
    pg_dir=""
}
cleanup() {
    pg_end
    [ -z "$pybin" ] || rm -rf "$pybin"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
unset GT_PG_SKIP GT_PG_DIR
if [ -n "${GT_PG_URL:-}" ]; then
    [ -x "$PG_BIN/psql" ] && export GT_PG_BIN="$PG_BIN"
    echo "postgres: the tests use the server GT_PG_URL names"
elif [ ! -x "$PG_BIN/postgres" ]; then
    pg_why="no server at $PG_BIN (sh scripts/install-deps.sh test)"
else
    pg_dir=$(mktemp -d)
    if sh "$ROOT/tests/pg/server.sh" start "$pg_dir" >"$log" 2>&1; then
        GT_PG_URL=$(cat "$pg_dir/url")
        export GT_PG_URL GT_PG_BIN="$PG_BIN" GT_PG_DIR="$pg_dir"
        echo "postgres: $(tail -n 1 "$log")"
    else
        pg_why=$(sed -n '/^pg-server: /{ s///; s/ (log: .*)$//; p; }' "$log" | tail -n 1)
        rm -rf "$pg_dir"
        pg_dir=""
    fi
fi
if [ -n "${pg_why+set}" ]; then
    export GT_PG_SKIP="no PostgreSQL: ${pg_why:-tests/pg/server.sh start failed}"
    echo "postgres: not started, the tests that use it skip: ${pg_why:-tests/pg/server.sh start failed}"
fi

wanted() {   # wanted NAME: is it among GT_TESTS (all when unset)?
    [ -z "${GT_TESTS:-}" ] && return 0
    for w in $GT_TESTS; do
        [ "$w" = "$1" ] || [ "$w" = "${1%.sh}" ] && return 0
    done
    return 1
}

# tally NAME P F S WHY: adds a test's counts; WHY (non-empty) fails it as a whole
tally() {
    name=$1 p=$2 f=$3 s=$4 why=$5
    [ -n "$why" ] && f=$((f + 1))
    if [ "$f" -ne 0 ]; then
        echo "FAIL $name${why:+ ($why)}:"
        failure_excerpt
    else
        suffix=""
        [ "$s" -gt 0 ] && suffix=", $s skipped"
        echo "ok   $name: $p passed$suffix"
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
}

for t in "$ROOT/$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    wanted "$name" || continue
    (cd "$ROOT" && "$t") >"$log" 2>&1
    rc=$?
    count() { sed -n "s/^\[  $1 *\] \([0-9]*\) test.*/\1/p" "$log" | tail -n 1; }
    p=$(count PASSED) f=$(count FAILED) s=$(count SKIPPED)
    planned=$(sed -n 's/^\[==========\] Running \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    ran=$(sed -n 's/^\[==========\] \([0-9]*\) test(s) run\..*/\1/p' "$log" | tail -n 1)
    why=""
    if [ -z "$planned" ] || [ "${ran:-x}" != "$planned" ]; then
        why="planned ${planned:-none}, ran ${ran:-none}"
    elif [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
        why="exit $rc"
    fi
    failure_excerpt() {
        grep -E '^\[  (FAILED|  ERROR)|Error|error|FAIL' "$log" | head -n 30
        tail -n 5 "$log"
    }
    sed -n 's/^\[  SKIPPED \] \(.*\)/\1/p' "$log" | grep -v ' test(s)' | sort -u |
        sed "s|^|  $name: |" >> "$skips"
    tally "$name" "${p:-0}" "${f:-0}" "${s:-0}" "$why"
done

# run_script PATH [STORE]: one scenario script in a directory of its own,
# on the SQLite store or (STORE postgresql) on the run's PostgreSQL server
run_script() {
    s=$1
    name=$(basename "$s")${2:+ [$2]}
    work=$(mktemp -d)
    (cd "$work" && GT_STORE=${2:-sqlite} sh "$s" </dev/null) >"$log" 2>&1
    rc=$?
    sk=$(grep -c '^ok .*# SKIP' "$log")
    p=$(grep '^ok ' "$log" | grep -vc '# SKIP')
    f=$(grep -c '^not ok ' "$log")
    planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" | tail -n 1)
    ran=$((p + f + sk))
    why=""
    if [ -z "$planned" ]; then
        why="no plan: the script did not say how many checks it runs"
    elif [ "$ran" -ne "$planned" ]; then
        why="planned $planned checks, ran $ran"
    elif [ "$rc" -ne 0 ]; then
        why="exit $rc"
    fi
    failure_excerpt() {
        grep -B 3 -A 8 '^not ok ' "$log" | head -n 60
        [ "$rc" -ne 0 ] || [ -n "$why" ] && tail -n 10 "$log"
    }
    sed -n 's/^ok - \(.*\) # SKIP \(.*\)/\1 (skipped: \2)/p' "$log" |
        sed "s|^|  $name: |" >> "$skips"
    tally "$name" "$p" "$f" "$sk" "$why"
    rm -rf "$work"
}

for s in "$ROOT"/tests/cli/*.sh; do
    wanted "$(basename "$s")" || continue
    run_script "$s"
done

# The scripts written for both backends (a line "# stores: sqlite
# postgresql", and lib.inc's store and sql) run again on PostgreSQL, or,
# without a server, count their planned checks as skipped, saying why
pg_t0=$(date +%s)
pg_n=0
for s in "$ROOT"/tests/cli/*.sh; do
    wanted "$(basename "$s")" || continue
    grep -q '^# stores:.*postgresql' "$s" || continue
    if [ -n "${GT_PG_URL:-}" ]; then
        run_script "$s" postgresql
        pg_n=$((pg_n + 1))
        continue
    fi
    name="$(basename "$s") [postgresql]"
    n=$(sed -n 's/^plan \([0-9][0-9]*\)$/\1/p' "$s" | head -n 1)
    echo "skip $name: ${n:-1} skipped (${GT_PG_SKIP:-no GT_PG_URL})"
    echo "  $name: all ${n:-1} checks (skipped: ${GT_PG_SKIP:-no GT_PG_URL})" >> "$skips"
    skipped=$((skipped + ${n:-1}))
done
[ "$pg_n" -eq 0 ] || echo "postgres: $pg_n scripts run again on PostgreSQL in $(($(date +%s) - pg_t0)) s"

if [ -s "$skips" ]; then
    echo "skipped:"
    cat "$skips"
fi
rm -f "$log" "$skips"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
