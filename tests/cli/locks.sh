# tier: slow
# Writers wait for the lock and name it when they cannot; probe samples
# that cannot be stored are spooled and stored by the next run; inputs
# that expand past --max-rows are refused (issue 11, part 3).
. "$GT_ROOT/tests/cli/lib.inc"
plan 23
DB=l.db
printf '[database]\nbusy_timeout_ms = 300\n' > short.conf
printf '[database]\nbusy_timeout_ms = 20000\n' > long.conf
$GT --db $DB init >/dev/null
# hold_lock SECONDS: another writer holds the write lock, from when this
# returns until release_lock, or SECONDS at most
holders=0
hold_lock() {
    holders=$((holders + 1))
    rm -f held.flag release.flag
    (echo "BEGIN IMMEDIATE; INSERT INTO sites(name) VALUES ('holder$holders');"
     echo ".shell touch held.flag"
     wait_until "$1" [ -e release.flag ]
     echo "COMMIT;") | sqlite3 $DB &
    wait_until 60 [ -e held.flag ]
}
release_lock() {
    touch release.flag
    wait
}
printf 'X 127.0.0.1:9\nY 127.0.0.1:10\n' > targets.txt
hold_lock 120
check "probe under a held lock: exit 3" status_is 3 $GT --config short.conf --db $DB ingest probe --src me --count 2 targets.txt
check "the real cause is named" grep -q "locked by another writer (waited 300 ms" err.txt
check "the measurements are spooled" grep -q "4 measured samples kept in $DB.spool/probe-" err.txt
check "one spool file" [ "$(ls $DB.spool | grep -c '\.csv$')" = 1 ]
release_lock
# the spooled samples are of the past seconds; the next run's must be of a
# later second, or they are the same (pair, time) (a sleep that orders
# the clock, not one that waits for a state)
sleep 1
check "the next probe run stores the spool first" status_is 0 $GT --config short.conf --db $DB ingest probe --src me targets.txt
check "it says so" grep -q "stored 4 spooled probe samples" err.txt
check "the spool is empty" [ "$(ls $DB.spool | wc -l)" = 0 ]
check "6 samples stored in all" [ "$(sql 'SELECT count(*) FROM samples')" = 6 ]
check "the failed attempt is in the ingest log, with its cause" [ "$(sql "SELECT count(*) FROM ingest_log WHERE status = 'failed' AND message LIKE '%locked by another writer%spooled%'")" = 1 ]

awk 'BEGIN { print "ts,src,dst,rtt_ms"; for (t = 0; t < 300; t++) for (p = 0; p < 4; p++)
    printf "%d,s%d,d%d,%.2f\n", 1795305600 + 60 * t, p, p, 10 + (t * p) % 7 }' > some.csv
$GT --db $DB ingest csv some.csv >/dev/null
hold_lock 1
check "refit waits for a lock shorter than its timeout" status_is 0 $GT --config long.conf --db $DB refit
wait
sed 's/^17953/17954/' some.csv > more.csv
$GT --db $DB ingest csv more.csv >/dev/null
hold_lock 120
check "refit under a longer lock: exit 3" status_is 3 $GT --config short.conf --db $DB refit
check "refit names the lock, not 'changes'" sh -c "grep -q 'locked by another writer' err.txt && ! grep -q changed err.txt"
release_lock

python3 -c "
import json
json.dump([{'ts': 1795305600 + 60 * i, 'val': {'12': 500, '13': 500}} for i in range(200)], open('bomb.json', 'w'))"
check "an esmond document of 200,000 probes: refused past --max-rows" status_is 2 $GT --db $DB ingest --max-rows 100000 esmond --src a --dst b bomb.json
check "it names the limit" grep -q "more than 100000 records in one input.*refused" err.txt
check "nothing of it stored" [ "$(sql "SELECT count(*) FROM samples s JOIN pairs p ON p.id = s.pair JOIN sites x ON x.id = p.src WHERE x.name = 'a'")" = 0 ]
printf '[{"ts": 1795305600, "val": {"12": 200000}}]' > big.json
check "one histogram above 100000 probes is rejected" status_is 2 $GT --db $DB ingest esmond --src a --dst b big.json
# the expansion is bounded by the input's size (issue 26): 25 histograms
# of 100,000 probes in 842 bytes were 2.5 M rows; each is now rejected
# (at most 64 probes a byte of its text), the real-sized one beside them
# stored
python3 -c "
import json
pts = [{'ts': 1795305600 + 60 * i, 'val': {'12': 100000}} for i in range(25)]
pts.append({'ts': 1795305600 + 60 * 25, 'val': {'11.5': 3, '12': 590, '14.25': 7}})
json.dump(pts, open('expand.json', 'w'))"
check "an expanding esmond document ($(wc -c < expand.json) bytes): its 25 bombs rejected, exit 2" status_is 2 $GT --db $DB ingest esmond --src e --dst f expand.json
check "each named with the bound" [ "$(grep -c 'at most 64 a byte' err.txt)" = 25 ]
check "the real histogram beside them stored: 600 probes" [ "$(sql "SELECT count(*) FROM samples s JOIN pairs p ON p.id = s.pair JOIN sites x ON x.id = p.src WHERE x.name = 'e'")" = 600 ]
check "--max-rows below the input: refused" status_is 2 $GT --db $DB ingest --max-rows 10 csv some.csv
check "--max-rows 0: usage" status_is 1 $GT --db $DB ingest --max-rows 0 csv some.csv

# Writes must not starve reads (issue 26): with the store write-locked by
# another writer (a long cron ingest), pushes wait push_wait_ms and answer
# 503 (the pusher spools them) instead of holding the workers for the
# store's busy_timeout_ms (5 minutes by default), and a read is answered
# while the lock is still held.  Four pushes at once on two workers.
write_token   # tokens (the server's file) and token (the client's)
printf '[server]\ntokens_file = tokens\nthreads = 2\npush_wait_ms = 300\n[database]\nbusy_timeout_ms = 300000\n' > w.ini
GRIDTAIL_CONFIG=w.ini serve_start $DB
hold_lock 300
locker=$!
python3 - "$URL" "$(cat token)" > starve.txt <<'PYEOF'
import sys, threading, urllib.request, urllib.error
url, token = sys.argv[1], sys.argv[2]
def status(req, timeout):
    try:
        return urllib.request.urlopen(req, timeout=timeout).status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return "no answer"
pushes = []
def push(i):
    body = ("ts,src,dst,rtt_ms\n%d,w%d,v,10\n" % (1795400000 + i, i)).encode()
    pushes.append(status(urllib.request.Request(url + "/v1/samples", data=body, headers={
        "Content-Type": "text/csv", "Authorization": "Bearer " + token}), 120))
threads = [threading.Thread(target=push, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
read = status(urllib.request.Request(url + "/v1/pairs?src=s1"), 60)
for t in threads:
    t.join()
print(read, " ".join(str(p) for p in sorted(pushes, key=str)))
PYEOF
held=no
[ -e release.flag ] || held=yes
touch release.flag
wait $locker
check "a read under a held write lock is answered, the lock still held ($(cat starve.txt), held: $held)" sh -c "[ \$(cut -d' ' -f1 starve.txt) = 200 ] && [ $held = yes ]"
check "the pushes meanwhile: 503, not a wait of busy_timeout_ms" sh -c "[ \"\$(cut -d' ' -f2- starve.txt)\" = '503 503 503 503' ]"
kill -TERM $pid
wait $pid
