# Every format through the CLI from files: matrix from a directory and an
# archive (with --sites, numbered slices, stated assumptions), amp-json,
# esmond, csv with --since, site attribute import.
. "$GT_ROOT/tests/cli/lib.inc"
plan 26
DB=$(store f)
gt() { $GT --db "$DB" "$@"; }
gt init >/dev/null

mkdir -p slices
printf '0\t0.5\t0.25\n0.1\t0\t0\n0.3\t0.4\t0\n' > slices/Data_1
printf '0\t0.6\t0.35\n0.2\t0\t0.1\n0.3\t0.5\t0\n' > slices/Data_2
printf 'Tokyo\nOsaka, JP\nSeattle\n' > sites.txt
check "matrix from a directory" status_is 0 gt ingest matrix --sites sites.txt --unit s \
    --zero-is-missing --start 2026-11-22T00:00:00Z --interval 300 slices
check "matrix summary: 12 read, 12 stored, 1 lost" grep -q "read 12, stored 12, duplicates 0, rejected 0, lost 1" out.txt
check "matrix states its time assumption" grep -q "2026-11-22T00:00:00Z + (t-1) x 300 s" err.txt
check "matrix states its unit" grep -q "x 1000 = ms" err.txt
check "slice 2 stamped start + 300 s" [ "$(sql "SELECT count(*) FROM samples WHERE ts = 1795305900")" = 6 ]
check "value scaled to ms" [ "$(sql "SELECT rtt_ms FROM samples s JOIN pairs p ON p.id = s.pair JOIN sites a ON a.id = p.src JOIN sites b ON b.id = p.dst WHERE a.name = 'Tokyo' AND b.name = 'Osaka, JP' AND ts = 1795305600" | joined %.1f)" = 500.0 ]
tar -cJf slices.tar.xz slices
check "matrix archive rerun is all duplicates" status_is 0 gt ingest matrix --sites sites.txt --unit s \
    --zero-is-missing --start 2026-11-22T00:00:00Z --interval 300 slices.tar.xz
check "archive: stored 0, duplicates 12" grep -q "stored 0, duplicates 12" out.txt
printf '0\t1\n1\t0\n' > small.txt
check "matrix without --start says it assumed a default" status_is 0 gt ingest matrix small.txt
check "default start is named" grep -q "default start, no --start given" err.txt
check "default names s001.." [ "$(sql "SELECT count(*) FROM sites WHERE name IN ('s001', 's002')")" = 2 ]
printf '0\t1\t2\n1\t0\n' > ragged.txt
check "ragged matrix row rejected (status 2)" status_is 2 gt ingest matrix ragged.txt
check "ragged reject names file:line" grep -q "ragged.txt:2: expected 3 values, found 2" err.txt

cat > amp.json <<'JSON'
[{"metadata": {"source": "amp-nz", "destination": "amp-au"},
  "data": [{"timestamp": 1795305600, "rtts": [20000, null, 21000]},
           {"timestamp": 1795305660, "rtts": ["bad"]}]}]
JSON
check "amp-json file with one bad row" status_is 2 gt ingest amp-json amp.json
check "amp-json stored 3 (1 lost)" grep -q "stored 3, duplicates 0, rejected 1, lost 1" out.txt
check "amp-json reject names the JSON path" grep -q "amp.json:\[0\].data\[1\]: rtts\[0\]" err.txt
check "amp-json µs converted to ms" [ "$(sql "SELECT max(rtt_ms) FROM samples WHERE ts = 1795305600 AND seq = 2" | joined %.1f)" = 21.0 ]

printf '[{"ts": 1795305600, "val": {"12.5": 2, "13": 1}}]\n' > es.json
check "esmond without a pair is a usage error" status_is 1 gt ingest esmond es.json
check "esmond with --src/--dst" status_is 0 gt ingest esmond --src ps-a --dst ps-b es.json
check "esmond: 3 probes stored" grep -q "stored 3" out.txt

printf 'ts,src,dst,rtt_ms\n100,a,b,1\n200,a,b,2\n300,a,b,3\n' > since.csv
check "csv with --since" status_is 0 gt ingest --since 200 csv since.csv
check "--since skipped the older row" grep -q "stored 2, duplicates 0, rejected 0, skipped 1" out.txt

printf 'name,cluster,domain,latitude,longitude\nTokyo,wide,jp,35.68,139.69\n' > attrs.csv
check "sites --import" status_is 0 gt sites --import attrs.csv --json
check "attributes stored" grep -q '"cluster": "wide"' out.txt
printf 'name,latitude\nTokyo,95\n' > badattrs.csv
check "bad latitude refused with file:line" status_is 2 gt sites --import badattrs.csv
check "attr error names line 2" grep -q "badattrs.csv:2" err.txt
