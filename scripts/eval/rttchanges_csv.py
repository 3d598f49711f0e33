#!/usr/bin/env python3
"""The rtt-changes traces (../shared/data/rtt-changes: WenqinSHAO/rtt's
20 artificial traces, one sample every 240 s for 15 to 22 days) as
gridtail's csv: trace k is the pair g1 -> t01 ... g4 -> t20, five
traces to a root, so that each root's collective is the max over five
independent traces.  Their own times are kept (UTC); the decimal comma
becomes a point; the generator's negative values (its noise at low
levels) go in as they are and ingest counts them lost.  For
scripts/eval/datasets.inc, which reads the traces where they lie; never
copied.

Usage: rttchanges_csv.py TRACES_DIR > rtt.csv"""
import calendar
import os
import sys
import time


def main(folder):
    out = sys.stdout
    out.write("ts,src,dst,rtt_ms\n")
    for k in range(1, 21):
        root = "g%d" % ((k - 1) // 5 + 1)
        with open(os.path.join(folder, "%d.csv" % k)) as f:
            next(f)   # epoch;rtt;cp
            for line in f:
                epoch, rtt, _ = line.rstrip("\n").split(";")
                ts = calendar.timegm(time.strptime(epoch, "%Y-%m-%d %H:%M:%S"))
                out.write("%d,%s,t%02d,%s\n" % (ts, root, k, rtt.replace(",", ".")))


if __name__ == "__main__":
    main(sys.argv[1])
