# tier: slow
# Remote collectors (issue 14): gridtail ingest FORMAT ... --push URL sends
# what it parsed to a central serve (POST /v1/samples, a write token)
# instead of a local store; what cannot be sent is spooled and sent first
# by the next push: nothing lost, nothing doubled, also when the server is
# killed in the middle of a push.
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 21 15
DB=$(store central)
$GT --db "$DB" init >/dev/null
write_token   # tokens (the server's file) and token (the client's)
printf '[server]\ntokens_file = tokens\n[ingest]\nspool_dir = spool\n' > c.ini
export GRIDTAIL_CONFIG=c.ini
count() { sql "$DB" 'SELECT count(*) FROM samples'; }
T0=1795305600
awk -v t0=$T0 'BEGIN { print "ts,src,dst,rtt_ms"; for (i = 0; i < 100; i++) printf "%d,r1,c1,%s\n", t0 + 60 * i, i == 7 ? "bad" : (i == 9 ? "" : 10 + i % 7) }' > a.csv
serve_start "$DB"
check "push a file" status_is 2 $GT ingest csv a.csv --push "$URL" --token-file token
first_push() {   # its summary, its reject, and the store's count
    grep -q 'stored 99, duplicates 0, conflicts 0, rejected 0' out.txt && grep -q 'a.csv:9: rtt_ms' err.txt &&
        [ "$(count)" = 99 ]
}
check "99 stored (one lost), the bad record named as a.csv:9" first_push
check "pushing it again stores nothing new" sh -c "$GT ingest csv a.csv --push '$URL' --token-file token 2>/dev/null | grep -q 'stored 0, duplicates 99'"
printf 'ts,src,dst,rtt_ms\n%d,r1,c1,99999\n' $((T0 + 9000)) > big.csv
check "a record the server refuses is named by its line in the input" sh -c "$GT ingest csv big.csv --push '$URL' --token-file token 2>&1 >/dev/null | grep -q 'big.csv:2: rtt: 99999 ms'"
check "--json" sh -c "$GT ingest --json csv a.csv --push '$URL' --token-file token 2>/dev/null | python3 -c \"import json, sys; d = json.load(sys.stdin)['pushed'][0]; sys.exit(not (d['status'] == 'sent' and d['duplicates'] == 99))\""
check "a wrong token: not sent, spooled, exit 3" sh -c "echo nope > bad.token; $GT ingest csv big.csv --push '$URL' --token-file bad.token 2> e.txt; [ \$? -eq 3 ] && grep -q 'kept in spool/push-' e.txt"
check "the spool is sent first by the next push (with the right token)" sh -c "$GT ingest csv a.csv --push '$URL' --token-file token > o2.txt 2>&1; grep -q 'a spooled push, sent and removed' o2.txt && ! ls spool/push-* 2>/dev/null"
# a spool file the server refuses whole (its header renamed by hand) is
# moved to spool/rejected/ with its samples and named, never deleted
{ echo "ts,source,dst,rtt_ms"; awk -v t0=$T0 'BEGIN { for (i = 0; i < 1000; i++) printf "%d,r9,c1,%d\n", t0 + 60 * i, 5 + i % 3 }'; } > spool/push-1-1-1.csv
cp spool/push-1-1-1.csv edited.csv
$GT ingest csv a.csv --push "$URL" --token-file token > o6.txt 2> e6.txt
check "a refused spool file is moved to spool/rejected/, whole" cmp -s edited.csv spool/rejected/push-1-1-1.csv
check "and said so, with the way to push it again" sh -c "grep -q 'the server refused it; kept as spool/rejected/push-1-1-1.csv' e6.txt && ! ls spool/push-* 2>/dev/null"
if first_pass; then
    # a push answered 400 whole (a proxy; a server of another version): the
    # parsed samples are kept in spool/rejected/, not dropped and not retried
    python3 - > refuser.log 2>&1 <<'PY' &
import http.server
class Refuse(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b'{"error": "refused whole"}'
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Refuse)
open("refuser.port.tmp", "w").write(str(server.server_address[1]))
__import__("os").rename("refuser.port.tmp", "refuser.port")
server.serve_forever()
PY
    rpid=$!
    wait_until 30 test -s refuser.port
    $GT ingest csv a.csv --push "http://127.0.0.1:$(cat refuser.port)" --token-file token > o7.txt 2> e7.txt
    echo $? > rc7.txt
    kill $rpid
    refused_kept() {   # exit 2, and the 99 samples (one lost) kept in rejected/
        f=$(ls spool/rejected/push-*-*-*.csv | grep -v push-1-1-1) &&
            [ "$(cat rc7.txt)" = 2 ] && [ "$(wc -l < "$f")" = 100 ] &&
            grep -q "99 samples kept in $f for a person to look at" e7.txt && ! ls spool/push-* 2>/dev/null
    }
    check "a batch refused whole is kept in spool/rejected/ (exit 2)" refused_kept
    # a spool file counts as written only once it and its directory are synced
    (unset GRIDTAIL_TOKEN; strace -f -y -e trace=fsync,rename -o st.txt $GT ingest csv a.csv --push "http://127.0.0.1:9" --token-file token > /dev/null 2>&1)
    synced() {   # the file synced before its rename, the directory after
        awk '/fsync\(.*push-.*\.csv\.tmp/ { f = NR } /rename\(.*push-/ { r = NR }
             /fsync\(.*\/spool>\)/ { d = NR } END { exit !(f && r > f && d > r) }' st.txt
    }
    if strace -o /dev/null true 2>/dev/null; then
        check "a spool file is fsynced, then renamed, then its directory fsynced" synced
    else
        skip "a spool file is fsynced, then renamed, then its directory fsynced" "strace cannot trace here"
    fi
fi
rm -f spool/push-*
# a JSON body is parsed a record at a time: 15 MB of "[{},{},...]" (5
# million records, each refused) took 1.2 GB parsed whole; the server's
# peak resident memory stays under 800 MB (28 MB; ASan's quarantine and
# shadow make it about 500)
if first_pass; then
    python3 -c "import sys; sys.stdout.write('[' + ','.join(['{}'] * 5000000) + ']')" > dense.json
    dense_push() {
        curl -s -m 300 -o dense.out -H "Authorization: Bearer $(cat token)" -H 'Content-Type: application/json' --data-binary @dense.json "$URL/v1/samples" &&
            python3 -c "import json; d = json.load(open('dense.out')); exit(not (d['read'] == 5000000 and d['rejected'] == 5000000))" &&
            peak=$(awk '/VmHWM/ { print $2 }' /proc/$pid/status) && echo "peak $peak kB" && [ "$peak" -lt 800000 ]
    }
    if [ -n "${GT_WRAP:-}" ]; then
        skip "a 15 MB JSON push of 5 million records peaks under 800 MB" "under $GT_WRAP the memory is the tool's"
    else
        check "a 15 MB JSON push of 5 million records peaks under 800 MB" dense_push
    fi
    check "--push without a token: usage" sh -c "GRIDTAIL_TOKEN= $GT ingest csv a.csv --push '$URL' 2>/dev/null; [ \$? -eq 1 ]"
    check "--push of a URL: usage" status_is 1 $GT ingest csv http://example.org/x.csv --push "$URL" --token-file token
    check "--token-file without --push: usage" status_is 1 $GT --db "$DB" ingest csv a.csv --token-file token
fi
# site names a quoted CSV field, an Atlas dst_name or a Prometheus
# instance may hold: a comma, a quote (issue 45: the push body did not
# quote them; 3 samples -> 0 stored)
printf 'ts,src,dst,rtt_ms\n%s,"q,1",c1,11\n%s,"q""2",c1,12\n%s,q3,"http://h:9/?a=1,2",13\n' \
    $T0 $T0 $T0 > quoted.csv
$GT ingest csv quoted.csv --push "$URL" --token-file token > q.txt 2>&1
got=$(sql "$DB" "SELECT count(*) FROM samples s JOIN pairs p ON p.id = s.pair
    JOIN sites a ON a.id = p.src JOIN sites b ON b.id = p.dst
    WHERE (a.name = 'q,1' AND b.name = 'c1') OR (a.name = 'q\"2' AND b.name = 'c1')
       OR (a.name = 'q3' AND b.name = 'http://h:9/?a=1,2')")
check "names holding a comma or a quote are pushed whole" [ "$got" = 3 ]
kill -TERM $pid
wait $pid

# the server is down: spooled, then sent when it is back
awk -v t0=$T0 'BEGIN { print "ts,src,dst,rtt_ms"; for (i = 0; i < 50; i++) printf "%d,r2,c1,%d\n", t0 + 60 * i, 20 + i % 5 }' > b.csv
check "with the server down the push is spooled (exit 3)" sh -c "$GT ingest csv b.csv --push '$URL' --token-file token 2> e.txt; [ \$? -eq 3 ] && grep -q '50 samples kept in spool/' e.txt"
before=$(count)
serve_start "$DB"
spool_first() {   # the spooled push sent, then this one
    $GT ingest csv a.csv --push "$URL" --token-file token > o3.txt 2>&1
    grep -q 'sent and removed' o3.txt && [ "$(count)" = $((before + 50)) ]
}
check "with it back the spool goes first, then the new input" spool_first

# killed mid-push: 200,000 samples, the server killed while they go in
# (35 days of minutes ending at T0: samples more than a day in the future
# are refused, GT_CLOCK_SKEW_S)
awk -v t0=$((T0 - 3000000)) 'BEGIN { print "ts,src,dst,rtt_ms"; for (i = 0; i < 200000; i++) printf "%d,r3,c%d,%d\n", t0 + 60 * int(i / 4), i % 4, 30 + i % 9 }' > c.csv
( $GT ingest csv c.csv --push "$URL" --token-file token > o4.txt 2> e4.txt; echo $? > rc4.txt ) &
cpid=$!
# the push is in the server when /metrics counts two requests in flight,
# itself and the push (serve.log names a request only once answered)
pushing() {
    curl -s -m 30 "$URL/metrics" | grep -qx 'gridtail_http_requests_in_flight 2' ||
        ! kill -0 $cpid 2>/dev/null
}
wait_until 60 pushing
kill -KILL $pid
wait $cpid
wait $pid 2>/dev/null
check "the push the server died under ended in the spool (exit $(cat rc4.txt))" sh -c "[ \$(cat rc4.txt) -eq 3 ] || [ \$(cat rc4.txt) -eq 0 ]"
serve_start "$DB"
$GT ingest csv b.csv --push "$URL" --token-file token > o5.txt 2>&1
check "after a restart and one more push: every sample once" [ "$(sql "$DB" "SELECT count(*) FROM samples s JOIN pairs p ON p.id = s.pair JOIN sites a ON a.id = p.src WHERE a.name = 'r3'")" = 200000 ]
check "nothing left in the spool" sh -c "! ls spool/push-* 2>/dev/null"
kill -TERM $pid
wait $pid
