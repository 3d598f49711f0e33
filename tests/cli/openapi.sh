# The API's description (docs/openapi.json, OpenAPI 3.1): Redocly's CLI
# (pinned in tests/openapi/package-lock.json, from the npm registry) lints
# it; the server hands out the same document at /v1/openapi.json; and real
# answers of a running server are validated against it, every operation
# (tests/openapi/validate.py, JSON Schema 2020-12 with python3-jsonschema).
. "$GT_ROOT/tests/cli/lib.inc"
DB=demo.db
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
NPM_DIR=$GT_ROOT/${BUILD:-build}/openapi-lint
mkdir -p "$NPM_DIR"
if ! cmp -s "$GT_ROOT/tests/openapi/package-lock.json" "$NPM_DIR/package-lock.json" ||
   [ ! -x "$NPM_DIR/node_modules/.bin/redocly" ]; then
    cp "$GT_ROOT/tests/openapi/package.json" "$GT_ROOT/tests/openapi/package-lock.json" "$NPM_DIR/"
    (cd "$NPM_DIR" && npm ci --no-audit --no-fund --loglevel=error > npm.log 2>&1) ||
        { echo "not ok - npm ci of the pinned linter"; tail -5 "$NPM_DIR/npm.log"; }
fi
check "redocly lint docs/openapi.json" sh -c "'$NPM_DIR/node_modules/.bin/redocly' lint '$GT_ROOT/docs/openapi.json' > lint.txt 2>&1 && grep -q 'Your API description is valid' lint.txt"
grep -E 'error|warning' lint.txt | head -5

demo_store $DB 1d
$GT token new --scope write --json > token.json
python3 -c "import json; print(json.load(open('token.json'))['line'])" > tokens
printf '[server]\ntokens_file = tokens\n' > serve.ini
export GT_TOKEN="$(python3 -c "import json; print(json.load(open('token.json'))['token'])")"
GRIDTAIL_CONFIG=serve.ini serve_start $DB
check "GET /v1/openapi.json is docs/openapi.json" sh -c "curl -sf '$URL/v1/openapi.json' -o served.json && cmp -s served.json '$GT_ROOT/docs/openapi.json'"
$PY "$GT_ROOT/tests/openapi/validate.py" "$URL" "$GT_ROOT/docs/openapi.json" 2> validate.err ||
    { echo "not ok - validate.py ran"; tail -5 validate.err; }
kill -TERM $pid
wait $pid
