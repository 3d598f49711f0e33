# tier: slow
# Prometheus alert rules (issue 28, part 3): etc/prometheus/gridtail-rules.yml
# passes `promtool check rules`, its unit tests pass `promtool test rules`
# (tests/prometheus/gridtail-rules.test.yml: each alert fires on its level,
# after its `for`, with its value in the summary), and every series the
# rules read is one a real `gridtail serve` exposes.
. "$GT_ROOT/tests/cli/lib.inc"
plan 9
RULES=$GT_ROOT/etc/prometheus/gridtail-rules.yml
if ! command -v promtool >/dev/null 2>&1; then
    skip "the alert rules with promtool" "no promtool (Debian's prometheus package)" 3
else
    check "promtool check rules" sh -c "promtool check rules '$RULES' > check.txt 2>&1"
    check "promtool test rules: every case" \
        sh -c "cd '$GT_ROOT/tests/prometheus' && promtool test rules gridtail-rules.test.yml > '$PWD/test.txt' 2>&1"
    tail -20 test.txt | grep -v '^ *$' | sed 's/^/  /' | grep -iv success | head -20
    check "the unit tests cover every alert of the rules" sh -c "
        grep -o 'alert: [A-Za-z]*' '$RULES' | sed 's/alert: //' | sort -u > alerts.txt
        grep -o 'alertname: [A-Za-z]*' '$GT_ROOT/tests/prometheus/gridtail-rules.test.yml' | sed 's/alertname: //' | sort -u > tested.txt
        cmp -s alerts.txt tested.txt"
fi
# a -> b: 40 samples of 10.0 and 10.2 ms, then 20 of 15.0 and 15.2, the
# last a minute ago: a level shift in its newest 60, medians 10.1 -> 15.1
awk -v now=$(date +%s) 'BEGIN { print "ts,src,dst,rtt_ms"
    for (m = 0; m < 60; m++) printf "%d,a,b,%.1f\n", now - 60 * (60 - m), (m < 40 ? 10 : 15) + (m % 2) * 0.2
    printf "%d,b,a,10\n%d,b,a,\n", now - 120, now - 60 }' > r.csv
$GT --db r.db init >/dev/null && $GT --db r.db ingest csv r.csv >/dev/null 2>&1
printf '[server]\ncollectives = a:b; b:a,nope\n' > col.ini
GRIDTAIL_CONFIG=col.ini serve_start r.db
curl -s "$URL/metrics" > m.txt
curl -s "$URL/metrics/pairs" >> m.txt
kill $pid; wait $pid
check "every gridtail series the rules read is served (and the check label's values)" sh -c "
    grep -o 'gridtail_[a-z_0-9]*' '$RULES' | sort -u > used.txt
    for m in \$(cat used.txt); do grep -q \"^\$m[{ ]\" m.txt || { echo \"  not served: \$m\"; exit 1; }; done
    for c in loss p99 median; do grep -q \"^gridtail_pair_check{.*check=\\\"\$c\\\"}\" m.txt || exit 1; done"
check "the level shift's ratio as gridtail events finds it (15.1 / 10.1 - 1), 0 without one" \
    sh -c "grep -qx 'gridtail_pair_level_shift_ratio{src=\"a\",dst=\"b\"} 0.495049505' m.txt && grep -qx 'gridtail_pair_level_shift_ratio{src=\"b\",dst=\"a\"} 0' m.txt"
want=$(GRIDTAIL_CONFIG=col.ini $GT --db r.db estimate --root a --sites b --json | python3 -c "import json,sys; d=json.load(sys.stdin); print('%.9g %.9g' % (d['e_max'] / 1e3, d['quantiles']['p99'] / 1e3))")
check "[server] collectives: E[max] and p99 of a -> b as estimate gives them ($want s), NaN for one with an unknown site" \
    sh -c "grep -qx 'gridtail_collective_emax_seconds{root=\"a\",sites=\"b\"} ${want% *}' m.txt && grep -qx 'gridtail_collective_p99_seconds{root=\"a\",sites=\"b\"} ${want#* }' m.txt && grep -qx 'gridtail_collective_emax_seconds{root=\"b\",sites=\"a,nope\"} NaN' m.txt"

# after a refit: each pair's fit age (seconds since the refit, small) and
# regime, the one the estimate's answer implies (fallback 2; a Pareto with
# alpha <= 1: 1; else 0); and with a window of 10 and a lead of a minute,
# the collective a:b's tracked forecast errors, each method's as the
# adaptive estimate of the same collective reports them
$GT --db r.db refit >/dev/null
printf '[estimate]\nwindow = 10\n[advisor]\nhorizon_s = 60\n[server]\ncollectives = a:b\n' > track.ini
GRIDTAIL_CONFIG=col.ini serve_start r.db
curl -s "$URL/metrics/pairs" > m2.txt
kill $pid; wait $pid
regime=$($GT --db r.db estimate --root a --sites b --json | python3 -c "import json,sys; p=json.load(sys.stdin)['partners'][0];
print(2 if p['fallback'] else 1 if p['model'] == 'pareto' and p['params']['alpha'] <= 1 else 0)")
check "gridtail_pair_fit_age_seconds: under 10 minutes after the refit; the regime $regime as the estimate implies" \
    python3 -c "import re,sys; t=open('m2.txt').read();
a=float(re.search(r'^gridtail_pair_fit_age_seconds\{src=\"a\",dst=\"b\"\} (\S+)$', t, re.M).group(1));
g=re.search(r'^gridtail_pair_fit_regime\{src=\"a\",dst=\"b\"\} (\S+)$', t, re.M).group(1);
sys.exit(not (0 <= a < 600 and g == '$regime'))"
check "before any refit: +Inf and NaN" \
    sh -c "grep -qx 'gridtail_pair_fit_age_seconds{src=\"a\",dst=\"b\"} +Inf' m.txt && grep -qx 'gridtail_pair_fit_regime{src=\"a\",dst=\"b\"} NaN' m.txt"
GRIDTAIL_CONFIG=track.ini serve_start r.db
curl -s "$URL/metrics/pairs" > m3.txt
kill $pid; wait $pid
GRIDTAIL_CONFIG=track.ini $GT --db r.db estimate --root a --sites b --model adaptive --json > ad.json
check "gridtail_collective_forecast_rmse_seconds and _outcomes: the adaptive estimate's" \
    python3 -c "import json,re,sys; a=json.load(open('ad.json'))['adaptive']; t=open('m3.txt').read();
ok = a['outcomes'] > 0 and re.search(r'^gridtail_collective_forecast_outcomes\{root=\"a\",sites=\"b\"\} %d$' % a['outcomes'], t, re.M)
for m, v in a['rmse_by_method'].items():
    g = re.search(r'^gridtail_collective_forecast_rmse_seconds\{root=\"a\",sites=\"b\",method=\"%s\"\} (\S+)$' % m, t, re.M)
    ok = ok and g and abs(float(g.group(1)) - v / 1e3) <= 1e-9 * max(1, v / 1e3)
sys.exit(not ok)"
