# gridtail's own probes: `ingest probe` against a port that answers (the
# API server itself) and one that refuses, stored as samples from --src.
. "$GT_ROOT/tests/cli/lib.inc"
plan 14

DB=p.db
$GT --db $DB init >/dev/null
serve_start $DB --quiet
printf '# probes from here\nweb 127.0.0.1:%s\nnobody 127.0.0.1:1\nbroken\n' "$PORT" > targets.txt

check "ingest probe (status 2: a line was rejected)" status_is 2 $GT --db $DB ingest --json probe --src here --count 3 --probe-timeout 1000 targets.txt
check "6 samples stored (2 targets x 3 rounds)" grep -q '"stored": 6' out.txt
check "the bad line rejected" grep -q '"rejected": 1' out.txt
check "named by file and line" grep -q 'targets.txt:4: expected' err.txt
check "export" status_is 0 $GT --db $DB export --src here
check "every probe answered (connected or refused)" test "$(awk -F, 'NR > 1 && $5 != "" && $5 >= 0' out.txt | wc -l)" -eq 6
check "seq 0, 1, 2 per pair" test "$(awk -F, 'NR > 1 && $3 == "web" { print $4 }' out.txt | tr '\n' ' ')" = "0 1 2 "
# timed in ns, an RTT is a whole number of them (two clock readings in ms
# subtracted gave 0.024746999843046069)
check "each RTT a whole number of ns" python3 -c "import csv, sys; r = [float(x['rtt_ms']) for x in csv.DictReader(open('out.txt')) if x['rtt_ms']]; sys.exit(not r or any(round(v * 1e6) / 1e6 != v for v in r))"
check "the pairs are listed" status_is 0 $GT --db $DB pairs --json
check "here -> web" grep -q '"dst": "web"' out.txt
check "--src is required" status_is 1 $GT --db $DB ingest probe targets.txt
printf 'ts,src,dst,rtt_ms\n1,a,b,2\n' > not-targets.csv
check "a file that is not targets is refused" status_is 2 $GT --db $DB ingest probe --src here not-targets.csv
check "probe is a listed format" status_is 0 $GT formats
check "listed" grep -q '^probe' out.txt
kill -TERM $pid
wait $pid
