# tier: slow
# The demo's dashboard an hour later (issue 49).  A store like the
# demo's (gridtail synth's 27 sites) whose newest sample is more than an
# hour old: every pair is silent, so status, the page's default metric,
# greys all 702.  Served, and opened in a real browser as the README's
# Quick tour says (its URL): the page shows data and says why status is
# grey (tests/browser/silent.py).  Then fresh samples: status again.
# The demo (scripts/demo.sh) prints the command and URL the README gives.
# Screenshots in build/test-artifacts/ (or $GT_ARTIFACTS).
. "$GT_ROOT/tests/cli/lib.inc"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
NSILENT=$($PY "$GT_ROOT/tests/browser/silent.py" --checks silent)
NFRESH=$($PY "$GT_ROOT/tests/browser/silent.py" --checks fresh)
plan $((5 + NSILENT + NFRESH))
DB=demo.db

# ---- what the README and the demo tell a newcomer: the same command and URL
sed -n '/^## Quick tour/,/^## /p' "$GT_ROOT/README.md" | tr '\n' ' ' | tr -s ' ' > tour.txt
# the dashboard's URL: the page itself, / with a query or hash or none
URL_README=$(grep -oE 'http://127\.0\.0\.1:8080/([?#][^ )`]*)?[ )`]' tour.txt | head -1 | sed 's/.$//')
check "the Quick tour opens the demo's store in the dashboard ($URL_README)" \
    sh -c "grep -q -- '--db demo/gridtail.db serve --listen 127.0.0.1:8080' tour.txt && [ -n '$URL_README' ]"
check "the demo prints the same command and URL" \
    sh -c "[ -n '$URL_README' ] && grep -q -- '--db \$DB serve --listen 127.0.0.1:8080' '$GT_ROOT/scripts/demo.sh' &&
           grep -qF -- '$URL_README' '$GT_ROOT/scripts/demo.sh' &&
           grep -q '^DIR=\${GRIDTAIL_DEMO_DIR:-demo}$' '$GT_ROOT/scripts/demo.sh' &&
           grep -q '^DB=\$DIR/gridtail.db$' '$GT_ROOT/scripts/demo.sh'"

# ---- the store: 6 hours of the demo's sites, the newest sample 65 min old
now=$(date +%s)
$GT synth --span 6h --start $((now - 6 * 3600 - 3900)) --seed 2026 --sites-out sites.csv \
    -o old.amp.csv 2>/dev/null
$GT --db "$DB" init >/dev/null
$GT --db "$DB" sites --import sites.csv >/dev/null 2>&1
$GT --db "$DB" ingest --quiet amp-csv old.amp.csv
serve_start "$DB"
check "every pair silent: /v1/status says 702 without data" sh -c \
    "curl -sf '$URL/v1/status?limit=1' | $PY -c 'import json, sys; c = json.load(sys.stdin)[\"counts\"]; sys.exit(not (c[\"no_data\"] == 702 and c[\"ok\"] + c[\"warning\"] + c[\"critical\"] == 0))'"

# ---- the page, in a browser
ART=${GT_ARTIFACTS:-$GT_ROOT/${BUILD:-build}/test-artifacts}
PAGE="$URL${URL_README#http://127.0.0.1:8080}"
[ -n "$URL_README" ] || PAGE="$URL/"
browser() {   # browser MODE N: silent.py's N checks of MODE, or skipped
    if ! command -v chromium > /dev/null || ! $PY -c 'import websocket' 2> /dev/null; then
        skip "the dashboard in a browser ($1)" "chromium or python3-websocket is not installed" "$2"
    else
        $PY "$GT_ROOT/tests/browser/silent.py" "$1" "$PAGE" "$ART" 2> browser.err ||
            { echo "not ok - the browser test ran"; tail -5 browser.err; }
    fi
}
browser silent "$NSILENT"

# ---- fresh samples: the last hour, up to now
$GT synth --span 1h --seed 2027 -o new.amp.csv 2>/dev/null
$GT --db "$DB" ingest --quiet amp-csv new.amp.csv
check "fresh samples: /v1/status judges the pairs again" sh -c \
    "curl -sf '$URL/v1/status?limit=1' | $PY -c 'import json, sys; c = json.load(sys.stdin)[\"counts\"]; sys.exit(not c[\"ok\"] + c[\"warning\"] + c[\"critical\"] > 0)'"
browser fresh "$NFRESH"
kill -TERM $pid
wait $pid
check "the server stopped cleanly" [ $? = 0 ]
