# tier: slow
# gridtail backtest (issue 13, METHOD.md section 3): the replay against an
# independent implementation (tests/ref/backtest_ref.py) on a small store
# with losses, a missing row, point-mass windows and alpha <= 1 windows;
# moment by moment against `estimate --at`; the paper's cleaning; the
# outputs (JSON, CSV, report, moments); option errors; the same output
# for any --threads.
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 53 43
DB=$(store t)
gt() { $GT --db "$DB" "$@"; }
gt init >/dev/null
# r -> a, b, c: 300 samples a minute apart, Pareto-like noise (c heavy:
# windows with alpha <= 1), ~3 % lost, one row of r -> b missing, r -> c
# constant for a stretch (point masses); r -> d loses 30 % of its probes
python3 "$GT_ROOT/tests/data/bt_store.py" > data.csv
gt ingest --quiet csv data.csv
W=8,32
T=1,4
check "backtest runs" status_is 0 gt backtest --root r --sites r,a,b,c --window $W --tau $T --method pareto,normal,last --tolerance 1e-10 --json
cp out.txt bt.json
check "the run's seconds to the ns (not two clock readings in ms subtracted)" grep -Eq '^  "seconds": [0-9]+\.[0-9]{1,9},$' bt.json
python3 "$GT_ROOT/tests/ref/backtest_ref.py" data.csv r 60 $W $T a,b,c > ref.json
check "the independent implementation ran" test -s ref.json
python3 - > cmp.txt <<'PY'
import json, math
bt, ref = json.load(open("bt.json")), json.load(open("ref.json"))
cells = {(c["window"], c["tau"], c["method"]): c for c in bt["cells"] if c["regime"] == "all"}
bad = []
for c in ref["cells"]:
    g = cells[(c["window"], c["tau"], c["method"])]
    if g["n"] != c["n"]:
        bad.append(f"n {c} {g['n']}")
    for k in ("rmse_ms", "mae_ms", "bias_ms"):
        if abs(g[k] - c[k]) > 1e-7 * max(1.0, abs(c[k])):
            bad.append(f"{k} {c['window']} {c['tau']} {c['method']}: {g[k]} vs {c[k]}")
    if "u" in c and (abs(g["u"] - c["u"]) > 1e-9 * c["u"] or abs(g["p"] - c["p"]) > 1e-6 * c["p"]):
        bad.append(f"U {c['window']} {c['tau']} {c['method']}: {g['u']} {g['p']} vs {c['u']} {c['p']}")
for a in ref["alpha_le1"]:
    g = [x for x in bt["alpha_le1"] if x["window"] == a["window"]][0]
    if g["moments"] != a["moments"] or g["alpha_le1"] != a["alpha_le1"]:
        bad.append(f"alpha_le1 {a} {g}")
print("cells", len(ref["cells"]), "le1", [a["alpha_le1"] for a in ref["alpha_le1"]])
print("\n".join(bad) if bad else "same")
PY
check "RMSE, MAE, bias, n, U and p agree with the reference ($(head -1 cmp.txt))" sh -c "tail -n +2 cmp.txt | grep -qx same || { cat cmp.txt | head -5; false; }"
check "the store has windows with alpha <= 1 at m = 8" python3 -c "import json,sys; sys.exit(not json.load(open('ref.json'))['alpha_le1'][0]['alpha_le1'] > 0)"
check "the regimes split all moments" python3 -c "
import json, sys
cells = json.load(open('bt.json'))['cells']
for c in cells:
    if c['regime'] != 'all': continue
    parts = [x['n'] for x in cells if (x['window'], x['tau'], x['method']) == (c['window'], c['tau'], c['method']) and x['regime'] != 'all']
    if sum(parts) != c['n']: sys.exit(1)"

# moment by moment against estimate --at (the window ends one sample
# before t), at moments whose windows hold no missing row (the backtest
# counts a missing row of r -> b as lost, estimate reads the last 8 rows)
check "moments file" status_is 0 gt backtest --root r --sites r,a,b,c --window 8 --tau 1 --method pareto,normal,last,chi2,empirical --moments m.csv --no-calibration
check "moments header" sh -c "head -1 m.csv | grep -qx 'root,t,window,tau,method,regime,predicted_ms,actual_ms,p50_ms,p90_ms,p99_ms,p50_cal_ms,p90_cal_ms,p99_cal_ms'"
for row in 20 100 233; do
    t=$(awk -F, -v r=$row '$5 == "pareto" && ++n == r { print $2 }' m.csv)
    for pair in pareto:pareto normal:normal last:last empirical:empirical chi2:auto; do
        bm=${pair%%:*}; em=${pair#*:}
        want=$(awk -F, -v t=$t -v m=$bm '$2 == t && $5 == m { print $7 }' m.csv)
        got=$(gt estimate --root r --sites a,b,c --window 8 --model $em --fallback none --loss ignore --at $((t - 60)) --json | sed -n 's/^  "e_max": \([0-9.e+-]*\),/\1/p')
        check "moment $t $bm: backtest $want = estimate --at $got" awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(g != "" && d <= 1e-5 * w && d >= -1e-5 * w) }'
    done
done

# regime: q -> x shifts from 100 to 200 ms at sample 200 (noise +-2 %,
# below the detector's scale floor, so that is its one shift).  Eight or
# more samples after it, the window holds only the new regime: at sample
# 230 it is Pareto on samples 200..229 (estimate --window 30); at 205 the
# regime is too young and the answer is pareto's on 64; at 300 the
# regime is older than the window, so the two agree.
python3 - <<'PY' > shift.csv
import random
random.seed(3)
print("ts,src,dst,rtt_ms")
for i in range(400):
    level = 100.0 if i < 200 else 200.0
    print(f"{1795305600 + 60 * i},q,x,{level * (1 + 0.02 * (2 * random.random() - 1)):.3f}")
PY
gt ingest --quiet csv shift.csv
check "regime runs" status_is 0 gt backtest --root q --window 64 --tau 1 --method pareto,regime --moments rm.csv --no-calibration --tolerance 1e-10 --json
check "one shift detected" python3 -c "import json,sys; sys.exit(json.load(open('out.txt'))['shifts_detected'] != 1)"
for pair in 230:30:regime 205:64:regime 300:64:regime 300:64:pareto; do
    i=${pair%%:*}; rest=${pair#*:}; n=${rest%%:*}; bm=${rest#*:}
    t=$((1795305600 + 60 * i))
    want=$(awk -F, -v t=$t -v m=$bm '$2 == t && $5 == m { print $7 }' rm.csv)
    got=$(gt estimate --root q --sites x --window $n --model pareto --fallback none --loss ignore --at $((t - 60)) --json | sed -n 's/^  "e_max": \([0-9.e+-]*\),/\1/p')
    check "regime: sample $i $bm = pareto on $n samples ($want, $got)" awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(g != "" && d <= 1e-9 * w && d >= -1e-9 * w) }'
done

# the paper's cleaning: d loses 30 % (>= 10 %) and is left out
check "--paper" status_is 0 gt backtest --root r --window 8 --tau 1 --paper --json
check "--paper drops the lossy pair, cuts as eq. 12" python3 -c "
import json, sys
d = json.load(open('out.txt'))
sys.exit(not (d['pairs'] == 3 and d['pairs_dropped'] == 1 and d['cut'] == 'paper' and d['methods'] == ['pareto', 'normal', 'last']))"
check "without it d stays" sh -c "$GT --db '$DB' backtest --root r --window 8 --tau 1 --json | grep -q '\"pairs\": 4'"

# adaptive: choices counted, never more than the moments scored
check "adaptive" status_is 0 gt backtest --root r --sites r,a,b,c --window 8,32 --tau 1,16 --horizon 10 --json
check "adaptive's choices add up to its moments" python3 -c "
import json, sys
d = json.load(open('out.txt'))
for ch in d['adaptive_chosen']:
    n = [c['n'] for c in d['cells'] if c['window'] == ch['window'] and c['tau'] == ch['tau'] and c['method'] == 'adaptive' and c['regime'] == 'all'][0]
    if sum(ch['chosen'].values()) != n or n == 0: sys.exit(1)"
check "calibration shares in [0, 1], none for last" python3 -c "
import json, sys
d = json.load(open('out.txt'))
for c in d['cells']:
    cal = c['calibration']
    if c['method'] == 'last': ok = cal['p50'] is None
    else: ok = c['n'] == 0 or (0 <= cal['p50'] <= cal['p90'] <= cal['p99'] <= 1)
    if not ok: sys.exit(1)"

# outputs
check "--csv" status_is 0 gt backtest --root r --window 8 --tau 1 --csv
check "csv header and rows" sh -c "head -1 out.txt | grep -q '^window,tau,method,regime,n,rmse_ms' && [ \$(wc -l < out.txt) -eq 16 ]"
check "--report" status_is 0 gt backtest --root r --window 8,32 --tau 1,4 --report rep.md
check "report sections" sh -c "grep -q 'Table 2' rep.md && grep -q 'Best (window, method)' rep.md && grep -q 'Adaptive selection' rep.md && grep -q 'pareto over normal' rep.md && grep -q '^## Combination' rep.md && grep -q '^| combined | [0-9.]* → [0-9.]* % |' rep.md"
check "table by default" sh -c "$GT --db '$DB' backtest --root r --window 8 --tau 1 | grep -q '^      8     1 pareto'"
check "stride and --from/--to narrow the moments" sh -c "$GT --db '$DB' backtest --root r --window 8 --tau 1 --stride 10 --from 1795307400 --to 1795311000 --json | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(d[\"alpha_le1\"][0][\"moments\"] != 7)'"

# errors
check "unknown root: 2" status_is 2 gt backtest --root nowhere
if first_pass; then
    check "bad method: 1" status_is 1 gt backtest --method pareto,magic
    check "adaptive alone: 1" status_is 1 gt backtest --method adaptive
    check "window 1: 1" status_is 1 gt backtest --window 1
    check "17 windows: 1" status_is 1 gt backtest --window 2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18
    check "tau 0: 1" status_is 1 gt backtest --tau 0
    check "--json with --csv: 1" status_is 1 gt backtest --json --csv
    check "--cut other: 1" status_is 1 gt backtest --cut maybe
fi
check "no store: 3" status_is 3 $GT --db "$(store_absent nothere)" backtest
if first_pass; then
    check "--help" sh -c "$GT --db '$DB' backtest --help | grep -q 'Mann-Whitney'"
fi

# the same output for any --threads and any timing: the roots' sums are
# merged in root order, not in the order the threads happen to finish
# (the store backend plays no part: SQLite's pass only).  10 roots of 9
# partners over 8 h: cells of more than GT_ERRDIST_EXACT errors (binned)
# and fewer (the regimes' exact ones); 1 to 4 threads, 4 three times
if first_pass; then
    $GT synth --count 10 --span 8h --start 2026-11-01 --seed 5 --format csv -o det.csv 2>/dev/null
    $GT --db det.db init >/dev/null
    $GT --db det.db ingest --quiet csv det.csv
    for run in 1-1 2-1 3-1 4-1 4-2 4-3; do   # THREADS-REPEAT
        th=${run%-*} rep=${run#*-}
        mo=
        [ $rep = 1 ] && mo="--moments det-m$th.csv"
        $GT --db det.db backtest --window 8,32 --tau 1,4 --threads $th $mo \
            --method pareto,normal,last,regime,adaptive,combined --json |
            grep -v '^  "seconds": ' > det-$th-$rep.json
    done
    same_json() {
        for f in det-*-*.json; do
            [ -s "$f" ] && cmp -s det-1-1.json "$f" ||
                { echo "  $f:"; diff det-1-1.json "$f" | head -6; return 1; }
        done
    }
    check "backtest --threads 1, 2, 3 and 4, and 4 twice more: the same JSON byte for byte" same_json
    sort det-m1.csv > det-m1.sorted
    check "and the same --moments rows (their order across roots aside)" sh -c \
        'for th in 2 3 4; do sort det-m$th.csv | cmp -s - det-m1.sorted || exit 1; done'
fi
