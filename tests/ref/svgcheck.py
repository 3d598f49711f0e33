#!/usr/bin/env python3
"""Read back an SVG of `gridtail plot` the way a person reads a chart: from
its tick labels.  Each axis is rebuilt from two of its labelled ticks (their
pixel and value; log axes in log10), independently of the writer's own
layout, and then

  span FILE                 every data mark lies within its axes' ranges
  place FILE X Y PX PY      the mark for data (X, Y) sits at pixel (PX, PY)
                            (to 0.05 px), and (PX, PY) agrees with the ticks
  marks FILE                prints "x y px py class" per data mark
  attr FILE TAG ATTR        prints ATTR of every TAG element that has it

Exit status 0 when the check holds, 1 with a reason otherwise.
"""
import math
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def load(path):
    return ET.parse(path).getroot()


def axes(root):
    """{'x': (kind, lo, hi, f), 'y': ...} with f(value) -> pixel from ticks"""
    out = {}
    for g in root.iter(NS + "g"):
        cls = g.get("class", "")
        if not cls.startswith("axis ") or cls == "axis colorbar":
            continue
        name = cls.split()[1]
        kind = g.get("data-kind")
        ticks = [(float(t.get("data-v")), float(t.get("x") if name == "x" else t.get("y")))
                 for t in g.iter(NS + "text") if t.get("data-v")]
        if len(ticks) < 2:
            raise SystemExit("axis %s has fewer than two labelled ticks" % name)
        (v1, p1), (v2, p2) = ticks[0], ticks[-1]
        if name == "y":
            # a y tick label sits 4 px below its line (the baseline)
            p1, p2 = p1 - 4, p2 - 4
        tr = (lambda v: math.log10(v)) if kind == "log" else (lambda v: v)

        def f(v, tr=tr, v1=v1, v2=v2, p1=p1, p2=p2):
            return p1 + (tr(v) - tr(v1)) / (tr(v2) - tr(v1)) * (p2 - p1)

        out.setdefault(name, (kind, float(g.get("data-lo")), float(g.get("data-hi")), f))
    return out


def marks(root):
    for c in root.iter(NS + "circle"):
        if c.get("data-x") is not None:
            yield (float(c.get("data-x")), float(c.get("data-y")),
                   float(c.get("cx")), float(c.get("cy")), c.get("class", ""))


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    root = load(path)
    if cmd == "marks":
        for m in marks(root):
            print("%.17g %.17g %.2f %.2f %s" % m)
        return 0
    if cmd == "attr":
        tag, attr = sys.argv[3], sys.argv[4]
        for e in root.iter(NS + tag):
            if e.get(attr) is not None:
                print(e.get(attr))
        return 0
    ax = axes(root)
    if cmd == "span":
        ms = list(marks(root))
        if not ms:
            print("no data marks")
            return 1
        for name, i in (("x", 0), ("y", 1)):
            kind, lo, hi, _ = ax[name]
            vals = [m[i] for m in ms]
            if min(vals) < lo * (1 - 1e-12) or max(vals) > hi * (1 + 1e-12):
                print("%s axis [%g, %g] does not span the data [%g, %g]"
                      % (name, lo, hi, min(vals), max(vals)))
                return 1
        return 0
    if cmd == "place":
        x, y, px, py = (float(v) for v in sys.argv[3:7])
        found = [m for m in marks(root)
                 if abs(m[0] - x) <= 1e-9 * abs(x) and abs(m[1] - y) <= 1e-9 * abs(y)]
        if not found:
            print("no mark at data (%g, %g)" % (x, y))
            return 1
        _, _, cx, cy, _ = found[0]
        tx, ty = ax["x"][3](x), ax["y"][3](y)
        for what, got, want in (("drawn x", cx, px), ("drawn y", cy, py),
                                ("x from the ticks", tx, px), ("y from the ticks", ty, py)):
            if abs(got - want) > 0.05:
                print("%s: %.3f, wanted %.3f" % (what, got, want))
                return 1
        return 0
    print("unknown check " + cmd)
    return 1


if __name__ == "__main__":
    sys.exit(main())
