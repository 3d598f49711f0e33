#!/bin/sh
# Flow simulator benchmark: all-to-all (simple spread, 1 MiB messages) on
# a 16x16 torus and on a 3,000-node fat-tree of 16-port switches; prints
# the simulated completion time, flows, events and events per second
# (wall time of the simulation itself, from the JSON).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
run() {
    "$BIN" simulate --topology "$1" --pattern alltoall-spread --bytes 1M --json > /tmp/gt-sim.$$.json
    awk -v t="$1" -F': ' '
        /"time_s"/ { time = $2 } /"flows"/ { flows = $2 } /"events"/ { ev = $2 }
        /"wall_s"/ { wall = $2 } /"events_per_s"/ { rate = $2 }
        END { gsub(",", "", time); gsub(",", "", flows); gsub(",", "", ev); gsub(",", "", wall); gsub(",", "", rate);
              printf "%-18s completion %.6f s simulated, %d flows, %d events, %.2f s wall, %.0f events/s\n", t, time, flows, ev, wall, rate }' /tmp/gt-sim.$$.json
    rm -f /tmp/gt-sim.$$.json
}
run torus:16,16
run fattree:3000,16
