# gridtail alerts (issue 28, part 3) against a real Alertmanager (Debian's
# prometheus-alertmanager, started here on loopback): the pairs that are
# wrong appear as alerts with their labels and reasons, then resolve when
# they are fine again; the webhook payload reaches a local receiver; an
# unreachable target keeps the state for the next run.  The store is
# status.sh's, its last samples a minute ago: a -> b p99 18.91 ms
# (warning), b -> a 2 of 10 lost and p99 28.93 (both critical), a -> c
# silent for 1,460 s (no data), c -> a fine.
. "$GT_ROOT/tests/cli/lib.inc"
plan 14
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
N=$(( $(date +%s) / 60 * 60 - 60 ))
status_csv $N > al.csv
$GT --db al.db init >/dev/null && $GT --db al.db ingest csv al.csv >/dev/null 2>&1
{ status_ini; printf '[http]\nretries = 0\ntimeout_s = 10\n'; } > th.ini
A="$GT --config th.ini --db al.db alerts"

AMBIN=$(command -v prometheus-alertmanager || command -v alertmanager || true)
if [ -z "$AMBIN" ]; then
    skip "alerts in a real Alertmanager" "no prometheus-alertmanager (Debian's package)" 8
else
    printf 'route:\n  receiver: nobody\nreceivers:\n  - name: nobody\n' > am.yml
    port=$(free_port)
    AM=http://127.0.0.1:$port
    "$AMBIN" --config.file=am.yml --storage.path=am-data --web.listen-address=127.0.0.1:$port \
        --cluster.listen-address= > am.log 2>&1 &
    ampid=$!
    wait_until 60 curl -sf "$AM/-/ready" -o /dev/null
    check "alerts --alertmanager: 4 firing, sent (exit 0)" \
        sh -c "$A --alertmanager $AM --state st.json > a1.txt && grep -q '4 firing, 0 resolved, sent to Alertmanager' a1.txt"
    active() {   # active NAME SRC DST: that alert is active in Alertmanager, with its summary
        curl -s "$AM/api/v2/alerts?active=true&silenced=false&inhibited=false" > am.json
        "$PY" - "$@" <<'PYEOF'
import json, sys
name, src, dst = sys.argv[1:4]
want = sys.argv[4] if len(sys.argv) > 4 else None
for a in json.load(open("am.json")):
    l = a["labels"]
    if (l.get("alertname"), l.get("src"), l.get("dst")) == (name, src, dst):
        if a["status"]["state"] != "active":
            sys.exit(1)
        if want and a["annotations"].get("summary") != want:
            print("  summary:", a["annotations"].get("summary"))
            sys.exit(1)
        sys.exit(0)
sys.exit(1)
PYEOF
    }
    check "Alertmanager holds b -> a's loss, critical, with the reason" \
        active GridtailPairLossCritical b a "b -> a: loss 20 % over 10 % (critical)"
    check "...a -> b's p99 warning and a -> c's silence" \
        sh -c "$(command -v "$PY") -c 'import json,sys
al = json.load(open(\"am.json\"))
got = sorted((a[\"labels\"][\"alertname\"], a[\"labels\"][\"src\"], a[\"labels\"][\"dst\"], a[\"labels\"][\"severity\"]) for a in al)
sys.exit(got != [(\"GridtailPairLossCritical\", \"b\", \"a\", \"critical\"), (\"GridtailPairNoData\", \"a\", \"c\", \"warning\"),
                 (\"GridtailPairP99Critical\", \"b\", \"a\", \"critical\"), (\"GridtailPairP99Warning\", \"a\", \"b\", \"warning\")])'"
    # the p99 limits lifted: both p99 alerts resolve, the others stay
    sed -i '/^p99_/d' th.ini
    $A --alertmanager $AM --state st.json --json > a2.json
    check "the next run: the two p99 alerts sent as resolved, their startsAt kept" "$PY" -c '
import json, sys
a = json.load(open("a2.json"))
res = sorted((x["labels"]["alertname"], x["labels"]["src"]) for x in a if x["status"] == "resolved")
fir = sorted((x["labels"]["alertname"], x["labels"]["src"]) for x in a if x["status"] == "firing")
sys.exit(res != [("GridtailPairP99Critical", "b"), ("GridtailPairP99Warning", "a")]
         or fir != [("GridtailPairLossCritical", "b"), ("GridtailPairNoData", "a")])'
    check "Alertmanager: the p99 alerts are no longer active" \
        eval '! active GridtailPairP99Warning a b && ! active GridtailPairP99Critical b a && active GridtailPairLossCritical b a'
    cp st.json st.before
    kill $ampid; wait $ampid 2>/dev/null
    check "Alertmanager gone: exit 3, naming it" \
        sh -c "$A --alertmanager $AM --state st.json > down.out 2> down.err; [ \$? -eq 3 ] && grep -q '127.0.0.1:$port' down.err"
    check "...and not said to be sent (issue 45)" sh -c "! grep -q 'sent to Alertmanager' down.out && grep -q 'NOT sent' down.out"
    check "...and the state kept as it was, for the next run" cmp -s st.json st.before
fi

# a webhook: a local receiver keeps what it is sent
port=$(free_port)
"$PY" - "$port" > hook.log 2>&1 <<'PYEOF' &
import http.server, os, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        open("hook.json", "wb").write(body)
        self.send_response(200); self.end_headers()
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H)
s.timeout = 5
end = time.time() + 60   # a hang guard, not a speed bound
while not os.path.exists("hook.json") and time.time() < end:
    s.handle_request()   # connections before the POST: the wait's probes
PYEOF
hookpid=$!
wait_until 30 "$PY" -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', $port)))"
rm -f st2.json
check "alerts --webhook: sent (exit 0)" status_is 0 $A --webhook "http://127.0.0.1:$port/hook" --state st2.json
wait $hookpid
check "the webhook got Alertmanager's payload, version 4, firing, with the two alerts" "$PY" -c '
import json, sys
d = json.load(open("hook.json"))
names = sorted(a["labels"]["alertname"] for a in d["alerts"])
sys.exit(not (d["version"] == "4" and d["status"] == "firing" and d["receiver"] == "gridtail"
              and names == ["GridtailPairLossCritical", "GridtailPairNoData"]
              and all(a["status"] == "firing" for a in d["alerts"])))'
# a target that takes the connection and never answers (issue 45): the
# run ends within [alerts] timeout_s and its back-off, not [http]'s
# archive timeouts (120 s, 3 retries: 488 s); `timeout` is a hang guard
port=$(free_port)
"$PY" - "$port" > hung.log 2>&1 <<'PYEOF' &
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
held, end = [], time.time() + 120
s.settimeout(1)
while time.time() < end:
    try:
        held.append(s.accept()[0])   # read nothing, answer nothing
    except socket.timeout:
        pass
PYEOF
hungpid=$!
wait_until 30 "$PY" -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', $port)))"
{ status_ini; printf '[http]\nretries = 3\ntimeout_s = 120\n[alerts]\ntimeout_s = 3\n'; } > hung.ini
rm -f st3.json
check "a hung webhook: exit 3 within [alerts] timeout_s, naming the timeout" \
    sh -c "timeout 60 $GT --config hung.ini --db al.db alerts --webhook http://127.0.0.1:$port/hook --state st3.json > hung.out 2> hung.err; [ \$? -eq 3 ] && grep -qi 'timed out\|timeout' hung.err"
check "...and says the alerts were NOT sent" grep -q 'NOT sent' hung.out
kill $hungpid 2>/dev/null; wait $hungpid 2>/dev/null
echo '{"alerts": 3}' > bad.json
check "a state file that is not one: refused naming it (exit 2)" \
    sh -c "$A --dry-run --state bad.json > /dev/null 2> bad.err; [ \$? -eq 2 ] && grep -q 'bad.json.*not a gridtail alerts state' bad.err"
check "no target and no --dry-run: usage error (1)" status_is 1 $A
