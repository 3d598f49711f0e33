# The empirical model (issue 12, METHOD.md 2.2): --model empirical, the
# fallback for a pair whose two parametric fits are both flagged (from
# fresh fits and from the fit cache), its off switches, E[max] against a
# sum worked by hand over every pair of samples, and emax empirical:FILE.
. "$GT_ROOT/tests/cli/lib.inc"
plan 28
DB=$(store t)
gt() { $GT --db "$DB" "$@"; }
gt init >/dev/null
AT=2026-11-22T20:00:00Z
# r -> b: 105 samples near 20 ms and 15 at 390-500 ms (a normal puts 30 %
# of its mass below 0 ms, a Pareto misses the second mode); r -> c: clean
awk 'BEGIN { print "ts,src,dst,rtt_ms";
    for (i = 1; i <= 120; i++) { v = (i % 8 == 0) ? 390 + (i * 37) % 111 : 20 + (i * 13 % 10) / 10;
        printf "%d,r,b,%.1f\n", 1795305600 + 60 * i, v }
    for (i = 1; i <= 120; i++) printf "%d,r,c,%.1f\n", 1795305600 + 60 * i, 30 + (i * 7 % 13) / 3 }' > two.csv
gt ingest --quiet csv two.csv
W="--window 120 --at $AT"
check "fit flags both ways the normal misfits" status_is 0 gt fit --src r --dst b $W
check "its p50 (the mean, 71.28 ms) off the window's, mass below 0 ms; KS as information" sh -c "grep -q 'quantiles off: the normal.s p50 71.28 ms is outside the window.s 20\.[0-9]*-20\.[0-9]* ms (99% bounds, 10% margin)' out.txt && grep -q 'below 0 ms' out.txt && grep -q 'poor fit: .*(information: its quantiles decide)' out.txt"
check "estimate falls back to the samples" status_is 0 gt estimate --root r --sites b,c $W --json
check "b is empirical, fallback true, no verdict left" sh -c "tr -d ' \n' < out.txt | grep -q '\"site\":\"b\",\"procs\":1,\"model\":\"empirical\",\"params\":{\"median\":20.5,\"n\":120},\"fallback\":true,\"other_fit\":false,\"verdict\":\[\]'"
check "c keeps its normal" sh -c "tr -d ' \n' < out.txt | grep -q '\"site\":\"c\",\"procs\":1,\"model\":\"normal\",.*\"fallback\":false'"
check "the warning says why and how to keep the fit" grep -q 'r -> b: both fits would change the answer (normal quantiles off, mass below 0 ms; pareto quantiles off): the window.s 120 samples are used as they are (empirical; fallback = none keeps the normal)' out.txt
check "--fallback none keeps the normal" status_is 0 gt estimate --root r --sites b,c $W --fallback none --json
check "with its three verdict flags" sh -c "tr -d ' \n' < out.txt | grep -q '\"model\":\"normal\",\"params\":{\"mu\":71.27.*\"fallback\":false,\"other_fit\":false,\"verdict\":\[\"poor_fit\",\"negative_mass\",\"quantiles_off\"\]'"
printf '[advisor]\nfallback_empirical = 0\n' > nofb.conf
check "[advisor] fallback_empirical = 0 does the same" sh -c "$GT --config nofb.conf --db '$DB' estimate --root r --sites b $W | grep -q 'normal  *mu=71.28'"
check "--model pareto is kept as asked" sh -c "$GT --db '$DB' estimate --root r --sites b $W --model pareto | grep -q 'pareto  *k=20'"
check "--fallback other: usage" status_is 1 gt estimate --root r --sites b $W --fallback maybe

# --model empirical: E[max] over two step CDFs by hand, the mean over all
# 120 x 120 pairs of samples of the larger one
check "--model empirical" status_is 0 gt estimate --root r --sites b,c $W --model empirical --json
check "method steps" grep -q '"method": "steps"' out.txt
got=$(sed -n 's/^ *"e_max": \([0-9.e+]*\),/\1/p' out.txt | head -1)
awk -F, 'NR > 1 && $3 == "b" { b[++nb] = $4 } NR > 1 && $3 == "c" { c[++nc] = $4 }
    END { for (i = 1; i <= nb; i++) for (j = 1; j <= nc; j++) s += (b[i] > c[j] ? b[i] : c[j]);
          printf "%.12f\n", s / (nb * nc) }' two.csv > want.txt
check "E[max] $got = the sum over all sample pairs $(cat want.txt)" awk -v g="$got" -v w="$(cat want.txt)" 'BEGIN { d = g - w; exit !(d < 1e-9 * w && d > -1e-9 * w) }'
printf 'r: b\nr: c\n' > cands.txt
check "rank --model empirical" status_is 0 gt rank --candidates cands.txt $W --model empirical --json
check "c (about 32 ms) ranks before b (a tenth at 390+ ms)" sh -c "tr -d ' \n' < out.txt | grep -q '\"sites\":\[\"c\"\].*\"sites\":\[\"b\"\]'"
check "place --model empirical, p99 objective" status_is 0 gt place --pool r,b,c --size 1 $W --model empirical --objective p99
check "the broker format names the model" sh -c "$GT --db '$DB' estimate --root r --sites b,c $W --model empirical --format gridway | grep -q 'empirical'"
check "refit refuses --model empirical" status_is 1 gt refit --window 120 --model empirical

# the fallback from the fit cache: the other candidate's fit is kept there
check "refit fills the cache" status_is 0 gt refit --window 120
rm -f two.csv
check "the cached fit still falls back" status_is 0 gt estimate --root r --sites b,c --window 120 --json
check "fallback true from the cache" sh -c "tr -d ' \n' < out.txt | grep -q '\"model\":\"empirical\",\"params\":{\"median\":20.5,\"n\":120},\"fallback\":true'"

# emax empirical:FILE: E[max(X, Y)] with Y Pareto(40, 2.5) by hand: a
# sample x <= 40 gives E[Y] = 40 * 2.5 / 1.5, x = 60 gives
# x + 40^2.5 x^-1.5 / 1.5
printf '20 21\n21,25 # comment\n60\n' > a.txt
check "emax empirical:FILE with a Pareto" status_is 0 $GT emax empirical:a.txt pareto:40,2.5
want=$(awk 'BEGIN { printf "%.6f", (4 * 40 * 2.5 / 1.5 + 60 + 40^2.5 * 60^-1.5 / 1.5) / 5 }')
check "E[max] = $want ms" grep -q "E\[max\] = $want ms" out.txt
printf '20 21\n21 x\n' > bad.txt
check "a bad RTT: exit 2" status_is 2 $GT emax empirical:bad.txt
check "named by file and line" grep -q "bad.txt:2: rtt: 'x' is not a finite RTT >= 0" err.txt
check "a missing file: exit 3" status_is 3 $GT emax empirical:nothere.txt
: > empty.txt
check "an empty file: exit 2" status_is 2 $GT emax empirical:empty.txt
