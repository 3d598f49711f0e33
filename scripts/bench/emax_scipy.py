"""The SciPy peer for scripts/bench/emax.sh: E[max] of independent
partners read from stdin ("pareto K ALPHA" / "normal MU SIGMA" lines) by
scipy.integrate.quad of 1 - prod F_i(x) over [max k_i, inf), the product
in log space with numpy-vectorized log-CDFs.  Prints value and median
time in ms over REPS runs."""
import sys
import time

import numpy as np
from scipy import integrate, special

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
pk, pa, nm, ns = [], [], [], []
for line in sys.stdin:
    model, a, b = line.split()
    if model == "pareto":
        pk.append(float(a)); pa.append(float(b))
    else:
        nm.append(float(a)); ns.append(float(b))
pk, pa, nm, ns = map(np.array, (pk, pa, nm, ns))
lo = pk.max() if len(pk) else 0.0


def one_minus_g(x):
    s = 0.0
    if len(pk):
        t = pa * np.log(pk / x)
        s += np.sum(np.log1p(-np.exp(t)))
    if len(nm):
        s += np.sum(special.log_ndtr((x - nm) / ns))
    return -np.expm1(s)


def emax():
    v, _ = integrate.quad(one_minus_g, lo, np.inf, epsabs=0, epsrel=1e-10, limit=2000)
    return lo + v


times = []
for _ in range(reps):
    t0 = time.perf_counter()
    v = emax()
    times.append(time.perf_counter() - t0)
times.sort()
print("%.15g quad %.6f" % (v, times[len(times) // 2] * 1e3))
