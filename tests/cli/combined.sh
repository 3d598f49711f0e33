# --model combined (issue 29, METHOD.md section 5, "Combined, live"): the
# live answer weighs pareto, normal, last and empirical as the backtest's
# `combined` weighs them at the same moment.  Checked against an
# independent replay (tests/ref/forecast_ref.py's weights and guard) of
# `backtest --moments` on the noisy store of backtest.sh: the weights,
# E[max] = sum of weight x each `estimate --model M`'s, the model's
# quantiles (the weights over those with quantiles) and their calibration
# (combined's own misses); rank and place; option errors.
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 18 17
DB=$(store t)
gt() { $GT --db "$DB" "$@"; }
gt init >/dev/null
python3 "$GT_ROOT/tests/data/bt_store.py" > data.csv
gt ingest --quiet csv data.csv
T0=1795305600
AT=$((T0 + 60 * 250))
LIVE="--root r --sites a,b,c --window 8 --horizon 60s --at $AT"

check "estimate --model combined" status_is 0 gt estimate $LIVE --model combined --calibration 50 --json
cp out.txt comb.json
for m in pareto normal last empirical; do
    gt estimate $LIVE --model $m --calibration 0 --json > "$m.json"
done
# every moment up to the one after AT's slot, whose outcome is stored too
check "the backtest's moments" status_is 0 gt backtest --root r --sites r,a,b,c --window 8 --tau 1 --method pareto,normal,last,empirical,combined --to $((AT + 60)) --moments m.csv --json
python3 - > ref.txt <<PY
import json, sys
sys.path.insert(0, "$GT_ROOT/tests/ref")
from forecast_ref import guard, moments_of, settled, weights
fixed = ["pareto", "normal", "last", "empirical"]
for t, rows, preds, errs in settled(moments_of("m.csv"), fixed, 500):
    if t == $AT + 60:
        break
_, use = guard(preds, fixed, errs)
w = weights(errs, 4, 0.0, use)
s = sum(w[j] for j in range(4) if use[j])
w = [w[j] / s if use[j] else None for j in range(4)]
c = json.load(open("comb.json"))
live = c["combined"]
bad = []
if live["outcomes"] != len(errs):
    bad.append(f"outcomes {live['outcomes']} vs {len(errs)}")
for f, wf in zip(fixed, w):
    got = live["weights"].get(f)
    if (got is None) != (wf is None) or (wf is not None and abs(got - wf) > 1e-9):
        bad.append(f"weight {f}: {got} vs {wf}")
est = {f: json.load(open(f + ".json")) for f in fixed}
want = sum(wf * est[f]["e_max"] for f, wf in zip(fixed, w) if wf)
if abs(c["e_max"] - want) > 1e-9 * want:
    bad.append(f"e_max {c['e_max']} vs {want}")
qw = sum(wf for f, wf in zip(fixed, w) if wf and f != "last")
for k in ("p50", "p90", "p99"):
    q = sum(wf / qw * est[f]["quantiles"][k] for f, wf in zip(fixed, w) if wf and f != "last")
    if abs(c["calibration"]["model_quantiles"][k] - q) > 1e-9 * q:
        bad.append(f"model {k} {c['calibration']['model_quantiles'][k]} vs {q}")
print("\n".join(bad) if bad else "same")
print(f"{len(errs)} outcomes, weights " + ", ".join(f"{f} {wf:.3f}" for f, wf in zip(fixed, w) if wf is not None))
PY
check "weights, E[max] and the model's quantiles as the replay's ($(tail -1 ref.txt))" sh -c "head -1 ref.txt | grep -qx same || { cat ref.txt; false; }"
check "the answer names the model and its heaviest method" python3 -c "
import json, sys
c = json.load(open('comb.json'))
w = c['combined']['weights']
sys.exit(not (c['model'] == 'combined' and c['combined']['chosen'] == max(w, key=w.get)))"

# the calibration is combined's own: its raw quantiles over the last 50
# moments replayed as a backtest of those moments alone (the calibration's
# replay, in which combined's weights start afresh too), then the model's
# quantiles times the calibrators' factors
LAST=$((AT / 60 - 1))
check "the calibration's moments" status_is 0 gt backtest --root r --sites r,a,b,c --window 8 --tau 1 --method pareto,normal,last,empirical,combined --from $(((LAST - 49) * 60)) --to $((LAST * 60)) --moments cm.csv --json
python3 - > cal.txt <<PY
import csv, json, sys
sys.path.insert(0, "$GT_ROOT/tests/ref")
from forecast_ref import calibrators_after
rows = [r for r in csv.DictReader(open("cm.csv")) if r["method"] == "combined"]
cal = calibrators_after(rows, 50, 0.001)
e = json.load(open("comb.json"))
m, q = e["calibration"]["model_quantiles"], e["quantiles"]
want = {k: cl.adjust(m[k]) for k, cl in zip(("p50", "p90", "p99"), cal)}
want["p90"] = max(want["p90"], want["p50"])   # calibrated levels do not cross
want["p99"] = max(want["p99"], want["p90"])
bad = [f"{k}: {q[k]} vs {want[k]}" for k in want if abs(q[k] - want[k]) > 1e-9 * want[k]]
print("\n".join(bad) if bad else "same")
print(" ".join(f"{k} {m[k]:.1f} -> {q[k]:.1f}" for k in ("p50", "p90", "p99")))
PY
check "calibrated by combined's own misses ($(tail -1 cal.txt))" sh -c "head -1 cal.txt | grep -qx same || { cat cal.txt; false; }"

check "the table shows the weights" sh -c "$GT --db '$DB' estimate $LIVE --model combined | grep -q '^  combined: recent RMSE [0-9.]* ms; weights over [0-9]* forecasts 1 x 60s ahead (pareto [0-9.-]*, RMSE'"
check "too little history: auto, with a warning" sh -c "$GT --db '$DB' estimate --root r --sites a,b --window 8 --horizon 60s --model combined --at $((T0 + 60 * 8)) --json | python3 -c \"import json,sys; d=json.load(sys.stdin); sys.exit(not (d['combined']['chosen'] is None and any(w.startswith('combined: no forecast') for w in d['warnings'])))\""
printf 'r: a,b\nr: a,c\n' > cands.txt
check "rank --model combined" status_is 0 gt rank --candidates cands.txt --window 8 --horizon 60s --model combined --max-loss 1 --at $AT --json
check "every candidate carries the root's weights" python3 -c "
import json, sys
cs = json.load(open('out.txt'))['candidates']
sys.exit(not (len(cs) == 2 and all(c['model'] == 'combined' and c['combined']['weights'] for c in cs)))"
check "place --model combined" status_is 0 gt place --root r --pool a,b,c --size 2 --window 8 --horizon 60s --model combined --max-loss 1 --at $AT --json
check "its best set is combined too" python3 -c "
import json, sys
c = json.load(open('out.txt'))['candidates'][0]
sys.exit(not (c['combined']['weights'] and c['e_max'] > 0))"

# moment by moment, as the backtest's combined: on the same samples 40 s
# off the minute (a sample is in its nearest slot), with r -> a and the
# heavy r -> c (windows with alpha <= 1: the guard leaves Pareto out),
# `estimate --model combined --loss ignore --fallback none` as of a
# moment's newest sample is the backtest's combined forecast at that
# moment (its moments where the guard left a forecast out, and ten more)
DB2=$(store shifted)
$GT --db "$DB2" init >/dev/null
awk -F, 'NR == 1 { print; next } { $1 += 40; print }' OFS=, data.csv > shifted.csv
$GT --db "$DB2" ingest --quiet csv shifted.csv
$GT --db "$DB2" backtest --root r --sites r,a,c --window 8 --tau 1 --method pareto,normal,last,empirical,combined --moments sm.csv --json > /dev/null
python3 - > pick.txt <<PY
import sys
sys.path.insert(0, "$GT_ROOT/tests/ref")
from forecast_ref import guard, moments_of, settled
fixed = ["pareto", "normal", "last", "empirical"]
guarded, plain = [], []
for t, rows, preds, errs in settled(moments_of("sm.csv"), fixed, 500):
    _, use = guard(preds, fixed, errs)
    if errs and "combined" in rows:
        (plain if all(use) else guarded).append((t, rows["combined"]["predicted_ms"]))
for t, p in guarded[:10] + plain[::len(plain) // 10][:10]:
    print(t - 80, p, int(t in dict(guarded)))
PY
python3 - "$GT" "$DB2" > live2.txt <<'PY'
import json, subprocess, sys
gt, db = sys.argv[1:3]
bad, n, guarded = [], 0, 0
for line in open("pick.txt"):
    at, want, g = line.split()
    out = subprocess.run(gt.split() + ["--db", db, "estimate", "--root", "r", "--sites", "a,c",
                                       "--window", "8", "--horizon", "60s", "--model", "combined",
                                       "--loss", "ignore", "--fallback", "none", "--calibration",
                                       "0", "--at", at, "--json"], capture_output=True, text=True)
    got = json.loads(out.stdout)["e_max"]
    n, guarded = n + 1, guarded + int(g)
    if abs(got - float(want)) > 1e-7 * float(want):
        bad.append(f"at {at}: {got} vs {want}")
print("\n".join(bad) if bad else "same")
print(f"{n} moments, {guarded} with a forecast left out")
PY
check "live combined = the backtest's at each moment, off the minute ($(tail -1 live2.txt))" sh -c "head -1 live2.txt | grep -qx same && tail -1 live2.txt | grep -q '^[1-9][0-9]* moments, [1-9]'"

# partners whose samples stop while the root's others go on: the replay
# still finds their newest moment, so the weights 10 minutes on are those
# as of their last sample (not all on one method)
DB3=$(store lag)
$GT --db "$DB3" init >/dev/null
awk -F, -v stop=$((T0 + 60 * 200)) 'NR == 1 || $3 == "c" || $1 < stop' data.csv > lag.csv
$GT --db "$DB3" ingest --quiet csv lag.csv
for at in $((T0 + 60 * 199)) $((T0 + 60 * 209)); do
    $GT --db "$DB3" estimate --root r --sites a,b --window 8 --horizon 60s --model combined --calibration 0 --at $at --json > lag$at.json
done
check "partners lagging the root: the same weights and E[max] 10 minutes on" python3 -c "
import json, sys
a, b = (json.load(open('lag%d.json' % t)) for t in ($((T0 + 60 * 199)), $((T0 + 60 * 209))))
ok = a['combined']['weights'] == b['combined']['weights'] and a['e_max'] == b['e_max'] and len(a['combined']['weights']) > 1
sys.exit(not ok)"
# refit --model combined keeps each root's weights: an answer over all the
# root's partners then reads them, the same as replayed, until a new
# sample of the root arrives
check "live, before refit" status_is 0 gt estimate --root r --sites a,b,c,d --window 8 --horizon 60s --model combined --calibration 0 --json
cp out.txt before.json
check "refit --model combined" sh -c "$GT --db '$DB' refit --window 8 --horizon 60s --model combined --json | python3 -c 'import json,sys; sys.exit(not json.load(sys.stdin)[\"roots_tracked\"] >= 1)'"
check "the kept weights are the replayed ones" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c,d --window 8 --horizon 60s --model combined --calibration 0 --json | python3 -c '
import json, sys
b, c = json.load(open(\"before.json\")), json.load(sys.stdin)
sb, sc = b[\"combined\"], c[\"combined\"]
ok = sb.pop(\"cached\") is False and sc.pop(\"cached\") is True and sb == sc and b[\"e_max\"] == c[\"e_max\"]
sys.exit(not ok)'"
if first_pass; then
    check "--model bogus names combined" sh -c "$GT --db '$DB' estimate --root r --sites a --model bogus 2>&1 | grep -q 'adaptive or combined'"
fi
