#!/usr/bin/env python3
"""Summaries of scripts/eval/verdicts.sh: for each backtest JSON (one per
verdict rule), the pooled RMSE of chi2, empirical and auto, their raw and
calibrated p90 and p99 coverage, and per window the share of partner
windows where auto took the other fit or the samples.

usage: verdict_summary.py BACKTEST.json..."""
import json
import math
import sys


def pooled(cells, method):
    cs = [c for c in cells if c["method"] == method and c["rmse_ms"] is not None]
    n = sum(c["n"] for c in cs)
    if not n:
        return None
    def share(key, q):
        return sum(c["n"] * (c[key][q] or 0) for c in cs) / n
    return (math.sqrt(sum(c["n"] * c["rmse_ms"] ** 2 for c in cs) / n), share("calibration", "p90"),
            share("calibration", "p99"), share("calibrated", "p90"), share("calibrated", "p99"))


for path in sys.argv[1:]:
    bt = json.load(open(path))
    fb = bt["auto_fallback"]
    print(f"verdict {fb['verdict']} (max_ks {fb['max_ks']}, margin {fb['quantile_margin']})")
    cells = [c for c in bt["cells"] if c["regime"] == "all"]
    print(f"  {'method':10} {'rmse_ms':>12} {'p90':>6} {'p99':>6} {'p90cal':>7} {'p99cal':>7}")
    for m in ("chi2", "empirical", "auto"):
        r = pooled(cells, m)
        if r:
            print(f"  {m:10} {r[0]:12.4g} {100 * r[1]:5.1f}% {100 * r[2]:5.1f}% "
                  f"{100 * r[3]:6.1f}% {100 * r[4]:6.1f}%")
    print("  window  partner windows  other fit  samples")
    for w in fb["windows"]:
        print(f"  {w['window']:6}  {w['partner_windows']:15.0f}  {100 * w['other_share']:8.1f}%"
              f"  {100 * w['share']:6.1f}%")
