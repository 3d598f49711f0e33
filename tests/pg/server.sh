#!/bin/sh
# A throw-away PostgreSQL 15 server for the tests (issue 25): a cluster of
# its own in a directory, run by an unprivileged user, reachable only from
# this machine.
#
#   sh tests/pg/server.sh start DIR   makes the cluster in DIR/data (initdb,
#                                     database gridtail_test, superuser
#                                     gridtail) and starts it: a unix
#                                     socket in DIR and 127.0.0.1 on a
#                                     free port; writes DIR/url (TCP) and
#                                     DIR/socket-url.  On a DIR that has
#                                     a cluster already: starts it again
#                                     on its port (DIR/port), data kept.
#   sh tests/pg/server.sh stop DIR    stops it (data kept); quiet and
#                                     status 0 when it is not running
#   sh tests/pg/server.sh url DIR     prints DIR/url
#   sh tests/pg/server.sh run DIR CMD...  runs CMD in DIR as the cluster's
#                                     user (pg_ctl, pg_basebackup, ... for
#                                     a test that drives the server itself)
#
# The server's user: PostgreSQL refuses to run as root.  As root, the
# cluster runs as GT_PG_USER (default nobody) through setpriv, which is
# plain setuid without PAM, so no session or log entry per start.  nobody
# rather than the postgres account, which owns the machine's own clusters
# (/var/lib/postgresql) that a test server trusting every local
# connection must not be able to touch, and rather than a user of our
# own, which `make check` would have to add to the machine's /etc/passwd.
# DIR must be reachable by that user (a mktemp -d under /tmp is; a
# directory inside root's 0700 one is not).  Not as root, the server runs
# as the caller.
#
# Authentication is trust (initdb -A trust): the socket is in DIR, mode
# 0700, so only its owner and root reach it; the TCP port only listens on
# 127.0.0.1, where any local user could connect as superuser while the
# run lasts: fine for a test machine, not for a shared one.
#
# GT_PG_BIN (default /usr/lib/postgresql/15/bin): the server's programs;
# GT_PG_PORT: the first port to try (default: random, 20000-31999, below
# Linux's ephemeral range, where outgoing connections take their ports);
# GT_PG_OPTS: more postgres options for this start ("-c name=value ...").
# Never leaves a server running when it fails: what it started it stops.
set -u
BIN=${GT_PG_BIN:-/usr/lib/postgresql/15/bin}
ROLE=gridtail
DB=gridtail_test
TRIES=10

die() {
    echo "pg-server: $*" >&2
    exit 1
}

# The caller's PG* variables (PGHOST, PGPORT, PGSERVICE, PGOPTIONS, ...)
# would send our clients elsewhere or change the server's settings
for v in $(env | sed -n 's/^\(PG[A-Z_]*\)=.*/\1/p'); do
    unset "$v"
done

# as_owner DIR CMD...: runs CMD in DIR as the user owning DIR
as_owner() {
    d=$1
    shift
    uid=$(stat -c %u "$d") || return 1
    if [ "$(id -u)" = "$uid" ]; then
        (cd "$d" && "$@")
    else
        (cd "$d" && setpriv --reuid="$uid" --regid="$(stat -c %g "$d")" \
            --clear-groups -- "$@")
    fi
}

# alive PID: does it run?  A zombie does not: the postmaster runs in a
# session of its own (pg_ctl makes it), its parent is init, which may
# take its time to reap it
alive() {
    state=$(sed -n 's/^[0-9]* (.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# pm_pid DIR: the postmaster's pid if one runs for DIR/data (a pid left
# in a stale postmaster.pid may be another program's by now)
pm_pid() {
    [ -r "$1/data/postmaster.pid" ] || return 1
    p=$(head -n 1 "$1/data/postmaster.pid")
    [ -n "$p" ] && alive "$p" &&
        [ "$(readlink "/proc/$p/exe")" = "$(readlink -f "$BIN/postgres")" ] && echo "$p"
}

# gone PID TENTHS: waits up to TENTHS tenths of a second for PID to end
gone() {
    i=0
    while alive "$1"; do
        [ $i -lt "$2" ] || return 1
        sleep 0.1
        i=$((i + 1))
    done
}

# stop DIR: fast shutdown (sessions ended, a clean checkpoint), then
# immediate, then SIGKILL; returns once the postmaster is gone, which
# waits for its children.  pg_ctl returns when postmaster.pid is gone,
# which the postmaster removes just before it exits: hence the wait.
stop() {
    pid=$(pm_pid "$1") || return 0
    as_owner "$1" "$BIN/pg_ctl" stop -D "$1/data" -m fast -w -t 30 >/dev/null 2>&1 ||
        as_owner "$1" "$BIN/pg_ctl" stop -D "$1/data" -m immediate -w -t 10 >/dev/null 2>&1
    gone "$pid" 50 && return 0
    echo "pg-server: pg_ctl could not stop postmaster $pid; killing it" >&2
    kill -KILL "$pid"
    gone "$pid" 100
}

# fail DIR WHAT: stops whatever this start began, says what failed, exits 1
fail() {
    stop "$1"
    die "$2"
}

# log_since DIR OFFSET: what the server logged after byte OFFSET of DIR/log
log_since() {
    tail -c +"$(($2 + 1))" "$1/log" 2>/dev/null
}

# config DIR PORT: our settings, included from postgresql.conf, so that a
# start by pg_ctl itself gets them too
config() {
    as_owner "$1" sh -c 'cat > data/gridtail.conf' <<EOF
# written by tests/pg/server.sh
listen_addresses = '127.0.0.1'
port = $2
unix_socket_directories = '$1'
# A test cluster is thrown away with its directory: nothing must survive
# a machine crash, and fsync per commit would make the tests wait on the
# disk.  A crash of the server alone (kill -9, immediate stop) still
# recovers everything committed: the writes are in the kernel's cache.
fsync = off
full_page_writes = off
# Times printed in one zone whatever the machine's
timezone = 'UTC'
log_timezone = 'UTC'
EOF
}

# init DIR: a new cluster in DIR/data, run by the user that owns DIR
init() {
    # C collation sorts by bytes, as SQLite's default BINARY does, and
    # the messages are in English whatever the caller's locale
    as_owner "$1" "$BIN/initdb" -D "$1/data" -U "$ROLE" -A trust -E UTF8 \
        --locale=C --no-sync --no-instructions >"$1/initdb.log" 2>&1 || {
        sed 's/^/  /' "$1/initdb.log" | tail -n 10 >&2
        die "initdb failed (whole output: $1/initdb.log)"
    }
    as_owner "$1" sh -c "echo \"include 'gridtail.conf'\" >> data/postgresql.conf"
}

# taken PORT: is something listening on 127.0.0.1:PORT (or every address)?
taken() {
    command -v ss >/dev/null 2>&1 || return 1
    [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
}

# try DIR PORT: starts the cluster on PORT; 0 started, 2 the port is
# taken (try another), 1 failed otherwise (stopped again, reason printed)
try() {
    config "$1" "$2"
    off=0
    [ -f "$1/log" ] && off=$(wc -c < "$1/log")
    # shellcheck disable=SC2086
    as_owner "$1" "$BIN/pg_ctl" start -D "$1/data" -l "$1/log" -w -t 60 \
        ${GT_PG_OPTS:+-o "$GT_PG_OPTS"} >/dev/null 2>&1 && return 0
    stop "$1"
    log_since "$1" "$off" | grep -q 'could not bind\|Address already in use\|could not create any TCP/IP' &&
        return 2
    log_since "$1" "$off" | sed 's/^/  /' | tail -n 10 >&2
    why=$(log_since "$1" "$off" | sed -n 's/.*\(FATAL\|PANIC\): *//p' | head -n 1)
    echo "pg-server: the server did not start${why:+: $why} (log: $1/log)" >&2
    return 1
}

start() {
    dir=$1
    [ -x "$BIN/postgres" ] || die "no PostgreSQL server at $BIN/postgres (sh scripts/install-deps.sh test installs postgresql-15)"
    [ -d "$dir" ] || die "$dir: no such directory"
    dir=$(cd "$dir" && pwd)
    # the socket's path, $dir/.s.PGSQL.NNNNN, must fit in sun_path
    [ $((${#dir} + 16)) -lt 108 ] || die "$dir: too long a path for the socket in it (over 91 characters)"
    if pm_pid "$dir" >/dev/null; then
        die "$dir: a server is running there already"
    fi
    t0=$(date +%s.%N)
    if [ "$(id -u)" -eq 0 ] && [ "$(stat -c %u "$dir")" -eq 0 ]; then
        user=${GT_PG_USER:-nobody}
        id "$user" >/dev/null 2>&1 || die "no user $user to run the server (PostgreSQL refuses root); set GT_PG_USER"
        [ "$(id -u "$user")" -ne 0 ] || die "GT_PG_USER=$user is root"
        chown "$user:$(id -g "$user")" "$dir" || die "$dir: cannot give it to $user"
    fi
    user=$(stat -c %U "$dir")
    as_owner "$dir" test -w "$dir" 2>/dev/null ||
        die "$dir: user $user cannot get there (its parent directories must let it through; a mktemp -d under /tmp does)"
    trap 'fail "$dir" "interrupted"' INT TERM
    if [ -s "$dir/data/PG_VERSION" ]; then
        # started again: its port (the tests' URLs name it)
        port=$(cat "$dir/port") || die "$dir/port: not there"
        try "$dir" "$port" || die "could not start again on port $port"
    else
        init "$dir"
        port=${GT_PG_PORT:-$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000))}
        i=0
        while :; do
            [ $i -lt $TRIES ] || die "no free port in $((port - TRIES))-$((port - 1))"
            if ! taken "$port"; then
                try "$dir" "$port"
                case $? in
                    0) break ;;
                    1) exit 1 ;;
                esac
            fi
            port=$((port + 1))
            i=$((i + 1))
        done
        echo "$port" > "$dir/port"
        "$BIN/createdb" -h "$dir" -p "$port" -U "$ROLE" "$DB" 2>"$dir/createdb.err" ||
            fail "$dir" "createdb $DB failed: $(head -n 1 "$dir/createdb.err")"
        rm -f "$dir/createdb.err"
        echo "postgresql://$ROLE@127.0.0.1:$port/$DB" > "$dir/url"
        echo "postgresql:///$DB?host=$dir&port=$port&user=$ROLE" > "$dir/socket-url"
    fi
    trap - INT TERM
    version=$("$BIN/postgres" --version | awk '{ print $3 }')
    echo "PostgreSQL $version on 127.0.0.1:$port and $dir, as $user, started in" \
        "$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }') s"
}

[ $# -ge 2 ] || die "usage: server.sh start|stop|url DIR, or run DIR CMD..."
cmd=$1
dir=$2
shift 2
[ ! -d "$dir" ] || dir=$(cd "$dir" && pwd)
case $cmd in
    start) start "$dir" ;;
    stop)  [ -d "$dir" ] || exit 0
           stop "$dir" || die "$dir: the server is still running" ;;
    url)   cat "$dir/url" ;;
    run)   as_owner "$dir" "$@" ;;
    *)     die "usage: server.sh start|stop|url DIR, or run DIR CMD..." ;;
esac
