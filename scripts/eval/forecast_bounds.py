#!/usr/bin/env python3
"""How far issue 29's forecast goals can be reached on a data set at all,
from a `gridtail backtest --moments FILE` run (docs/EVALUATION.md).

Calibration.  A forecast made at moment t for t + tau has its outcome
from t + tau + 1 on, so in each (root, window, tau, method) the moments
before the first one's outcome (the first tau + 1 moments) rest on no
outcome of that forecast: a rule that learns from the forecast's own
misses (ours, ACI, split conformal per cell) can only answer the model's
quantile there.  Per cell: the share of such moments, the raw coverage
there, and the highest coverage the cell can reach if every other moment
were covered: an upper bound for any such rule.

Combination.  Per (window, tau), the fixed methods' forecasts at the
moments all of them answered, combined with the weights that fit those
very moments best (least squares, weights summing to 1, chosen with
hindsight): no combination with weights fixed per cell does better, and
likewise per root and cell.  Against the best fixed method's RMSE on the
same moments: what weights fixed with hindsight would gain.  (A rule
whose weights move with time, as `combined`'s do, is not bound by it.)

Usage: forecast_bounds.py MOMENTS.csv [METHOD ...]
(the calibration bound for these methods; default every method with
quantiles).  Needs numpy."""
import collections
import csv
import sys

import numpy as np

META = ("adaptive", "combined")
LEVELS = (("p90", 9), ("p99", 10))


def read(path):
    rows = collections.defaultdict(list)   # (root, window, tau, method) -> rows
    with open(path) as f:
        r = csv.reader(f)
        head = next(r)
        assert head[:11] == ["root", "t", "window", "tau", "method", "regime",
                             "predicted_ms", "actual_ms", "p50_ms", "p90_ms", "p99_ms"], head
        for x in r:
            q = tuple(float(v) if v else float("nan") for v in x[8:11] + x[13:14])
            rows[(x[0], int(x[2]), int(x[3]), x[4])].append(
                (int(x[1]), float(x[6]), float(x[7])) + q)
    return rows


def interval_of(rows):
    best = None
    for v in rows.values():
        ts = sorted(t[0] for t in v)
        d = [b - a for a, b in zip(ts, ts[1:]) if b > a]
        if d:
            best = min(d) if best is None else min(best, min(d))
    return best


def calibration_bound(rows, interval, methods):
    cells = collections.defaultdict(lambda: collections.Counter())
    for (root, m, tau, meth), v in rows.items():
        if meth not in methods:
            continue
        t0 = min(x[0] for x in v)
        c = cells[(meth, m, tau)]
        for x in v:
            if np.isnan(x[3]):
                continue
            c["n"] += 1
            before = x[0] - t0 < (tau + 1) * interval
            c["before"] += before
            for name, i in LEVELS:
                c[name + "_raw_before"] += before and x[2] <= x[i - 5]
    print("calibration: moments before their forecast's first outcome, and the")
    print("highest coverage a rule learning from those outcomes can reach")
    print(f"{'method':10} {'m':>4} {'tau':>4} {'moments':>8} {'before':>7} "
          f"{'p99 raw there':>13} {'p99 bound':>9} {'p90 bound':>9}")
    for meth in methods:
        tot = collections.Counter()
        for (mm, m, tau), c in sorted(cells.items()):
            if mm != meth:
                continue
            tot.update(c)
            b = {k: (c["n"] - c["before"] + c[k + "_raw_before"]) / c["n"] for k, _ in LEVELS}
            raw = c["p99_raw_before"] / c["before"] if c["before"] else float("nan")
            print(f"{meth:10} {m:4d} {tau:4d} {c['n']:8d} {c['before'] / c['n']:7.1%} "
                  f"{raw:13.1%} {b['p99']:9.1%} {b['p90']:9.1%}")
        if tot["n"]:
            b = {k: (tot["n"] - tot["before"] + tot[k + "_raw_before"]) / tot["n"]
                 for k, _ in LEVELS}
            print(f"{meth:10} {'pooled':>9} {tot['n']:8d} {tot['before'] / tot['n']:7.1%} "
                  f"{'':13} {b['p99']:9.1%} {b['p90']:9.1%}")


HISTORY = ((0, 0, "none"), (1, 98, "1-98"), (99, 199, "99-199"), (200, 10 ** 9, ">= 200"))


def by_history(rows, interval, methods):
    """The calibrated p99's coverage by how many outcomes of its forecast
    were known at the moment (the root's own calibrator)."""
    cnt = collections.defaultdict(lambda: [0, 0])
    for (root, m, tau, meth), v in rows.items():
        if meth not in methods:
            continue
        v = sorted(v)
        due = [x[0] + tau * interval for x in v]
        k = 0
        for x in v:
            while k < len(due) and due[k] <= x[0] - interval:
                k += 1
            if np.isnan(x[6]):
                continue
            for lo, hi, name in HISTORY:
                if lo <= k <= hi:
                    c = cnt[(meth, name)]
                    c[0] += 1
                    c[1] += x[2] <= x[6]
    print("\ncalibrated p99 coverage by the outcomes known to its calibrator")
    for meth in methods:
        parts = []
        for _, _, name in HISTORY:
            n, c = cnt[(meth, name)]
            if n:
                parts.append(f"{name}: {c / n:.1%} of {n}")
        print(f"{meth:10} " + ", ".join(parts))


def combination_bound(rows):
    by_cell = collections.defaultdict(dict)   # (m, tau) -> method -> {(root, t): (pred, y)}
    for (root, m, tau, meth), v in rows.items():
        if meth in META:
            continue
        d = by_cell[(m, tau)].setdefault(meth, {})
        for x in v:
            if np.isfinite(x[1]):
                d[(root, x[0])] = (x[1], x[2])
    print("\ncombination: the best weights with hindsight (sum 1), per cell and per")
    print("root and cell, against the cell's best fixed method, on the moments every")
    print("fixed method answered")
    print(f"{'m':>4} {'tau':>4} {'moments':>8} {'best fixed':>12} {'RMSE ms':>10} "
          f"{'per cell':>10} {'gain':>7} {'per root':>10} {'gain':>7}")
    sse_best = sse_hind = sse_root = n_all = 0.0
    for (m, tau), d in sorted(by_cell.items()):
        meths = sorted(d)
        keys = set.intersection(*(set(d[k]) for k in meths))
        keys = sorted(keys)
        if not keys:
            continue
        X = np.array([[d[k][key][0] for k in meths] for key in keys])
        y = np.array([d[meths[0]][key][1] for key in keys])
        rmse = np.sqrt(((X - y[:, None]) ** 2).mean(axis=0))
        b = int(np.argmin(rmse))
        res = hindsight_residuals(X, y, b)
        roots = np.array([key[0] for key in keys])
        res_root = np.empty_like(res)
        for r in np.unique(roots):
            at = roots == r
            res_root[at] = hindsight_residuals(X[at], y[at], b)
        hind, hind_root = np.sqrt((res ** 2).mean()), np.sqrt((res_root ** 2).mean())
        print(f"{m:4d} {tau:4d} {len(keys):8d} {meths[b]:>12} {rmse[b]:10.3f} "
              f"{hind:10.3f} {hind / rmse[b] - 1:+7.1%} {hind_root:10.3f} "
              f"{hind_root / rmse[b] - 1:+7.1%}")
        sse_best += len(keys) * rmse[b] ** 2
        sse_hind += res @ res
        sse_root += res_root @ res_root
        n_all += len(keys)
    if n_all:
        print(f"{'pooled':>9} {int(n_all):8d} {'':>12} {np.sqrt(sse_best / n_all):10.3f} "
              f"{np.sqrt(sse_hind / n_all):10.3f} "
              f"{np.sqrt(sse_hind / sse_best) - 1:+7.1%} {np.sqrt(sse_root / n_all):10.3f} "
              f"{np.sqrt(sse_root / sse_best) - 1:+7.1%}")


def hindsight_residuals(X, y, b):
    """y minus the combination of X's columns, weights summing to 1, that
    fits y best: y - x_b = sum_j w_j (x_j - x_b), j != b, by least squares."""
    others = [j for j in range(X.shape[1]) if j != b]
    A = X[:, others] - X[:, [b]]
    # columns scaled: a Pareto forecast of 10^10 ms beside ones of 10^3
    # must not hide the others below lstsq's cutoff
    scale = np.sqrt((A ** 2).mean(axis=0))
    scale[scale == 0] = 1
    w, *_ = np.linalg.lstsq(A / scale, y - X[:, b], rcond=None)
    return y - X[:, b] - (A / scale) @ w


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    rows = read(argv[1])
    interval = interval_of(rows)
    have = sorted({k[3] for k, v in rows.items() if any(np.isfinite(x[5]) for x in v)})
    methods = argv[2:] or have
    calibration_bound(rows, interval, methods)
    by_history(rows, interval, methods)
    combination_bound(rows)


if __name__ == "__main__":
    main(sys.argv)
