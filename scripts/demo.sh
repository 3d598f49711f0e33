#!/bin/sh
# The demo: a fresh database from the bundled Seattle data, then the
# pair summary (the 15 pairs with the worst p99, and the totals).
set -eu
BIN=${1:-build/gridtail}
DB=${GRIDTAIL_DEMO_DB:-demo/gridtail.db}
mkdir -p "$(dirname "$DB")"
rm -f "$DB" "$DB-wal" "$DB-shm"
echo "== gridtail init"
"$BIN" --db "$DB" init
echo "== gridtail ingest matrix (bundled Seattle data: 99 sites, 688 slices)"
"$BIN" --db "$DB" ingest matrix --unit s --zero-is-missing \
    --start 2026-11-01T00:00:00Z --interval 60 data/seattle.tar.xz
echo "== gridtail ingest again: nothing new is stored"
"$BIN" --db "$DB" ingest --quiet matrix --unit s --zero-is-missing \
    --start 2026-11-01T00:00:00Z --interval 60 data/seattle.tar.xz --json |
    grep -E '"(stored|duplicates)"'
echo "== gridtail pairs --sort p99 --reverse --limit 15"
"$BIN" --db "$DB" pairs --sort p99 --reverse --limit 15
echo "== gridtail pairs --src s001 --limit 5"
"$BIN" --db "$DB" pairs --src s001 --limit 5
for pair in "s001 s002" "s062 s048" "s010 s020"; do
    set -- $pair
    echo "== gridtail fit --src $1 --dst $2 --window 120 (last 120 minutes)"
    "$BIN" --db "$DB" fit --src "$1" --dst "$2" --window 120
done
echo "== gridtail emax: a collective rooted at s001 with partners s002..s005,"
echo "   each partner's fitted model from its last 120 samples"
specs=""
for dst in s002 s003 s004 s005; do
    spec=$("$BIN" --db "$DB" fit --json --src s001 --dst "$dst" --window 120 |
        awk -F'[:,]' '
            /"selected"/ { gsub(/[ "]/, "", $2); sel = $2 }
            /"k":/ { k = $2 + 0 } /"alpha":/ { a = $2 + 0 }
            /"mu":/ { mu = $2 + 0 } /"sigma":/ { sg = $2 + 0 } /"x":/ { x = $2 + 0 }
            END { if (sel == "pareto") printf "pareto:%.10g,%.10g", k, a;
                  else if (sel == "normal") printf "normal:%.10g,%.10g", mu, sg;
                  else printf "delta:%.10g", x }')
    echo "   s001 -> $dst: $spec"
    specs="$specs $spec"
done
# shellcheck disable=SC2086
"$BIN" emax --window 120 --quantile 0.5,0.9,0.99 --slowest $specs
echo "== gridtail estimate: the same collective from the store, job of 1000 iterations"
"$BIN" --db "$DB" estimate --root s001 --sites s002,s003,s004,s005 --window 120 \
    --compute 5 --iterations 1000 --at 2026-11-01T11:28:00Z
echo "== gridtail place: the best 4 partner sites (and root) among s001..s012"
"$BIN" --db "$DB" place --pool s001,s002,s003,s004,s005,s006,s007,s008,s009,s010,s011,s012 \
    --size 4 --window 120 --at 2026-11-01T11:28:00Z
echo
echo "database: $DB  (try: ./gridtail --db $DB pairs --help)"
