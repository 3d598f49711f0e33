#!/usr/bin/python3
"""Drive the dashboard in a real browser: Debian's chromium, headless,
through the DevTools protocol (python3-websocket).

usage: dashboard.py URL EXPECT.json ARTIFACTS_DIR

EXPECT.json: {"sites": [names with pairs], "pair": [src, dst],
              "place": {"pool": [...], "size": K, "root": R, "sites": [...]}}

Prints TAP-style "ok - ..." / "not ok - ..." lines (tests/cli/lib.inc's
format) and keeps screenshots in ARTIFACTS_DIR.  Exit status 0 when the
browser could be driven at all.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket


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

    def wait(self, expr, timeout=20):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if self.js(expr):
                return True
            time.sleep(0.1)
        return False

    def screenshot(self, path):
        r = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
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
        raise SystemExit("not ok - chromium did not start (is it installed?)")
    # keep reading stderr so chromium never blocks on a full pipe
    import threading
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    return proc, port


def main():
    url, expect_path, artifacts = sys.argv[1], sys.argv[2], sys.argv[3]
    expect = json.load(open(expect_path))
    os.makedirs(artifacts, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="gt-chromium-")
    proc, port = start_browser(profile)
    results = []

    def check(what, cond, detail=""):
        results.append(cond)
        print("%s - %s%s" % ("ok" if cond else "not ok", what, "" if cond else ": " + detail))

    try:
        targets = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port))
        page = Page([t for t in targets if t["type"] == "page"][0]["webSocketDebuggerUrl"])
        for domain in ("Runtime", "Page", "Log"):
            page.call(domain + ".enable")
        page.call("Page.navigate", url=url)
        ready = page.wait("document.body && document.body.dataset.ready === 'yes'")
        check("the page renders (matrix, map, forms)", ready)
        ms = page.js("Number(document.body.dataset.readyMs)")
        check("first render in %s ms, under one second" % ms, ready and ms is not None and ms < 1000,
              str(ms))
        page.screenshot(os.path.join(artifacts, "dashboard-start.png"))

        shown = page.js("Array.from(new Set(Array.from(document.querySelectorAll("
                        "'#matrix rect[data-src]')).map(r => r.dataset.src))).sort()")
        check("the matrix shows every site (%d)" % len(expect["sites"]),
              shown == sorted(expect["sites"]), "%s" % shown)
        dots = page.js("document.querySelectorAll('#map circle[data-site]').length")
        check("the map shows every site with coordinates", dots == len(expect["sites"]), str(dots))
        fresh = page.js("document.getElementById('fresh').textContent")
        check("the data's freshness is shown (%s)" % fresh, fresh.startswith("newest sample "), fresh)

        # the pair view, from a click on a matrix cell
        src, dst = expect["pair"]
        page.js("document.querySelector('#matrix rect[data-src=\"%s\"][data-dst=\"%s\"]')"
                ".dispatchEvent(new MouseEvent('click', {bubbles: true}))" % (src, dst))
        drawn = page.wait("document.querySelector('#ccdf svg') && document.querySelector('#series svg')"
                          " && document.getElementById('tracked').textContent.length > 0")
        check("clicking cell %s -> %s draws its CCDF and series" % (src, dst), drawn)
        title = page.js("document.querySelector('#ccdf svg title').textContent")
        check("the CCDF is that pair's (%s)" % title, title.startswith("%s \u2192 %s" % (src, dst)), title)
        tracked = page.js("document.getElementById('tracked').textContent")
        check("the pair's tracked forecast error is shown", "RMSE" in tracked, tracked)
        page.screenshot(os.path.join(artifacts, "dashboard-pair.png"))

        # the placement form, filled in and submitted like a user does
        pl = expect["place"]
        page.js("""(() => {
            for (const b of document.querySelectorAll('#pool input'))
                b.checked = %s.includes(b.value);
            document.getElementById('size').value = %d;
            document.getElementById('root').value = %s;
            document.getElementById('place-go').click();
        })()""" % (json.dumps(pl["pool"]), pl["size"], json.dumps(pl["root"])))
        placed = page.wait("document.querySelectorAll('#place-result tr').length > 1")
        check("the placement form answers", placed,
              page.js("document.getElementById('place-error').textContent"))
        row = page.js("Array.from(document.querySelectorAll('#place-result tr')[1].cells)"
                      ".map(c => c.textContent)")
        got = [row[0]] + row[1].split(", ")
        want = [pl["root"]] + pl["sites"]
        check("it returns the sites of `gridtail place` (%s)" % ",".join(want), got == want, str(got))
        hl = page.wait("document.querySelectorAll('#matrix rect.hl').length == %d"
                       % ((len(want)) * (len(want) - 1)))
        check("the answer is framed on the matrix", hl,
              str(page.js("document.querySelectorAll('#matrix rect.hl').length")))
        chosen = page.js("Array.from(document.querySelectorAll('#map circle.chosen'))"
                         ".map(c => c.dataset.site).sort()")
        check("and marked on the map", chosen == sorted(want), str(chosen))
        page.screenshot(os.path.join(artifacts, "dashboard-place.png"))

        page.js("document.getElementById('metric').value = 'loss';"
                "document.getElementById('metric').dispatchEvent(new Event('change'))")
        switched = page.wait("(document.querySelector('#matrix svg title') || {}).textContent"
                             " && document.querySelector('#matrix svg title').textContent.startsWith('loss')")
        check("the metric switch redraws the matrix", switched)
        time.sleep(0.3)
        page.call("Runtime.evaluate", expression="1")   # drain late events
        check("no console errors", not page.errors, "; ".join(page.errors))
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
