# tier: slow
# The operator's side (issue 11, part 4; issue 24, part 4): make install
# lays out every piece and never overwrites a config; the service, the
# cron example and the CLI share one store and one system user, whose
# directories are made; the unit is sandboxed and still serves; the
# installed docs' links resolve; every command refuses the options it
# does not use and no --help prints a stray '%%'; the cron wrapper logs
# what each run stored; prune gives the space back.
. "$GT_ROOT/tests/cli/lib.inc"
plan 64
build=$(dirname "$GT_BIN")
dest=$PWD/root
inst() { make -s --no-print-directory -C "$GT_ROOT" BUILD="$build" DESTDIR="$dest" PREFIX=/usr SYSCONFDIR=/etc "$@"; }
check "make install" status_is 0 inst install
doc=$dest/usr/share/doc/gridtail
for f in usr/bin/gridtail usr/bin/gridtail-cron usr/share/man/man1/gridtail.1 \
         usr/share/doc/gridtail/README.md usr/share/doc/gridtail/docs/METHOD.md \
         usr/share/doc/gridtail/examples/cron.d-gridtail usr/share/doc/gridtail/examples/gridtail.conf \
         usr/share/doc/gridtail/examples/gridtail-rules.yml \
         usr/lib/systemd/system/gridtail-serve.service etc/gridtail/gridtail.conf \
         usr/lib/sysusers.d/gridtail.conf usr/lib/tmpfiles.d/gridtail.conf; do
    check "installed: /$f" [ -s "$dest/$f" ]
done
unit=$dest/usr/lib/systemd/system/gridtail-serve.service
cron=$doc/examples/cron.d-gridtail
sysusers=$dest/usr/lib/sysusers.d/gridtail.conf
tmpfiles=$dest/usr/lib/tmpfiles.d/gridtail.conf
conf=$dest/etc/gridtail/gridtail.conf
check "the unit runs the installed binary" grep -q '^ExecStart=/usr/bin/gridtail serve$' "$unit"
check "no @PLACEHOLDER@ left in what etc/ installs" sh -c "! grep -l '@[A-Z]*@' '$unit' '$cron' '$sysusers' '$tmpfiles' '$conf' '$doc/examples/gridtail.conf'"

# One store, one user (the installed config names it; the unit and the
# cron jobs resolve it the same way, as the same user that sysusers.d makes)
user_of_unit=$(sed -n 's/^User=//p' "$unit")
users_of_cron=$(awk '/^[^#A-Z]/ && NF >= 7 { print $6 }' "$cron" | sort -u | tr '\n' ' ')
sysuser=$(sed -n 's/^u \([^ ]*\) .*/\1/p' "$sysusers")
home=$(sed -n 's/^u [^ ]* [^ ]* "[^"]*" \([^ ]*\) .*/\1/p' "$sysusers")
check "the unit has a user of its own, not a DynamicUser" sh -c "[ -n '$user_of_unit' ] && ! grep -q '^DynamicUser=yes' '$unit'"
check "the unit, each cron job and sysusers.d name one user" \
    [ "$user_of_unit" = "$sysuser" -a "$users_of_cron" = "$sysuser " ]
# the store a process gets: its environment (NAME=VALUE lines in a file,
# paths in /etc read in DESTDIR) and working directory, asked of the
# installed binary reading the installed config
store_of() {   # store_of ENVFILE CWD
    s=$(env -i $(sed "s|=/etc/|=$dest/etc/|" "$1") "$dest/usr/bin/gridtail" config |
        sed -n 's/^# database: \(.*\) (from .*)$/\1/p')
    case $s in /*) echo "$s" ;; ?*) echo "$2/${s#./}" ;; esac
}
sed -n 's/^Environment=//p' "$unit" > unit.env
sed -n '/^[A-Z_]*=/p' "$cron" > cron.env
store_unit=$(store_of unit.env "$(sed -n 's/^WorkingDirectory=//p' "$unit")")
store_cron=$(store_of cron.env "$home")   # cron starts a job in its user's home
store_cli=$(env -i "$dest/usr/bin/gridtail" --config "$conf" config | sed -n 's/^# database: \(.*\) (from .*)$/\1/p')
check "the unit, cron and the CLI use one store: /var/lib/gridtail/gridtail.db" \
    [ "$store_unit" = /var/lib/gridtail/gridtail.db -a "$store_cron" = "$store_unit" -a "$store_cli" = "$store_unit" ]
check "the store is in the user's home, the unit's state directory" \
    [ "$(dirname "$store_unit")" = "$home" -a "$(sed -n 's/^StateDirectory=//p' "$unit")" = gridtail ]
check "cron's PATH finds the installed gridtail-cron" \
    [ "$(env -i PATH="$(sed -n 's/^PATH=//p' "$cron" | sed "s|^|$dest|; s|:|:$dest|g")" /bin/sh -c 'command -v gridtail-cron')" = "$dest/usr/bin/gridtail-cron" ]
# every file the cron jobs write (--log, --lock, >>) is in a directory
# tmpfiles.d makes for the user
written=$(grep -o -- '--log [^ ]*\|--lock [^ ]*\|>>[^ ]*' "$cron" | sed 's/^--l[a-z]* //; s/^>>//' | xargs -n 1 dirname | sort -u | tr '\n' ' ')
check "cron writes only in directories tmpfiles.d makes for $sysuser" sh -c "
    [ -n '$written' ] || exit 1
    for d in $written; do grep -q \"^d \$d 0750 $sysuser $sysuser\" '$tmpfiles' || { echo \"  \$d\"; exit 1; }; done"
if command -v systemd-sysusers >/dev/null 2>&1 && command -v systemd-tmpfiles >/dev/null 2>&1; then
    check "systemd-sysusers reads sysusers.d and would make the user" sh -c \
        "systemd-sysusers --root='$dest' --dry-run 2>&1 | grep -q \"Creating user '$sysuser'\""
    check "systemd-sysusers makes it in DESTDIR, its home the store's directory" sh -c \
        "systemd-sysusers --root='$dest' >/dev/null 2>&1 && grep -q '^$sysuser:x:[0-9]*:[0-9]*:[^:]*:$home:/usr/sbin/nologin$' '$dest/etc/passwd'"
    uid=$(awk -F: -v u="$sysuser" '$1 == u { print $3 }' "$dest/etc/passwd")
    gid=$(awk -F: -v u="$sysuser" '$1 == u { print $4 }' "$dest/etc/passwd")
    check "systemd-tmpfiles makes the store's and the log directories, the user's, 0750" sh -c \
        "systemd-tmpfiles --root='$dest' --create 2>err.txt && [ ! -s err.txt ] &&
         [ \"\$(stat -c %u:%g:%a '$dest/var/lib/gridtail' '$dest/var/log/gridtail' | sort -u)\" = '$uid:$gid:750' ]"
else
    skip "systemd-sysusers reads sysusers.d and would make the user" "no systemd-sysusers or systemd-tmpfiles (apt-get install systemd)" 3
fi

# The sandbox: systemd's own rating, and the server run as the unit runs it
if command -v systemd-analyze >/dev/null 2>&1; then
    # every line it prints is one this machine explains (no binary at the
    # unit's paths outside DESTDIR, no man database, no running systemd),
    # and it ran (status 0, or 1 for those)
    check "systemd-analyze verify accepts the unit" sh -c "systemd-analyze verify '$unit' > verify.txt 2>&1; [ \$? -le 1 ] && ! grep -v -e 'is not executable: No such file' -e \"Command 'man \" -e 'Unit sysinit.target not found' verify.txt | grep -q ."
    score=$(systemd-analyze security --offline=yes "$unit" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
    echo "# systemd-analyze security: $score"
    check "systemd-analyze security rates the unit at most 2.0 (was 8.3 EXPOSED)" \
        awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 2.0) }'
else
    skip "systemd-analyze verify accepts the unit" "no systemd-analyze (apt-get install systemd)" 2
fi
# ExecStart by hand as the unit's user (uid from DESTDIR's passwd), with
# no capabilities and no new privileges, in its working directory, umask
# and environment, the store in a scratch state directory, under strace:
# it must answer, reload, stop, write only its state directory, and make
# no system call that SystemCallFilter= refuses
filter_calls() {   # filter_calls @SET...: the system calls of the sets, expanded
    for set in "$@"; do
        systemd-analyze syscall-filter "$set" | tail -n +2 | sed 's/#.*//' | awk 'NF { print $1 }' |
            while read -r x; do case $x in @*) filter_calls "$x" ;; *) echo "$x" ;; esac; done
    done
}
why=
[ "$(id -u)" = 0 ] || why="not root (it runs the server as another user)"
for t in setpriv strace curl systemd-analyze; do
    command -v $t >/dev/null 2>&1 || why="${why:-no $t}"
done
[ -n "$why" ] || [ -n "${uid:-}" ] || why="no user made (systemd-sysusers)"
[ -n "$why" ] || strace -f -o /dev/null true 2>/dev/null || why="strace cannot trace here"
if [ -z "$why" ]; then
    chmod 711 "$PWD"   # the user reaches the installed binary and config, and its state
    state=$PWD/state
    mkdir "$state"
    DB=$state/gridtail.db
    $GT --db $DB init >/dev/null
    $GT synth --count 4 --samples 200 --start 2026-11-01 -o s.csv
    $GT --db $DB ingest --quiet amp-csv s.csv
    chown -R "$uid:$gid" "$state" && chmod 750 "$state"
    umask_unit=$(sed -n 's/^UMask=//p' "$unit")
    rm -f port.txt trace.txt
    exec_start=$(sed -n 's/^ExecStart=//p' "$unit" | sed "s|^/usr/bin/|$dest/usr/bin/|")
    strace -f -qq -o trace.txt setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs \
        --bounding-set=-all --inh-caps=-all env -i $(sed "s|=/etc/|=$dest/etc/|" unit.env) \
        GRIDTAIL_DB="$DB" ASAN_OPTIONS=detect_leaks=0 sh -c "cd '$state' && umask $umask_unit && echo \$\$ > '$state/serve.pid' &&
        exec $exec_start --listen 127.0.0.1:0 --port-file '$state/port.txt'" 2> serve.log &
    # (ASAN_OPTIONS: under make asan, LeakSanitizer cannot work under
    # ptrace and would fail the exit; leaks are the other tests' business)
    tracer=$!
    wait_until 60 [ -s "$state/port.txt" ]
    URL="http://127.0.0.1:$(cat "$state/port.txt" 2>/dev/null)"
    spid=$(cat "$state/serve.pid" 2>/dev/null)
    check "as $sysuser, sandboxed: serve answers an estimate" sh -c "curl -sf -H 'Content-Type: application/json' \
        -d '{\"root\": \"CERN\", \"sites\": [\"FNAL\", \"BNL\"]}' '$URL/v1/estimate' | grep -q '\"e_max\"'"
    check "... a placement and /metrics" sh -c "curl -sf -H 'Content-Type: application/json' \
        -d '{\"pool\": [\"CERN\", \"FNAL\", \"BNL\", \"KIT\"], \"size\": 2}' '$URL/v1/place' | grep -q '\"search\"' &&
        curl -sf '$URL/metrics' | grep -q '^gridtail_build_info'"
    [ -n "$spid" ] && kill -HUP "$spid"
    wait_until 60 grep -q SIGHUP serve.log
    check "... a reload (SIGHUP), then /readyz" sh -c "grep -q SIGHUP serve.log && curl -sf '$URL/readyz' | grep -q ready"
    if [ -n "$spid" ]; then kill -TERM "$spid"; else kill "$tracer"; fi
    wait $tracer
    check "... and stops on SIGTERM with status 0" [ $? = 0 ]
    start=$(grep -n "execve(\"$dest/usr/bin/gridtail\".* = 0$" trace.txt | head -n 1 | cut -d: -f1)
    tail -n +"${start:-1}" trace.txt > serve.trace
    sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p; s/^[0-9]* *<\.\.\. \([a-z_0-9]*\) resumed.*/\1/p' serve.trace | sort -u > used.txt
    filter_calls $(sed -n 's/^SystemCallFilter=\([^~].*\)/\1/p' "$unit") | sort -u > allowed.txt
    filter_calls $(sed -n 's/^SystemCallFilter=~//p' "$unit") | sort -u > denied.txt
    traced() { [ -n "$start" ] && "$@"; }   # the server's own part of the trace was found
    check "... its system calls ($(wc -l < used.txt)) all pass SystemCallFilter=" traced sh -c \
        "[ -s used.txt ] && [ -s allowed.txt ] || exit 1; comm -23 used.txt allowed.txt | grep . && exit 1; comm -12 used.txt denied.txt | grep . && exit 1; exit 0"
    check "... its sockets are of RestrictAddressFamilies=" traced sh -c "! grep -o 'socket(AF_[A-Z0-9]*' serve.trace | sed 's/socket(//' | grep -vxF \"\$(sed -n 's/^RestrictAddressFamilies=//p' '$unit' | tr ' ' '\n')\""
    check "... it writes only in its state directory" traced sh -c "grep -E 'O_WRONLY|O_RDWR|O_CREAT|unlink|rename|mkdir' serve.trace | grep -o '\"/[^\"]*\"' | tr -d '\"' | grep -v '^$state/' | grep . && exit 1 || exit 0"
    check "... it maps no memory writable and executable (MemoryDenyWriteExecute=)" traced sh -c "! grep -E '(mmap|mprotect)\\(.*PROT_WRITE\\|PROT_EXEC|(mmap|mprotect)\\(.*PROT_EXEC\\|PROT_WRITE|mprotect\\(.*PROT_EXEC' serve.trace"
else
    skip "serve run as the unit runs it, under strace" "$why" 8
fi

# The installed docs: README and docs/ as in the source, every relative
# link and picture resolving, the Quick tour's inputs there
broken_links() {   # broken_links FILE.md...: the relative links and images that do not resolve
    for md in "$@"; do
        grep -o '](\([^) ]*\)\|<img [^>]*src="[^"]*"' "$md" | sed 's/^](//; s/.*src="//; s/"$//' |
            while IFS= read -r l; do
                case $l in http:* | https:* | mailto:* | \#*) continue ;; esac
                [ -e "$(dirname "$md")/${l%%#*}" ] || echo "$md: $l"
            done
    done
}
check "the installed README has its links and pictures" [ "$(grep -c '](docs/' "$doc/README.md")" -ge 6 ]
broken=$(broken_links "$doc/README.md" "$doc"/docs/*.md)
check "every relative link and picture of the installed docs resolves${broken:+ (not: $(echo $broken))}" [ -z "$broken" ]
check "every doc of docs/ is installed" sh -c "cd '$GT_ROOT/docs' && for f in *.md openapi.json; do cmp -s \"\$f\" '$doc/docs/'\"\$f\" || { echo \"  \$f\"; exit 1; }; done"
check "docs/examples and docs/img are installed file for file" sh -c \
    "diff -r '$GT_ROOT/docs/examples' '$doc/docs/examples' && diff -r '$GT_ROOT/docs/img' '$doc/docs/img'"
check "every docs/examples/ input the README names is installed" sh -c "
    n=0; for f in \$(grep -o 'docs/examples/[A-Za-z0-9_./-]*' '$doc/README.md' | sort -u); do
        [ -e '$doc/'\"\$f\" ] || { echo \"  \$f\"; exit 1; }; n=\$((n + 1)); done; [ \$n -ge 8 ]"
# the broker hooks and their examples name them as they are installed
check "the hooks and examples name only installed files" sh -c "
    names=\$(grep -ohE '[a-z][a-z.-]*-(gridtail|cron)[a-z.]*' '$dest'/usr/libexec/gridtail/* '$doc'/examples/*.jt '$doc'/examples/*.config '$cron' | sort -u)
    for n in \$names; do [ -n \"\$(find '$dest' -name \"\$n\")\" ] || { echo \"  \$n\"; exit 1; }; done"
check "the HTCondor example runs the installed hook" sh -c "
    x=\$(sed -n 's/^STARTD_CRON_GRIDTAIL_EXECUTABLE = //p' '$doc/examples/htcondor-gridtail.config'); [ -x '$dest'\"\$x\" ]"

echo "# mine" >> "$conf"
check "make install again" status_is 0 inst install
check "the operator's config is kept" grep -q "^# mine" "$conf"
check "the shipped one beside it" [ -s "$dest/etc/gridtail/gridtail.conf.dist" ]
check "the installed config is valid" status_is 0 "$dest/usr/bin/gridtail" --config "$conf" config
check "make uninstall" status_is 0 inst uninstall
check "uninstall keeps the config" [ -s "$conf" ]
check "uninstall removes the binary, docs, unit, sysusers and tmpfiles" sh -c "[ ! -e '$dest/usr/bin/gridtail' ] && [ ! -e '$doc' ] && [ ! -e '$unit' ] && [ ! -e '$sysusers' ] && [ ! -e '$tmpfiles' ]"

# Every command refuses the options it does not use (exit 1, the option
# named), and accepts those its --help lists; no --help has a stray '%%'
commands="init ingest pairs fit estimate rank place backtest serve token refit synth sites export prune emax formats config copy-store loggps neighbor simulate extrapolate"
check "no command's --help prints '%%'" sh -c "
    for c in $commands 'plot' 'plot emax' 'loggps cost' 'loggps fit'; do
        $GT \$c --help > h.txt 2>&1 || { echo \"  \$c: exit \$?\"; exit 1; }
        grep -q '%%' h.txt && { echo \"  \$c\"; exit 1; }
    done; exit 0"
refused() {   # refused CMD... -- OPTION...: each OPTION alone is a usage error naming it
    cmd=
    while [ "$1" != -- ]; do cmd="$cmd $1"; shift; done
    shift
    for opt in "$@"; do
        $GT --db r.db $cmd $opt 1 > /dev/null 2> r.err
        rc=$?
        [ $rc = 1 ] && grep -q -- "${opt%%=*}" r.err || { echo "  $cmd $opt: exit $rc: $(head -n 1 r.err)"; return 1; }
    done
}
$GT --db r.db init >/dev/null
check "refit refuses the advisor's options it does not use (--format --iterations --bytes ...)" \
    refused refit -- --format --iterations --bytes --compute --quantile --at --root --sites --pool --top --symmetric --objective --loss --skip-missing
check "estimate refuses rank's and place's options" refused estimate -- --candidates --top --pool --pool-file --size --exact-limit --threads
check "rank refuses estimate's and place's" refused rank -- --root --sites --pool --pool-file --size --exact-limit
check "place refuses estimate's and rank's" refused place -- --sites --candidates
check "plot emax refuses what a plot does not show" refused plot emax -- --json --format --top --size --quantile
plot_refusals() {
    refused plot ccdf -- --from --to --bins --log --metric --samples --place-json --highlight --by-name &&
        refused plot series -- --at --metric --samples --place-json --highlight --by-name &&
        refused plot matrix -- --src --dst --from --to --bins --log &&
        refused plot backtest -- --src --dst --window --at --metric
}
check "plot ccdf, series, matrix and backtest refuse each other's options" plot_refusals
ingest_refusals() {
    refused ingest csv -- --sites --site-prefix --start --interval --slice --unit --zero-is-missing \
        --count --probe-timeout --port &&
        refused ingest matrix -- --count --probe-timeout --port &&
        refused ingest probe -- --sites --unit --zero-is-missing --start
}
check "ingest refuses the matrix and probe options for other formats" ingest_refusals

# cron: a clean --help, counts in the log
check "gridtail-cron --help" status_is 0 sh "$GT_ROOT/scripts/gridtail-cron" --help
check "--help is the header only" sh -c "! grep -q 'set -u' out.txt && grep -q '^usage: gridtail-cron' out.txt"
DB=c.db
$GT --db $DB init >/dev/null
$GT synth --count 3 --samples 30 --start 2026-11-01 -o c.csv
export GRIDTAIL="$GT_BIN" GRIDTAIL_DB=$DB
check "cron run" status_is 0 sh "$GT_ROOT/scripts/gridtail-cron" --lock c.lock --log c.log -- amp-csv c.csv
check "the log says what the run stored" grep -q "c.csv: read 180, stored 180, duplicates 0, rejected 0" c.log
unset GRIDTAIL GRIDTAIL_DB

# prune hands the space back, and says how much
DB=p.db
$GT --db $DB init >/dev/null
$GT synth --count 10 --span 2d --start 2026-11-01 -o p.csv
$GT --db $DB ingest --quiet amp-csv p.csv
check "prune" status_is 0 $GT --db $DB prune --keep-days 1 --now 2026-11-03T00:00:00Z
check "it reports the sizes" grep -q "database .* MiB -> .* MiB (.* MiB given back)" out.txt
check "the file shrank by more than a third" sh -c "set -- \$(sed -n 's/^database \\([0-9.]*\\) MiB -> \\([0-9.]*\\) MiB.*/\\1 \\2/p' out.txt); awk -v a=\$1 -v b=\$2 'BEGIN { exit !(b < a * 0.67) }'"
check "the file on disk is that small" [ "$(stat -c %s $DB)" -lt 4000000 ]
