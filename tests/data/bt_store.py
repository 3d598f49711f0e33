"""The backtest scenarios' noisy store (tests/cli/backtest.sh, adaptive.sh):
r -> a, b, c: 300 samples a minute apart, Pareto-like noise (c heavy:
windows with alpha <= 1), ~3 % lost, one row of r -> b missing, r -> c
constant for a stretch (point masses); r -> d loses 30 % of its probes.
Prints ts,src,dst,rtt_ms CSV."""
import random
random.seed(7)
print("ts,src,dst,rtt_ms")
t0 = 1795305600
for dst, base, alpha in (("a", 30.0, 3.0), ("b", 42.0, 1.8), ("c", 55.0, 0.9), ("d", 20.0, 2.5)):
    for i in range(300):
        if dst == "b" and i == 150:
            continue
        lost = random.random() < (0.3 if dst == "d" else 0.03)
        v = base if dst == "c" and 100 <= i < 130 else base * random.paretovariate(alpha)
        print(f"{t0 + 60 * i},r,{dst},{'' if lost else '%.3f' % v}")
