# events_truth.py CSV EVENTS.json (tests/cli/events.sh): the events of a
# store ingested from CSV, a `gridtail synth` series without noise (each
# pair piecewise constant: its route changes, outages and lost probes),
# against the truth read from the CSV itself: every run of lost probes of
# 300 s or more to the next answer is an outage at its first lost probe;
# every change between two levels held for 30 answers or more each is a
# shift found within 2 samples; and no shift is marked where the level
# did not change between regimes of 4 answers or more.
import csv, collections, json, sys, datetime
rows = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    rows[(r['src'], r['dst'])].append((int(r['ts']), None if r['rtt_ms'] == '' else float(r['rtt_ms'])))
ev = collections.defaultdict(list)
for e in json.load(open(sys.argv[2]))['events']:
    t = int(datetime.datetime.strptime(e['ts'], '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=datetime.timezone.utc).timestamp())
    ev[(e['src'], e['dst'])].append((e['kind'], t))
bad = []
nout = nshift = 0
for k, v in rows.items():
    got_out = sorted(t for kind, t in ev[k] if kind == 'outage')
    # outages: runs of lost probes lasting 300 s or more to the next answer
    want_out, i = [], 0
    while i < len(v):
        if v[i][1] is not None:
            i += 1; continue
        j = i
        while j < len(v) and v[j][1] is None: j += 1
        end = v[j][0] if j < len(v) else v[j - 1][0]
        if end - v[i][0] >= 300: want_out.append(v[i][0])
        i = j
    nout += len(want_out)
    if got_out != want_out: bad.append((k, 'outages', want_out, got_out))
    # level changes between answered samples; a regime of 30 answers or more
    # either side is one a person marks; one of 3 or fewer is a spike
    lv = [(t, x) for t, x in v if x is not None]
    runs = []   # [start index, level, length]
    for idx, (t, x) in enumerate(lv):
        if runs and abs(x / runs[-1][1] - 1) < 1e-9: runs[-1][2] += 1
        else: runs.append([idx, x, 1])
    got_sh = [t for kind, t in ev[k] if kind == 'shift']
    for a, b in zip(runs, runs[1:]):
        if a[2] >= 30 and b[2] >= 30 and abs(b[1] / a[1] - 1) >= 0.05:
            nshift += 1
            t0 = lv[b[0]][0]
            if not any(abs(g - t0) <= 120 for g in got_sh): bad.append((k, 'missed shift', t0))
    # a shift may be marked at a change between regimes of 4 answers or
    # more (a spike is 1-3); never at a spike
    long_runs = [r for r in runs if r[2] >= 4]
    starts = [lv[b[0]][0] for a, b in zip(long_runs, long_runs[1:]) if abs(b[1] / a[1] - 1) > 1e-9]
    for g in got_sh:
        if not any(abs(g - s) <= 120 for s in starts): bad.append((k, 'shift where none was', g))
print(nout, 'outages', nshift, 'shifts')
for b in bad[:20]: print(' ', b)
sys.exit(1 if bad or not nout or not nshift else 0)
