# tier: slow
# The dashboard of gridtail serve (issue 15): its files and plot endpoints
# over real HTTP (curl), then the page in a real browser: Debian's
# chromium, headless, driven through the DevTools protocol
# (tests/browser/dashboard.py) on the demo's data.  Screenshots are kept
# in build/test-artifacts/ (or $GT_ARTIFACTS).
. "$GT_ROOT/tests/cli/lib.inc"
plan 60
DB=demo.db
gt() { $GT --db "$DB" "$@"; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
demo_store $DB 3d
serve_start $DB
JSON='-H Content-Type:application/json'

# ---- the files, compiled in
check "GET / is the page" sh -c "curl -sf -D h.txt '$URL/' -o page.html && grep -q '<script src=\"/dashboard.js\">' page.html"
check "with a content security policy of its own origin" grep -qi "content-security-policy: default-src 'self'; script-src 'self'" h.txt
check "as text/html, nosniff" sh -c "grep -qi 'content-type: text/html' h.txt && grep -qi 'x-content-type-options: nosniff' h.txt"
check "the script and stylesheet are served" sh -c "curl -sf -D j.txt '$URL/dashboard.js' | grep -q 'loadMatrix' && grep -qi 'text/javascript' j.txt && curl -sf '$URL/dashboard.css' | grep -q 'font-family'"
check "no CDN: the page loads nothing from elsewhere" sh -c "! grep -Eq '(src|href)=\"(https?:)?//' page.html && ! grep -Eq 'https?://' page.html"
check "POST / is 405 with Allow" sh -c "curl -s -D h2.txt -o /dev/null -w '%{http_code}' -X POST $JSON -d '{}' '$URL/' | grep -qx 405 && grep -qi 'allow: GET, HEAD' h2.txt"

# ---- the plot endpoints
check "GET /v1/plot/matrix: an SVG" sh -c "curl -sf -D m.txt '$URL/v1/plot/matrix?metric=p99&highlight=CERN,KIT' -o m.svg && grep -qi 'image/svg+xml' m.txt && xmllint --noout m.svg"
check "the same SVG as plot matrix" sh -c "$GT --db $DB plot matrix --metric p99 --highlight CERN,KIT -o cli.svg && cmp -s m.svg cli.svg"
check "GET /v1/plot/ccdf and /v1/plot/series" sh -c "curl -sf '$URL/v1/plot/ccdf?src=CERN&dst=KIT' | xmllint --noout - && curl -sf '$URL/v1/plot/series?src=CERN&dst=KIT&bins=100' | xmllint --noout -"
check "a pair plot without dst: 400 naming it" sh -c "curl -s -o e.txt -w '%{http_code}' '$URL/v1/plot/ccdf?src=CERN' | grep -qx 400 && grep -q '\"field\": \"dst\"' e.txt"
check "an unknown pair: 404" sh -c "curl -s -o /dev/null -w '%{http_code}' '$URL/v1/plot/ccdf?src=CERN&dst=NOPE' | grep -qx 404"
check "an unknown metric: 400" sh -c "curl -s -o /dev/null -w '%{http_code}' '$URL/v1/plot/matrix?metric=mean' | grep -qx 400"
check "a window past max_window: 422" sh -c "curl -s -o /dev/null -w '%{http_code}' '$URL/v1/plot/ccdf?src=CERN&dst=KIT&window=99999999' | grep -qx 422"
check "bins past the limit: 400" sh -c "curl -s -o /dev/null -w '%{http_code}' '$URL/v1/plot/series?src=CERN&dst=KIT&bins=5000' | grep -qx 400"

# 200 mutated plot requests over HTTP (odd, huge, empty, binary, repeated
# parameters): each answered 200, 400, 404 or 422, never a crash or 500
python3 - "$URL" > pfuzz.txt <<'PYEOF'
import random, sys, urllib.error, urllib.parse, urllib.request
url, rnd = sys.argv[1], random.Random(15)
odd = ["", "0", "-1", "1", "2", "99999999999999999999", "1e3", "nan", "CERN", "KIT", "NOPE",
       "CERN,KIT", ",,,", "a" * 5000, "\u00e9\u00e9", "%00", "\x00", "median", "alpha", "p99", "loss"]
keys = ["src", "dst", "metric", "window", "bins", "samples", "highlight", "at"]
bad = 0
for n in range(200):
    path = rnd.choice(["/v1/plot/ccdf", "/v1/plot/series", "/v1/plot/ccdf", "/v1/plot/matrix"])
    qs = [(rnd.choice(keys), rnd.choice(odd)) for _ in range(rnd.randint(0, 5))]
    if rnd.random() < 0.5:
        qs += [("src", "CERN"), ("dst", "KIT")]
    try:
        st = urllib.request.urlopen(url + path + "?" + urllib.parse.urlencode(qs), timeout=30).status
    except urllib.error.HTTPError as e:
        st = e.code
    if st not in (200, 400, 404, 422):
        bad += 1
        print(st, path, qs)
print("bad", bad)
PYEOF
check "200 mutated plot requests: every answer 200, 400, 404 or 422 ($(tail -1 pfuzz.txt))" grep -qx 'bad 0' pfuzz.txt
check "and the server still answers" sh -c "curl -sf '$URL/healthz' | grep -q alive"

# one pair's tracked forecast errors in /v1/pairs are those the adaptive
# estimate of the same one-partner collective reports
check "GET /v1/pairs?src&dst carries the pair's tracked errors, as the adaptive estimate's" python3 - "$URL" <<'PYEOF'
import json, sys, urllib.request
url = sys.argv[1]
pair = json.load(urllib.request.urlopen(url + "/v1/pairs?src=CERN&dst=KIT"))["pairs"][0]
req = urllib.request.Request(url + "/v1/estimate", data=json.dumps({"root": "CERN", "sites": ["KIT"], "model": "adaptive"}).encode(),
                             headers={"Content-Type": "application/json"})
est = json.load(urllib.request.urlopen(req))["adaptive"]
t = pair["tracked"]
assert t["best"] == est["chosen"] and t["outcomes"] == est["outcomes"], (t, est)
for k, v in est["rmse_by_method"].items():
    assert abs(t["rmse_ms"][k] - v) <= 1e-9 * v, (k, t["rmse_ms"][k], v)
assert pair["fit"]["selected"] in ("pareto", "normal", "delta")
PYEOF

# ---- the page's own origin may POST; others, and names, may not
P="$(cat port.txt)"
check "the page's origin may POST" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST $JSON -H 'Origin: http://127.0.0.1:$P' -d '{\"root\": \"CERN\", \"sites\": [\"KIT\"]}' '$URL/v1/estimate' | grep -qx 200"
check "a foreign origin may not" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST $JSON -H 'Origin: http://evil.example' -d '{\"root\": \"CERN\", \"sites\": [\"KIT\"]}' '$URL/v1/estimate' | grep -qx 403"
check "nor a name re-pointed here (DNS rebinding): 421" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST $JSON -H 'Host: evil.example:$P' -H 'Origin: http://evil.example:$P' -d '{\"root\": \"CERN\", \"sites\": [\"KIT\"]}' '$URL/v1/estimate' | grep -qx 421"
# a page re-pointed here by DNS rebinding reads without any Origin (a GET
# of its "own" site): the Host name is refused (issue 26: it was 200)
for path in /v1/sites /v1/pairs /metrics /v1/plot/matrix; do
    check "GET $path with Host evil.example: 421" sh -c "curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example:$P' '$URL$path' | grep -qx 421"
done
check "Host localhost, 127.0.0.1 and [::1]: answered" sh -c "for h in localhost:$P 127.0.0.1:$P '[::1]:$P'; do curl -s -o /dev/null -w '%{http_code}\\n' -H \"Host: \$h\" '$URL/v1/sites'; done | grep -c 200 | grep -qx 3"

# ---- the browser: what the page draws (tests/browser/dashboard.py)
gt sites --json > sites.json
pool=ANL,BNL,CERN,CNAF,DESY,FNAL,IN2P3,KIT,NIKHEF,PIC,RAL,TRIUMF
# the demo's CLI window (scripts/demo.sh), not the config's 60
# (the weighted model: the form's answer must be the CLI's with it too)
gt place --pool $pool --size 3 --root CERN --window 120 --model combined --json > place.json
gt estimate --root CERN --sites KIT --json > pair.json
$PY - <<'PYEOF' > expect.json
import json
sites = [s["name"] for s in json.load(open("sites.json"))["sites"] if s["pairs_out"] + s["pairs_in"] > 0]
best = json.load(open("place.json"))["candidates"][0]
partner = json.load(open("pair.json"))["partners"][0]
print(json.dumps({"sites": sites, "pair": ["CERN", "KIT"],
                  "pair_model": partner["model"], "pair_fallback": partner["fallback"],
                  "place": {"pool": "ANL,BNL,CERN,CNAF,DESY,FNAL,IN2P3,KIT,NIKHEF,PIC,RAL,TRIUMF".split(","),
                            "size": 3, "root": "CERN", "window": 120, "model": "combined",
                            "sites": best["sites"]}}))
PYEOF
ART=${GT_ARTIFACTS:-$GT_ROOT/${BUILD:-build}/test-artifacts}
BROWSER_CHECKS=$($PY "$GT_ROOT/tests/browser/dashboard.py" --checks)
if ! command -v chromium > /dev/null || ! $PY -c 'import websocket' 2> /dev/null; then
    skip "the dashboard in a browser" "chromium or python3-websocket is not installed" $((BROWSER_CHECKS + 1))
else
    $PY "$GT_ROOT/tests/browser/dashboard.py" "$URL/" expect.json "$ART" 2> browser.err ||
        { echo "not ok - the browser test ran"; tail -5 browser.err; }
    check "screenshots kept as artifacts" sh -c "[ -s '$ART/dashboard-start.png' ] && [ -s '$ART/dashboard-place.png' ]"
fi
kill -TERM $pid
wait $pid
# names the operator lists ([server] allowed_hosts), in any case
printf '[server]\nallowed_hosts = grid.example, gridtail.lan\n' > hosts.ini
GRIDTAIL_CONFIG=hosts.ini serve_start $DB
P="$(cat port.txt)"
check "allowed_hosts: a listed name is answered, in any case" sh -c "curl -s -o /dev/null -w '%{http_code}' -H 'Host: GRID.example:$P' '$URL/v1/sites' | grep -qx 200 && curl -s -o /dev/null -w '%{http_code}' -H 'Host: gridtail.lan' '$URL/v1/sites' | grep -qx 200"
check "allowed_hosts: another name is still 421" sh -c "curl -s -o /dev/null -w '%{http_code}' -H 'Host: grid.example.evil:$P' '$URL/v1/sites' | grep -qx 421"
kill -TERM $pid
wait $pid
