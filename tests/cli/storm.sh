# tier: slow
# The server's workers under a storm (issue 14): 32 clients on kept-alive
# connections, some hanging up mid-request and some pipelining two
# requests, 8 connections each (a fixed amount of work, so that a slow
# machine checks the same); every answer is whole and right, and the connections
# left behind are all finished (a suspended connection is resumed even
# when its client has gone).  Then SIGTERM in the middle of a second storm:
# the server stops with status 0 (libmicrohttpd must
# not be stopped with a connection still suspended).
. "$GT_ROOT/tests/cli/lib.inc"
plan 7
DB=w.db
$GT --db $DB init >/dev/null
awk 'BEGIN { print "ts,src,dst,rtt_ms"; srand(7);
  for (t = 0; t < 60; t++) for (j = 1; j <= 8; j++)
    printf "%d,s0,s%d,%.3f\n", 1795305600 + 60 * t, j, (10 + 3 * j) * (1 - rand()) ^ (-1 / 2.5) }' > w.csv
$GT --db $DB ingest --quiet csv w.csv
printf '[server]\nthreads = 2\n' > w.ini
GRIDTAIL_CONFIG=w.ini serve_start $DB
PORT=$(cat port.txt)
BODY='{"root": "s0", "sites": ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"], "at": "2026-11-22T01:00:00Z"}'
check "the answer to compare with" status_is 0 curl -sf -X POST -H Content-Type:application/json -d "$BODY" "$URL/v1/estimate"
python3 -c "import json; print(json.load(open('out.txt'))['e_max'])" > emax.txt

cat > storm.py <<'PYEOF'
import json, random, socket, sys, threading, time
# storm.py PORT LENGTH BODY EMAX: LENGTH is "8x", 8 connections per
# client (a fixed amount of work, the same on any machine), or seconds
port, length, body, emax = int(sys.argv[1]), sys.argv[2], sys.argv[3].encode(), float(sys.argv[4])
conns = int(length[:-1]) if length.endswith("x") else None
request = (b"POST /v1/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Content-Length: %d\r\n\r\n" % len(body)) + body
counts = {"ok": 0, "wrong": 0, "hung_up": 0, "refused": 0, "expected": 0}
lock = threading.Lock()

def count(what):
    with lock:
        counts[what] += 1

def read_answer(f):
    status = f.readline()
    if not status:
        return None
    length = 0
    while True:
        line = f.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    data = f.read(length)
    return int(status.split()[1]), data

def client(seed):
    rnd = random.Random(seed)
    end = time.time() + (float(length) if conns is None else 600)
    left = conns
    while time.time() < end and left != 0:
        if left is not None:
            left -= 1
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
        except OSError:
            count("refused")
            time.sleep(0.05)
            continue
        f = s.makefile("rb")
        try:
            for _ in range(rnd.randint(1, 6)):
                roll = rnd.random()
                if roll < 0.25:          # hang up with the request in flight
                    s.sendall(request)
                    count("hung_up")
                    break
                n = 2 if roll < 0.5 else 1   # two pipelined, or one
                for _ in range(n):
                    count("expected")
                s.sendall(request * n)
                for _ in range(n):
                    a = read_answer(f)
                    ok = a is not None and a[0] == 200 and abs(json.loads(a[1])["e_max"] - emax) <= 1e-9 * emax
                    count("ok" if ok else "wrong")
        except (OSError, ValueError):
            count("wrong")
        finally:
            f.close()
            s.close()

threads = [threading.Thread(target=client, args=(i,)) for i in range(32)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(counts))
PYEOF

python3 storm.py "$PORT" 8x "$BODY" "$(cat emax.txt)" > storm1.txt
check "a storm of 32 clients, 8 connections each: $(cat storm1.txt)" python3 -c "
import json, sys
c = json.load(open('storm1.txt'))
sys.exit(not (c['ok'] == c['expected'] > 0 and c['wrong'] == 0 and c['refused'] == 0 and c['hung_up'] > 0))"
i=0
while ! curl -sf "$URL/metrics" | grep -qx 'gridtail_http_requests_in_flight 1' && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
check "afterwards every request is finished (in flight: only the one asking)" curl -sf "$URL/metrics" -o metrics.txt
check "$(grep '^gridtail_http_requests_in_flight' metrics.txt)" grep -qx 'gridtail_http_requests_in_flight 1' metrics.txt
check "and the server answers" sh -c "curl -sf -X POST -H Content-Type:application/json -d '$BODY' '$URL/v1/estimate' | grep -q '\"e_max\": $(cat emax.txt)'"

python3 storm.py "$PORT" 6 "$BODY" "$(cat emax.txt)" > storm2.txt 2>&1 &
spid=$!
sleep 1.5
stop_timed TERM $pid
wait $spid
check "SIGTERM in a storm: stopped in $secs s, status $rc" [ "$rc" = 0 ]
check "saying so, and nothing else went wrong" sh -c "grep -q 'SIGTERM: stopped' serve.log && ! grep -qi 'panic\|abort\|error' serve.log"
