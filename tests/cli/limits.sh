# One bad client must not take the server (issue 14): connections per
# client address and in all are bounded ([server] max_connections_per_ip,
# max_connections), and request bodies held at once share one budget
# ([server] max_buffered_mb).  Each check failed before those bounds.
. "$GT_ROOT/tests/cli/lib.inc"
DB=t.db
$GT --db $DB init >/dev/null
printf '[server]\nmax_connections_per_ip = 20\nmax_buffered_mb = 1\nthreads = 2\n' > l.ini
GRIDTAIL_CONFIG=l.ini serve_start $DB
PORT=$(cat port.txt)
# 100 slow clients from 127.0.0.1, each a header line short of a request
python3 - "$PORT" > slow.txt <<'PYEOF' &
import socket, sys, time
socks = []
for i in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)
    except OSError:
        pass
print(len(socks), flush=True)
time.sleep(6)
PYEOF
slow=$!
sleep 2
check "another client address is served while 100 slow ones hold theirs" sh -c "curl -s -m 3 --interface 127.0.0.2 -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/healthz | grep -qx 200"
check "the slow address gets no more than max_connections_per_ip" sh -c "! curl -s -m 2 -o /dev/null http://127.0.0.1:$PORT/healthz"
wait $slow
check "(the slow client opened its 100 sockets: $(cat slow.txt))" [ "$(cat slow.txt)" = 100 ]
sleep 0.5
check "once they are gone the address is served again" sh -c "curl -s -m 3 -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/healthz | grep -qx 200"
# a 2 MB upload half sent holds ~1 MB of the 1 MiB budget: a second body
# of 200 kB is answered 503 instead of buffered; freed, it goes through
python3 - "$PORT" <<'PYEOF' > budget.txt
import http.client, socket, sys, time
port = int(sys.argv[1])
a = socket.create_connection(("127.0.0.1", port))
a.sendall(b"POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
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
kill -TERM $pid
wait $pid
