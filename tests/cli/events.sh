# tier: slow
# gridtail events (issue 28, part 1): level shifts, loss bursts, outages
# and their end, silences, found from the stored samples of a range.  A
# pair written here, a sample a minute from T0, minute by minute:
#   0-59    10.0, 10.2, 10.0, ... (a one-sample spike of 50 ms at 30)
#   60-119  15.0, 15.2, ...       a shift: medians 10.2 -> 15.1 (+48.0 %)
#   120-123 lost                  a loss burst of 4, until minute 124
#   124-139 15.0, 15.2, ...
#   140-149 lost                  an outage (600 s >= outage_s 300) of 10, its end at 150
#   150-159 15.0, 15.2, ...
#   160-189 nothing               silent from 159 (the last sample) until 190
#   190-199 15.0, 15.2, ...       reporting again at 190
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 25 22
DB=$(store ev)
T0=1793491200
awk -v t0=$T0 'BEGIN {
    print "ts,src,dst,rtt_ms"
    for (m = 0; m < 200; m++) {
        if (m >= 160 && m < 190) continue
        v = (m % 2) ? 0.2 : 0
        if (m < 60) r = (m == 30) ? 50 : 10 + v
        else if ((m >= 120 && m < 124) || (m >= 140 && m < 150)) r = ""
        else r = 15 + v
        printf "%d,a,b,%s\n", t0 + 60 * m, r
    }
    print t0 ",b,a,20"   # another pair, quiet but for its silence
}' > ev.csv
$GT --db "$DB" init >/dev/null && $GT --db "$DB" ingest --json csv ev.csv > ingest.json 2>/dev/null
E="$GT --db $DB events --from $T0 --to $((T0 + 12000))"
$E --src a --dst b --json > ev.json
at() { echo $((T0 + 60 * $1)); }
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
want="shift@$(iso $(at 60)) loss_burst@$(iso $(at 120)) outage@$(iso $(at 140)) outage_end@$(iso $(at 150)) silent@$(iso $(at 159)) reporting@$(iso $(at 190)) "
check "a -> b: the six events, in time order, at the minutes worked by hand" \
    [ "$(python3 -c "import json; print(' '.join(e['kind'] + '@' + e['ts'] for e in json.load(open('ev.json'))['events']))") " = "$want" ]
field() {   # field KIND KEY
    python3 -c "import json; print([e for e in json.load(open('ev.json'))['events'] if e['kind'] == '$1'][0]['$2'])"
}
check "the shift: medians 10.2 -> 15.1 ms, its detail +48.0 %" \
    [ "$(field shift before_ms) $(field shift after_ms) $(field shift detail)" = "10.2 15.1 median 10.2 -> 15.1 ms (+48.0 %)" ]
check "the one-sample spike at minute 30 is no shift" \
    [ "$(python3 -c "import json; print(sum(e['kind'] == 'shift' for e in json.load(open('ev.json'))['events']))")" = 1 ]
check "the burst: 4 lost, until minute 124; the outage: 10 lost, until minute 150" \
    [ "$(field loss_burst lost) $(field loss_burst until) $(field outage lost) $(field outage until)" = "4 $(iso $(at 124)) 10 $(iso $(at 150))" ]
check "the silence: until minute 190" [ "$(field silent until)" = "$(iso $(at 190))" ]
check "b -> a: its one sample, then silent still (until null)" \
    sh -c "$E --src b --json | python3 -c \"import json,sys; e=json.load(sys.stdin)['events'];
sys.exit(not (len(e) == 1 and e[0]['kind'] == 'silent' and e[0]['until'] is None))\""
check "--kind outage: the outage alone" \
    sh -c "$E --kind outage | grep -c ' outage ' | grep -qx 1 && $E --kind outage | tail -1 | grep -qx '1 events'"
check "--from after the shift: not listed, though the detector read the hour before" \
    sh -c "$GT --db $DB events --src a --from $(at 61) --to $((T0 + 12000)) --json | python3 -c \"import json,sys;
sys.exit(any(e['kind'] == 'shift' for e in json.load(sys.stdin)['events']))\""
if first_pass; then
    check "--from not before --to: usage error (1)" status_is 1 $GT --db "$DB" events --from $T0 --to $T0
fi

# plot series marks the same events
$GT --db "$DB" plot series --src a --dst b --from $T0 --to $((T0 + 12000)) -o ev.svg
check "plot series: one dashed shift, at minute 60" \
    [ "$(python3 "$GT_ROOT/tests/ref/svgcheck.py" attr ev.svg path data-t | tr '\n' ' ')" = "$(at 60) " ]
check "...and the outage (minutes 140-150) and the silence (159-190) as spans" \
    python3 -c "import re,sys; s=open('ev.svg').read();
sys.exit(not (re.search(r'class=\"outage\" data-from=\"$(at 140)\" data-to=\"$(at 150)\"', s)
              and re.search(r'class=\"silent\" data-from=\"$(at 159)\" data-to=\"$(at 190)\"', s)))"

# the server: GET /v1/events answers the CLI's document
serve_start "$DB"
curl -s "$URL/v1/events?src=a&from=$T0&to=$((T0 + 12000))" > api.json
check "GET /v1/events: the CLI's events" python3 -c "import json,sys;
sys.exit(json.load(open('api.json')) != json.load(open('ev.json')))"
if first_pass; then
    check "GET /v1/events?kind=bad: 400 naming the field" \
        sh -c "curl -s -o bad.json -w '%{http_code}' '$URL/v1/events?kind=bad' | grep -qx 400 && grep -q '\"field\": \"kind\"' bad.json"
fi
kill $pid; wait $pid

# Stored as found (ingest, refit), idempotent, pruned with the samples.
# ingest found them: a -> b's seven (the six above and a silence still
# going at the last sample, judged at now) and b -> a's one.
check "ingest stored the events it found: 2 pairs, 8 events" \
    [ "$(python3 -c "import json; e=json.load(open('ingest.json'))['events']; print(e['pairs'], e['found'])") $(sql "SELECT count(*) FROM events")" = "2 8 8" ]
dump() { sql "SELECT pair, ts, kind, until, lost, before_ms, after_ms FROM events ORDER BY pair, ts, kind"; }
dump > stored1.txt
$GT --db "$DB" refit >/dev/null && $GT --db "$DB" refit >/dev/null
dump > stored2.txt
check "refit twice: the same sample events stored (idempotent)" \
    sh -c "grep -v '|64|' stored2.txt | diff -q stored1.txt - >/dev/null"
$E --src a --dst b --json > ev2.json
check "the answer after the refits is the answer before" \
    python3 -c "import json,sys; sys.exit(json.load(open('ev.json')) != json.load(open('ev2.json')))"

# samples stored behind the scan's back (as a push to the server is) are
# judged as asked: a new run of 12 lost probes from minute 200 is an
# outage of the answer, not yet of the store
for m in $(seq 200 211); do
    sql "INSERT INTO samples(pair, ts, seq, rtt_ms) VALUES ((SELECT p.id FROM pairs p JOIN sites s ON s.id = p.src WHERE s.name = 'a'), $(at $m), 0, NULL)" >/dev/null
done
$GT --db "$DB" events --src a --kind outage --from $T0 --to $(at 215) --json > out.json
check "an unscanned outage (minutes 200-211) is in the answer, not stored" \
    python3 -c "import json,sys; sys.exit([e['ts'] for e in json.load(open('out.json'))['events']]
                                            != ['$(iso $(at 140))', '$(iso $(at 200))'] or '$(sql "SELECT count(*) FROM events WHERE ts = $(at 200)")' != '0')"

# a backfill before the scanned point: the silence of minutes 160-189
# filled, its silent and reporting events go (the pair is found again
# from a day before the oldest new sample)
awk -v t0=$T0 'BEGIN { print "ts,src,dst,rtt_ms"; for (m = 160; m < 190; m++) printf "%d,a,b,15\n", t0 + 60 * m }' > fill.csv
$GT --db "$DB" ingest csv fill.csv >/dev/null 2>&1
$GT --db "$DB" events --src a --dst b --from $T0 --to $(at 215) --json > fill.json
check "backfilled: no silence at minute 159, no reporting at 190; the outage at 200 stored" \
    python3 -c "import json,sys; k=[e['kind'] + '@' + e['ts'] for e in json.load(open('fill.json'))['events']];
sys.exit('silent@$(iso $(at 159))' in k or 'reporting@$(iso $(at 190))' in k or 'outage@$(iso $(at 200))' not in k
         or '$(sql "SELECT count(*) FROM events WHERE ts = $(at 200)")' != '1')"

# a fit that changes regime: 60 samples a minute from a Pareto with
# alpha 3 (its quantiles (i + 0.5) / 60, shuffled), refit; then 60 from
# one with alpha 0.8, refit.  The MLE of each window, computed here
# (m / sum log(x / min x)), is above 1, then at most 1: the event is
# "fit -> heavy" at the second window's last sample.
R=$(store rg)
pareto() {   # pareto T0 ALPHA OFFSET
    awk -v t0=$1 -v a=$2 -v off=$3 'BEGIN { for (i = 0; i < 60; i++) {
        u = ((i * 37) % 60 + 0.5) / 60; printf "%d,c,d,%.6f\n", t0 + 60 * (i + off), 10 * (1 - u) ^ (-1 / a) } }'
}
(echo ts,src,dst,rtt_ms; pareto $T0 3 0) > r1.csv
(echo ts,src,dst,rtt_ms; pareto $T0 0.8 60) > r2.csv
mle() { python3 -c "import math,sys; x=[float(l.split(',')[3]) for l in open(sys.argv[1]) if l[0].isdigit()];
print(len(x) / sum(math.log(v / min(x)) for v in x))" "$1"; }
if first_pass; then
    check "the two windows' Pareto MLEs, computed apart: $(mle r1.csv) > 1 >= $(mle r2.csv)" \
        python3 -c "import sys; sys.exit(not ($(mle r1.csv) > 1 >= $(mle r2.csv)))"
fi
$GT --db "$R" init >/dev/null && $GT --db "$R" ingest csv r1.csv >/dev/null 2>&1
$GT --db "$R" refit >/dev/null
check "the first refit notes the regime, no event" \
    [ "$($GT --db "$R" events --kind fit_regime --from $T0 --to $(at 200) | tail -1)" = "0 events" ]
$GT --db "$R" ingest csv r2.csv >/dev/null 2>&1
$GT --db "$R" refit --json > refit.json
$GT --db "$R" events --kind fit_regime --from $T0 --to $(at 200) --json > rg.json
check "the second: fit_regime fit -> heavy at minute 119, counted by refit" \
    python3 -c "import json,sys; e=json.load(open('rg.json'))['events'];
r=json.load(open('refit.json'))['events']['regime_changes'];
sys.exit(not (r == 1 and len(e) == 1 and e[0]['ts'] == '$(iso $(at 119))' and e[0]['regime_before'] == 'fit'
              and e[0]['regime_after'] == 'heavy' and e[0]['before_ms'] is None
              and e[0]['detail'] == 'the fitted model -> a Pareto with alpha <= 1 (heavy)'))"
$GT --db "$R" refit >/dev/null
check "a third refit, the regime unchanged: still one" \
    [ "$($GT --db "$R" events --kind fit_regime --from $T0 --to $(at 200) | tail -1)" = "1 events" ]
$GT --db "$R" plot series --src c --dst d --from $T0 --to $(at 120) -o rg.svg
check "plot series marks it at minute 119, its detail on hover" \
    python3 -c "import re,sys; s=open('rg.svg').read();
sys.exit(not re.search(r'<path class=\"fit_regime\" data-t=\"$(at 119)\"[^>]*><title>fit regime: the fitted model -&gt; a Pareto with alpha &lt;= 1 \(heavy\)</title>', s))"

# pruned with the samples: keep the last day before minute 100 + a day
$GT --db "$DB" prune --keep-days 1 --now $((T0 + 86400 + 6000)) >/dev/null
check "prune: the events before the cutoff go with their samples" \
    [ "$(sql "SELECT count(*) FROM events WHERE ts < $((T0 + 6000))") $(sql "SELECT count(*) FROM events WHERE ts >= $((T0 + 6000))" | grep -c '^[1-9]')" = "0 1" ]

# a synthetic store: `gridtail synth` without jitter, spikes, loss or a
# daily cycle, with 4 route changes and 2 outages a pair a day: every
# outage at its time, every shift between long regimes within 2 samples,
# none elsewhere (events_truth.py reads the truth from the CSV)
$GT synth --count 4 --span 2d --jitter 0 --spike-prob 0 --loss 0 --burst-prob 0 --diurnal 0 \
    --shift-rate 4 --outage-rate 2 --seed 1 --format csv -o syn.csv
S=$(store syn)
$GT --db "$S" init >/dev/null && $GT --db "$S" ingest csv syn.csv >/dev/null 2>&1
S0=$(sed -n 2p syn.csv | cut -d, -f1)
$GT --db "$S" events --from "$S0" --to $((S0 + 3 * 86400)) --json > syn.json
check "synth store: $(python3 "$GT_ROOT/tests/ref/events_truth.py" syn.csv syn.json | head -1) found as the series hold them" \
    python3 "$GT_ROOT/tests/ref/events_truth.py" syn.csv syn.json
