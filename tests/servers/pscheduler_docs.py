# pscheduler_docs.py T (tests/cli/pscheduler.sh): perfSONAR 5 documents as
# its Logstash pipeline stores them (perfsonar/logstash 02-pscheduler_common,
# 06-result_rtt, 06-result_latency: the field lists, written here), runs at
# T + 60 k, as a JSON list on stdout.
import datetime, json, sys

T = int(sys.argv[1])

def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat()

def doc(k, kind, result, spec=None, src=('ps.cern.ch', '192.0.2.10'), dst=('ps.kit.edu', '192.0.2.20')):
    d = {'pscheduler': {'start_time': iso(T + 60 * k), 'duration': 10.0,
                        'run_href': 'https://ps.cern.ch/pscheduler/tasks/t%d/runs/r%d' % (k, k),
                        'test_checksum': 'c%d' % k, 'tool': 'ping' if kind == 'rtt' else 'owping'},
         'meta': {'source': {}, 'destination': {}, 'ip_version': 4},
         'test': {'type': kind, 'spec': spec or {'source': src[0], 'dest': dst[0]}},
         'result': dict(result, succeeded=result.get('succeeded', True))}
    if src[0]: d['meta']['source']['hostname'] = src[0]
    if src[1]: d['meta']['source']['ip'] = src[1]
    if dst[0]: d['meta']['destination']['hostname'] = dst[0]
    if dst[1]: d['meta']['destination']['ip'] = dst[1]
    return d

docs = [
    # rtt with its round trips: seq 2 answered twice, 3 an error, 4 silent
    doc(0, 'rtt', {'packets': {'sent': 5, 'received': 3, 'lost': 2, 'loss': 0.4, 'json': [
        {'seq': 1, 'length': 64, 'ip': '192.0.2.20', 'ttl': 52, 'rtt': 'PT0.0101S'},
        {'seq': 2, 'length': 64, 'ip': '192.0.2.20', 'ttl': 52, 'rtt': 'PT0.0102S'},
        {'seq': 2, 'length': 64, 'ip': '192.0.2.20', 'ttl': 52, 'rtt': 'PT0.0102S'},
        {'seq': 3, 'ip': '192.0.2.1', 'error': 'host-unreachable'},
        {'seq': 5, 'length': 64, 'ip': '192.0.2.20', 'ttl': 52, 'rtt': 'PT0.0105S'}]},
        'rtt': {'min': 0.0101, 'max': 0.0105, 'mean': 0.010267, 'stddev': 0.0002}}),
    # rtt from its summary alone (seconds): 4 received, 1 lost
    doc(1, 'rtt', {'packets': {'sent': 5, 'received': 4, 'lost': 1, 'loss': 0.2},
                   'rtt': {'min': 0.020, 'mean': 0.0215, 'max': 0.024, 'stddev': 0.0017}}),
    # latency (OWAMP): the default bucket width 0.001 s; values as strings
    doc(2, 'latency', {'packets': {'sent': 4, 'received': 3, 'lost': 1, 'loss': 0.25},
                       'latency': {'min': 12.0, 'median': 12.5, 'max': 12.5,
                                   'histogram': {'values': ['12.50', '12.00'], 'counts': [2, 1]}}},
        spec={'source': 'ps.cern.ch', 'dest': 'ps.kit.edu'}),
    # latencybg: its default bucket width 0.0001 s
    doc(3, 'latencybg', {'packets': {'sent': 2, 'received': 2, 'lost': 0, 'loss': 0.0},
                         'latency': {'histogram': {'values': ['123.40'], 'counts': [2]}}},
        spec={'source': 'ps.cern.ch', 'dest': 'ps.kit.edu'}),
    # latency with an explicit bucket width of 0.0001 s, destination by ip only
    doc(4, 'latency', {'packets': {'sent': 1, 'received': 1, 'lost': 0, 'loss': 0.0},
                       'latency': {'histogram': {'values': ['500.00'], 'counts': [1]}}},
        spec={'source': 'ps.cern.ch', 'dest': '192.0.2.30', 'bucket-width': 0.0001},
        dst=(None, '192.0.2.30')),
    # a failed run
    doc(5, 'rtt', {'succeeded': False, 'error': 'Unable to reach host'}),
    # rejected: another test type, no start time, a negative delay, an item without a seq
    doc(6, 'throughput', {'throughput': 1e9}),
    dict(doc(7, 'rtt', {'packets': {'sent': 1, 'received': 1, 'json': [{'seq': 1, 'rtt': 'PT0.01S'}]}}),
         pscheduler={'run_href': 'x7'}),
    doc(8, 'latency', {'packets': {'lost': 0}, 'latency': {'histogram': {'values': ['-3.00'], 'counts': [1]}}}),
    doc(9, 'rtt', {'packets': {'sent': 1, 'received': 1, 'json': [{'rtt': 'PT0.01S'}]}}),
]
json.dump(docs, sys.stdout, indent=1)
