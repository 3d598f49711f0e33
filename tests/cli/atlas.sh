# tier: slow
# gridtail ingest atlas (issue 27): RIPE Atlas ping results, written here
# from the published result format (atlas.ripe.net, "Measurement Result
# Format", versions 1, 4400, 4460, 4750 and 5000), as an API page (a JSON
# list), a daily dump (a result a line, plain, bzip2 and gzip), and from
# a local server speaking the results endpoint's start/stop window, with
# the store's cursor: each ping one sample with its seq, timeouts and
# errors lost and counted apart, duplicates skipped, firmware 1 rebuilt
# from min/avg/max, sites through --site-map.
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 18 17
DB=$(store atlas)
$GT --db "$DB" init >/dev/null
T=1795305600
cat > page.json <<JSON
[
 {"fw": 5020, "type": "ping", "msm_id": 1001, "prb_id": 6001, "from": "192.0.2.1", "timestamp": $T,
  "dst_name": "ce.cern.ch", "dst_addr": "198.51.100.7", "af": 4, "proto": "ICMP", "sent": 3, "rcvd": 3,
  "min": 10.5, "avg": 11.0, "max": 11.5, "result": [{"rtt": 10.5}, {"rtt": 11.0}, {"rtt": 11.5}]},
 {"fw": 4790, "type": "ping", "msm_id": 1001, "prb_id": 6001, "from": "192.0.2.1", "timestamp": $((T + 240)),
  "lts": 12, "dst_name": "ce.cern.ch", "dst_addr": "198.51.100.7", "sent": 3, "rcvd": 1,
  "result": [{"x": "*"}, {"rtt": 12.25, "ttl": 54}, {"error": "sendto failed: Network is unreachable"}]},
 {"fw": 4480, "type": "ping", "msm_id": 1001, "prb_id": 6002, "from": "192.0.2.2", "timestamp": $T,
  "dst_name": "ce.cern.ch", "dst_addr": "198.51.100.7", "sent": 2, "rcvd": 2,
  "result": [{"rtt": 20.0}, {"rtt": 20.0, "dup": 1}, {"rtt": 21.0}]},
 {"fw": 4420, "msm_id": 1001, "prb_id": 6003, "from": "192.0.2.3", "timestamp": $T, "mode": "ICMP4",
  "name": "ce.cern.ch", "addr": "198.51.100.7", "srcaddr": "10.0.0.3", "sent": 3, "rcvd": 3,
  "result": [{"rtt": 30.0}, {"rtt": 30.5}, {"rtt": 31.0}]},
 {"fw": 1, "msm_id": 1001, "prb_id": 6004, "from": "192.0.2.4", "timestamp": $T, "name": "ce.cern.ch",
  "addr": "198.51.100.7", "sent": 3, "rcvd": 3, "dup": 0, "min": 40.0, "avg": 41.0, "max": 42.5},
 {"fw": 1, "msm_id": 1001, "prb_id": 6004, "from": "192.0.2.4", "timestamp": $((T + 240)), "name": "ce.cern.ch",
  "addr": "198.51.100.7", "sent": 3, "rcvd": 1, "dup": 0, "min": 44.0, "avg": 44.0, "max": 44.0},
 {"fw": 5020, "type": "traceroute", "msm_id": 5001, "prb_id": 6001, "timestamp": $T, "dst_name": "x"},
 {"fw": 5020, "type": "ping", "msm_id": 1001, "timestamp": $T, "dst_name": "ce.cern.ch", "result": []},
 {"fw": 5020, "type": "ping", "msm_id": 1001, "prb_id": 6001, "timestamp": $((T + 480)),
  "dst_name": "ce.cern.ch", "result": [{"rtt": 1.0}, {"hops": 3}]},
 {"fw": 1, "msm_id": 1001, "prb_id": 6004, "timestamp": $((T + 480)), "name": "ce.cern.ch",
  "sent": 5, "rcvd": 5, "min": 40.0, "avg": 41.0, "max": 42.0}
]
JSON
# the samples worked by hand, as gridtail export writes them
# (ts,src,dst,seq,rtt_ms; a lost probe empty)
cat > want.csv <<CSV
ts,src,dst,seq,rtt_ms
$T,prb6001,ce.cern.ch,0,10.5
$T,prb6001,ce.cern.ch,1,11
$T,prb6001,ce.cern.ch,2,11.5
$((T + 240)),prb6001,ce.cern.ch,0,
$((T + 240)),prb6001,ce.cern.ch,1,12.25
$((T + 240)),prb6001,ce.cern.ch,2,
$T,prb6002,ce.cern.ch,0,20
$T,prb6002,ce.cern.ch,1,21
$T,prb6003,ce.cern.ch,0,30
$T,prb6003,ce.cern.ch,1,30.5
$T,prb6003,ce.cern.ch,2,31
$T,prb6004,ce.cern.ch,0,40
$T,prb6004,ce.cern.ch,1,42.5
$T,prb6004,ce.cern.ch,2,40.5
$((T + 240)),prb6004,ce.cern.ch,0,44
$((T + 240)),prb6004,ce.cern.ch,1,
$((T + 240)),prb6004,ce.cern.ch,2,
CSV
export_sorted() { $GT --db "$1" export | { read -r h; echo "$h"; sort -t, -k2,2 -k1,1n -k4,4n; }; }
want_sorted() { { read -r h; echo "$h"; sort -t, -k2,2 -k1,1n -k4,4n; } < want.csv; }
check "an API page: 17 samples, the four rejected named by index, exit 2" status_is 2 $GT --db "$DB" ingest atlas page.json
cp err.txt page.err
want_sorted > want.sorted
export_sorted "$DB" > got.sorted
check "the samples as worked by hand (fw 5020, 4790, 4480, 4420 and 1)" cmp -s want.sorted got.sorted
check "the rejects: type, prb_id, an unknown ping, 5 replies of firmware 1" sh -c "
    grep -q 'page.json:\[6\]: type: .traceroute., not a ping result' page.err &&
    grep -q 'page.json:\[7\]: prb_id: missing' page.err &&
    grep -q 'page.json:\[8\]: result\[1\]: neither {rtt}, {x} nor {error}' page.err &&
    grep -q 'page.json:\[9\]: firmware 1 gives min/avg/max only' page.err"
check "the notes count timeouts and errors apart, the duplicate, firmware 1" sh -c "
    grep -q '1 pings timed out and 1 failed (stored as lost); the first error: .sendto failed: Network is unreachable.' page.err &&
    grep -q '1 duplicate replies skipped' page.err && grep -q '2 firmware 1 results read from their min/avg/max' page.err"
check "a rerun stores nothing: 17 duplicates" sh -c "$GT --db $DB ingest --json atlas page.json 2>/dev/null |
    python3 -c \"import json,sys; r=json.load(sys.stdin)['inputs'][0]; sys.exit(not (r['stored'] == 0 and r['duplicates'] == 17))\""

# a daily dump: a result a line; plain, bzip2 and gzip give the same
python3 -c "import json; [print(json.dumps(r)) for r in json.load(open('page.json'))[:6]]" > dump.txt
printf 'not json\n' >> dump.txt
bzip2 -k dump.txt && gzip -k dump.txt
for f in dump.txt dump.txt.bz2 dump.txt.gz; do
    D=$(store "d${f##*.}")
    $GT --db "$D" init >/dev/null
    $GT --db "$D" ingest atlas "$f" >out.txt 2>err.txt
    export_sorted "$D" > got.sorted
    check "a dump ($f): the same samples, its bad line named as line 7" sh -c "
        cmp -s want.sorted got.sorted && grep -q '$f:7: not JSON' err.txt"
done
check "not Atlas at all: refused whole, exit 2" sh -c "printf 'ts,src\n1,2\n' > x.csv; $GT --db $DB ingest atlas x.csv 2> e.txt; [ \$? -eq 2 ] && grep -q 'not an atlas file' e.txt"

# sites through --site-map: a probe by its number or its address, a
# destination by its name; the unmapped told once each
M=$(store mapped)
$GT --db "$M" init >/dev/null
printf '# RIPE Atlas anchors and targets\nprb6001,GENEVA\n192.0.2.2,ZURICH\nce.cern.ch,CERN\n' > map.csv
$GT --db "$M" ingest atlas --site-map map.csv page.json >out.txt 2>err.txt
check "--site-map: prb6001 is GENEVA, 192.0.2.2 ZURICH, ce.cern.ch CERN; the others as they are" \
    sh -c "[ \"\$($GT --db $M pairs --json | python3 -c \"import json,sys; print(' '.join(sorted(p['src'] + '>' + p['dst'] for p in json.load(sys.stdin)['pairs'])))\")\" = 'GENEVA>CERN ZURICH>CERN prb6003>CERN prb6004>CERN' ]"
check "each unmapped probe told once, with its address" sh -c "
    [ \$(grep -c 'probe prb6004 (192.0.2.4) has no --site-map line' err.txt) = 1 ] && grep -q 'probe prb6003 (192.0.2.3)' err.txt"
printf 'prb6001,GENEVA\nprb6001,BERN\n' > twice.csv
check "a key given two sites: FILE:LINE: key, usage refused (exit 2)" sh -c "$GT --db $M ingest atlas --site-map twice.csv page.json 2> e.txt; [ \$? -eq 2 ] && grep -q 'twice.csv:2: key: .prb6001. is site GENEVA on line 1' e.txt"
if first_pass; then
    check "--site-map with another format: usage error" status_is 1 $GT --db "$M" ingest csv --site-map map.csv page.json
fi

# from the results endpoint, a day's window a request, with the source's
# cursor: the first run (--since T) asks [T, now] in days, the second
# from the cursor + 1 and stores only what is new
python3 -c "import json; r=json.load(open('page.json'))[:6]; n=dict(r[0], timestamp=$((T + 900)), result=[{'rtt': 9.0}]); json.dump(r + [n], open('all.json', 'w'))"
python3 "$GT_ROOT/tests/servers/atlas_server.py" port.txt all.json &
spid=$!
i=0; while [ ! -s port.txt ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
A=$(store api)
$GT --db "$A" init >/dev/null
U="http://127.0.0.1:$(cat port.txt)/api/v2/measurements/1001/results/?start={start}&stop={end}"
$GT --db "$A" ingest atlas --since $T "$U" >/dev/null 2>&1
first=$(wc -l < requests.txt)
$GT --db "$A" ingest --json atlas "$U" > second.json 2>/dev/null
kill $spid; wait $spid 2>/dev/null
n=$(sql "$A" 'SELECT count(*) FROM samples')
check "the first run's windows tile [T, now] a day each (the last shorter)" python3 -c "import sys
w=[tuple(int(kv.split('=')[1]) for kv in l.strip().split('&')) for l in open('requests.txt')][:$first]
ok = w[0][0] == $T and all(b - a == 86399 for a, b in w[:-1]) and all(w[i + 1][0] == w[i][1] + 1 for i in range(len(w) - 1))
sys.exit(not (ok and len(w) >= 4 and w[-1][1] - w[-1][0] < 86400))"
check "the endpoint, twice: 18 samples, the second run asked from the cursor + 1 and found 0" sh -c "
    [ '$n' = 18 ] && [ \"\$(sed -n $((first + 1))p requests.txt | sed 's/&.*//')\" = 'start=$((T + 901))' ] &&
    python3 -c \"import json,sys; r=json.load(open('second.json'))['inputs'][0]; sys.exit(not (r['stored'] == 0 and r['read'] == 0))\""

# --push: the same samples, parsed here and stored by a central serve
P=$(store central)
$GT --db "$P" init >/dev/null
write_token   # tokens (the server's file) and token (the client's)
printf '[server]\ntokens_file = tokens\n[ingest]\nspool_dir = spool\n' > c.ini
GRIDTAIL_CONFIG=c.ini serve_start "$P"
GRIDTAIL_CONFIG=c.ini $GT ingest atlas page.json --push "$URL" --token-file token >/dev/null 2>&1
kill $pid; wait $pid
export_sorted "$P" > pushed.sorted
check "--push: the 17 samples stored by the server, as worked by hand" cmp -s want.sorted pushed.sorted

# --push of the results endpoint: fetched here, stored by the central
# serve; this host keeps the source's cursor (in its spool), so the next
# push asks from there
rm -f port.txt requests.txt
python3 "$GT_ROOT/tests/servers/atlas_server.py" port.txt all.json &
spid=$!
i=0; while [ ! -s port.txt ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
AU="http://127.0.0.1:$(cat port.txt)/api/v2/measurements/1001/results/?start={start}&stop={end}"
P2=$(store central2)
$GT --db "$P2" init >/dev/null
GRIDTAIL_CONFIG=c.ini serve_start "$P2"
GRIDTAIL_CONFIG=c.ini $GT ingest atlas --since $T "$AU" --push "$URL" --token-file token > push1.txt 2>&1
n1=$(wc -l < requests.txt)
GRIDTAIL_CONFIG=c.ini $GT ingest atlas "$AU" --push "$URL" --token-file token > push2.txt 2>&1
kill $pid $spid; wait $pid $spid 2>/dev/null
export_sorted "$A" > api.sorted
export_sorted "$P2" > central2.sorted
check "--push of the endpoint: the server stores the 18 samples ingest stored from it" cmp -s api.sorted central2.sorted
check "and the next push asks from this host's cursor + 1 (kept in the spool), sending nothing new" sh -c "
    [ \"\$(sed -n $((n1 + 1))p requests.txt | sed 's/&.*//')\" = 'start=$((T + 901))' ] && ls spool/cursor-* > /dev/null &&
    grep -q 'pushed: stored 0, duplicates 0' push2.txt"
