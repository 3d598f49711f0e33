#!/bin/sh
# Runs the tests: the cmocka unit binaries (build/tests/test_*), the CLI
# scenario scripts (tests/cli/*.sh, TAP: "ok"/"not ok" lines, a plan
# "1..N", and "ok - what # SKIP why" for a check that could not run), and
# the scripts written for both stores once more on PostgreSQL.  The jobs
# run in parallel, each script in a folder of its own (its own store;
# servers listen on ports the kernel picks).  Ends with one line
# "N passed, N failed, N skipped", the skipped checks named above it, and
# the ten slowest jobs; exits non-zero if anything failed.
#
#   sh tests/run.sh [-j N] [--quick] [--retest] [--list] [PATTERN ...]
#
#   -j N       jobs at once (default GT_JOBS, else 2 per CPU: most
#              scripts wait on servers and sleeps, not on the CPU)
#   --quick    the quick tier: the unit binaries and the scripts not
#              marked "# tier: slow", SQLite only (under a minute)
#   --retest   only the jobs that failed in the last run
#              ($BUILD/test-failed.txt)
#   --list     print the jobs that would run, and stop
#   PATTERN    shell patterns on job names: test_calibrate, 'calib*',
#              'estimate.sh', 'estimate.sh[postgresql]'; a script's name
#              selects both of its passes.  T="..." or GT_TESTS="..." in
#              the environment add patterns.
#
# A script counts as failed as a whole (one failure more) when it exits
# non-zero, prints no plan, or ran another number of checks than it
# planned: a script that dies half-way must not pass on what it did
# before.  Likewise a unit binary that does not run the tests it
# announced, or exits non-zero.
#
# Each job's wall and CPU time go to $BUILD/test-times.tsv, the jobs that
# failed to $BUILD/test-failed.txt (make retest reads it), each job's
# output to $BUILD/test-logs/.  A PostgreSQL server is started only when
# a selected job needs one.
# GT_VALGRIND=1 runs the CLI under valgrind with leaks as errors.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNNER="$ROOT/tests/run.sh"
export GT_ROOT="$ROOT" BUILD
export GT_BIN="$ROOT/$BUILD/gridtail"

# ---- one job, in a process of its own: sh tests/run.sh --job ID OUTDIR.
# Writes OUTDIR/ID.res: "passed failed skipped wall cpu" and the reason a
# job failed as a whole; OUTDIR/ID.log its output; OUTDIR/ID.skip the
# checks it skipped; prints one line when done.
job_unit() {   # job_unit NAME
    (cd "$ROOT" && "$ROOT/$BUILD/tests/$1") >"$log" 2>&1
    rc=$?
    count() { sed -n "s/^\[  $1 *\] \([0-9]*\) test.*/\1/p" "$log" | tail -n 1; }
    p=$(count PASSED) f=$(count FAILED) s=$(count SKIPPED)
    p=${p:-0} f=${f:-0} s=${s:-0}
    planned=$(sed -n 's/^\[==========\] Running \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    ran=$(sed -n 's/^\[==========\] \([0-9]*\) test(s) run\..*/\1/p' "$log" | tail -n 1)
    why=""
    if [ -z "$planned" ] || [ "${ran:-x}" != "$planned" ]; then
        why="planned ${planned:-none}, ran ${ran:-none}"
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        why="exit $rc"
    fi
    sed -n 's/^\[  SKIPPED \] \(.*\)/\1/p' "$log" | grep -v ' test(s)' | sort -u |
        sed "s|^|  $1: |" > "$skipf"
    if [ "$f" -ne 0 ] || [ -n "$why" ]; then
        { grep -E '^\[  (FAILED|  ERROR)|Error|error|FAIL' "$log" | head -n 30
          tail -n 5 "$log"; } > "$excerpt"
    fi
}

job_script() {   # job_script NAME.sh STORE
    work=$(mktemp -d)
    (cd "$work" && GT_STORE=$2 sh "$ROOT/tests/cli/$1" </dev/null) >"$log" 2>&1
    rc=$?
    rm -rf "$work"
    s=$(grep -c '^ok .*# SKIP' "$log")
    p=$(grep '^ok ' "$log" | grep -vc '# SKIP')
    f=$(grep -c '^not ok ' "$log")
    planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" | tail -n 1)
    ran=$((p + f + s))
    why=""
    if [ -z "$planned" ]; then
        why="no plan: the script did not say how many checks it runs"
    elif [ "$ran" -ne "$planned" ]; then
        why="planned $planned checks, ran $ran"
    elif [ "$rc" -ne 0 ]; then
        why="exit $rc"
    fi
    # one line per reason, with its count when a skip stands for several
    sed -n 's/^ok - \(.*\) # SKIP \(.*\)/\1 (skipped: \2)/p' "$log" | uniq -c |
        awk -v id="$id" '{ n = $1; sub(/^ *[0-9]+ /, "")
            print "  " id ": " $0 (n > 1 ? " x" n : "") }' > "$skipf"
    if [ "$f" -ne 0 ] || [ -n "$why" ]; then
        { grep -B 3 -A 8 '^not ok ' "$log" | head -n 60
          if [ "$rc" -ne 0 ] || [ -n "$why" ]; then tail -n 10 "$log"; fi; } > "$excerpt"
    fi
}

job_pg_skipped() {   # job_pg_skipped NAME.sh: no server, its checks skip
    n=$(sed -n 's/^plan \([0-9][0-9]*\)\( \([0-9][0-9]*\)\)\{0,1\}$/\1 \3/p' \
        "$ROOT/tests/cli/$1" | head -n 1 | awk '{ print $NF }')
    p=0 f=0 s=${n:-1} why=""
    echo "  $id: all $s checks (skipped: ${GT_PG_SKIP:-no GT_PG_URL})" > "$skipf"
}

run_job() {   # run_job ID OUTDIR
    id=$1
    base=$2/$(echo "$id" | tr '[]/' '__-')
    log=$base.log skipf=$base.skip excerpt=$base.fail
    rm -f "$excerpt"
    t0=$(date +%s.%N)
    case $id in
        test_*) job_unit "$id" ;;
        *'[postgresql]')
            if [ -n "${GT_PG_URL:-}" ]; then
                job_script "${id%\[postgresql\]}" postgresql
            else
                job_pg_skipped "${id%\[postgresql\]}"
            fi ;;
        *) job_script "$id" sqlite ;;
    esac
    t1=$(date +%s.%N)
    # the CPU time of this job's children (the second line of `times`)
    times > "$base.times"   # not in $(...): a subshell counts no children
    cpu=$(sed -n 2p "$base.times" | awk '{ n = split($1 " " $2, a, " "); s = 0;
        for (i = 1; i <= n; i++) { split(a[i], b, "m"); s += b[1] * 60 + b[2] } printf "%.1f", s }')
    wall=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')
    [ -n "$why" ] && f=$((f + 1))
    printf '%s %s %s %s %s %s\n' "$p" "$f" "$s" "$wall" "$cpu" "$why" > "$base.res"
    if [ "$f" -ne 0 ]; then
        echo "FAIL $id${why:+ ($why)} [${wall} s]"
    else
        echo "ok   $id: $p passed$([ "$s" -gt 0 ] && echo ", $s skipped") [${wall} s]"
    fi
}

if [ "${1:-}" = --job ]; then
    run_job "$2" "$3"
    exit 0
fi

# ---- the whole run
jobs=${GT_JOBS:-}
quick=0 retest=0 list=0
patterns="${T:-} ${GT_TESTS:-}"
while [ $# -gt 0 ]; do
    case $1 in
        -j) jobs=$2; shift ;;
        -j*) jobs=${1#-j} ;;
        --quick) quick=1 ;;
        --retest) retest=1 ;;
        --list) list=1 ;;
        -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run.sh: unknown option $1 (--help)" >&2; exit 1 ;;
        *) patterns="$patterns $1" ;;
    esac
    shift
done
if [ -z "$jobs" ]; then
    jobs=$(($(nproc 2>/dev/null || echo 1) * 2))
fi
case $jobs in '' | *[!0-9]* | 0) echo "run.sh: -j wants a number of jobs, got '$jobs'" >&2; exit 1 ;; esac
if [ "${GT_VALGRIND:-0}" = 1 ]; then
    export GT_WRAP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
else
    export GT_WRAP=""
fi

# wanted ID: does a pattern select it (all when there is none)?  A
# script's pattern selects its PostgreSQL pass too.
wanted() {
    case $patterns in *[!\ ]*) ;; *) return 0 ;; esac
    plain=${1%\[postgresql\]}
    for w in $patterns; do
        case $w in
            *'[postgresql]')   # one script's PostgreSQL pass, by its name
                w=${w%\[postgresql\]}
                [ "$1" = "${w%.sh}.sh[postgresql]" ] && return 0
                continue ;;
        esac
        # shellcheck disable=SC2254
        case $plain in $w | $w.sh) return 0 ;; esac
    done
    return 1
}
# The jobs in the order they start: the slowest of the last run first
# (else the scripts marked slow and the PostgreSQL passes first), so that
# the run does not end waiting on one long job.
slow_list=" $(cd "$ROOT/tests/cli" && grep -l '^# tier: slow' -- *.sh | tr '\n' ' ') "
pg_list=" $(cd "$ROOT/tests/cli" && grep -l '^# stores:.*postgresql' -- *.sh | tr '\n' ' ') "
listed() {   # listed NAME LIST
    case $2 in *" $1 "*) return 0 ;; esac
    return 1
}
times_file="$ROOT/$BUILD/test-times.tsv"
failed_file="$ROOT/$BUILD/test-failed.txt"
all=$(mktemp)
for t in "$ROOT/$BUILD"/tests/test_*; do
    [ -x "$t" ] && echo "1 ${t##*/}"
done > "$all"
for s in "$ROOT"/tests/cli/*.sh; do
    n=${s##*/}
    if listed "$n" "$slow_list"; then
        [ "$quick" = 1 ] && continue
        echo "60 $n"
    else
        echo "10 $n"
    fi
    [ "$quick" = 0 ] && listed "$n" "$pg_list" && echo "30 $n[postgresql]"
done >> "$all"
ordered=$(mktemp)
while read -r guess id; do
    wanted "$id" || continue
    if [ "$retest" = 1 ]; then
        grep -qxF "$id" "$failed_file" 2>/dev/null || continue
    fi
    printf '%s\t%s\n' "$id" "$guess"
done < "$all" > "$all.sel"
[ -f "$times_file" ] || : > "$times_file"
awk -F '\t' -v tf="$times_file" 'FILENAME == tf { t[$1] = $2; next } { print (($1 in t) ? t[$1] : $2) "\t" $1 }' \
    "$times_file" "$all.sel" | sort -t "$(printf '\t')" -k1,1nr | cut -f 2 > "$ordered"
rm -f "$all" "$all.sel"
if [ "$list" = 1 ]; then
    cat "$ordered"
    rm -f "$ordered"
    exit 0
fi
if [ ! -s "$ordered" ]; then
    echo "run.sh: no test matches${patterns:+ '$(echo $patterns)'}$([ "$retest" = 1 ] && echo ' among the last run'\''s failures')"
    rm -f "$ordered"
    [ "$retest" = 1 ] && exit 0
    exit 1
fi

out=$(mktemp -d)
pybin=""
pg_dir=""
cleanup() {
    if [ -n "$pg_dir" ]; then
        sh "$ROOT/tests/pg/server.sh" stop "$pg_dir" && rm -rf "$pg_dir"
    fi
    [ -z "$pybin" ] || rm -rf "$pybin"
    rm -rf "$out" "$ordered"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# What several scripts build alike (lib.inc's demo_store) is made once a
# run, here.
GT_FIXTURES="$out/fixtures"
mkdir -p "$GT_FIXTURES"
export GT_FIXTURES

# The tests' python3 is Debian's, with the packages scripts/install-deps.sh
# installs, whatever python3 comes first on PATH: a version manager's shim
# (pyenv) costs 0.4 s a start, and may lack those packages.
if [ -x /usr/bin/python3 ]; then
    pybin=$(mktemp -d)
    ln -s /usr/bin/python3 "$pybin/python3"
    PATH="$pybin:$PATH"
    export PATH
fi

# A PostgreSQL 15 server for the jobs that use one (issue 25), started
# once for the run by tests/pg/server.sh in a temporary directory (as an
# unprivileged user, on a socket there and on 127.0.0.1) and stopped at
# the end, also when the run is interrupted: the postmaster runs in a
# session of its own, a Ctrl-C does not reach it.  The tests read
# GT_PG_URL (database gridtail_test), GT_PG_BIN and GT_PG_DIR, or, when
# none could be started, skip with GT_PG_SKIP, why.  A GT_PG_URL given
# from outside is used as it is: nothing started, no GT_PG_DIR.
needs_pg() {
    while read -r id; do
        case $id in *'[postgresql]') return 0 ;; test_*) continue ;; esac
        grep -q 'GT_PG_URL\|GT_PG_SKIP\|store_is postgresql' "$ROOT/tests/cli/$id" && return 0
    done < "$ordered"
    return 1
}
PG_BIN=${GT_PG_BIN:-/usr/lib/postgresql/15/bin}
unset pg_why GT_PG_SKIP GT_PG_DIR
if ! needs_pg; then
    :
elif [ -n "${GT_PG_URL:-}" ]; then
    [ -x "$PG_BIN/psql" ] && export GT_PG_BIN="$PG_BIN"
    echo "postgres: the tests use the server GT_PG_URL names"
elif [ ! -x "$PG_BIN/postgres" ]; then
    pg_why="no server at $PG_BIN (sh scripts/install-deps.sh test)"
else
    pg_dir=$(mktemp -d)
    if sh "$ROOT/tests/pg/server.sh" start "$pg_dir" >"$out/pg.log" 2>&1; then
        GT_PG_URL=$(cat "$pg_dir/url")
        export GT_PG_URL GT_PG_BIN="$PG_BIN" GT_PG_DIR="$pg_dir"
        echo "postgres: $(tail -n 1 "$out/pg.log")"
    else
        pg_why=$(sed -n '/^pg-server: /{ s///; s/ (log: .*)$//; p; }' "$out/pg.log" | tail -n 1)
        rm -rf "$pg_dir"
        pg_dir=""
    fi
fi
if [ -n "${pg_why+set}" ]; then
    export GT_PG_SKIP="no PostgreSQL: ${pg_why:-tests/pg/server.sh start failed}"
    echo "postgres: not started, the tests that use it skip: ${pg_why:-tests/pg/server.sh start failed}"
fi

n=$(wc -l < "$ordered")
[ "$n" = 1 ] && echo "running 1 job" || echo "running $n jobs, $jobs at once"
t0=$(date +%s)
tr '\n' '\0' < "$ordered" | xargs -0 -P "$jobs" -I '{}' sh "$RUNNER" --job '{}' "$out"
wall=$(($(date +%s) - t0))

# ---- the tally, in the jobs' order
passed=0 failed=0 skipped=0
mkdir -p "$ROOT/$BUILD/test-logs"
: > "$failed_file.new"
times_new=$(mktemp)
while read -r id; do
    base=$out/$(echo "$id" | tr '[]/' '__-')
    if [ ! -f "$base.res" ]; then
        echo "FAIL $id: it did not finish (interrupted?)"
        failed=$((failed + 1))
        echo "$id" >> "$failed_file.new"
        continue
    fi
    read -r p f s w c why < "$base.res"
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
    printf '%s\t%s\t%s\n' "$id" "$w" "$c" >> "$times_new"
    [ -f "$base.log" ] && cp "$base.log" "$ROOT/$BUILD/test-logs/$(basename "$base").log"
    if [ "$f" -ne 0 ]; then
        echo "$id" >> "$failed_file.new"
        echo "---- FAIL $id${why:+ ($why)}:"
        cat "$base.fail" 2>/dev/null
    fi
    cat "$base.skip" >> "$out/skips" 2>/dev/null
done < "$ordered"
mv "$failed_file.new" "$failed_file"
# the times of this run's jobs replace theirs in the file; the others stay
if [ -f "$times_file" ]; then
    awk -F '\t' 'NR == FNR { seen[$1] = 1; print; next } !($1 in seen)' \
        "$times_new" "$times_file" > "$times_file.new"
else
    cp "$times_new" "$times_file.new"
fi
mv "$times_file.new" "$times_file"

echo "the ten slowest (wall s, CPU s):"
sort -t "$(printf '\t')" -k2,2nr "$times_new" | head -n 10 |
    awk -F '\t' '{ printf "  %7.1f %7.1f  %s\n", $2, $3, $1 }'
awk -F '\t' -v n="$n" -v w="$wall" -v f="$BUILD/test-times.tsv" '{ c += $3 } END {
    printf "%d jobs in %d s wall, %.0f s CPU (each job'"'"'s: %s)\n", n, w, c, f }' "$times_new"
rm -f "$times_new"
if [ -s "$out/skips" ]; then
    echo "skipped:"
    cat "$out/skips"
fi
[ "$failed" -eq 0 ] || echo "failed: $(tr '\n' ' ' < "$failed_file")(make retest runs them again)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
