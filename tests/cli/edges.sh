# Small defects found in review (issue 11, part 4): long lines split in
# two, emax --json with a non-finite answer, signed overflow at extreme
# times (run under make asan, UBSan stops on each), read-only stores.
. "$GT_ROOT/tests/cli/lib.inc"
plan 40
DB=e.db
$GT --db $DB init >/dev/null
long=$(awk 'BEGIN { printf "12.5"; for (i = 0; i < 300; i++) printf " "; printf "  # a comment" }')
printf '10\n%s\n11\n' "$long" > long.txt
check "fit FILE: a 300-byte line is one value, not two" status_is 0 $GT fit long.txt
check "three samples read" grep -q "window: 3 samples" out.txt
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "1"; print "" }' > huge.txt
check "fit FILE: a line over 4095 bytes is an error naming it" status_is 2 $GT fit huge.txt
check "named file:line" grep -q "huge.txt:1: line longer than 4095 bytes" err.txt
printf '1 10\n2 6\n%s\n4 3\n' "4 3$(awk 'BEGIN { for (i = 0; i < 300; i++) printf " " }')" > points.txt
check "extrapolate --input with a long line" status_is 0 $GT extrapolate --at 8 --input points.txt
check "emax --json, non-finite E[max]: exit 2" status_is 2 $GT emax --json pareto:1e300,1.0001x1000000
check "the JSON is printed, e_max null" grep -q '"e_max": null' out.txt
check "the reason on stderr" grep -q "E\[max\] is not finite" err.txt
check "prune at the extreme --now: usage, no overflow" status_is 1 $GT --db $DB prune --now -9223372036854775807 --keep-days 1000000
printf '0\t0.5\n0.1\t0\n' > slice_999999999
check "matrix slice time beyond int64: rejected, no overflow" status_is 2 $GT --db $DB ingest matrix --start 9223372036854775000 --interval 100000000 slice_999999999
check "it says out of range" grep -q "out of range" err.txt
printf 'ts,src,dst,rtt_ms\n1795305600,a,b,10\n1795305660,a,b,11\n1795305720,a,b,12\n' > r.csv
$GT --db $DB ingest csv r.csv >/dev/null
check "estimate at the far future: no overflow" status_is 0 $GT --db $DB estimate --root a --sites b --at 9223372036854775807 --window 3
check "export at the extreme times" status_is 0 $GT --db $DB export --from -9223372036854775807 --to 9223372036854775807
# samples at the far past asked about at the far future: an age beyond
# int64 (issue 26: -9223372036854775808 in JSON and gridway, "data up to
# 1969" in the table)
printf 'ts,src,dst,rtt_ms\n-9223372036854775000,c,d,20\n-9223372036854774940,c,d,21\n-9223372036854774880,c,d,22\n-9223372036854774820,c,d,23\n-9223372036854774760,c,d,24\n' > far.csv
$GT --db $DB ingest csv far.csv >/dev/null
check "estimate --json, an age beyond int64" status_is 0 $GT --db $DB estimate --root c --sites d --at 9223372036854775807 --window 5 --json
check "its data_age_s is the age, 1.8e19 s" grep -Eq '"data_age_s": 1\.8[0-9]*e\+?19,' out.txt
check "estimate --format gridway, the same age" status_is 0 $GT --db $DB estimate --root c --sites d --at 9223372036854775807 --window 5 --format gridway
check "DATA_AGE_S is not negative" grep -Eq 'DATA_AGE_S=18446744073709[0-9]{6} ' out.txt
check "estimate, the table: the newest sample's time" status_is 0 $GT --db $DB estimate --root c --sites d --at 9223372036854775807 --window 5
check "data up to the far past, not 1970" grep -q "data up to -9223372036854774760 " out.txt

# site names with control bytes (an ESC sequence reaches an operator's
# terminal through sites and pairs; issue 26): refused where names enter
printf 'ts,src,dst,rtt_ms\n1795305600,e\033[31m,f,10\n1795305660,e,f,11\n' > esc.csv
check "ingest: a name with ESC is rejected (status 2), the good record stored" status_is 2 $GT --db $DB ingest csv esc.csv
check "named with its reason, the name not echoed" sh -c "grep -q 'esc.csv:2: src: site name holds a control character' err.txt && ! grep -q \"\$(printf '\\033')\" err.txt"
check "estimate --sites with a control byte: usage" status_is 1 $GT --db $DB estimate --root e --sites "$(printf 'f\007')"
check "it says why" grep -q "without control characters" err.txt
# C1 controls and bidirectional overrides (issue 45, point 13): U+0085
# breaks a line, U+202E shows the rest of a name backwards
printf 'ts,src,dst,rtt_ms\n1795305600,g\302\205h,f,10\n1795305660,e,f\342\200\256gpj.exe,11\n1795305720,e,f,12\n' > c1.csv
check "ingest: names with U+0085 and U+202E are rejected (status 2)" status_is 2 $GT --db $DB ingest csv c1.csv
check "U+0085 named as a C1 control" grep -q "c1.csv:2: src: site name holds a control character (C0, DEL or C1)" err.txt
check "U+202E named as a bidirectional control" grep -q "c1.csv:3: dst: site name holds a character that reorders or breaks the text (a bidirectional control" err.txt
check "neither name stored, the good record is" sh -c "$GT --db $DB sites > sites.txt && grep -q '^e ' sites.txt && [ \$(grep -c '^[gf]' sites.txt) = 1 ]"
check "estimate --sites with U+202E: usage" status_is 1 $GT --db $DB estimate --root e --sites "$(printf 'f\342\200\256x')"
check "it says why" grep -q "without control characters" err.txt
# a store this user cannot write: read commands still answer
if id nobody >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    mkdir ro && cp $DB ro/ && chmod 755 . ro && chmod 644 ro/$DB
    as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
    check "pairs on a read-only store" status_is 0 as_nobody $GT_BIN --db ro/$DB pairs
    check "it lists the pair" grep -q "^a  *b " out.txt
    check "estimate on a read-only store" status_is 0 as_nobody $GT_BIN --db ro/$DB estimate --root a --sites b --window 3
    check "export on a read-only store" status_is 0 as_nobody $GT_BIN --db ro/$DB export
    check "nothing was written beside it" [ "$(ls ro)" = "$DB" ]
    check "ingest on a read-only store fails (exit 3)" status_is 3 as_nobody $GT_BIN --db ro/$DB ingest csv r.csv
else
    skip "the read-only store checks" "they need root, the nobody user and setpriv" 6
fi

# counts and ages are JSON integers; tables show '-' where there is no number
printf 'ts,src,dst,rtt_ms\n1795305600,a,z,\n1795305660,a,z,\n' > lost.csv
$GT --db $DB ingest csv lost.csv >/dev/null
check "pairs table: an all-lost pair" status_is 0 $GT --db $DB pairs
check "shows '-' instead of nan" sh -c "grep -q '^a  *z .* -  *-  *-$' out.txt && ! grep -qi nan out.txt"
check "place --json" status_is 0 $GT --db $DB place --pool a,b --size 1 --root a --window 3 --at 2026-11-22T20:00:00Z --json
check "evaluated is an integer" grep -q '"evaluated": [0-9]*,' out.txt
check "data_age_s is an integer" grep -q '"data_age_s": [0-9]*,' out.txt
