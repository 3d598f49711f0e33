#!/usr/bin/env python3
"""Per-pair shares of Pareto fits with alpha <= 1 on the Seattle set, by
window m (the backtest counts moments where SOME partner of a root has
alpha <= 1, which with 98 partners is nearly every moment; the paper's
Table 2 counts over fewer partners).  Cleans as the ingest does: an
off-diagonal 0 is lost, values above 60 s are rejected, a lost sample
takes the previous value.  Also the share of consecutive samples that
differ (the set holds each measurement over several slices).
Usage: seattle_pairs.py DIR (the unpacked Seattle/ folder).  Needs numpy."""
import glob
import os
import sys

import numpy as np


def main(d):
    slices = len(glob.glob(os.path.join(d, "SeattleData_*")))
    x = np.stack([np.loadtxt(os.path.join(d, "SeattleData_%d" % t)) for t in range(1, slices + 1)])
    n = x.shape[1]
    x[:, np.arange(n), np.arange(n)] = np.nan
    x[x == 0] = np.nan
    x[x > 60] = np.nan
    for t in range(1, slices):
        lost = np.isnan(x[t])
        x[t][lost] = x[t - 1][lost]
    s = x.reshape(slices, -1)
    s = s[:, ~np.all(np.isnan(s), axis=0)]
    steps = np.diff(s, axis=0)
    steps = steps[~np.isnan(steps)]
    print("pairs %d, slices %d, consecutive samples that differ: %.1f %%"
          % (s.shape[1], slices, 100 * np.mean(steps != 0)))
    logs = np.log(s)
    print("| m | pair windows | alpha <= 1 |")
    print("|---|---|---|")
    for m in (2, 4, 8, 16, 32, 64, 128, 256, 512):
        le1 = total = 0
        for t in range(m, slices):
            w = logs[t - m:t]
            ok = ~np.any(np.isnan(w), axis=0)
            spread = np.sum(w[:, ok] - np.min(w[:, ok], axis=0), axis=0)
            alpha = np.full(spread.shape, np.inf)
            alpha[spread > 0] = m / spread[spread > 0]
            le1 += int(np.sum(alpha <= 1))
            total += int(ok.sum())
        print("| %d | %d | %.1f %% |" % (m, total, 100 * le1 / total))


if __name__ == "__main__":
    main(sys.argv[1])
