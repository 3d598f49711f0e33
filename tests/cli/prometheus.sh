# tier: slow
# gridtail ingest prometheus (issue 27): a real Prometheus (Debian's
# prometheus) scraping a real blackbox_exporter (prometheus-blackbox-
# exporter) each second on loopback: TCP probes of a listening port and of
# a closed one, ICMP to 127.0.0.1; read back through query_range, the
# stored samples must be what Prometheus answers for the same queries
# (prometheus_expect.py asks it on its own), lost where probe_success is
# 0; the cursor makes the next run read only what is new.  The same
# Prometheus scrapes a real smokeping_prober (prometheus-smokeping-prober)
# pinging 127.0.0.1 and 198.18.7.2 (a benchmarking address nobody
# answers) 5 times a second: --exporter smokeping stores, per host and
# step, what the histogram's counts, buckets and sum say
# (prometheus_hist_check.py asks Prometheus on its own).
# (The collector does not depend on the store: one pass, on SQLite.)
. "$GT_ROOT/tests/cli/lib.inc"
plan 13
PROM=$(command -v prometheus || true)
BB=$(command -v prometheus-blackbox-exporter || command -v blackbox_exporter || true)
if [ -z "$PROM" ] || [ -z "$BB" ]; then
    skip "ingest prometheus from a real Prometheus" "no prometheus or prometheus-blackbox-exporter (Debian's packages)" 12
    exit 0
fi
SP=$(command -v prometheus-smokeping-prober || command -v smokeping_prober || true)
spport=$(free_port)
if [ -n "$SP" ] && [ "$(id -u)" = 0 ]; then   # ICMP: raw sockets
    echo 'targets: []' > sp.yml
    "$SP" --config.file=sp.yml --privileged --web.listen-address=127.0.0.1:$spport \
        --ping.interval=200ms 127.0.0.1 198.18.7.2 > sp.log 2>&1 &
    sppid=$!
fi
bbport=$(free_port) pport=$(free_port) hport=$(free_port)
printf 'modules:\n  icmp: {prober: icmp, timeout: 2s, icmp: {preferred_ip_protocol: ip4}}\n  tcp: {prober: tcp, timeout: 2s}\n' > bb.yml
"$BB" --config.file=bb.yml --web.listen-address=127.0.0.1:$bbport > bb.log 2>&1 &
bbpid=$!
/usr/bin/python3 -m http.server $hport --bind 127.0.0.1 > /dev/null 2>&1 &
hpid=$!
relabel="    relabel_configs:
      - {source_labels: [__address__], target_label: __param_target}
      - {source_labels: [__param_target], target_label: instance}
      - {target_label: __address__, replacement: \"127.0.0.1:$bbport\"}"
cat > prom.yml <<YML
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: bb-tcp
    metrics_path: /probe
    params: {module: [tcp]}
    static_configs: [{targets: ["127.0.0.1:$hport", "127.0.0.1:1"]}]
$relabel
  - job_name: bb-icmp
    metrics_path: /probe
    params: {module: [icmp]}
    static_configs: [{targets: ["127.0.0.1"]}]
$relabel
  - job_name: smokeping
    static_configs: [{targets: ["127.0.0.1:$spport"]}]
YML
START=$(date +%s)
"$PROM" --config.file=prom.yml --storage.tsdb.path=tsdb --web.listen-address=127.0.0.1:$pport > prom.log 2>&1 &
ppid=$!
P=http://127.0.0.1:$pport
enough() {   # 15 seconds of the answered TCP probe stored
    curl -s "$P/api/v1/query?query=count_over_time(probe_success%7Bjob%3D%22bb-tcp%22%2Cinstance%3D%22127.0.0.1%3A$hport%22%7D%5B1m%5D)" |
        /usr/bin/python3 -c "import json,sys; r=json.load(sys.stdin)['data']['result']; sys.exit(not (r and float(r[0]['value'][1]) >= 15))" 2>/dev/null
}
wait_until 60 enough || echo "  Prometheus has too few samples: $(tail -3 prom.log)"
DB=$(store prom)
$GT --db "$DB" init >/dev/null
TQ='probe_duration_seconds{job="bb-tcp"}' TS='probe_success{job="bb-tcp"}'
$GT --db "$DB" ingest prometheus --src LOCAL --step 1 --since $((START - 20000)) \
    --query "$TQ" --success-query "$TS" "$P" > tcp.txt 2> tcp.err
$GT --db "$DB" ingest prometheus --src LOCAL --step 1 --since $((START - 20000)) "$P" > icmp.txt 2> icmp.err
$GT --db "$DB" export | tail -n +2 | sort > got.csv
last=$(cut -d, -f1 got.csv | sort -n | tail -1)
edge=$((last - 5))   # the newest seconds may still be arriving
/usr/bin/python3 "$GT_ROOT/tests/ref/prometheus_expect.py" "$P" "$TQ" "$TS" $((START - 20000)) $edge LOCAL > want-tcp.csv
/usr/bin/python3 "$GT_ROOT/tests/ref/prometheus_expect.py" "$P" 'probe_icmp_duration_seconds{phase="rtt"}' probe_success $((START - 20000)) $edge LOCAL > want-icmp.csv
sort want-tcp.csv want-icmp.csv > want.csv
awk -F, -v e=$edge '$1 <= e' got.csv > got-edge.csv
cmp_rows() {   # the same rows, the RTTs equal as numbers
    /usr/bin/python3 -c "import sys
a = [l.strip().split(',') for l in open('want.csv')]
b = [l.strip().split(',') for l in open('got-edge.csv')]
same = len(a) == len(b) and all(x[:4] == y[:4] and (x[4] == y[4] == '' or (x[4] and y[4] and float(x[4]) == float(y[4]))) for x, y in zip(a, b))
print('  %d rows expected, %d stored' % (len(a), len(b))) if not same else None
sys.exit(not same)"
}
check "the stored samples are Prometheus' own answer ($(wc -l < want.csv) rows over 20,000 s: two query_range windows of at most 11,000 steps)" cmp_rows
check "the open port answered, the closed one lost every probe" sh -c "
    grep -q ',LOCAL,127.0.0.1:$hport,0,[0-9]' got-edge.csv && ! grep -q ',LOCAL,127.0.0.1:1,0,[0-9]' got-edge.csv &&
    grep -q ',LOCAL,127.0.0.1:1,0,\$' got-edge.csv && grep -q 'probes failed (success 0): stored as lost' tcp.err"
sleep 3
$GT --db "$DB" ingest --json prometheus --src LOCAL --step 1 --query "$TQ" --success-query "$TS" "$P" > again.json 2>/dev/null
check "the next run reads from the cursor: new samples only, no duplicates" /usr/bin/python3 -c "
import json, sys; r = json.load(open('again.json'))['inputs'][0]
sys.exit(not (r['stored'] > 0 and r['duplicates'] == 0))"
# an RTT series without the destination label (an aggregate) beside
# labelled success series: refused with its reason, no crash (issue 45)
agg_rc=0
$GT --db "$DB" ingest prometheus --src LOCAL --step 1 --since $((START - 600)) \
    --query 'max by (job) (probe_duration_seconds{job="bb-tcp"})' --success-query "$TS" "$P" \
    > agg.txt 2> agg.err || agg_rc=$?
check "an RTT series without its destination label is refused, not a crash" sh -c "
    [ $agg_rc -lt 128 ] && grep -q 'instance' agg.err"
# a saved query_range answer: every value a sample (no success to join)
curl -s "$P/api/v1/query_range?query=probe_duration_seconds%7Bjob%3D%22bb-tcp%22%7D&start=$((START - 60))&end=$edge&step=1" > saved.json
F=$(store promfile)
$GT --db "$F" init >/dev/null
$GT --db "$F" ingest prometheus --src LOCAL saved.json >/dev/null 2>&1
n=$(sql "$F" 'SELECT count(*) FROM samples WHERE rtt_ms IS NOT NULL')
check "a saved answer: each of its $(/usr/bin/python3 -c "import json; print(sum(len(s['values']) for s in json.load(open('saved.json'))['data']['result']))") values a sample" \
    /usr/bin/python3 -c "import json, sys
d = json.load(open('saved.json'))['data']['result']
sys.exit(not (sum(len(s['values']) for s in d) == $n > 0))"
check "without --src: a usage error naming it" sh -c "$GT --db $DB ingest prometheus '$P' 2>&1 | grep -q 'give --src SITE'"
printf 'LOCAL,CERN\n127.0.0.1:1,NOWHERE\n' > map.csv
M=$(store prommap)
$GT --db "$M" init >/dev/null
$GT --db "$M" ingest prometheus --site-map map.csv --src LOCAL --step 1 --since $((START - 60)) --query "$TQ" --success-query "$TS" "$P" >/dev/null 2> map.err
check "--site-map: the source and a destination mapped, the other told once" sh -c "
    $GT --db $M pairs --json | /usr/bin/python3 -c \"import json,sys; p=sorted(x['src'] + '>' + x['dst'] for x in json.load(sys.stdin)['pairs']); sys.exit(p != ['CERN>127.0.0.1:$hport', 'CERN>NOWHERE'])\" &&
    [ \$(grep -c 'destination 127.0.0.1:$hport has no --site-map line' map.err) = 1 ]"

# smokeping_prober's histograms
if [ -z "${sppid:-}" ]; then
    why="no prometheus-smokeping-prober (Debian's package)"
    [ -n "$SP" ] && why="ICMP needs root (raw sockets) and this is uid $(id -u)"
    skip "smokeping_prober's histograms from a real Prometheus" "$why" 6
else
    # a step is read 30 s after it ends: wait for 8 scrapes older than that
    settled() {
        curl -s "$P/api/v1/query?query=count_over_time(smokeping_requests_total%7Bhost%3D%22127.0.0.1%22%7D%5B1h%5D%20offset%2032s)" |
            /usr/bin/python3 -c "import json,sys; r=json.load(sys.stdin)['data']['result']; sys.exit(not (r and float(r[0]['value'][1]) >= 8))" 2>/dev/null
    }
    wait_until 120 settled || echo "  too few smokeping scrapes: $(tail -3 prom.log)"
    S=$(store smokeping)
    $GT --db "$S" init >/dev/null
    $GT --db "$S" ingest --json prometheus --exporter smokeping --src LOCAL --step 1 --since $((START - 60)) "$P" > sp1.json 2> sp1.err
    $GT --db "$S" export | tail -n +2 > sp1.csv
    check "smokeping: per host and step, the answers are _count's increase, each in its bucket, adding up to _sum's; the pings not answered lost" \
        sh -c "/usr/bin/python3 '$GT_ROOT/tests/ref/prometheus_hist_check.py' '$P' sp1.csv LOCAL > sp1.check || { cat sp1.check sp1.err; exit 1; }"
    sed 's/^/  /' sp1.check
    lost=$(awk -F, '$3 == "198.18.7.2" && $5 == ""' sp1.csv | wc -l)
    if [ "$lost" -gt 0 ]; then
        check "smokeping: an address nobody answers: its $lost pings stored lost, none answered" \
            sh -c "! awk -F, '\$3 == \"198.18.7.2\" && \$5 != \"\"' sp1.csv | grep -q . && grep -q 'pings sent and not answered: stored as lost' sp1.err"
    else
        skip "smokeping: an address nobody answers, stored lost" "the prober sent no ping to 198.18.7.2 (no route here): $(grep -c . sp1.csv) rows" 1
    fi
    sleep 2
    $GT --db "$S" ingest --json prometheus --exporter smokeping --src LOCAL --step 1 "$P" > sp2.json 2> sp2.err
    $GT --db "$S" export | tail -n +2 > sp2.csv
    check "smokeping: the next run from the cursor: its first step the one after the stored, no duplicates, and the whole still adds up" \
        sh -c "/usr/bin/python3 -c \"import json, sys
a = json.load(open('sp1.json'))['inputs'][0]; b = json.load(open('sp2.json'))['inputs'][0]
sys.exit(not (b['first_ts'] == a['last_ts'] + 1 and b['stored'] > 0 and b['duplicates'] == 0))\" &&
            /usr/bin/python3 '$GT_ROOT/tests/ref/prometheus_hist_check.py' '$P' sp2.csv LOCAL > sp2.check"
    # a saved answer of the buckets and sums of 127.0.0.1: the same answers
    a=$(/usr/bin/python3 -c "import json; print(json.load(open('sp1.json'))['inputs'][0]['first_ts'])")
    b=$(/usr/bin/python3 -c "import json; print(json.load(open('sp1.json'))['inputs'][0]['last_ts'])")
    curl -s -G "$P/api/v1/query_range" --data-urlencode 'query={__name__=~"smokeping_response_duration_seconds_(bucket|sum)",host="127.0.0.1"}' \
        --data-urlencode "start=$((a - 1))" --data-urlencode "end=$b" --data-urlencode step=1 > spsaved.json
    F2=$(store spfile)
    $GT --db "$F2" init >/dev/null
    $GT --db "$F2" ingest prometheus --exporter smokeping --src LOCAL spsaved.json > /dev/null 2>&1
    $GT --db "$F2" export | tail -n +2 > spfile.csv
    awk -F, '$3 == "127.0.0.1" && $5 != ""' sp1.csv > sp1-answered.csv
    check "smokeping: a saved answer of the buckets and sums gives the same $(wc -l < sp1-answered.csv) answers" cmp spfile.csv sp1-answered.csv
    # --push: fetched here from the site's Prometheus, stored by a central serve
    C=$(store central)
    $GT --db "$C" init >/dev/null
    write_token
    printf '[server]\ntokens_file = tokens\n[ingest]\nspool_dir = spool\n' > c.ini
    GRIDTAIL_CONFIG=c.ini serve_start "$C"
    GRIDTAIL_CONFIG=c.ini $GT ingest prometheus --exporter smokeping --src LOCAL --step 1 --since $((START - 60)) "$P" --push "$URL" --token-file token > push.txt 2>&1
    kill $pid; wait $pid 2>/dev/null
    $GT --db "$C" export | tail -n +2 | awk -F, -v a=$a -v b=$b '$1 >= a && $1 <= b' | sort > central.csv
    sort sp1.csv > sp1.sorted
    check "smokeping --push: the central server stores the $(wc -l < sp1.sorted) samples ingest stored over the same steps" cmp central.csv sp1.sorted
    check "smokeping: --query that is not NAME{MATCHERS}: a usage error naming it" sh -c "
        $GT --db $S ingest prometheus --exporter smokeping --src LOCAL --query 'rate(x[1m])' '$P' 2>&1 | grep -q -- '--query: with --exporter smokeping'"
    kill $sppid 2>/dev/null
fi
kill $ppid $bbpid $hpid 2>/dev/null
wait $ppid $bbpid $hpid ${sppid:-} 2>/dev/null || true   # they end by the signal
