# tier: slow
# Every documented exit status, for the same failure in every command
# (README: 0 ok, 1 usage error, 2 bad input, 3 I/O or database error).
# One row a case: STATUS | what | command line (run by sh -c; $GT, $DB).
. "$GT_ROOT/tests/cli/lib.inc"
plan 54
DB=x.db
$GT --db $DB init >/dev/null
printf 'ts,src,dst,rtt_ms\n1795305600,a,b,10\n1795305660,a,b,11\n1795305720,a,b,12\n1795305600,a,c,20\n1795305660,a,c,21\n1795305720,a,c,22\n' > ok.csv
$GT --db $DB ingest csv ok.csv >/dev/null
printf 'ts,src,dst,rtt_ms\n1795305780,a,b,x\n' > bad.csv
printf 'not,a,csv,header\n' > notcsv.csv
printf '[database]\nnot_a_key = 1\n' > bad.conf
export GT DB
while IFS='|' read -r want what cmd; do
    [ -n "$want" ] || continue
    case $want in \#*) continue ;; esac
    check "$(echo $want) $(echo "$what" | sed 's/^ *//;s/ *$//')" status_is $want sh -c "$cmd"
done <<'TABLE'
0 | ok: pairs                              | $GT --db $DB pairs
0 | ok: estimate                           | $GT --db $DB estimate --root a --sites b,c --window 3
# 1: usage, the same for every command
1 | usage: unknown command                 | $GT frobnicate
1 | usage: unknown global option           | $GT --frob pairs
1 | usage: ingest bad option               | $GT --db $DB ingest --frob csv ok.csv
1 | usage: ingest unknown format           | $GT --db $DB ingest xml ok.csv
1 | usage: ingest csv of files with --src    | $GT --db $DB ingest --src a csv ok.csv
1 | usage: ingest csv of files with --dst    | $GT --db $DB ingest --dst b csv ok.csv
1 | usage: ingest files with --timeout       | $GT --db $DB ingest --timeout 5 csv ok.csv
1 | usage: ingest files with --retries       | $GT --db $DB ingest --retries 2 csv ok.csv
1 | usage: pairs bad option                | $GT --db $DB pairs --frob
1 | usage: fit bad --window                | $GT --db $DB fit --src a --dst b --window x
1 | usage: estimate without --root         | $GT --db $DB estimate --sites b
1 | usage: rank without candidates         | $GT --db $DB rank
1 | usage: place bad --size                | $GT --db $DB place --pool a,b,c --size 0
1 | usage: emax without partners           | $GT emax
1 | usage: synth bad option                | $GT synth --frob
1 | usage: serve bad --listen              | $GT --db $DB serve --listen nowhere:port
1 | usage: prune bad --keep-days           | $GT --db $DB prune --keep-days -1
1 | usage: simulate bad topology           | $GT simulate --topology frob:3
1 | usage: extrapolate without --at        | $GT extrapolate 1:2 2:3 3:4
# 2: bad input: records rejected, input refused, unknown name
2 | input: rejected record                 | $GT --db $DB ingest csv bad.csv
2 | input: refused input (not the format)  | $GT --db $DB ingest amp-csv notcsv.csv
2 | input: unknown root site               | $GT --db $DB estimate --root zz --sites b --window 3
2 | input: unknown partner site            | $GT --db $DB estimate --root a --sites zz --window 3
2 | input: unknown pair in fit             | $GT --db $DB fit --src a --dst zz
2 | input: bad emax spec                   | $GT emax pareto:x
2 | input: a bad config file               | $GT --config bad.conf pairs
# 3: I/O or database: a missing file is 3 in every command
3 | io: missing input, ingest              | $GT --db $DB ingest csv nope.csv
3 | io: missing input, fit FILE            | $GT fit nope.txt
3 | io: missing candidates, rank           | $GT --db $DB rank --candidates nope.txt
3 | io: missing --compute-from, estimate   | $GT --db $DB estimate --root a --sites b --compute-from nope.txt
3 | io: missing --pool-file, place         | $GT --db $DB place --pool-file nope.txt --size 1
3 | io: missing --input, extrapolate       | $GT extrapolate --at 8 --input nope.txt
3 | io: missing --import, sites            | $GT --db $DB sites --import nope.csv
3 | io: missing --sites, synth             | $GT synth --sites nope.csv
3 | io: missing targets, ingest probe      | $GT --db $DB ingest probe --src a nope.txt
3 | io: missing config file                | $GT --config nope.conf pairs
3 | io: missing database                   | $GT --db nope.db pairs
3 | io: unwritable output, export          | $GT --db $DB export -o /nonexistent/dir/x.csv
TABLE

# An option that takes one of a few words names them all when given
# another, in every command (cli.c gt_opt_choice); the right word passes.
while IFS='|' read -r words cmd; do
    words=$(echo "$words" | sed 's/^ *//;s/ *$//')
    check "usage: '$cmd' names $words" \
        sh -c "$cmd 2>&1 >/dev/null | grep -q \"'bogus' is not $words\$\""
done <<'TABLE'
censor or paper                          | $GT --db $DB backtest --cut bogus
quantiles or ks                          | $GT --db $DB backtest --method auto --verdict bogus
censor or paper                          | $GT emax --cut bogus 10:1
auto, pareto or normal                   | $GT --db $DB fit --src a --dst b --model bogus
model or ignore                          | $GT --db $DB estimate --root a --sites b --loss bogus
empirical or none                        | $GT --db $DB estimate --root a --sites b --fallback bogus
s or ms                                  | $GT --db $DB ingest --unit bogus matrix ok.csv
keep or replace                          | $GT --db $DB ingest --on-conflict bogus csv ok.csv
blackbox or smokeping                    | $GT --db $DB ingest --exporter bogus prometheus http://127.0.0.1:1
name, samples, loss, min, median or p99  | $GT --db $DB pairs --sort bogus
table, json, gridway, classad or tsv     | $GT --db $DB estimate --root a --sites b --format bogus
networktopology or rucio                 | $GT --db $DB export-topology --format bogus
ms or us                                 | $GT --db $DB export-topology --format networktopology --unit bogus
TABLE
check "the right word passes: pairs --sort p99, fit --model normal, emax --cut paper" \
    sh -c "$GT --db $DB pairs --sort p99 >/dev/null && $GT --db $DB fit --src a --dst b --model normal >/dev/null && $GT emax --cut paper --window 100 pareto:1,1.5 >/dev/null"
