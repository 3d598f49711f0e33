#!/usr/bin/env python3
"""The chi-square fit index of METHOD.md 1.2, computed independently in
60-digit arithmetic (mpmath): the paper's two sums as written, class
probabilities as plain CDF differences.  The classes are built exactly as
gridtail builds them (in IEEE doubles, the same operations in the same
order), the model parameters are fitted again in high precision, and the
class probabilities are evaluated at those double edges.

usage: chi2_ref.py FILE   (one RTT in ms per line)
prints: pareto <lambda2> normal <lambda2>   ("inf" when a class expects 0)
"""
import math
import sys

from mpmath import erfc, log, mp, mpf, sqrt

mp.dps = 60


def classes(xs):
    m = len(xs)
    lx = [math.log(x) for x in xs]
    lo, hi = min(lx), max(lx)
    s = 0.0
    for v in lx:
        s += v
    mean = s / m
    s2 = 0.0
    for v in lx:
        s2 += (v - mean) * (v - mean)
    sd = math.sqrt(s2 / (m - 1))
    w = 3.49 * sd * math.pow(m, -1.0 / 3)
    span = (hi - lo) / w
    n = 1000000 if span > 1e6 else max(1, math.ceil(span))
    counts = [0] * n
    for v in lx:
        c = math.floor((v - lo) / w)
        counts[0 if c < 0 else (n - 1 if c >= n else int(c))] += 1
    edges = [mpf(math.exp(lo + (j + 1) * w)) for j in range(n - 1)]
    return counts, edges


def index(cdf_at, counts, edges, m):
    cdf = [mpf(0)] + [cdf_at(e) for e in edges] + [mpf(1)]
    s1 = s2 = mpf(0)
    for j, y in enumerate(counts):
        e = m * (cdf[j + 1] - cdf[j])
        if e == 0:
            return None
        d = y - e
        s1 += d * d / e
        s2 += d / e
    return (s1 - s2 - (len(counts) - 3)) / (m - 1)


def main():
    xs = [float(line) for line in open(sys.argv[1]) if line.strip()]
    m = len(xs)
    counts, edges = classes(xs)
    big = [mpf(x) for x in xs]
    k = min(big)
    alpha = m / sum(log(x / k) for x in big)
    mu = sum(big) / m
    sigma = sqrt(sum((x - mu) ** 2 for x in big) / (m - 1))
    pareto = index(lambda x: mpf(0) if x <= k else 1 - (k / x) ** alpha, counts, edges, m)
    normal = index(lambda x: erfc((mu - x) / (sigma * sqrt(2))) / 2, counts, edges, m)
    out = []
    for name, v in (("pareto", pareto), ("normal", normal)):
        out.append("%s %s" % (name, "inf" if v is None else mp.nstr(v, 20)))
    print(" ".join(out))


main()
