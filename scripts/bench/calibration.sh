#!/bin/sh
# What calibrating the quantiles (docs/METHOD.md section 5, "Calibrated
# quantiles") adds to an answer: on the demo's store (gridtail synth
# --span 3d --seed 2026: 27 sites, 702 pairs, `refit --window 60` run
# first), window 60, horizon 600 s (a lead of 10 samples):
#   estimate, CERN + 25 partners, with --calibration 0 (the model's
#   quantiles: the baseline), 200 and 1000 (the default);
#   place from CERN over the 26 others, size 4, the same three ways.
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
for cal in 0 200 1000; do
    timed "estimate, --calibration $cal" "$W/e$cal.json" "$BIN" --db "$DB" estimate --root CERN \
        --sites "$sites" --skip-missing --window 60 --horizon 600s --calibration "$cal" --json
done
for cal in 0 200 1000; do
    timed "place, --calibration $cal" "$W/p$cal.json" "$BIN" --db "$DB" place --root CERN \
        --pool "CERN,$sites" --size 4 --window 60 --horizon 600s --calibration "$cal" --json
done
echo "load after:  $(uptime | sed 's/.*load average: //')"
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d=d.get('candidates',[d])[0]; print(' '.join('%s %.2f' % (k, v) for k, v in d['quantiles'].items()), '| rests on', (d['calibration'] or {}).get('outcomes', 0))" "$1"; }
for cal in 0 200 1000; do echo "estimate --calibration $cal: $(q "$W/e$cal.json")"; done
