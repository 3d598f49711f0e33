#!/bin/sh
# HTTP API benchmark: a broker asking for N estimates (root + 8 partners,
# Pareto pairs) of a 40-site store, through `gridtail serve` (one curl
# process, 4 requests at a time) against the baseline of running
# `gridtail estimate --json` once per question; prints both rates and
# their ratio, and checks that both give the same E[max].
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
N=${N:-400}
W=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$W"' EXIT
cd "$W"
. "$ROOT/scripts/bench/stores.inc"
pareto_csv 40 > in.csv
"$BIN" --db b.db init > /dev/null
"$BIN" --db b.db ingest --quiet csv in.csv
"$BIN" --db b.db refit > /dev/null
AT=2026-11-22T01:30:00Z
"$BIN" --db b.db serve --listen 127.0.0.1:0 --port-file port --quiet --threads 4 2> serve.log &
PID=$!
while [ ! -s port ]; do sleep 0.05; done
URL="http://127.0.0.1:$(cat port)/v1/estimate"
BODY='{"root": "s00", "sites": ["s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08"], "at": "'$AT'"}'
i=0
: > curl.cfg
while [ $i -lt "$N" ]; do
    printf 'url = "%s"\noutput = "/dev/null"\n' "$URL" >> curl.cfg
    i=$((i + 1))
done
t0=$(date +%s.%N)
curl -s --no-progress-meter --parallel --parallel-max 4 -X POST -H 'Content-Type: application/json' -d "$BODY" -K curl.cfg
t1=$(date +%s.%N)
i=0
while [ $i -lt "$N" ]; do
    "$BIN" --db b.db estimate --root s00 --sites s01,s02,s03,s04,s05,s06,s07,s08 --at $AT --json > /dev/null
    i=$((i + 1))
done
t2=$(date +%s.%N)
http=$(curl -s -X POST -H 'Content-Type: application/json' -d "$BODY" "$URL" | sed -n 's/.*"e_max": \([0-9.e+-]*\),/\1/p')
cli=$("$BIN" --db b.db estimate --root s00 --sites s01,s02,s03,s04,s05,s06,s07,s08 --at $AT --json | sed -n 's/.*"e_max": \([0-9.e+-]*\),/\1/p')
echo "$t0 $t1 $t2 $N $http $cli" | awk '{
  api = $4 / ($2 - $1); cli = $4 / ($3 - $2);
  printf "serve: %d estimates in %.2f s: %.0f requests/s (4 at a time)\n", $4, $2 - $1, api;
  printf "CLI:   %d estimates in %.2f s: %.0f runs/s (one process each)\n", $4, $3 - $2, cli;
  printf "ratio %.1fx; E[max] %s ms by HTTP, %s ms by the CLI (%s)\n", api / cli, $5, $6,
         $5 == $6 ? "same" : "DIFFERENT" }'
