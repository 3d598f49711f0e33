# The README's Quick tour runs as written, from the top of a clone, on
# the examples in docs/examples/: every line exits 0.
. "$GT_ROOT/tests/cli/lib.inc"
plan 23
ln -s "$GT_ROOT/docs" docs
ln -s "$GT_BIN" gridtail
# the tour's command lines, continuation lines joined
sed -n '/^## Quick tour/,/^## /p' "$GT_ROOT/README.md" |
    sed -n 's/^    //p' | sed -e ':a' -e '/\\$/N; s/\\\n *//; ta' > tour.txt
check "the tour has its lines" [ "$(grep -c '^\./gridtail' tour.txt)" -ge 15 ]
server=
while IFS= read -r line; do
    line=${line%%#*}
    case $line in
    *"serve "*"&"*)
        eval "${line%&} --port-file port.txt >serve.log 2>&1 &"
        server=$!
        for i in $(seq 50); do [ -s port.txt ] && break; sleep 0.1; done
        check "tour: serve is listening" [ -s port.txt ] ;;
    "kill %1"*)
        kill "$server" && wait "$server"
        check "tour: serve stops cleanly" [ $? = 0 ] ;;
    *)
        check "tour: $line" status_is 0 sh -c "$line" ;;
    esac
done < tour.txt
check "export wrote the pair" [ "$(wc -l < cern-fnal.csv)" -gt 100 ]
check "the API answered an E[max]" grep -q '"e_max"' out.txt
check "synth wrote a day" [ "$(wc -l < day.amp.csv)" = $((90 * 1440 + 1)) ]
