# Paths that used to lose or hide data (issue 11, part 3): a single
# matrix file stamped as slice 1 whatever its name, a re-ingested key with
# another RTT dropped as a "duplicate", a run that stores nothing new
# from a new input without saying why.
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 34 33
DB=$(store d)
gt() { $GT --db "$DB" "$@"; }
gt init >/dev/null
printf '0\t0.5\n0.1\t0\n' > SeattleData_1
printf '0\t0.6\n0.2\t0\n' > SeattleData_2
xz -k SeattleData_2
M="--unit s --start 2026-11-01T00:00:00Z --interval 60"
check "matrix: slice 1 file" status_is 0 gt ingest matrix $M SeattleData_1
check "matrix: SeattleData_2.xz is slice 2, not 1" status_is 0 gt ingest matrix $M SeattleData_2.xz
check "both slices stored (4 samples)" [ "$(sql 'SELECT count(*) FROM samples')" = 4 ]
check "slice 2 stamped start + 60 s" [ "$(sql 'SELECT count(*) FROM samples WHERE ts = 1793491260')" = 2 ]
check "the same file uncompressed: duplicates only" status_is 0 gt ingest matrix $M SeattleData_2
check "counted as duplicates" grep -q "stored 0, duplicates 2" out.txt
cp SeattleData_2 copy_2
check "--slice 1 on a copy of slice 2: conflicts, exit 2" status_is 2 gt ingest matrix $M --slice 1 copy_2
check "conflict named file:line with both values" grep -q "copy_2:1: rtt: 600 ms conflicts with the stored value 500 ms; kept the stored value" err.txt
check "the summary counts conflicts apart" grep -q "duplicates 0, rejected 0, conflicts 2 (stored values kept)" out.txt
check "nothing new from a new input is explained" grep -q "nothing new stored: this input was never ingested before" err.txt
check "the stored values were kept" [ "$(sql 'SELECT rtt_ms FROM samples WHERE ts = 1793491200 ORDER BY pair' | joined %.1f)" = "500.0,100.0" ]
cp SeattleData_1 plain
check "a name without a number: slice 1, said in a note" status_is 0 gt ingest matrix $M plain
check "the note says to give --slice" grep -q "no number ends the file name, so t = 1 (give --slice N)" err.txt
mkdir two && cp SeattleData_1 SeattleData_2 two/
check "--slice with a directory of slices: usage" status_is 1 gt ingest matrix $M --slice 3 two
check "conflicts are logged" [ "$(sql 'SELECT conflicts FROM ingest_log ORDER BY id DESC LIMIT 1 OFFSET 2')" = 2 ]

printf 'ts,src,dst,rtt_ms\n100,a,b,1\n200,a,b,2\n300,a,b,\n' > a.csv
printf 'ts,src,dst,rtt_ms\n100,a,b,1\n200,a,b,3\n300,a,b,4\n' > b.csv
check "csv: first load" status_is 0 gt ingest csv a.csv
check "csv: two conflicts kept (a value and a lost probe), exit 2" status_is 2 gt ingest csv b.csv
check "line 3 conflicts" grep -q "b.csv:3: rtt: 3 ms conflicts with the stored value 2 ms" err.txt
check "line 4: lost vs a value" grep -q "b.csv:4: rtt: 4 ms conflicts with the stored value lost" err.txt
check "--on-conflict replace: exit 0" status_is 0 gt ingest --on-conflict replace --json csv b.csv
check "JSON counts conflicts and replaced" sh -c 'grep -q "\"conflicts\": 2" out.txt && grep -q "\"replaced\": 2" out.txt'
check "the new values stored" [ "$(sql "SELECT rtt_ms FROM samples s JOIN pairs p ON p.id = s.pair JOIN sites x ON x.id = p.src WHERE x.name = 'a' ORDER BY ts" | joined %.1f)" = "1.0,3.0,4.0" ]
check "a rerun is duplicates only" status_is 0 gt ingest csv b.csv
check "rerun: stored 0, duplicates 3" grep -q "stored 0, duplicates 3, rejected 0$" out.txt
if first_pass; then
    check "bad --on-conflict: usage" status_is 1 gt ingest --on-conflict merge csv b.csv
fi

# plausibility: per record, with the reason
printf '0\t1e307\t0\n5\t0\t70000\n1\t2\t0\n' > m_2
check "matrix --unit s: +Inf, 0 and 70000 s refused per record" status_is 2 gt ingest matrix --unit s m_2
check "+Inf from the unit conversion named" grep -q "m_2:1: rtt: inf ms: not a finite number" err.txt
check "above 60 s named" grep -q "m_2:2: rtt: 7e+07 ms: above 60 s" err.txt
check "0 between two sites named" grep -q "m_2:1: rtt: 0 ms: 0 ms between two sites" err.txt
check "the three good values stored" grep -q "read 6, stored 3, duplicates 0, rejected 3" out.txt
printf '0\t0.05\t0.06\n0.04\t0\t0.07\n0.05\t0.08\t0\n' > m_1
check "seconds read as ms: stored, with a warning" status_is 0 gt ingest matrix m_1
check "the warning says --unit s" grep -q "6 of 6 values are below 1 but read as ms: if they are seconds, ingest again with --unit s" err.txt
printf 'ts,src,dst,rtt_ms\n1,a,b,0\n2,a,a,0\n3,a,b,60001\n' > z.csv
check "csv: 0 ms and 60001 ms refused, 0 ms to itself kept" status_is 2 gt ingest csv z.csv
check "csv reasons by line" sh -c 'grep -q "z.csv:2: rtt: 0 ms" err.txt && grep -q "z.csv:4: rtt: 60001 ms: above 60 s" err.txt'
