#!/usr/bin/env python3
"""`gridtail events` against changes marked by hand, end to end.

Usage: changes_events.py GRIDTAIL TRACES_DIR WORK_DIR [SHIFT_MIN...]

Each trace of TRACES_DIR (the rtt-real-dev or rtt-changes format:
"EPOCH;RTT;CP", a header line, EPOCH as YYYY-mm-dd HH:MM:SS or
dd/mm/YYYY HH:MM in UTC, RTT with a decimal point or comma, negative =
no answer, CP = 1 on the first sample after a change) becomes the pair
P<name> -> TRACE of a store in WORK_DIR (a CSV there first; nothing is
written elsewhere), its samples stamped 240 s apart from the trace's
first epoch (the sets' interval: some rtt-changes traces repeat a stretch
of epochs, which a store would take for conflicting samples; the
detectors count samples, not seconds).  For each SHIFT_MIN ([thresholds] shift_min, default
the config's 0.05 and 0.01) `gridtail events --kind shift` lists the
shifts, each is put on its trace's sample and matched one to one,
nearest first, with the marked changes within 2 samples, as
changes_driver.c matches.  Prints true, found, matched, precision,
recall, F1.  Run by scripts/eval/changes.sh.
"""
import datetime
import glob
import json
import os
import subprocess
import sys

W = 2


def epoch(text):
    for fmt in ("%Y-%m-%d %H:%M:%S", "%d/%m/%Y %H:%M"):
        try:
            t = datetime.datetime.strptime(text, fmt)
            return int(t.replace(tzinfo=datetime.timezone.utc).timestamp())
        except ValueError:
            pass
    raise SystemExit("changes_events.py: bad epoch %r" % text)


def match(truth, found):
    pairs = sorted((abs(a - b), i, j) for i, a in enumerate(truth)
                   for j, b in enumerate(found) if abs(a - b) <= W)
    used_t, used_f, m = set(), set(), 0
    for _, i, j in pairs:
        if i not in used_t and j not in used_f:
            used_t.add(i), used_f.add(j)
            m += 1
    return m


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    binary, traces, work = sys.argv[1:4]
    mins = [float(a) for a in sys.argv[4:]] or [0.05, 0.01]
    csv = os.path.join(work, "samples.csv")
    stamps, truth = {}, {}
    with open(csv, "w") as out:
        out.write("ts,src,dst,rtt_ms\n")
        for path in sorted(glob.glob(os.path.join(traces, "*.csv"))):
            name = "P" + os.path.basename(path)[:-4]
            stamps[name], truth[name] = {}, []
            with open(path) as f:
                next(f)
                t0 = None
                for i, line in enumerate(f):
                    e, rtt, cp = line.strip().split(";")
                    t0 = epoch(e) if t0 is None else t0
                    t = t0 + 240 * i
                    stamps[name][t] = i
                    if cp.strip() == "1":
                        truth[name].append(i)
                    out.write("%d,%s,TRACE,%s\n" % (t, name, rtt.replace(",", ".") or "loss"))
    for shift_min in mins:
        conf = os.path.join(work, "gridtail.conf")
        with open(conf, "w") as f:
            f.write("[thresholds]\nshift_min = %g\n" % shift_min)
        env = dict(os.environ, GRIDTAIL_CONFIG=conf)
        db = os.path.join(work, "events-%g.db" % shift_min)
        run = lambda *a: subprocess.run([binary, "--db", db] + list(a), env=env, check=True,
                                        stdout=subprocess.PIPE).stdout
        run("init")
        run("ingest", "--quiet", "csv", csv)
        ev = json.loads(run("events", "--kind", "shift", "--from", "1970-01-02",
                            "--to", "2100-01-01", "--limit", "1000000", "--json"))
        found = {name: [] for name in truth}
        for e in ev["events"]:
            t = epoch(e["ts"].replace("T", " ").rstrip("Z"))
            found[e["src"]].append(stamps[e["src"]][t])
        nt = sum(len(v) for v in truth.values())
        nf = sum(len(v) for v in found.values())
        nm = sum(match(truth[k], sorted(found[k])) for k in truth)
        p = nm / nf if nf else float("nan")
        r = nm / nt
        print("shift_min %-5g %6d %6d %6d  %6.3f %6.3f %6.3f"
              % (shift_min, nt, nf, nm, p, r, 2 * p * r / (p + r) if nm else 0))


if __name__ == "__main__":
    main()
