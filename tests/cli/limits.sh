# tier: slow
# One bad client must not take the server (issue 14): connections per
# client address and in all are bounded ([server] max_connections_per_ip,
# max_connections), and request bodies held at once share one budget
# ([server] max_buffered_mb).  Each check failed before those bounds.
. "$GT_ROOT/tests/cli/lib.inc"
plan 20
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
# a 1 MB upload mostly sent holds 0.9 MB of the 1 MiB budget: a second
# body of 200 kB is answered 503 instead of buffered; freed, it goes
# through.  A body declared past the budget can never fit: 413 at once.
python3 - "$PORT" <<'PYEOF' > budget.txt
import http.client, socket, sys, time
port = int(sys.argv[1])
a = socket.create_connection(("127.0.0.1", port))
a.sendall(b"POST /v1/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          b"Content-Length: 1000000\r\n\r\n" + b" " * 900000)
time.sleep(1)
def post():   # from another address, so that the per-address limit is not what answers
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.2", 0))
    c.request("POST", "/v1/estimate", body=b" " * 200000, headers={"Content-Type": "application/json"})
    return c.getresponse().status
print(post())
a.close()
time.sleep(1)
print(post())
c = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.3", 0), timeout=60)
c.sendall(b"POST /v1/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          b"Content-Length: 2000000\r\n\r\n")
print(c.recv(100).split(b" ")[1].decode())
PYEOF
check "a body past the shared budget: 503 ($(head -1 budget.txt))" [ "$(head -1 budget.txt)" = 503 ]
check "with the budget free again it is read (400: not JSON) ($(sed -n 2p budget.txt))" [ "$(sed -n 2p budget.txt)" = 400 ]
check "a body declared past the whole budget: 413 before it is sent ($(sed -n 3p budget.txt))" [ "$(sed -n 3p budget.txt)" = 413 ]
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

# What the headers decide is decided before the body is read (issue 26):
# without a token, from a foreign origin, or declaring a body past the
# limit, a request is answered at once, not after 16 MiB arrive; each
# client address holds at most max_buffered_per_client_mb of bodies, so
# one host's stalled uploads cannot take the budget a push needs; and a
# trusted proxy is exempt from the per-address connection cap.
write_token   # tokens (the server's file) and token (the client's)
printf '[server]\ntokens_file = tokens\nmax_buffered_mb = 16\nmax_buffered_per_client_mb = 8\nmax_connections_per_ip = 4\ntrusted_proxies = 127.0.0.1\nthreads = 2\nbody_timeout_s = 30\n' > h.ini
GRIDTAIL_CONFIG=h.ini serve_start $DB
PORT=$(cat port.txt)
python3 - "$PORT" > early.txt <<'PYEOF'
import socket, sys
port = int(sys.argv[1])
def first_line(head):   # the status line answered to headers alone
    s = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.3", 0), timeout=60)
    s.sendall(head)
    try:
        return s.recv(200).split(b"\r\n")[0].decode()
    except OSError:
        return "no answer"
    finally:
        s.close()
print(first_line(b"POST /v1/samples HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
                 b"Content-Length: 16000000\r\n\r\n"))
print(first_line(b"POST /v1/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"))
print(first_line(b"POST /v1/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 16000000\r\n\r\n"))
PYEOF
check "a push without a token is answered 401 before its body ($(sed -n 1p early.txt))" sh -c "sed -n 1p early.txt | grep -q ' 401 '"
check "a foreign origin 403 before its body ($(sed -n 2p early.txt))" sh -c "sed -n 2p early.txt | grep -q ' 403 '"
check "an advisor body declared past max_request_kb 413 before it ($(sed -n 3p early.txt))" sh -c "sed -n 3p early.txt | grep -q ' 413 '"
# 127.0.0.2 stalls with two pushes of 6 MB of 6.5 (a write token): it
# may hold 8 MiB, so a 6 MB push from 127.0.0.4 still fits the 16 MiB
# budget, and the second of 127.0.0.2 is answered 503
python3 - "$PORT" "$(cat token)" > share.txt <<'PYEOF'
import http.client, socket, sys, time
port, token = int(sys.argv[1]), sys.argv[2]
def stalled():
    s = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
    s.sendall(b"POST /v1/samples HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
              b"Authorization: Bearer " + token.encode() + b"\r\nContent-Length: 6500000\r\n\r\n")
    for i in range(6):
        s.sendall(b"#" * 1000000)
    return s
first = stalled()
time.sleep(0.5)
a = stalled()
time.sleep(1)
body = "ts,src,dst,rtt_ms\n" + "".join("%d,p1,p2,10\n" % (1795305600 + 60 * i) for i in range(300000))
c = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.0.4", 0))
c.request("POST", "/v1/samples", body=body.encode(), headers={"Content-Type": "text/csv", "Authorization": "Bearer " + token})
print(len(body), c.getresponse().status)
a.sendall(b"#" * 500000)
print(a.recv(200).split(b"\r\n")[0].decode())
PYEOF
check "one address holds at most its share: another's push goes in ($(sed -n 1p share.txt))" sh -c "sed -n 1p share.txt | grep -q ' 200\$'"
check "and the address past its share is answered 503 ($(sed -n 2p share.txt))" sh -c "sed -n 2p share.txt | grep -q ' 503 '"
python3 - "$PORT" > proxy.txt <<'PYEOF'
import socket, sys, time
port = int(sys.argv[1])
def hold(addr, n):   # n open connections from addr; how many the server let in
    socks = [socket.create_connection(("127.0.0.1", port), source_address=(addr, 0)) for i in range(n)]
    time.sleep(0.5)
    served = 0
    for s in socks:
        s.settimeout(30)
        try:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            served += s.recv(100).startswith(b"HTTP/1.1 200")
        except OSError:
            pass
    return served
print(hold("127.0.0.1", 10), hold("127.0.0.5", 10))
PYEOF
check "a trusted proxy is not capped per address: 10 of 10 ($(cat proxy.txt))" sh -c "[ \$(cut -d' ' -f1 proxy.txt) = 10 ]"
check "another address is: 4 of 10" sh -c "[ \$(cut -d' ' -f2 proxy.txt) = 4 ]"
# parsed, JSON grows: a 3 MB body of 10^6 empty objects (120 arrays of
# 9,000) would take about 250 MB; refused before parsing (413), as is an
# array past the bounds
python3 -c "import sys; sys.stdout.write('[' + ','.join(['[' + ','.join(['{}'] * 9000) + ']'] * 120) + ']')" > dense.json
check "an advisor body that would take more than its share parsed: 413" sh -c "curl -s -o dn.txt -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @dense.json --interface 127.0.0.2 http://127.0.0.1:$PORT/v1/estimate | grep -qx 413 && grep -q 'parsed, this body would take' dn.txt"
python3 -c "import json; json.dump({'root': 'a', 'sites': ['s'] * 30000}, open('long.json', 'w'))"
check "an array far longer than the server takes: 413 before parsing" sh -c "curl -s -o ln.txt -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @long.json --interface 127.0.0.2 http://127.0.0.1:$PORT/v1/estimate | grep -qx 413 && grep -q 'an array of 30000 elements' ln.txt"
kill -TERM $pid
wait $pid
