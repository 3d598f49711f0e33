# tier: slow
# Long work shows one updating progress line on a terminal (forced here
# with GRIDTAIL_PROGRESS=1), nothing in a pipe; Ctrl-C rolls back the
# input in progress and says so (issue 11, part 4).
. "$GT_ROOT/tests/cli/lib.inc"
plan 18
DB=p.db
$GT --db $DB init >/dev/null
$GT synth --count 12 --span 1d --start 2026-11-01 -o day.csv
check "ingest in a pipe: no progress line" sh -c "$GT --db $DB ingest --quiet amp-csv day.csv 2>&1 | grep -c 'left' | grep -qx 0"
$GT --db x.db init >/dev/null
check "ingest on a 'terminal': a progress line with MiB and time left" sh -c "GRIDTAIL_PROGRESS=1 $GT --db x.db ingest --quiet amp-csv day.csv 2>&1 | tr '\r' '\n' | grep -q '^ingest day.csv: .* MiB (.*%), .* left'"
check "refit progress" sh -c "GRIDTAIL_PROGRESS=1 $GT --db $DB refit --threads 1 2>&1 | tr '\r' '\n' | grep -q '^refit: [0-9]*/132 pairs'"
check "place exact search progress" sh -c "GRIDTAIL_PROGRESS=1 $GT --db $DB place --pool CERN,FNAL,BNL,SLAC,ANL,ORNL,NERSC,NCSA,TACC,TRIUMF,DESY,KIT --size 5 --window 60 2>&1 >/dev/null | tr '\r' '\n' | grep -q '^place: exact search: [0-9]*/[0-9]* sets'"
printf 'CERN: FNAL,BNL\nFNAL: CERN,SLAC\nBNL: ANL,ORNL\n' > cands.txt
check "rank's roots calibrated: a progress line" sh -c "GRIDTAIL_PROGRESS=1 $GT --db $DB rank --candidates cands.txt --window 60 --objective p99 --calibration 100 2>&1 >/dev/null | tr '\r' '\n' | grep -q '^calibrating: [0-9]/3 roots'"
check "synth progress" sh -c "GRIDTAIL_PROGRESS=1 $GT synth --count 3 --span 2d -o x.csv 2>&1 | tr '\r' '\n' | grep -q '^synth: [0-9]*/2880 time steps'"
# Ctrl-C in the middle of a big input: rolled back, said, logged, exit 130
$GT synth --count 27 --span 12h --start 2026-11-05 -o big.csv
before=$(sqlite3 x.db 'SELECT count(*) FROM samples')
$GT --db x.db ingest amp-csv day.csv big.csv >out.txt 2>err.txt &
pid=$!
# once day.csv is committed, interrupt big.csv's ingest
for i in $(seq 200); do
    [ "$(sqlite3 x.db "SELECT count(*) FROM ingest_log WHERE input = 'day.csv' AND status = 'ok'" 2>/dev/null)" = 2 ] && break
    sleep 0.1
done
sleep 0.2
kill -INT $pid
wait $pid
rc=$?
check "interrupted ingest exits 130" [ $rc = 130 ]
check "it says what was rolled back" grep -q "interrupted: big.csv rolled back (.* records read, none stored); 1 input before it committed, 0 not read" err.txt
DB=x.db
check "nothing of big.csv stored" [ "$(sql 'SELECT count(*) FROM samples')" = "$before" ]
check "logged as interrupted" [ "$(sql "SELECT status FROM ingest_log ORDER BY id DESC LIMIT 1")" = interrupted ]
check "a rerun completes it" status_is 0 $GT --db $DB ingest --quiet amp-csv big.csv

# Ctrl-C during a place search: it stops, answers with the best so far,
# says so, and exits 130 (the search used to ignore it until the end, or
# die without an answer)
$GT synth --span 6h --seed 7 --sites-out s27.csv -o s27.amp.csv 2>/dev/null
$GT --db p.db init > /dev/null
$GT --db p.db ingest --quiet amp-csv s27.amp.csv
pool=$(tail -n +2 s27.csv | cut -d, -f1 | paste -sd, -)
# size 12: 260 M sets, most left out by their bound, still seconds
$GT --db p.db place --pool "$pool" --size 12 --exact-limit 1e12 --json > place.out 2> place.err &
pid=$!
sleep 2
stop_timed INT $pid
check "an interrupted place exits 130 ($secs s after Ctrl-C)" [ "$rc" = 130 ]
check "it answers with the best it found, incomplete, saying why" python3 -c "
import json, sys; d = json.load(open('place.out'))
sys.exit(not (d['complete'] is False and 'interrupted' in d['stopped'] and len(d['candidates'][0]['sites']) == 12))"
check "and says so on stderr" grep -q 'interrupted: the answer is the best of the sets estimated before Ctrl-C' place.err

# plot emax: a progress line over the sizes; Ctrl-C stops it like place,
# with the plot of the sizes searched before it, and status 130
check "plot emax progress" sh -c "GRIDTAIL_PROGRESS=1 $GT --db p.db plot emax --root CERN --pool $pool --sizes 1..4 -o pe.svg 2>&1 | tr '\r' '\n' | grep -q '^plot emax: [0-9.]*/4 sizes'"
$GT --db p.db plot emax --pool "$pool" --sizes 1..14 --exact-limit 1e12 -o pe.svg 2> pe.err &
pid=$!
sleep 2
stop_timed INT $pid
check "an interrupted plot emax exits 130 ($secs s after Ctrl-C)" [ "$rc" = 130 ]
check "it writes the plot of the sizes it searched" sh -c "xmllint --noout pe.svg && grep -q 'data-x=\"1\"' pe.svg && ! grep -q 'data-x=\"14\" data-y=\"[0-9]' pe.svg"
check "and says so on stderr" grep -q 'interrupted: the plot shows the sizes searched before Ctrl-C' pe.err
