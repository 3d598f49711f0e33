# tier: slow
# Broker wiring (issue 14): scripts/brokers/ run against a demo store and
# their output checked against each broker's grammar: the GridWay
# information MAD's "OPERATION HID RESULT INFO" lines with NAME=value
# attributes, the HTCondor STARTD_CRON hook's ClassAd lines ending in "-",
# and the curl recipe of docs/INTEGRATION.md.
. "$GT_ROOT/tests/cli/lib.inc"
plan 12
DB=demo.db
demo_store $DB 1d
B=$GT_ROOT/scripts/brokers
printf '# GridWay host -> gridtail site\nce01.cern.ch CERN\nce.gridka.de KIT\nce.fnal.gov FNAL\n' > hosts.map
printf 'INIT - - -\nDISCOVER - - -\nMONITOR 0 ce.gridka.de -\nMONITOR 1 ce.fnal.gov -\nMONITOR 2 nowhere.org -\nBOGUS - - -\nFINALIZE - - -\nMONITOR 3 ce.gridka.de -\n' > mad.in
GRIDTAIL="$GT" sh "$B/gridway-im-gridtail" -r CERN -m hosts.map -d $DB < mad.in > mad.out 2> mad.err
check "the MAD answers each request and stops at FINALIZE (6 lines)" [ "$(wc -l < mad.out)" = 7 ]
check "every line is OPERATION HID SUCCESS|FAILURE INFO, NAME=value attributes" python3 - <<'PYEOF'
import re, sys
ok = True
for line in open("mad.out"):
    m = re.fullmatch(r'(INIT|DISCOVER|MONITOR|FINALIZE|BOGUS) (\S+) (SUCCESS|FAILURE) (.+)', line.rstrip("\n"))
    if not m:
        print("bad line:", line); ok = False; continue
    op, hid, res, info = m.groups()
    if op == "MONITOR" and res == "SUCCESS":
        for a in re.findall(r'\S+="[^"]*"|\S+', info):
            if not re.fullmatch(r'[A-Z][A-Z0-9_]*=(-?\d+|"[^"]*")', a):
                print("bad attribute:", a); ok = False
sys.exit(not ok)
PYEOF
check "DISCOVER lists the map's hosts" grep -qx 'DISCOVER - SUCCESS ce01.cern.ch ce.gridka.de ce.fnal.gov' mad.out
want=$($GT --db $DB estimate --root CERN --sites KIT --format gridway | tail -1 | tr ' ' '\n' | sed -n 's/^EMAX_US=//p')
check "MONITOR gives gridtail's E[max] of the collective CERN -> KIT ($want us)" grep -q "^MONITOR 0 SUCCESS HOSTNAME=\"ce.gridka.de\" .*GRIDTAIL_EMAX_US=$want .*GRIDTAIL_P99_US=[0-9]* .*GRIDTAIL_DATA_AGE_S=[0-9]" mad.out
check "a host outside the map: FAILURE saying so" grep -qx 'MONITOR 2 FAILURE nowhere.org is not in the host map' mad.out
check "an unknown operation: FAILURE" grep -q '^BOGUS - FAILURE' mad.out
check "the job template ranks by the MAD's attribute" grep -q '^RANK *= - GRIDTAIL_P99_US' "$B/gridway-job.jt"

# HTCondor: the hook asks a running server
$GT token new --scope read --json > t.json
python3 -c "import json; print(json.load(open('t.json'))['line'])" > tokens
python3 -c "import json; print(json.load(open('t.json'))['token'])" > read.token
printf '[server]\ntokens_file = tokens\nread_auth = 1\n' > s.ini
GRIDTAIL_CONFIG=s.ini serve_start $DB
sh "$B/htcondor-startd-cron" "$URL" CERN KIT read.token > cron.out
check "the hook's output is ClassAd attributes ending in -" python3 - <<'PYEOF'
import re, sys
lines = open("cron.out").read().split("\n")
assert lines[-1] == "" and lines[-2] == "-", lines[-3:]
ok = True
for l in lines[:-2]:
    if not re.fullmatch(r'[A-Za-z_][A-Za-z0-9_]* = (true|false|undefined|-?[0-9][0-9.eE+-]*|"[^"\\]*")', l):
        print("bad:", l); ok = False
sys.exit(not ok)
PYEOF
api=$(curl -s -H "Authorization: Bearer $(cat read.token)" -H 'Content-Type: application/json' -d '{"root": "CERN", "sites": ["KIT"], "quantiles": [0.5, 0.99]}' "$URL/v1/estimate" | python3 -c "import json, sys; print(json.load(sys.stdin)['e_max'])")
check "GridtailEmaxMs is the API's E[max]" python3 -c "
import re, sys
got = float(re.search(r'^GridtailEmaxMs = (\S+)$', open('cron.out').read(), re.M).group(1))
sys.exit(abs(got - $api) > 1e-9 * $api)"
check "without the token it says GridtailOk = false, still a valid ad" sh -c "sh '$B/htcondor-startd-cron' '$URL' CERN KIT > nok.out; grep -qx 'GridtailOk = false' nok.out && tail -1 nok.out | grep -qx -- -"
check "the configuration names the hook" grep -q '^STARTD_CRON_GRIDTAIL_EXECUTABLE = .*htcondor-startd-cron' "$B/htcondor-gridtail.config"

# the curl recipe of docs/INTEGRATION.md, as written there
sed -n '/^<!-- recipe -->/,/^<!-- end -->/p' "$GT_ROOT/docs/INTEGRATION.md" | grep -v '^<!--' | grep -v '^ *```' |
    sed -e "s|http://head.example.org:8080|$URL|g" > recipe.sh
check "the curl recipe runs as written and answers a placement" sh -c "READ_TOKEN=\$(cat read.token) sh recipe.sh > recipe.out && python3 -c \"import json; d = json.load(open('recipe.out')); assert d['candidates'][0]['root'] and len(d['candidates'][0]['sites']) == 2\""
kill -TERM $pid
wait $pid
