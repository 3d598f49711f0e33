# The companion models' commands: neighbor and extrapolate, and the
# advisor's --compute-from.
. "$GT_ROOT/tests/cli/lib.inc"
plan 103

check "neighbor: the paper's 6 neighbours over 4 NICs" status_is 0 $GT neighbor --neighbors 6 --devices 4 --bytes 1M --latency 2 --bandwidth 10000 --json
check "large-message speed-up 4/3" grep -q '"speedup_large_m": 1.33333333333333' out.txt
check "crossover 2 L B = 40000 bytes" grep -q '"crossover_bytes": 40000' out.txt
check "D_prev = 2 L + 2 M/B" grep -q '"d_prev_us": 213.7152' out.txt
check "schedule" status_is 0 $GT neighbor --neighbors 6 --devices 4 --bytes 64k --latency 2 --bandwidth 10000 --schedule
check "12 slots after the header" [ "$(sed -n '/^step/,$p' out.txt | wc -l)" = 13 ]
check "step 1, device 2: neighbour 0, segment 1" grep -q '^1	2	0	1$' out.txt
check "N <= C is refused (status 2)" status_is 2 $GT neighbor --neighbors 4 --devices 4 --bytes 1 --latency 1 --bandwidth 1
check "with the paper's reason" grep -q 'N > C' err.txt
check "C = 1 is refused" status_is 2 $GT neighbor --neighbors 4 --devices 1 --bytes 1 --latency 1 --bandwidth 1
check "missing options: usage" status_is 1 $GT neighbor --neighbors 6
check "bad size: usage" status_is 1 $GT neighbor --neighbors 6 --devices 4 --bytes 1X --latency 1 --bandwidth 1
check "neighbor --help" status_is 0 $GT neighbor --help

check "extrapolate inverse + constant" status_is 0 $GT extrapolate --at 64 --json 2:53 4:28 8:15.5 16:9.25
check "classic choice" grep -q '"classic_choice": "inverse-constant"' out.txt
check "prediction 100/64 + 3" grep -q '"prediction": 4.5625' out.txt
check "every model reported" [ "$(grep -c '"model":' out.txt)" = 7 ]
check "no warning at 4 times the range" grep -q '"warning": null' out.txt
check "far extrapolation warns" status_is 0 $GT extrapolate --at 100 --json 2:53 4:28 8:15.5 16:9.25
check "with the ratio" grep -q '"warning": "n = 100 is 6.25 times' out.txt
check "forced model" status_is 0 $GT extrapolate --at 32 --model linear 1:1 2:2 3:4
check "linear prediction 1.5 x 32 - 2/3" grep -q '^at n = 32: 47.3333 (linear)' out.txt
check "--model loo" status_is 0 $GT extrapolate --at 64 --model loo --json 1:7 2:9.07944154 4:11.15888308 8:13.23832463
check "leave-one-out picks log" grep -q '"model": "log",$' out.txt
printf '# n ms\n4 30\n8,17\n16 10.5\n' > pts.txt
check "--input file" status_is 0 $GT extrapolate --at 32 --input pts.txt
printf '4 30\n8 x\n' > badpts.txt
check "bad input line is status 2" status_is 2 $GT extrapolate --at 32 --input badpts.txt
check "names file:line" grep -q 'badpts.txt:2' err.txt
check "two samples are too few" status_is 2 $GT extrapolate --at 8 1:1 2:2
check "bad sample is a usage error" status_is 1 $GT extrapolate --at 8 1:1 2 3:3
check "unknown model is a usage error" status_is 1 $GT extrapolate --at 8 --model cubic 1:1 2:2 3:3
check "extrapolate --help" status_is 0 $GT extrapolate --help

# the advisor extrapolates the compute phase to each placement's size
DB=m.db
$GT --db $DB init >/dev/null
awk 'BEGIN { print "ts,src,dst,rtt_ms"; for (t = 0; t < 30; t++) {
  printf "%d,a,b,10\n%d,a,c,20\n", 1795305600 + 60 * t, 1795305600 + 60 * t } }' > m.csv
$GT --db $DB ingest --quiet csv m.csv
printf '2 53\n4 28\n8 15.5\n16 9.25\n' > compute.txt
check "estimate --compute-from" status_is 0 $GT --db $DB estimate --root a --sites b:3,c:4 --compute-from compute.txt --at 2026-11-22T00:30:00Z --json
check "8 processes (1 + 3 + 4)" grep -q '"processes": 8,' out.txt
check "compute 100/8 + 3 = 15.5 ms" grep -q '"compute_ms": 15.5,' out.txt
check "iteration = compute + E[max] (20)" grep -q '"iteration_ms": 35.5,' out.txt
check "the model is named" grep -q '"compute_model": "inverse-constant"' out.txt
check "bad --compute-from is status 2" status_is 2 $GT --db $DB estimate --root a --sites b --compute-from badpts.txt

# the advisor's --bytes: LogGPS message costs on top of the RTTs (a -> b
# 10 ms, a -> c 20 ms, constant: E[max] is the largest shifted partner)
check "estimate --bytes 1k (myrinet)" status_is 0 $GT --db $DB estimate --root a --sites b --bytes 1k --loggps myrinet --at 2026-11-22T00:30:00Z --json
# (the ns parameters are decimals no double holds: the sum is within a few
# ulps of 25507.84 ns, and the JSON prints the double itself)
message_is() { python3 -c "import json, sys; sys.exit(abs(json.load(open('out.txt'))['message_ms'] - $1) > 1e-15)"; }
check "short message: 1024 (Oss + Gs + Ors) ns = 0.02550784 ms" message_is 0.02550784
check "E[max] = 10.02550784" grep -q '"e_max": 10.02550784' out.txt
check "two partners share the root's bandwidth" status_is 0 $GT --db $DB estimate --root a --sites b,c --bytes 1k --loggps myrinet --at 2026-11-22T00:30:00Z --json
check "1024 (Oss + 2 Gs + Ors) ns each: E[max] = 20.04104192" grep -q '"e_max": 20.04104192' out.txt
check "rendezvous above S" status_is 0 $GT --db $DB estimate --root a --sites b --bytes 20000 --loggps myrinet --at 2026-11-22T00:30:00Z --json
check "RTT twice + (T(20000) - T(0)): 20.32654983" grep -q '"e_max": 20.32654983' out.txt
check "says rendezvous" grep -q '"rendezvous": true' out.txt
check "a LogGPS file works too" status_is 0 $GT --db $DB estimate --root a --sites b --bytes 1k --loggps "$GT_ROOT/etc/loggps/myrinet.conf" --at 2026-11-22T00:30:00Z --json
check "same cost from the file" message_is 0.02550784
check "unknown LogGPS set is status 2" status_is 2 $GT --db $DB estimate --root a --sites b --bytes 1k --loggps nosuch

# loggps commands
check "loggps cost" status_is 0 $GT loggps cost --params myrinet --bytes 20000 --json
check "rendezvous time 340859.83 ns" grep -q '"time_ns": 340859.83' out.txt
check "MPI_Send of a rendezvous message" grep -q '"send": 131350.0' out.txt
check "loggps cost --help" status_is 0 $GT loggps cost --help
check "loggps without a subcommand is a usage error" status_is 1 $GT loggps
awk 'BEGIN { srand(5); o = 6730; L = 850;
  for (e = 0; e <= 16; e++) for (j = 0; j < 4; j++) {
    k = e == 0 ? j : 2 ^ e * (1 + j / 4); if (k > 65536) continue;
    if (k <= 8191) t = 2 * o + L + k * (5.02 + 15.17 + 4.72);
    else if (k <= 16383) t = 2 * o + L + 8191 * 15.17 + (k - 8191) * 0.04 + k * (5.02 + 4.72);
    else t = 6 * o + 3 * L + 8191 * 15.17 + (k - 8191) * 0.04 + k * (4.80 + 3.86);
    printf "%d,%.3f\n", k, 2 * t * (1 + 0.005 * (rand() - 0.5)) } }' > pingpong.csv
check "loggps fit on round trips" status_is 0 $GT loggps fit --input pingpong.csv --round-trip --overhead 6730 --json
check "three regimes" grep -q '"regimes": 3' out.txt
s_est=$(sed -n 's/.*"lines_meet": \([0-9.]*\).*/\1/p' out.txt)
check "s where the lines meet within 2 % of 8191 ($s_est)" awk -v s="$s_est" 'BEGIN { exit !(s > 8027 && s < 8355) }' 
check "S bracketed: [14336, 16383]" grep -q '"min": 14336.0' out.txt
printf 'bytes,time_ns\n0,1\n1,x\n' > badpp.csv
check "bad ping-pong line is status 2" status_is 2 $GT loggps fit --input badpp.csv
check "names file:line" grep -q 'badpp.csv:3' err.txt

# --bytes over site links: the wire time simulated (flowsim), LogGPS's
# per-byte overheads kept; 1e6 bytes is rendezvous for myrinet (RTT x 2)
printf 'a 100\nb 10\nc 10\n' > fast-root.txt
check "estimate over site links" status_is 0 $GT --db $DB estimate --root a --sites b,c --bytes 1000000 --loggps myrinet --site-bandwidths fast-root.txt --at 2026-11-22T00:30:00Z --json
check "2 x 20 + 1e6/1e7 s + 1e6 (Osl + Orl) ns = 148.66 ms" grep -q '"e_max": 148.66' out.txt
printf 'a 100 10\nb 10\nc 10\n' > slow-root.txt
check "the root's downlink shared" status_is 0 $GT --db $DB estimate --root a --sites b,c --bytes 1000000 --loggps myrinet --site-bandwidths slow-root.txt --at 2026-11-22T00:30:00Z --json
check "each gets 5 MB/s: 248.66 ms" grep -q '"e_max": 248.66' out.txt
printf 'a 100\nb 10\n' > partial.txt
check "a site missing from the file is status 2" status_is 2 $GT --db $DB estimate --root a --sites b,c --bytes 1000000 --site-bandwidths partial.txt --at 2026-11-22T00:30:00Z
check "names the site" grep -q 'site c has no bandwidth' err.txt
# rank and place weigh the message too: b is nearer (10 ms) but its
# uplink is 1 MB/s, c is farther (20 ms) with 100 MB/s
printf 'a 100\nb 1\nc 100\n' > thin-b.txt
check "place without --bytes" status_is 0 $GT --db $DB place --pool b,c --size 1 --root a --at 2026-11-22T00:30:00Z --json
check "picks the nearer b" grep -q '"sites": \[ *$' out.txt
check "b first" test "$(grep -m1 -o '"site": "[bc]"' out.txt)" = '"site": "b"'
check "place --bytes 1e6 over site links" status_is 0 $GT --db $DB place --pool b,c --size 1 --root a --at 2026-11-22T00:30:00Z --bytes 1000000 --loggps myrinet --site-bandwidths thin-b.txt --json
check "picks c: 2 x 20 + 10 + 8.66 = 58.66 ms" grep -q '"e_max": 58.66' out.txt
check "c first" test "$(grep -m1 -o '"site": "[bc]"' out.txt)" = '"site": "c"'
printf 'a: b\na: c:3\n' > bc.txt
check "rank --bytes over site links" status_is 0 $GT --db $DB rank --candidates bc.txt --at 2026-11-22T00:30:00Z --bytes 1000000 --loggps myrinet --site-bandwidths thin-b.txt --format tsv
check "c ranked first (58.66), b second (2 x 10 + 1000 + 8.66)" test "$(cut -f2,3,5 out.txt | tail -n +2 | tr '\t\n' ' ')" = "a c:3 58.660000 a b 1028.660000 "
check "rank --compute-from: per candidate's processes" status_is 0 $GT --db $DB rank --candidates bc.txt --at 2026-11-22T00:30:00Z --compute-from compute.txt --json
check "c:3 first: 4 processes compute in 100/4 + 3 = 28 ms, 2 in 53 ms" test "$(grep -o '"compute_ms": [0-9.]*' out.txt | tr '\n' ' ')" = '"compute_ms": 28.0 "compute_ms": 53.0 '
check "ordered by iteration time (48 < 63 ms), not E[max] (20 > 10 ms)" test "$(grep -o '"iteration_ms": [0-9.]*' out.txt | tr '\n' ' ')" = '"iteration_ms": 48.0 "iteration_ms": 63.0 '
check "rank --compute-from --format tsv" status_is 0 $GT --db $DB rank --candidates bc.txt --at 2026-11-22T00:30:00Z --compute-from compute.txt --format tsv
check "an iteration_ms column, SITE:PROCS in sites" test "$(cut -f3,5,9 out.txt | tr '\t\n' ' ')" = "sites e_max_ms iteration_ms c:3 20.000000 48.000000 b 10.000000 63.000000 "
check "gridway: ITERATION_US" status_is 0 $GT --db $DB rank --candidates bc.txt --at 2026-11-22T00:30:00Z --compute-from compute.txt --format gridway
check "first line" grep -q '^CANDIDATE=1 ROOT="a" SITES="c:3" PARTNERS=1 EMAX_US=20000 .* ITERATION_US=48000 ' out.txt

# simulate
check "simulate crossbar all-to-all" status_is 0 $GT simulate --topology crossbar:8 --pattern alltoall-spread --bytes 1000000 --bandwidth 1000 --json
check "7 rounds of 1 ms" grep -q '"time_s": 0.007' out.txt
check "56 flows" grep -q '"flows": 56' out.txt
check "simulate a torus" status_is 0 $GT simulate --topology torus:4,4 --pattern alltoall-pairwise --bytes 64k
check "names links by coordinates" grep -q '^  ([0-9],[0-9]) [xy][+-]' out.txt
check "simulate grid sites" status_is 0 $GT simulate --topology sites:slow-root.txt --pattern bcast --bytes 1000000 --json
check "b's and c's downlinks (10 MB/s): 2 x 100 ms" grep -q '"time_s": 0.2,' out.txt
check "--max-events stops early" status_is 0 $GT simulate --topology fattree:64,4 --pattern alltoall-spread --bytes 1k --max-events 100 --json
check "says it stopped" grep -q '"stopped": true' out.txt
check "bad topology is a usage error" status_is 1 $GT simulate --topology cube:3 --pattern ring --bytes 1
check "bad pattern is a usage error" status_is 1 $GT simulate --topology crossbar:3 --pattern gossip --bytes 1
printf 'a 100\nb x\n' > badsites.txt
check "bad sites file is status 2" status_is 2 $GT simulate --topology sites:badsites.txt --pattern ring --bytes 1
check "names file:line" grep -q 'badsites.txt:2' err.txt
printf 'a 100\nb 100x\n' > badsites.txt
check "a bandwidth with trailing junk is status 2" status_is 2 $GT simulate --topology sites:badsites.txt --pattern ring --bytes 1
check "names its line" grep -q 'badsites.txt:2' err.txt
printf 'a 100\nb 100 50 7\n' > badsites.txt
check "a fourth field is status 2" status_is 2 $GT simulate --topology sites:badsites.txt --pattern ring --bytes 1
printf 'a 100\nb 10\n# again\na 5\n' > badsites.txt
check "a site listed twice is status 2" status_is 2 $GT simulate --topology sites:badsites.txt --pattern ring --bytes 1
check "names the site and line" grep -q "badsites.txt:4.*'a' is listed twice" err.txt
printf '  a\t100 # uplink only\r\n\n b 10 20\n' > oksites.txt
check "tabs, CRLF, comments and blank lines are fine" status_is 0 $GT simulate --topology sites:oksites.txt --pattern bcast --bytes 1000000 --json
check "b's downlink is 20 MB/s: 50 ms" grep -q '"time_s": 0.05,' out.txt
check "a 1-D mesh of 400: routes of 401 links" status_is 0 $GT simulate --topology mesh:400 --pattern ring --bytes 1000000 --json --links 2000
check "the ring's way back crosses every x- link" test "$(grep -c '"link": "([0-9]*) x-"' out.txt)" = 399
check "simulate --help" status_is 0 $GT simulate --help
