#!/usr/bin/env bash
# The topology reader against lscpu on real machines: util-linux's own dumps of their /sys
# and /proc (tests/fixtures/lscpu/*.tar.gz, every x86-64 one of util-linux 2.38.1; its README
# says where they come from). The reference is the system's real `lscpu --sysroot` (Debian's
# util-linux), never the harness:
#   - system.topology (`harness plan --json`): CPUs, cores, sockets, threads per core, NUMA
#     nodes and each node's CPUs, L3 instances, and each CPU's core, socket, node and L3
#     against `lscpu -p`;
#   - `harness plan` under cores and numa: whole cores on lscpu's map, never node -1, each numa
#     container inside one of lscpu's nodes and bound to it;
#   - the EPYC 7451 (its node dirs hold only cpumap, no cpulist or meminfo): 16 containers under
#     numa are two on each of the 8 nodes, on that node's CPUs as lscpu lists them, and the
#     plan says the nodes' memory is unknown.
# Needs no stack.
source "$(dirname "$0")/../lib.sh"
command -v lscpu >/dev/null || { fail "lscpu (util-linux) not installed"; finish; }
dumps=("$ROOT"/tests/fixtures/lscpu/*.tar.gz)
[ -e "${dumps[0]}" ] || fail "no dump in tests/fixtures/lscpu"

# COMPARE POLICY LSCPU_P LSCPU_TEXT PLAN_JSON: one line, "ok" or what differs.
compare() {
    python3 - "$@" <<'PY'
import json, re, sys
pol, lp, lt, pj = sys.argv[1:5]
def members(l):
    out = set()
    for part in filter(None, l.strip().split(",")):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out
# lscpu -p=CPU,CORE,SOCKET,NODE,CACHE: the cache columns are the machine's (the header names them)
cols, cpu = None, {}
for line in open(lp):
    if line.startswith("# CPU,"):
        cols = line[2:].strip().split(",")
    elif not line.startswith("#"):
        f = line.strip().split(",")
        v = dict(zip(cols, f))
        cpu[int(v["CPU"])] = (v["Core"], v["Socket"], v["Node"], v.get("L3", ""))
text = {}
for line in open(lt):
    k, _, v = line.partition(":")
    text[k.strip()] = v.strip()
bad = []
plan = json.load(open(pj))
t = plan["topology"]
def same(what, want, got):
    if want != got:
        bad.append(f"{what}: lscpu {want}, harness {got}")
same("CPUs", int(text["CPU(s)"]), t["cpus"])
same("online CPUs", members(text["On-line CPU(s) list"]), members(t["online_cpus"]))
same("sockets", int(text["Socket(s)"]), len(t["packages"]))
same("threads per core", int(text["Thread(s) per core"]), t["threads_per_core"])
same("cores", int(text["Socket(s)"]) * int(text["Core(s) per socket"]), t["cores"])
m = re.search(r"\((\d+) instances?\)", text.get("L3 cache", ""))
same("L3 instances", int(m.group(1)) if m else 0, len(t["l3"]))
same("NUMA nodes", int(text["NUMA node(s)"]), len(t["numa_nodes"]))
for n in t["numa_nodes"]:
    same(f"node {n['id']}'s CPUs", members(text.get(f"NUMA node{n['id']} CPU(s)", "")), members(n["cpus"]))
# Each CPU's core, socket, node and L3, as partitions: lscpu numbers them its own way.
def part(ids):
    groups = {}
    for c, g in ids.items():
        groups.setdefault(g, set()).add(c)
    return sorted(sorted(s) for s in groups.values())
def ours(key_of):
    return {c: key_of(c) for c in cpu}
core_of = {c: i for i, l in enumerate(t["smt_siblings"]) for c in members(l)}
pkg_of = {c: i for i, p in enumerate(t["packages"]) for c in members(p["cpus"])}
node_of = {c: n["id"] for n in t["numa_nodes"] for c in members(n["cpus"])}
l3_of = {c: i for i, l in enumerate(t["l3"]) for c in members(l["cpus"])}
for name, k, mine in (("core", 0, core_of), ("socket", 1, pkg_of), ("node", 2, node_of), ("L3", 3, l3_of)):
    if part({c: v[k] for c, v in cpu.items()}) != part({c: mine.get(c, "-") for c in cpu}):
        bad.append(f"the CPUs of each {name} differ from lscpu -p's")
if any(str(node_of.get(c)) != v[2] for c, v in cpu.items()):
    bad.append("a CPU's node id differs from lscpu -p's")
# The plan: whole cores, each CPU at most once, never node -1; numa inside one node, bound to it.
lnode = {}
for c, v in cpu.items():
    lnode.setdefault(int(v[2]), set()).add(c)
seen = []
for c in plan["containers"]:
    mine = members(c["cpus"])
    seen += mine
    cores = {cpu[x][0] + "/" + cpu[x][1] for x in mine}
    if mine != {x for x, v in cpu.items() if v[0] + "/" + v[1] in cores}:
        bad.append(f"container {c['id']}: not whole cores")
    if c["node"] is None:
        bad.append(f"container {c['id']}: no node")
    if pol == "numa" and (not mine <= lnode.get(c["node"], set()) or c["mems"] != str(c["node"])):
        bad.append(f"container {c['id']}: CPUs {c['cpus']} mems {c['mems']} not inside lscpu's node {c['node']}")
if len(seen) != len(set(seen)):
    bad.append("a CPU given twice")
print("; ".join(bad) or "ok")
PY
}

for d in "${dumps[@]}"; do
    name=$(basename "$d" .tar.gz)
    mkdir -p "$TMP/$name"
    tar -xzf "$d" -C "$TMP/$name" || { fail "$name: unpack"; continue; }
    S=$TMP/$name/$name
    lscpu --sysroot "$S" >"$TMP/$name.lscpu" || fail "$name: lscpu --sysroot"
    lscpu --sysroot "$S" -p=CPU,CORE,SOCKET,NODE,CACHE >"$TMP/$name.lscpu-p" || fail "$name: lscpu -p"
    nodes=$(sed -n 's/^NUMA node(s): *//p' "$TMP/$name.lscpu")
    for p in cores numa; do
        n=$nodes # one container a node: every dump has at least a core a node
        "$HARNESS" plan --containers "$n" --placement $p --sysroot "$S" --json >"$TMP/$name-$p.json" \
            2>"$TMP/$name-$p.err" || { fail "$name: plan $n x $p: $(cat "$TMP/$name-$p.err")"; continue; }
        check_eq "$name: topology and plan $n x $p = lscpu's ($(sed -n 's/^CPU(s): *//p' "$TMP/$name.lscpu") CPUs, $nodes nodes)" \
            ok "$(compare $p "$TMP/$name.lscpu-p" "$TMP/$name.lscpu" "$TMP/$name-$p.json")"
        "$HARNESS" plan --containers "$n" --placement $p --sysroot "$S" >"$TMP/$name-$p.txt" 2>&1
        check "$name: plan $n x $p prints no node -1" \
            awk 'NR > 2 && $1 ~ /^[0-9]+$/ && $6 == "-1" { exit 1 }' "$TMP/$name-$p.txt"
    done
done

# ---- the EPYC 7451: two containers on each of the 8 nodes, on lscpu's CPUs of that node ----------
E=$TMP/x86_64-epyc_7451/x86_64-epyc_7451
if [ -d "$E" ]; then
    "$HARNESS" plan --containers 16 --placement numa --sysroot "$E" --json >"$TMP/epyc16.json" ||
        fail "epyc: plan 16 x numa"
    check_eq "epyc: plan 16 x numa = lscpu's nodes" ok \
        "$(compare numa "$TMP/x86_64-epyc_7451.lscpu-p" "$TMP/x86_64-epyc_7451.lscpu" "$TMP/epyc16.json")"
    check_eq "epyc: two containers on each of nodes 0-7" "2 2 2 2 2 2 2 2" \
        "$(jq -r '[.containers | group_by(.node)[] | length] | join(" ")' "$TMP/epyc16.json")"
    # The two containers of each node hold all its 6 cores: together, lscpu's list of the node.
    M='def m: split(",") | map(if test("-") then (split("-") | map(tonumber)) as [$a, $b]
        | [range($a; $b + 1)] else [tonumber] end) | add | sort | map(tostring) | join(",");'
    for n in 0 1 2 3 4 5 6 7; do
        want=$(sed -n "s/^NUMA node$n CPU(s): *//p" "$TMP/x86_64-epyc_7451.lscpu")
        check_eq "epyc: node $n's two containers = lscpu's node$n CPU(s) $want" \
            "$(jq -rn --arg l "$want" "$M"' $l | m')" \
            "$(jq -r "$M"' [.containers[] | select(.node == '$n') | .cpus] | join(",") | m' "$TMP/epyc16.json")"
    done
    check "epyc: the nodes' memory is unknown (null with the reason), not none" \
        jq -e '[.topology.numa_nodes[] | select(.has_memory == null and .memory_bytes == null and (.memory_reason | test("meminfo")))] | length == 8' "$TMP/epyc16.json"
    check_eq "epyc: placement.memory_unknown_nodes" 0-7 "$(jq -r .placement.memory_unknown_nodes "$TMP/epyc16.json")"
    out=$("$HARNESS" plan --containers 16 --placement numa --sysroot "$E" 2>&1)
    check_contains "epyc: plan says so" "memory unknown on NUMA nodes 0-7" "$out"
    out=$("$HARNESS" plan --containers 16 --placement cores --sysroot "$E" 2>&1)
    check_eq "epyc: plan 16 x cores prints no node -1" "" \
        "$(awk 'NR > 2 && $1 ~ /^[0-9]+$/ && $6 == "-1"' <<<"$out")"
else
    fail "the x86_64-epyc_7451 dump is missing"
fi
finish
