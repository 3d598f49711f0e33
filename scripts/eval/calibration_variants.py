#!/usr/bin/env python3
"""Other calibration rules replayed on the moments of a `gridtail backtest
--moments FILE` run: the p99's pooled coverage each would have had
(docs/EVALUATION.md, "Calibrated quantiles").  The calibrator is
estimators/conformal.c's rule rewritten here (the first row, "per root",
reproduces the backtest's calibrated p99); the others change one thing:

  per root, gamma G     the level's step per outcome
  pooled over roots     one calibrator per (window, tau) fed by every
                        root's outcomes as they become known
  root, else pool       the root's own once ready, the pool's before
  shorter lead          while a lead's own is not ready, the larger of
                        its answer and the raw quantile times the factor
                        of the longest shorter lead whose calibrator is
  other window          likewise from the same lead at another window
                        (the smallest first), then a shorter lead

Usage: calibration_variants.py MOMENTS.csv [METHOD] (default empirical).
Pure Python; a minute or two on Seattle's moments."""
import collections
import csv
import sys

from calibration_grid import Conf as LevelConf

P = 0.99


class Conf(LevelConf):
    """The p99's calibrator (calibration_grid.py's, estimators/conformal.c's
    rule) at the former defaults W = 1,000, gamma = 0.005 unless told."""

    def __init__(self, window=1000, gamma=0.005):
        super().__init__(P, window, gamma)


def read(path, method):
    cells = collections.defaultdict(list)   # (m, tau) -> [(t, root, actual, raw p99)]
    with open(path) as f:
        r = csv.reader(f)
        next(r)
        for x in r:
            if x[4] == method and x[10]:
                cells[(int(x[2]), int(x[3]))].append((int(x[1]), x[0], float(x[7]),
                                                      float(x[10])))
    for v in cells.values():
        v.sort()
    return cells


def interval_of(cells):
    ts = sorted({x[0] for v in cells.values() for x in v})
    return min(b - a for a, b in zip(ts, ts[1:]))


def replay(cells, dt, per_root_gamma=None, pool=None, hier=False):
    """Coverage counts of one rule over every cell."""
    n = c = 0
    for (m, tau), v in cells.items():
        g = 0.005 if per_root_gamma is None else per_root_gamma
        own = collections.defaultdict(lambda: Conf(gamma=g))
        shared = Conf(*pool) if pool else None
        pending = collections.deque()   # (due, root, raw, issued own, issued pool, actual)
        for t, root, y, q in v:
            while pending and pending[0][0] <= t - dt:
                _, rt, raw, iso, isp, act = pending.popleft()
                own[rt].observe(raw, iso, act)
                if shared:
                    shared.observe(raw, isp, act)
            iso = own[root].adjust(q)
            isp = shared.adjust(q) if shared else iso
            use = isp if shared and not (hier and own[root].ready()) else iso
            pending.append((t + tau * dt, root, q, iso, isp, y))
            n += 1
            c += y <= use
    return c / n


def replay_borrowing(cells, dt, windows=False, leads=True):
    """Per root; while a (window, lead) calibrator is not ready, the larger
    of its answer and the raw quantile times the factor of a ready one of
    the same root at another window (the smallest first) and/or a shorter
    lead (the longest first)."""
    wins = sorted({m for m, _ in cells})
    taus = sorted({tau for _, tau in cells})
    by_root = collections.defaultdict(lambda: collections.defaultdict(dict))
    for (m, tau), v in cells.items():
        for t, root, y, q in v:
            by_root[root][t][(m, tau)] = (y, q)
    n = c = 0
    for moments in by_root.values():
        cal = {k: Conf() for k in cells}
        pending = {k: collections.deque() for k in cells}
        for t in sorted(moments):
            for k in cells:
                while pending[k] and pending[k][0][0] <= t - dt:
                    _, raw, iss, act = pending[k].popleft()
                    cal[k].observe(raw, iss, act)
            for (m, tau), (y, q) in moments[t].items():
                iss = cal[(m, tau)].adjust(q)
                use = iss
                if not cal[(m, tau)].ready():
                    others = [(m2, tau) for m2 in wins if m2 != m] if windows else []
                    others += [(m, t2) for t2 in reversed(taus) if t2 < tau] if leads else []
                    for k in others:
                        if cal[k].ready():
                            use = max(iss, q * cal[k].adjust(1.0))
                            break
                pending[(m, tau)].append((t + tau * dt, q, iss, y))
                n += 1
                c += y <= use
    return c / n


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    method = argv[2] if len(argv) > 2 else "empirical"
    cells = read(argv[1], method)
    dt = interval_of(cells)
    print(f"{method}: pooled p99 coverage over {sum(len(v) for v in cells.values())} moments")
    for g in (0.005, 0.0, 0.02, 0.05):
        print(f"  per root, gamma {g:<6}        {replay(cells, dt, per_root_gamma=g):.2%}")
    # the pool keeps every score (W = 10^6): one thing changes a row
    print(f"  pooled over roots, gamma 0     {replay(cells, dt, pool=(10 ** 6, 0.0)):.2%}")
    print(f"  pooled over roots, gamma 5e-4  {replay(cells, dt, pool=(10 ** 6, 0.0005)):.2%}")
    print(f"  root, else pool (gamma 0.005)  "
          f"{replay(cells, dt, pool=(10 ** 6, 0.005), hier=True):.2%}")
    print(f"  shorter lead while not ready   {replay_borrowing(cells, dt):.2%}")
    print(f"  other window while not ready   {replay_borrowing(cells, dt, True, False):.2%}")
    print(f"  other window, else shorter lead "
          f"{replay_borrowing(cells, dt, True, True):.2%}")


if __name__ == "__main__":
    main(sys.argv)
