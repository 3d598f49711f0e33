# The chi-square fit index (METHOD.md 1.2) against an independent
# 60-digit computation (tests/ref/chi2_ref.py, mpmath) on windows whose
# upper classes hold 0 or 1 samples: both models' lambda-hat squared must
# agree to 1e-9 relative (issue 12, part 1).
. "$GT_ROOT/tests/cli/lib.inc"
plan 23
if ! python3 -c 'import mpmath' 2>/dev/null; then
    echo "not ok - python3-mpmath is missing (scripts/install-deps.sh installs it)"
    exit 0
fi
# windows: a normal bulk with one far outlier; the issue's 105 x 20 ms +
# 15 x 390-500 ms; a Pareto tail; a short window; synthetic WAN pairs
awk 'BEGIN { srand(3); for (i = 0; i < 119; i++) printf "%.6f\n", 50 + 2 * sqrt(-2 * log(rand())) * cos(6.2831853 * rand()); print "80" }' > w1.txt
awk 'BEGIN { srand(5); for (i = 0; i < 105; i++) printf "%.3f\n", 20 + rand() * 0.4; for (i = 0; i < 15; i++) printf "%.3f\n", 390 + rand() * 110 }' > w2.txt
awk 'BEGIN { srand(7); for (i = 0; i < 512; i++) printf "%.6f\n", 41.7 * rand() ^ (-1 / 16.9) }' > w3.txt
awk 'BEGIN { srand(11); for (i = 0; i < 12; i++) printf "%.3f\n", 100 + rand() * 3; print "160" }' > w4.txt
awk 'BEGIN { srand(13); for (i = 0; i < 255; i++) printf "%.4f\n", 12 + rand(); print "12.5e3" }' > w5.txt
$GT synth --count 6 --span 1d --start 2026-11-01 --seed 4 --format csv -o s.csv
i=0
for pair in "CERN,FNAL" "BNL,SLAC" "FNAL,ANL" "SLAC,ORNL" "ANL,CERN"; do
    i=$((i + 1))
    grep ",${pair}," s.csv | cut -d, -f4 | grep -v '^$' | tail -n 256 > s$i.txt
done
for w in w1 w2 w3 w4 w5 s1 s2 s3 s4 s5; do
    n=$(wc -l < $w.txt)
    $GT fit --window "$n" --json $w.txt > $w.json
    set -- $(python3 "$GT_ROOT/tests/ref/chi2_ref.py" $w.txt)
    for model in pareto normal; do
        if [ $model = pareto ]; then want=$2; else want=$4; fi
        got=$(awk -v m=$model '$1 == "\"" m "\":" { inm = 1 } inm && /"chi2"/ { gsub(/[",]/, "", $2); print $2; exit }' $w.json)
        check "$w ($n samples) $model: lambda2 $got vs the 60-digit $want" \
            awk -v a="$got" -v b="$want" 'BEGIN { if (b == "inf") exit !(a == "null" || a == "inf");
                d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(d <= 1e-9 * (s > 1e-300 ? s : 1)) }'
    done
done
check "the issue's window (105 x 20 ms, 15 x 390-500 ms): a finite index for both" \
    sh -c "! grep -q '\"chi2\": null' w2.json"
check "fit --all-windows prints both indices and the selection" sh -c "$GT fit --all-windows --window 120 w1.txt > all.tsv && head -1 all.tsv | grep -q 'chi2_pareto.chi2_normal.selected'"
check "its last step has the single fit's indices" sh -c "tail -1 all.tsv | awk -F'\t' -v p=\"\$(awk '/\"chi2\"/ { gsub(/[\",]/, \"\", \$2); print \$2; exit }' w1.json)\" '{ d = \$7 - p; if (d < 0) d = -d; exit !(d <= 1e-9 * p) }'"
