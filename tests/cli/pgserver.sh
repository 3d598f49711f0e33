# tier: slow
# The PostgreSQL server tests/run.sh starts for the run (issue 25):
# reached through GT_PG_URL, version 15, on 127.0.0.1 and its socket
# only, not run as root; and tests/pg/server.sh on its own: a second
# server beside it on another port, stopped and started again with its
# data, stopped leaving nothing running, and a start that fails leaving
# nothing either.
. "$GT_ROOT/tests/cli/lib.inc"
plan 11
SERVER="sh $GT_ROOT/tests/pg/server.sh"
export PGCONNECT_TIMEOUT=60   # only catches a hung server
# why each group cannot run here (empty: it can)
why_run=${GT_PG_SKIP:-}
why_bin=$why_run
if [ -n "${GT_PG_URL:-}" ]; then
    why_run=""
    [ -n "${GT_PG_DIR:-}" ] || why_run="GT_PG_URL given from outside: the run started no server (no GT_PG_DIR)"
    why_bin=""
    [ -x "${GT_PG_BIN:-}/postgres" ] || why_bin="no PostgreSQL server programs (GT_PG_BIN=${GT_PG_BIN:-})"
fi
[ -n "${GT_PG_URL:-}" ] || [ -n "$why_bin" ] || why_bin="no GT_PG_URL and no GT_PG_SKIP: not run by tests/run.sh"
[ -n "$why_run" ] || [ -n "${GT_PG_URL:-}" ] || why_run=$why_bin
why_url=""
[ -n "${GT_PG_URL:-}" ] || why_url=$why_run
# given WHY DESC command...: the check, or its skip when WHY says why not
given() {
    why=$1
    shift
    if [ -n "$why" ]; then skip "$1" "$why"; else check "$@"; fi
}
q() {   # q CONNINFO SQL: the answer, unaligned
    "$GT_PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2" 2>>psql.err
}
port_of() {   # port_of URL
    echo "$1" | sed -n 's|.*@127\.0\.0\.1:\([0-9]*\)/.*|\1|p'
}
# listening PORT: the local addresses the kernel has listening on PORT
listening() {
    ss -Hltn "sport = :$1" | awk '{ print $4 }' | sort -u
}
# runs_from DIR: a live process whose command line names DIR/data (the
# postmaster's -D); [a] keeps grep's own command line from matching
runs_from() {
    for f in $(grep -lsE "$(echo "$1" | sed 's/[.]/[.]/g')/dat[a]" /proc/[0-9]*/cmdline); do
        p=${f#/proc/}
        p=${p%/cmdline}
        state=$(sed -n 's/^[0-9]* (.*) \(.\).*/\1/p' "/proc/$p/stat" 2>/dev/null)
        [ -n "$state" ] && [ "$state" != Z ] && return 0
    done
    return 1
}
dirs=""
cleanup() {
    for d in $dirs; do
        $SERVER stop "$d" && rm -rf "$d"
    done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# the run's server
port=$(port_of "${GT_PG_URL:-}")
given "$why_url" "psql connects through GT_PG_URL to gridtail_test, over TCP on 127.0.0.1" \
    [ "$(q "${GT_PG_URL:-}" 'SELECT current_database(), inet_server_addr()')" = "gridtail_test|127.0.0.1" ]
[ -z "$why_url" ] && v=$(q "$GT_PG_URL" 'SHOW server_version_num')
version_15() {
    case ${v:-} in 15[0-9][0-9][0-9][0-9]) ;; *) echo "  server_version_num: $v"; return 1 ;; esac
}
given "$why_url" "the server is PostgreSQL 15 (server_version_num 15xxxx)" version_15
given "$why_run" "it listens on 127.0.0.1 only (listen_addresses)" \
    [ "$(q "${GT_PG_URL:-}" 'SHOW listen_addresses')" = 127.0.0.1 ]
loopback_only() {
    got=$(listening "$port")
    [ "$got" = "127.0.0.1:$port" ] || { echo "  listening on port $port:" $got; return 1; }
}
given "$why_run" "the kernel has it listening on 127.0.0.1 and no other address (ss)" loopback_only
sock="host=${GT_PG_DIR:-} port=$port user=gridtail dbname=gridtail_test"
given "$why_run" "its socket in GT_PG_DIR answers (a connection not over TCP)" \
    [ "$(q "$sock" 'SELECT inet_server_addr() IS NULL')" = t ]
pm=$(head -n 1 "${GT_PG_DIR:-.}/data/postmaster.pid" 2>/dev/null)
uids=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/${pm:-x}/status" 2>/dev/null)
not_root() {   # real, effective, saved and file-system uids: none is 0
    [ -n "$uids" ] && ! echo " $uids " | grep -q " 0 " && return 0
    echo "  postmaster ${pm:-not found}: uids ${uids:-none}"
    return 1
}
given "$why_run" "its postmaster (GT_PG_DIR/data/postmaster.pid) runs as a user other than root" not_root

# server.sh on its own: a second server, told to start on the first's port
d2=$(mktemp -d)
d3=$(mktemp -d)
dirs="$d2 $d3"
rc=none
if [ -z "$why_bin" ]; then
    GT_PG_PORT=$port $SERVER start "$d2" >start2.out 2>&1
    rc=$?
fi
url2=$(cat "$d2/url" 2>/dev/null)
port2=$(port_of "$url2")
second_started() {
    [ "$rc" = 0 ] && [ -n "$port2" ] && [ "$port2" != "$port" ] && return 0
    echo "  exit $rc, port ${port2:-none}, the taken one $port"
    cat start2.out
    return 1
}
given "$why_bin" "server.sh start makes a second server, on another port when told to take the first's" \
    second_started
given "$why_bin" "it takes writes through its url" \
    [ "$(q "$url2" 'CREATE TABLE t(x int); INSERT INTO t VALUES (42); SELECT sum(x) FROM t')" = 42 ]
if [ -z "$why_bin" ]; then
    $SERVER stop "$d2" && $SERVER start "$d2" >start2b.out 2>&1
    rc=$?
fi
restarted() {
    [ "$rc" = 0 ] && [ "$(cat "$d2/url")" = "$url2" ] && [ "$(q "$url2" 'SELECT x FROM t')" = 42 ]
}
given "$why_bin" "stopped and started again: the same url, the row kept" restarted
if [ -z "$why_bin" ]; then
    $SERVER stop "$d2"
    rc=$?
fi
stopped() {
    [ "$rc" = 0 ] && ! runs_from "$d2" && [ -z "$(listening "${port2:-0}")" ]
}
given "$why_bin" "stopped: exit 0, no process runs from it and nothing listens on its port" stopped
if [ -z "$why_bin" ]; then
    GT_PG_OPTS="-c no_such_setting=1" $SERVER start "$d3" >out.txt 2>err.txt
    rc=$?
fi
failed_clean() {
    [ "$rc" = 1 ] && ! runs_from "$d3" &&
        grep -q '^pg-server: the server did not start: unrecognized configuration parameter "no_such_setting"' err.txt
}
given "$why_bin" "a start that fails (an unknown setting) exits 1, says why and leaves no server" failed_clean
