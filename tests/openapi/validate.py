#!/usr/bin/python3
"""Check real answers of a running `gridtail serve` against docs/openapi.json.

usage: validate.py URL OPENAPI.json

For every operation of the document: send a request the operation
describes, check that the status is the one this case expects and one the
document lists, validate a JSON answer against the schema the document
gives for that status (JSON Schema 2020-12, as OpenAPI 3.1 says), and check
that a token is asked for exactly where the document requires one.  Then
the other way round: every path the server names in its 404 message is in
the document.  Prints TAP-style "ok"/"not ok" lines, as many whatever the
server answers (each case's checks follow from the document and the case),
and exits 1 when any check failed.
"""
import json
import os
import re
import sys
import urllib.error
import urllib.request

import jsonschema

URL, SPEC = sys.argv[1], json.load(open(sys.argv[2]))
TOKEN = os.environ.get("GT_TOKEN", "")   # a write token, for /v1/samples
CSV = "ts,src,dst,rtt_ms\n1795305600,x1,x2,10\n1795305660,x1,x2,\n1795305720,x1,x2,oops\n"
RESOLVER = jsonschema.RefResolver.from_schema(SPEC)

# one request per (path, method, case): body, query, and the status it must get
CASES = [
    ("/v1/health", "get", None, "", 200),
    ("/healthz", "get", None, "", 200),
    ("/readyz", "get", None, "", 200),
    ("/metrics", "get", None, "", 200),
    ("/v1/openapi.json", "get", None, "", 200),
    ("/v1/sites", "get", None, "", 200),
    ("/v1/pairs", "get", None, "?src=CERN&limit=3", 200),
    ("/v1/pairs", "get", None, "?src=CERN&dst=KIT", 200),
    ("/v1/pairs", "get", None, "?limit=x", 400),
    ("/v1/status", "get", None, "?limit=5", 200),
    ("/v1/status", "get", None, "?status=no_data&offset=1&limit=2", 200),
    ("/v1/status", "get", None, "?status=bogus", 400),
    ("/metrics/pairs", "get", None, "", 200),
    ("/v1/events", "get", None, "?src=CERN&limit=20", 200),
    ("/v1/events", "get", None, "?kind=nonsense", 400),
    ("/v1/estimate", "post", {"root": "CERN", "sites": ["KIT", "FNAL:2"], "quantiles": [0.5, 0.99]}, "", 200),
    ("/v1/estimate", "post", {"root": "CERN", "sites": ["KIT"], "model": "adaptive"}, "", 200),
    ("/v1/estimate", "post", {"root": "CERN", "sites": [{"site": "KIT", "procs": 2}], "iterations": 100,
                              "compute": 5, "bytes": 65536, "loggps": "myrinet"}, "", 200),
    ("/v1/estimate", "post", {"root": "CERN", "sites": ["NOPE"]}, "", 422),
    ("/v1/estimate", "post", {"root": "CERN", "sites": ["KIT"], "bogus": 1}, "", 400),
    ("/v1/rank", "post", {"candidates": [{"root": "CERN", "sites": ["KIT", "PIC"]},
                                         {"root": "CERN", "sites": ["NOPE"]}], "top": 2}, "", 200),
    ("/v1/place", "post", {"pool": ["CERN", "KIT", "PIC", "RAL", "IN2P3"], "size": 2}, "", 200),
    ("/v1/place", "post", {"pool": ["CERN", "KIT"], "size": 1, "exact_limit": 1e12}, "", 422),
    ("/v1/plot/matrix", "get", None, "?metric=loss", 200),
    ("/v1/plot/ccdf", "get", None, "?src=CERN&dst=KIT", 200),
    ("/v1/plot/ccdf", "get", None, "?src=CERN&dst=NOPE", 404),
    ("/v1/plot/series", "get", None, "?src=CERN&dst=KIT&bins=50", 200),
    ("/", "get", None, "", 200),
    ("/v1/samples", "post", [{"ts": 1795305600, "src": "x1", "dst": "x3", "rtt_ms": 12.5},
                             {"ts": "2026-11-22T16:01:00Z", "src": "x1", "dst": "x3", "rtt_ms": None},
                             {"ts": 1795305720, "src": "x1", "dst": "x3", "rtt_ms": 13, "seq": 1}], "+token", 200),
    ("/v1/samples", "post", CSV, "+token", 200),
    ("/v1/samples", "post", [{"ts": 1795305600, "src": "x1", "dst": "x3", "rtt_ms": 1}], "", 401),
    # sites that came with samples only: no cluster, domain or coordinates
    ("/v1/sites", "get", None, "#after-samples", 200),   # (a fragment: not sent)
    ("/v1/sites", "post", {}, "", 405),
]

results = []


def check(what, cond, detail=""):
    results.append(cond)
    print("%s - %s%s" % ("ok" if cond else "not ok", what, "" if cond else ": " + detail))


def send(path, method, body, qs):
    token = qs == "+token"
    qs = "" if token else qs
    raw = isinstance(body, str)
    data = (body.encode() if raw else json.dumps(body).encode()) if body is not None else None
    req = urllib.request.Request(URL + path + qs, data=data, method=method.upper())
    if data is not None:
        req.add_header("Content-Type", "text/csv" if raw else "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + TOKEN)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


def schema_error(schema, raw):
    """Why the answer does not match the schema, None when it does."""
    try:
        doc = json.loads(raw)
    except ValueError as e:
        return "not JSON: %s" % e
    try:
        jsonschema.Draft202012Validator(schema, resolver=RESOLVER).validate(doc)
    except jsonschema.ValidationError as e:
        return "%s at %s" % (e.message, "/".join(str(p) for p in e.absolute_path))
    return None


def check_case(path, method, body, qs, want):
    op = SPEC["paths"].get(path, {}).get(method)
    name = "%s %s%s" % (method.upper(), path, qs)
    status, ctype, raw = send(path, method, body, qs)
    if op is None:
        # a method the path does not take: the document's 405 of its GET/POST
        listed = any("405" in o["responses"] for o in SPEC["paths"].get(path, {}).values())
        check("%s: 405, as the document says" % name, status == want == 405 and listed, str(status))
        return
    seen.add((path, method))
    # which checks follow depends on the document and the case, never on
    # the answer, so a wrong answer fails them instead of leaving them out
    resp = op["responses"].get(str(want), {})
    check("%s: %d, a documented answer" % (name, want), status == want and str(want) in op["responses"],
          "%d: %s" % (status, raw[:200].decode(errors="replace")))
    content = resp.get("content", {})
    mtype = ctype.split(";")[0].strip()
    check("%s: %s is its documented type" % (name, mtype), mtype in content, ", ".join(content))
    if "application/json" in content:
        why = schema_error(content["application/json"]["schema"], raw)
        check("%s: the answer matches its schema" % name, why is None, why or "")
    if body is not None and "requestBody" in op and not isinstance(body, str):
        schema = op["requestBody"]["content"]["application/json"]["schema"]
        valid = jsonschema.Draft202012Validator(schema, resolver=RESOLVER).is_valid(body)
        # a request the document allows is not refused as malformed, and one
        # it does not allow is (400)
        check("%s: the document %s the request, the server %s it" % (
            name, "allows" if valid else "refuses", "answers" if status != 400 else "refuses"),
            valid == (status != 400), str(status))
    if op.get("security"):
        # {} among the alternatives: a token may be left out
        needed = {} not in op["security"]
        sent = qs == "+token"
        check("%s: the document %s a token, %s: %s" % (
            name, "requires" if needed else "does not require", "sent" if sent else "not sent",
            "401" if needed and not sent else "not 401"),
            (status == 401) == (needed and not sent), str(status))


seen = set()
for case in CASES:
    check_case(*case)

for path, ops in SPEC["paths"].items():
    for method in ops:
        check("%s %s was exercised" % (method.upper(), path), (path, method) in seen)

status, _, raw = send("/no/such/path", "get", None, "")
try:
    named = set(re.findall(r"(/[a-z0-9/._]+)", json.loads(raw)["error"])) - {"/no/such/path"}
except (ValueError, KeyError, TypeError):
    named = set()
missing = sorted(p for p in named if p not in SPEC["paths"])
check("the 404 names the server's paths (%d), every one in the document" % len(named),
      status == 404 and named and not missing,
      "%d, missing: %s" % (status, ", ".join(missing) or "none named"))
sys.exit(0 if all(results) else 1)
