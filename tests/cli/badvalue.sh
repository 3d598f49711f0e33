# One bad value costs its record, not the archive's page (issue 45, point
# 12): an integer past int64, a \u0000, a byte that is not UTF-8 made
# jansson refuse a whole RIPE Atlas, OpenSearch or Prometheus answer, the
# message named no place (Prometheus: no reason at all), and the cursor
# stalled on that range for ever (esmond's saved answers too).  A hostile archive
# (tests/servers/canned_archive.py) serves such pages: now the record
# holding the value is rejected under its place (start=S[i], page N
# hits[i], start=S result[i]) with jansson's reason, the good records
# beside it are stored, and the cursor moves past it.  A page that is not
# JSON at all is still refused whole, saying where.
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 19
NOW=$(date +%s)
T=$((NOW - 3600))
python3 "$GT_ROOT/tests/servers/canned_archive.py" arch_port.txt &
apid=$!
trap 'kill $apid 2>/dev/null' EXIT
i=0; while [ ! -s arch_port.txt ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
A="http://127.0.0.1:$(cat arch_port.txt)"
requests() { [ -f requests.txt ] && wc -l < requests.txt || echo 0; }

# ---- RIPE Atlas: good results at T and T + 60 around three bad values
ok_result() { printf '{"type": "ping", "prb_id": 6001, "timestamp": %s, "dst_name": "ce.cern.ch", "result": [{"rtt": 10.5}, {"rtt": 11}]}' "$1"; }
{
    printf '[%s,\n' "$(ok_result $T)"
    printf ' {"type": "ping", "prb_id": 99999999999999999999, "timestamp": %s, "dst_name": "ce.cern.ch", "result": [{"rtt": 1}]},\n' $T
    printf ' {"type": "ping", "prb_id": 6002, "timestamp": %s, "dst_name": "ce\\u0000.cern.ch", "result": [{"rtt": 1}]},\n' $T
    printf ' {"type": "ping", "prb_id": 6003, "timestamp": %s, "dst_name": "ce\377.cern.ch", "result": [{"rtt": 1}]},\n' $T
    printf ' %s]\n' "$(ok_result $((T + 60)))"
} > atlas.json
DB=$(store atlas)
$GT --db "$DB" init >/dev/null
U="$A/api/v2/measurements/1001/results/?start={start}&stop={end}"
check "atlas: the three results with a bad value rejected, the page read (exit 2)" \
    status_is 2 $GT --db "$DB" ingest atlas --since $((T - 100)) "$U"
S="start=$((T - 100))"
check "each named by its place, with jansson's reason" sh -c "
    grep -q '$S\[1\]: invalid JSON: too big integer' err.txt &&
    grep -q '$S\[2\]: invalid JSON: .u0000 is not allowed' err.txt &&
    grep -q '$S\[3\]: invalid JSON: unable to decode byte 0xff' err.txt"
check "the 4 good pings stored" [ "$(sql "$DB" "SELECT count(*) FROM samples")" = 4 ]
check "the cursor moved past the bad ones, to T + 60" [ "$(sql "$DB" "SELECT cursor_ts FROM sources")" = $((T + 60)) ]
n=$(requests)
$GT --db "$DB" ingest atlas "$U" >/dev/null 2>&1
check "the next run asks from the cursor + 1" [ "$(sed -n "$((n + 1))p" requests.txt | sed 's/&.*//')" = "start=$((T + 61))" ]
# a dump whose first line holds the bad value: that line rejected, not the file
{ sed -n 2p atlas.json | sed 's/,$//; s/^ //'; ok_result $T; echo; } > dump.txt
D=$(store dump)
$GT --db "$D" init >/dev/null
check "a dump with a bad value on line 1: that line rejected (exit 2)" status_is 2 $GT --db "$D" ingest atlas dump.txt
check "named dump.txt:1, the next line's 2 pings stored" sh -c "
    grep -q 'dump.txt:1: not JSON: too big integer' err.txt && [ \"$(sql "$D" "SELECT count(*) FROM samples")\" = 2 ]"

# an esmond archive's answer (here saved): one point with a bad value
D=$(store esmond)
$GT --db "$D" init >/dev/null
printf '[{"ts": %s, "val": {"10.5": 2}}, {"ts": 99999999999999999999, "val": {"11": 1}}, {"ts": %s, "val": {"12": 1}}]' \
    $T $((T + 60)) > es.json
check "esmond: the point with a bad value rejected, the others stored (exit 2)" \
    status_is 2 $GT --db "$D" ingest esmond --src ps-a --dst ps-b es.json
check "named es.json:[1], 3 samples stored" sh -c "
    grep -q 'es.json:\[1\]: invalid JSON: too big integer' err.txt && [ \"$(sql "$D" "SELECT count(*) FROM samples")\" = 3 ]"

# ---- perfSONAR (OpenSearch): runs at T and T + 60, two with a bad value,
# the page's last hit among them (the next page goes on from the last
# hit read whole)
iso() { python3 -c "import datetime, sys; print(datetime.datetime.fromtimestamp(int(sys.argv[1]), datetime.timezone.utc).isoformat())" "$1"; }
hit() {   # hit START SENT
    printf '{"_source": {"test": {"type": "rtt"}, "pscheduler": {"start_time": "%s", "run_href": "r%s"},
      "meta": {"source": {"hostname": "ps.cern.ch"}, "destination": {"hostname": "ps.kit.edu"}},
      "result": {"succeeded": true, "packets": {"sent": %s, "json": [{"seq": 1, "rtt": "PT0.0101S"}, {"seq": 2, "rtt": "PT0.0102S"}]}}},
      "sort": [%s000, "r%s"]}' "$(iso "$1")" "$1" "$2" "$1" "$1"
}
printf '{"took": 3, "hits": {"hits": [%s, %s, %s, %s]}}' "$(hit $T 2)" "$(hit $((T + 30)) 99999999999999999999)" \
    "$(hit $((T + 60)) 2)" "$(hit $((T + 90)) 18446744073709551616)" > search.json
PS=$(store ps)
$GT --db "$PS" init >/dev/null
n=$(requests)
check "pscheduler: the two runs with a bad value rejected, the others stored (exit 2)" \
    status_is 2 $GT --db "$PS" ingest pscheduler --since $((T - 100)) "$A/pscheduler/_search"
check "named page 1 hits[1] and hits[3], with the reason" sh -c "
    grep -q 'page 1 hits\[1\]: invalid JSON: too big integer' err.txt && grep -q 'page 1 hits\[3\]: invalid JSON: too big integer' err.txt"
check "4 samples stored, the cursor at T + 60" \
    [ "$(sql "$PS" "SELECT count(*) FROM samples"):$(sql "$PS" "SELECT cursor_ts FROM sources")" = "4:$((T + 60))" ]
check "page 2 asked after the last hit read whole (T + 60)" python3 -c "
import json, sys
r = [json.loads(l) for l in open('requests.txt').read().splitlines()[$n:]]
sys.exit(not (len(r) == 2 and r[1]['search_after'] == [($T + 60) * 1000, 'r$((T + 60))']))"

# ---- Prometheus: two series, the second with a time past int64
printf '{"status": "success", "data": {"resultType": "matrix", "result": [
  {"metric": {"instance": "kit", "job": "bb"}, "values": [[%s, "0.0123"]]},
  {"metric": {"instance": "fzk", "job": "bb"}, "values": [[99999999999999999999, "0.0456"]]}]}}' $T > prom_rtt.json
printf '{"status": "success", "data": {"resultType": "matrix", "result": [
  {"metric": {"instance": "kit", "job": "bb"}, "values": [[%s, "1"]]}]}}' $T > prom_ok.json
PR=$(store prom)
$GT --db "$PR" init >/dev/null
check "prometheus: the series with a bad value rejected, the other stored (exit 2)" \
    status_is 2 $GT --db "$PR" ingest prometheus --src cern --since $((T - 100)) "$A"
check "named start=S result[1], with the reason" grep -q "start=$((T - 100)) result\[1\]: invalid JSON: too big integer" err.txt
check "1 sample stored, the cursor at T" \
    [ "$(sql "$PR" "SELECT count(*) FROM samples"):$(sql "$PR" "SELECT cursor_ts FROM sources")" = "1:$T" ]
printf '{"status": "success", "data": {"resultType": "matrix", "result": [{"metric": {}, "values": [[1' > prom_rtt.json
check "an answer that is not JSON at all: refused whole (exit 2)" \
    status_is 2 $GT --db "$PR" ingest prometheus --src cern "$A"
check "saying where and why" grep -q "not a query_range answer: line 1 column [0-9]*: " err.txt
check "nothing more stored" [ "$(sql "$PR" "SELECT count(*) FROM samples")" = 1 ]
