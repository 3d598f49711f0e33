# tier: slow
# export-topology (issue 28, part 4): the pair costs as a Kubernetes
# NetworkTopology resource, validated against the CRD's own schema
# (../shared/schemas, read here, never copied), and as Rucio distances.
# The costs are hand-worked: each pair has ten samples b, b+1, ..., b+9
# ms, so with the samples as they are (--model empirical, --loss ignore)
# its mean is b + 4.5 and its median b + 4.
. "$GT_ROOT/tests/cli/lib.inc"
plan 26
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
CRD=$GT_ROOT/../shared/schemas/networktopology.diktyo.x-k8s.io_networktopologies.yaml

# cern -> kit 10..19, kit -> cern 20..29, cern -> ral 30.., ral -> cern 40..,
# kit -> ral 50.., ral -> kit 60..; 2026-11-01T00:00Z on, a minute apart
{
    echo ts,src,dst,rtt_ms
    for p in cern,kit,10 kit,cern,20 cern,ral,30 ral,cern,40 kit,ral,50 ral,kit,60; do
        IFS=, read -r s d b <<EOF
$p
EOF
        i=0
        while [ $i -lt 10 ]; do
            echo "$((1793491200 + 60 * i)),$s,$d,$((b + i))"
            i=$((i + 1))
        done
    done
} > h.csv
$GT --db h.db init >/dev/null && $GT --db h.db ingest csv h.csv >/dev/null 2>&1
X="$GT --db h.db export-topology --model empirical --loss ignore --window 10 --at 1793491800"

can_validate() {
    [ -f "$CRD" ] && "$PY" -c 'import yaml, jsonschema' 2>/dev/null
}
# valid DOC: DOC (YAML or JSON) satisfies the CRD's openAPIV3Schema, and
# its apiVersion and kind are the CRD's group/version and kind
valid() {
    "$PY" - "$CRD" "$1" <<'PYEOF'
import sys, yaml, jsonschema
crd = yaml.safe_load(open(sys.argv[1]))
ver = crd["spec"]["versions"][0]
schema = ver["schema"]["openAPIV3Schema"]
doc = yaml.safe_load(open(sys.argv[2]))
jsonschema.validate(doc, schema, cls=jsonschema.Draft4Validator)
want = crd["spec"]["group"] + "/" + ver["name"]
assert doc["apiVersion"] == want, (doc["apiVersion"], want)
assert doc["kind"] == crd["spec"]["names"]["kind"], doc["kind"]
PYEOF
}
# costs DOC KEY: "origin>destination=cost" lines of the topology key's list
costs() {
    "$PY" - "$1" "$2" <<'PYEOF'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
for t in doc["spec"]["weights"][0]["topologyList"]:
    if t["topologyKey"] == "topology.kubernetes.io/" + sys.argv[2]:
        for o in t["originList"]:
            for c in o["costList"]:
                print("%s>%s=%d" % (o["origin"], c["destination"], c["networkCost"]))
PYEOF
}

$X --format networktopology --statistic mean > mean.yaml 2> mean.err
if can_validate; then
    check "networktopology (YAML): valid against the CRD's schema, its group, version and kind" valid mean.yaml
else
    skip "networktopology against the CRD's schema" "no $CRD, or no python3-yaml / python3-jsonschema"
fi
check "mean: each zone pair costs its hand-worked mean, rounded (14.5 -> 15)" \
    [ "$(costs mean.yaml zone | tr '\n' ' ')" = "cern>kit=15 cern>ral=35 kit>cern=25 kit>ral=55 ral>cern=45 ral>kit=65 " ]
check "mean: nothing said on stderr (every pair estimated)" [ ! -s mean.err ]
$X --format networktopology --statistic p50 --unit us > p50.yaml
check "p50 in us: the medians (cern -> kit 14 ms = 14000)" \
    [ "$(costs p50.yaml zone | tr '\n' ' ')" = "cern>kit=14000 cern>ral=34000 kit>cern=24000 kit>ral=54000 ral>cern=44000 ral>kit=64000 " ]
check "the annotations say the statistic, unit, window and time" \
    grep -q 'gridtail/statistic: "p50"' p50.yaml
$X --format networktopology --statistic p50 --unit us --json > p50.json
check "--json: the same document as the YAML" "$PY" -c '
import json, sys, yaml
sys.exit(json.load(open("p50.json")) != yaml.safe_load(open("p50.yaml")))'

# a map: cern and kit in zone-a (region eu-1), ral in zone-b (eu-2)
printf '# site,zone,region\ncern, zone-a, eu-1\nkit,zone-a,eu-1\n\nral,zone-b,eu-2\n' > zones.map
$X --format networktopology --statistic mean --map zones.map --name grid-costs --namespace sched > z.yaml
if can_validate; then
    check "with zones and regions: valid against the CRD's schema" valid z.yaml
else
    skip "zones and regions against the CRD's schema" "no $CRD, or no python3-yaml / python3-jsonschema"
fi
check "zones: the largest of the site pairs (zone-a -> zone-b: kit -> ral 54.5), none within a zone" \
    [ "$(costs z.yaml zone | tr '\n' ' ')" = "zone-a>zone-b=55 zone-b>zone-a=65 " ]
check "regions: the same grouping at the region key" \
    [ "$(costs z.yaml region | tr '\n' ' ')" = "eu-1>eu-2=55 eu-2>eu-1=65 " ]
check "--name and --namespace in the metadata" grep -q 'namespace: "sched"' z.yaml

printf 'cern,zone-a\nkit,zone-a\n' > part.map
$X --format networktopology --map part.map > part.yaml 2> part.err
check "a site not in the map: left out, said once on stderr" grep -q '1 sites not in --map, left out: ral$' part.err
check "...and only the mapped sites' pairs count (one zone: no cost at all)" \
    [ -z "$(costs part.yaml zone)" ]

printf 'cern,zone-a\nkit,zone-b\ncern,zone-c\n' > twice.map
check "a site in two zones: refused, naming file, line and field" \
    status_is 2 $X --format networktopology --map twice.map
check "...the message" grep -q 'twice.map:3: site: cern is mapped on line 1 already' err.txt
printf 'cern,zone-a,eu-1\nkit,Zone_B_\n' > bad.map
check "a zone that is no Kubernetes label value: file:line: zone:" \
    sh -c "$X --format networktopology --map bad.map 2>&1 | grep -q 'bad.map:2: zone: .Zone_B_. is not a Kubernetes label value'"
printf 'cern,zone-a,eu-1\nkit,zone-a,eu-2\n' > split.map
check "a zone in two regions: refused" \
    sh -c "$X --format networktopology --map split.map 2>&1 | grep -q 'split.map:2: region: zone zone-a is in region eu-1 on line 1'"
check "--name that is no object name: usage error (1)" \
    status_is 1 $X --format networktopology --name Bad_Name

# Rucio: cern holds two RSEs, kit one; ral has none
printf 'cern,CERN-PROD_DATADISK\ncern,CERN-PROD_SCRATCHDISK\nkit,FZK-LCG2_DATADISK\n' > rse.map
$X --format rucio --map rse.map --statistic mean > rucio.txt 2> rucio.err
check "rucio: rucio-admin add-distance lines, hand-worked, none between one site's RSEs" \
    [ "$(grep -v '^#' rucio.txt | tr '\n' ';')" = "rucio-admin rse add-distance --distance 15 CERN-PROD_DATADISK FZK-LCG2_DATADISK;rucio-admin rse add-distance --distance 15 CERN-PROD_SCRATCHDISK FZK-LCG2_DATADISK;rucio-admin rse add-distance --distance 25 FZK-LCG2_DATADISK CERN-PROD_DATADISK;rucio-admin rse add-distance --distance 25 FZK-LCG2_DATADISK CERN-PROD_SCRATCHDISK;" ]
$X --format rucio --map rse.map --statistic mean --json > r.json 2>/dev/null
check "rucio --json: distances with their ms" "$PY" -c '
import json, sys
d = json.load(open("r.json"))
got = sorted((x["source"], x["destination"], x["distance"], x["ms"]) for x in d["distances"])
sys.exit(got != [("CERN-PROD_DATADISK", "FZK-LCG2_DATADISK", 15, 14.5),
                 ("CERN-PROD_SCRATCHDISK", "FZK-LCG2_DATADISK", 15, 14.5),
                 ("FZK-LCG2_DATADISK", "CERN-PROD_DATADISK", 25, 24.5),
                 ("FZK-LCG2_DATADISK", "CERN-PROD_SCRATCHDISK", 25, 24.5)] or d["statistic"] != "mean")'
check "rucio --update: update-distance lines" \
    sh -c "$X --format rucio --map rse.map --update 2>/dev/null | grep -c '^rucio-admin rse update-distance --distance [0-9]* ' | grep -qx 4"
check "rucio without --map: usage error (1)" status_is 1 $X --format rucio
printf 'cern,cern_disk\n' > lower.map
check "an RSE name outside Rucio's schema: file:line: rse:" \
    sh -c "$X --format rucio --map lower.map 2>&1 | grep -q 'lower.map:1: rse: .cern_disk. is not an RSE name'"

# a store whose sites are no label values, and a pair without answers
printf 'ts,src,dst,rtt_ms\n1793491200,site_,kit,10\n1793491260,site_,kit,11\n1793491200,kit,ral,\n1793491260,kit,ral,\n' > odd.csv
$GT --db odd.db init >/dev/null && $GT --db odd.db ingest csv odd.csv >/dev/null 2>&1
check "without a map, a site that is no label value: an error naming it and --map" \
    sh -c "$GT --db odd.db export-topology --format networktopology --window 2 --at 1793491300 2>&1 | grep -q \"site 'site_' is not a Kubernetes label value.*--map\""
printf 'site_,zone-x\nkit,zone-k\nral,zone-r\n' > odd.map
$GT --db odd.db export-topology --format networktopology --window 2 --at 1793491300 --model empirical --map odd.map > odd.yaml 2> odd.err
check "a pair that never answered: left out and named on stderr, the rest written" \
    sh -c "grep -q '1 of 2 pairs without an estimate' odd.err && grep -q 'kit -> ral' odd.err && grep -q 'origin: \"zone-x\"' odd.yaml"

# the defaults (p99, model auto, the loss model) on a synthetic day
$GT synth --count 5 --span 1d --seed 7 -o s.csv 2>/dev/null
$GT --db s.db init >/dev/null && $GT --db s.db ingest amp-csv s.csv >/dev/null 2>&1
$GT --db s.db export-topology --format networktopology > s.yaml 2>/dev/null
synth_costs_ok() {   # 1 to 20 zone pairs, each at least 1 ms
    "$PY" - <<'PYEOF'
import sys, yaml
doc = yaml.safe_load(open("s.yaml"))
c = [x["networkCost"] for o in doc["spec"]["weights"][0]["topologyList"][0]["originList"]
     for x in o["costList"]]
sys.exit(not (0 < len(c) <= 20 and min(c) >= 1))
PYEOF
}
if can_validate; then
    check "the defaults on a synthetic store: valid, 1-20 zone pairs, costs >= 1 ms" \
        eval 'valid s.yaml && synth_costs_ok'
else
    skip "the defaults on a synthetic store" "no $CRD, or no python3-yaml / python3-jsonschema"
fi
# --help says what --format takes here, and nothing else: the advisor's
# output formats (gridway, classad...) are not this command's
check "export-topology --help: --format is networktopology or rucio, not the output formats" sh -c \
    "$GT export-topology --help > th.txt; grep -q -- '--format networktopology' th.txt && ! grep -q 'gridway' th.txt"
