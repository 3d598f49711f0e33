# tier: slow
# Mutated inputs for the CLI's own parsers (rank candidates, emax specs,
# fit samples, pool files): every run must end with status 0, 1 or 2 —
# never a crash (status >= 128 is a signal; under `make asan` a memory
# error aborts).  Seeded: a failure repeats.
. "$GT_ROOT/tests/cli/lib.inc"
plan 1
DB=z.db
$GT --db $DB init >/dev/null
printf 'ts,src,dst,rtt_ms\n1,a,b,10\n61,a,b,12\n121,a,b,11\n1,b,a,9\n61,b,a,30\n' > s.csv
$GT --db $DB ingest --quiet csv s.csv
mutate() {   # mutate SEED FILE: prints a mutated copy of FILE
    awk -v seed="$1" 'BEGIN { srand(seed); RS = "^$" }
    { s = $0; n = 1 + int(rand() * 6)
      split("\" [ ] { } : , \n # \\ 0 -1 1e999 nan x:0 \t", tok, " ")
      for (i = 0; i < n; i++) {
        p = 1 + int(rand() * (length(s) + 1)); r = rand()
        if (r < 0.4) s = substr(s, 1, p - 1) tok[1 + int(rand() * 15)] substr(s, p)
        else if (r < 0.7) s = substr(s, 1, p - 1) substr(s, p + 1 + int(rand() * 3))
        else s = substr(s, 1, p - 1) sprintf("%c", 32 + int(rand() * 95)) substr(s, p + 1)
      }
      printf "%s", s }' "$2"
}
ok_status() { [ "$1" -le 2 ]; }
printf 'a: b\nb: a\n' > c.txt
echo '[{"root": "a", "sites": ["b", {"site": "b", "procs": 2}]}]' > c.json
printf '10\n11\nloss\n\n12.5\n' > f.txt
printf 'a\nb:2\n' > p.txt
bad=0
for i in $(seq 1 40); do
    mutate $i c.txt > m1; mutate $((i + 1000)) c.json > m2
    mutate $((i + 2000)) f.txt > m3; mutate $((i + 3000)) p.txt > m4
    $GT --db $DB rank --candidates m1 --at 200 >/dev/null 2>&1; ok_status $? || bad=$((bad + 1))
    $GT --db $DB rank --candidates m2 --at 200 --json >/dev/null 2>&1; ok_status $? || bad=$((bad + 1))
    $GT fit --window 3 m3 >/dev/null 2>&1; ok_status $? || bad=$((bad + 1))
    $GT --db $DB place --pool-file m4 --size 1 --at 200 >/dev/null 2>&1; ok_status $? || bad=$((bad + 1))
    spec=$(printf 'pareto:41.7,16.9x4+1.5' > sp; mutate $((i + 4000)) sp)
    $GT emax "$spec" >/dev/null 2>&1; ok_status $? || bad=$((bad + 1))
done
check "no crash on 200 mutated CLI inputs ($bad bad exits)" [ "$bad" = 0 ]
