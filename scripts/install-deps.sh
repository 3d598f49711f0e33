#!/bin/sh
# Install the Debian packages gridtail needs to build, test and benchmark.
# Idempotent: packages already present are left alone; apt-get update runs
# only when something is missing.
set -eu

PKGS="build-essential pkg-config
      libsqlite3-dev sqlite3
      libcurl4-openssl-dev
      libgsl-dev
      libjansson-dev
      libmicrohttpd-dev nettle-dev
      libarchive-dev xz-utils
      libcmocka-dev
      valgrind curl clang python3-mpmath prometheus
      util-linux openssl libxml2-utils chromium python3-websocket python3-jsonschema"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
# npm (for the pinned OpenAPI linter, tests/openapi): Debian's, unless the
# machine has a Node.js with npm of its own
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
[ -z "$missing" ] && { echo "install-deps: all packages present"; exit 0; }

if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# QUIET=1 (make demo): apt's output goes to a log, shown only on failure.
if [ "${QUIET:-0}" = 1 ]; then
    mkdir -p build
    log=build/deps.log
    # shellcheck disable=SC2086
    if ! { $SUDO apt-get update -q && \
           $SUDO apt-get install -y -q --no-install-recommends $missing; } >"$log" 2>&1; then
        tail -n 30 "$log"
        echo "install-deps: failed (the whole output is in $log)"
        exit 1
    fi
    echo "install-deps: done (output in $log)"
    exit 0
fi
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
