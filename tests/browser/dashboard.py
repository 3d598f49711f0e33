#!/usr/bin/python3
"""Drive the dashboard in a real browser: Debian's chromium, headless,
through the DevTools protocol (python3-websocket).

usage: dashboard.py URL EXPECT.json ARTIFACTS_DIR
       dashboard.py --checks
       dashboard.py --bench URL LOADS

EXPECT.json: {"sites": [names with pairs], "pair": [src, dst],
              "pair_model": the model `estimate` uses for that pair,
              "pair_fallback": whether its two fits are both flagged,
              "place": {"pool": [...], "size": K, "root": R, "window": W,
                        "model": M, "sites": [...]}}

Checks what the page draws, as a person would see it: where the lines
end against their frames, which elements the browser hits at a point,
whether labels overlap.  Prints TAP-style "ok - ..." / "not ok - ..."
lines (tests/cli/lib.inc's format; CHECKS of them, which --checks
prints, whatever happens: a check that could not run is "not ok") and
keeps screenshots in ARTIFACTS_DIR.

--bench loads the page LOADS times, each in a fresh tab, and prints the
time to its first render (the page's own performance.now() when the
matrix and the map are drawn), one line per load: no bound is checked.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import websocket

CHECKS = 32   # tests/cli/dashboard.sh's plan counts these


class Page:
    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.next_id = 0
        self.errors = []

    def call(self, method, **params):
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self.event(msg)

    def event(self, msg):
        m, p = msg.get("method"), msg.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            self.errors.append("exception: %s" % d.get("exception", {}).get("description", d.get("text")))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append("console.%s: %s" % (p["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
            self.errors.append("log: %s %s" % (p["entry"].get("text"), p["entry"].get("url", "")))

    def js(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def wait(self, expr, timeout=30):
        """poll expr until true; the timeout only catches a hang"""
        t0 = time.time()
        while time.time() - t0 < timeout:
            if self.js(expr):
                return True
            time.sleep(0.1)
        return False

    def open(self, url):
        """load url afresh (by way of about:blank: a navigation to the same
        page with another hash would not reload it) and wait for its first
        render"""
        self.call("Page.navigate", url="about:blank")
        self.wait("location.href === 'about:blank'")
        self.call("Page.navigate", url=url)
        return self.wait("location.href === %s && document.readyState === 'complete'"
                         " && document.body.dataset.ready === 'yes'" % json.dumps(url))

    def screenshot(self, path, selector=None):
        params = {"format": "png", "captureBeyondViewport": True}
        if selector:
            box = self.js("(() => { const r = document.querySelector(%s).getBoundingClientRect();"
                          " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()"
                          % json.dumps(selector))
            params["clip"] = {"x": box[0], "y": box[1], "width": box[2], "height": box[3],
                              "scale": 1}
        r = self.call("Page.captureScreenshot", **params)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))


def start_browser(profile):
    args = ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
            "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
            "--remote-debugging-port=0", "--user-data-dir=" + profile,
            "--window-size=1400,1000", "about:blank"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    port = None
    while time.time() - t0 < 30 and port is None:
        line = proc.stderr.readline()
        if not line:
            if proc.poll() is not None:
                break
            continue
        m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
        if m:
            port = int(m.group(1))
    if port is None:
        proc.kill()
        raise SystemExit("chromium did not start (is it installed?)")
    # keep reading stderr so chromium never blocks on a full pipe
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    return proc, port


def page_of(port):
    targets = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port))
    page = Page([t for t in targets if t["type"] == "page"][0]["webSocketDebuggerUrl"])
    for domain in ("Runtime", "Page", "Log"):
        page.call(domain + ".enable")
    return page


# Every clipped mark of the series must be clipped by its own plot
# area: the clip the browser resolves (the first element of that id in
# the page, which is what url(#id) means) spans the x axis' pixels.
SERIES_CLIPS = """(() => {
    const svg = document.querySelector('#series svg');
    const ax = svg.querySelector('g.axis.x');
    const p0 = Number(ax.dataset.p0), p1 = Number(ax.dataset.p1);
    const bad = [];
    for (const e of svg.querySelectorAll('[clip-path]')) {
        const id = e.getAttribute('clip-path').match(/url\\(#(.*)\\)/)[1];
        const r = document.getElementById(id).querySelector('rect');
        const x0 = Number(r.getAttribute('x')), x1 = x0 + Number(r.getAttribute('width'));
        if (Math.abs(x0 - p0) > 0.5 || Math.abs(x1 - p1) > 0.5)
            bad.push(e.getAttribute('class') + ' clipped to ' + x0 + '..' + x1);
    }
    return {n: svg.querySelectorAll('[clip-path]').length, p0, p1, bad};
})()"""

# The series' median line as drawn: its last vertex against the right
# edge of the frame (within one time bin), and the element the browser
# hits on its last segment, just before that vertex (a clipped line is
# not hit there: what lies under it is).
SERIES_MEDIAN = """(() => {
    const svg = document.querySelector('#series svg');
    const ax = svg.querySelector('g.axis.x');
    const p1 = Number(ax.dataset.p1), p0 = Number(ax.dataset.p0);
    const line = svg.querySelector('path.median[clip-path]');
    const v = line.getAttribute('d').trim().split(/[ML]/).filter(s => s.trim())
        .map(s => s.trim().split(/\\s+/).map(Number));
    const [xa, ya] = v[v.length - 2], [xb, yb] = v[v.length - 1];
    const bins = svg.querySelectorAll('circle.bin').length;
    line.scrollIntoView({block: 'center'});
    const m = line.getScreenCTM();
    const t = 0.9, x = xa + t * (xb - xa), y = ya + t * (yb - ya);
    const pt = new DOMPoint(x, y).matrixTransform(m);
    const hit = document.elementFromPoint(pt.x, pt.y);
    return {last: xb, right: p1, bin: (p1 - p0) / bins,
            hit: hit ? hit.tagName + '.' + (hit.getAttribute('class') || '') : null,
            hitIsLine: hit === line};
})()"""

# Every text of the map against every other: their boxes on the screen
# (what the reader sees) must not overlap; and none covers a site's dot.
MAP_LABELS = """(() => {
    const all = Array.from(document.querySelectorAll('#map text'));
    const texts = all.filter(t => t.dataset.site);
    const boxes = all.map(t => [t.dataset.site || t.textContent, t.getBoundingClientRect()]);
    const over = [];
    for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
            const [a, r] = boxes[i], [b, s] = boxes[j];
            if (r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom)
                over.push(a + '/' + b);
        }
    const covered = [];
    for (const c of document.querySelectorAll('#map circle[data-site]')) {
        const d = c.getBoundingClientRect(), cx = (d.left + d.right) / 2, cy = (d.top + d.bottom) / 2;
        for (const [name, r] of boxes)
            if (cx > r.left && cx < r.right && cy > r.top && cy < r.bottom)
                covered.push(name + ' covers ' + c.dataset.site);
    }
    return {labels: Array.from(new Set(texts.map(t => t.dataset.site))).sort(),
            n: texts.length, over, covered};
})()"""


def hash_params(page):
    return page.js("Object.fromEntries(new URLSearchParams(location.hash.slice(1)))")


def run(page, url, expect, artifacts, check):
    ready = page.open(url)
    check("the page renders (matrix, map, forms)", ready)
    page.screenshot(os.path.join(artifacts, "dashboard-start.png"))
    page.screenshot(os.path.join(artifacts, "dashboard-map.png"), "#map")

    shown = page.js("Array.from(new Set(Array.from(document.querySelectorAll("
                    "'#matrix rect[data-src]')).map(r => r.dataset.src))).sort()")
    check("the matrix shows every site (%d)" % len(expect["sites"]),
          shown == sorted(expect["sites"]), "%s" % shown)
    # the matrix by status first, MaDDash style, and what is wrong now
    title = page.js("(document.querySelector('#matrix svg title') || {}).textContent || ''")
    check("the matrix is coloured by status first (%s)" % title[:40], title.startswith("status"),
          title)
    hover = page.js("Array.from(document.querySelectorAll('#matrix rect.cell title'))"
                    ".map(t => t.textContent).filter(t => !/: (ok|warning|critical|no_data) "
                    "\\(median /.test(t)).slice(0, 3)")
    check("every status cell says its status and numbers on hover", hover == [], str(hover))
    wrong = page.js("""(async () => {
        const doc = await (await fetch('/v1/status?limit=50')).json();
        const want = doc.pairs.filter(p => p.status !== 'ok').map(p => p.src + '>' + p.dst);
        const got = Array.from(document.querySelectorAll('#wrong li[data-src]'))
            .map(li => li.dataset.src + '>' + li.dataset.dst);
        return {want, got, n: want.length};
    })()""")
    check("'what is wrong now' lists the pairs not ok, worst first, as /v1/status (%d)"
          % wrong["n"], wrong["got"] == wrong["want"], str(wrong)[:300])
    dots = page.js("Array.from(new Set(Array.from(document.querySelectorAll("
                   "'#map circle[data-site]')).map(c => c.dataset.site))).sort()")
    check("the map shows every site with coordinates", dots == sorted(expect["sites"]), str(dots))
    labels = page.js(MAP_LABELS)
    check("the map labels every site (%d labels)" % labels["n"],
          labels["labels"] == sorted(expect["sites"]), str(labels["labels"]))
    check("no two of the map's labels overlap", not labels["over"], ", ".join(labels["over"]))
    check("no label covers a site's dot", not labels["covered"], ", ".join(labels["covered"]))
    coast = page.js("[document.querySelectorAll('#map path.land').length,"
                    " document.querySelectorAll('#map rect.sea').length,"
                    " Math.min(...Array.from(document.querySelectorAll('#map path.land'))"
                    ".map(p => p.getBBox().width * p.getBBox().height))]")
    check("the map draws the coastlines in each of its %d panels" % coast[1],
          coast[0] == coast[1] and coast[1] >= 1 and coast[2] > 0, str(coast))
    fresh = page.js("document.getElementById('fresh').textContent")
    check("the data's freshness is shown (%s)" % fresh, fresh.startswith("newest sample "), fresh)

    # the pair view, from a click on a matrix cell
    src, dst = expect["pair"]
    page.js("document.querySelector('#matrix rect[data-src=\"%s\"][data-dst=\"%s\"]')"
            ".dispatchEvent(new MouseEvent('click', {bubbles: true}))" % (src, dst))
    drawn = page.wait("document.querySelector('#ccdf svg') && document.querySelector('#series svg')"
                      " && document.getElementById('tracked').textContent.length > 0")
    check("clicking cell %s -> %s draws its CCDF and series" % (src, dst), drawn)
    page.wait("document.querySelectorAll('#pair-events li').length > 0")
    evs = page.js("""(async () => {
        const doc = await (await fetch('/v1/events?src=%s&dst=%s&limit=50')).json();
        const want = doc.events.map(e => e.kind.replace('_', ' ') + ': ' + e.detail);
        const got = Array.from(document.querySelectorAll('#pair-events li'))
            .map(li => li.textContent.replace(/^[^,]*, /, '')).slice(0, want.length);
        return {want, got, total: doc.total};
    })()""" % (src, dst))
    check("the pair's events of the last day are listed, as /v1/events gives them (%d)"
          % evs["total"], evs["got"] == evs["want"], str(evs)[:300])
    title = page.js("document.querySelector('#ccdf svg title').textContent")
    check("the CCDF is that pair's (%s)" % title, title.startswith("%s \u2192 %s" % (src, dst)), title)
    tracked = page.js("document.getElementById('tracked').textContent")
    check("the pair's tracked forecast error is shown", "RMSE" in tracked, tracked)
    clips = page.js(SERIES_CLIPS)
    check("the series' %d clipped marks are clipped to its own frame (x %g..%g)"
          % (clips["n"], clips["p0"], clips["p1"]), clips["n"] > 0 and not clips["bad"],
          "; ".join(clips["bad"][:3]))
    med = page.js(SERIES_MEDIAN)
    check("the series' median line reaches the right edge of its frame (%.1f of %.1f px)"
          % (med["last"], med["right"]),
          med["last"] >= med["right"] - med["bin"] - 0.01 and med["hitIsLine"],
          "last vertex %.2f, frame %.2f, bin %.2f px; the browser hits %s there"
          % (med["last"], med["right"], med["bin"], med["hit"]))
    legend = page.js("Array.from(document.querySelectorAll('#ccdf svg text')).map(t => t.textContent)"
                     ".join('\\n')")
    model, fallback = expect["pair_model"], expect["pair_fallback"]
    if fallback:
        ok = "(selected)" not in legend and "both fits would change the answer" in legend and \
             "used: the window's samples (empirical)" in legend
    else:
        ok = "used: %s" % model in legend and "(selected)" in legend
    check("the CCDF says the model the advisor uses (%s%s)"
          % (model, ", both fits flagged" if fallback else ""), ok, legend)
    h = hash_params(page)
    check("the URL names the pair (#%s)" % page.js("location.hash.slice(1)"),
          h.get("src") == src and h.get("dst") == dst, str(h))
    page.screenshot(os.path.join(artifacts, "dashboard-pair.png"))
    page.screenshot(os.path.join(artifacts, "dashboard-series.png"), "#series")
    page.screenshot(os.path.join(artifacts, "dashboard-ccdf.png"), "#ccdf")

    # the placement form, filled in and submitted like a user does
    pl = expect["place"]
    fields = page.js("['window', 'model'].every(id => document.getElementById(id) &&"
                     " document.getElementById(id).closest('#place-form'))")
    check("the placement form shows the window and the model", fields)
    page.js("""(() => {
        for (const b of document.querySelectorAll('#pool input'))
            b.checked = %s.includes(b.value);
        document.getElementById('size').value = %d;
        document.getElementById('root').value = %s;
        document.getElementById('window').value = %d;
        document.getElementById('model').value = %s;
        document.getElementById('place-go').click();
    })()""" % (json.dumps(pl["pool"]), pl["size"], json.dumps(pl["root"]), pl["window"],
               json.dumps(pl["model"])))
    placed = page.wait("document.querySelectorAll('#place-result tr').length > 1")
    check("the placement form answers", placed,
          page.js("document.getElementById('place-error').textContent"))
    row = page.js("Array.from(document.querySelectorAll('#place-result tr')[1].cells)"
                  ".map(c => c.textContent)")
    got = [row[0]] + row[1].split(", ")
    want = [pl["root"]] + pl["sites"]
    check("it returns the sites of `gridtail place --window %d` (%s)" % (pl["window"], ",".join(want)),
          got == want, str(got))
    check("the p99 says what it rests on (%s)" % row[-1],
          len(row) == 5 and (row[4].startswith("calibrated on ") or row[4] == "the model's own"),
          str(row))
    said = page.js("document.getElementById('place-used').textContent")
    check("the answer says the window and model used (%s)" % said,
          ("window of %d samples" % pl["window"]) in said and ("model %s" % pl["model"]) in said
          and (pl["model"] != "combined" or "; weights " in said), said)
    out = page.js("document.getElementById('place-left-out').textContent")
    check("left-out reasons are worded for the page, no CLI flag (%s)" % out,
          "max_loss" in out and "--" not in out, out)
    hl = page.wait("document.querySelectorAll('#matrix rect.hl').length == %d"
                   % ((len(want)) * (len(want) - 1)))
    check("the answer is framed on the matrix", hl,
          str(page.js("document.querySelectorAll('#matrix rect.hl').length")))
    chosen = page.js("Array.from(new Set(Array.from(document.querySelectorAll('#map circle.chosen'))"
                     ".map(c => c.dataset.site))).sort()")
    check("and marked on the map", chosen == sorted(want), str(chosen))
    h = hash_params(page)
    check("the URL holds the placement asked (#%s)" % page.js("location.hash.slice(1)"),
          h.get("pool") == ",".join(sorted(pl["pool"])) and h.get("size") == str(pl["size"]) and
          h.get("root") == pl["root"] and h.get("window") == str(pl["window"]) and
          h.get("model") == pl["model"], str(h))
    page.screenshot(os.path.join(artifacts, "dashboard-place.png"))
    page.screenshot(os.path.join(artifacts, "dashboard-place-map.png"), "#map")
    linked = page.js("location.href")

    page.js("document.getElementById('metric').value = 'loss';"
            "document.getElementById('metric').dispatchEvent(new Event('change'))")
    switched = page.wait("(document.querySelector('#matrix svg title') || {}).textContent"
                         " && document.querySelector('#matrix svg title').textContent.startsWith('loss')")
    check("the metric switch redraws the matrix", switched)

    # links: a fresh load of each URL shows the view it names
    base = url.split("#")[0]
    restored = page.open(base + "#src=%s&dst=%s" % (dst, src)) and page.wait(
        "(document.querySelector('#ccdf svg title') || {}).textContent")
    title = page.js("(document.querySelector('#ccdf svg title') || {}).textContent || ''")
    sel = page.js("[document.getElementById('src').value, document.getElementById('dst').value]")
    check("a pair's URL, loaded, shows that pair (%s)" % title,
          restored and title.startswith("%s \u2192 %s" % (dst, src)) and sel == [dst, src],
          "%s %s" % (title, sel))
    restored = page.open(linked) and page.wait("document.querySelectorAll('#place-result tr').length > 1"
                                               " && !!document.querySelector('#series svg')")
    row = page.js("Array.from((document.querySelectorAll('#place-result tr')[1] || {cells: []}).cells)"
                  ".map(c => c.textContent)") or ["", ""]
    form = page.js("[document.getElementById('window').value, document.getElementById('model').value,"
                   " document.getElementById('root').value,"
                   " Array.from(document.querySelectorAll('#pool input:checked')).map(b => b.value).sort().join(',')]")
    title = page.js("(document.querySelector('#ccdf svg title') || {}).textContent || ''")
    check("a placement's URL, loaded, fills the form and answers again (%s), with its pair"
          % ", ".join(form),
          restored and [row[0]] + row[1].split(", ") == want and
          title.startswith("%s \u2192 %s" % (src, dst)) and
          form == [str(pl["window"]), pl["model"], pl["root"], ",".join(sorted(pl["pool"]))],
          "%s %s %s" % (row, form, title))
    page.screenshot(os.path.join(artifacts, "dashboard-linked.png"))

    time.sleep(0.3)
    page.call("Runtime.evaluate", expression="1")   # drain late events
    check("no console errors", not page.errors, "; ".join(page.errors))


def bench(url, loads):
    profile = tempfile.mkdtemp(prefix="gt-chromium-")
    proc, port = start_browser(profile)
    try:
        page = page_of(port)
        for i in range(loads):
            if not page.open(url):
                print("load %d: the page did not render" % (i + 1))
                continue
            print("load %d: first render in %d ms" % (i + 1, page.js("Number(document.body.dataset.readyMs)")))
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    return 0


def in_browser(artifacts, nchecks, body):
    """Start Chromium on a profile of its own, run body(page, check) and
    print each check as TAP's ok/not ok; a body that stops early fails
    the checks it did not reach (nchecks in all), so the plan holds."""
    os.makedirs(artifacts, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="gt-chromium-")
    proc, port = start_browser(profile)
    done = []

    def check(what, cond, detail=""):
        done.append(cond)
        print("%s - %s%s" % ("ok" if cond else "not ok", what, "" if cond else ": " + detail),
              flush=True)

    try:
        page = page_of(port)
        try:
            body(page, check)
        except Exception as e:   # a check that could not run fails, with the rest
            why = ("%s: %s" % (type(e).__name__, e)).splitlines()[0][:300]
            for k in range(nchecks - len(done)):
                check("the browser test ran to its end", False, why if k == 0 else "not reached")
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    return 0


def main():
    if sys.argv[1] == "--checks":   # how many check lines a run prints
        print(CHECKS)
        return 0
    if sys.argv[1] == "--bench":
        return bench(sys.argv[2], int(sys.argv[3]))
    url, expect_path, artifacts = sys.argv[1], sys.argv[2], sys.argv[3]
    expect = json.load(open(expect_path))
    return in_browser(artifacts, CHECKS, lambda page, check: run(page, url, expect, artifacts, check))


if __name__ == "__main__":
    sys.exit(main())
