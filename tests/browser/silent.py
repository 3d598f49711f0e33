#!/usr/bin/python3
"""The dashboard of a store no collector feeds any more (issue 49: the
demo's, an hour after `make demo`), in a real browser: Debian's
chromium, headless, through dashboard.py's DevTools driver.

usage: silent.py silent|fresh URL ARTIFACTS_DIR
       silent.py --checks silent|fresh

silent: the store's newest sample is older than [thresholds] silent_s,
so every pair's status is "no data".  The page, opened at URL as the
README says, must show data (each pair coloured by a value of its
samples), say why status would be all grey, and still give status when
asked for it.
fresh: fresh samples were stored since: the page is the usual one again,
status first, no notice.

Prints TAP-style "ok - ..." / "not ok - ..." lines, CHECKS[mode] of them
whatever happens (a check that could not run is "not ok"), and keeps
screenshots in ARTIFACTS_DIR.
"""
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dashboard import in_browser  # noqa: E402

CHECKS = {"silent": 7, "fresh": 2}   # tests/cli/demo_dashboard.sh's plan counts these

NO_DATA_FILL = "#bdbdbd"   # src/plot/matrix.c: the status colour of "no data"

# the matrix's cells: how many, how many coloured by a finite value (not
# the grey of no data), how many of status "no data" (data-v 3)
CELLS = """(() => {
    const cells = Array.from(document.querySelectorAll('#matrix rect.cell'));
    const v = (c) => Number(c.dataset.v);
    return {n: cells.length,
            valued: cells.filter(c => Number.isFinite(v(c)) &&
                                      c.getAttribute('fill') !== %s).length,
            no_data: cells.filter(c => v(c) === 3).length,
            title: (document.querySelector('#matrix svg title') || {}).textContent || ''};
})()""" % json.dumps(NO_DATA_FILL)

NOTICE = """(() => { const n = document.getElementById('silent');
    return n ? {shown: !n.hidden && n.offsetHeight > 0, text: n.textContent,
                button: (n.querySelector('button') || {}).textContent || ''}
             : {shown: false, text: '', button: ''}; })()"""


def title_is(metric, yes=True):
    """a JS test: the matrix's title starts with metric (or not)"""
    t = "((document.querySelector('#matrix svg title') || {}).textContent || '')"
    return "%s%s.startsWith(%s)" % ("" if yes else "!", t, json.dumps(metric))


def silent(page, url, artifacts, check):
    ready = page.open(url)
    check("the page renders, opened as the README says (%s)" % url, ready)
    page.screenshot(os.path.join(artifacts, "dashboard-silent.png"))
    c = page.js(CELLS)
    check("the matrix shows data: %d of %d pairs coloured by a value (%s)"
          % (c["valued"], c["n"], c["title"][:40]),
          c["n"] > 0 and c["valued"] >= 0.95 * c["n"] and not c["title"].startswith("status"),
          str(c))
    state = page.js("[document.getElementById('metric').value, location.hash]")
    check("by a metric that reads the samples (%s), the URL left as it was" % state[0],
          state[0] != "status" and state[1] == "", str(state))
    n = page.js(NOTICE)
    age = re.search(r"(\d+) min old", n["text"])
    check("the page says why status is all grey: %s" % n["text"][:160],
          n["shown"] and "silent" in n["text"] and "no data" in n["text"] and
          age is not None and 60 <= int(age.group(1)) <= 180, str(n))

    page.js("document.getElementById('metric').value = 'status';"
            "document.getElementById('metric').dispatchEvent(new Event('change'))")
    greyed = page.wait(title_is("status"))
    c = page.js(CELLS)
    n = page.js(NOTICE)
    check("status asked for: every pair grey, no data (%d of %d), the notice offering %s"
          % (c["no_data"], c["n"], n["button"]),
          greyed and c["n"] > 0 and c["no_data"] == c["n"] and n["shown"] and n["button"] != "",
          "%s %s" % (c, n))
    page.screenshot(os.path.join(artifacts, "dashboard-silent-status.png"))
    page.js("document.querySelector('#silent button').click()")
    back = page.wait(title_is("status", False))
    c = page.js(CELLS)
    check("its button shows the data again (%s)" % c["title"][:40],
          back and c["valued"] >= 0.95 * c["n"], str(c))
    time.sleep(0.3)
    page.call("Runtime.evaluate", expression="1")   # drain late events
    check("no console errors", not page.errors, "; ".join(page.errors))


def fresh(page, url, artifacts, check):
    ready = page.open(url)
    check("fresh samples: the page renders", ready)
    page.screenshot(os.path.join(artifacts, "dashboard-fresh.png"))
    c = page.js(CELLS)
    n = page.js(NOTICE)
    check("status first again, judged (%d of %d pairs without data), no notice"
          % (c["no_data"], c["n"]),
          c["title"].startswith("status") and c["n"] > 0 and c["no_data"] < c["n"] and
          not n["shown"], "%s %s" % (c, n))


def main():
    if sys.argv[1] == "--checks":
        print(CHECKS[sys.argv[2]])
        return 0
    mode, url, artifacts = sys.argv[1], sys.argv[2], sys.argv[3]
    steps = {"silent": silent, "fresh": fresh}[mode]
    return in_browser(artifacts, CHECKS[mode], lambda page, check: steps(page, url, artifacts, check))


if __name__ == "__main__":
    sys.exit(main())
