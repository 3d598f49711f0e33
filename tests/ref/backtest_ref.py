#!/usr/bin/env python3
"""An independent backtest (METHOD.md section 3) for tests/cli/backtest.sh.

Reads the raw samples (ts,src,dst,rtt_ms; empty = lost), replays root R
with methods last, normal and pareto, and prints per (window, tau,
method) n, RMSE, MAE, bias, the Mann-Whitney U of |errors| against
normal's (midranks, tie correction, no continuity correction) and its
p-value, and per window the moments with some alpha <= 1.  Shares no
code with gridtail: Pareto E[max] by inclusion-exclusion in closed form
(censored at x0 when some alpha <= 1), normal E[max] by Gauss-Legendre
panels, plain Python lists.

usage: backtest_ref.py FILE ROOT INTERVAL WINDOWS TAUS PARTNERS [FROM TO]

FROM and TO (unix seconds) keep only the moments in [FROM, TO] (the live
adaptive choice replays the last H moments).
"""
import json
import math
import sys
from itertools import combinations

path, root, interval = sys.argv[1], sys.argv[2], int(sys.argv[3])
windows = [int(x) for x in sys.argv[4].split(",")]
taus = [int(x) for x in sys.argv[5].split(",")]
partners = sys.argv[6].split(",")
t_from = int(sys.argv[7]) if len(sys.argv) > 8 else -math.inf
t_to = int(sys.argv[8]) if len(sys.argv) > 8 else math.inf

raw = {p: {} for p in partners}
with open(path) as f:
    next(f)
    for line in f:
        ts, src, dst, rtt = line.rstrip("\n").split(",")[:4]
        if src != root or dst not in raw:
            continue
        slot = (int(ts) + interval // 2) // interval
        v = float(rtt) if rtt else None
        if slot not in raw[dst] or raw[dst][slot] is None:
            raw[dst][slot] = v

s0 = min(min(r) for r in raw.values())
s1 = max(max(r) for r in raw.values())
filled, first = {}, {}
for p, r in raw.items():
    last, out = None, []
    for s in range(s0, s1 + 1):
        v = r.get(s)
        if v is not None:
            last = v
            first.setdefault(p, s)
        out.append(last)
    filled[p] = out
y = []
for k in range(s1 - s0 + 1):
    vals = [filled[p][k] for p in partners]
    y.append(None if any(v is None for v in vals) else max(vals))

GL_X = [-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831, 0.9061798459386640]
GL_W = [0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
        0.2369268850561891]


def normal_emax(parts):
    """parts: ("n", mu, sigma) or ("d", value)."""
    deltas = [p[1] for p in parts if p[0] == "d"]
    norms = [p for p in parts if p[0] == "n"]
    if not norms:
        return max(deltas)
    lo = min([mu - 14 * sd for _, mu, sd in norms] + deltas)
    hi = max([mu + 14 * sd for _, mu, sd in norms] + deltas)
    dmax = max(deltas) if deltas else lo
    def G(x):
        if x < dmax:
            return 0.0
        g = 1.0
        for _, mu, sd in norms:
            g *= 0.5 * math.erfc(-(x - mu) / (sd * math.sqrt(2)))
        return g
    # 1 - G is 1 below the largest point mass
    a = max(lo, dmax)
    total, panels = 0.0, 4000
    h = (hi - a) / panels
    for i in range(panels):
        c, r = a + (i + 0.5) * h, h / 2
        total += sum(w * (1 - G(c + r * x)) for x, w in zip(GL_X, GL_W)) * r
    return a + total


def pareto_emax(parts, x0):
    """parts: ("p", k, alpha) or ("d", value); x0 the cut or inf."""
    deltas = [p[1] for p in parts if p[0] == "d"]
    pars = [p for p in parts if p[0] == "p"]
    a = max([k for _, k, _ in pars] + deltas)
    if x0 <= a:
        return x0
    total = 0.0
    for size in range(1, len(pars) + 1):
        for sub in combinations(pars, size):
            asum = sum(al for _, _, al in sub)
            c = math.prod(k ** al for _, k, al in sub)
            upper = 0.0 if math.isinf(x0) else x0 ** (1 - asum)
            total += (-1) ** (size + 1) * c * (a ** (1 - asum) - upper) / (asum - 1)
    return a + total


def ranks_u(a, b):
    allv = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks, i, ties = [0.0] * len(allv), 0, 0.0
    while i < len(allv):
        j = i
        while j + 1 < len(allv) and allv[j + 1][0] == allv[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t ** 3 - t
        i = j + 1
    ra = sum(r for r, (_, side) in zip(ranks, allv) if side == 0)
    na, nb = len(a), len(b)
    u = ra - na * (na + 1) / 2
    n = na + nb
    var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))
    z = (u - na * nb / 2) / math.sqrt(var)
    return u, math.erfc(abs(z) / math.sqrt(2))


out = {"cells": [], "alpha_le1": []}
for m in windows:
    ready = max(first[p] for p in partners)
    errs = {(t, meth): [] for t in taus for meth in ("pareto", "normal", "last")}
    moments = le1 = 0
    for t in range(ready + m, s1 + 2):
        if not t_from <= t * interval <= t_to:
            continue
        pp, nn, x0 = [], [], math.inf
        any_le1 = False
        for p in partners:
            w = filled[p][t - m - s0:t - s0]
            k = min(w)
            if max(w) == k:
                pp.append(("d", k))
                nn.append(("d", k))
                continue
            alpha = m / sum(math.log(x / k) for x in w)
            mu = sum(w) / m
            sd = math.sqrt(sum((x - mu) ** 2 for x in w) / (m - 1))
            pp.append(("p", k, alpha))
            nn.append(("n", mu, sd))
            if alpha <= 1:
                any_le1 = True
                x0c = k * m ** (1 / alpha)
                x0 = x0c if math.isinf(x0) else max(x0, x0c)
        moments += 1
        le1 += any_le1
        pred = {"pareto": pareto_emax(pp, x0), "normal": normal_emax(nn), "last": y[t - 1 - s0]}
        for tau in taus:
            if t + tau > s1 or y[t + tau - s0] is None:
                continue
            for meth, v in pred.items():
                errs[(tau, meth)].append(v - y[t + tau - s0])
    out["alpha_le1"].append({"window": m, "moments": moments, "alpha_le1": le1})
    for tau in taus:
        for meth in ("pareto", "normal", "last"):
            e = errs[(tau, meth)]
            n = len(e)
            if not n:
                continue
            cell = {"window": m, "tau": tau, "method": meth, "n": n,
                    "rmse_ms": math.sqrt(sum(x * x for x in e) / n),
                    "mae_ms": sum(abs(x) for x in e) / n, "bias_ms": sum(e) / n}
            if meth != "normal":
                cell["u"], cell["p"] = ranks_u([abs(x) for x in e],
                                               [abs(x) for x in errs[(tau, "normal")]])
            out["cells"].append(cell)
print(json.dumps(out))
