# gridtail emax and gridtail fit through the CLI: values against closed
# forms, JSON fields, bad input with status 2 and never a NaN.
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 47 5
near() {   # near A B TOL: |A - B| <= TOL * |B|
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= t * m) }'
}
jget() { sed -n "s/^  \"$1\": \([^,]*\),\{0,1\}$/\1/p" out.txt | head -n 1; }

if first_pass; then
    # one Pareto partner: E = alpha k / (alpha - 1)
    check "emax single pareto" status_is 0 $GT emax --json pareto:10,3
    check "E = 15 (a k / (a - 1))" near "$(jget e_max)" 15 1e-12
    check "method pareto-iid" grep -q '"method": "pareto-iid"' out.txt
    # two iid normals: mu + sigma / sqrt(pi)
    check "emax two normals" status_is 0 $GT emax --json normal:44.3,2.8x2
    check "E = mu + sigma/sqrt(pi)" near "$(jget e_max)" "$(awk 'BEGIN { printf "%.15g", 44.3 + 2.8 / sqrt(atan2(0, -1)) }')" 1e-9
    # a shift adds
    check "emax shifted" status_is 0 $GT emax --json pareto:10,3+2.5
    check "E = 17.5" near "$(jget e_max)" 17.5 1e-12
    # delta partners
    check "emax deltas" status_is 0 $GT emax --json delta:40x3 delta:41+1
    check "E = 42" near "$(jget e_max)" 42 0
    # quantiles: one Pareto, q = 0.5 -> k 2^(1/alpha)
    check "emax quantile" status_is 0 $GT emax --json --quantile 0.5 pareto:10,3
    check "median = k 2^(1/a)" grep -q "\"0.5\": 12.5992104989" out.txt
    check "slowest sums to one" status_is 0 $GT emax --json --slowest pareto:41.7,16.9x4 normal:44.3,2.8
    check "no NaN in output" sh -c '! grep -qi nan out.txt'
    # alpha <= 1 needs a window
    check "alpha <= 1 without --window is bad input" status_is 2 $GT emax pareto:1,0.8
    check "the message says why" grep -q "give the window size" err.txt
    check "alpha <= 1 with --window" status_is 0 $GT emax --window 60 pareto:1,0.8
    # censored (the default): E = k + k^a (x0^(1-a) - k^(1-a)) / (1-a), x0 = 60^(1/0.8)
    check "cut-off value" near "$(sed -n 's/^E\[max\] = \([0-9.]*\) ms.*/\1/p' out.txt)" \
        "$(awk 'BEGIN { a = 0.8; x0 = exp(log(60) / a); printf "%.15g", 1 + (exp((1 - a) * log(x0)) - 1) / (1 - a) }')" 1e-6
    check "alpha <= 1 with --window, --cut paper" status_is 0 $GT emax --window 60 --cut paper pareto:1,0.8
    # the paper's eq. 12: E = a k^a (x0^(1-a) - k^(1-a)) / (1-a)
    check "the paper's cut-off value" near "$(sed -n 's/^E\[max\] = \([0-9.]*\) ms.*/\1/p' out.txt)" \
        "$(awk 'BEGIN { a = 0.8; x0 = exp(log(60) / a); printf "%.15g", a * (exp((1 - a) * log(x0)) - 1) / (1 - a) }')" 1e-6
    for bad in bogus:1 pareto:1 pareto:-1,2 pareto:1,0 normal:1,-2 pareto:x,2 pareto:1,2x0 \
               pareto:1,2+nan delta:inf pareto:1,2junk; do
        check "emax '$bad' is bad input" status_is 2 $GT emax $bad
    done
    check "emax without SPEC is a usage error" status_is 1 $GT emax
    check "bad --quantile is a usage error" status_is 1 $GT emax --quantile 1.5 pareto:1,2

    # fit on a file: window {1, 2, 4} -> alpha = 1/ln 2
    printf '1\n2\n4\n' > w.txt
    check "fit file" status_is 0 $GT fit --json --model pareto w.txt
    check "alpha = 1/ln 2" near "$(sed -n '/"pareto"/,/}/s/^ *"alpha": \([^,]*\),*$/\1/p' out.txt)" 1.4426950408889634 1e-12
    printf '7\n7\nloss\n7\n' | $GT fit --json > out.txt
    check "equal window is a delta" grep -q '"selected": "delta"' out.txt
    printf '1\nabc\n' > bad.txt
    check "bad sample is status 2 with file:line" status_is 2 $GT fit bad.txt
    check "message names bad.txt:2" grep -q "bad.txt:2" err.txt
    printf '5\n' > one.txt
    check "a single sample is status 2" status_is 2 $GT fit one.txt
    check "unknown --model is status 1" status_is 1 $GT fit --model weibull w.txt
    awk 'BEGIN { srand(3); for (i = 0; i < 300; i++) printf "%.3f\n", 40 * (1 - rand()) ^ (-1 / 5) }' > series.txt
    check "fit --all-windows" status_is 0 $GT fit --all-windows --window 50 series.txt
    check "one line per full window (251 + header)" [ "$(wc -l < out.txt)" = 252 ]
    check "fit --all-windows --params-only --json" status_is 0 $GT fit --all-windows --params-only --json --window 50 series.txt
    check "--json steps" [ "$(grep -c '"step"' out.txt)" = 251 ]
fi

# fit on a stored pair
DB=$(store e)
$GT --db "$DB" init >/dev/null
printf 'ts,src,dst,rtt_ms\n100,a,b,1\n160,a,b,2\n220,a,b,4\n280,a,b,8\n' > p.csv
$GT --db "$DB" ingest --quiet csv p.csv
check "fit stored pair at a time" status_is 0 $GT --db "$DB" fit --json --model pareto --src a --dst b --at 220
check "window is the 3 samples up to --at" grep -q '"m": 3' out.txt
check "stored last ts" grep -q '"last_ts": 220' out.txt
check "stored first ts" grep -q '"first_ts": 100' out.txt
check "unknown pair is status 2" status_is 2 $GT --db "$DB" fit --src a --dst zz
