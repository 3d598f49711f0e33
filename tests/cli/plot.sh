# tier: slow
# gridtail plot (issue 15): every plot is valid SVG (xmllint), its axes
# span the data, and hand-worked cases put known points at the pixels
# worked out from the plot area and the axis ranges, which the tick labels
# confirm (tests/ref/svgcheck.py reads the axes back from two labelled
# ticks each).  The values drawn are the store's (pairs, place, backtest).
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 82 65
DB=$(store t)
gt() { $GT --db "$DB" "$@"; }
svg() { python3 "$GT_ROOT/tests/ref/svgcheck.py" "$@"; }
valid() { xmllint --noout "$1"; }
gt init >/dev/null
T0=1795305600
# p -> q: ten samples 10, 20, ..., 100 ms (ccdf by hand); r -> s: 120
# minutes at 100 ms then 200 ms, the 31st lost (series by hand); a, b, c,
# d: two clusters, a-c and b-d close, every other pair far (matrix order)
awk -v t0=$T0 'BEGIN { print "ts,src,dst,rtt_ms";
    for (i = 1; i <= 10; i++) printf "%d,p,q,%d\n", t0 + 60 * i, 10 * i
    for (i = 0; i < 120; i++) printf "%d,r,s,%s\n", t0 + 60 * i, i == 30 ? "" : (i < 60 ? 100 : 200)
    split("a b c d", n, " ");
    for (i = 1; i <= 4; i++) for (j = 1; j <= 4; j++) if (i != j)
        for (k = 0; k < 80; k++) {
            base = ((i + j) % 2 == 0) ? 10 + i + j : 150 + 10 * (i + j)
            printf "%d,%s,%s,%.2f\n", t0 + 60 * k, n[i], n[j], base + (k * 7 % 11) / 4
        }
}' > in.csv
gt ingest --quiet csv in.csv

# ---- ccdf: P(RTT >= x_(i)) = (10 - i)/10; x axis 10 .. 100 ms on pixels
# 80 .. 730, y axis 0.1 .. 1 on pixels 420 .. 40, both log:
# x = 80 + 650 log10(x / 10), y = 420 - 380 (1 + log10 P)
check "plot ccdf" status_is 0 gt plot ccdf --src p --dst q --window 10 --at $((T0 + 3600)) -o ccdf.svg
check "ccdf: valid SVG" valid ccdf.svg
check "ccdf: the axes span the data" svg span ccdf.svg
check "ccdf: (10 ms, 1) at (80, 40)" svg place ccdf.svg 10 1 80 40
check "ccdf: (20 ms, 0.9) at (275.67, 57.39)" svg place ccdf.svg 20 0.9 275.67 57.39
check "ccdf: (50 ms, 0.6) at (534.33, 124.30)" svg place ccdf.svg 50 0.6 534.33 124.30
check "ccdf: (100 ms, 0.1) at (730, 420)" svg place ccdf.svg 100 0.1 730 420
check "ccdf: ten points" sh -c "svg() { python3 $GT_ROOT/tests/ref/svgcheck.py \"\$@\"; }; [ \$(svg marks ccdf.svg | wc -l) -eq 10 ]"
# both fits of these ten are flagged: the Pareto (k 10, alpha 0.662) has
# its p90 at 10 x 10^(1/0.662) = 324 ms, beyond all ten samples; the
# normal (55, 30.3) has Phi(-55 / 30.3) = 3.5 % of its mass below 0 ms:
# the advisor takes the samples, and the legend must not call a fit selected
check "ccdf: both fits, neither selected, the samples used" sh -c "grep -q 'Pareto k = 10 ms, α = [^<]*(flagged: quantiles off)<' ccdf.svg && grep -q 'normal μ = 55 ms[^<]*(smaller index; flagged: [^<]*mass below 0 ms)<' ccdf.svg && ! grep -q '(selected)' ccdf.svg && grep -q \"used: the window's samples (empirical)\" ccdf.svg"
gt fit --src p --dst q --window 10 --at $((T0 + 3600)) --json > fit.json
alpha=$(python3 -c "import json; print('%.3g' % json.load(open('fit.json'))['pareto']['alpha'])")
check "ccdf: alpha as fit says ($alpha)" grep -q "α = $alpha," ccdf.svg
check "ccdf: Pareto and normal curves drawn" sh -c "grep -q 'class=\"pareto' ccdf.svg && grep -q 'class=\"normal' ccdf.svg"

# ---- series: 12 bins of 600 s over [T0, T0 + 7200]: x = 80 + 790 (t - T0)
# / 7200 on a time axis; y 0 .. 200 ms on 410 .. 76; bin 0 (100 ms) is
# at (112.92, 243), bin 11 (200 ms) at (837.08, 76)
check "plot series" status_is 0 gt plot series --src r --dst s --from $T0 --to $((T0 + 7200)) --bins 12 --window 30 -o series.svg
check "series: valid SVG" valid series.svg
check "series: the axes span the data" svg span series.svg
check "series: bin 0 median at (112.92, 243)" svg place series.svg $((T0 + 300)) 100 112.92 243
check "series: bin 11 median at (837.08, 76)" svg place series.svg $((T0 + 6900)) 200 837.08 76
check "series: bin 3 lost one of ten" sh -c "svg() { python3 $GT_ROOT/tests/ref/svgcheck.py \"\$@\"; }; [ \"\$(svg attr series.svg rect data-loss)\" = 0.1 ]"
shift_t=$(svg attr series.svg path data-t | head -1)
check "series: one level shift, at the change (t = $shift_t)" sh -c "[ \"\$(python3 $GT_ROOT/tests/ref/svgcheck.py attr series.svg path data-t | wc -l)\" -eq 1 ] && [ $shift_t -ge $((T0 + 3600 - 120)) ] && [ $shift_t -le $((T0 + 3600 + 120)) ]"
check "series: the fit window is the last 30 samples" sh -c "[ \"\$(python3 $GT_ROOT/tests/ref/svgcheck.py attr series.svg rect data-from)\" = $((T0 + 5400)) ]"
check "series: default period, the pair's last day" status_is 0 gt plot series --src r --dst s -o day.svg
check "series: --from alone runs to the newest sample" sh -c "$GT --db '$DB' plot series --src r --dst s --from $((T0 + 3600)) --bins 6 -o from.svg && python3 $GT_ROOT/tests/ref/svgcheck.py attr from.svg g data-lo | head -1 | grep -qx $((T0 + 3600)) && python3 $GT_ROOT/tests/ref/svgcheck.py attr from.svg g data-hi | head -1 | grep -qx $((T0 + 7140))"
check "series: --to alone is the day before it" sh -c "$GT --db '$DB' plot series --src r --dst s --to $((T0 + 7200)) -o to.svg && python3 $GT_ROOT/tests/ref/svgcheck.py attr to.svg g data-lo | head -1 | grep -qx $((T0 + 7200 - 86400))"
check "series: --from after the newest sample: usage" status_is 1 gt plot series --src r --dst s --from $((T0 + 9000)) -o x.svg
check "series: --log" status_is 0 gt plot series --src r --dst s --log -o log.svg
check "series --log: valid, spans the data" sh -c "xmllint --noout log.svg && python3 $GT_ROOT/tests/ref/svgcheck.py span log.svg"
check "series: r -> s (100 and 200 ms, max/min 2) keeps a linear RTT axis" sh -c "grep -q 'class=\"axis y\" data-kind=\"linear\"' series.svg && grep -q '>RTT (ms)<' series.svg"

# ---- the series' axis from the data, the CCDF's verdict, the ids of two
# plots in one page: a store of their own (the matrix above counts sites).
# u -> v: 10 ms but for one 600 s bin at 1000 ms (max/min 100: log);
# w -> z: 10 ms but for one bin at 90 ms (max/min 9, under 10: linear);
# m -> n: 105 samples near 20 ms and 15 at 390-500 ms (empirical.sh's
# window: a normal with 30 % of its mass below 0 ms, a Pareto that misses
# the second mode: both fits flagged, the advisor takes the samples);
# p -> q: 10 ms +- 1 % with spikes of 1, 2 and 3 samples at 30, 60 and 90
# of 100 times the rest (issue 46: never a level shift)
awk -v t0=$T0 'BEGIN { print "ts,src,dst,rtt_ms";
    for (i = 0; i < 120; i++) printf "%d,p,q,%.2f\n", t0 + 60 * i,
        (i == 30 || (i >= 60 && i < 62) || (i >= 90 && i < 93)) ? 1000 : 10 + (i % 3 - 1) * 0.1
    for (i = 0; i < 120; i++) printf "%d,u,v,%d\n", t0 + 60 * i, (i >= 60 && i < 70) ? 1000 : 10
    for (i = 0; i < 120; i++) printf "%d,w,z,%d\n", t0 + 60 * i, (i >= 60 && i < 70) ? 90 : 10
    for (i = 1; i <= 120; i++) { v = (i % 8 == 0) ? 390 + (i * 37) % 111 : 20 + (i * 13 % 10) / 10;
        printf "%d,m,n,%.1f\n", t0 + 60 * i, v }
}' > in2.csv
DB2=$(store t2)
$GT --db "$DB2" init > /dev/null
$GT --db "$DB2" ingest --quiet csv in2.csv
S2="--from $T0 --to $((T0 + 7200)) --bins 12 --window 30"
check "series: a spike 100 times the rest gets a log axis, saying why" sh -c "$GT --db '$DB2' plot series --src u --dst v $S2 -o spike.svg && grep -q 'class=\"axis y\" data-kind=\"log\"' spike.svg && grep -q 'log scale: max/min 100 &gt; 10' spike.svg"
check "series: the spike's log axis spans the data" svg span spike.svg
check "series: spikes of 1, 2 and 3 samples are no level shift (offline), nor events (online)" sh -c "$GT --db '$DB2' plot series --src p --dst q $S2 -o spikes.svg && ! grep -q 'class=\"shift\" data-t' spikes.svg && grep -q 'level shift (0)' spikes.svg && [ \"\$($GT --db '$DB2' events --src p --kind shift --from $T0 --to $((T0 + 7200)) --json | tr -d ' \n' | grep -o '\"total\":[0-9]*')\" = '\"total\":0' ]"
check "series: max/min 9 stays linear" sh -c "$GT --db '$DB2' plot series --src w --dst z $S2 -o nine.svg && grep -q 'class=\"axis y\" data-kind=\"linear\"' nine.svg"
AT2=$((T0 + 7300))
check "ccdf of a pair whose fits are both flagged" status_is 0 $GT --db "$DB2" plot ccdf --src m --dst n --window 120 --at $AT2 -o both.svg
check "ccdf: it calls neither fit selected, and says both are flagged" sh -c "! grep -q '(selected)' both.svg && grep -q 'Pareto k = [^<]*(flagged: quantiles off)<' both.svg && grep -q 'normal μ = [^<]*(smaller index; flagged: quantiles off, mass below 0 ms)<' both.svg"
check "ccdf: it names the model used: the window's samples" grep -q "used: the window's samples (empirical): both fits would change the answer" both.svg
check "ccdf: no fit curve drawn bold" sh -c "! grep -q 'class=\"[a-z]* selected\"' both.svg"
check "ccdf: as the advisor's estimate of the pair says (empirical, fallback)" sh -c "$GT --db '$DB2' estimate --root m --sites n --window 120 --at $AT2 --json | tr -d ' \n' | grep -q '\"model\":\"empirical\",[^}]*},\"fallback\":true'"
check "ccdf: with [advisor] fallback_empirical = 0 the smaller index is used" sh -c "printf '[advisor]\nfallback_empirical = 0\n' > nofb.conf && $GT --config nofb.conf --db '$DB2' plot ccdf --src m --dst n --window 120 --at $AT2 -o nofb.svg && grep -q 'normal μ = [^<]*(selected; flagged: quantiles off, mass below 0 ms)<' nofb.svg && grep -q 'used: normal, the selected fit' nofb.svg && grep -q 'class=\"normal selected\"' nofb.svg"
check "ccdf: a -> c's normal, as the advisor's estimate (normal, no fallback), is selected and used" sh -c "$GT --db '$DB' plot ccdf --src a --dst c --window 60 --at $((T0 + 4800)) -o ac.svg && grep -q 'normal μ = [^<]*(selected)<' ac.svg && grep -q 'used: normal, the selected fit' ac.svg && grep -q 'class=\"normal selected\"' ac.svg && $GT --db '$DB' estimate --root a --sites c --window 60 --at $((T0 + 4800)) --json | tr -d ' \n' | grep -q '\"model\":\"normal\",[^}]*},\"fallback\":false'"
# the dashboard puts a pair's CCDF and series in one page: an id of one
# taken by the other clips it to the other's plot area (the series lost
# its newest hours to the CCDF's narrower clip)
$GT --db "$DB2" plot series --src m --dst n -o mn_series.svg
$GT --db "$DB2" plot ccdf --src m --dst n --window 120 -o mn_ccdf.svg
check "a pair's ccdf and series share no id, and each clips by its own" python3 - mn_ccdf.svg mn_series.svg <<'PYEOF'
import re, sys
ids = [set(re.findall(r' id="([^"]+)"', open(f).read())) for f in sys.argv[1:]]
refs = [set(re.findall(r'url\(#([^)]+)\)', open(f).read())) for f in sys.argv[1:]]
assert all(ids) and not (ids[0] & ids[1]), ids
assert all(r and r <= i for r, i in zip(refs, ids)), (refs, ids)
PYEOF

# ---- matrix: every pair's median as its cell; a and c, b and d together
check "plot matrix" status_is 0 gt plot matrix -o matrix.svg
check "matrix: valid SVG" valid matrix.svg
check "matrix: 8 x 8 cells" sh -c "[ \$(grep -c 'data-src=' matrix.svg) -eq 64 ]"
gt pairs --json > pairs.json
check "matrix: every cell is its pair's median" python3 - <<'EOF'
import json, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
want = {(p["src"], p["dst"]): p["median_ms"] for p in json.load(open("pairs.json"))["pairs"]}
got = {(r.get("data-src"), r.get("data-dst")): float(r.get("data-v"))
       for r in ET.parse("matrix.svg").getroot().iter(NS + "rect") if r.get("data-src")}
cells = [k for k in got if got[k] == got[k]]
assert sorted(cells) == sorted(want), (cells, list(want))
for k in cells:
    assert abs(got[k] - want[k]) <= 1e-9 * want[k], (k, got[k], want[k])
EOF
rows=$(svg attr matrix.svg rect data-src | awk '!seen[$0]++' | paste -sd, -)
check "matrix: seriated rows keep a-c and b-d together ($rows)" sh -c "echo $rows | grep -Eq '(a,c|c,a)' && echo $rows | grep -Eq '(b,d|d,b)'"
check "matrix --by-name" status_is 0 gt plot matrix --by-name --metric p99 -o byname.svg
rows=$(svg attr byname.svg rect data-src | awk '!seen[$0]++' | paste -sd, -)
check "matrix --by-name: a,b,c,d,p,q,r,s ($rows)" [ "$rows" = a,b,c,d,p,q,r,s ]
for m in loss alpha; do
    check "matrix --metric $m: valid" sh -c "$GT --db '$DB' plot matrix --metric $m --at $((T0 + 7200)) -o m_$m.svg && xmllint --noout m_$m.svg"
done
check "matrix --highlight frames a and c" sh -c "$GT --db '$DB' plot matrix --highlight a,c -o hl.svg && [ \$(grep -c 'class=\"hl\"' hl.svg) -eq 2 ]"

# ---- emax: the best set of each size is place's answer
check "plot emax" status_is 0 gt plot emax --root a --pool b,c,d --sizes 1..3 --at $((T0 + 4800)) --window 60 -o emax.svg
check "emax: valid SVG" valid emax.svg
check "emax: the axes span the data" svg span emax.svg
for k in 1 2 3; do
    gt place --root a --pool b,c,d --size $k --at $((T0 + 4800)) --window 60 --json > place$k.json
    want=$(python3 -c "import json; print(json.load(open('place$k.json'))['candidates'][0]['e_max'])")
    got=$(svg marks emax.svg | awk -v k=$k '$1 == k && $5 == "c1" { print $2 }')
    check "emax: size $k at place's E[max] ($got, $want)" python3 -c "import sys; g, w = float('$got'), float('$want'); sys.exit(abs(g - w) > 1e-9 * w)"
done
check "emax: the first point names its set" grep -q '>a: c<' emax.svg
if first_pass; then
    check "plot emax: --sizes is required" status_is 1 gt plot emax --root a --pool b,c,d -o x.svg
    check "plot emax: --sizes 3..1 is refused" status_is 1 gt plot emax --root a --pool b,c,d --sizes 3..1 -o x.svg
fi

# ---- backtest: each cell is the report's RMSE
if first_pass; then
    gt backtest --root a --window 4,8 --tau 1,2 --json > bt.json
    check "plot backtest" status_is 0 $GT plot backtest bt.json -o bt.svg
    check "backtest: valid SVG" valid bt.svg
    check "backtest: every RMSE cell is the report's" python3 - <<'EOF'
import json, math, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
rep = json.load(open("bt.json"))
want = {(c["method"], c["window"], c["tau"]): c["rmse_ms"] for c in rep["cells"] if c["regime"] == "all"}
n = 0
for g in ET.parse("bt.svg").getroot().iter(NS + "g"):
    if g.get("data-kind") != "rmse":
        continue
    for r in g.iter(NS + "rect"):
        w = want[(g.get("data-method"), float(r.get("data-window")), float(r.get("data-tau")))]
        v = float(r.get("data-v"))
        assert (w is None and math.isnan(v)) or abs(v - w) <= 1e-9 * w, (w, v)
        n += 1
assert n == len(want), (n, len(want))
EOF
fi
check "every plot so far: each number on a tick is its data-v (0.6, not 0.6000000000000001)" python3 - *.svg <<'EOF'
import re, sys
bad = []
for f in sys.argv[1:]:
    for v, label in re.findall(r'<text class="tick" data-v="([^"]*)"[^>]*>([^<]*)</text>', open(f).read()):
        try:
            shown = float(label)
        except ValueError:
            continue   # a date
        if float(v) != shown:
            bad.append(f"{f}: data-v={v}, label {label}")
print("\n".join(bad[:5]), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
if first_pass; then
    printf '{"windows": [4], "taus": "x"}' > bad.json
    check "plot backtest: a bad report names the field" sh -c "$GT plot backtest bad.json -o x.svg 2>&1 >/dev/null | grep -q 'taus'; [ \$? -eq 0 ]"
    check "plot backtest: exit 2 on a bad report" status_is 2 $GT plot backtest bad.json -o x.svg
    check "plot backtest: exit 2 on broken JSON" sh -c "echo '{' > broken.json; $GT plot backtest broken.json -o x.svg 2>err2.txt; [ \$? -eq 2 ] && grep -q 'broken.json:' err2.txt"
fi

# ---- errors
if first_pass; then
    check "plot: no kind is a usage error" status_is 1 gt plot
    check "plot: unknown kind" status_is 1 gt plot pie -o x.svg
    check "plot ccdf: --src and --dst needed" status_is 1 gt plot ccdf --src p -o x.svg
fi
check "plot ccdf: unknown pair is exit 2" status_is 2 gt plot ccdf --src p --dst zz -o x.svg
if first_pass; then
    check "plot series: --bins 0" status_is 1 gt plot series --src r --dst s --bins 0 -o x.svg
    check "plot series: --to before --from" status_is 1 gt plot series --src r --dst s --from $((T0 + 100)) --to $T0 -o x.svg
    check "plot matrix: unknown metric" status_is 1 gt plot matrix --metric mean -o x.svg
fi
check "plot matrix: unknown site to highlight" status_is 2 gt plot matrix --highlight a,zz -o x.svg
check "plot: -o into a missing directory is exit 3" status_is 3 gt plot matrix -o nodir/x.svg
check "plot: no file is left behind by a failure" sh -c "! ls x.svg nodir 2>/dev/null"
check "plot: to stdout when it is not a terminal" sh -c "$GT --db '$DB' plot matrix > out.svg && xmllint --noout out.svg"
if first_pass; then
    check "plot --help" sh -c "$GT plot --help | grep -q 'plot backtest REPORT.json'"
fi

# -o onto something that is not a regular file is written in place: the
# atomic rename used to replace it (`-o /dev/null` replaced /dev/null)
for cmd in "plot matrix" "export --src p --dst q"; do
    rm -f fifo.out got.out
    mkfifo fifo.out
    cat fifo.out > got.out &
    rpid=$!
    gt $cmd -o fifo.out > /dev/null 2>&1
    # the reader ends at the writer's end of file (a hang guard kills it)
    wait_until 60 sh -c "! kill -0 $rpid 2>/dev/null"
    kill $rpid 2>/dev/null
    wait $rpid 2>/dev/null
    check "$cmd -o FIFO: still a FIFO, and its reader got the output" sh -c "[ -p fifo.out ] && [ -s got.out ]"
done
check "-o a directory: exit 3" status_is 3 gt plot matrix -o .
if first_pass; then
    check "plot matrix --samples 0: usage" status_is 1 gt plot matrix --samples 0 -o x.svg
fi
check "plot matrix --samples 5: the newest five of each pair" sh -c "$GT --db '$DB' plot matrix --samples 5 --metric median -o s5.svg && grep -q 'newest 5 samples' s5.svg && grep -q 'data-src=\"r\" data-dst=\"s\" data-v=\"200\"' s5.svg"

# plot backtest takes any JSON: 300 mutations of a real report (fields
# dropped, retyped, renamed, numbers made huge, NaN-like or negative)
# each end in exit 0 or 2, never a crash.  No store is read: run once, on
# the SQLite pass (15 s of the script's time)
if first_pass; then
python3 - "$GT_BIN" > fuzz.txt <<'PYEOF'
import json, random, subprocess, sys
base = json.load(open("bt.json"))
rnd = random.Random(15)
odd = [None, "", "x", -1, 0, 1e308, -1e308, 2**63, [], {}, True, [1, 2], "nan"]
def mutate(d):
    if isinstance(d, dict) and d:
        k = rnd.choice(list(d))
        r = rnd.random()
        if r < 0.3: del d[k]
        elif r < 0.6: d[k] = rnd.choice(odd)
        else: mutate(d[k])
    elif isinstance(d, list) and d:
        i = rnd.randrange(len(d))
        r = rnd.random()
        if r < 0.2: del d[i]
        elif r < 0.5: d[i] = rnd.choice(odd)
        elif r < 0.6: d.extend(d[:3] * 10)
        else: mutate(d[i])
bad = 0
for n in range(300):
    d = json.loads(json.dumps(base))
    for _ in range(rnd.randint(1, 4)):
        mutate(d)
    json.dump(d, open("m.json", "w"))
    rc = subprocess.call([sys.argv[1], "plot", "backtest", "m.json", "-o", "m.svg"],
                         stderr=subprocess.DEVNULL)
    if rc not in (0, 2):
        bad += 1
        print("exit", rc, json.dumps(d)[:300])
print("bad", bad)
PYEOF
check "plot backtest: 300 mutated reports, no crash ($(tail -1 fuzz.txt))" grep -qx 'bad 0' fuzz.txt
fi
