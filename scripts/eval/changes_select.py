#!/usr/bin/env python3
"""How stable the segmentation's penalty is: leave-out selection.

Usage: changes_select.py GRID_FILE

GRID_FILE: lines "PENALTY TRACE TRUE FOUND MATCHED" (changes_driver.c's
per-trace rows for each penalty of a grid, as changes.sh writes them).
The penalty is chosen as the whole set chooses it on all traces but the
left-out ones, and scored on those: leaving out one trace at a time, and
four folds (trace i in fold i mod 4, by name).  The rule, precision
first: the largest penalty of the grid whose pooled F1 is within 0.01 of
the best.
Prints the penalty each choice took and the pooled held-out precision,
recall and F1; then the scores of each fold at each penalty of the grid.
"""
import collections
import sys


def score(d, k, traces):
    t = sum(d[k][f][0] for f in traces)
    n = sum(d[k][f][1] for f in traces)
    m = sum(d[k][f][2] for f in traces)
    p = m / n if n else 0.0
    r = m / t if t else 0.0
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def choose(d, grid, traces):
    top = max(score(d, k, traces)[2] for k in grid)
    return max(k for k in grid if score(d, k, traces)[2] >= top - 0.01)


def main():
    d = collections.defaultdict(dict)
    with open(sys.argv[1]) as f:
        for line in f:
            k, name, t, n, m = line.split()
            d[float(k)][name] = (int(t), int(n), int(m))
    grid = sorted(d)
    traces = sorted(d[grid[0]])
    for label, folds in (("leave one out", len(traces)), ("4 folds", 4)):
        chosen, pooled = [], [0, 0, 0]
        for j in range(folds):
            test = [f for i, f in enumerate(traces) if i % folds == j]
            train = [f for f in traces if f not in test]
            best = choose(d, grid, train)
            chosen.append(best)
            for f in test:
                for c in range(3):
                    pooled[c] += d[best][f][c]
        p = pooled[2] / pooled[1]
        r = pooled[2] / pooled[0]
        counts = collections.Counter(chosen)
        print("%-14s penalties chosen %s; held out: precision %.3f recall %.3f F1 %.3f"
              % (label, ", ".join("%g (%d)" % (k, counts[k]) for k in sorted(counts)),
                 p, r, 2 * p * r / (p + r)))
    print("the rule on all traces: %g" % choose(d, grid, traces))
    print("by fold (precision/recall/F1 of fold 0..3) at each penalty:")
    for k in grid:
        cells = []
        for j in range(4):
            cells.append("%.2f/%.2f/%.2f" % score(d, k, [f for i, f in enumerate(traces)
                                                         if i % 4 == j]))
        print("  %-6g %s   all %.3f/%.3f/%.3f" % ((k, "  ".join(cells)) + score(d, k, traces)))


if __name__ == "__main__":
    main()
