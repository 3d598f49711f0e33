# prometheus_hist_check.py PROM EXPORT.csv SRC (tests/cli/prometheus.sh):
# what gridtail stored from smokeping_prober's histograms, held against
# Prometheus' own values of the same series, asked here at the same
# instants (multiples of 1 s): per host and step, the answers stored are
# the increase of _count, their bucket counts the increases of _bucket,
# their sum the increase of _sum (the mean exact); and the pings sent and
# not answered over the range, lost.  Prints one line per property that
# fails ("ok HOST ..." lines otherwise) and exits 1 on any failure.
import collections, json, math, sys, urllib.parse, urllib.request

prom, export, src = sys.argv[1:4]
rows = collections.defaultdict(list)          # (host, ts) -> [rtt or None]
for line in open(export):
    ts, s, dst, seq, rtt = line.strip().split(',')
    if s == src:
        rows[(dst, int(ts))].append(float(rtt) if rtt else None)
if not rows:
    print('  nothing stored'); sys.exit(1)
first = min(t for _, t in rows) - 1
last = max(t for _, t in rows) + 1

def series(q):   # {labels without le: {le or None: {t: value}}}
    u = '%s/api/v1/query_range?%s' % (prom, urllib.parse.urlencode(
        {'query': q, 'start': first, 'end': last, 'step': 1}))
    out = collections.defaultdict(dict)
    for s in json.load(urllib.request.urlopen(u))['data']['result']:
        m = s['metric']
        out[m['host']][m.get('le')] = {int(float(t)): float(v) for t, v in s['values']}
    return out

def inc(v, t):   # a counter's increase from t - 1 to t (a drop is a restart)
    if t not in v or t - 1 not in v:
        return None
    return v[t] - v[t - 1] if v[t] >= v[t - 1] else v[t]

buckets = series('smokeping_response_duration_seconds_bucket')
sums = series('smokeping_response_duration_seconds_sum')
counts = series('smokeping_response_duration_seconds_count')
reqs = series('smokeping_requests_total')
bad = 0
for host in sorted({h for h, _ in rows}):
    steps = sorted(t for h, t in rows if h == host)
    les = sorted((float(k), k) for k in buckets[host])
    answered = lost = sent = 0
    for t in range(steps[0], steps[-1] + 1):
        got = rows.get((host, t), [])
        rtts = [x for x in got if x is not None]
        n = inc(counts[host][None], t) or 0
        if len(rtts) != n:
            print('  %s at %d: %d answers stored, _count rose by %d' % (host, t, len(rtts), n)); bad += 1
        spans, below, lo = [], 0, 0.0   # each answer's bucket, lowest first
        for le, key in les:
            cum = int(inc(buckets[host][key], t) or 0)
            hi = lo if math.isinf(le) else le   # +Inf: at the largest bound
            spans += [(1e3 * lo, 1e3 * hi)] * (cum - below)
            below, lo = cum, hi
        if len(spans) == len(rtts) and not all(a - 1e-9 <= x <= b + 1e-9
                                               for x, (a, b) in zip(sorted(rtts), spans)):
            print('  %s at %d: answers %s ms outside their buckets %s' % (host, t, sorted(rtts), spans))
            bad += 1
        s = inc(sums[host][None], t)
        if rtts and abs(sum(rtts) - 1e3 * s) > 1e-9 * max(1.0, 1e3 * s):
            print('  %s at %d: the answers add up to %.12g ms, _sum rose by %.12g ms'
                  % (host, t, sum(rtts), 1e3 * s)); bad += 1
        answered += len(rtts)
        lost += len(got) - len(rtts)
        sent += inc(reqs[host][None], t) or 0
    # a ping in flight at either end is counted on one side only
    if abs(sent - answered - lost) > 1:
        print('  %s: %d pings sent from %d to %d, %d answered and %d lost stored'
              % (host, sent, steps[0], steps[-1], answered, lost)); bad += 1
    print('  %s: %d steps, %d answered, %d lost, %d sent' % (host, len(steps), answered, lost, sent))
sys.exit(1 if bad else 0)
