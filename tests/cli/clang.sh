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
bad=0
for f in src/*/*.c collectors/*.c db/*.c db/*/*.c estimators/*.c estimators/*/*.c tests/unit/*.c; do
    # shellcheck disable=SC2086
    clang $flags -fsyntax-only "$f" 2>>"$OLDPWD/clang.err" || { echo "  $f"; bad=1; }
done
check "every file compiles with clang -Werror" [ $bad = 0 ]
[ $bad = 0 ] || head -20 "$OLDPWD/clang.err"
