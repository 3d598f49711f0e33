"""same_answer.py A B: exit 0 when the JSON answers A and B (files; -
for stdin) are the same but for where a calibration came from.  An answer
keeps the calibration it replayed, so the next answer over the same
partners reads it: calibration.cached may differ where every factor and
quantile is the same.  On a difference both documents go to stderr."""
import json
import sys


def load(name):
    return json.load(sys.stdin if name == "-" else open(name))


def strip(d):
    if isinstance(d, dict):   # a calibration object: it has "ready"
        return {k: strip(v) for k, v in d.items()
                if not (k == "cached" and isinstance(v, bool) and "ready" in d)}
    if isinstance(d, list):
        return [strip(v) for v in d]
    return d


a, b = (strip(load(f)) for f in sys.argv[1:3])
if a != b:
    for d in (a, b):
        print(json.dumps(d, indent=1, sort_keys=True)[:4000], file=sys.stderr)
sys.exit(a != b)
