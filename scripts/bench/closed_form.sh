#!/bin/sh
# Where the Pareto inclusion-exclusion closed form stops paying: its
# cancellation bound, its accuracy against integration and its time, for
# n distinct partners and for one growing group (see closed_form.c).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=${LIB:-$ROOT/build/libgridtail.a}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cc -O2 -std=c11 -I"$ROOT/src" -I"$ROOT" -o "$WORK/cf" "$ROOT/scripts/bench/closed_form.c" "$LIB" \
    $(pkg-config --libs gsl jansson) -lm
"$WORK/cf"
