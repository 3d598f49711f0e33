# prometheus_expect.py PROM QUERY SUCCESS START END SRC (tests/cli/prometheus.sh):
# the samples gridtail should store for a query_range of QUERY joined with
# SUCCESS, asked of Prometheus here, independently: per RTT series its
# destination (instance), at each step a success of 0 lost, else the RTT
# in ms; as export's rows ts,src,dst,seq,rtt_ms, sorted.
import json, sys, urllib.parse, urllib.request

prom, query, success, start, end, src = sys.argv[1:7]

def matrix(q):   # in windows of 10,000 steps (Prometheus answers 11,000 at most)
    series = {}
    for a in range(int(start), int(end) + 1, 10000):
        u = '%s/api/v1/query_range?%s' % (prom, urllib.parse.urlencode(
            {'query': q, 'start': a, 'end': min(a + 9999, int(end)), 'step': 1}))
        for s in json.load(urllib.request.urlopen(u))['data']['result']:
            k = json.dumps(s['metric'], sort_keys=True)
            series.setdefault(k, {'metric': s['metric'], 'values': []})['values'] += s['values']
    return list(series.values())

ok = {(s['metric'].get('instance'), s['metric'].get('job')): dict(
    (int(float(t)), float(v)) for t, v in s['values']) for s in matrix(success)}
rows = []
for s in matrix(query):
    m = s['metric']
    good = ok.get((m.get('instance'), m.get('job')), {})
    for t, v in s['values']:
        t, v = int(float(t)), float(v)
        if good.get(t) == 0:
            rows.append((t, src, m['instance'], 0, ''))
        elif v == v and v >= 0:
            rows.append((t, src, m['instance'], 0, repr(1e3 * v)))
for r in sorted(rows):
    print('%d,%s,%s,%d,%s' % r)
