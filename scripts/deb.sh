#!/bin/sh
# deb.sh - `make deb`: the Debian package gridtail_VERSION_ARCH.deb, at
# the top of the tree.
#
# Built by dpkg-buildpackage from debian/ (debhelper, dh, compat 13) in a
# copy of the tree, build/deb/gridtail-VERSION/, so that the build's
# by-products (.buildinfo, .changes, debian/gridtail/) stay under build/
# and not beside the clone; then checked by lintian, which must report
# no error and no warning (its output is printed).  The version is
# src/base/version.h's, which debian/changelog must carry.  The packages
# the build needs (Build-Depends, dpkg-dev, lintian) come first from
# `scripts/install-deps.sh deb`.  DEB_BUILD_OPTIONS is passed on (e.g.
# parallel=2, nocheck); by default parallel= the number of CPUs.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}

version=$(sed -n 's/^#define GT_VERSION "\(.*\)"$/\1/p' src/base/version.h)
deb_version=$(dpkg-parsechangelog -S Version)
if [ "$version" != "$deb_version" ]; then
    echo "deb: debian/changelog is at $deb_version, src/base/version.h at $version:" >&2
    echo "  add a debian/changelog entry (dch -v $version) first" >&2
    exit 1
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
top=$BUILD/deb
src=$top/gridtail-$version
deb=gridtail_${version}_$arch.deb

# The copy: the files git knows of (tracked, or new and not ignored), or
# without git every file but the build trees
rm -rf "$top"
mkdir -p "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard |
        tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$src"
else
    tar --exclude=./build --exclude='./build-*' --exclude=./gridtail --exclude=./demo \
        --exclude='*.deb' -cf - . | tar -xf - -C "$src"
fi

: "${DEB_BUILD_OPTIONS:=parallel=$(nproc 2>/dev/null || echo 1)}"
export DEB_BUILD_OPTIONS
echo "deb: building $deb in $src (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS)"
(cd "$src" && dpkg-buildpackage -b -us -uc) >"$top/build.log" 2>&1 || {
    tail -n 40 "$top/build.log" >&2
    echo "deb: dpkg-buildpackage failed (the whole log: $top/build.log)" >&2
    exit 1
}
cp "$top/$deb" "$deb"
echo "deb: $deb ($(du -k "$deb" | cut -f1) kB); lintian:"
lintian --fail-on error,warning "$top/gridtail_${version}_$arch.changes" || {
    echo "deb: lintian reports errors or warnings (above)" >&2
    exit 1
}
echo "deb: lintian reports no error and no warning"
