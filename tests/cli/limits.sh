# One bad client must not take the server (issue 14): connections per
# client address and in all are bounded ([server] max_connections_per_ip,
# max_connections), and request bodies held at once share one budget
# ([server] max_buffered_mb).  Each check failed before those bounds.
. "$GT_ROOT/tests/cli/lib.inc"
plan 10
DB=t.db
$GT --db $DB init >/dev/null
printf '[server]\nmax_connections_per_ip = 20\nmax_buffered_mb = 1\nthreads = 2\nheader_timeout_s = 2\nbody_timeout_s = 2\nmax_rank_partners = 1000\n' > l.ini
GRIDTAIL_CONFIG=l.ini serve_start $DB
PORT=$(cat port.txt)
# 100 slow clients from 127.0.0.1, each a header line short of a request
python3 - "$PORT" > slow.txt <<'PYEOF' &
import socket, sys, time
socks = []
for i in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        socks.append(s)
    except OSError:
        pass
print(len(socks), flush=True)
for i in range(600):   # until the checks are done (60 s at most)
    try:
        open("slow.done")
        break
    except OSError:
        time.sleep(0.1)
PYEOF
slow=$!
wait_until 60 [ -s slow.txt ]
check "another client address is served while 100 slow ones hold theirs" sh -c "curl -s -m 3 --interface 127.0.0.2 -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/healthz | grep -qx 200"
check "the slow address gets no more than max_connections_per_ip" sh -c "! curl -s -m 2 -o /dev/null http://127.0.0.1:$PORT/healthz"
touch slow.done
wait $slow
check "(the slow client opened its 100 sockets: $(cat slow.txt))" [ "$(cat slow.txt)" = 100 ]
check "once they are gone the address is served again" wait_until 60 sh -c "curl -s -m 3 -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/healthz | grep -qx 200"
# a 2 MB upload half sent holds ~1 MB of the 1 MiB budget: a second body
# of 200 kB is answered 503 instead of buffered; freed, it goes through
python3 - "$PORT" <<'PYEOF' > budget.txt
import http.client, socket, sys, time
port = int(sys.argv[1])
a = socket.create_connection(("127.0.0.1", port))
a.sendall(b"POST /v1/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          b"Content-Length: 2000000\r\n\r\n" + b" " * 1000000)
time.sleep(1)
def post():   # from another address, so that the per-address limit is not what answers
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.2", 0))
    c.request("POST", "/v1/estimate", body=b" " * 200000, headers={"Content-Type": "application/json"})
    return c.getresponse().status
print(post())
a.close()
time.sleep(1)
print(post())
PYEOF
check "a body past the shared budget: 503 ($(head -1 budget.txt))" [ "$(head -1 budget.txt)" = 503 ]
check "with the budget free again it is read (400: not JSON) ($(tail -1 budget.txt))" [ "$(tail -1 budget.txt)" = 400 ]
# a rank's candidates together hold at most max_rank_partners partners
# (1,000 here): 20 candidates of 100 partners each (within max_candidates
# and max_partners alone) are refused before any is estimated
python3 -c "
import json
json.dump({'candidates': [{'root': 'a', 'sites': ['s%d' % j for j in range(100)]} for i in range(20)]}, open('big.json', 'w'))"
check "a rank of 2,000 partners in all: 422 naming max_rank_partners" sh -c "curl -s -o rk.txt -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @big.json --interface 127.0.0.2 http://127.0.0.1:$PORT/v1/rank | grep -qx 422 && grep -q 'max_rank_partners' rk.txt"

# slow clients from many addresses: a header line every half second
# never completes a request; header_timeout_s (2 s) cuts each of them,
# and a body trickling in past body_timeout_s (2 s) is cut too (they
# trickle for up to 30 s, a hang guard: a server that does not cut them
# holds them all that time, the body then still 40 bytes short)
python3 - "$PORT" <<'PYEOF' > slowloris.txt
import socket, sys, time
port = int(sys.argv[1])
socks = []
for i in range(40):
    s = socket.create_connection(("127.0.0.1", port), source_address=("127.0.%d.%d" % (1 + i // 200, 10 + i % 200), 0))
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    socks.append(s)
b = socket.create_connection(("127.0.0.1", port), source_address=("127.0.9.9", 0))
b.sendall(b"POST /v1/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
t0 = time.time()
cut, body_cut = 0, None
while time.time() - t0 < 30 and (socks or body_cut is None):
    for s in list(socks):
        try:
            s.sendall(b"X-Slow: 1\r\n")
            s.setblocking(False)
            if s.recv(1) == b"":
                raise OSError
        except BlockingIOError:
            pass
        except OSError:
            socks.remove(s)
            cut += 1
        finally:
            if s in socks:
                s.setblocking(True)
    if body_cut is None:
        try:
            b.sendall(b" ")
        except OSError:
            body_cut = time.time() - t0
    time.sleep(0.5)
print(cut, "%.1f" % (body_cut if body_cut is not None else -1))
PYEOF
check "40 clients trickling headers from 40 addresses are all cut, and the body ($(cat slowloris.txt) s)" sh -c "[ \$(cut -d' ' -f1 slowloris.txt) = 40 ]"
check "a body trickling past body_timeout_s is cut" awk '{ exit !($2 > 0) }' slowloris.txt
check "and the server answers the rest meanwhile" sh -c "curl -s -m 3 -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/healthz | grep -qx 200"
kill -TERM $pid
wait $pid
