#!/usr/bin/env python3
"""Spikes are not shifts: both change detectors on a `gridtail synth` store.

Usage: spikes.py GRIDTAIL WORK_DIR [SYNTH_OPTION...]

Writes two synthetic stores in WORK_DIR with the same seed and options,
spikes of 1-3 samples on (synth's default, --spike-prob 0.002, or as the
options say) and off (--spike-prob 0): synth draws the same random
numbers either way, so the series differ exactly at the spikes' samples.
Then per pair the shifts of `gridtail events --kind shift` (the online
detector) and the dashed lines of `gridtail plot series` over the whole
period (the offline segmentation), on each store.  A shift found with
spikes on and not within 2 samples of one found without is one the
spikes made (moved, when one found without lies within 10 samples); the
script prints, per method, the shifts found without and with spikes, how
many the spikes made, how many of those only moved, and how many begin
within 2 samples of a spike's sample, with the samples around them.  Run by scripts/eval/changes.sh.
"""
import datetime
import json
import os
import re
import subprocess
import sys

W = 2


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    binary, work = sys.argv[1:3]
    opts = sys.argv[3:] or ["--count", "6", "--span", "3d", "--seed", "7",
                            "--start", "2026-11-27T00:00:00Z"]
    env = dict(os.environ, GRIDTAIL_CONFIG="/dev/null")
    run = lambda *a: subprocess.run([binary] + list(a), env=env, check=True,
                                    stdout=subprocess.PIPE).stdout
    series, stores = {}, {}
    for name, extra in (("on", []), ("off", ["--spike-prob", "0"])):
        csv = os.path.join(work, "spikes-%s.csv" % name)
        run("synth", *opts, *extra, "--format", "csv", "-o", csv)
        db = os.path.join(work, "spikes-%s.db" % name)
        if os.path.exists(db):   # (a store of an earlier run)
            os.remove(db)
        run("--db", db, "init")
        run("--db", db, "ingest", "--quiet", "csv", csv)
        s = {}
        with open(csv) as f:
            next(f)
            for line in f:
                ts, src, dst, rtt = line.strip().split(",")
                s.setdefault((src, dst), []).append((int(ts), rtt))
        series[name], stores[name] = s, db
    pairs = sorted(series["on"])
    spiked = {p: {i for i, (a, b) in enumerate(zip(series["on"][p], series["off"][p]))
                  if a[1] != b[1]} for p in pairs}
    nspiked = sum(len(v) for v in spiked.values())
    t0 = min(v[0][0] for v in series["on"].values())
    t1 = max(v[-1][0] for v in series["on"].values())
    found = {"on": {}, "off": {}}
    for name in ("on", "off"):
        index = {p: {t: i for i, (t, _) in enumerate(series[name][p])} for p in pairs}
        ev = json.loads(run("--db", stores[name], "events", "--kind", "shift", "--from",
                            str(t0), "--to", str(t1 + 1), "--limit", "1000000", "--json"))
        online = {p: [] for p in pairs}
        for e in ev["events"]:
            t = int(datetime.datetime.strptime(e["ts"], "%Y-%m-%dT%H:%M:%SZ")
                    .replace(tzinfo=datetime.timezone.utc).timestamp())
            online[(e["src"], e["dst"])].append(index[(e["src"], e["dst"])][t])
        offline = {}
        out = os.path.join(work, "series.svg")
        for p in pairs:
            run("--db", stores[name], "plot", "series", "--src", p[0], "--dst", p[1],
                "--from", str(t0), "--to", str(t1), "-o", out)
            with open(out) as f:
                svg = f.read()
            offline[p] = [index[p][int(t)] for t in
                          re.findall(r'<path class="shift" data-t="(\d+)"', svg)]
        found[name] = {"online (gridtail events)": online,
                       "offline (plot series)": offline}
    print("%d pairs, %d samples, %d of them in spikes of 1-3 samples"
          % (len(pairs), sum(len(v) for v in series["on"].values()), nspiked))
    print("%-26s %9s %7s %10s %6s %11s" % ("method", "no spikes", "spikes", "by spikes",
                                            "moved", "at a spike"))
    for method in found["on"]:
        on, off = found["on"][method], found["off"][method]
        made = [(p, i) for p in pairs for i in on[p]
                if not any(abs(i - j) <= W for j in off[p])]
        moved = [(p, i) for p, i in made if any(abs(i - j) <= 10 for j in off[p])]
        at_spike = [(p, i) for p, i in made if any(abs(i - k) <= W for k in spiked[p])]
        print("%-26s %9d %7d %10d %6d %11d" % (method, sum(len(v) for v in off.values()),
                                               sum(len(v) for v in on.values()), len(made),
                                               len(moved), len(at_spike)))
        for p, i in at_spike:
            near = [j for j in off[p] if abs(i - j) <= 10]
            print("    %s -> %s sample %d (without spikes: %s): %s" % (
                p[0], p[1], i, ", ".join(map(str, near)) or "none",
                " ".join(series["on"][p][k][1] for k in range(max(0, i - 4), i + 8))))


if __name__ == "__main__":
    main()
