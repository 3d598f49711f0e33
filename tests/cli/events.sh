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
plan 13
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
$GT --db "$DB" init >/dev/null && $GT --db "$DB" ingest csv ev.csv >/dev/null 2>&1
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
check "--from not before --to: usage error (1)" status_is 1 $GT --db "$DB" events --from $T0 --to $T0

# plot series marks the same events
$GT --db "$DB" plot series --src a --dst b --from $T0 --to $((T0 + 12000)) -o ev.svg
check "plot series: one dashed shift, at minute 60" \
    [ "$(python3 "$GT_ROOT/tests/cli/svgcheck.py" attr ev.svg path data-t | tr '\n' ' ')" = "$(at 60) " ]
check "...and the outage (minutes 140-150) and the silence (159-190) as spans" \
    python3 -c "import re,sys; s=open('ev.svg').read();
sys.exit(not (re.search(r'class=\"outage\" data-from=\"$(at 140)\" data-to=\"$(at 150)\"', s)
              and re.search(r'class=\"silent\" data-from=\"$(at 159)\" data-to=\"$(at 190)\"', s)))"

# the server: GET /v1/events answers the CLI's document
serve_start "$DB"
curl -s "$URL/v1/events?src=a&from=$T0&to=$((T0 + 12000))" > api.json
check "GET /v1/events: the CLI's events" python3 -c "import json,sys;
sys.exit(json.load(open('api.json')) != json.load(open('ev.json')))"
check "GET /v1/events?kind=bad: 400 naming the field" \
    sh -c "curl -s -o bad.json -w '%{http_code}' '$URL/v1/events?kind=bad' | grep -qx 400 && grep -q '\"field\": \"kind\"' bad.json"
kill $pid; wait $pid
