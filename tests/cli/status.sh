# tier: slow
# pairs --status (issue 28, part 2): each pair's status against the
# [thresholds], per default and per site group, with hand-worked values:
# a -> b has 10, 11, ..., 19 ms (median 14.5; p99 by linear interpolation
# between order statistics, 18 + 0.91 = 18.91), b -> a lost 2 of its 10,
# a -> c last answered 1,460 s before the time asked, c -> a has 1..10 ms
# (p99 9.91).
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 29 26
DB=$(store st)
T=1793491200   # 2026-11-01T00:00:00Z, the last sample of most pairs
status_csv $T > st.csv
$GT --db "$DB" init >/dev/null && $GT --db "$DB" ingest csv st.csv >/dev/null 2>&1
status_ini > th.ini
S="$GT --config th.ini --db $DB pairs --status --at $T"

$S --json > st.json
field() {   # field SRC DST KEY: that pair's KEY in st.json
    python3 -c "import json,sys; d=json.load(open('st.json'));
p=[x for x in d['pairs'] if x['src']=='$1' and x['dst']=='$2'][0]; print(p['$3'])"
}
check "a -> b: warning, p99 18.91 over 18 (hand-worked type-7 p99)" \
    [ "$(field a b status) $(field a b p99_ms) $(field a b median_ms)" = "warning 18.91 14.5" ]
check "...its reason says what and by how much" \
    [ "$(field a b reasons)" = "['p99 18.91 ms over 18 ms (warning)']" ]
check "b -> a: critical, 2 of 10 lost (20 % over 10 %)" \
    [ "$(field b a status) $(field b a lost) $(field b a loss)" = "critical 2 0.2" ]
check "a -> c: no data, silent 1,460 s (over silent_s 900)" \
    [ "$(field a c status) $(field a c age_s)" = "no_data 1460.0" ]
check "c -> a: ok, no reasons" [ "$(field c a status) $(field c a reasons)" = "ok []" ]
check "counts of each status" python3 -c "import json,sys; c=json.load(open('st.json'))['counts'];
sys.exit(c != {'ok': 1, 'warning': 1, 'critical': 1, 'no_data': 1})"
check "the table: worst first (critical, no data, warning, ok)" \
    sh -c "$S | awk 'NR > 1 && NR <= 5 { print \$3 }' | tr '\n' ' ' | grep -qx 'critical no_data warning ok '"
check "--only critical: b -> a alone, total 1" \
    sh -c "$S --only critical --json | python3 -c \"import json,sys; d=json.load(sys.stdin);
sys.exit(d['total'] != 1 or [(p['src'], p['dst']) for p in d['pairs']] != [('b', 'a')])\""
$GT --config th.ini --db "$DB" plot matrix --metric status --at $T -o st.svg
cell_fill() {   # cell_fill SRC DST: that cell's fill colour in st.svg
    python3 -c "import re,sys; s=open('st.svg').read();
m=re.search(r'<rect class=\"cell\"[^>]*fill=\"(#[0-9a-f]+)\" data-src=\"$1\" data-dst=\"$2\"', s); print(m.group(1) if m else '')"
}
check "plot matrix --metric status: MaDDash colours (warning yellow, critical red, no data grey, ok green)" \
    [ "$(cell_fill a b) $(cell_fill b a) $(cell_fill a c) $(cell_fill c a)" = "#fee08b #d73027 #bdbdbd #1a9850" ]
check "...the status, numbers and reasons on hover" \
    grep -q '<title>b → a: critical (median 24.5 ms, p99 28.93 ms, loss 20.00 %): loss 20 % over 10 % (critical); p99 28.93 ms over 19 ms (critical)</title>' st.svg
check "--at earlier: a -> c was answering then (critical by its p99 38.91, age 0)" \
    sh -c "$GT --config th.ini --db $DB pairs --status --at $((T - 1460)) --src a --dst c --json | grep -q '\"status\": \"critical\"'"

# groups: g1 holds a and c by name; eu holds the sites of cluster eu
printf 'name,cluster\nb,eu\nc,eu\n' > sites.csv
$GT --db "$DB" sites --import sites.csv >/dev/null
printf '# group KEY=VALUE...\ng1 sites=a,c p99_warning_ms=5\neu loss_critical=0.5 loss_warning=0.3\n' > groups.txt
printf '[thresholds]\ngroups_file = groups.txt\n' >> th.ini
$S --json > st.json
check "a group by name: c -> a takes g1's p99 limit (9.91 over 5)" \
    [ "$(field c a status) $(field c a group)" = "warning g1" ]
check "a pair with one site outside every group keeps the defaults (a -> b)" \
    [ "$(field a b group)" = "None" ]
printf 'name,cluster\na,eu\n' > sites2.csv
$GT --db "$DB" sites --import sites2.csv >/dev/null
printf 'eu loss_critical=0.5 loss_warning=0.3 p99_warning_ms=0 p99_critical_ms=0\n' > groups.txt
$S --json > st.json
check "a group by cluster: b -> a takes eu's limits (loss 20 % is ok there, no p99 limit)" \
    [ "$(field b a status) $(field b a group)" = "ok eu" ]
printf 'eu loss_critical=2\n' > groups.txt
check "a group limit out of range: refused naming file, line and key" \
    sh -c "$S 2>&1 | grep -q 'groups.txt:1: loss_critical: .2. is not a number from 0 to 1'"
printf 'eu p99_limit=3\n' > groups.txt
check "an unknown key: refused naming it" \
    sh -c "$S 2>&1 | grep -q \"groups.txt:1: unknown key 'p99_limit'\""
if first_pass; then
    check "--only without --status: usage error (1)" status_is 1 $GT --db "$DB" pairs --only ok
    check "--only with a status that is none: usage error (1)" \
        status_is 1 $GT --db "$DB" pairs --status --only bad
fi

# The server: GET /v1/status and /metrics/pairs on a store of the last ten
# minutes (the server judges the present), with the same four pairs
N=$(( $(date +%s) / 60 * 60 - 60 ))
status_csv $N > now.csv
DB2=$(store now)
$GT --db "$DB2" init >/dev/null && $GT --db "$DB2" ingest csv now.csv >/dev/null 2>&1
status_ini > th.ini
GRIDTAIL_CONFIG=th.ini serve_start "$DB2"
curl -s "$URL/v1/status" > api.json
$GT --config th.ini --db "$DB2" pairs --status --json > cli.json
check "GET /v1/status: the statuses, reasons and numbers pairs --status gives" python3 - <<'PYEOF'
import json, sys
a, c = json.load(open("api.json")), json.load(open("cli.json"))
# the age, and the silence that quotes it, move on between the two calls
strip = lambda d: [{k: v for k, v in p.items()
                    if k != "age_s" and (k != "reasons" or p["status"] != "no_data")}
                   for p in d["pairs"]]
ok = a["counts"] == c["counts"] == {"ok": 1, "warning": 1, "critical": 1, "no_data": 1} \
    and strip(a) == strip(c)
if not ok:
    print("  api:", a["counts"], strip(a))
    print("  cli:", c["counts"], strip(c))
sys.exit(not ok)
PYEOF
check "worst first: critical, no_data, warning, ok" python3 -c "import json,sys;
sys.exit([p['status'] for p in json.load(open('api.json'))['pairs']] != ['critical','no_data','warning','ok'])"
curl -s "$URL/v1/status?status=critical" > crit.json
check "?status=critical: b -> a alone, total 1" python3 -c "import json,sys; d=json.load(open('crit.json'));
sys.exit(d['total'] != 1 or [(p['src'], p['dst']) for p in d['pairs']] != [('b', 'a')])"
curl -s "$URL/v1/status?limit=2&offset=1" > page.json
check "?limit=2&offset=1: the second and third, the total still 4" python3 -c "import json,sys; d=json.load(open('page.json'));
sys.exit(d['total'] != 4 or [p['status'] for p in d['pairs']] != ['no_data', 'warning'])"
if first_pass; then
    check "?status=bad: 400 naming the field" sh -c "curl -s -w '%{http_code}' '$URL/v1/status?status=bad' | grep -q '\"status\".*400\$\|400\$'"
fi
check "?src=c&dst=a: the one pair" sh -c "curl -s '$URL/v1/status?src=c&dst=a' | grep -q '\"total\": 1'"
curl -s -D mph.txt -o mp.txt "$URL/metrics/pairs"
check "/metrics/pairs: Prometheus text 0.0.4" grep -qi '^Content-Type: text/plain; version=0.0.4' mph.txt
check "promtool check metrics" sh -c "promtool check metrics < mp.txt"
check "each pair's status as a number (b -> a critical: 2, a -> c no data: 3)" \
    sh -c "grep -qx 'gridtail_pair_status{src=\"b\",dst=\"a\"} 2' mp.txt && grep -qx 'gridtail_pair_status{src=\"a\",dst=\"c\"} 3' mp.txt"
check "p99 in seconds (a -> b: 0.01891), loss as a ratio (b -> a: 0.2)" \
    sh -c "grep -qx 'gridtail_pair_rtt_p99_seconds{src=\"a\",dst=\"b\"} 0.01891' mp.txt && grep -qx 'gridtail_pair_loss_ratio{src=\"b\",dst=\"a\"} 0.2' mp.txt"
kill $pid; wait $pid
printf '[server]\nmax_status_pairs = 3\n' >> th.ini
GRIDTAIL_CONFIG=th.ini serve_start "$DB2"
check "more pairs than max_status_pairs: 422 saying so, for both" \
    sh -c "curl -s -o big.txt -w '%{http_code}' '$URL/metrics/pairs' | grep -qx 422 && grep -q '4 pairs, more than \[server\] max_status_pairs (3)' big.txt && curl -s -o /dev/null -w '%{http_code}' '$URL/v1/status' | grep -qx 422"
kill $pid; wait $pid
