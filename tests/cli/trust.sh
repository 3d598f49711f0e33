# tier: slow
# Answers to trust (issue 12): the alpha <= 1 cut censored by default and
# the paper's on request; the advisor's input hygiene (sites listed twice,
# a root with :PROCS, unknown site vs no samples, --symmetric, SITE:PROCS
# without an intra-site latency, a window that is not full).
. "$GT_ROOT/tests/cli/lib.inc"
plan 89
DB=$(store t)
gt() { $GT --db "$DB" "$@"; }
gt init >/dev/null
AT=2026-11-22T20:00:00Z
# six partners whose 8-sample windows fit alpha <= 1 (min 96 ms)
awk 'BEGIN { print "ts,src,dst,rtt_ms"; split("96 96.5 97 2000 5000 100 300 10000", v, " ");
    for (p = 1; p <= 6; p++) for (i = 1; i <= 8; i++) printf "%d,r,p%d,%s\n", 1795305600 + 60 * i, p, v[i];
    for (i = 1; i <= 30; i++) printf "%d,r,q,%.1f\n", 1795305600 + 60 * i, 20 + i % 3;
    for (i = 1; i <= 30; i++) printf "%d,x,r,%.1f\n", 1795305600 + 60 * i, 30 + i % 2 }' > cut.csv
gt ingest --quiet csv cut.csv
S=p1,p2,p3,p4,p5,p6
# (--fallback none: both fits of these windows are flagged, and the
# default would describe them by their samples, without a cut)
check "estimate with alpha <= 1 partners (censored)" status_is 0 gt estimate --root r --sites $S --window 8 --at $AT --fallback none --json
check "JSON says cut: censor" grep -q '"cut": "censor"' out.txt
cens=$(sed -n 's/^ *"e_max": \([0-9.e+]*\),/\1/p' out.txt | head -1)
x0=$(sed -n 's/^ *"cut_x0": \([0-9.e+]*\),/\1/p' out.txt | head -1)
check "censored E[max] $cens lies in [96, x0 = $x0]" awk -v e="$cens" -v x="$x0" 'BEGIN { exit !(e >= 96 && e <= x) }'
check "--cut paper" status_is 0 gt estimate --root r --sites $S --window 8 --at $AT --cut paper --fallback none --json
check "JSON says cut: paper" grep -q '"cut": "paper"' out.txt
paper=$(sed -n 's/^ *"e_max": \([0-9.e+]*\),/\1/p' out.txt | head -1)
check "the paper's value $paper is below the censored $cens" awk -v p="$paper" -v c="$cens" 'BEGIN { exit !(p < c) }'
check "the warning says censored" sh -c "$GT --db '$DB' estimate --root r --sites p1 --window 8 --at $AT --fallback none | grep -q 'censored (E\[min(max, x0)\])'"
check "emax --cut paper" status_is 0 $GT emax --window 60 --cut paper pareto:1,0.8
check "emax by hand: paper a k^a (x0^(1-a) - k^(1-a))/(1-a) = 7.132631" grep -q "E\[max\] = 7.132631 ms" out.txt
check "emax censored by hand: k + k^a (x0^(1-a) - k^(1-a))/(1-a) = 9.915788" sh -c "$GT emax --window 60 pareto:1,0.8 | grep -q 'E\[max\] = 9.915788 ms'"
check "--cut other: usage" status_is 1 gt estimate --root r --sites p1 --cut half

# input hygiene
check "a partner listed twice: usage" status_is 1 gt estimate --root r --sites p1,p1 --window 8 --at $AT
check "the hint says p1:2" grep -q "site 'p1' is listed twice (for two processes at one site write p1:2)" err.txt
check "a root with :PROCS: usage" status_is 1 gt estimate --root r:4 --sites p1 --window 8 --at $AT
check "it says the root is one process" grep -q "the root is one process" err.txt
check "a pool site listed twice: usage" status_is 1 gt place --pool r,p1,p1,p2 --size 2 --window 8 --at $AT
check "unknown site: exit 2, named as unknown" status_is 2 gt estimate --root r --sites zz --window 8 --at $AT
check "says unknown site 'zz'" grep -q "unknown site 'zz' (not in the store)" err.txt
check "a known pair without samples: exit 2" status_is 2 gt estimate --root p1 --sites r --window 8 --at $AT
check "says no samples for p1 -> r" grep -q "no samples for p1 -> r" err.txt
check "place with an unknown pool site" status_is 0 gt place --pool r,p1,p2,zz --size 1 --window 8 --at $AT --json
check "the unknown site is named once, not once per root" [ "$(grep -c "unknown site 'zz'" out.txt)" = 1 ]
check "r -> x has no samples" status_is 2 gt estimate --root r --sites x --window 8 --at $AT
check "--symmetric uses x -> r" status_is 0 gt estimate --root r --sites x --window 8 --at $AT --symmetric
check "and says so" grep -q "r -> x has no samples: x -> r's are used (symmetric)" out.txt
printf '[advisor]\nassume_symmetric = 1\n' > sym.conf
check "[advisor] assume_symmetric = 1 does the same" status_is 0 $GT --config sym.conf --db "$DB" estimate --root r --sites x --window 8 --at $AT
# the same over HTTP, "symmetric" read from a request: x -> r's newest 8
# samples alternate 31 and 30 ms, both fits misfit, so the window's samples
# are used as they are and E[max] of one partner is their mean, 30.5 ms
serve_start "$DB"
post_is() {   # post_is HTTP_CODE BODY: POST /v1/estimate, the answer in out.txt
    code=$(curl -s -o out.txt -w '%{http_code}' -X POST -H Content-Type:application/json --data-binary "$2" "$URL/v1/estimate")
    [ "$code" = "$1" ] || { echo "  HTTP $code, wanted $1"; head -c 300 out.txt; echo; return 1; }
}
e_max() { sed -n 's/^ *"e_max": \([0-9.e+]*\),/\1/p' "$1" | head -1; }
REQ='"root": "r", "sites": ["x"], "window": 8, "at": "'$AT'"'
check "HTTP: r -> x without \"symmetric\" is 422" post_is 422 "{$REQ}"
check "HTTP: it says no samples for r -> x" grep -q "no samples for r -> x" out.txt
check "HTTP: \"symmetric\": false is refused the same" post_is 422 "{$REQ, \"symmetric\": false}"
check "HTTP: \"symmetric\": true is answered" post_is 200 "{$REQ, \"symmetric\": true}"
cp out.txt sym.json
check "HTTP: the answer says x -> r's samples are used" grep -q "r -> x has no samples: x -> r's are used (symmetric)" sym.json
check "HTTP: E[max] $(e_max sym.json) = 30.5, the mean of x -> r's 4 x 31 and 4 x 30 ms" awk -v e="$(e_max sym.json)" 'BEGIN { exit !(e != "" && e - 30.5 < 1e-9 && 30.5 - e < 1e-9) }'
check "the CLI's estimate of x -> r itself" status_is 0 gt estimate --root x --sites r --window 8 --at $AT --json
check "HTTP: the same E[max] as the CLI's x -> r, $(e_max out.txt)" awk -v e="$(e_max sym.json)" -v c="$(e_max out.txt)" 'BEGIN { exit !(e != "" && e == c) }'
kill $pid
wait $pid
check "SITE:PROCS without an intra-site latency warns" status_is 0 gt estimate --root r --sites q:4 --window 8 --at $AT
check "the warning names it" grep -q "q:4: no intra-site latency known" out.txt
check "--window larger than the data warns: not full" status_is 0 gt estimate --root r --sites q --window 25 --at $AT
check "a full window (25 of 30 samples) does not warn" sh -c "! grep -q 'not full' out.txt"
check "--window 60 over 30 samples" status_is 0 gt estimate --root r --sites q --window 60 --at $AT
check "warns the window is not full: 30 of 60" grep -q "r -> q: the window is not full: 30 of 60 samples" out.txt

# windows and lost samples (METHOD.md 1.1): leading lost samples take the
# last answer before the window; a window with no answer is a delta at it,
# the same in fit, estimate and fit --all-windows
awk 'BEGIN { print "ts,src,dst,rtt_ms"; split("10 20 - - 30 40 50", v, " ");
    for (i = 1; i <= 7; i++) printf "%d,r,w,%s\n", 1795305600 + 60 * i, v[i] == "-" ? "" : v[i];
    split("10 12 - - - - - -", u, " ");
    for (i = 1; i <= 8; i++) printf "%d,r,o,%s\n", 1795305600 + 60 * i, u[i] == "-" ? "" : u[i] }' > lost.csv
gt ingest --quiet csv lost.csv
check "fit: a window starting with lost samples" status_is 0 gt fit --src r --dst w --window 5 --at $AT --json
check "all 5 slots used: 3 valid, 2 filled from before the window" sh -c 'grep -q "\"m\": 5," out.txt && grep -q "\"valid\": 3," out.txt && grep -q "\"filled\": 2," out.txt && grep -q "\"dropped\": 0," out.txt'
check "alpha over {20, 20, 30, 40, 50} by hand" sh -c "awk '/\"alpha\"/ { gsub(/,/, \"\", \$2); a = \$2 } END { w = 5 / (log(30/20) + log(40/20) + log(50/20)); d = a - w; exit !(d < 1e-9 && d > -1e-9) }' out.txt"
check "estimate reports valid and filled" status_is 0 gt estimate --root r --sites w --window 5 --at $AT --loss ignore --json
check "partner valid 3, filled 2" sh -c 'grep -q "\"valid\": 3," out.txt && grep -q "\"filled\": 2," out.txt'
check "fit: a window with no answer is a delta at the last one" status_is 0 gt fit --src r --dst o --window 5 --at $AT
check "it says since when" grep -q "no answer in the whole window: an outage since 2026-11-22T00:02:00Z; its last value 12 ms is used" out.txt
check "estimate --loss ignore: the same delta, with a warning" status_is 0 gt estimate --root r --sites o --window 5 --at $AT --loss ignore --json
check "delta x = 12" sh -c 'grep -q "\"model\": \"delta\"" out.txt && grep -q "\"x\": 12" out.txt'
check "the warning names the outage" grep -q "r -> o: no answer in the whole window, an outage since 2026-11-22T00:02:00Z" out.txt
check "under the loss model the pair is unreachable" status_is 2 gt estimate --root r --sites o --window 5 --at $AT
check "and says since when" grep -q "r -> o: unreachable: no answer since 2026-11-22T00:02:00Z" err.txt
check "fit --all-windows: the same delta at the last step" sh -c "$GT --db '$DB' fit --src r --dst o --all-windows --window 5 --at $AT | tail -1 | grep -q '	12	.*delta\$'"

# tail-aware objectives: rank and place by a quantile of the collective time
awk 'BEGIN { print "ts,src,dst,rtt_ms"; for (i = 1; i <= 100; i++) {
    printf "%d,r,fast,%d\n", 1795305600 + 60 * i, i % 20 == 0 ? 200 : 10;
    printf "%d,r,steady,%.1f\n", 1795305600 + 60 * i, 25 + (i % 3) * 0.5 } }' > obj.csv
gt ingest --quiet csv obj.csv
printf 'r: fast\nr: steady\n' > cands.txt
O="--window 100 --model normal --at $AT"
check "rank by the mean (default)" status_is 0 gt rank --candidates cands.txt $O --format tsv
check "the mean prefers fast" sh -c "sed -n 2p out.txt | cut -f3 | grep -qx fast"
check "rank --objective p99" status_is 0 gt rank --candidates cands.txt $O --objective p99 --format tsv
check "p99 prefers steady" sh -c "sed -n 2p out.txt | cut -f3 | grep -qx steady"
check "the tsv states the objective" sh -c "head -1 out.txt | grep -q 'objective	objective_ms' && sed -n 2p out.txt | grep -q '	p99	'"
check "place --objective p99 --json" status_is 0 gt place --pool r,fast,steady --root r --size 1 $O --objective p99 --json
check "place answers steady, and says by what" sh -c "grep -q '\"objective\": \"p99\"' out.txt && awk '/\"sites\"/ { getline; print; exit }' out.txt | grep -q steady"
check "objective_ms is the p99 of --quantile 0.99" sh -c "$GT --db '$DB' estimate --root r --sites steady $O --objective p99 --quantile 0.99 --json > e.json && awk '/\"p99\":/ { gsub(/,/, \"\", \$2); q = \$2 } /\"objective_ms\":/ { gsub(/,/, \"\", \$2); o = \$2 } END { d = q - o; exit !(q > 0 && d < 1e-9 && d > -1e-9) }' e.json"
check "gridway output names the objective" sh -c "$GT --db '$DB' estimate --root r --sites steady $O --objective p99 --format gridway | grep -q 'OBJECTIVE=\"p99\" OBJECTIVE_US='"
check "--objective p100: usage" status_is 1 gt rank --candidates cands.txt --objective p100
check "--objective max: usage" status_is 1 gt rank --candidates cands.txt --objective max

# verdicts: a fit that should not be trusted says so (fit and the advisor)
awk 'BEGIN { srand(5); for (i = 0; i < 105; i++) printf "%.3f\n", 20 + rand() * 0.4; for (i = 0; i < 15; i++) printf "%.3f\n", 390 + rand() * 110 }' > bimodal.txt
check "fit of 105 x 20 ms + 15 x 390-500 ms" status_is 0 $GT fit --window 120 bimodal.txt
check "the verdict: poor fit" grep -q "verdict: poor fit: the normal's KS distance 0.521 is above 0.2" out.txt
check "the verdict: 30.1% below 0 ms" grep -q "verdict: impossible values: the normal puts 30.1% of its mass below 0 ms" out.txt
check "fit --json carries the verdict" sh -c "$GT fit --window 120 --json bimodal.txt | grep -q 'puts 30.1% of its mass below 0 ms'"
check "a good window: verdict ok" sh -c "awk 'BEGIN { srand(9); for (i = 0; i < 120; i++) printf \"%.4f\\n\", 41.7 * rand() ^ (-1 / 16.9) }' | $GT fit --window 120 | grep -qx 'verdict: ok'"
printf '[advisor]\nmax_ks = 0.6\n' > ks.conf
check "fit with [advisor] max_ks = 0.6" status_is 0 $GT --config ks.conf fit --window 120 bimodal.txt
check "max_ks moves the threshold: KS 0.521 is no poor fit, the mass below 0 ms still flagged" sh -c "grep -q 'verdict: impossible values' out.txt && ! grep -q 'verdict: poor fit' out.txt"
awk 'BEGIN { print "ts,src,dst,rtt_ms"; srand(5); for (i = 1; i <= 120; i++) printf "%d,r,bi,%.3f\n", 1795305600 + 60 * i, i <= 105 ? 20 + rand() * 0.4 : 390 + rand() * 110 }' > bi.csv
gt ingest --quiet csv bi.csv
check "estimate with the bimodal partner, --model normal" status_is 0 gt estimate --root r --sites bi --window 120 --model normal --at $AT --json
check "the partner's verdict flags" sh -c "grep -A3 '\"verdict\"' out.txt | grep -q poor_fit && grep -A3 '\"verdict\"' out.txt | grep -q negative_mass"
check "and the warnings say it" grep -q "r -> bi: impossible values: the normal puts" out.txt

# loss is part of the latency (METHOD.md 2.1): lost probes are retransmissions
awk 'BEGIN { print "ts,src,dst,rtt_ms"; for (i = 1; i <= 100; i++) {
    v = 50 + (i % 7) * 0.5;
    printf "%d,r,clean,%.1f\n", 1795305600 + 60 * i, v;
    printf "%d,r,lossy,%s\n", 1795305600 + 60 * i, i % 5 == 0 ? "" : sprintf("%.1f", v);
    printf "%d,r,dead,%s\n", 1795305600 + 60 * i, i <= 10 ? "50" : "" } }' > loss.csv
gt ingest --quiet csv loss.csv
check "estimate the clean partner" status_is 0 gt estimate --root r --sites clean --window 100 --model normal --at $AT --json
clean=$(sed -n 's/^ *"e_max": \([0-9.e+]*\),/\1/p' out.txt | head -1)
check "estimate the 20%-loss partner with the same RTTs" status_is 0 gt estimate --root r --sites lossy --window 100 --model normal --at $AT --json
lossy=$(sed -n 's/^ *"e_max": \([0-9.e+]*\),/\1/p' out.txt | head -1)
check "the lossy partner is now worse: $lossy > $clean + 40 ms" awk -v l="$lossy" -v c="$clean" 'BEGIN { exit !(l > c + 40) }'
check "its loss rate is reported: 0.2" grep -q '"loss": 0.2,' out.txt
check "its loss cost is reported" sh -c "awk '/\"loss_cost_ms\"/ { gsub(/,/, \"\", \$2); exit !(\$2 > 40) }' out.txt"
check "--max-loss warning on estimate" grep -q "loss 20.0% is above the maximum loss 10.0% (max_loss)" out.txt
check "--loss ignore: the paper's way" status_is 0 gt estimate --root r --sites lossy --window 100 --model normal --at $AT --loss ignore --json
ign=$(sed -n 's/^ *"e_max": \([0-9.e+]*\),/\1/p' out.txt | head -1)
check "ignoring loss, the lossy partner looks no worse ($ign vs $clean)" awk -v l="$ign" -v c="$clean" 'BEGIN { exit !(l <= c + 1) }'
check "place leaves the lossy partner out, with the reason" status_is 0 gt place --pool r,clean,lossy --root r --size 1 --window 100 --at $AT --json
check "the reason names the loss" grep -q "r -> lossy: loss 20.0% is above the maximum loss 10.0% (max_loss)" out.txt
check "--max-loss 0.5 lets it in" status_is 0 gt place --pool r,clean,lossy --root r --size 2 --window 100 --at $AT --max-loss 0.5
check "rank rejects a candidate with the lossy partner" status_is 0 sh -c "printf 'r: lossy\nr: clean\n' | $GT --db '$DB' rank --candidates - --window 100 --at $AT --json > rank.json"
check "the rejection says why" grep -q "loss 20.0% is above the maximum loss 10.0% (max_loss)" rank.json
check "a partner with 100% loss in its window is unreachable" status_is 2 gt estimate --root r --sites dead --window 60 --at $AT
check "it says since when" grep -q "r -> dead: unreachable: no answer since 2026-11-22T00:10:00Z" err.txt
