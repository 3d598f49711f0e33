# tier: slow
# PostgreSQL as the store of several servers and collectors (issue 25),
# against a real PostgreSQL 15 cluster of this script's own (the faults
# stop and start it) and a streaming standby made from it with
# pg_basebackup: two serve processes answer alike; refits from two hosts
# take turns; PostgreSQL stopped under load gives 503s and answers come
# back without a restart; a push that meets a stopped PostgreSQL is
# spooled and sent once; an ingest killed with -9 leaves nothing and its
# rerun stores all; a sample pushed to the primary is in the answers of a
# server reading the standby ([database] read_url).
. "$GT_ROOT/tests/cli/lib.inc"
plan 22
N=22
if [ -z "${GT_PG_URL:-}" ] || [ -z "${GT_PG_BIN:-}" ]; then
    skip "PostgreSQL store scenarios" "no PostgreSQL server: ${GT_PG_SKIP:-GT_PG_URL unset}" $N
    exit 0
fi
PGS="sh $GT_ROOT/tests/pg/server.sh"
PSQL="$GT_PG_BIN/psql -X -A -t -q -v ON_ERROR_STOP=1"
D=$(mktemp -d /tmp/gt-pgstore.XXXXXX)
S=$(mktemp -d /tmp/gt-standby.XXXXXX)
pids=""
cleanup() {
    for p in $pids; do kill -TERM "$p" 2>/dev/null; done
    $PGS stop "$S" 2>/dev/null
    $PGS stop "$D" 2>/dev/null
    rm -rf "$D" "$S"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if ! $PGS start "$D" > pg.log 2>&1; then
    skip "PostgreSQL store scenarios" "a cluster of this script's own did not start: $(tail -n 1 pg.log)" $N
    exit 0
fi
DB=$(cat "$D/url")
q() { $PSQL "$DB" -c "$1"; }
write_token   # tokens (the server's file) and token (the client's)
printf '[server]\ntokens_file = tokens\n[ingest]\nspool_dir = spool\n' > c.ini
export GRIDTAIL_CONFIG=c.ini
$GT --db "$DB" init > /dev/null
$GT synth --count 8 --span 1d --seed 11 --start 2026-01-01T00:00:00Z -o syn.csv
$GT --db "$DB" ingest amp-csv syn.csv > /dev/null
SITES=$($GT synth --count 8 --list-sites | sed -n '2,9p' | cut -d, -f1 | tr '\n' ' ')
set -- $SITES
ROOT=$1 P1=$2 P2=$3 P3=$4
BODY="{\"root\":\"$ROOT\",\"sites\":[\"$P1\",\"$P2\",\"$P3\"]}"
# ask URL FILE: POST the estimate; prints the status; the answer in FILE
ask() { curl -s -m 30 -o "$2" -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data "$BODY" "$1/v1/estimate"; }
# the numbers of an answer, without what depends on the clock or on
# whether a kept calibration was read ("cached")
numbers() { grep -v 'elapsed_ms\|data_age_s\|s old\|"cached"' "$1"; }

# two servers on one store
serve_start "$DB"
A=$URL A_PID=$pid
pids="$pids $pid"
serve_start "$DB"
B=$URL B_PID=$pid
pids="$pids $pid"
codes="$(ask "$A" a.json) $(ask "$B" b.json)"
numbers a.json > a.num
numbers b.json > b.num
check "two serve processes on one PostgreSQL answer the same numbers" sh -c "[ '$codes' = '200 200' ] && grep -q e_max a.num && cmp -s a.num b.num"

# refit from two hosts at once: they take turns on the store's refit lock
( $GT --db "$DB" refit --json > r1.json 2> r1.err; echo $? > r1.rc ) &
r1=$!
( $GT --db "$DB" refit --json > r2.json 2> r2.err; echo $? > r2.rc ) &
r2=$!
wait $r1 $r2
check "two refits at once both finish (exit 0, 0)" [ "$(cat r1.rc)$(cat r2.rc)" = 00 ]
check "and cache each source site's fits once (8 rows)" [ "$(q "SELECT count(*) FROM fit_cache WHERE model NOT LIKE 'track%:%' AND model NOT LIKE 'calib%:%'")" = 8 ]
check "the second found the first's fits (56 pairs fitted in all)" sh -c "python3 -c \"import json; a, b = json.load(open('r1.json')), json.load(open('r2.json')); import sys; sys.exit(not (a['fitted'] + b['fitted'] == 56 and a['pairs'] == b['pairs'] == 56))\""

# PostgreSQL stopped under load, then back
( while :; do ask "$A" load.json >> load.codes; echo >> load.codes; done ) &
loader=$!
pids="$pids $loader"
wait_until 30 sh -c "grep -c 200 load.codes 2>/dev/null | grep -q '[1-9]'"
$PGS stop "$D"
: > down.codes
for i in 1 2 3; do ask "$A" down.json >> down.codes; echo >> down.codes; done
check "PostgreSQL stopped: clear 503s (3 of 3), not hangs" [ "$(grep -c '^503$' down.codes)" = 3 ]
check "the 503 says the store is not available" grep -q 'store is not available' down.json
check "the command line says which failure: the server (exit 3)" sh -c "$GT --db '$DB' pairs > /dev/null 2> cd.err; [ \$? -eq 3 ] && grep -q 'cannot connect: the database server is not available' cd.err"
pg_back() { $PGS start "$D" > pg2.log 2>&1; }
pg_back
check "...a database that is not there (issue 48)" sh -c "$GT --db '${DB%/*}/nosuchdb' pairs > /dev/null 2> cd.err; [ \$? -eq 3 ] && grep -q 'cannot connect: no such database' cd.err"
check "...a role that is not there" sh -c "$GT --db '$(echo "$DB" | sed 's|//[^@]*@|//nosuchrole@|')' pairs > /dev/null 2> cd.err; [ \$? -eq 3 ] && grep -q 'cannot connect: no such role' cd.err"
: > back.codes
for i in 1 2 3; do ask "$A" back.json >> back.codes; echo >> back.codes; done
kill $loader 2>/dev/null
wait $loader 2>/dev/null
check "PostgreSQL back: answered again (3 of 3), by the same serve process" sh -c "[ \$(grep -c '^200\$' back.codes) = 3 ] && kill -0 $A_PID"
check "under load, no answer other than 200 or 503" sh -c "! grep -v '^200\$\|^503\$\|^\$' load.codes"

# a push that meets a stopped PostgreSQL is spooled, then sent once
T0=1767225600
awk -v t0=$T0 'BEGIN { print "ts,src,dst,rtt_ms"; for (i = 0; i < 500; i++) printf "%d,col1,%s,%d\n", t0 + 60 * i, i % 2 ? "c1" : "c2", 20 + i % 5 }' > p.csv
$PGS stop "$D"
check "a push while PostgreSQL is stopped is spooled (exit 3)" sh -c "$GT ingest csv p.csv --push '$A' --token-file token 2> pe.txt; [ \$? -eq 3 ] && grep -q '500 samples kept in spool/' pe.txt"
pg_back
$GT ingest csv p.csv --push "$A" --token-file token > p2.txt 2>&1
col1=$(q "SELECT count(*) FROM samples s JOIN pairs p ON p.id = s.pair JOIN sites a ON a.id = p.src WHERE a.name = 'col1'")
check "PostgreSQL back: the spool is sent, then the input again; each sample once ($col1 of 500)" sh -c "grep -q 'sent and removed' p2.txt && [ $col1 = 500 ] && ! ls spool/push-* 2>/dev/null"

# an ingest killed with -9 in the middle leaves nothing; the rerun stores
# all.  The input comes through a fifo that stops half-way, so the kill
# lands while the ingest's transaction holds written samples.
awk -v t0=$T0 'BEGIN { print "ts,src,dst,rtt_ms"; for (i = 0; i < 120000; i++) printf "%d,k%d,k%d,%d.5\n", t0 + 60 * int(i / 6), i % 3, 3 + i % 2, 10 + i % 9 }' > k.csv
before=$(q "SELECT count(*) FROM samples")
mkfifo k.fifo
$GT --db "$DB" ingest csv k.fifo > k1.txt 2>&1 &
kp=$!
( head -n 100001 k.csv; sleep 120 ) > k.fifo &
feeder=$!
pids="$pids $feeder"
wait_until 60 sh -c "[ \"\$($PSQL '$DB' -c \"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gridtail' AND backend_xid IS NOT NULL\")\" -gt 0 ]"
written=$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gridtail' AND backend_xid IS NOT NULL")
kill -KILL $kp
wait $kp 2>/dev/null
kill $feeder 2>/dev/null
wait_until 30 sh -c "[ \"\$($PSQL '$DB' -c \"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gridtail' AND backend_xid IS NOT NULL\")\" = 0 ]"
check "killed with -9 mid-ingest (its transaction had written): nothing of it stored" sh -c "[ '$written' = 1 ] && [ \$($PSQL '$DB' -c 'SELECT count(*) FROM samples') = $before ]"
$GT --db "$DB" ingest csv k.csv > k2.txt 2>&1
after=$(q "SELECT count(*) FROM samples")
check "the rerun stores all 120,000, once" sh -c "grep -q 'stored 120000, duplicates 0' k2.txt && [ $after = $((before + 120000)) ]"

# a streaming standby, and a server that reads it
echo 0 > "$S/port"
chown "$(stat -c %u "$D"):$(stat -c %g "$D")" "$S" 2>/dev/null
$PGS run "$D" "$GT_PG_BIN/pg_basebackup" -c fast -D "$S/data" -R -X stream -h "$D" -p "$(cat "$D/port")" -U gridtail > bb.log 2>&1
port=$(( $(cat "$D/port") + 1 ))
while [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; do port=$((port + 1)); done
echo $port > "$S/port"
if ! $PGS start "$S" > sb.log 2>&1; then
    skip "a server on the standby" "the standby did not start: $(tail -n 1 sb.log) $(tail -n 1 bb.log)" 4
    exit 0
fi
SB="postgresql://gridtail@127.0.0.1:$port/gridtail_test"
check "the standby is in recovery" [ "$($PSQL "$SB" -c 'SELECT pg_is_in_recovery()')" = t ]
printf '[server]\ntokens_file = tokens\n[ingest]\nspool_dir = spool\n[database]\nread_url = %s\n' "$SB" > c2.ini
rm -f port.txt
GRIDTAIL_CONFIG=c2.ini $GT --db "$DB" serve --listen localhost:0 --port-file port.txt 2> serve2.log &
R_PID=$!
pids="$pids $R_PID"
wait_until 30 test -s port.txt
R="http://127.0.0.1:$(cat port.txt)"
check "its start line names both: the store and the standby it reads (issue 48)" grep -q "database $DB, reading from $SB" serve2.log
printf 'ts,src,dst,rtt_ms\n%d,%s,%s,7777\n' $((T0 + 86400)) "$ROOT" "$P1" > one.csv
GRIDTAIL_CONFIG=c2.ini $GT ingest csv one.csv --push "$R" --token-file token > one.txt 2>&1
check "a push to the server goes to the primary" [ "$(q "SELECT count(*) FROM samples WHERE rtt_ms = 7777")" = 1 ]
wait_until 30 sh -c "[ \"\$($PSQL '$SB' -c 'SELECT count(*) FROM samples WHERE rtt_ms = 7777')\" = 1 ]"
curl -s -m 30 -o sb.json -X POST -H 'Content-Type: application/json' --data "{\"root\":\"$ROOT\",\"sites\":[\"$P1\"],\"model\":\"last\"}" "$R/v1/estimate"
check "answers read from the standby show the pushed sample (last RTT 7777 ms)" grep -q '"p50": 7777' sb.json
$PGS stop "$D"
code=$(curl -s -m 30 -o sb2.json -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data "{\"root\":\"$ROOT\",\"sites\":[\"$P1\"],\"model\":\"last\"}" "$R/v1/estimate")
check "with the primary stopped, that server still answers (from the standby)" sh -c "[ $code = 200 ] && grep -q '\"p50\": 7777' sb2.json"
# the standby stopped, the primary back: reads fall back to the primary
# (issue 48: every read was a 503), and return to the standby when it
# answers again (a worker on the primary tries it every 10 s)
pg_back
$PGS stop "$S"
ask_r() { curl -s -m 30 -o "$1" -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data "{\"root\":\"$ROOT\",\"sites\":[\"$P1\"],\"model\":\"last\"}" "$R/v1/estimate"; }
codes=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do codes="$codes $(ask_r sb3.json)"; done
n503=$(echo $codes | tr ' ' '\n' | grep -c 503)
last4=$(echo $codes | tr ' ' '\n' | tail -n 4 | grep -c 200)
check "the standby stopped: the reads answered from the primary (codes:$codes; a 503 at most per worker, its kept connection's first read)" sh -c "[ $n503 -le 4 ] && [ $last4 = 4 ] && grep -q '\"p50\": 7777' sb3.json"
$PGS start "$S" > sb.log 2>&1
on_standby() {
    for i in 1 2 3 4 5 6 7 8; do ask_r sb4.json > /dev/null; done
    [ "$($PSQL "$SB" -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gridtail'")" -ge 1 ]
}
check "the standby back: the reads go to it again" wait_until 60 on_standby
