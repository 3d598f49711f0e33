# tier: slow
# gridtail serve: the HTTP JSON API as a process - listening on a port
# chosen by the system, answering with the same documents as the CLI's
# --json, stopping cleanly on SIGTERM; and refusing bad setups.
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 82 77

DB=$(store s)
# what names the store in a message: the file's name, the database's
NAME=${DB%%\?*}
NAME=${NAME##*/}
$GT --db "$DB" init >/dev/null
awk 'BEGIN { print "ts,src,dst,rtt_ms"; for (t = 0; t < 30; t++) {
  printf "%d,a,b,10\n%d,a,c,20\n", 1795305600 + 60 * t, 1795305600 + 60 * t } }' > s.csv
$GT --db "$DB" ingest --quiet csv s.csv

serve_start "$DB"
PORT=$(cat port.txt 2>/dev/null)
check "serve writes its port" [ -n "$PORT" ]
JSON="-H Content-Type:application/json"
check "health" status_is 0 curl -sf "$URL/v1/health"
check "status ok" grep -q '"status": "ok"' out.txt
printf '{"root": "a", "sites": ["b", "c"], "at": "2026-11-22T00:30:00Z"}' > req.json
check "POST /v1/estimate" status_is 0 curl -sf -X POST $JSON --data-binary @req.json "$URL/v1/estimate"
cp out.txt http.json
check "a request wrote no fits to the store (only the calibration it replayed)" [ "$(sql "$DB" "SELECT count(*) FROM fit_cache WHERE model NOT LIKE 'calib%'")" = 0 ]
# the trust options as request fields, answered as on the command line
printf '{"root": "a", "sites": ["b", "c"], "at": "2026-11-22T00:30:00Z", "objective": "p99", "loss": "ignore", "max_loss": 0.5, "cut": "paper", "symmetric": true}' > opts.json
check "POST with objective, loss, max_loss, cut, symmetric" status_is 0 curl -sf -X POST $JSON --data-binary @opts.json "$URL/v1/estimate"
check "the answer states the objective" grep -q '"objective": "p99"' out.txt
check "the same document as the CLI's" sh -c "$GT --db '$DB' estimate --root a --sites b,c --at 2026-11-22T00:30:00Z --objective p99 --loss ignore --max-loss 0.5 --cut paper --symmetric --json | $SAME_ANSWER - out.txt"
printf '{"root": "a", "sites": ["b", "c"], "at": "2026-11-22T00:30:00Z", "model": "empirical", "fallback": "none"}' > emp.json
check "POST with model empirical and fallback" status_is 0 curl -sf -X POST $JSON --data-binary @emp.json "$URL/v1/estimate"
check "the same document as the CLI's --model empirical" sh -c "$GT --db '$DB' estimate --root a --sites b,c --at 2026-11-22T00:30:00Z --model empirical --fallback none --json | $SAME_ANSWER - out.txt"
printf '{"root": "a", "sites": ["b", "c"], "at": "2026-11-22T00:30:00Z", "window": 8, "model": "adaptive", "horizon_s": 120}' > ada.json
check "POST with model adaptive and horizon_s" status_is 0 curl -sf -X POST $JSON --data-binary @ada.json "$URL/v1/estimate"
check "the same document as the CLI's --model adaptive (the chosen method, its RMSE)" sh -c "grep -q '\"chosen\": \"' out.txt && $GT --db '$DB' estimate --root a --sites b,c --at 2026-11-22T00:30:00Z --window 8 --model adaptive --horizon 2m --json | $SAME_ANSWER - out.txt"
printf '{"root": "a", "sites": ["b", "c"], "at": "2026-11-22T00:30:00Z", "window": 8, "model": "combined", "horizon_s": 120}' > comb.json
check "POST with model combined" status_is 0 curl -sf -X POST $JSON --data-binary @comb.json "$URL/v1/estimate"
check "the same document as the CLI's --model combined (the weights)" sh -c "grep -q '\"weights\": {' out.txt && $GT --db '$DB' estimate --root a --sites b,c --at 2026-11-22T00:30:00Z --window 8 --model combined --horizon 2m --json | $SAME_ANSWER - out.txt"
check "a bad horizon_s is 400 naming the field" sh -c "curl -s -o bad.txt -w '%{http_code}' -X POST $JSON -d '{\"root\": \"a\", \"sites\": [\"b\"], \"model\": \"adaptive\", \"horizon_s\": 0}' '$URL/v1/estimate' | grep -qx 400 && grep -q '\"field\": \"horizon_s\"' bad.txt"
check "a bad fallback is 400 naming the field" sh -c "curl -s -o bad.txt -w '%{http_code}' -X POST $JSON -d '{\"root\": \"a\", \"sites\": [\"b\"], \"fallback\": \"x\"}' '$URL/v1/estimate' | grep -qx 400 && grep -q '\"field\": \"fallback\"' bad.txt"
check "a bad objective is 400 naming the field" sh -c "curl -s -o bad.txt -w '%{http_code}' -X POST $JSON -d '{\"root\": \"a\", \"sites\": [\"b\"], \"objective\": \"max\"}' '$URL/v1/estimate' | grep -qx 400 && grep -q '\"field\": \"objective\"' bad.txt"
check "the CLI's --json" status_is 0 $GT --db "$DB" estimate --root a --sites b,c --at 2026-11-22T00:30:00Z --json
check "the same document" $SAME_ANSWER http.json out.txt
check "a pair without data is 422" status_is 0 curl -s -o body.txt -w '%{http_code}' -X POST $JSON -d '{"root": "a", "sites": ["zz"]}' "$URL/v1/estimate"
check "422" grep -qx 422 out.txt
check "naming the unknown site" grep -q "unknown site 'zz'" body.txt
check "each request logged, a JSON line each" sh -c "grep -q '\"method\":\"POST\",\"path\":\"/v1/estimate\",\"status\":422' serve.log && python3 -c \"import json; [json.loads(l) for l in open('serve.log') if l.startswith('{')]\""
check "the log's ms to a tenth, as rounded" sh -c "grep '^{' serve.log | grep -q '\"ms\":[0-9]*\(\.[0-9]\)\?}' && ! grep -q '\"ms\":[0-9]*\.[0-9][0-9]' serve.log"
check "405 on an advisor path allows POST only" sh -c "curl -s -i '$URL/v1/estimate' | tr -d '\r' | grep -qix 'Allow: POST'"
check "405 on /v1/health allows GET and HEAD" sh -c "curl -s -i -X POST -d '{}' '$URL/v1/health' | tr -d '\r' | grep -qix 'Allow: GET, HEAD'"
# every request reads a fresh snapshot, though each worker keeps its
# connection and statements: a sample stored meanwhile is in the next answer
printf 'ts,src,dst,rtt_ms\n1795307400,a,b,11\n' | $GT --db "$DB" ingest --quiet csv -
printf '{"root": "a", "sites": ["b"], "at": "2026-11-22T00:31:00Z"}' > later.json
check "after an ingest meanwhile" status_is 0 curl -sf -X POST $JSON --data-binary @later.json "$URL/v1/estimate" "$URL/v1/estimate" "$URL/v1/estimate" "$URL/v1/estimate"
check "every answer has the new sample" [ "$(grep -c '"last_ts": 1795307400' out.txt)" = 4 ]
store_hide "$DB"
check "no store: /v1/estimate is 503" sh -c "curl -s -o gone.txt -w '%{http_code}' -X POST $JSON --data-binary @req.json '$URL/v1/estimate' | grep -qx 503"
check "and the answer does not name the database path" sh -c "! grep -qF '$NAME' gone.txt"
check "no store: /v1/health is 503 too" sh -c "curl -s -o gone2.txt -w '%{http_code}' '$URL/v1/health' | grep -qx 503 && ! grep -qF '$NAME' gone2.txt"
store_unhide "$DB"
check "a POST without Content-Type: application/json is 415" sh -c "curl -s -o ct.txt -w '%{http_code}' -X POST -H 'Content-Type: text/plain' --data-binary @req.json '$URL/v1/estimate' | grep -qx 415"
check "a request from another web origin is 403" sh -c "curl -s -o or.txt -w '%{http_code}' -X POST $JSON -H 'Origin: http://evil.example' --data-binary @req.json '$URL/v1/estimate' | grep -qx 403"
check "a %0A in the path" status_is 0 curl -s -o /dev/null "$URL/v1/x%0A2026-01-01T00:00:00Z%20127.0.0.1%20POST%20/v1/forged%20200"
wait_until 60 grep -q '"path":"/v1/x' serve.log
check "cannot forge a log line" sh -c "! grep -q '^2026-01-01T00:00:00Z' serve.log && ! grep -q '/v1/forged\",' serve.log && grep -q '\"path\":\"/v1/x\\\\\\\\x0a2026' serve.log"
# operations: alive, ready, metrics (checked by Prometheus' own promtool)
check "/healthz" status_is 0 curl -sf "$URL/healthz"
check "alive" grep -q '"status": "alive"' out.txt
check "/healthz takes GET only" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST -d '{}' '$URL/healthz' | grep -qx 405"
check "/readyz" status_is 0 curl -sf "$URL/readyz"
check "ready, with the newest sample's age" sh -c "grep -q '\"status\": \"ready\"' out.txt && grep -q '\"newest_sample_age_s\": [0-9]' out.txt"
check "/metrics" status_is 0 curl -sf -D mh.txt -o metrics.txt "$URL/metrics"
check "as Prometheus text 0.0.4" grep -qi '^Content-Type: text/plain; version=0.0.4' mh.txt
check "promtool check metrics" sh -c "promtool check metrics < metrics.txt"
check "estimate answers counted by status" sh -c "grep -qx 'gridtail_http_requests_total{endpoint=\"/v1/estimate\",code=\"200\"} 9' metrics.txt && grep -qx 'gridtail_http_requests_total{endpoint=\"/v1/estimate\",code=\"400\"} 3' metrics.txt && grep -qx 'gridtail_http_requests_total{endpoint=\"/v1/estimate\",code=\"503\"} 1' metrics.txt"
check "unknown paths count as one endpoint, other" grep -q 'gridtail_http_requests_total{endpoint="other",code="404"} 1' metrics.txt
check "a latency histogram per endpoint" sh -c "grep -q 'gridtail_http_request_duration_seconds_bucket{endpoint=\"/v1/estimate\",le=\"+Inf\"} 17' metrics.txt && grep -q 'gridtail_http_request_duration_seconds_count{endpoint=\"/v1/estimate\"} 17' metrics.txt"
check "requests in flight: this one" grep -qx 'gridtail_http_requests_in_flight 1' metrics.txt
check "the newest sample's age per source site" grep -q '^gridtail_newest_sample_age_seconds{src="a"} [0-9]' metrics.txt
check "an unknown path is 404 naming the paths there are, without Allow" sh -c "curl -s -i '$URL/v1/nope' > nf.txt && head -1 nf.txt | grep -q ' 404 ' && ! grep -qi '^Allow:' nf.txt && grep -q 'no endpoint /v1/nope (see /v1/health, /v1/estimate, .*, /v1/samples, /v1/openapi.json, /healthz, /readyz, /metrics, /metrics/pairs; the dashboard is at /)' nf.txt"
# the store's inventory: the CLI's documents
check "/v1/sites" status_is 0 curl -sf "$URL/v1/sites"
check "the same document as sites --json" sh -c "$GT --db '$DB' sites --json | diff - out.txt"
check "/v1/pairs" status_is 0 curl -sf "$URL/v1/pairs"
check "the same document as pairs --json" sh -c "$GT --db '$DB' pairs --json | diff - out.txt"
check "/v1/pairs?dst=c&limit=0" status_is 0 curl -sf "$URL/v1/pairs?dst=c&limit=0"
check "filters, lists none, counts the match" python3 -c "
import json, sys
d = json.load(open('out.txt'))
sys.exit(not (d['pairs'] == [] and d['total']['pairs'] == 1 and d['total']['samples'] == 30))"
check "one pair: its current window's fit, as fit --json prints it" sh -c "curl -sf '$URL/v1/pairs?src=a&dst=b' | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)[\"pairs\"][0][\"fit\"], sort_keys=True))' > pf.json && $GT --db '$DB' fit --src a --dst b --json | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))' > cf.json && cmp -s pf.json cf.json && grep -q selected pf.json"
check "a bad limit is 400 naming it" sh -c "curl -s -o bl.txt -w '%{http_code}' '$URL/v1/pairs?limit=x' | grep -qx 400 && grep -q '\"field\": \"limit\"' bl.txt"
check "a limit past max_top is 422" sh -c "curl -s -o /dev/null -w '%{http_code}' '$URL/v1/pairs?limit=5000' | grep -qx 422"
check "/v1/sites takes GET only" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST -d '{}' '$URL/v1/sites' | grep -qx 405"
store_hide "$DB"
check "no store: /readyz is 503" sh -c "curl -s -o nr.txt -w '%{http_code}' '$URL/readyz' | grep -qx 503 && grep -q 'not ready' nr.txt"
check "no store: /healthz still 200" status_is 0 curl -sf "$URL/healthz"
check "no store: /metrics says store down" sh -c "curl -sf '$URL/metrics' | grep -qx 'gridtail_store_up 0'"
store_unhide "$DB"
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM stops it with status 0 ($rc)" [ "$rc" -eq 0 ]
# readiness with an age limit: the samples are from 2026-11-22, older
# than an hour
printf '[server]\nready_max_age_s = 3600\n' > ready.ini
serve_log=serve2.log
GRIDTAIL_CONFIG=ready.ini serve_start "$DB"
serve_log=serve.log
check "an old store is not ready: 503" sh -c "curl -s -o old.txt -w '%{http_code}' 'http://127.0.0.1:$(cat port.txt)/readyz' | grep -qx 503 && grep -q 'too old' old.txt && grep -q 'ready_max_age_s = 3600' old.txt"
kill -TERM $pid
wait $pid
check "and says so" grep -q 'SIGTERM: stopped' serve.log

# A request's work is bounded in time: a place over 27 sites (size 12:
# 260 M sets; most are left out by their bound, and the search still
# takes seconds of CPU) stops at [server] request_budget_s and answers
# with the best so far, saying so; a client that goes away, or SIGTERM,
# stops it too.  (max_exact_limit raised for it: the default 1e7 sets
# are now searched in well under a second.)
BIG=$(store big)
$GT --db "$BIG" init >/dev/null
awk 'BEGIN { print "name,latitude,longitude"; srand(27); for (i = 1; i <= 27; i++)
    printf "g%02d,%.3f,%.3f\n", i, -50 + 110 * rand(), -170 + 340 * rand() }' > big.csv
$GT synth --sites big.csv --span 2h --seed 5 --format csv --start 2026-11-23T00:00:00Z |
    $GT --db "$BIG" ingest --quiet csv -
POOL=$(tail -n +2 big.csv | cut -d, -f1 | sed 's/.*/"&"/' | paste -sd, -)
printf '{"pool": [%s], "size": 12, "exact_limit": 1e12}' "$POOL" > place.json
start_server() {   # $1: request_budget_s, $2: threads (4)
    printf '[server]\nrequest_budget_s = %s\nmax_partners = 100\nmax_exact_limit = 1e12\n' "$1" > budget.ini
    serve_log=serve3.log
    GRIDTAIL_CONFIG=budget.ini serve_start "$BIG" --threads "${2:-4}"
    serve_log=serve.log
}
start_server 3   # (3 s: on a busy machine the fits alone took a second)
# (the search is far longer than 60 s: an answer within curl's -m 60
# means the budget stopped it)
t0=$(date +%s.%N)
check "a place past its budget answers 200" status_is 0 curl -sf -m 60 -X POST $JSON --data-binary @place.json "$URL/v1/place"
t1=$(date +%s.%N)
check "before the search ended: stopped by the budget ($(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s)" grep -q '"stopped": "' out.txt
check "incomplete, saying why, with the best so far" python3 -c "
import json, sys
d = json.load(open('out.txt'))
ok = d['complete'] is False and 'request_budget_s = 3' in d['stopped'] and 0 < d['evaluated'] < 1000000 and len(d['candidates']) == 1
sys.exit(not ok)"
check "pairs without src or dst past max_partners: 422" sh -c "curl -s -o mp.txt -w '%{http_code}' '$URL/v1/pairs' | grep -qx 422 && grep -q 'name a src or a dst' mp.txt"
check "with src: answered" sh -c "curl -sf '$URL/v1/pairs?src=g01' | grep -q '\"src\": \"g01\"'"
check "a complete answer says so" sh -c "curl -sf -X POST $JSON -d '{\"pool\": [\"g01\", \"g02\", \"g03\"], \"size\": 1}' '$URL/v1/place' | grep -q '\"complete\": true'"
kill -TERM $pid
wait $pid
start_server 600
curl -s -m 1 -X POST $JSON --data-binary @place.json "$URL/v1/place" > /dev/null 2>&1
t0=$(date +%s.%N)
i=0
while ! curl -sf "$URL/metrics" | grep -qx 'gridtail_http_requests_in_flight 1' && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
t1=$(date +%s.%N)
check "a client that went away stops its search ($(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s, of a budget of 600)" [ $i -lt 600 ]
curl -s -X POST $JSON --data-binary @place.json "$URL/v1/place" > stopping.txt 2>&1 &
cpid=$!
# the request is in the server when it is counted in flight beside the
# scrape itself (a second's sleep alone was not enough on a busy
# machine: the TERM came before the request)
in_flight() { curl -sf "$URL/metrics" | grep -qx 'gridtail_http_requests_in_flight 2'; }
wait_until 60 in_flight
sleep 3   # and past its fits, into the search (under ASan they take over a second)
stop_timed TERM $pid
wait $cpid
check "SIGTERM during a long search: stopped in $secs s, status $rc" [ "$rc" = 0 ]
check "and the search answered what it had" grep -q '"stopped": "the server is stopping"' stopping.txt

# A search runs on a worker, not on its connection's thread: with one
# thread of each, the probes and /metrics are answered while it runs
# (they used to wait for the search to end).
start_server 600 1
curl -s -m 60 -X POST $JSON --data-binary @place.json "$URL/v1/place" > /dev/null 2>&1 &
cpid=$!
i=0
while ! curl -sf -m 30 "$URL/metrics" | grep -qx 'gridtail_http_requests_in_flight 2' && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
check "one thread searching: /healthz is answered meanwhile" sh -c "curl -s -m 30 -o /dev/null -w '%{http_code}' $URL/healthz | grep -qx 200"
check "and /metrics, with the search still in flight (not after it)" sh -c "curl -s -m 30 $URL/metrics | grep -qx 'gridtail_http_requests_in_flight 2'"
kill $cpid 2>/dev/null
wait $cpid 2>/dev/null
kill -TERM $pid
wait $pid

if first_pass; then
    check "bad --listen is a usage error" status_is 1 $GT --db "$DB" serve --listen localhost
    check "so is an address that is not one" status_is 1 $GT --db "$DB" serve --listen 300.1.2.3:0
    check "naming it" grep -q "'300.1.2.3'" err.txt
fi
check "a missing database is status 3" status_is 3 $GT --db "$(store_absent nosuch)" serve --listen 127.0.0.1:0
if first_pass; then
    check "serve --help" status_is 0 $GT serve --help
    check "documents the endpoints" grep -q 'POST /v1/rank' out.txt
fi
