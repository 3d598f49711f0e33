#!/usr/bin/env python3
"""The calibrator's memory W and level step gamma over a grid, replayed on
the moments of a `gridtail backtest --moments FILE` run: pooled p50, p90
and p99 coverage of one method's calibrated quantiles and the lowest
cell's p90 and p99 (docs/EVALUATION.md, "The calibrator's memory and
step").  The rule is estimators/conformal.c's (the one of
calibration_variants.py, at each level), fed each outcome once its
moment + lead is at most the current moment less one interval, as the
backtest does: at the backtest's W and gamma it gives its coverage to
the outcome.

Usage: calibration_grid.py MOMENTS.csv [METHOD [INTERVAL_S [W:GAMMA ...]]]
(default empirical, 60 s, and a grid of W 1000, 3000, 10000 by gamma 0,
0.001, 0.005).  Pure Python; half a minute a grid point on rttchanges."""
import bisect
import collections
import csv
import math
import sys

LEVELS = (0.5, 0.9, 0.99)


class Conf:
    """One level's calibrator: scores ln(actual / raw), the
    ceil(a (n+1))-th smallest of the last W, a <- a + gamma (miss - (1 -
    p)) in [0, 1]; before p / (1 - p) scores only raised by the worst."""

    def __init__(self, p, window, gamma):
        self.p, self.level, self.window, self.gamma = p, p, window, gamma
        self.ring, self.sorted = collections.deque(), []

    def ready(self):
        n = len(self.sorted)
        return n > 0 and math.ceil(self.p * (n + 1) - 1e-9) <= n

    def adjust(self, raw):
        n = len(self.sorted)
        if not n or not (raw > 0 and math.isfinite(raw)):
            return raw
        if not self.ready():
            return raw * math.exp(max(0.0, self.sorted[-1]))
        r = math.ceil(self.level * (n + 1) - 1e-9)
        i = 0 if r < 1 else n - 1 if r > n else r - 1
        return raw * math.exp(self.sorted[i])

    def observe(self, raw, issued, actual):
        if not (raw > 0 and actual > 0 and math.isfinite(raw) and math.isfinite(actual)):
            return
        s = math.log(actual / raw)
        if len(self.ring) == self.window:
            old = self.ring.popleft()
            self.sorted.pop(bisect.bisect_left(self.sorted, old))
        self.ring.append(s)
        bisect.insort(self.sorted, s)
        if issued == issued:
            miss = actual > issued
            self.level = min(1.0, max(0.0, self.level + self.gamma * (miss - (1 - self.p))))


def load(path, method):
    series = collections.defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["method"] != method or r["p50_ms"] == "":
                continue
            key = (r["root"], int(r["window"]), int(r["tau"]))
            series[key].append((int(r["t"]), float(r["actual_ms"]),
                                [float(r["p%s_ms" % q]) for q in ("50", "90", "99")]))
    return series


def replay(rows, lead_s, iv, window, gamma):
    cal = [Conf(p, window, gamma) for p in LEVELS]
    pending = collections.deque()
    covered = [0, 0, 0]
    for t, actual, raw in rows:
        while pending and pending[0][0] + lead_s <= t - iv:
            _, a, rw, iss = pending.popleft()
            for c, x, i in zip(cal, rw, iss):
                c.observe(x, i, a)
        issued = [c.adjust(x) for c, x in zip(cal, raw)]
        pending.append((t, actual, raw, issued))
        for k in range(3):
            covered[k] += actual <= issued[k]
    return covered, len(rows)


def main(argv):
    path = argv[1]
    method = argv[2] if len(argv) > 2 else "empirical"
    iv = int(argv[3]) if len(argv) > 3 else 60
    grid = [tuple(s.split(":")) for s in argv[4:]] or \
        [(w, g) for w in ("1000", "3000", "10000") for g in ("0", "0.001", "0.005")]
    series = load(path, method)
    cells = sorted({(k[1], k[2]) for k in series})
    print(f"{method}: {len(series)} root cells, {sum(map(len, series.values()))} moments")
    for w, g in grid:
        total, n_all, low = [0, 0, 0], 0, [1.0, 1.0]
        for cell in cells:
            cov, n = [0, 0, 0], 0
            for key, rows in series.items():
                if (key[1], key[2]) == cell:
                    c, k = replay(rows, cell[1] * iv, iv, int(w), float(g))
                    cov = [a + b for a, b in zip(cov, c)]
                    n += k
            total = [a + b for a, b in zip(total, cov)]
            n_all += n
            low = [min(low[0], cov[1] / n), min(low[1], cov[2] / n)]
        print(f"W {w:>6} gamma {g:<7} p50 {100 * total[0] / n_all:5.1f} %  "
              f"p90 {100 * total[1] / n_all:5.1f} %  p99 {100 * total[2] / n_all:5.1f} %  "
              f"lowest cell p90 {100 * low[0]:5.1f} %  p99 {100 * low[1]:5.1f} %", flush=True)


if __name__ == "__main__":
    main(sys.argv)
