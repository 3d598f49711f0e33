#!/bin/sh
# The dashboard's first render: the demo's store (27 sites, 3 days, as
# `make demo` and tests/cli/dashboard.sh make it) served by `gridtail
# serve`, the page loaded LOADS times (default 10), each afresh, in
# headless chromium (tests/browser/dashboard.py --bench): the page's own
# performance.now() when its matrix and map are drawn, from the start of
# the navigation.  Prints each load and the median, minimum and maximum.
# Needs chromium and python3-websocket (scripts/install-deps.sh).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
LOADS=${1:-10}
W=$(mktemp -d)
PID=
trap '[ -z "$PID" ] || kill $PID 2>/dev/null || true; rm -rf "$W"' EXIT
cd "$W"
export GRIDTAIL_CONFIG=/dev/null
"$BIN" synth --span 3d --seed 2026 --sites-out sites.csv -o rtt.amp.csv 2> /dev/null
"$BIN" --db demo.db init > /dev/null
"$BIN" --db demo.db sites --import sites.csv > /dev/null 2>&1
"$BIN" --db demo.db ingest --quiet amp-csv rtt.amp.csv
"$BIN" --db demo.db serve --listen 127.0.0.1:0 --port-file port --quiet 2> serve.log &
PID=$!
while [ ! -s port ]; do sleep 0.05; done
echo "gridtail serve on the demo's store; chromium $(chromium --version 2>/dev/null | awk '{ print $2 }'), $(nproc) CPUs"
/usr/bin/python3 "$ROOT/tests/browser/dashboard.py" --bench "http://127.0.0.1:$(cat port)/" "$LOADS" | tee loads.txt
sed -n 's/.*first render in \([0-9]*\) ms/\1/p' loads.txt | sort -n | awk '{ v[++n] = $1 }
    END { if (!n) exit 1
          printf "first render: median %d ms, min %d ms, max %d ms over %d loads\n",
                 n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[1], v[n], n }'
