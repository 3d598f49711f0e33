#!/bin/sh
# HTTP API under load (issue 14): wrk (Debian package) posts the same
# estimate over 8 connections for DURATION (default 30 s), for 8 and for
# 64 partners, while a remote collector pushes 200 new samples every
# second (ingest --push); then the baseline of the same invocation: the
# same question asked by running `gridtail estimate --json` once per
# question.  Prints requests/s, the latency percentiles, errors, the
# samples pushed meanwhile, the server's CPU time per answer, and the
# ratio to the baseline.
# Then the data users have: a day of the demo's 27 sites (synth --span 1d
# --seed REAL_SEED, default 2026: 0.5 % loss with bursts, spikes, level shifts, outages, and
# windows that fall back to their samples), its fits cached by refit, a
# second server on it: 8 partners of CERN asked with the defaults (the
# loss model) and with "loss": "ignore", DURATION each, no pusher.
# Target: >= 5,000 requests/s for 8 partners with p99 <= 10 ms, 0 errors;
# on the realistic store the defaults at least half the rate of "ignore".
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
DURATION=${DURATION:-30s}
REAL_SEED=${REAL_SEED:-2026}
command -v wrk >/dev/null || { echo "serve_wrk.sh: needs wrk (apt-get install wrk)"; exit 1; }
W=$(mktemp -d)
PID2=
trap 'kill $PID $PUSHER $PID2 2>/dev/null || true; rm -rf "$W"' EXIT
cd "$W"
export GRIDTAIL_CONFIG=$W/bench.ini
# a star of 70 sites around s00, 90 minutes of Pareto RTTs a pair
. "$ROOT/scripts/bench/stores.inc"
pareto_csv 70 star > in.csv
: > bench.ini
"$BIN" --db b.db init > /dev/null
"$BIN" --db b.db ingest --quiet csv in.csv
# the pushed pair exists before refit, as in a running grid: its pushes
# make only its own fit stale
printf 'ts,src,dst,rtt_ms\n1795305600,p01,p02,20\n' | "$BIN" --db b.db ingest --quiet csv -
"$BIN" --db b.db refit > /dev/null
"$BIN" token new --scope write --json > t.json
sed -n 's/^ *"line": "\(.*\)",*$/\1/p' t.json > tokens
sed -n 's/^ *"token": "\(.*\)",*$/\1/p' t.json > token
printf '[server]\ntokens_file = %s/tokens\n[ingest]\nspool_dir = %s/spool\n' "$W" "$W" > bench.ini
"$BIN" --db b.db serve --listen 127.0.0.1:0 --port-file port --quiet --threads 4 2> serve.log &
PID=$!
while [ ! -s port ]; do sleep 0.05; done
URL="http://127.0.0.1:$(cat port)"
AT=2026-11-22T01:30:00Z
sites() { i=1; s=; while [ $i -le "$1" ]; do s="$s${s:+, }\"s$(printf %02d $i)\""; i=$((i + 1)); done; echo "$s"; }
for n in 8 64; do
    printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[{"root": "s00", "sites": [%s], "at": "%s"}]]\n' \
        "$(sites $n)" "$AT" > post$n.lua
done
# the collector: 200 samples of a new pair each second, pushed
( t=0; while :; do
    awk -v t0=$((1795311000 + 60 * 200 * t)) 'BEGIN { print "ts,src,dst,rtt_ms"; for (i = 0; i < 200; i++) printf "%d,p01,p02,%d\n", t0 + 60 * i, 20 + i % 7 }' > push.csv
    "$BIN" ingest --quiet csv push.csv --push "$URL" --token-file token > /dev/null 2>&1 || true
    t=$((t + 1)); sleep 1
  done ) &
PUSHER=$!
# the server's CPU time (user + system, clock ticks) around each run:
# CPU per answer is steadier than the rate when this machine is shared
ticks() { awk '{ print $14 + $15 }' /proc/$PID/stat; }
for n in 8 64; do
    t0=$(ticks)
    wrk -t2 -c8 -d"$DURATION" --latency -s post$n.lua "$URL/v1/estimate" > wrk$n.txt 2>&1
    echo "$t0 $(ticks)" > cpu$n.txt
done
kill $PUSHER 2>/dev/null || true
kill $PID 2>/dev/null || true
pushed=$(sqlite3 b.db "SELECT count(*) FROM samples s JOIN pairs p ON p.id = s.pair JOIN sites a ON a.id = p.src WHERE a.name = 'p01'")
# the baseline: the CLI once per question (8 partners)
N=50
list=$(sites 8 | tr -d '" ')
t0=$(date +%s.%N)
i=0
while [ $i -lt $N ]; do
    "$BIN" --db b.db estimate --root s00 --sites "$list" --at "$AT" --json > /dev/null
    i=$((i + 1))
done
t1=$(date +%s.%N)
base=$(echo "$t0 $t1 $N" | awk '{ printf "%.1f", $3 / ($2 - $1) }')
# the realistic store: the loss model against "loss": "ignore"
"$BIN" synth --span 1d --seed "$REAL_SEED" -o real.csv 2>/dev/null
"$BIN" --db r.db init > /dev/null
"$BIN" --db r.db ingest --quiet amp-csv real.csv
"$BIN" --db r.db refit > /dev/null
: > bench.ini
"$BIN" --db r.db serve --listen 127.0.0.1:0 --port-file port2 --quiet --threads 4 2> serve2.log &
PID2=$!
while [ ! -s port2 ]; do sleep 0.05; done
URL2="http://127.0.0.1:$(cat port2)"
QUESTION='"root": "CERN", "sites": ["RAL", "FNAL", "KEK", "BNL", "PIC", "DESY", "NIKHEF", "IN2P3"]'
for loss in model ignore; do
    printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[{%s, "loss": "%s"}]]\n' \
        "$QUESTION" "$loss" > real_$loss.lua
    t0=$(awk '{ print $14 + $15 }' /proc/$PID2/stat)
    wrk -t2 -c8 -d"$DURATION" --latency -s real_$loss.lua "$URL2/v1/estimate" > wrk_$loss.txt 2>&1
    echo "$t0 $(awk '{ print $14 + $15 }' /proc/$PID2/stat)" > cpu_$loss.txt
done
curl -s -X POST -H 'Content-Type: application/json' -d "{$QUESTION}" "$URL2/v1/estimate" > real.json
kill $PID2 2>/dev/null || true
echo "gridtail serve under wrk: 2 wrk threads, 8 connections, $DURATION each, 4 server threads, $(nproc) cores"
for n in 8 64; do
    rps=$(sed -n 's/^Requests\/sec: *//p' wrk$n.txt)
    p50=$(awk '$1 == "50%" { print $2 }' wrk$n.txt)
    p99=$(awk '$1 == "99%" { print $2 }' wrk$n.txt)
    errs=$(awk '/Non-2xx/ { e += $NF } /Socket errors/ { gsub(",", ""); e += $4 + $6 + $8 + $10 } END { print e + 0 }' wrk$n.txt)
    cpu=$(awk -v hz="$(getconf CLK_TCK)" -v req="$(awk '/requests in/ { print $1 }' wrk$n.txt)" \
        '{ printf "%.0f", ($2 - $1) * 1e6 / hz / req }' cpu$n.txt)
    echo "  $n partners: $rps requests/s, p50 $p50, p99 $p99, errors $errs, server CPU $cpu us an answer"
done
echo "  pushed meanwhile: $pushed samples (POST /v1/samples, 200 a second)"
echo "  baseline: gridtail estimate --json once per question: $base runs/s"
rps8=$(sed -n 's/^Requests\/sec: *//p' wrk8.txt)
echo "$rps8 $base" | awk '{ printf "  serve / baseline (8 partners): %.0fx\n", $1 / $2 }'
echo "the realistic store (a day of the demo's 27 sites, seed $REAL_SEED), 8 partners of CERN:"
for loss in model ignore; do
    f=wrk_$loss.txt
    rps=$(sed -n 's/^Requests\/sec: *//p' $f)
    p99=$(awk '$1 == "99%" { print $2 }' $f)
    errs=$(awk '/Non-2xx/ { e += $NF } /Socket errors/ { gsub(",", ""); e += $4 + $6 + $8 + $10 } END { print e + 0 }' $f)
    cpu=$(awk -v hz="$(getconf CLK_TCK)" -v req="$(awk '/requests in/ { print $1 }' $f)" \
        '{ printf "%.0f", ($2 - $1) * 1e6 / hz / req }' cpu_$loss.txt)
    echo "  loss $loss: $rps requests/s, p99 $p99, errors $errs, server CPU $cpu us an answer"
done
echo "  of the 8 partners: $(grep -c '"loss": 0\.0*[1-9]' real.json) lossy, $(grep -c '"fallback": true' real.json) on their samples (the fallback); method $(sed -n 's/^  "method": "\(.*\)",$/\1/p' real.json)"
echo "$(sed -n 's/^Requests\/sec: *//p' wrk_model.txt) $(sed -n 's/^Requests\/sec: *//p' wrk_ignore.txt)" |
    awk '{ printf "  the loss model answers %.2f times as many a second as \"ignore\" (goal >= 0.5)\n", $1 / $2 }'
