# Calibrated quantiles and the combined forecast in the backtest (issue
# 29, METHOD.md section 5): every calibrated quantile, every combined and
# adaptive forecast and the calibrated coverage of each cell against an
# independent implementation (tests/ref/forecast_ref.py) replaying the
# raw forecasts of --moments on the noisy store of backtest.sh; the
# outputs that carry them; option errors.
. "$GT_ROOT/tests/cli/lib.inc"
plan 33
DB=$(store t)
gt() { $GT --db "$DB" "$@"; }
gt init >/dev/null
python3 "$GT_ROOT/tests/data/bt_store.py" > data.csv
gt ingest --quiet csv data.csv

# a short calibration window and a large step, so that scores leave the
# window and the level moves; a short horizon and some shrinkage for the
# combination
check "backtest with calibration and combined" status_is 0 gt backtest --root r --sites r,a,b,c --window 8,32 --tau 1,4 --method pareto,normal,last,empirical,adaptive,combined --horizon 20 --combine-horizon 20 --shrink 0.5 --cal-window 50 --cal-gamma 0.05 --tolerance 1e-10 --moments m.csv --json
cp out.txt bt.json
check "moments header names the quantiles" sh -c "head -1 m.csv | grep -qx 'root,t,window,tau,method,regime,predicted_ms,actual_ms,p50_ms,p90_ms,p99_ms,p50_cal_ms,p90_cal_ms,p99_cal_ms'"
python3 "$GT_ROOT/tests/ref/forecast_ref.py" m.csv bt.json 60 50 0.05 20 0.5 20 > ref.txt
check "calibrated quantiles, combined and adaptive forecasts and coverage agree with the reference ($(tail -1 ref.txt))" sh -c "head -1 ref.txt | grep -qx same || { head -5 ref.txt; false; }"
check "the guard turned adaptive from the best record at some moment" sh -c "tail -1 ref.txt | grep -q '; [1-9][0-9]* turned by the guard'"
check "last has no quantiles" sh -c "awk -F, '\$5 == \"last\" && \$9 != \"\"' m.csv | grep -q . && exit 1 || exit 0"
check "the level moved: some calibrated p90 differs from its raw one" sh -c "awk -F, 'NR > 1 && \$10 != \"\" && \$10 != \$13' m.csv | grep -q ."

# the default settings, as documented, on the same store
check "defaults" status_is 0 gt backtest --root r --sites r,a,b,c --window 8 --tau 1 --moments d.csv --json
python3 "$GT_ROOT/tests/ref/forecast_ref.py" d.csv out.txt 60 3000 0.001 500 0 > ref2.txt
check "the defaults are W 3000, gamma 0.001, combined's H 500, shrink 0 ($(tail -1 ref2.txt))" sh -c "head -1 ref2.txt | grep -qx same"
check "the JSON says them" python3 -c "import json,sys; d=json.load(open('out.txt')); sys.exit(not (d['horizon'] == 50 and d['combine_horizon'] == 500 and d['shrink'] == 0))"
# --horizon is adaptive's alone: combined keeps its 500
check "--horizon 20" status_is 0 gt backtest --root r --sites r,a,b,c --window 8 --tau 1 --horizon 20 --moments d20.csv --json
python3 "$GT_ROOT/tests/ref/forecast_ref.py" d20.csv out.txt 60 3000 0.001 500 0 20 > ref3.txt
check "leaves combined's horizon at 500 ($(tail -1 ref3.txt))" sh -c "head -1 ref3.txt | grep -qx same"
# live adaptive keeps the guard too: at a moment where the reference
# leaves pareto's forecast out though its record is the best (a window
# with alpha near 1), `estimate --model adaptive --at` one slot before
# chooses as the replay does and says what it left out
check "adaptive alone, H 50" status_is 0 gt backtest --root r --sites r,a,b,c --window 8 --tau 1 --method pareto,normal,last,empirical,adaptive --moments ad.csv --json
python3 - > turned.txt <<PY
import sys
sys.path.insert(0, "$GT_ROOT/tests/ref")
from forecast_ref import adaptive_pick, guard, moments_of, settled
fixed = ["pareto", "normal", "last", "empirical"]
for t, rows, preds, errs in settled(moments_of("ad.csv"), fixed, 50):
    j, best = adaptive_pick(preds, fixed, errs)
    if j != best and len(errs) == 50:
        _, use = guard(preds, fixed, errs)
        print(t - 60, fixed[j], ",".join(f for f, u in zip(fixed, use) if f in preds and not u))
        break
PY
read -r TAT TCHOSEN TOUT < turned.txt || true
check "a moment the guard turns ($(cat turned.txt))" test -n "$TAT"
check "live adaptive there chooses $TCHOSEN, leaving out $TOUT" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c --window 8 --horizon 60s --model adaptive --at $TAT --json | python3 -c 'import json,sys; a=json.load(sys.stdin)[\"adaptive\"]; sys.exit(not (a[\"chosen\"] == \"$TCHOSEN\" and \",\".join(a[\"left_out\"]) == \"$TOUT\" and a[\"outcomes\"] == 50))'"
check "and its table says so" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c --window 8 --horizon 60s --model adaptive --at $TAT | grep -q \"adaptive: $TCHOSEN, .*$TOUT [0-9.]* (its forecast now far from the others': left out)\""
# auto is one of the methods combined weighs (k counts it)
check "combined over normal, last, empirical, auto" status_is 0 gt backtest --root r --sites r,a,b,c --window 8,32 --tau 1,4 --method normal,last,empirical,auto,combined --moments da.csv --json
python3 "$GT_ROOT/tests/ref/forecast_ref.py" da.csv out.txt 60 3000 0.001 500 0 > ref4.txt
check "agrees with the reference ($(tail -1 ref4.txt))" sh -c "head -1 ref4.txt | grep -qx same"
check "combined is a default method" python3 -c "import json,sys; sys.exit('combined' not in json.load(open('out.txt'))['methods'])"
check "csv carries the calibrated coverage" sh -c "$GT --db '$DB' backtest --root r --window 8 --tau 1 --csv | head -1 | grep -q ',covered_p50,covered_p90,covered_p99,calibration_ready$'"

# live: estimate's quantiles are the model's times the factors the
# calibrators reach over the last W moments' raw quantiles (here W = 50,
# lead 1 sample, normal), replayed independently from backtest --moments
# over the same moments
AT=$((1795305600 + 60 * 250))
check "estimate calibrated" status_is 0 gt estimate --root r --sites a,b,c --window 8 --model normal --calibration 50 --horizon 60s --at $AT --json
cp out.txt est.json
LAST=$((AT / 60 - 1))
check "the same moments replayed" status_is 0 gt backtest --root r --sites r,a,b,c --window 8 --tau 1 --method normal --from $(((LAST - 49) * 60)) --to $((LAST * 60)) --moments lm.csv --json
python3 - > live.txt <<PY
import csv, json, math, sys
sys.path.insert(0, "$GT_ROOT/tests/ref")
from forecast_ref import calibrators_after
rows = [r for r in csv.DictReader(open("lm.csv")) if r["method"] == "normal"]
cal = calibrators_after(rows, 50, 0.001)
e = json.load(open("est.json"))
m, q, c = e["calibration"]["model_quantiles"], e["quantiles"], e["calibration"]
bad = []
for k, cl in zip(("p50", "p90", "p99"), cal):
    want = cl.adjust(m[k])
    if abs(q[k] - want) > 1e-9 * want:
        bad.append(f"{k}: {q[k]} vs {want}")
if c["outcomes"] != len(rows) or len(rows) != 50:
    bad.append(f"outcomes {c['outcomes']} vs {len(rows)}")
print("\n".join(bad) if bad else "same")
print(" ".join(f"{k} {m[k]:.2f} -> {q[k]:.2f}" for k in ("p50", "p90", "p99")))
PY
check "live calibrated quantiles = model x the replayed calibrators' factors ($(tail -1 live.txt))" sh -c "head -1 live.txt | grep -qx same || { cat live.txt; false; }"
check "50 outcomes: the p90 is ready, the p99 not (99 needed)" python3 -c "
import json, sys
r = json.load(open('est.json'))['calibration']['ready']
sys.exit(not (r['p90'] and not r['p99']))"
# a sample stored after AT (20 s after, so in AT's slot) is not seen by a
# replay as of AT: the same answer as before it was stored
printf 'ts,src,dst,rtt_ms\n%s,r,a,5000\n' $((AT + 20)) > later.csv
check "a sample after --at stored" status_is 0 gt ingest --quiet csv later.csv
check "and not seen by the calibration as of --at" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c --window 8 --model normal --calibration 50 --horizon 60s --at $AT --json | python3 -c 'import json,sys; d=json.load(sys.stdin); e=json.load(open(\"est.json\")); sys.exit(not (d[\"quantiles\"] == e[\"quantiles\"]))'"
check "--calibration 0: the model's quantiles, no calibration" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c --window 8 --model normal --calibration 0 --horizon 60s --at $AT --json | python3 -c 'import json,sys; d=json.load(sys.stdin); m=json.load(open(\"est.json\"))[\"calibration\"][\"model_quantiles\"]; sys.exit(not (d[\"calibration\"] is None and d[\"quantiles\"] == m))'"
# rank calibrates a root once, over all its candidates, before its
# threads: every candidate of r carries the factors of r's collective
# with a, b and c, the same as estimate's of that collective
printf 'r: a,b\nr: a,c\nr: b,c\n' > cands.txt
check "rank calibrated" status_is 0 gt rank --candidates cands.txt --window 8 --calibration 50 --horizon 60s --top 3 --max-loss 1 --threads 2 --json
cp out.txt rank.json
gt estimate --root r --sites a,b,c --window 8 --calibration 50 --horizon 60s --max-loss 1 --json > union.json
check "every candidate of r has the factors of r with a, b and c" python3 -c "
import json, sys
def factors(c):
    m = c['calibration']['model_quantiles']
    return [round(c['quantiles'][k] / m[k], 9) for k in ('p50', 'p90', 'p99')]
cs = json.load(open('rank.json'))['candidates']
want = factors(json.load(open('union.json')))
sys.exit(not (len(cs) == 3 and all(factors(c) == want for c in cs)))"
# calibrated alone, the levels can cross: r -> x jitters (10-20 ms) for
# 200 minutes, then holds 15 ms; at minute 208 the window is a point mass
# (every model quantile 15) and the p50's factor is above the p90's (it
# answered 15.248, 14.747, 15.0): each level is raised to those below it
python3 -c "
import random
random.seed(5)
print('ts,src,dst,rtt_ms')
for i in range(230):
    print('%d,r,x,%.3f' % (1795305600 + 60 * i, 15.0 if i >= 200 else random.uniform(10, 20)))" > cross.csv
gt ingest --quiet csv cross.csv
check "calibrated quantiles do not cross" sh -c "$GT --db '$DB' estimate --root r --sites x --window 8 --model normal --calibration 50 --horizon 60s --at $((1795305600 + 60 * 208)) --json | python3 -c 'import json,sys; q=json.load(sys.stdin)[\"quantiles\"]; sys.exit(not (q[\"p50\"] <= q[\"p90\"] <= q[\"p99\"] and q[\"p50\"] > 15.2))'"
check "--calibration 10001: 1" status_is 1 gt estimate --root r --sites a,b --calibration 10001
check "--shrink 2: 1" status_is 1 gt backtest --shrink 2
check "--cal-window 0: 1" status_is 1 gt backtest --cal-window 0
check "combined alone: 1" status_is 1 gt backtest --method combined,adaptive
