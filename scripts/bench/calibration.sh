#!/bin/sh
# What calibrating the quantiles (docs/METHOD.md section 5, "Calibrated
# quantiles") adds to an answer: on the demo's store (gridtail synth
# --span 3d --seed 2026: 27 sites, 702 pairs, `refit --window 60` run
# first: fits kept, no calibration), window 60,
# horizon 600 s (a lead of 10 samples):
#   estimate, CERN and its 26 partners, with --calibration 0 (the
#   model's quantiles: the baseline), 1000 and 3000 (the default),
#   replayed;
#   place from CERN over the 26 others, size 4, the same three ways;
#   then `refit --calibrate --window 60 --horizon 600s` (keeping every root's
#   calibration: timed once) and estimate and place with the default
#   again, reading it.
# Each runs REPS times (default 5): mean wall and CPU seconds
# (cputime.inc), and once under callgrind when valgrind is present.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
REPS=${REPS:-5}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export GRIDTAIL_CONFIG=/dev/null
DB=$W/t.db
. "$ROOT/scripts/bench/cputime.inc"
. "$ROOT/scripts/bench/stores.inc"
demo_store "$BIN" "$DB" "$W"
sites=$(tail -n +2 "$W/sites.csv" | cut -d, -f1 | grep -vx CERN | paste -sd, -)
echo "load before: $(uptime | sed 's/.*load average: //')  ($(nproc) cores)"
echo "                                     wall        CPU   instructions   (mean of $REPS runs)"
for cal in 0 1000 3000; do
    timed "estimate, --calibration $cal" "$W/e$cal.json" "$BIN" --db "$DB" estimate --root CERN \
        --sites "$sites" --skip-missing --window 60 --horizon 600s --calibration "$cal" --json
done
for cal in 0 1000 3000; do
    timed "place, --calibration $cal" "$W/p$cal.json" "$BIN" --db "$DB" place --root CERN \
        --pool "CERN,$sites" --size 4 --window 60 --horizon 600s --calibration "$cal" --json
done
"$BIN" --db "$DB" refit --calibrate --window 60 --horizon 600s --json > "$W/refit.json"
echo "  refit keeping every root's calibration: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('%d roots, %d collectives, %.0f ms' % (d['roots_calibrated'], d['calibrations'], d['elapsed_ms']))" "$W/refit.json")"
timed "estimate, kept by refit" "$W/ek.json" "$BIN" --db "$DB" estimate --root CERN \
    --sites "$sites" --skip-missing --window 60 --horizon 600s --calibration 3000 --json
timed "place, kept by refit" "$W/pk.json" "$BIN" --db "$DB" place --root CERN \
    --pool "CERN,$sites" --size 4 --window 60 --horizon 600s --calibration 3000 --json
echo "load after:  $(uptime | sed 's/.*load average: //')"
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d=d.get('candidates',[d])[0]; print(' '.join('%s %.2f' % (k, v) for k, v in d['quantiles'].items()), '| rests on', (d['calibration'] or {}).get('outcomes', 0))" "$1"; }
for cal in 0 1000 3000; do echo "estimate --calibration $cal: $(q "$W/e$cal.json")"; done
echo "estimate kept by refit: $(q "$W/ek.json")"
python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
for kind, rep, kept in (("estimate", "e3000", "ek"), ("place", "p3000", "pk")):
    a, b = (json.load(open(f"{w}/{f}.json")) for f in (rep, kept))
    a, b = a.get("candidates", [a])[0], b.get("candidates", [b])[0]
    same = a["quantiles"] == b["quantiles"] and b["calibration"]["cached"]
    print(f"{kind}: the kept calibration answers as the replay: {'yes' if same else 'NO'}")
PY
