# tier: slow
# API tokens (issue 14): gridtail token new, [server] tokens_file with
# SHA-256 lines and scopes, Authorization: Bearer, 401/403, read_auth,
# reads open to loopback only, reload on SIGHUP; POST /v1/samples with a
# write token, idempotent, conflicts and rejects named; its metrics.
. "$GT_ROOT/tests/cli/lib.inc"
plan 41
DB=t.db
gt() { $GT --db "$DB" "$@"; }
gt init >/dev/null
tok() {   # tok SCOPE: a new token; its line goes into tokens.$1
    $GT token new --scope "$1" --json > tok.json
    python3 -c "import json; print(json.load(open('tok.json'))['line'])" > "line.$1"
    python3 -c "import json; print(json.load(open('tok.json'))['token'])"
}

# ---- gridtail token new
check "token new" status_is 0 $GT token new --scope write
t1=$(sed -n 's/^token: //p' out.txt)
h1=$(sed -n 's/^line for \[server\] tokens_file: write //p' out.txt)
check "43 base64url characters" sh -c "echo '$t1' | grep -Eqx '[A-Za-z0-9_-]{43}'"
check "its line holds the token's SHA-256 (sha256sum agrees)" [ "$(printf %s "$t1" | sha256sum | cut -d' ' -f1)" = "$h1" ]
t2=$($GT token new --scope write | sed -n 's/^token: //p')
check "two tokens differ" [ "$t1" != "$t2" ]
check "token new without --scope: usage" status_is 1 $GT token new
check "token new --scope root: usage" status_is 1 $GT token new --scope root
check "token alone: usage" status_is 1 $GT token

R=$(tok read)
W=$(tok write)
A=$(tok admin)
cat line.read line.write > tokens
printf '# comment\n\n' >> tokens
printf '[server]\ntokens_file = tokens\n' > open.ini
printf '[server]\ntokens_file = tokens\nread_auth = 1\n' > closed.ini

# ---- reads open to loopback by default
GRIDTAIL_CONFIG=open.ini serve_start $DB
check "serve says how many tokens it read" grep -q '2 tokens from tokens' serve.log
check "a loopback read needs no token" sh -c "curl -s -o /dev/null -w '%{http_code}' '$URL/v1/sites' | grep -qx 200"
check "a write without a token: 401 with a challenge" sh -c "curl -s -D h.txt -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: text/csv' --data-binary 'ts,src,dst,rtt_ms' '$URL/v1/samples' | grep -qx 401 && grep -qi 'www-authenticate: Bearer realm=\"gridtail\"' h.txt"
check "a write with a read token: 403 naming the scopes" sh -c "curl -s -o e.txt -w '%{http_code}' -X POST -H 'Authorization: Bearer $R' -H 'Content-Type: text/csv' --data-binary 'ts,src,dst,rtt_ms' '$URL/v1/samples' | grep -qx 403 && grep -q 'scope write; this one.s is read' e.txt"
check "an unknown token: 401" sh -c "curl -s -o e.txt -w '%{http_code}' -X POST -H 'Authorization: Bearer nope' -H 'Content-Type: text/csv' --data-binary 'ts,src,dst,rtt_ms' '$URL/v1/samples' | grep -qx 401 && grep -q 'not known' e.txt"
printf 'ts,src,dst,rtt_ms\n1795305600,a,b,10\n1795305660,a,b,\n1795305720,a,b,12\n1795305780,a,b,x\n' > push.csv
check "a write with a write token stores the good records" sh -c "curl -s -o p.json -w '%{http_code}' -X POST -H 'Authorization: Bearer $W' -H 'Content-Type: text/csv' --data-binary @push.csv '$URL/v1/samples' | grep -qx 200"
check "stored 3 (one lost), rejected line 5 naming the field" python3 -c "
import json, sys; d = json.load(open('p.json'))
sys.exit(not (d['stored'] == 3 and d['lost'] == 1 and d['rejected'] == 1 and d['rejects'][0]['where'] == 'line 5' and 'rtt_ms' in d['rejects'][0]['reason']))"
check "they are in the store" [ "$(sqlite3 $DB 'SELECT count(*) FROM samples')" = 3 ]
check "the same push again stores nothing new" sh -c "curl -s -X POST -H 'Authorization: Bearer $W' -H 'Content-Type: text/csv' --data-binary @push.csv '$URL/v1/samples' | tr -d ' \n' | grep -q '\"stored\":0,\"duplicates\":3'"
check "JSON records: a conflict and a bad record named by index" sh -c "curl -s -X POST -H 'Authorization: Bearer $W' -H 'Content-Type: application/json' -d '[{\"ts\": 1795305600, \"src\": \"a\", \"dst\": \"b\", \"rtt_ms\": 11}, {\"ts\": 1795305840, \"src\": \"a\", \"dst\": \"b\", \"rtt_ms\": 13}, {\"ts\": 5, \"src\": \"\", \"dst\": \"b\", \"rtt_ms\": 1}]' '$URL/v1/samples' > j.json && python3 -c \"
import json, sys; d = json.load(open('j.json'))
sys.exit(not (d['stored'] == 1 and d['conflicts'] == 1 and d['conflicts_list'][0]['where'] == 'records[0]' and d['rejects'][0]['where'] == 'records[2]: src'))\""
check "another type: 415" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer $W' -H 'Content-Type: text/plain' --data-binary @push.csv '$URL/v1/samples' | grep -qx 415"
check "not CSV: 400, nothing stored" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer $W' -H 'Content-Type: text/csv' --data-binary 'hello' '$URL/v1/samples' | grep -qx 400 && [ \$(sqlite3 $DB 'SELECT count(*) FROM samples') = 4 ]"
check "GET /v1/samples: 405, Allow: POST" sh -c "curl -s -D h405.txt -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $W' '$URL/v1/samples' | grep -qx 405 && tr -d '\\r' < h405.txt | grep -qix 'Allow: POST'"
check "the ingest log names the pusher" sh -c "sqlite3 $DB 'SELECT input FROM ingest_log' | grep -q 'POST /v1/samples from 127.0.0.1'"
curl -s "$URL/metrics" > metrics.txt
check "metrics count the pushed samples" sh -c "grep -qx 'gridtail_samples_pushed_total{result=\"stored\"} 4' metrics.txt && grep -qx 'gridtail_samples_pushed_total{result=\"duplicate\"} 3' metrics.txt && grep -qx 'gridtail_samples_pushed_total{result=\"conflict\"} 1' metrics.txt"
check "promtool check metrics" sh -c "promtool check metrics < metrics.txt"

# ---- SIGHUP
check "an admin token is not known yet" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer $A' -H 'Content-Type: text/csv' --data-binary 'ts,src,dst,rtt_ms' '$URL/v1/samples' | grep -qx 401"
cat line.admin >> tokens
kill -HUP $pid
check "SIGHUP reads the file again (3 tokens)" wait_until 60 grep -q 'SIGHUP: 3 tokens from tokens' serve.log
check "the admin token writes now" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer $A' -H 'Content-Type: text/csv' --data-binary 'ts,src,dst,rtt_ms' '$URL/v1/samples' | grep -qx 200"
cp tokens tokens.good
echo 'write 12zz' >> tokens
kill -HUP $pid
check "a broken file on SIGHUP keeps the tokens before, saying where" wait_until 60 grep -q 'SIGHUP: tokens:6: sha256: .*the 3 tokens before stay' serve.log
check "and they still work" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer $A' -H 'Content-Type: text/csv' --data-binary 'ts,src,dst,rtt_ms' '$URL/v1/samples' | grep -qx 200"
cp tokens.good tokens
# a directory where the file was (or a read error): the tokens before stay
# (issue 26: it loaded 0 tokens, and every push was then 401)
mv tokens tokens.file && mkdir tokens
kill -HUP $pid
check "a directory at tokens_file on SIGHUP keeps the tokens before" wait_until 60 grep -q 'SIGHUP: tokens: not a regular file.*the 3 tokens before stay' serve.log
check "and they still write" sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer $A' -H 'Content-Type: text/csv' --data-binary 'ts,src,dst,rtt_ms' '$URL/v1/samples' | grep -qx 200"
rmdir tokens && mv tokens.file tokens
check "no token is ever logged" sh -c "! grep -qF -e '$W' -e '$R' -e '$A' serve.log"
kill -TERM $pid
wait $pid

# ---- read_auth = 1
GRIDTAIL_CONFIG=closed.ini $GT --db $DB refit > /dev/null
GRIDTAIL_CONFIG=closed.ini serve_start $DB
check "read_auth: a read without a token is 401" sh -c "curl -s -o /dev/null -w '%{http_code}' '$URL/v1/sites' | grep -qx 401"
check "with a read token 200" sh -c "curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $R' '$URL/v1/sites' | grep -qx 200"
check "a write token reads too" sh -c "curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $W' -X POST -H 'Content-Type: application/json' -d '{\"root\": \"a\", \"sites\": [\"b\"], \"at\": 1795306000}' '$URL/v1/estimate' | grep -qx 200"
curl -s -H "Authorization: Bearer $R" -X POST -H 'Content-Type: application/json' -d '{"root": "a", "sites": ["b"]}' "$URL/v1/estimate" > est.json
# both estimates of this server (the write token's above and this one)
# take a -> b's current window from the cache that refit filled
check "estimates from the fit cache count as cache hits in /metrics" sh -c "curl -s -H 'Authorization: Bearer $R' '$URL/metrics' > m2.txt && grep -qx 'gridtail_pair_fits_total{source=\"cache\"} 2' m2.txt && grep -qx 'gridtail_pair_fits_total{source=\"samples\"} 0' m2.txt"
check "the probes and the page's files stay open" sh -c "for p in /healthz /readyz / /dashboard.js /v1/openapi.json; do curl -sf -o /dev/null '$URL'\$p || exit 1; done"
kill -TERM $pid
wait $pid

# ---- a client that is not on loopback: a test host of our own, in a
# network namespace joined to this one by a veth pair (198.18.0.0/30,
# the benchmarking range, so no real network is ever addressed)
ns=gtauth$$
veth=gtv$$
netns_up() {
    [ "$(id -u)" = 0 ] && command -v ip >/dev/null 2>&1 && ip netns add $ns 2>/dev/null || return 1
    ip link add ${veth}a type veth peer name ${veth}b &&
        ip link set ${veth}b netns $ns &&
        ip addr add 198.18.0.1/30 dev ${veth}a && ip link set ${veth}a up &&
        ip -n $ns addr add 198.18.0.2/30 dev ${veth}b && ip -n $ns link set ${veth}b up &&
        ip netns exec $ns curl -s -m 5 -o /dev/null http://198.18.0.1:9/ 2>/dev/null
    # curl's refused connection above (exit 7) is the path working
    [ $? -eq 7 ]
}
netns_down() {
    ip netns del $ns 2>/dev/null
    ip link del ${veth}a 2>/dev/null
    return 0
}
if netns_up; then
    rm -f port.txt
    GRIDTAIL_CONFIG=open.ini $GT --db $DB serve --listen 198.18.0.1:0 --port-file port.txt 2> serve2.log &
    pid=$!
    i=0
    while [ ! -s port.txt ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    RURL="http://198.18.0.1:$(cat port.txt)"
    check "a read from 198.18.0.2 (another host, not loopback) needs a token" sh -c "ip netns exec $ns curl -s -m 10 -o /dev/null -w '%{http_code}' '$RURL/v1/sites' | grep -qx 401"
    check "and is answered with one" sh -c "ip netns exec $ns curl -s -m 10 -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $R' '$RURL/v1/sites' | grep -qx 200"
    kill -TERM $pid
    wait $pid
else
    skip "reads from another host need a token" "no network namespace here (needs root and iproute2's ip netns)" 2
fi
netns_down

# ---- start-up errors
printf 'read 0011\n' > bad.tokens
printf '[server]\ntokens_file = bad.tokens\n' > bad.ini
check "a bad tokens file stops serve: exit 2, file:line: field" sh -c "GRIDTAIL_CONFIG=bad.ini $GT --db $DB serve --listen localhost:0 2> e.txt; [ \$? -eq 2 ] && grep -q 'bad.tokens:1: sha256' e.txt"
printf '[server]\nread_auth = 1\n' > noauth.ini
check "read_auth without tokens_file: usage" sh -c "GRIDTAIL_CONFIG=noauth.ini $GT --db $DB serve --listen localhost:0 2> e.txt; [ \$? -eq 1 ] && grep -q 'read_auth' e.txt"
printf '[server]\ntokens_file = missing.tokens\n' > miss.ini
check "a missing tokens file: exit 3" sh -c "GRIDTAIL_CONFIG=miss.ini $GT --db $DB serve --listen localhost:0 2>/dev/null; [ \$? -eq 3 ]"
