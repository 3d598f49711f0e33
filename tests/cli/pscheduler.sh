# tier: slow
# gridtail ingest pscheduler (issue 27): perfSONAR 5 runs as its Logstash
# pipeline stores them in OpenSearch, written here from the pipeline's
# field lists (pscheduler_docs.py), read from a file and from a local
# server of _search's range, sort, search_after and size
# (pscheduler_server.py) with the source's cursor: rtt round trips with
# seq (errors and silent losses lost, a duplicate skipped), an rtt run
# from its summary, latency and latencybg histograms in units of their
# bucket width, hosts through --site-map; hostile pages refused.
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 11
DB=$(store ps)
$GT --db "$DB" init >/dev/null
T=1795305600
python3 "$GT_ROOT/tests/servers/pscheduler_docs.py" $T > docs.json
# the samples worked by hand (ts,src,dst,seq,rtt_ms; lost empty)
cat > want.csv <<CSV
ts,src,dst,seq,rtt_ms
$T,ps.cern.ch,ps.kit.edu,1,10.1
$T,ps.cern.ch,ps.kit.edu,2,10.2
$T,ps.cern.ch,ps.kit.edu,3,
$T,ps.cern.ch,ps.kit.edu,4,
$T,ps.cern.ch,ps.kit.edu,5,10.5
$((T + 60)),ps.cern.ch,ps.kit.edu,1,20
$((T + 60)),ps.cern.ch,ps.kit.edu,2,24
$((T + 60)),ps.cern.ch,ps.kit.edu,3,21
$((T + 60)),ps.cern.ch,ps.kit.edu,4,21
$((T + 60)),ps.cern.ch,ps.kit.edu,5,
$((T + 120)),ps.cern.ch,ps.kit.edu,0,12
$((T + 120)),ps.cern.ch,ps.kit.edu,1,12.5
$((T + 120)),ps.cern.ch,ps.kit.edu,2,12.5
$((T + 120)),ps.cern.ch,ps.kit.edu,3,
$((T + 180)),ps.cern.ch,ps.kit.edu,0,12.34
$((T + 180)),ps.cern.ch,ps.kit.edu,1,12.34
$((T + 240)),ps.cern.ch,192.0.2.30,0,50
CSV
sorted() { { read -r h; echo "$h"; sort -t, -k1,1n -k3,3 -k4,4n; }; }
sorted < want.csv > want.sorted
$GT --db "$DB" ingest pscheduler docs.json > out.txt 2> err.txt
echo $? > rc.txt
$GT --db "$DB" export | sorted > got.sorted
check "a list of documents: the samples as worked by hand, exit 2 for the rejects" \
    sh -c "cmp -s want.sorted got.sorted && [ \$(cat rc.txt) = 2 ]"
check "the rejects named by index and field" sh -c "
    grep -q 'docs.json:\[6\]: test.type: .throughput., not rtt, latency or latencybg' err.txt &&
    grep -q 'docs.json:\[7\]: pscheduler.start_time: missing' err.txt &&
    grep -q 'docs.json:\[8\]: result.latency.histogram.values: not a delay >= 0' err.txt &&
    grep -q 'docs.json:\[9\]: result.packets.json: an item without a seq' err.txt"
check "the notes: the error answer, the duplicate, the summary, the failed run" sh -c "
    grep -q '1 round trips answered by an error' err.txt && grep -q '1 duplicate replies skipped' err.txt &&
    grep -q '1 rtt runs without round trips read from their summary' err.txt &&
    grep -q '1 failed runs (result.succeeded false) have no samples; the first: .Unable to reach host.' err.txt"
check "a rerun stores nothing new" sh -c "$GT --db $DB ingest pscheduler docs.json 2>&1 | grep -q 'stored 0, duplicates 17'"
python3 -c "import json; print(json.dumps({'hits': {'hits': [{'_source': d} for d in json.load(open('docs.json'))[:5]]}}))" > answer.json
python3 -c "import json; [print(json.dumps(d)) for d in json.load(open('docs.json'))[:5]]" > lines.txt
for f in answer.json lines.txt; do
    D=$(store "p${f%%.*}")
    $GT --db "$D" init >/dev/null
    $GT --db "$D" ingest pscheduler "$f" >/dev/null 2>&1
    $GT --db "$D" export | sorted > got.sorted
    check "a saved _search answer or a document a line ($f): the same samples" cmp -s want.sorted got.sorted
done
M=$(store psmap)
$GT --db "$M" init >/dev/null
printf 'ps.cern.ch,CERN\n192.0.2.20,KIT\n' > map.csv
$GT --db "$M" ingest pscheduler --site-map map.csv docs.json >/dev/null 2> err.txt
check "--site-map: a host by name or by address; the unmapped told once" sh -c "
    [ \"\$($GT --db $M pairs --json | python3 -c \"import json,sys; print(' '.join(sorted(p['src'] + '>' + p['dst'] for p in json.load(sys.stdin)['pairs'])))\")\" = 'CERN>192.0.2.30 CERN>KIT' ] &&
    [ \$(grep -c 'pscheduler: host 192.0.2.30 has no --site-map line' err.txt) = 1 ]"

# from the server, paged two hits at a time, with the cursor: the first
# run (--since T) reads all (4 requests and the empty page), the second
# only what came after, by the range it asks for
python3 "$GT_ROOT/tests/servers/pscheduler_server.py" port.txt docs.json &
spid=$!
i=0; while [ ! -s port.txt ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
A=$(store psapi)
$GT --db "$A" init >/dev/null
U="http://127.0.0.1:$(cat port.txt)/cap2/opensearch/pscheduler/_search"
$GT --db "$A" ingest pscheduler --since $T "$U" >/dev/null 2>&1
$GT --db "$A" export | sorted > got.sorted
check "from _search in pages of 2: the samples as worked by hand" cmp -s want.sorted got.sorted
check "each page after the last one's sort values (the 8 documents of the range in 4 pages, then an empty one); the range from --since" python3 -c "
import json, sys
q = [json.loads(l) for l in open('requests.jsonl')]
runs = [x['search_after'][1].rsplit('/r', 1)[1] for x in q[1:]]
rng = q[0]['query']['bool']['filter'][0]['range']['pscheduler.start_time']
sys.exit(not (len(q) == 5 and 'search_after' not in q[0] and runs == ['1', '3', '5', '9']
              and q[1]['search_after'][0] == ($T + 60) * 1000 and rng['gte'] == '2026-11-22T00:00:00Z'))"
$GT --db "$A" ingest --json pscheduler "$U" > second.json 2>/dev/null
check "the second run asks from the cursor + 1 and stores nothing new" python3 -c "
import json, sys
q = [json.loads(l) for l in open('requests.jsonl')]
last = [x for x in q if 'search_after' not in x][-1]['query']['bool']['filter'][0]['range']['pscheduler.start_time']['gte']
r = json.load(open('second.json'))['inputs'][0]
sys.exit(not (last == '2026-11-22T00:04:01Z' and r['stored'] == 0))"
R=$(store psrep)
$GT --db "$R" init >/dev/null
$GT --db "$R" ingest pscheduler --since $T "http://127.0.0.1:$(cat port.txt)/repeat/_search" 2> e.txt
echo $? > rc.txt
kill $spid; wait $spid 2>/dev/null
n=$(sql "$R" 'SELECT count(*) FROM samples')
check "a server that repeats a page: refused (exit 2), nothing stored" sh -c "
    [ \$(cat rc.txt) = 2 ] && grep -q 'the server repeated a page' e.txt && [ '$n' = 0 ]"
