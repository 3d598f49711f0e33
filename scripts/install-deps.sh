#!/bin/sh
# Install what gridtail needs, from Debian's packages (and npm's, for the
# OpenAPI linter), on a Debian 12 machine.
#
#   sh scripts/install-deps.sh build   what `make` and `make demo` need: a
#                                      compiler and the libraries
#   sh scripts/install-deps.sh fuzz    the build packages and clang with
#                                      libFuzzer, for `make fuzz`
#   sh scripts/install-deps.sh deb     the build packages and what `make
#                                      deb` uses: debhelper, dpkg-dev, lintian
#   sh scripts/install-deps.sh test    that, and what `make check` uses:
#                                      cmocka, the tools the tests start
#                                      (sqlite3, PostgreSQL 15, curl,
#                                      chromium, valgrind, clang,
#                                      prometheus, ...) and the pinned
#                                      OpenAPI linter
#
# Idempotent and quick when all is there: packages already installed are
# left alone, apt-get update runs only when something is missing, the
# linter is installed again only when its lock file changed.  As root, or
# through sudo.  QUIET=1 (make demo) keeps apt's output in build/deps.log,
# shown only on failure.  A failure says what is missing and how to get it.
set -eu
cd "$(dirname "$0")/.."
what=${1:-test}

BUILD_PKGS="build-essential pkg-config
      libsqlite3-dev libcurl4-openssl-dev libgsl-dev libjansson-dev
      libmicrohttpd-dev nettle-dev libarchive-dev xz-utils libpq-dev"
# postgresql-15: the server the tests start for themselves, in a
# temporary directory (tests/pg/server.sh).  Installing it also makes
# Debian's own cluster (15/main, port 5432), which the tests do not use:
# where systemd runs it is started; in a chroot or container without a
# running init, invoke-rc.d does not start it and the install succeeds.
# prometheus (promtool), prometheus-alertmanager,
# prometheus-blackbox-exporter and prometheus-smokeping-prober likewise
# start their
# Debian services where systemd runs; the tests start their own, on free
# loopback ports.  groff-base: tests/cli/manpage.sh checks that groff
# warns of nothing in docs/gridtail.1.
TEST_PKGS="libcmocka-dev sqlite3 postgresql-15 postgresql-client-15
      valgrind curl clang python3-mpmath prometheus prometheus-alertmanager
      util-linux iproute2 openssl libxml2-utils systemd strace
      chromium python3-websocket python3-jsonschema python3-yaml bzip2 gzip
      prometheus-blackbox-exporter prometheus-smokeping-prober groff-base"
# make fuzz: clang and its libFuzzer runtime
FUZZ_PKGS="clang libclang-rt-14-dev"
# make deb: debian/control's Build-Depends are BUILD_PKGS; dpkg-buildpackage
# and debhelper build, lintian checks
DEB_PKGS="debhelper dpkg-dev lintian"
# The OpenAPI linter (tests/openapi/package-lock.json, pinned to a
# version whose engines Debian 12's nodejs 18 and npm 9 satisfy)
LINT_DIR=build/openapi-lint

case $what in
    build) PKGS=$BUILD_PKGS ;;
    test)  PKGS="$BUILD_PKGS $TEST_PKGS" ;;
    fuzz)  PKGS="$BUILD_PKGS $FUZZ_PKGS" ;;
    deb)   PKGS="$BUILD_PKGS $DEB_PKGS" ;;
    *) echo "usage: sh scripts/install-deps.sh build|test|fuzz|deb" >&2; exit 1 ;;
esac

# Not Debian: nothing to install with; the build goes on when pkg-config
# finds the libraries (installed by hand, or by another package manager)
if ! command -v dpkg-query >/dev/null 2>&1; then
    libs="sqlite3 libcurl gsl jansson libmicrohttpd libarchive nettle libpq"
    [ "$what" = test ] && libs="$libs cmocka"
    pkg-config --exists $libs 2>/dev/null && exit 0
    echo "install-deps: no dpkg here; install the development files of: $libs" >&2
    exit 1
fi

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
# npm: Debian's, unless the machine has a Node.js with npm of its own
[ "$what" = test ] && ! command -v npm >/dev/null 2>&1 && missing="$missing nodejs npm"

# run_logged CMD...: runs it; with QUIET=1 its output goes to build/deps.log
run_logged() {
    if [ "${QUIET:-0}" = 1 ]; then
        mkdir -p build
        "$@" >>build/deps.log 2>&1 && return 0
        tail -n 30 build/deps.log
        echo "install-deps: failed (the whole output is in build/deps.log)"
        return 1
    fi
    "$@"
}

apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    $SUDO apt-get update -q && $SUDO apt-get install -y -q --no-install-recommends "$@"
}

if [ -n "$missing" ]; then
    SUDO=
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || {
            echo "install-deps: missing:$missing; not root and no sudo: as root," >&2
            echo "  apt-get install$missing" >&2
            exit 1
        }
        SUDO=sudo
    fi
    echo "install-deps: installing:$missing"
    # shellcheck disable=SC2086
    run_logged apt_install $missing || {
        echo "install-deps: could not install:$missing" >&2
        echo "  (apt-get needs Debian's package archive; see build/deps.log or the output above)" >&2
        exit 1
    }
    [ "${QUIET:-0}" = 1 ] && echo "install-deps: done (output in build/deps.log)"
elif [ "${QUIET:-0}" != 1 ]; then
    echo "install-deps: the $what packages are present"
fi

[ "$what" = test ] || exit 0

lint_install() {
    rm -rf "$LINT_DIR"
    mkdir -p "$LINT_DIR"
    cp tests/openapi/package.json tests/openapi/package-lock.json "$LINT_DIR/"
    (cd "$LINT_DIR" && npm ci --no-audit --no-fund --ignore-scripts) >"$LINT_DIR.log" 2>&1
}
if ! cmp -s tests/openapi/package-lock.json "$LINT_DIR/package-lock.json" ||
   [ ! -x "$LINT_DIR/node_modules/.bin/redocly" ]; then
    echo "install-deps: installing the OpenAPI linter (tests/openapi/package-lock.json) into $LINT_DIR"
    lint_install || {
        tail -n 20 "$LINT_DIR.log" >&2
        echo "install-deps: npm ci of the OpenAPI linter failed (whole output: $LINT_DIR.log);" >&2
        echo "  it needs npm and the npm registry: 'sh scripts/install-deps.sh test' tries again" >&2
        exit 1
    }
fi
