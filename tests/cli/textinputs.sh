# Small text inputs end on an endless input (issue 45, point 10): a site
# map, probe targets, a groups_file, a pool file, sites --import, a token
# file and the config file, given /dev/zero or a FIFO that never ends,
# each stop at once with an error naming FILE:LINE and exit 2 (before,
# each ran for ever at 100 % CPU).  The timeout only guards against a
# hang: the checks are on the status and the message, not on the time.
. "$GT_ROOT/tests/cli/lib.inc"
plan 26
DB=t.db
$GT --db $DB init >/dev/null
WRITERS=""
trap 'for p in $WRITERS; do kill "$p" 2>/dev/null; done' EXIT
# endless NAME KIND: a FIFO NAME fed for ever, from a writer in the
# background: "line", one line that never ends; "lines", short lines
endless() {
    rm -f "$1"
    mkfifo "$1"
    if [ "$2" = line ]; then
        (yes | tr -d '\n' > "$1") 2>/dev/null &
    else
        (yes CERN > "$1") 2>/dev/null &
    fi
    WRITERS="$WRITERS $!"
}
# unblock NAME: a writer that nobody read goes (its open returns, its
# write fails), without waiting for one that is gone
unblock() {
    dd if="$1" of=/dev/null iflag=nonblock count=0 2>/dev/null
    rm -f "$1"
}
# bounded NAME WANT command...: ends with exit 2 and WANT on stderr
bounded() {
    pat=$1
    shift
    status_is 2 timeout -k 5 20 "$@" && grep -q "$pat" err.txt ||
        { echo "  stderr: $(head -c 300 err.txt)"; return 1; }
}
printf '[thresholds]\ngroups_file = /dev/zero\n' > zero.conf
printf '[thresholds]\ngroups_file = gline\n' > line.conf

# each input on /dev/zero: a NUL byte is not text
check "--site-map /dev/zero: refused" bounded "/dev/zero:1: a NUL byte" $GT --db $DB ingest atlas --site-map /dev/zero /dev/null
check "probe targets /dev/zero: refused" bounded "/dev/zero:1: a NUL byte" $GT --db $DB ingest probe --src CERN --count 1 /dev/zero
check "nothing probed" grep -q "nothing stored" err.txt
check "groups_file /dev/zero: refused" bounded "/dev/zero:1: a NUL byte" $GT --config zero.conf --db $DB pairs --status
check "--pool-file /dev/zero: refused" bounded "/dev/zero:1: a NUL byte" $GT --db $DB place --pool-file /dev/zero --size 2
check "sites --import /dev/zero: refused" bounded "/dev/zero:1: a NUL byte" $GT --db $DB sites --import /dev/zero
check "--token-file /dev/zero: refused" bounded "/dev/zero:1: token: a NUL byte" $GT ingest csv --push http://127.0.0.1:9/ --token-file /dev/zero /dev/null
check "--config /dev/zero: refused" bounded "/dev/zero:1: a NUL byte" $GT --config /dev/zero --db $DB pairs

# each input on a FIFO holding one endless line
endless sline line
check "--site-map, an endless line: refused" bounded "sline:1: line longer than 1023 bytes" $GT --db $DB ingest atlas --site-map sline /dev/null
unblock sline
endless tline line
check "probe targets, an endless line: refused" bounded "tline:1: line longer than 1023 bytes" $GT --db $DB ingest probe --src CERN --count 1 tline
check "the rest of it: past the bound of a small text input" grep -q "tline:1: more than 16 MiB in all" err.txt
unblock tline
endless gline line
check "groups_file, an endless line: refused" bounded "gline:1: line longer than 4095 bytes" $GT --config line.conf --db $DB pairs --status
unblock gline
endless pline line
check "--pool-file, an endless line: refused" bounded "pline:1: line longer than 1023 bytes" $GT --db $DB place --pool-file pline --size 2
unblock pline
endless iline line
check "sites --import, an endless line: refused" bounded "iline:1: line longer than 4095 bytes" $GT --db $DB sites --import iline
unblock iline
endless kline line
check "--token-file, an endless line: refused" bounded "kline:1: token: line longer than" $GT ingest csv --push http://127.0.0.1:9/ --token-file kline /dev/null
unblock kline
endless cline line
check "--config, an endless line: refused" bounded "cline:1: line longer than 8191 bytes" $GT --config cline --db $DB pairs
unblock cline

# emax empirical:FILE (a line of 64 MiB, the file 256 MiB)
check "emax empirical:/dev/zero: refused" bounded "/dev/zero:1: a NUL byte" $GT emax empirical:/dev/zero pareto:110,2
endless eline line
check "emax empirical:, an endless line: refused" bounded "eline:1: line longer than 67108864 bytes" $GT emax empirical:eline pareto:110,2
unblock eline

# endless short lines: the bound on the whole input
endless plines lines
check "--pool-file, endless short lines: refused" bounded "plines:[0-9]*: more than 16 MiB in all" $GT --db $DB place --pool-file plines --size 2
unblock plines

# a NUL byte inside an otherwise good file is named with its line
printf 'CERN\nFNAL\nB\000NL\n' > nul.txt
check "a NUL byte on line 3: refused" bounded "nul.txt:3: a NUL byte" $GT --db $DB place --pool-file nul.txt --size 2
# a good file still reads, its last line without a newline too
printf 'name,cluster\nCERN,"c, 1"\r\n\n"FNAL",c2' > sites.csv
$GT --db $DB ingest csv /dev/stdin >/dev/null <<EOF
ts,src,dst,rtt_ms
1795305600,CERN,FNAL,10
EOF
check "sites --import a good file" status_is 0 $GT --db $DB sites --import sites.csv
check "both sites set, the quoted comma kept" sh -c "$GT --db $DB sites --json | grep -q '\"c, 1\"' && $GT --db $DB sites --json | grep -q '\"c2\"'"
printf 'name\n"CERN\n' > badq.csv
check "an unterminated quote: refused, named" bounded "badq.csv:2: unterminated quoted field" $GT --db $DB sites --import badq.csv
printf 'LOCALHOST 127.0.0.1:9\n%s\nLOCAL2 127.0.0.1:9\n' "$(awk 'BEGIN { for (i = 0; i < 2000; i++) printf "x" }')" > targets.txt
check "probe targets: a long line is rejected (exit 2)" status_is 2 timeout -k 5 20 $GT --db $DB ingest probe --src CERN --count 1 --probe-timeout 1000 targets.txt
check "its line named" grep -q "targets.txt:2: line longer than 1023 bytes" err.txt
check "the lines around it probed" sh -c "$GT --db $DB pairs | grep -q LOCAL2 && $GT --db $DB pairs | grep -q 'LOCALHOST'"
