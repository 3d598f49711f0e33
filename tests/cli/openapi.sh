# tier: slow
# The API's description (docs/openapi.json, OpenAPI 3.1): Redocly's CLI
# (pinned in tests/openapi/package-lock.json, installed from the npm
# registry by scripts/install-deps.sh test) lints
# it; the server hands out the same document at /v1/openapi.json; and real
# answers of a running server are validated against it, every operation
# (tests/openapi/validate.py, JSON Schema 2020-12 with python3-jsonschema).
. "$GT_ROOT/tests/cli/lib.inc"
plan 150
DB=demo.db
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
# The linter is installed by the set-up step (make check runs
# scripts/install-deps.sh test), never downloaded here.
LINT=$GT_ROOT/build/openapi-lint/node_modules/.bin/redocly
if [ -x "$LINT" ]; then
    check "redocly lint docs/openapi.json: valid, no warning" sh -c "'$LINT' lint '$GT_ROOT/docs/openapi.json' > lint.txt 2>&1 && grep -q 'Your API description is valid' lint.txt && ! grep -qi 'warning' lint.txt"
    grep -E 'error|warning' lint.txt | head -5
else
    echo "not ok - redocly lint docs/openapi.json: the linter is not installed ($LINT); 'sh scripts/install-deps.sh test' installs it"
fi

demo_store $DB 1d
$GT token new --scope write --json > token.json
python3 -c "import json; print(json.load(open('token.json'))['line'])" > tokens
printf '[server]\ntokens_file = tokens\n' > serve.ini
export GT_TOKEN="$(python3 -c "import json; print(json.load(open('token.json'))['token'])")"
GRIDTAIL_CONFIG=serve.ini serve_start $DB
check "GET /v1/openapi.json is docs/openapi.json" sh -c "curl -sf '$URL/v1/openapi.json' -o served.json && cmp -s served.json '$GT_ROOT/docs/openapi.json'"
# (its checks are counted in the plan: a crash half-way shows as too few)
$PY "$GT_ROOT/tests/openapi/validate.py" "$URL" "$GT_ROOT/docs/openapi.json" 2> validate.err ||
    tail -5 validate.err
kill -TERM $pid
wait $pid
