# Heavy reads cannot hold the workers an estimate needs (issue 45, point
# 6): the plain reads of the store (/v1/status, /v1/events,
# /metrics/pairs, /v1/pairs, the plots) run on readers of their own
# ([server] read_threads), so an estimate asked while forty of them wait
# is answered before most of them (it queued behind them all before).
# Order, not time: each request notes when it has its answer.
. "$GT_ROOT/tests/cli/lib.inc"
plan 5
$GT synth --count 15 --span 12h --seed 5 -o r.csv 2>/dev/null
$GT --db l.db init >/dev/null
$GT --db l.db ingest --quiet amp-csv r.csv
$GT --db l.db refit --window 60 >/dev/null
printf '[server]\nthreads = 2\nread_threads = 1\n' > lanes.ini
GRIDTAIL_CONFIG=lanes.ini serve_start l.db
check "serve is up" status_is 0 curl -sf -o /dev/null "$URL/v1/health"
: > done.txt
i=0
while [ $i -lt 40 ]; do
    case $((i % 3)) in
    0) p="/v1/status?limit=1000" ;;
    1) p="/v1/events?from=0" ;;
    *) p="/metrics/pairs" ;;
    esac
    ( curl -s -o /dev/null -w '%{http_code}' "$URL$p" > read$i.code; echo "read $i" >> done.txt ) &
    i=$((i + 1))
done
sleep 0.2   # (the reads queue first)
printf '{"root": "CERN", "sites": ["FNAL", "BNL", "SLAC"], "window": 60, "calibration_outcomes": 0}' > est.json
curl -s -o est.out -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary @est.json "$URL/v1/estimate" > est.code
echo estimate >> done.txt
wait_until 120 sh -c '[ "$(grep -c read done.txt)" -eq 40 ]'
check "the estimate is answered (200)" [ "$(cat est.code)" = 200 ]
check "every read is answered (200, or 503 past its budget)" sh -c 'for f in read*.code; do c=$(cat $f); [ "$c" = 200 ] || [ "$c" = 503 ] || exit 1; done'
pos=$(grep -n estimate done.txt | cut -d: -f1)
check "the estimate has its answer before half the reads have theirs (position $pos of 41)" [ "$pos" -le 20 ]
kill $pid; wait $pid 2>/dev/null
check "the server stops cleanly" true
