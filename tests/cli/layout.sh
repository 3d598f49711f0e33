# tier: slow
# The tree keeps its layers (docs/ARCHITECTURE.md): every #include points
# to the same room or a lower one, and the library holds no CLI code; and
# a newcomer finds a module by its name (issue 49): headers without an
# include circle, a command in the file named for it, one thread fan-out,
# every file and the rooms' graph in docs/ARCHITECTURE.md.
. "$GT_ROOT/tests/cli/lib.inc"
plan 11
cd "$GT_ROOT"
sources="src/*/*.[ch] collectors/*.[ch] db/*.[ch] db/*/*.[ch] estimators/*.[ch] estimators/*/*.[ch]"
# every quoted #include as "FILE TARGET", TARGET the repository path it
# names (by its path from the layer root, or beside FILE), or "FILE -INC"
# when no such file exists: one pass over the tree (a shell loop per
# include took 40 s of CPU)
# shellcheck disable=SC2086
includes=$(grep -H '^#include "' $sources | sed 's/:#include "\([^"]*\)".*/ \1/' |
    while read -r f inc; do
        case $inc in
        */*) if [ -e "src/$inc" ]; then echo "$f src/$inc"; elif [ -e "$inc" ]; then echo "$f $inc"; else echo "$f -$inc"; fi ;;
        *) if [ -e "${f%/*}/$inc" ]; then echo "$f ${f%/*}/$inc"; else echo "$f -$inc"; fi ;;
        esac
    done)
# the room of a repository path, and its rank: base 0, collectors 1, db
# 2, estimators 3, advisor 4, plot 5, server 6, cli 7
rooms_awk='function room(p) {
    if (p ~ /^src\/base\//) return "base"; if (p ~ /^collectors\//) return "collectors"
    if (p ~ /^db\/sqlite\//) return "db/sqlite"; if (p ~ /^db\/postgres\//) return "db/postgres"
    if (p ~ /^db\//) return "db"; if (p ~ /^estimators\/companion\//) return "estimators/companion"
    if (p ~ /^estimators\//) return "estimators"; if (p ~ /^src\/advisor\//) return "advisor"
    if (p ~ /^src\/plot\//) return "plot"; if (p ~ /^src\/server\//) return "server"
    if (p ~ /^src\/cli\//) return "cli"; return "other" }
function rank(p,  r) {
    r = room(p); sub(/\/.*/, "", r)
    if (r == "base") return 0; if (r == "collectors") return 1; if (r == "db") return 2
    if (r == "estimators") return 3; if (r == "advisor") return 4; if (r == "plot") return 5
    if (r == "server") return 6; if (r == "cli") return 7; return 99 }'
wrong=$(echo "$includes" | awk "$rooms_awk"'
    $2 ~ /^-/ { print "  " $1 ": " substr($2, 2) " does not exist"; next }
    rank($2) > rank($1) { print "  " $1 " includes " $2 ", a higher layer" }')
[ -z "$wrong" ] || echo "$wrong"
bad=0
[ -z "$wrong" ] || bad=1
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
hdr_edges=$(echo "$includes" | awk '$1 ~ /\.h$/ && $2 ~ /\.h$/')
check "no circle of #includes among the headers" sh -c 'echo "$1" | tsort >/dev/null' sh "$hdr_edges"
# which object uses which: "D file symbol" and "U file symbol" lines from
# the objects the build made (the CLI is not in the library archive)
objdir=${GT_ROOT}/${BUILD:-build}/obj
# shellcheck disable=SC2046
syms=$(nm -P -A $(ls $sources | sed -n "s|^\(.*\)\.c\$|$objdir/\1.o|p") |
    awk -v o="$objdir/" '{ n = $1; sub(/\.o:$/, "", n); n = substr(n, length(o) + 1) }
        $3 ~ /^[TDBRC]$/ { print "D", n, $2 } $3 == "U" { print "U", n, $2 }')
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
# shellcheck disable=SC2086
unnamed=$(ls $sources | grep '\.c$' | awk 'NR == FNR { doc = doc $0 "\n"; next }
    index(doc, "`" $0 "`") == 0 { printf " %s", $0 }' docs/ARCHITECTURE.md -)
[ -z "$unnamed" ] || echo "  not in docs/ARCHITECTURE.md:$unnamed"
check "docs/ARCHITECTURE.md names every .c file" [ -z "$unnamed" ]
# ... and draws the rooms' graph the includes have: its table between
# "<!-- rooms:" and "<!-- end rooms" lists, for each room, the rooms whose
# headers it includes
code_graph=$(echo "$includes" | awk "$rooms_awk"'
    $2 !~ /^-/ && room($1) != room($2) { print room($1), room($2) }' | sort -u)
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
