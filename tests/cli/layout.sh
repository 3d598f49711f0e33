# tier: slow
# The tree keeps its layers (docs/ARCHITECTURE.md): every #include points
# to the same room or a lower one, and the library holds no CLI code.
. "$GT_ROOT/tests/cli/lib.inc"
plan 5
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
