# A record stamped in the future must not freeze its source (issue 45,
# point 1): one RIPE Atlas result at 2100-01-01 (a probe with a wrong
# clock), an OpenSearch run at 2100, a Prometheus point at 9.9e14 s moved
# the source's cursor there, and every later run asked for nothing.  A
# hostile archive (tests/servers/canned_archive.py) answers them whatever
# range it is asked: now each is rejected with its place and reason (past
# now + GT_CLOCK_SKEW_S, a day), as is a time before 2000-01-01 in an
# archive; the good records are stored, the cursor stays at the newest
# good one (never past the end of the range asked), and the next run asks
# from there.  The same for --push and the cursor kept in its spool; a
# cursor left ahead of the clock by an older version is set aside (and
# healed); a run whose range is empty says so.
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 23
NOW=$(date +%s)
T=$((NOW - 3600))
FUTURE=4102444800   # 2100-01-01T00:00:00Z
python3 "$GT_ROOT/tests/servers/canned_archive.py" arch_port.txt &
apid=$!
trap 'kill $apid 2>/dev/null' EXIT
i=0; while [ ! -s arch_port.txt ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
A="http://127.0.0.1:$(cat arch_port.txt)"
requests() { [ -f requests.txt ] && wc -l < requests.txt || echo 0; }
# the query of request N (1 = the first)
request() { sed -n "${1}p" requests.txt; }

# ---- RIPE Atlas: good results at T and T + 60, one at 2100, one at -5
cat > atlas.json <<JSON
[{"type": "ping", "prb_id": 6001, "timestamp": $T, "dst_name": "ce.cern.ch", "result": [{"rtt": 10.5}, {"rtt": 11}]},
 {"type": "ping", "prb_id": 6002, "timestamp": $FUTURE, "dst_name": "ce.cern.ch", "result": [{"rtt": 12}]},
 {"type": "ping", "prb_id": 6003, "timestamp": -5, "dst_name": "ce.cern.ch", "result": [{"rtt": 13}]},
 {"type": "ping", "prb_id": 6001, "timestamp": $((T + 60)), "dst_name": "ce.cern.ch", "result": [{"rtt": 14}]}]
JSON
DB=$(store atlas)
$GT --db "$DB" init >/dev/null
U="$A/api/v2/measurements/1001/results/?start={start}&stop={end}"
check "atlas: a result at 2100 and one at 1969 rejected, the others stored (exit 2)" \
    status_is 2 $GT --db "$DB" ingest atlas --since $((T - 100)) "$U"
check "each named by its place, with its time and why" sh -c "
    grep -q 'start=$((T - 100))\[1\]: timestamp: 2100-01-01T00:00:00Z: in the future, more than a day after now' err.txt &&
    grep -q 'start=$((T - 100))\[2\]: timestamp: 1969-12-31T23:59:55Z: before 2000-01-01' err.txt"
both=$(sql "$DB" "SELECT count(*) FROM samples"):$(sql "$DB" "SELECT count(*) FROM samples WHERE ts > $NOW + 86400 OR ts < 946684800")
check "the 3 good pings stored, none out of time" [ "$both" = 3:0 ]
check "the cursor at the newest good result, T + 60" \
    [ "$(sql "$DB" 'SELECT cursor_ts FROM sources')" = $((T + 60)) ]
n=$(requests)
$GT --db "$DB" ingest --json atlas "$U" > second.json 2> err.txt
check "the next run asks from the cursor + 1: the source is not frozen" \
    [ "$(request $((n + 1)) | sed 's/&.*//')" = "start=$((T + 61))" ]
check "it finds the good ones again (duplicates) and rejects the two again" python3 -c "
import json, sys; r = json.load(open('second.json'))['inputs'][0]
sys.exit(not (r['duplicates'] == 3 and r['rejected'] == 2 and r['stored'] == 0))"

# a store an older version froze: its cursor at 2100
sql "$DB" "UPDATE sources SET cursor_ts = $FUTURE" >/dev/null
n=$(requests)
check "a cursor left at 2100: the run still asks (exit 2, the two rejected again)" \
    status_is 2 $GT --db "$DB" ingest atlas "$U"
check "it says the cursor was set aside" grep -q "cursor, 2100-01-01T00:00:00Z, is more than a day ahead of the clock" err.txt
s=$(request $((n + 1)) | sed 's/&.*//; s/start=//')
check "and asks from the look-back, a day before now" [ "${s:-0}" -ge $((NOW - 86400)) -a "${s:-0}" -le "$(date +%s)" ]
check "the cursor is healed: back at T + 60" [ "$(sql "$DB" 'SELECT cursor_ts FROM sources')" = $((T + 60)) ]
n=$(requests)
check "a range that asks for nothing says so (--since after now)" \
    status_is 0 $GT --db "$DB" ingest atlas --since $((NOW + 100000)) "$U"
check "the note, and no request" sh -c "grep -q 'the range is empty: it would start at' err.txt && [ $(requests) = $n ]"

# ---- perfSONAR (OpenSearch): a good run at T, one at 2100
iso() { python3 -c "import datetime, sys; print(datetime.datetime.fromtimestamp(int(sys.argv[1]), datetime.timezone.utc).isoformat())" "$1"; }
hit() {   # hit START SORT
    printf '{"_source": {"test": {"type": "rtt"}, "pscheduler": {"start_time": "%s", "run_href": "r%s"},
      "meta": {"source": {"hostname": "ps.cern.ch"}, "destination": {"hostname": "ps.kit.edu"}},
      "result": {"succeeded": true, "packets": {"sent": 2, "json": [{"seq": 1, "rtt": "PT0.0101S"}, {"seq": 2, "rtt": "PT0.0102S"}]}}},
      "sort": [%s000, "r%s"]}' "$(iso "$1")" "$1" "$1" "$1"
}
printf '{"hits": {"hits": [%s, %s]}}' "$(hit $T)" "$(hit $FUTURE)" > search.json
PS=$(store ps)
$GT --db "$PS" init >/dev/null
check "pscheduler: the run at 2100 rejected, the other stored (exit 2)" \
    status_is 2 $GT --db "$PS" ingest pscheduler --since $((T - 100)) "$A/pscheduler/_search"
check "named page 1 hits[1], with its time and why" grep -q 'page 1 hits\[1\]: pscheduler.start_time: 2100-01-01T00:00:00Z: in the future' err.txt
both=$(sql "$PS" "SELECT count(*) FROM samples"):$(sql "$PS" "SELECT cursor_ts FROM sources")
check "2 samples stored, the cursor at T" [ "$both" = "2:$T" ]
n=$(requests)
$GT --db "$PS" ingest pscheduler "$A/pscheduler/_search" >/dev/null 2>&1
check "the next run asks from the cursor + 1" python3 -c "
import datetime, json, sys
r = json.loads(open('requests.txt').read().splitlines()[$n])['range']
sys.exit(datetime.datetime.fromisoformat(r['gte'].replace('Z', '+00:00')).timestamp() != $T + 1)"

# ---- Prometheus: a good point at T, one at 9.9e14 s
series() { printf '{"status": "success", "data": {"resultType": "matrix", "result": [{"metric": {"instance": "kit", "job": "bb"}, "values": [[%s, "%s"], [990000000000000, "%s"]]}]}}' "$1" "$2" "$2"; }
series $T 0.0123 > prom_rtt.json
series $T 1 > prom_ok.json
PR=$(store prom)
$GT --db "$PR" init >/dev/null
check "prometheus: the point at 9.9e14 s rejected, the other stored (exit 2)" \
    status_is 2 $GT --db "$PR" ingest prometheus --src cern --since $((T - 100)) "$A"
check "named by its series and value, with why" grep -q 'result\[0\]: values\[1\]: time 990000000000000: in the future' err.txt
both=$(sql "$PR" "SELECT count(*) FROM samples"):$(sql "$PR" "SELECT cursor_ts FROM sources")
check "1 sample stored, the cursor at T" [ "$both" = "1:$T" ]
n=$(requests)
$GT --db "$PR" ingest prometheus --src cern "$A" >/dev/null 2>&1
check "the next run asks from the cursor + 1" sh -c "sed -n $((n + 1))p requests.txt | grep -q 'start=$((T + 1))&'"

# ---- --push of the Atlas endpoint: the cursor this host keeps
P=$(store central)
$GT --db "$P" init >/dev/null
write_token
printf '[server]\ntokens_file = tokens\n[ingest]\nspool_dir = spool\n' > c.ini
GRIDTAIL_CONFIG=c.ini serve_start "$P"
GRIDTAIL_CONFIG=c.ini $GT ingest atlas --since $((T - 100)) "$U" --push "$URL" --token-file token > push1.txt 2>&1
code=$?
n=$(requests)
GRIDTAIL_CONFIG=c.ini $GT ingest atlas "$U" --push "$URL" --token-file token > push2.txt 2>&1
kill $pid; wait $pid 2>/dev/null
both=$(sql "$P" "SELECT count(*) FROM samples"):$(sql "$P" "SELECT count(*) FROM samples WHERE ts > $NOW + 86400")
check "--push: the result at 2100 rejected here, not sent (exit 2)" sh -c "
    [ $code = 2 ] && grep -q '\[1\]: timestamp: 2100-01-01T00:00:00Z: in the future' push1.txt && [ '$both' = 3:0 ]"
check "this host's cursor at T + 60" sh -c "[ \"\$(tail -n 1 spool/cursor-*)\" = $((T + 60)) ]"
check "the next push asks from the cursor + 1" [ "$(request $((n + 1)) | sed 's/&.*//')" = "start=$((T + 61))" ]
