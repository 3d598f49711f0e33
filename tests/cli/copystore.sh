# tier: slow
# copy-store (issue 25): a store copied SQLite -> PostgreSQL -> SQLite
# prints the same export, pairs and sites on all three, with its lost
# samples, site attributes and source cursors; a rerun copies nothing;
# a copy killed with kill -9 half-way and run again ends with every
# sample once; --verify-only names a pair changed on one side, and a copy
# over it reports the conflict and keeps the target's value; a missing
# source and bad addresses are refused.  The PostgreSQL checks use the
# run's server (GT_PG_URL) and say why they are skipped without one.
. "$GT_ROOT/tests/cli/lib.inc"
plan 40

PSQL=psql
[ -x "${GT_PG_BIN:-}/psql" ] && PSQL=$GT_PG_BIN/psql
export PGCONNECT_TIMEOUT=60
NOPG=${GT_PG_SKIP:-no PostgreSQL server (GT_PG_URL unset)}
have_pg() { [ -n "${GT_PG_URL:-}" ]; }
pg_admin() {
    PGOPTIONS="-c client_min_messages=warning" \
        "$PSQL" -X -q -At -v ON_ERROR_STOP=1 -d "$GT_PG_URL" -c "$1" >/dev/null
}
# pgdb NAME: an empty database on the run's server, its address;
# dropped when the script exits
pgdb() {
    n=$(printf 'gt_copystore_%s_%s' "$1" "$$")
    pg_admin "DROP DATABASE IF EXISTS $n WITH (FORCE)" && pg_admin "CREATE DATABASE $n" ||
        return 1
    echo "$n" >> pgdbs.txt
    base=${GT_PG_URL%%\?*}
    echo "${base%/*}/$n${GT_PG_URL#"$base"}"
}
trap 'rc=$?; for n in $(cat pgdbs.txt 2>/dev/null); do pg_admin "DROP DATABASE IF EXISTS $n WITH (FORCE)"; done; exit $rc' EXIT
q() {   # q STORE SQL: rows as sqlite3 prints them (psql -A -t alike)
    case $1 in
        postgresql://*) "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$1" -c "$2" ;;
        *) sqlite3 "$1" "$2" ;;
    esac
}
count() {   # count STORE: its samples, 0 while it has no table (read-only: makes no file)
    case $1 in
        postgresql://*) q "$1" 'SELECT count(*) FROM samples' 2>/dev/null || echo 0 ;;
        *) [ -e "$1" ] && sqlite3 -readonly "$1" 'SELECT count(*) FROM samples' 2>/dev/null ||
               echo 0 ;;
    esac
}
jfield() {   # jfield FILE KEY: a top-level field of a JSON summary (2-space indent)
    sed -n "s/^  \"$2\": \(.*\)/\1/p" "$1" | sed 's/,$//'
}
views() {   # views STORE PREFIX: export, pairs --json and sites --json into files
    $GT --db "$1" export > "$2.export" &&
        $GT --db "$1" pairs --json > "$2.pairs" &&
        $GT --db "$1" sites --json > "$2.sites"
}
sources() { q "$1" 'SELECT url, format, cursor_ts FROM sources ORDER BY url'; }
same_views() {   # same_views KIND A B...: every store's KIND file is A's
    kind=$1 a=$2
    shift 2
    for b; do cmp -s "$a.$kind" "$b.$kind" || { echo "  $b.$kind differs"; return 1; }; done
}
all_same() { same_views export "$@" && same_views pairs "$@" && same_views sites "$@"; }

# ---- the source: synth's series, lost samples (a pair with nothing
# else, a seq of their own), attributes of sites (one with a UTF-8 name)
$GT synth --count 6 --span 1d --seed 7 --start 2026-01-01T00:00:00Z -o syn.csv 2>/dev/null
$GT --db s.db init >/dev/null
$GT --db s.db ingest --quiet amp-csv syn.csv
cat > lost.csv <<'EOF'
ts,src,dst,rtt_ms,seq
1767225600,CERN,FNAL,,1
1767225660,CERN,FNAL,,1
1767225600,Zürich,CERN,,0
1767225660,Zürich,CERN,,0
1767225720,Zürich,CERN,12.5,0
EOF
$GT --db s.db ingest --quiet csv lost.csv
cat > attrs.csv <<'EOF'
name,cluster,domain,latitude,longitude
CERN,geneva,cern.ch,46.2330417,6.0557
FNAL,,fnal.gov,41.8319,-88.2575
Zürich,alps,,47.3769,8.5417
EOF
$GT --db s.db sites --import attrs.csv >/dev/null 2>&1
N=$(q s.db 'SELECT count(*) FROM samples')
LOST=$(q s.db 'SELECT count(*) FROM samples WHERE rtt_ms IS NULL')
check "the source holds 43200 + 5 samples, lost ones among them ($N, $LOST lost)" \
    [ "$N" = 43205 -a "$LOST" -gt 4 ]
views s.db s

# ---- SQLite -> SQLite
check "copy-store s.db -> c.db" status_is 0 $GT copy-store --from s.db --to c.db --json
cp out.txt c.json
check "every sample copied, none already there, verified" \
    [ "$(jfield c.json copied)" = "$N" -a "$(jfield c.json already)" = 0 -a \
      "$(jfield c.json verified)" = true -a "$(jfield c.json sites)" = 7 ]
views c.db c
check "c.db prints the same export, pairs and sites" all_same s c
check "the source cursors copied" [ "$(sources s.db)" = "$(sources c.db)" -a -n "$(sources c.db)" ]
check "a rerun copies nothing and finds all $N there" \
    status_is 0 $GT copy-store --from s.db --to c.db --json
cp out.txt c2.json
check "  (copied 0, already $N, no pair written)" \
    [ "$(jfield c2.json copied)" = 0 -a "$(jfield c2.json already)" = "$N" -a \
      "$(jfield c2.json pairs_written)" = 0 ]

# ---- SQLite -> PostgreSQL -> SQLite
if have_pg; then
    P=$(pgdb p)
    check "copy-store s.db -> PostgreSQL" status_is 0 $GT copy-store --from s.db --to "$P"
    check "  says all $N copied and verified" \
        grep -q "$N samples: $N copied, 0 already there, 0 conflicts" out.txt
    check "copy-store PostgreSQL -> back.db" status_is 0 $GT copy-store --from "$P" --to back.db
    views "$P" p
    views back.db b
    check "export alike on s.db, PostgreSQL and back.db" same_views export s p b
    check "pairs --json alike on all three" same_views pairs s p b
    check "sites --json alike on all three" same_views sites s p b
    check "the source cursors alike on all three" \
        [ "$(sources s.db)" = "$(sources "$P")" -a "$(sources s.db)" = "$(sources back.db)" ]
    check "a rerun into PostgreSQL copies nothing" \
        status_is 0 $GT copy-store --from s.db --to "$P" --json
    check "  (copied 0, already $N)" \
        [ "$(jfield out.txt copied)" = 0 -a "$(jfield out.txt already)" = "$N" ]
else
    skip "copy-store through PostgreSQL and back" "$NOPG" 9
fi

# ---- kill -9 half-way, then a rerun: a store that takes a moment
$GT synth --count 6 --span 3d --seed 11 --start 2026-01-01T00:00:00Z -o big.csv 2>/dev/null
$GT --db big.db init >/dev/null
$GT --db big.db ingest --quiet amp-csv big.csv
BIG=$(q big.db 'SELECT count(*) FROM samples')
$GT --db big.db export > big.export
# kill_rerun TARGET: copy big.db there, kill -9 once samples are
# committed, run it again; sets k (samples at the kill) and checks
kill_rerun() {
    $GT copy-store --from big.db --to "$1" >/dev/null 2>&1 &
    pid=$!
    until [ "$(count "$1")" -gt 0 ] || ! kill -0 $pid 2>/dev/null; do sleep 0.02; done
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    k=$(count "$1")
    check "kill -9 half-way left $k of $BIG samples" [ "$k" -gt 0 -a "$k" -lt "$BIG" ]
    check "the rerun completes" status_is 0 $GT copy-store --from big.db --to "$1" --json
    cp out.txt rerun.json
    check "  copies the $((BIG - k)) missing, finds the $k there" \
        [ "$(jfield rerun.json copied)" = $((BIG - k)) -a \
          "$(jfield rerun.json already)" = "$k" ]
    $GT --db "$1" export > killed.export
    check "  and ends with the source's export, every sample once ($(count "$1"))" \
        cmp -s big.export killed.export
}
kill_rerun k.db
if have_pg; then
    kill_rerun "$(pgdb k)"
else
    skip "kill -9 and rerun into PostgreSQL" "$NOPG" 4
fi

# ---- a sample changed on one side: --verify-only names its pair; a copy
# over it reports the conflict and keeps the target's value
pair_key="(SELECT p.id FROM pairs p JOIN sites a ON a.id = p.src JOIN sites b ON b.id = p.dst"
pair_key="$pair_key WHERE a.name = 'CERN' AND b.name = 'BNL')"
q c.db "UPDATE samples SET rtt_ms = 999.5 WHERE pair = $pair_key AND ts = 1767229200"
check "--verify-only finds the change" \
    status_is 2 $GT copy-store --from s.db --to c.db --verify-only
check "  and names the pair, only it" \
    [ "$(grep -c 'differs' err.txt)" = 1 -a "$(grep -c 'pair CERN -> BNL differs' err.txt)" = 1 ]
check "--verify-only --json lists it" \
    status_is 2 $GT copy-store --from s.db --to c.db --verify-only --json
check "  (one difference, CERN -> BNL)" \
    [ "$(jfield out.txt verified)" = false -a "$(jfield out.txt differences)" = 1 -a \
      "$(grep -c '"src": "CERN"' out.txt)" = 1 -a "$(grep -c '"dst": "BNL"' out.txt)" = 1 ]
check "a copy over it reports the conflict" \
    status_is 2 $GT copy-store --from s.db --to c.db
check "  naming the key, keeping the target's value" \
    grep -q 'conflict: pair CERN -> BNL, ts 1767229200, seq 0: .* 999.5 in c.db (kept)' err.txt
check "  (999.5 still there)" \
    [ "$(q c.db "SELECT rtt_ms FROM samples WHERE pair = $pair_key AND ts = 1767229200")" = 999.5 ]
if have_pg; then
    pk=$(echo "$pair_key" | sed "s/'CERN'/'Zürich'/; s/'BNL'/'CERN'/")
    q "$P" "UPDATE samples SET rtt_ms = 7 WHERE pair = $pk AND ts = 1767225600" >/dev/null
    check "--verify-only finds a lost sample given a value in PostgreSQL" \
        status_is 2 $GT copy-store --from back.db --to "$P" --verify-only
    check "  and names the pair" grep -q 'pair Zürich -> CERN differs' err.txt
else
    skip "--verify-only against PostgreSQL" "$NOPG" 2
fi

# ---- refused
check "a missing source: exit 3" status_is 3 $GT copy-store --from none.db --to x.db
check "  naming it, and no target made" sh -c 'grep -q none.db err.txt && [ ! -e x.db ]'
check "an address no backend takes: exit 1" \
    status_is 1 $GT copy-store --from s.db --to mysql://h/x
check "a server that is not there: exit 3" \
    status_is 3 $GT copy-store --from s.db --to postgresql://gridtail@127.0.0.1:1/x
check "a password in an address: refused, not repeated" \
    status_is 1 $GT copy-store --from s.db --to postgresql://gridtail:s3cr3t@127.0.0.1:1/x
check "  (not in the message)" sh -c '! grep -q s3cr3t err.txt'
check "one store twice: exit 1" status_is 1 $GT copy-store --from s.db --to ./s.db
