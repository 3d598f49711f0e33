"""An independent implementation of the backtest's calibration and
combination rules (METHOD.md section 5), replayed over the raw forecasts
of `gridtail backtest --moments` (tests/cli/calibrate.sh).

Per (root, window, tau), moments in time order; the outcome of moment t'
is known at t once t' + tau <= t - 1 (in samples).  Each method's
quantiles are calibrated by the scores log(actual / raw) of the last W
known outcomes, read at a level that follows the misses (adaptive
conformal inference); the combined forecast weighs the fixed methods by
the convex combination of least mean squared error over the last H known
outcomes (at lead tau, at least 16 tau of them; H = 0: all), with the second moments shrunk towards their diagonal, after
leaving out forecasts farther from the median forecast than 4 times the
median of the methods' tracked RMSEs (before any outcome, of the
forecasts' distances to their median; at least 1e-3 of the median), the
weights solved over the forecasts kept.  Adaptive takes, of the forecasts
the same guard keeps (over its own last HA outcomes), the one whose method
has the least mean squared error (the first kept before any outcome).  When
the guard would keep none, it keeps the middle one or two forecasts (those
the median is made of).

Usage: forecast_ref.py MOMENTS.csv BACKTEST.json INTERVAL W GAMMA H SHRINK [HA]
(HA: adaptive's horizon, default 50).  Prints "same" or the differences,
then what it checked, and at how many moments the guard turned
adaptive from the method with the best record."""
import csv
import json
import math
import sys
from collections import defaultdict
from itertools import combinations

LEVELS = (0.5, 0.9, 0.99)
FIXED = ("pareto", "normal", "last", "chi2", "empirical", "regime", "auto")
GUARD = 4.0


class Calibrator:
    def __init__(self, p, window, gamma):
        self.p, self.window, self.gamma = p, window, gamma
        self.scores, self.level = [], p

    def adjust(self, raw):
        if not self.scores or not (raw > 0 and math.isfinite(raw)):
            return raw
        s = sorted(self.scores)
        if math.ceil(self.p * (len(s) + 1) - 1e-9) > len(s):   # too few: only raised
            return raw * math.exp(max(0.0, s[-1]))
        r = math.ceil(self.level * (len(s) + 1) - 1e-9)
        return raw * math.exp(s[min(max(r, 1), len(s)) - 1])

    def observe(self, raw, issued, actual):
        if not (raw > 0 and math.isfinite(raw) and actual > 0 and math.isfinite(actual)):
            return
        self.scores.append(math.log(actual / raw))
        if len(self.scores) > self.window:
            self.scores.pop(0)
        miss = 1.0 if actual > issued else 0.0
        self.level = min(1.0, max(0.0, self.level + self.gamma * (miss - (1 - self.p))))


def solve(a, b):
    """Gaussian elimination with partial pivoting; None if singular."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-14:
            return None
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def weights(errs, k, shrink, use):
    idx = [j for j in range(k) if use[j]]
    if not idx:
        return [0.0] * k
    if not errs:
        return [1.0 / len(idx) if use[j] else 0.0 for j in range(k)]
    shrink = max(shrink, min(1.0, k / len(errs)))   # at least k / n (METHOD.md)
    s = [[sum(e[i] * e[j] for e in errs) for j in range(k)] for i in range(k)]
    top = max(s[j][j] for j in idx)
    for j in idx:
        if not s[j][j] > 1e-300 * top:
            return [1.0 if i == j else 0.0 for i in range(k)]
    a = [[s[i][j] / top * ((1 + 1e-12) if i == j else 1 - shrink) for j in range(k)]
         for i in range(k)]
    best, bw = math.inf, None
    for size in range(1, len(idx) + 1):
        for sup in combinations(idx, size):
            x = solve([[a[i][j] for j in sup] for i in sup], [1.0] * size)
            if x is None or min(x) < 0 or sum(x) <= 0:
                continue
            if 1 / sum(x) < best * (1 - 1e-12):
                best, bw = 1 / sum(x), [0.0] * k
                for i, j in enumerate(sup):
                    bw[j] = x[i] / sum(x)
    return bw


def num(v):
    return float(v) if v != "" else None


def moments_of(path):
    """A --moments file's rows of one root, window and lead: {t: {method: row}}."""
    moments = defaultdict(dict)
    for r in csv.DictReader(open(path)):
        moments[int(r["t"])][r["method"]] = r
    return moments


def settled(moments, fixed, keep, iv=60, lead=1):
    """Each moment in time order as (t, rows, forecasts, errors): the fixed
    methods' forecasts then, and the errors of the last `keep` moments whose
    outcome is known by then (all the methods forecast them)."""
    errs, pending = [], []
    for t in sorted(moments):
        rows = moments[t]
        while pending and pending[0][0] + lead * iv <= t - iv:
            e = pending.pop(0)[1]
            if e is not None:
                errs = (errs + [e])[-keep:]
        preds = {f: float(rows[f]["predicted_ms"]) for f in fixed if f in rows}
        yield t, rows, preds, errs
        actual = float(next(iter(rows.values()))["actual_ms"])
        pending.append((t, [preds[f] - actual for f in fixed] if len(preds) == len(fixed) else None))


def calibrators_after(rows, window, gamma, iv=60):
    """The p50, p90 and p99 calibrators once the raw quantiles of rows (one
    method's moments at a lead of one sample, in time order) and all their
    outcomes are seen, as a live calibration replays them."""
    cal = [Calibrator(p, window, gamma) for p in LEVELS]
    pending = []
    for r in rows:
        t = int(r["t"])
        while pending and pending[0][0] + iv <= t - iv:
            _, raw, iss, act = pending.pop(0)
            for c, x, i in zip(cal, raw, iss):
                c.observe(x, i, act)
        raw = [float(r[f"p{q}_ms"]) for q in ("50", "90", "99")]
        pending.append((t, raw, [c.adjust(x) for c, x in zip(cal, raw)], float(r["actual_ms"])))
    for _, raw, iss, act in pending:
        for c, x, i in zip(cal, raw, iss):
            c.observe(x, i, act)
    return cal


def median(v):
    v, n = sorted(v), len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def guard(preds, fixed, errs):
    """Which of the fixed methods' forecasts the guard keeps."""
    k, vals = len(fixed), list(preds.values())
    med = median(vals)
    if errs:
        scale = median([math.sqrt(sum(x[j] ** 2 for x in errs) / len(errs)) for j in range(k)])
    else:
        scale = median([abs(x - med) for x in vals])
    scale = max(scale, 1e-3 * abs(med))
    use = [f in preds and not abs(preds[f] - med) > GUARD * scale for f in fixed]
    if not any(use) and preds:   # all far apart: the middle one or two
        v, n = sorted(vals), len(vals)
        use = [f in preds and preds[f] in (v[(n - 1) // 2], v[n // 2]) for f in fixed]
    return med, use


def adaptive_pick(preds, fixed, errs):
    """adaptive's method now, and the one with the best record."""
    _, use = guard(preds, fixed, errs)
    mse = [sum(x[j] ** 2 for x in errs) for j in range(len(fixed))]
    best = min(range(len(fixed)), key=lambda j: (mse[j], j)) if errs else 0
    kept = [j for j in range(len(fixed)) if use[j]]
    return (min(kept, key=lambda j: (mse[j], j)) if errs else kept[0]), best


def main():
    mpath, jpath, iv, window, gamma, horizon, shrink = sys.argv[1:8]
    iv, window, gamma, horizon, shrink = int(iv), int(window), float(gamma), int(horizon), float(shrink)
    ahorizon = int(sys.argv[8]) if len(sys.argv) > 8 else 50
    groups = defaultdict(lambda: defaultdict(dict))
    for r in csv.DictReader(open(mpath)):
        groups[(r["root"], int(r["window"]), int(r["tau"]))][int(r["t"])][r["method"]] = r
    bt = json.load(open(jpath))
    fixed = [m for m in bt["methods"] if m in FIXED]
    bad, counted = [], defaultdict(lambda: [0, 0, 0, 0])
    adaptive, turned = 0, 0
    for (root, m, tau), moments in groups.items():
        cal = defaultdict(lambda: [Calibrator(p, window, gamma) for p in LEVELS])
        errs, aerrs, pending = [], [], []
        keep = max(horizon, 16 * tau) if horizon else 0
        for t in sorted(moments):
            rows = moments[t]
            while pending and pending[0][0] + tau * iv <= t - iv:
                _, actual, e, issued = pending.pop(0)
                if e is not None:
                    errs.append(e)
                    if keep and len(errs) > keep:
                        errs.pop(0)
                    aerrs.append(e)
                    if ahorizon and len(aerrs) > ahorizon:
                        aerrs.pop(0)
                for meth, (raw, qc) in issued.items():
                    for c, r_, i_ in zip(cal[meth], raw, qc):
                        c.observe(r_, i_, actual)
            actual = float(next(iter(rows.values()))["actual_ms"])
            preds = {f: float(rows[f]["predicted_ms"]) for f in fixed if f in rows}
            e = [preds[f] - actual for f in fixed] if len(preds) == len(fixed) else None
            if "adaptive" in rows:
                j, best = adaptive_pick(preds, fixed, aerrs)
                want = preds[fixed[j]]
                got = float(rows["adaptive"]["predicted_ms"])
                adaptive += 1
                turned += j != best
                if got != want:
                    bad.append(f"adaptive {root} m={m} tau={tau} t={t}: {got} vs {want}")
            if "combined" in rows:
                k = len(fixed)
                _, use = guard(preds, fixed, errs)
                w = weights(errs, k, shrink, use)
                sp = sum(w[j] for j in range(k) if use[j])
                want = (sum(w[j] * preds[fixed[j]] for j in range(k) if use[j]) / sp
                        if sp > 0 else math.nan)
                got = float(rows["combined"]["predicted_ms"])
                if abs(got - want) > 1e-6 * abs(want):
                    bad.append(f"combined {root} m={m} tau={tau} t={t}: {got} vs {want}")
            issued = {}
            for meth, row in rows.items():
                if row["p50_ms"] == "":
                    continue
                raw = [num(row[f"p{q}_ms"]) for q in ("50", "90", "99")]
                got = [num(row[f"p{q}_cal_ms"]) for q in ("50", "90", "99")]
                want = [c.adjust(x) for c, x in zip(cal[meth], raw)]
                for g, w_ in zip(got, want):
                    if abs(g - w_) > 1e-9 * abs(w_):
                        bad.append(f"calibrated {meth} {root} m={m} tau={tau} t={t}: {got} vs {want}")
                        break
                issued[meth] = (raw, got)
                cnt = counted[(m, tau, meth)]
                cnt[0] += 1
                for i in range(3):
                    cnt[1 + i] += actual <= got[i]
            pending.append((t, actual, e, issued))
    cells = {(c["window"], c["tau"], c["method"]): c for c in bt["cells"] if c["regime"] == "all"}
    for (m, tau, meth), cnt in counted.items():
        c = cells[(m, tau, meth)]["calibrated"]
        for i, q in enumerate(("p50", "p90", "p99")):
            if abs(c[q] - cnt[1 + i] / cnt[0]) > 1e-12:
                bad.append(f"coverage {m} {tau} {meth} {q}: {c[q]} vs {cnt[1 + i] / cnt[0]}")
    print("\n".join(bad[:10]) if bad else "same")
    print("checked", sum(c[0] for c in counted.values()), "calibrated forecasts,",
          adaptive, "adaptive forecasts,", sum(len(g) for g in groups.values()), "moments;",
          turned, "turned by the guard")


if __name__ == "__main__":
    main()
