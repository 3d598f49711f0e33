# tier: slow
# gridtail synth: reproducible output that the ingest formats read back,
# the sites for `sites --import`, bounded options and clear errors.
. "$GT_ROOT/tests/cli/lib.inc"
plan 31
DB=$(store s)
$GT --db "$DB" init >/dev/null
check "synth --help" status_is 0 $GT synth --help
check "help names every model option" grep -q -- "--outage-max" out.txt
check "two runs with one seed are identical" sh -c "$GT synth --count 4 --samples 30 --start 2026-11-01 > a.csv && $GT synth --count 4 --samples 30 --start 2026-11-01 > b.csv && cmp -s a.csv b.csv"
check "another seed differs" sh -c "$GT synth --count 4 --samples 30 --start 2026-11-01 --seed 9 > c.csv && ! cmp -s a.csv c.csv"
check "header + 4 x 3 pairs x 30 samples" [ "$(wc -l < a.csv)" = 361 ]
check "amp-csv ingests with nothing rejected" status_is 0 $GT --db "$DB" ingest amp-csv a.csv
check "all 360 stored" [ "$(sql 'SELECT count(*) FROM samples')" = 360 ]
check "site names from the preset" [ "$(sql "SELECT name FROM sites ORDER BY name" | paste -sd, -)" = "BNL,CERN,FNAL,SLAC" ]
check "csv format via -o" status_is 0 $GT synth --count 3 --samples 10 --start 2026-11-02 --format csv -o d.csv
check "-o file is readable by others (umask, not 0600)" [ -n "$(find d.csv -perm -0044)" ]
check "no temp file left" [ "$(ls | grep -c tmp)" = 0 ]
check "csv ingests" status_is 0 $GT --db "$DB" ingest csv d.csv
check "the csv's 60 samples stored" [ "$(sql "SELECT count(*) FROM samples WHERE ts >= 1793577600")" = 60 ]
check "--list-sites" status_is 0 $GT synth --list-sites
check "sites --import takes the list" sh -c "$GT synth --list-sites > sites.csv && $GT --db '$DB' sites --import sites.csv >/dev/null"
check "coordinates stored" [ "$(sql "SELECT latitude FROM sites WHERE name = 'CERN'")" = 46.233 ]
printf 'name,latitude,longitude\nx,1,2\ny,1,200\n' > bad.csv
check "bad sites file: exit 2" status_is 2 $GT synth --sites bad.csv --samples 2
check "names file:line: field" grep -q "bad.csv:3: longitude" err.txt
check "missing sites file: exit 3" status_is 3 $GT synth --sites nope.csv
printf 'name,latitude,longitude\nx,1,2\ny,3,4\n' > two.csv
check "own sites file" status_is 0 $GT synth --sites two.csv --samples 5 --start 2026-11-01
check "2 pairs x 5 samples" [ "$(grep -c '^1793' out.txt)" = 10 ]
check "unknown format: usage" status_is 1 $GT synth --format xml
check "span and samples together: usage" status_is 1 $GT synth --span 1d --samples 5
check "alpha-max below alpha-min: usage, named" status_is 1 $GT synth --alpha-min 3 --alpha-max 2
check "names the option" grep -q -- "--alpha-max" err.txt
check "too many rows: usage" status_is 1 $GT synth --samples 10000000
check "bad duration: usage" status_is 1 $GT synth --span 3x
check "count above the list: usage" status_is 1 $GT synth --sites two.csv --count 3
check "unwritable output: exit 3" status_is 3 $GT synth --samples 2 -o /nonexistent/dir/x.csv
check "progress line when forced" sh -c "GRIDTAIL_PROGRESS=1 $GT synth --count 3 --span 1d -o p.csv 2>&1 >/dev/null | grep -q 'synth:'"
check "no progress in a pipe" sh -c "[ -z \"\$($GT synth --count 3 --span 1d -o p.csv 2>&1)\" ]"
