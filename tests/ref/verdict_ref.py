#!/usr/bin/env python3
"""auto's verdict replayed independently (METHOD.md 3, verdicts) for
tests/cli/verdicts.sh.

One root with one partner, so that each moment's auto forecast is one of
the pareto, normal or empirical forecasts of the same moment.  For every
moment of `backtest --moments` (lead 1) this rebuilds the partner's
window (lost samples take the previous value), fits Pareto and normal in
closed form, bounds the window's p50, p90 and p99 by order statistics
whose ranks come from the exact binomial (fractions, no floating point),
flags a model whose quantile lies beyond a bound by more than the margin
or (a normal) that puts more than 1 % below 0 ms, and says which forecast
auto must equal: the fit index's choice (read off the chi2 method's
forecast), else the other fit, else the samples.  Prints a JSON summary
with the first moment of each kind (for the live estimate's check).

usage: verdict_ref.py DATA ROOT PARTNER INTERVAL MARGIN MOMENTS
"""
import csv
import json
import math
import sys
from fractions import Fraction
from statistics import NormalDist

path, root, partner = sys.argv[1], sys.argv[2], sys.argv[3]
interval, margin, moments_path = int(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
LEVELS = (Fraction(1, 2), Fraction(9, 10), Fraction(99, 100))
TAIL = Fraction(1, 200)          # (1 - 0.99) / 2 on each side

raw = {}
with open(path) as f:
    next(f)
    for line in f:
        ts, src, dst, rtt = line.rstrip("\n").split(",")[:4]
        if src == root and dst == partner:
            slot = (int(ts) + interval // 2) // interval
            if raw.get(slot) is None:
                raw[slot] = float(rtt) if rtt else None
s0, s1 = min(raw), max(raw)
filled, last = {}, None
for s in range(s0, s1 + 1):
    if raw.get(s) is not None:
        last = raw[s]
    filled[s] = last


def ranks(m, p):
    """(kl, kh): the largest kl with P(Bin(m, p) >= kl) >= 1 - TAIL (0:
    none), the smallest kh with P(Bin(m, p) >= kh) <= TAIL (m + 1: none)."""
    upper = [Fraction(0)] * (m + 2)          # upper[j] = P(Bin >= j)
    for j in range(m, -1, -1):
        upper[j] = upper[j + 1] + math.comb(m, j) * p ** j * (1 - p) ** (m - j)
    kl = max([j for j in range(1, m + 1) if upper[j] >= 1 - TAIL], default=0)
    kh = min([j for j in range(1, m + 1) if upper[j] <= TAIL], default=m + 1)
    return kl, kh


def flagged(quantile, xs, rk, extra=False):
    for (kl, kh), p in zip(rk, LEVELS):
        lo = xs[kl - 1] if kl else 0.0
        hi = xs[kh - 1] if kh <= len(xs) else xs[-1]
        q = quantile(float(p))
        if q < lo / (1 + margin) or q > hi * (1 + margin):
            return True
    return extra


pred = {}
with open(moments_path) as f:
    for r in csv.DictReader(f):
        if r["tau"] == "1":
            pred[(int(r["t"]), int(r["window"]), r["method"])] = float(r["predicted_ms"])

out = {"moments": 0, "unread": 0, "chosen": 0, "other": 0, "samples": 0, "mismatch": 0, "first": None,
       "example": {}}
rank_cache = {}
for (t, m, meth), auto in sorted(pred.items()):
    if meth != "auto":
        continue
    slot = t // interval
    xs = sorted(filled[s] for s in range(slot - m, slot))
    if xs[0] == xs[-1]:
        continue   # a point mass: no verdict
    k = xs[0]
    alpha = m / sum(math.log(x / k) for x in xs)
    mu = sum(xs) / m
    sd = math.sqrt(sum((x - mu) ** 2 for x in xs) / (m - 1))
    if m not in rank_cache:
        rank_cache[m] = [ranks(m, p) for p in LEVELS]
    rk = rank_cache[m]
    bad = {"pareto": flagged(lambda p: k * (1 - p) ** (-1 / alpha), xs, rk),
           "normal": flagged(NormalDist(mu, sd).inv_cdf, xs, rk,
                             NormalDist(mu, sd).cdf(0) > 0.01)}
    fc = {x: pred[(t, m, x)] for x in ("pareto", "normal", "empirical", "chi2")}
    same = {x for x in ("pareto", "normal") if math.isclose(fc["chi2"], fc[x], rel_tol=1e-12)}
    if len(same) != 1:
        out["unread"] += 1
        continue   # the index's choice cannot be read off
    chosen = same.pop()
    other = "normal" if chosen == "pareto" else "pareto"
    kind, want = (("chosen", chosen) if not bad[chosen] else
                  ("other", other) if not bad[other] else ("samples", "empirical"))
    out["moments"] += 1
    out[kind] += 1
    out["example"].setdefault(kind, {"t": t, "window": m, "model": want})
    if not math.isclose(auto, fc[want], rel_tol=1e-9):
        out["mismatch"] += 1
        out["first"] = out["first"] or {"t": t, "window": m, "auto": auto, "want": want,
                                        "forecasts": fc}
print(json.dumps(out))
