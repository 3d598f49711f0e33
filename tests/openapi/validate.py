#!/usr/bin/python3
"""Check real answers of a running `gridtail serve` against docs/openapi.json.

usage: validate.py URL OPENAPI.json

For every operation of the document: send a request the operation
describes, check that the status is one the document lists, and validate
a JSON answer against the schema the document gives for that status
(JSON Schema 2020-12, as OpenAPI 3.1 says).  Then the other way round:
every path the server names in its 404 message is in the document.
Prints TAP-style "ok"/"not ok" lines.
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

# one request per (path, method, case): body or query, and what it shows
CASES = [
    ("/v1/health", "get", None, ""),
    ("/healthz", "get", None, ""),
    ("/readyz", "get", None, ""),
    ("/metrics", "get", None, ""),
    ("/v1/openapi.json", "get", None, ""),
    ("/v1/sites", "get", None, ""),
    ("/v1/pairs", "get", None, "?src=CERN&limit=3"),
    ("/v1/pairs", "get", None, "?src=CERN&dst=KIT"),
    ("/v1/pairs", "get", None, "?limit=x"),
    ("/v1/estimate", "post", {"root": "CERN", "sites": ["KIT", "FNAL:2"], "quantiles": [0.5, 0.99]}, ""),
    ("/v1/estimate", "post", {"root": "CERN", "sites": ["KIT"], "model": "adaptive"}, ""),
    ("/v1/estimate", "post", {"root": "CERN", "sites": [{"site": "KIT", "procs": 2}], "iterations": 100,
                              "compute": 5, "bytes": 65536, "loggps": "myrinet"}, ""),
    ("/v1/estimate", "post", {"root": "CERN", "sites": ["NOPE"]}, ""),
    ("/v1/estimate", "post", {"root": "CERN", "sites": ["KIT"], "bogus": 1}, ""),
    ("/v1/rank", "post", {"candidates": [{"root": "CERN", "sites": ["KIT", "PIC"]},
                                         {"root": "CERN", "sites": ["NOPE"]}], "top": 2}, ""),
    ("/v1/place", "post", {"pool": ["CERN", "KIT", "PIC", "RAL", "IN2P3"], "size": 2}, ""),
    ("/v1/place", "post", {"pool": ["CERN", "KIT"], "size": 1, "exact_limit": 1e12}, ""),
    ("/v1/plot/matrix", "get", None, "?metric=loss"),
    ("/v1/plot/ccdf", "get", None, "?src=CERN&dst=KIT"),
    ("/v1/plot/ccdf", "get", None, "?src=CERN&dst=NOPE"),
    ("/v1/plot/series", "get", None, "?src=CERN&dst=KIT&bins=50"),
    ("/", "get", None, ""),
    ("/v1/samples", "post", [{"ts": 1795305600, "src": "x1", "dst": "x3", "rtt_ms": 12.5},
                             {"ts": "2026-11-22T16:01:00Z", "src": "x1", "dst": "x3", "rtt_ms": None},
                             {"ts": 1795305720, "src": "x1", "dst": "x3", "rtt_ms": 13, "seq": 1}], "+token"),
    ("/v1/samples", "post", CSV, "+token"),
    ("/v1/samples", "post", [{"ts": 1795305600, "src": "x1", "dst": "x3", "rtt_ms": 1}], ""),
    ("/v1/sites", "post", {}, ""),
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


seen = set()
for path, method, body, qs in CASES:
    op = SPEC["paths"].get(path, {}).get(method)
    name = "%s %s%s" % (method.upper(), path, qs)
    status, ctype, raw = send(path, method, body, qs)
    if op is None:
        # a method the path does not take: the document's 405 of its GET/POST
        ops = SPEC["paths"].get(path, {})
        listed = any("405" in o["responses"] for o in ops.values())
        check("%s: 405, as the document says" % name, status == 405 and listed, str(status))
        continue
    seen.add((path, method))
    resp = op["responses"].get(str(status))
    check("%s: %d is a documented answer" % (name, status), resp is not None,
          raw[:200].decode(errors="replace"))
    if resp is None:
        continue
    content = resp.get("content", {})
    mtype = ctype.split(";")[0].strip()
    check("%s: %s is its documented type" % (name, mtype), mtype in content, ", ".join(content))
    if mtype == "application/json" and mtype in content:
        try:
            jsonschema.Draft202012Validator(content[mtype]["schema"], resolver=RESOLVER).validate(
                json.loads(raw))
            check("%s: the answer matches its schema" % name, True)
        except jsonschema.ValidationError as e:
            check("%s: the answer matches its schema" % name, False,
                  "%s at %s" % (e.message, "/".join(str(p) for p in e.absolute_path)))
    if body is not None and "requestBody" in op and not isinstance(body, str):
        schema = op["requestBody"]["content"]["application/json"]["schema"]
        valid = jsonschema.Draft202012Validator(schema, resolver=RESOLVER).is_valid(body)
        # a request the document allows is not refused as malformed, and one
        # it does not allow is (400)
        check("%s: the document %s the request, the server %s it" % (
            name, "allows" if valid else "refuses", "answers" if status != 400 else "refuses"),
            valid == (status != 400), str(status))
    if "security" in op and op["security"] and status == 401:
        check("%s: 401 where the document asks for a token" % name, True)

for path, ops in SPEC["paths"].items():
    for method in ops:
        check("%s %s was exercised" % (method.upper(), path), (path, method) in seen)

status, _, raw = send("/no/such/path", "get", None, "")
named = set(re.findall(r"(/[a-z0-9/._]+)", json.loads(raw)["error"])) - {"/no/such/path"}
missing = sorted(p for p in named if p not in SPEC["paths"])
check("every path the server names is in the document", not missing, ", ".join(missing))
sys.exit(0)
