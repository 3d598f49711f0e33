#!/usr/bin/env python3
"""Summary of a `gridtail backtest --json` run against issue 29's goals.

Per method, pooled over the (window, tau) cells: RMSE and its distance
to the best fixed method's, and to each cell's best fixed method's
pooled alike (each cell's best RMSE weighed by the method's outcomes in
the cell), how many cells it is within 2 % of that cell's best fixed
method, and the coverage of the raw and calibrated
p50, p90 and p99 (pooled, and the lowest cell).  Pooled coverage weighs
each cell by its outcomes."""
import json
import sys

META = ("adaptive", "combined")


def main(path):
    d = json.load(open(path))
    cells = [c for c in d["cells"] if c["regime"] == "all" and c["n"] > 0]
    best = {}
    for c in cells:
        if c["method"] not in META:
            k = (c["window"], c["tau"])
            best[k] = min(best.get(k, float("inf")), c["rmse_ms"])
    pooled = {}
    for m in d["methods"]:
        cs = [c for c in cells if c["method"] == m]
        n = sum(c["n"] for c in cs)
        pooled[m] = (sum(c["n"] * c["rmse_ms"] ** 2 for c in cs) / n) ** 0.5 if n else None
    fixed = [m for m in d["methods"] if m not in META and pooled[m] is not None]
    bm = min(fixed, key=lambda m: pooled[m])
    print(f"{d['roots']} roots, {d['pairs']} pairs; best fixed method pooled: {bm} "
          f"{pooled[bm]:.3f} ms")
    print(f"{'method':10} {'RMSE ms':>10} {'vs best':>8} {'vs cells':>8} {'cells<=2%':>9}   "
          "coverage raw -> calibrated: p50, p90, p99 (lowest cell)")
    for m in d["methods"]:
        cs = [c for c in cells if c["method"] == m]
        if not cs:
            continue
        within = sum(c["rmse_ms"] <= 1.02 * best[(c["window"], c["tau"])] for c in cs)
        n = sum(c["n"] for c in cs)
        cells_best = (sum(c["n"] * best[(c["window"], c["tau"])] ** 2 for c in cs) / n) ** 0.5
        line = (f"{m:10} {pooled[m]:10.3f} {100 * (pooled[m] / pooled[bm] - 1):+7.1f}% "
                f"{100 * (pooled[m] / cells_best - 1):+7.1f}% {within:4d}/{len(cs):<4d}")
        if cs[0]["calibration"]["p50"] is not None:
            parts = []
            for k in ("p50", "p90", "p99"):
                n = sum(c["n"] for c in cs)
                raw = sum(c["n"] * c["calibration"][k] for c in cs) / n
                cal = sum(c["n"] * c["calibrated"][k] for c in cs) / n
                low = min(c["calibrated"][k] for c in cs)
                parts.append(f"{100 * raw:.1f} -> {100 * cal:.1f} ({100 * low:.1f})")
            line += "   " + ", ".join(parts)
        print(line)


if __name__ == "__main__":
    main(sys.argv[1])
