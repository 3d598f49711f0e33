# A root's calibration kept by refit (METHOD.md section 5, "Calibrated
# quantiles"; calibrate.h, rootcache.h): an answer over the root's whole
# collective, or over the partners place takes (max_loss leaves r -> b
# and r -> d out: 1 and 2 of their last 8 probes lost), with refit's options reads the factors instead of
# replaying, and gives what the replay gave; any other collective, level,
# horizon or a newer sample replays.  Also the scope adaptive's cache
# shares: naming as many sites as the root has partners, one of them not
# a partner, is not the whole collective (it was taken for it).
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 28
DB=$(store t)
gt() { $GT --db "$DB" "$@"; }
gt init >/dev/null
python3 "$GT_ROOT/tests/data/bt_store.py" > data.csv
gt ingest --quiet csv data.csv
# y is a site (y -> r is stored) but not one of r's partners a, b, c, d
printf 'ts,src,dst,rtt_ms\n1795305600,y,r,10\n1795305660,y,r,11\n1795305720,y,r,12\n' > y.csv
gt ingest --quiet csv y.csv
ASK="--window 8 --horizon 60s --calibration 50 --json"
# python3 cal.py FILE: calibration.cached and the quantiles, one line
echo "import json,sys; d=json.load(open(sys.argv[1])); print(d['calibration']['cached'], json.dumps(d['quantiles'], sort_keys=True))" > cal.py

check "replayed before refit" status_is 0 gt estimate --root r --sites a,b,c,d $ASK
cp out.txt before.json
check "place replayed before refit" status_is 0 gt place --root r --pool r,a,b,c,d --size 2 $ASK
cp out.txt before_place.json
check "refit alone keeps no calibration" sh -c "$GT --db '$DB' refit $ASK | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit((d[\"roots_calibrated\"], d[\"calibrations\"]) != (0, 0))'"
check "refit --calibrate --calibration 50" status_is 0 gt refit --calibrate $ASK
check "refit calibrated both roots, r twice (all, and a, c)" python3 -c "import json,sys; d=json.load(open('out.txt')); sys.exit((d['roots_calibrated'], d['calibrations']) != (2, 3))"
check "the cached factors are the replay's" status_is 0 gt estimate --root r --sites a,b,c,d $ASK
cp out.txt after.json
python3 - > cmp.txt <<'PY'
import json
b, a = json.load(open("before.json")), json.load(open("after.json"))
bc, ac = b["calibration"], a["calibration"]
ok = bc.pop("cached") is False and ac.pop("cached") is True and bc == ac and \
     b["quantiles"] == a["quantiles"] and bc["outcomes"] == 50
print("same" if ok else (b["quantiles"], a["quantiles"], bc, ac))
PY
check "read from the cache, equal to the replay before it" grep -qx same cmp.txt
check "place reads the collective a, c" sh -c "$GT --db '$DB' place --root r --pool r,a,b,c,d --size 2 $ASK > after_place.json && python3 -c \"import json,sys; b, a = (json.load(open(f))['candidates'][0] for f in ('before_place.json', 'after_place.json')); sys.exit(not (a['calibration']['cached'] and not b['calibration']['cached'] and a['quantiles'] == b['quantiles'] and a['sites'] == b['sites']))\""
check "one level of those kept" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c,d $ASK --quantile 0.99 > q.json"
check "is read too" sh -c "python3 -c \"import json,sys; q=json.load(open('q.json')); a=json.load(open('after.json')); sys.exit(not (q['calibration']['cached'] and q['quantiles']['p99'] == a['quantiles']['p99']))\""
check "a level not kept replays" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c,d $ASK --quantile 0.9,0.999 > l.json && python3 cal.py l.json | grep -q '^False '"
check "another horizon replays" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c,d --window 8 --horizon 120s --calibration 50 --json > h.json && python3 cal.py h.json | grep -q '^False '"
check "a subset of the partners replays" sh -c "$GT --db '$DB' estimate --root r --sites a,b $ASK > s.json && python3 cal.py s.json | grep -q '^False '"
# four names for r's four partners, y not one of them: the collective is
# a, b, c, not the whole one the cache holds (nor a, c: place's)
check "as many names as partners, one not a partner, replays" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c,y --skip-missing $ASK > y.json && python3 cal.py y.json | grep -q '^False '"
gt estimate --root r --sites a,b,c $ASK > abc.json
check "and answers as a, b, c" python3 -c "import json; a, b = (json.load(open(f)) for f in ('y.json', 'abc.json')); [d['calibration'].pop('cached') for d in (a, b)]; exit(not (a['quantiles'] == b['quantiles'] and a['calibration'] == b['calibration']))"
check "which read the calibration the answer before kept (same partners)" python3 -c "import json,sys; sys.exit(not json.load(open('abc.json'))['calibration']['cached'])"
check "refit --model adaptive" status_is 0 gt refit --calibrate --model adaptive $ASK
check "adaptive's cache: as many names, one not a partner, replays" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c,y --skip-missing --model adaptive $ASK | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)[\"adaptive\"][\"cached\"] is not False)'"
check "adaptive's cache: the whole collective is read" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c,d --model adaptive $ASK | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(not (d[\"adaptive\"][\"cached\"] and d[\"calibration\"][\"cached\"]))'"
check "refit --calibrate --calibration 0 calibrates nothing" sh -c "$GT --db '$DB' refit --calibrate --window 8 --calibration 0 --json | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)[\"roots_calibrated\"] != 0)'"
printf '[advisor]\nrefit_calibration = 1\n' > refit.conf
check "[advisor] refit_calibration = 1 calibrates, and refit says so" sh -c "GRIDTAIL_CONFIG=refit.conf $GT --db '$DB' refit --window 8 --horizon 60s --calibration 50 | grep -q \"2 roots' quantiles calibrated 60 s ahead (3 collectives;\""
# place calibrates every root it may choose on the advisor's threads, each
# on its own connection: the same answers on one thread and on three
# (each replays: nothing kept from the answers before)
sql "DELETE FROM fit_cache WHERE model LIKE 'calib%'"
check "place over every root, one thread" sh -c "$GT --db '$DB' place --pool r,a,b,c,d,y --size 2 --objective p99 --top 3 --threads 1 $ASK --calibration 60 > t1.json"
sql "DELETE FROM fit_cache WHERE model LIKE 'calib%'"
check "three threads answer the same" sh -c "$GT --db '$DB' place --pool r,a,b,c,d,y --size 2 --objective p99 --top 3 --threads 3 $ASK --calibration 60 > t3.json && python3 -c \"import json,sys; a, b = (json.load(open(f))['candidates'] for f in ('t1.json', 't3.json')); sys.exit(not (a and [(c['root'], c['quantiles'], {k: v for k, v in c['calibration'].items() if k != 'cached'}) for c in a] == [(c['root'], c['quantiles'], {k: v for k, v in c['calibration'].items() if k != 'cached'}) for c in b]))\""
# a new sample of r's drops r's record: replayed again
LAST=$(tail -1 data.csv | cut -d, -f1)
printf 'ts,src,dst,rtt_ms\n%s,r,a,31.5\n' $((LAST + 60)) > more.csv
gt ingest --quiet csv more.csv
check "a new sample replays" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c,d $ASK > n.json && python3 cal.py n.json | grep -q '^False '"
check "the answer kept it: the same question reads it, the same quantiles" sh -c "$GT --db '$DB' estimate --root r --sites a,b,c,d $ASK > n2.json && python3 cal.py n2.json | grep -q '^True ' && [ \"\$(python3 cal.py n.json | cut -d' ' -f2-)\" = \"\$(python3 cal.py n2.json | cut -d' ' -f2-)\" ]"
kept=$(sql "SELECT count(*) FROM fit_cache WHERE model LIKE 'calib%'")
check "an --at before the newest sample replays" sh -c "$GT --db '$DB' estimate --root r --sites a,b --at $LAST $ASK > at.json && python3 cal.py at.json | grep -q '^False '"
check "and is not kept (the record is for the newest sample)" [ "$(sql "SELECT count(*) FROM fit_cache WHERE model LIKE 'calib%'")" = "$kept" ]
check "refit --quantile 0.5,0.9,0.99,0.999 keeps the fourth level too" sh -c "$GT --db '$DB' refit --calibrate $ASK --quantile 0.5,0.9,0.99,0.999 >/dev/null && $GT --db '$DB' estimate --root r --sites a,b,c,d $ASK --quantile 0.999 > f.json && python3 cal.py f.json | grep -q '^True '"
