# Archive answers are not decoded whole whatever their size (issue 45,
# point 4: a 64 MiB page cost 1,359 MiB, a 510 KB gzip page inflating to
# 524 MB 2.8 GiB, then "refused" with no reason): a JSON answer larger
# than [http] max_json_mb (16 MiB) is not taken, and the window of time
# it answered is asked again in halves, down to a 64th of a window; one
# that small still too large fails naming the window and the setting.
# A RIPE Atlas results endpoint (tests/servers/atlas_server.py) answers
# the last day (one window) with 1,400 results of about 1.7 KB each: 2.4
# MB, with max_json_mb = 1 asked as a day (too large), two halves (too
# large), four quarters.
# stores: sqlite
. "$GT_ROOT/tests/cli/lib.inc"
plan 7
S=$(( $(date +%s) - 86400 + 60 ))
python3 - "$S" > results.json <<'PYEOF'
import json, sys
s = int(sys.argv[1])
pad = "x" * 1500
print(json.dumps([{"type": "ping", "msm_id": 1001, "prb_id": 6001, "timestamp": s + 60 * i,
                   "dst_name": "ce.cern.ch", "result": [{"rtt": 10 + i % 7}], "pad": pad}
                  for i in range(1400)]))
PYEOF
python3 "$GT_ROOT/tests/servers/atlas_server.py" port.txt results.json &
apid=$!
trap 'kill $apid $bpid 2>/dev/null' EXIT
i=0; while [ ! -s port.txt ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
U="http://127.0.0.1:$(cat port.txt)/api/v2/measurements/1001/results/?start={start}&stop={end}"
printf '[http]\nmax_json_mb = 1\nretries = 0\n' > small.ini
$GT --db a.db init >/dev/null
check "a day of 2.4 MB under max_json_mb = 1: every result stored" \
    sh -c "GRIDTAIL_CONFIG=small.ini $GT --db a.db ingest atlas --since $S '$U' > out.txt 2>&1 && [ \"\$(sqlite3 a.db 'SELECT count(*) FROM samples')\" = 1400 ]"
check "...asked as a day, two halves and four quarters (7 requests)" [ "$(wc -l < requests.txt)" = 7 ]
check "...and it says so" grep -q "too large: asked in halves" out.txt
check "the quarters tile the day: no minute asked twice, none left out" python3 -c "
import sys, urllib.parse
a = [(int(q['start'][0]), int(q['stop'][0])) for q in
     (urllib.parse.parse_qs(l.strip()) for l in open('requests.txt'))]
w = sorted(x for x in a if not any(y != x and x[0] <= y[0] and y[1] <= x[1] for y in a))
s = $S
sys.exit(not (len(w) == 4 and w[0][0] == s and w[-1][1] >= s + 60 * 1399 and
              all(b[0] == a[1] + 1 for a, b in zip(w, w[1:]))))"
# a gzip answer that inflates to 40 MB whatever is asked: each piece is
# refused at max_json_mb of inflated bytes, the run fails naming the
# window and the setting, and never holds the 40 MB
python3 - bport.txt <<'PYEOF' &
import gzip, http.server, os, sys
body = gzip.compress(b"[" + b" " * (40 << 20) + b"]")
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + ".tmp", "w").write(str(s.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PYEOF
bpid=$!
i=0; while [ ! -s bport.txt ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
B="http://127.0.0.1:$(cat bport.txt)/api/v2/measurements/1001/results/?start={start}&stop={end}"
$GT --db b.db init >/dev/null
GRIDTAIL_CONFIG=small.ini /usr/bin/time -f '%M' -o rss.txt $GT --db b.db ingest atlas --since $S "$B" > bomb.out 2> bomb.err
code=$?
rss=$(tail -n 1 rss.txt)
check "a gzip bomb: refused (exit $code), not stored" sh -c "[ $code -ne 0 ] && [ \"\$(sqlite3 b.db 'SELECT count(*) FROM samples')\" = 0 ]"
check "...naming the window and max_json_mb" sh -c "grep -q 'max_json_mb' bomb.err && grep -q '\\[$S, ' bomb.err"
check "...within a bound far below 40 MB of text ($rss KiB peak)" [ "$rss" -lt 120000 ]
