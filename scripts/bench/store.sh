#!/bin/sh
# The store at scale, on both backends (issue 25), each against a
# baseline in the same run:
#
#   ingest  ROWS amp-csv rows (default 5,000,000; 100 sites, 9,900 pairs,
#           one sample a minute, 0.5 % loss: ingest.sh's input) loaded by
#           `gridtail ingest` into a fresh store, against the same rows
#           (pair, ts, seq, rtt_ms, as gridtail stored them, in the
#           input's order) loaded into the same table of another fresh
#           store: by `psql \copy` for PostgreSQL (the same partitions
#           made first), by the sqlite3 shell's .import for SQLite (into a
#           temporary table, then inserted: .import reads an empty field
#           as '', not NULL; the sites and pairs copied first, untimed,
#           for samples' foreign key).  Wall time, the client's CPU and
#           the PostgreSQL cluster's CPU (every process of it: the
#           backend, the WAL writer, the checkpointer...); both stores
#           then hold the same rows (count, sums).
#   scale   the window read, "the last M samples of a pair at or before
#           t" (window.c: gt_series_read as serve reads a pair), p50 and
#           p99 for M = 120 and 1024 over READS random pairs and times, on
#           two stores of PAIRS pairs, DAYS1 and DAYS2 days (10 times the
#           rows) of one sample a minute, built by SQL on each backend (the
#           same rows), with the plans that show the read is a bounded
#           index scan whatever the size; then `gridtail prune` of the
#           oldest half of the larger store: time, rows, bytes before and
#           after.
#   serve   answers a second of `gridtail serve`, POST /v1/estimate of a
#           root and 8 or 64 partners of a 70-site star (serve_wrk.sh's
#           store: 90 Pareto samples a pair, fits cached by refit), under
#           wrk (8 connections in all, DURATION each, default 10s), with 1
#           and with 2 server processes (4 threads each) on one store:
#           PostgreSQL, against the SQLite store on this machine; the
#           servers' CPU and the PostgreSQL cluster's per answer; the
#           answers checked equal on both.
#
# PostgreSQL: a server of its own (tests/pg/server.sh) with fsync and
# full_page_writes on, shared_buffers 1 GB, max_wal_size 4 GB (GT_PG_OPTS
# replaces these), run by nobody when started as root.
#
# usage: scripts/bench/store.sh [ingest|scale|serve]...   (default: all three)
#   ROWS=5000000 RUNS=1 PAIRS=200 DAYS1=6 DAYS2=60 READS=2000
#   DURATION=10s BIN=build/gridtail LIB=build/libgridtail.a
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
LIB=${LIB:-$(dirname "$BIN")/libgridtail.a}
ROWS=${ROWS:-5000000}
RUNS=${RUNS:-1}
PAIRS=${PAIRS:-200}
DAYS1=${DAYS1:-6}
DAYS2=${DAYS2:-60}
READS=${READS:-2000}
DURATION=${DURATION:-10s}
PARTS=${*:-ingest scale serve}
GT_PG_OPTS=${GT_PG_OPTS:--c fsync=on -c full_page_writes=on -c shared_buffers=1GB -c max_wal_size=4GB}
export GT_PG_OPTS
WORK=$(mktemp -d)
PGD=$(mktemp -d)
trap 'sh "$ROOT/tests/pg/server.sh" stop "$PGD"; rm -rf "$WORK" "$PGD"' EXIT
trap 'exit 130' INT TERM
export GRIDTAIL_CONFIG=/dev/null
. "$ROOT/scripts/bench/cputime.inc"
. "$ROOT/scripts/bench/stores.inc"

sh "$ROOT/tests/pg/server.sh" start "$PGD" > "$WORK/pg.log"
URL=$(cat "$PGD/url")
BASE=${URL%/*}
PM=$(head -n 1 "$PGD/data/postmaster.pid")
HZ=$(getconf CLK_TCK)
echo "$(sed -n 1p "$WORK/pg.log"); $GT_PG_OPTS"
echo "load before: $(uptime | sed 's/.*load average: //')  ($(nproc) cores)"

# server_cpu: CPU seconds the cluster has used: the postmaster, its live
# children, and those it has reaped (a backend once its client is gone)
server_cpu() {
    { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$PM/stat"
      for c in $(cat /proc/"$PM"/task/*/children); do
          awk '{ print $14 + $15 }' "/proc/$c/stat" 2>/dev/null || true
      done; } | awk -v hz="$HZ" '{ s += $1 } END { printf "%.2f", s / hz }'
}

# no_clients: waits until no client backend is left (a backend's CPU
# counts once the postmaster has reaped it)
no_clients() {
    while grep -qs '^postgres: gridtail ' $(for c in $(cat /proc/"$PM"/task/*/children); do
        echo "/proc/$c/cmdline"; done); do
        sleep 0.05
    done
}

# timed_pg NAME CMD...: runs CMD (its output into $WORK/out); "wall
# client-CPU server-CPU" (s) into $WORK/t.NAME.  Not inside $(...):
# cputime counts the children of this shell.
timed_pg() {
    _n=$1
    shift
    no_clients
    _srv0=$(server_cpu)
    : > "$WORK/time"
    cputime "$WORK/time" "$@" > "$WORK/out"
    no_clients
    echo "$(cat "$WORK/time") $_srv0 $(server_cpu)" |
        awk '{ printf "%s %.2f %.2f\n", $1, $2 + $3, $5 - $4 }' > "$WORK/t.$_n"
}

# timed NAME CMD...: runs CMD (its output into $WORK/out); "wall CPU" (s)
# into $WORK/t.NAME
timed() {
    _n=$1
    shift
    : > "$WORK/time"
    cputime "$WORK/time" "$@" > "$WORK/out"
    awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$WORK/time" > "$WORK/t.$_n"
}

q() {   # q DB SQL: one value
    psql -X -q -At -v ON_ERROR_STOP=1 "$BASE/$1" -c "$2"
}

# pg_fresh NAME: a new database with an empty store, checkpointed
pg_fresh() {
    psql -X -q "$URL" -c "DROP DATABASE IF EXISTS $1" 2>/dev/null
    psql -X -q "$URL" -c "CREATE DATABASE $1"
    "$BIN" --db "$BASE/$1" init > /dev/null
    q "$1" CHECKPOINT
}

# partitions_like FROM TO: TO gets FROM's weekly partitions of samples,
# as db/postgres/schema.c makes them
partitions_like() {
    q "$1" "SELECT format('CREATE TABLE %s (LIKE samples INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
        ALTER TABLE samples ATTACH PARTITION %s %s;', c.relname, c.relname,
        pg_get_expr(c.relpartbound, c.oid)) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'samples'::regclass" | psql -X -q -v ON_ERROR_STOP=1 "$BASE/$2"
}

DIGEST="SELECT count(*), count(rtt_ms), sum(ts), round(sum(rtt_ms)::numeric, 3) FROM samples"

ingest() {
    echo
    echo "== ingest: $ROWS amp-csv rows over 100 sites (9,900 pairs)"
    amp_csv_rows "$ROWS" > "$WORK/rtt.csv"
    run=1
    while [ "$run" -le "$RUNS" ]; do
        # PostgreSQL: gridtail, then psql \copy of what it stored
        pg_fresh g
        timed_pg g "$BIN" --db "$BASE/g" ingest --quiet amp-csv "$WORK/rtt.csv"
        [ -s "$WORK/rows.tsv" ] || q g "\\copy (SELECT pair, ts, seq, rtt_ms FROM samples ORDER BY ts, pair, seq) TO '$WORK/rows.tsv'"
        pg_fresh c
        partitions_like g c
        q c CHECKPOINT
        timed_pg c psql -X -q "$BASE/c" -c "\\copy samples (pair, ts, seq, rtt_ms) FROM '$WORK/rows.tsv'"
        # and in key order, the order the index is cheapest to build in
        [ -s "$WORK/keyed.tsv" ] || q g "\\copy (SELECT pair, ts, seq, rtt_ms FROM samples ORDER BY pair, ts, seq) TO '$WORK/keyed.tsv'"
        pg_fresh k
        partitions_like g k
        q k CHECKPOINT
        timed_pg k psql -X -q "$BASE/k" -c "\\copy samples (pair, ts, seq, rtt_ms) FROM '$WORK/keyed.tsv'"
        if [ "$(q g "$DIGEST")" = "$(q c "$DIGEST")" ] && [ "$(q g "$DIGEST")" = "$(q k "$DIGEST")" ]; then
            same=same
        else
            same=DIFFERENT
        fi
        # SQLite: gridtail, then the sqlite3 shell's .import of what it stored
        rm -f "$WORK"/g.db* "$WORK"/s.db*
        "$BIN" --db "$WORK/g.db" init > /dev/null
        timed sg "$BIN" --db "$WORK/g.db" ingest --quiet amp-csv "$WORK/rtt.csv"
        [ -s "$WORK/rows.csv" ] || sqlite3 -csv "$WORK/g.db" \
            "SELECT pair, ts, seq, rtt_ms FROM samples ORDER BY ts, pair, seq" > "$WORK/rows.csv"
        "$BIN" --db "$WORK/s.db" init > /dev/null
        sqlite3 "$WORK/s.db" "ATTACH '$WORK/g.db' AS g; INSERT INTO sites SELECT * FROM g.sites;
            INSERT INTO pairs SELECT * FROM g.pairs;"
        cat > "$WORK/load.sql" <<SQL
PRAGMA synchronous = NORMAL;
PRAGMA foreign_keys = ON;
PRAGMA mmap_size = 1073741824;
PRAGMA cache_size = -262144;
PRAGMA temp_store = MEMORY;
BEGIN IMMEDIATE;
CREATE TEMP TABLE raw (pair INTEGER, ts INTEGER, seq INTEGER, rtt_ms TEXT);
.import --csv --schema temp $WORK/rows.csv raw
INSERT INTO samples(pair, ts, seq, rtt_ms) SELECT pair, ts, seq, NULLIF(rtt_ms, '') FROM raw;
COMMIT;
SQL
        timed ss sqlite3 -bail -init "$WORK/load.sql" "$WORK/s.db" .quit
        sdig="SELECT count(*), count(rtt_ms), sum(ts), printf('%.3f', sum(rtt_ms)) FROM samples"
        if [ "$(sqlite3 "$WORK/g.db" "$sdig")" = "$(sqlite3 "$WORK/s.db" "$sdig")" ]; then ssame=same; else ssame=DIFFERENT; fi
        cat "$WORK/t.g" "$WORK/t.c" "$WORK/t.sg" "$WORK/t.ss" "$WORK/t.k" | tr '\n' ' ' | awk -v rows="$ROWS" -v run="$run" -v same="$same" -v ssame="$ssame" '{
            printf "run %d, PostgreSQL: gridtail ingest %.2f s (%.0f rows/s; CPU: client %.2f s, server %.2f s)\n", run, $1, rows / $1, $2, $3
            printf "       psql \\copy, same rows    %.2f s (%.0f rows/s; CPU: client %.2f s, server %.2f s)\n", $4, rows / $4, $5, $6
            printf "       gridtail / \\copy speed: %.2fx wall, %.2fx CPU (client + server)\n", $4 / $1, ($5 + $6) / ($2 + $3)
            printf "       psql \\copy, in key order %.2f s (%.0f rows/s; CPU: client %.2f s, server %.2f s)\n", $11, rows / $11, $12, $13
            printf "       gridtail / \\copy in key order: %.2fx wall, %.2fx CPU; the three stores: %s\n", $11 / $1, ($12 + $13) / ($2 + $3), same
            printf "       SQLite: gridtail ingest %.2f s (%.0f rows/s; CPU %.2f s)\n", $7, rows / $7, $8
            printf "       sqlite3 .import, same rows %.2f s (%.0f rows/s; CPU %.2f s)\n", $9, rows / $9, $10
            printf "       gridtail / .import speed: %.2fx wall, %.2fx CPU; stores: %s\n", $9 / $7, $10 / $8, ssame }'
        rm -f "$WORK/rows.tsv" "$WORK/keyed.tsv" "$WORK/rows.csv"
        run=$((run + 1))
    done
}

# The stores end at T1, 2026-10-31T23:59Z, and start DAYS before
T1=1793491140
# span DAYS: sets T0 and MINUTES
span() {
    MINUTES=$(($1 * 1440))
    T0=$((T1 - 60 * (MINUTES - 1)))
}

# build_pg NAME DAYS / build_sqlite FILE DAYS: PAIRS pairs of 40 sites
# (w000, ...), one sample a minute for DAYS days up to T1, every 97th of
# a pair lost, the same rows on both, written a minute at a time as
# ingest writes them (PostgreSQL's heap then holds a minute of every
# pair on a page, not a pair's run of minutes); PostgreSQL's weekly
# partitions made as db/postgres/schema.c names them, then VACUUM
# ANALYZE (as autovacuum would leave it)
ROWSQL="CASE WHEN (p.id * 31 + m) % 97 = 0 THEN NULL
        ELSE 10 + ((p.id * 7919 + m * 104729) % 100000) / 1000.0 END"
build_pg() {
    span "$2"
    pg_fresh "$1"
    psql -X -q -v ON_ERROR_STOP=1 "$BASE/$1" <<SQL
INSERT INTO sites(name) SELECT format('w%s', lpad(i::text, 3, '0')) FROM generate_series(0, 39) i;
INSERT INTO pairs(src, dst) SELECT a.id, b.id FROM sites a JOIN sites b ON a.id <> b.id
    ORDER BY a.id, b.id LIMIT $PAIRS;
DO \$\$ BEGIN FOR w IN $((T0 / 604800))..$((T1 / 604800)) LOOP
    EXECUTE format('CREATE TABLE samples_w%s (LIKE samples INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', w);
    EXECUTE format('ALTER TABLE samples ATTACH PARTITION samples_w%s FOR VALUES FROM (%s) TO (%s)',
                   w, w * 604800, (w + 1) * 604800);
END LOOP; END \$\$;
INSERT INTO samples(pair, ts, seq, rtt_ms)
    SELECT p.id, $T0 + 60 * m, 0, $ROWSQL
    FROM generate_series(0::bigint, $MINUTES - 1) m
    CROSS JOIN LATERAL (SELECT id FROM pairs WHERE m >= 0 ORDER BY id) p;
VACUUM ANALYZE;
SQL
}
build_sqlite() {
    span "$2"
    rm -f "$1"*
    "$BIN" --db "$1" init > /dev/null
    sqlite3 -bail "$1" > /dev/null <<SQL
PRAGMA cache_size = -262144;
BEGIN;
INSERT INTO sites(name) SELECT printf('w%03d', value) FROM generate_series(0, 39);
INSERT INTO pairs(src, dst) SELECT a.id, b.id FROM sites a JOIN sites b ON a.id <> b.id
    ORDER BY a.id, b.id LIMIT $PAIRS;
INSERT INTO samples(pair, ts, seq, rtt_ms)
    SELECT p.id, $T0 + 60 * m, 0, $ROWSQL
    FROM (SELECT value AS m FROM generate_series(0, $MINUTES - 1)) CROSS JOIN pairs p;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
}

# The window read's statement (db/postgres/stmts.c PG_SERIES), as a
# long-lived connection runs it: a generic plan, partitions pruned at
# run time; its buffers for the window of pair 3 at T1 - 1 day
pg_plan() {
    psql -X -q -At "$BASE/$1" <<SQL | sed '/^Planning/,$d' | awk '
        /never executed/ { skip = 1; never++; next }
        skip && /Index Cond/ { skip = 0; next }
        { skip = 0; print }
        END { printf "            (%d older partitions: never executed)\n", never }'
SET plan_cache_mode = force_generic_plan;
PREPARE w(bigint, bigint, bigint) AS SELECT ts, rtt_ms FROM samples WHERE pair = \$1 AND ts <= \$2
    ORDER BY ts DESC, seq DESC LIMIT \$3;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE w(3, $((T1 - 86400)), $2);
SQL
}

scale() {
    echo
    echo "== window read: the last M samples of a pair at or before t, $READS reads of random pairs at"
    echo "   t = the newest sample, and at random t after the store's first day, in one read snapshot"
    echo "   (p50 / p99, microseconds)"
    for size in 1 2; do
        days=$(eval echo \$DAYS$size)
        span "$days"
        rows=$((PAIRS * MINUTES))
        timed bp build_pg "w$size" "$days"
        timed bs build_sqlite "$WORK/w$size.db" "$days"
        pgmb=$(q "w$size" "SELECT pg_database_size(current_database()) / 1048576")
        sqmb=$(($(stat -c %s "$WORK/w$size.db") / 1048576))
        echo "store $size: $rows rows ($PAIRS pairs x $days days): PostgreSQL built in $(cut -d' ' -f1 "$WORK/t.bp") s, $pgmb MiB; SQLite in $(cut -d' ' -f1 "$WORK/t.bs") s, $sqmb MiB"
        [ "$(q "w$size" "SELECT count(*), count(rtt_ms), sum(ts) FROM samples")" = \
          "$(sqlite3 "$WORK/w$size.db" "SELECT count(*), count(rtt_ms), sum(ts) FROM samples")" ] ||
            { echo "store $size: the two backends' rows differ"; exit 1; }
        # t = the newest (the current window, as serve reads it), then t
        # anywhere after the first day (a backtest's reads)
        for m in 120 1024; do
            for t in now any; do
                from=$((T0 + 86400))
                [ $t = any ] || from=$T1
                pg=$("$WORK/window" "$BASE/w$size" "$m" "$READS" "$from" "$T1")
                sq=$("$WORK/window" "$WORK/w$size.db" "$m" "$READS" "$from" "$T1")
                echo "$pg $sq" | awk -v t=$t '{ printf "  M = %4d, t %s: PostgreSQL p50 %5d us, p99 %6d us (max %6d); SQLite p50 %4d us, p99 %5d us (max %5d)\n",
                    $1, t == "now" ? "newest" : "random", $3, $4, $5, $9, $10, $11 }'
            done
        done
        echo "  plan (PostgreSQL, M = 1024):"
        pg_plan "w$size" 1024 | sed 's/^/    /'
        echo "  plan (SQLite): $(sqlite3 "$WORK/w$size.db" "EXPLAIN QUERY PLAN SELECT ts, rtt_ms FROM samples
            WHERE pair = 3 AND ts <= $((T1 - 86400)) ORDER BY ts DESC, seq DESC LIMIT 1024" | tail -n +2 | tr -d '`|-' | sed 's/^ *//')"
    done
    echo
    span "$DAYS2"
    n2=$((PAIRS * MINUTES))
    echo "== prune of the oldest $((DAYS2 / 2)) days of store 2 ($n2 rows): gridtail prune --keep-days $((DAYS2 / 2)) --now <newest>"
    for be in pg sqlite; do
        if [ $be = pg ]; then
            addr=$BASE/w2 name=PostgreSQL
            size() { q w2 "SELECT pg_database_size(current_database())"; }
            count() { q w2 "SELECT count(*) FROM samples"; }
        else
            addr=$WORK/w2.db name=SQLite
            size() { cat "$WORK"/w2.db* | wc -c; }
            count() { sqlite3 "$WORK/w2.db" "SELECT count(*) FROM samples"; }
        fi
        b0=$(size)
        timed prune "$BIN" --db "$addr" prune --keep-days $((DAYS2 / 2)) --now "$T1"
        echo "$(cat "$WORK/t.prune") $b0 $(size) $(count)" | awk -v n="$name" -v total="$n2" '{
            printf "  %-10s %6.2f s (CPU %.2f s): %d rows removed, %d left; %.0f MiB -> %.0f MiB\n",
                   n, $1, $2, total - $5, $5, $3 / 1048576, $4 / 1048576 }'
        sed 's/^/    gridtail: /' "$WORK/out"
    done
}

# serve_at ADDR PROCS N: PROCS servers of the store ADDR, under wrk for
# N partners (8 connections in all); "answers/s errors server-CPU-us
# cluster-CPU-us" (a answer) into $WORK/s.ADDR-tag
serve_at() {
    _pids= _ports=
    i=0
    while [ $i -lt "$2" ]; do
        rm -f "$WORK/port$i"
        "$BIN" --db "$1" serve --listen 127.0.0.1:0 --port-file "$WORK/port$i" --quiet --threads 4 \
            2> "$WORK/serve$i.log" &
        _pids="$_pids $!"
        while [ ! -s "$WORK/port$i" ]; do sleep 0.05; done
        _ports="$_ports $(cat "$WORK/port$i")"
        i=$((i + 1))
    done
    ticks() { for p in $_pids; do awk '{ print $14 + $15 }' "/proc/$p/stat"; done | awk '{ s += $1 } END { print s }'; }
    t0=$(ticks) c0=$(server_cpu)
    i=0 _wrks=
    for port in $_ports; do
        wrk -t1 -c$((8 / $2)) -d"$DURATION" -s "$WORK/post$3.lua" "http://127.0.0.1:$port/v1/estimate" \
            > "$WORK/wrk$i.txt" 2>&1 &
        _wrks="$_wrks $!"
        i=$((i + 1))
    done
    wait $_wrks
    t1=$(ticks) c1=$(server_cpu)
    kill $_pids
    wait $_pids 2>/dev/null || true
    cat "$WORK"/wrk*.txt | awk -v t0="$t0" -v t1="$t1" -v c0="$c0" -v c1="$c1" -v hz="$HZ" '
        /^Requests\/sec:/ { rps += $2 }
        /requests in/ { n += $1 }
        /Non-2xx/ { e += $NF }
        /Socket errors/ { gsub(",", ""); e += $4 + $6 + $8 + $10 }
        END { printf "%.0f %d %.0f %.0f\n", rps, e, (t1 - t0) * 1e6 / hz / n, (c1 - c0) * 1e6 / n }'
    rm -f "$WORK"/wrk*.txt
}

serve() {
    command -v wrk > /dev/null || { echo "store.sh serve: needs wrk (apt-get install wrk)"; return 1; }
    pareto_csv 70 star > "$WORK/star.csv"
    pg_fresh star
    rm -f "$WORK"/star.db*
    "$BIN" --db "$WORK/star.db" init > /dev/null
    for addr in "$BASE/star" "$WORK/star.db"; do
        "$BIN" --db "$addr" ingest --quiet csv "$WORK/star.csv"
        "$BIN" --db "$addr" refit > /dev/null
    done
    at=2026-11-22T01:30:00Z
    for n in 8 64; do
        list=$(i=1; while [ $i -le $n ]; do printf '%s"s%02d"' "$([ $i = 1 ] || echo ', ')" $i; i=$((i + 1)); done)
        printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[{"root": "s00", "sites": [%s], "at": "%s"}]]\n' \
            "$list" "$at" > "$WORK/post$n.lua"
        list=$(echo "$list" | tr -d '" ')
        a=$("$BIN" --db "$BASE/star" estimate --root s00 --sites "$list" --at "$at" --json | jq -c .emax)
        b=$("$BIN" --db "$WORK/star.db" estimate --root s00 --sites "$list" --at "$at" --json | jq -c .emax)
        [ "$a" = "$b" ] || { echo "store.sh serve: $n partners: E[max] $a on PostgreSQL, $b on SQLite"; return 1; }
    done
    echo
    echo "== serve: POST /v1/estimate, a root and 8 or 64 partners of a 70-site star, wrk with 8"
    echo "   connections in all for $DURATION; answers a second, errors, CPU an answer (the servers'; the"
    echo "   PostgreSQL cluster's)"
    for procs in 1 2; do
        for n in 8 64; do
            pg=$(serve_at "$BASE/star" $procs $n)
            sq=$(serve_at "$WORK/star.db" $procs $n)
            echo "$pg $sq" | awk -v p=$procs -v n=$n '{
                printf "  %d server%s, %2d partners: PostgreSQL %6d answers/s (%d errors; CPU %d us + cluster %d us); SQLite %6d answers/s (%d errors; CPU %d us)\n",
                       p, (p > 1 ? "s" : " "), n, $1, $2, $3, $4, $5, $6, $7 }'
        done
    done
}

for part in $PARTS; do
    case $part in
        ingest) ingest ;;
        scale)
            cc -O2 -std=c11 -I"$ROOT/src" -I"$ROOT" -o "$WORK/window" "$ROOT/scripts/bench/window.c" \
                "$LIB" $(pkg-config --libs sqlite3 libpq libcurl gsl jansson libmicrohttpd libarchive nettle) -lm -pthread
            scale ;;
        serve) serve ;;
        *) echo "store.sh: unknown part $part (ingest, scale, serve)" >&2; exit 1 ;;
    esac
done
echo "load after:  $(uptime | sed 's/.*load average: //')"
