#!/bin/sh
# The demo: three days of synthetic RTTs, one sample a minute, between 27
# research-grid computing centres (gridtail synth), loaded into a fresh
# store; then what a user asks: which pairs are worst, how one pair's
# latency is distributed, what one collective costs, where to run, and
# how to see it in the dashboard.  Ends with one line that answers "where
# do I run my job".
set -eu
BIN=${1:-build/gridtail}
DIR=${GRIDTAIL_DEMO_DIR:-demo}
DB=$DIR/gridtail.db
WINDOW=120
mkdir -p "$DIR"
rm -f "$DB" "$DB-wal" "$DB-shm"
step() { printf '\n== %s\n' "$*"; }

step "gridtail synth: 3 days, one sample a minute, 27 sites, 702 directed pairs"
"$BIN" synth --span 3d --seed 2026 --sites-out "$DIR/sites.csv" -o "$DIR/rtt.amp.csv"
echo "wrote $DIR/rtt.amp.csv ($(wc -l < "$DIR/rtt.amp.csv") lines) and $DIR/sites.csv"

step "gridtail init; sites --import; ingest amp-csv"
"$BIN" --db "$DB" init
"$BIN" --db "$DB" sites --import "$DIR/sites.csv" >/dev/null
"$BIN" --db "$DB" ingest amp-csv "$DIR/rtt.amp.csv"

step "gridtail ingest again: nothing new is stored"
"$BIN" --db "$DB" ingest --quiet amp-csv "$DIR/rtt.amp.csv" --json |
    grep -E '"(stored|duplicates)"'

step "gridtail pairs --sort p99 --reverse --limit 10: the worst tails"
"$BIN" --db "$DB" pairs --sort p99 --reverse --limit 10

step "gridtail fit --src CERN --dst FNAL --window $WINDOW: the last two hours of one pair, with its verdict"
"$BIN" --db "$DB" fit --src CERN --dst FNAL --window "$WINDOW"

step "gridtail refit --calibrate --window $WINDOW: every pair's fit, and every root's
   calibration of its quantiles (its last 3,000 forecasts replayed), into the store's cache"
"$BIN" --db "$DB" refit --calibrate --window "$WINDOW"

step "gridtail estimate: a collective rooted at CERN with FNAL, KIT, RAL and IN2P3
   (LOSS% and LOSS_MS: each partner's lost probes, as TCP retransmissions)"
"$BIN" --db "$DB" estimate --root CERN --sites FNAL,KIT,RAL,IN2P3 --window "$WINDOW" \
    --compute 5 --iterations 1000

pool=$(tail -n +2 "$DIR/sites.csv" | cut -d, -f1 | paste -sd, -)
step "gridtail place --size 4 --objective p99: the best root and 4 partners among all 27
   sites, by the time 99% of collectives stay under (the mean hides the tail)"
"$BIN" --db "$DB" place --pool "$pool" --size 4 --window "$WINDOW" --top 3 --objective p99 |
    tee "$DIR/place.txt"

# How to see this store in the dashboard, in the words of the README's
# Quick tour (tests/cli/demo_dashboard.sh checks that both give the same
# command and URL, and that the page shows data an hour later).
SHOWN=$BIN
[ "$BIN" -ef ./gridtail ] && SHOWN=./gridtail
step "the dashboard: $SHOWN --db $DB serve --listen 127.0.0.1:8080, then open http://127.0.0.1:8080/
   (these samples end now: once they are older than [thresholds] silent_s, 15 min, every pair's
   status is \"no data\"; the page then says why, and shows each pair's p99 RTT instead)"

# The answer in one line, from the best placement above.
echo
awk '
    /^#1 root/ { root = $3; sub(/,$/, "", root); first = 1; next }
    /^#2 root/ { first = 0 }
    first && /E\[max\] =/ { emax = $3; p99 = $(NF - 1); sub(/,$/, "", p99) }
    first && /^  PARTNER/ { table = 1; next }
    first && table && $2 ~ /^[0-9]+$/ { sites = sites (sites ? ", " : "") $1; models[$3]++ }
    END {
        for (m in models) used = used (used ? ", " : "") m " x" models[m]
        printf "Where to run: root %s with partners %s; E[max] %s ms, p99 %s ms per collective (models: %s; chosen by p99).\n",
               root, sites, emax, p99, used
    }' "$DIR/place.txt"
