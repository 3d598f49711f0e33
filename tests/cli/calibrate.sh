# Calibrated quantiles and the combined forecast in the backtest (issue
# 29, METHOD.md section 5): every calibrated quantile, every combined
# forecast and the calibrated coverage of each cell against an
# independent implementation (tests/cli/forecast_ref.py) replaying the
# raw forecasts of --moments on the noisy store of backtest.sh; the
# outputs that carry them; option errors.
. "$GT_ROOT/tests/cli/lib.inc"
plan 12
DB=$(store t)
gt() { $GT --db "$DB" "$@"; }
gt init >/dev/null
python3 "$GT_ROOT/tests/cli/bt_store.py" > data.csv
gt ingest --quiet csv data.csv

# a short calibration window and a large step, so that scores leave the
# window and the level moves; a short horizon for the combination
check "backtest with calibration and combined" status_is 0 gt backtest --root r --sites r,a,b,c --window 8,32 --tau 1,4 --method pareto,normal,last,empirical,adaptive,combined --horizon 20 --cal-window 50 --cal-gamma 0.05 --tolerance 1e-10 --moments m.csv --json
cp out.txt bt.json
check "moments header names the quantiles" sh -c "head -1 m.csv | grep -qx 'root,t,window,tau,method,regime,predicted_ms,actual_ms,p50_ms,p90_ms,p99_ms,p50_cal_ms,p90_cal_ms,p99_cal_ms'"
python3 "$GT_ROOT/tests/cli/forecast_ref.py" m.csv bt.json 60 50 0.05 20 0.5 > ref.txt
check "calibrated quantiles, combined forecasts and coverage agree with the reference ($(tail -1 ref.txt))" sh -c "head -1 ref.txt | grep -qx same || { head -5 ref.txt; false; }"
check "last has no quantiles" sh -c "awk -F, '\$5 == \"last\" && \$9 != \"\"' m.csv | grep -q . && exit 1 || exit 0"
check "the level moved: some calibrated p90 differs from its raw one" sh -c "awk -F, 'NR > 1 && \$10 != \"\" && \$10 != \$13' m.csv | grep -q ."

# the default settings, as documented, on the same store
check "defaults" status_is 0 gt backtest --root r --sites r,a,b,c --window 8 --tau 1 --moments d.csv --json
python3 "$GT_ROOT/tests/cli/forecast_ref.py" d.csv out.txt 60 1000 0.005 50 0.5 > ref2.txt
check "the defaults are W 1000, gamma 0.005, H 50, shrink 0.5 ($(tail -1 ref2.txt))" sh -c "head -1 ref2.txt | grep -qx same"
check "combined is a default method" python3 -c "import json,sys; sys.exit('combined' not in json.load(open('out.txt'))['methods'])"
check "csv carries the calibrated coverage" sh -c "$GT --db '$DB' backtest --root r --window 8 --tau 1 --csv | head -1 | grep -q ',covered_p50,covered_p90,covered_p99,calibration_ready$'"

check "--shrink 2: 1" status_is 1 gt backtest --shrink 2
check "--cal-window 0: 1" status_is 1 gt backtest --cal-window 0
check "combined alone: 1" status_is 1 gt backtest --method combined,adaptive
