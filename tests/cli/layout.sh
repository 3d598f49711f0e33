# tier: slow
# The tree keeps its layers (docs/ARCHITECTURE.md): every #include points
# to the same room or a lower one, and the library holds no CLI code; and
# a newcomer finds a module by its name (issue 49): headers without an
# include circle, a command in the file named for it, one thread fan-out,
# every file and the rooms' graph in docs/ARCHITECTURE.md.
. "$GT_ROOT/tests/cli/lib.inc"
plan 11
cd "$GT_ROOT"
# rank of a repository path: base 0, collectors 1, db 2, estimators 3,
# advisor 4, plot 5, server 6, cli 7
rank() {
    case $1 in
    src/base/*) echo 0 ;;
    collectors/*) echo 1 ;;
    db/*) echo 2 ;;
    estimators/*) echo 3 ;;
    src/advisor/*) echo 4 ;;
    src/plot/*) echo 5 ;;
    src/server/*) echo 6 ;;
    src/cli/*) echo 7 ;;
    *) echo 99 ;;
    esac
}
bad=0
for f in src/*/*.[ch] collectors/*.[ch] db/*.[ch] db/*/*.[ch] estimators/*.[ch] estimators/*/*.[ch]; do
    from=$(rank "$f")
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        case $inc in
        */*) [ -e "src/$inc" ] && target=src/$inc || target=$inc ;;
        *) target=$(dirname "$f")/$inc ;;
        esac
        [ -e "$target" ] || { echo "  $f: $inc does not exist"; bad=1; continue; }
        to=$(rank "$target")
        [ "$to" -le "$from" ] || { echo "  $f includes $inc, a higher layer"; bad=1; }
    done
done
check "every include points to the same or a lower layer" [ $bad = 0 ]
# the store interface (db/backend.h): a database's own headers stay in its
# backend's folder
outside=$(grep -l '#include <sqlite3.h>\|#include "db/sqlite/' src/*/*.[ch] collectors/*.[ch] \
          db/*.[ch] estimators/*.[ch] estimators/*/*.[ch] 2>/dev/null)
check "only db/sqlite/ includes sqlite3.h or the SQLite backend's header" [ -z "$outside" ]
core_to_companion=$(grep -l '#include "estimators/companion/\|#include "companion/' estimators/*.[ch])
check "the latency models do not include the companion models" [ -z "$core_to_companion" ]
# the library and the server run on several threads: no libc call that
# keeps hidden shared state (lgamma's signgam, strtok's position, rand's
# seed, the static struct tm of localtime and gmtime; issue 26)
unsafe=$(grep -nE '\b(lgamma|strtok|rand|srand|localtime|gmtime|asctime|ctime|strsignal)\(' \
         src/base/*.c collectors/*.c db/*.c db/*/*.c estimators/*.c estimators/*/*.c \
         src/advisor/*.c src/plot/*.c src/server/*.c 2>/dev/null)
[ -z "$unsafe" ] || echo "$unsafe" | sed 's/^/  /'
check "no thread-unsafe libc call in the library or the server" [ -z "$unsafe" ]
lib=${GT_ROOT}/${BUILD:-build}/libgridtail.a
[ -f "$lib" ] || lib=$(dirname "$GT_BIN")/libgridtail.a
cli_objs=$(ar t "$lib" | grep -E '^(main|cli|cmd_.*)\.o$')
check "the library archive holds no CLI object" [ -z "$cli_objs" ]
# ---- the house (issue 49): a newcomer finds a module by its name
# headers include each other without a circle
hdr_edges=$(for f in src/*/*.h collectors/*.h db/*.h db/*/*.h estimators/*.h estimators/*/*.h; do
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        case $inc in
        */*) [ -e "src/$inc" ] && target=src/$inc || target=$inc ;;
        *) target=$(dirname "$f")/$inc ;;
        esac
        [ -e "$target" ] && echo "$f $target"
    done
done)
check "no circle of #includes among the headers" sh -c 'echo "$1" | tsort >/dev/null' sh "$hdr_edges"
# which object uses which: "D file symbol" and "U file symbol" lines from
# the objects the build made (the CLI is not in the library archive)
objdir=${GT_ROOT}/${BUILD:-build}/obj
syms=$(for c in src/*/*.c collectors/*.c db/*.c db/*/*.c estimators/*.c estimators/*/*.c; do
    nm -P "$objdir/${c%.c}.o" | awk -v n="${c%.c}" '$2 ~ /^[TDBRC]$/ { print "D", n, $1 } $2 == "U" { print "U", n, $1 }'
done)
# a command file uses no other command file's code: what two commands
# share lives in cli.c or a module named for it (advopts.c, advout.c)
cross=$(echo "$syms" | awk '$1 == "D" { at[$3] = $2; next }
    $1 == "U" && $2 ~ /^src\/cli\/cmd_/ && at[$3] ~ /^src\/cli\/cmd_/ && at[$3] != $2 {
        print "  " $2 ".c uses " $3 " of " at[$3] ".c" }')
[ -z "$cross" ] || echo "$cross"
check "no command file calls into another command file" [ -z "$cross" ]
# every command of cli.c's table is defined in the file named for it:
# cmd_X.c holds `gridtail X`; a family is named by its first command
# (export and export-topology in cmd_export.c; estimate, rank and place
# in cmd_estimate.c, the three questions to the advisor)
misplaced=""
for fn in $(sed -n 's/^ *{"[a-z-]*", \(cmd_[a-z_]*\),.*/\1/p' src/cli/cli.c); do
    where=$(grep -l "^int $fn(" src/cli/cmd_*.c)
    want=src/cli/$fn.c
    case $fn in cmd_rank | cmd_place) want=src/cli/cmd_estimate.c ;; cmd_export_*) want=src/cli/cmd_export.c ;; esac
    [ "$where" = "$want" ] || misplaced="$misplaced $fn:${where:-nowhere}"
done
[ -z "$misplaced" ] || echo "  $misplaced"
check "every command lives in the file named for it" [ -z "$misplaced" ]
# (the server's pool of request workers lives as long as the server: it
# is not a fan-out of jobs, and stays in src/server/)
threads=$(grep -ln 'thrd_create\|pthread_create' src/base/*.c collectors/*.c db/*.c db/*/*.c \
          estimators/*.c estimators/*/*.c src/advisor/*.c src/plot/*.c src/cli/*.c |
          grep -v '^src/advisor/parallel.c$')
[ -z "$threads" ] || echo "  $threads"
check "one thread fan-out: only src/advisor/parallel.c starts threads" [ -z "$threads" ]
# docs/ARCHITECTURE.md names every source file ...
unnamed=""
for f in src/*/*.c collectors/*.c db/*.c db/*/*.c estimators/*.c estimators/*/*.c; do
    grep -qF "\`$f\`" docs/ARCHITECTURE.md || unnamed="$unnamed $f"
done
[ -z "$unnamed" ] || echo "  not in docs/ARCHITECTURE.md:$unnamed"
check "docs/ARCHITECTURE.md names every .c file" [ -z "$unnamed" ]
# ... and draws the rooms' graph the includes have: its table between
# "<!-- rooms:" and "<!-- end rooms" lists, for each room, the rooms whose
# headers it includes
room() {
    case $1 in
    src/base/*) echo base ;; collectors/*) echo collectors ;;
    db/sqlite/*) echo db/sqlite ;; db/postgres/*) echo db/postgres ;; db/*) echo db ;;
    estimators/companion/*) echo estimators/companion ;; estimators/*) echo estimators ;;
    src/advisor/*) echo advisor ;; src/plot/*) echo plot ;; src/server/*) echo server ;;
    src/cli/*) echo cli ;; *) echo other ;;
    esac
}
code_graph=$(for f in src/*/*.[ch] collectors/*.[ch] db/*.[ch] db/*/*.[ch] estimators/*.[ch] estimators/*/*.[ch]; do
    from=$(room "$f")
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        case $inc in
        */*) [ -e "src/$inc" ] && target=src/$inc || target=$inc ;;
        *) target=$(dirname "$f")/$inc ;;
        esac
        to=$(room "$target")
        [ "$to" = "$from" ] || echo "$from $to"
    done
done | sort -u)
doc_graph=$(sed -n '/^<!-- rooms:/,/^<!-- end rooms/p' docs/ARCHITECTURE.md |
    sed -n 's/^| `\([a-z/]*\)` | \(`.*`\) |$/\1 \2/p' |
    while read -r from rest; do
        for to in $rest; do echo "$from $to"; done
    done | tr -d '`' | sort -u)
if [ "$code_graph" != "$doc_graph" ]; then
    echo "  in the code only:"; echo "$code_graph" | grep -vxF "$doc_graph" | sed 's/^/    /'
    echo "  in the doc only:"; echo "$doc_graph" | grep -vxF "$code_graph" | sed 's/^/    /'
fi
check "docs/ARCHITECTURE.md's graph of rooms is the one the includes draw" [ "$code_graph" = "$doc_graph" ]
