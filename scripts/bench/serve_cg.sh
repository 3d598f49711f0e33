#!/bin/sh
# The server against the CLI doing the same work, in instructions
# (callgrind: the machine's load does not move them).  The store and the
# question are serve_wrk.sh's (a star of 70 sites around s00, 90 Pareto
# samples a pair, fits cached by refit; the estimate of s00 with N
# partners, default 8), without its pusher.  Counted:
#   - one `gridtail estimate --json` process: in all (what serve_wrk.sh's
#     baseline pays per question: loading, the config, opening and
#     checking the store, then the answer, then printing it), and inside
#     gt_advisor_estimate (the estimate itself: pair fits read from the
#     cache, E[max], quantiles, shares);
#   - `gridtail serve` answering REQS (default 200) such POSTs on one
#     kept-alive connection: per answer, the worker's whole job (compute:
#     the request parsed, the estimate, the JSON document built and
#     printed) and gt_advisor_estimate inside it.
# Both answers are checked to carry the same E[max].
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/build/gridtail}
N=${N:-8}
REQS=${REQS:-200}
command -v valgrind >/dev/null || { echo "serve_cg.sh: needs valgrind"; exit 1; }
W=$(mktemp -d)
PID=
trap '[ -z "$PID" ] || kill $PID 2>/dev/null || true; rm -rf "$W"' EXIT
cd "$W"
export GRIDTAIL_CONFIG=/dev/null
. "$ROOT/scripts/bench/stores.inc"
pareto_csv 70 star > in.csv
"$BIN" --db b.db init > /dev/null
"$BIN" --db b.db ingest --quiet csv in.csv
"$BIN" --db b.db refit > /dev/null
AT=2026-11-22T01:30:00Z
list=$(i=1; while [ $i -le "$N" ]; do printf 's%02d\n' $i; i=$((i + 1)); done | paste -sd, -)
json=$(echo "$list" | sed 's/[^,]*/"&"/g; s/,/, /g')
# inclusive instructions of FUNCTION in callgrind file F
incl() { callgrind_annotate --inclusive=yes "$1" 2>/dev/null | tr -d , | awk -v f=":$2 [" 'index($0, f) { print $1; exit }'; }

valgrind -q --tool=callgrind --callgrind-out-file=cg.cli "$BIN" --db b.db estimate --root s00 \
    --sites "$list" --at "$AT" --json > cli.json
cli_all=$(sed -n 's/^summary: //p' cg.cli)
cli_est=$(incl cg.cli gt_advisor_estimate)

valgrind -q --tool=callgrind --callgrind-out-file=cg.srv "$BIN" --db b.db serve \
    --listen 127.0.0.1:0 --port-file port --quiet --threads 4 2> serve.log &
PID=$!
while [ ! -s port ]; do sleep 0.2; done
URL="http://127.0.0.1:$(cat port)/v1/estimate"
BODY='{"root": "s00", "sites": ['"$json"'], "at": "'$AT'"}'
i=0
: > curl.cfg
while [ "$i" -lt "$REQS" ]; do
    printf 'url = "%s"\noutput = "/dev/null"\n' "$URL" >> curl.cfg
    i=$((i + 1))
done
curl -s -X POST -H 'Content-Type: application/json' -d "$BODY" "$URL" > http.json
curl -s --fail -X POST -H 'Content-Type: application/json' -d "$BODY" -K curl.cfg
kill -TERM $PID
wait $PID || true
PID=
srv_job=$(incl cg.srv compute)
srv_est=$(incl cg.srv gt_advisor_estimate)
emax() { sed -n 's/.*"e_max": \([0-9.e+-]*\),.*/\1/p' "$1" | head -1; }
tr -d '\n' < http.json | sed 's/,/,\n/g' > http1.json
if [ "$(emax cli.json)" = "$(emax http1.json)" ]; then same=same; else same=DIFFERENT; fi
echo "instructions, estimate of s00 with $N partners (callgrind):"
echo "$cli_all $cli_est $srv_job $srv_est $REQS" | awk '{
    n = $5 + 1
    printf "  gridtail estimate --json, one process   %12.0f in all, %10.0f in gt_advisor_estimate\n", $1, $2
    printf "  gridtail serve, per answer (%d)        %12.0f in the job,  %10.0f in gt_advisor_estimate\n", n, $3 / n, $4 / n
    printf "  CLI process / server answer            %12.1fx           %10.1fx\n", $1 / ($3 / n), $2 / ($4 / n) }'
echo "  E[max] $(emax cli.json) ms by the CLI, $(emax http1.json) ms by HTTP: $same"
[ "$same" = same ]
