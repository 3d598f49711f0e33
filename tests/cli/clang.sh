# tier: slow
# `make CC=clang` builds: every source file passes clang's front end with
# the project's warnings as errors (the full clang build is `make
# CC=clang`; this check is the fast part of it).
. "$GT_ROOT/tests/cli/lib.inc"
plan 1
if ! command -v clang >/dev/null; then
    skip "every file compiles with clang -Werror" "clang is not installed (scripts/install-deps.sh installs it)"
    exit 0
fi
cd "$GT_ROOT"
flags="-std=c11 -Wall -Wextra -Werror -Wstrict-prototypes -Wshadow -Wformat=2 -Isrc -I. -pthread $(pkg-config --cflags sqlite3 libpq libcurl gsl jansson libmicrohttpd libarchive cmocka)"
# a file takes clang's front end about a second: the files go to every
# core, eight to a process, each file's messages to a file of its own
jobs=$(($(nproc 2>/dev/null || echo 1) * 2))
errdir="$OLDPWD/clang.d"
mkdir -p "$errdir"
export flags errdir
ls src/*/*.c collectors/*.c db/*.c db/*/*.c estimators/*.c estimators/*/*.c tests/unit/*.c |
    xargs -P "$jobs" -n 8 sh -c '
        for f; do
            # shellcheck disable=SC2086
            clang $flags -fsyntax-only "$f" 2>"$errdir/$(echo "$f" | tr / _).err" ||
                echo "$f" >> "$errdir/$(echo "$f" | tr / _).bad"
        done' sh
bad=0
for b in "$errdir"/*.bad; do
    [ -e "$b" ] || continue
    sed 's/^/  /' "$b"
    bad=1
done
cat "$errdir"/*.err > "$OLDPWD/clang.err" 2>/dev/null
check "every file compiles with clang -Werror" [ $bad = 0 ]
[ $bad = 0 ] || head -20 "$OLDPWD/clang.err"
