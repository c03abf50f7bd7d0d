#!/usr/bin/env bash
# --placement, --server-cpus and the disclosure, each against a reference from
# outside the harness:
#   - fixture sysroots of machines we do not have (tests/fixtures/mksysroot.py: two
#     sockets of four dies in NPS2 with a CPU-less memory node, SMT off, memoryless
#     nodes, several dies per socket): the topology against `lscpu --sysroot` on the
#     same tree, the dies and node memory against the tree's own files, DMI and DIMMs
#     against `dmidecode --from-dump` of the tree's SMBIOS dump;
#   - `harness plan` on them, and what it refuses;
#   - on this host, both runtimes: each worker's /proc/PID/status read from here (and
#     the cgroup's cpuset files, docker inspect) against containers[] and the plan
#     (a Docker engine is started when none answers, and stopped again after);
#   - --server-cpus: the local stack's MinIO and MariaDB threads pinned during a run,
#     their own affinity back after it.
# The pure cgroup v2, two-node case runs in the VM (tests/vm/guest-v2.sh).
source "$(dirname "$0")/../lib.sh"
FX=$TMP/fx
python3 "$ROOT/tests/fixtures/mksysroot.py" "$FX" || fail "mksysroot.py"

# ---- fixtures: the topology is lscpu's ----------------------------------------------------
norm() { # renumber columns 2.. of "cpu,a,b,..." by first appearance (lscpu's logical ids)
    awk -F, 'BEGIN { OFS = "," } { for (i = 2; i <= NF; i++) { k = i SUBSEP $i
        if (!(k in id)) id[k] = n[i]++; $i = id[k] } print }'
}
# CPU, core, socket, node, L3 of every online CPU, from system.topology.
TOPO_JQ='.topology as $t
  | def members($l): if $l == "" then [] else ($l | split(",") | map(if test("-") then
      (split("-") | map(tonumber)) as [$a, $b] | [range($a; $b + 1)] else [tonumber] end) | add) end;
  members($t.online_cpus)[] as $cpu
  | [($cpu | tostring),
     ([$t.smt_siblings | to_entries[] | select(members(.value) | index([$cpu]) != null) | .key][0] | tostring),
     ([$t.packages | to_entries[] | select(members(.value.cpus) | index([$cpu]) != null) | .key][0] | tostring),
     ([$t.numa_nodes[] | select(members(.cpus) | index([$cpu]) != null) | .id][0] | tostring),
     ([$t.l3 | to_entries[] | select(members(.value.cpus) | index([$cpu]) != null) | .key][0] // "-" | tostring)]
  | join(",")'
lscpu_field() { lscpu --sysroot "$1" | sed -n "s/^$2: *//p"; }
for m in epyc-2s-nps2 xeon-2s-smtoff memoryless-1s multidie-1s; do
    S=$FX/$m
    "$HARNESS" plan --containers 1 --sysroot "$S" --json >"$TMP/$m.json" || fail "$m: plan --json"
    J=$TMP/$m.json
    lscpu --sysroot "$S" -p=CPU,CORE,SOCKET,NODE,CACHE | grep -v '^#' |
        awk -F, 'BEGIN { OFS = "," } { print $1, $2, $3, $4, (NF >= 9 && $9 != "" ? $9 : "-") }' |
        norm >"$TMP/$m.lscpu"
    jq -r "$TOPO_JQ" "$J" | norm >"$TMP/$m.ours"
    check_eq "$m: each CPU's core, socket, node and L3 = lscpu -p ($(wc -l <"$TMP/$m.lscpu") CPUs)" \
        "$(cat "$TMP/$m.lscpu")" "$(cat "$TMP/$m.ours")"
    check_eq "$m: sockets, threads per core, cores, NUMA nodes = lscpu's" \
        "$(lscpu_field "$S" 'Socket(s)') $(lscpu_field "$S" 'Thread(s) per core') $(( $(lscpu_field "$S" 'Socket(s)') * $(lscpu_field "$S" 'Core(s) per socket') )) $(lscpu_field "$S" 'NUMA node(s)')" \
        "$(jq -r '.topology | "\(.packages | length) \(.threads_per_core) \(.cores) \(.numa_nodes | length)"' "$J")"
    check_eq "$m: L3 instances = lscpu's" \
        "$(lscpu_field "$S" 'L3 cache' | sed -n 's/.*(\([0-9]*\) instance.*/\1/p')" "$(jq -r '.topology.l3 | length' "$J")"
    for n in $(jq -r '.topology.numa_nodes[].id' "$J"); do
        check_eq "$m: node $n's CPUs = lscpu's" "$(lscpu_field "$S" "NUMA node$n CPU(s)")" \
            "$(jq -r ".topology.numa_nodes[] | select(.id == $n) | .cpus" "$J")"
        check_eq "$m: node $n's memory = its meminfo" \
            "$(($(awk '/MemTotal/ {print $4}' "$S/sys/devices/system/node/node$n/meminfo") * 1024))" \
            "$(jq -r ".topology.numa_nodes[] | select(.id == $n) | .memory_bytes" "$J")"
    done
    # lscpu 2.38 has no die column: the tree's distinct die_cpus_list files are the dies.
    check_eq "$m: dies = the distinct die_cpus_list" \
        "$(cat "$S"/sys/devices/system/cpu/cpu*/topology/die_cpus_list | sort -u | wc -l)" \
        "$(jq -r '.topology.dies | length' "$J")"
done
check "memoryless-1s: node 1 has CPUs and no memory, node 2 memory and no CPU" \
    jq -e '.topology.numa_nodes[1].has_memory == false and .topology.numa_nodes[1].cpus != "" and
           .topology.numa_nodes[2].has_memory and .topology.numa_nodes[2].cpus == ""' "$TMP/memoryless-1s.json"
check "xeon-2s-smtoff: SMT off, one thread a core, the siblings offline" \
    jq -e '.topology.threads_per_core == 1 and .topology.online_cpus == "0-15"' "$TMP/xeon-2s-smtoff.json"

# ---- fixtures: DMI and DIMMs are dmidecode's ----------------------------------------------
S=$FX/epyc-2s-nps2
"$HARNESS" --containers 1 --workloads sleep --sysroot "$S" --out "$TMP/fxrun" --quiet >/dev/null 2>&1
R=$TMP/fxrun/result.json
D=$S/dmidecode.bin
for kv in system_vendor:system-manufacturer product_name:system-product-name \
    board_vendor:baseboard-manufacturer board_name:baseboard-product-name \
    bios_vendor:bios-vendor bios_version:bios-version bios_date:bios-release-date; do
    check_eq "DMI ${kv%%:*} = dmidecode -s ${kv#*:}" "$(dmidecode --from-dump "$D" -s "${kv#*:}")" \
        "$(jq -r ".system.dmi.${kv%%:*}" "$R")"
done
dmidecode --from-dump "$D" -t 17 >"$TMP/t17"
check_eq "DIMM slots = dmidecode's memory devices" "$(grep -c '^Memory Device' "$TMP/t17")" \
    "$(jq -r .system.memory_dimms.slots "$R")"
check_eq "DIMMs = dmidecode's installed ones" "$(grep -cE '^\s+Size: [0-9]+ GB' "$TMP/t17")" \
    "$(jq -r .system.memory_dimms.count "$R")"
check_eq "DIMM total = dmidecode's sizes summed" \
    "$(awk '/^\tSize: [0-9]+ GB/ {s += $2 * 1073741824} END {printf "%.0f", s}' "$TMP/t17")" \
    "$(jq -r .system.memory_dimms.total_bytes "$R")"
check_eq "DIMM type, speed, configured speed = dmidecode's" \
    "$(awk -F': ' '/^\tType: DDR/ {t = $2} /^\tSpeed: [0-9]/ {s = $2 + 0} /^\tConfigured Memory Speed: [0-9]/ {c = $2 + 0} END {print t, s, c}' "$TMP/t17")" \
    "$(jq -r '.system.memory_dimms | "\(.types[0]) \(.speeds_mts[0]) \(.configured_speeds_mts[0])"' "$R")"
check "drive: firmware, PCIe link and node from the tree" \
    jq -e '.system.disks[0] | .firmware == "GDC5902Q" and .pcie_link_speed == "16.0 GT/s PCIe" and .pcie_link_width == 4 and .numa_node == 1' "$R"
"$HARNESS" report "$TMP/fxrun" -o "$TMP/fx.html" >/dev/null 2>&1
check_contains "report: system under test with the DIMMs" "16 x 32.00 GiB DDR5 4800 MT/s (4400 configured)" "$(cat "$TMP/fx.html")"

# ---- harness plan on the two-socket fixture, and what cannot be met -----------------------
for p in none cores l3 numa; do
    "$HARNESS" plan --containers 16 --placement $p --sysroot "$S" >"$TMP/plan-$p" 2>&1
    check_eq "plan 16 x $p on epyc-2s-nps2 exits 0" 0 $?
done
check_eq "plan: one line per container, then the servers' line" 19 "$(wc -l <"$TMP/plan-numa")"
check "plan numa: container 1 on node 1, memory node 1" grep -qE '^1 +2 +0 +2 +2 +1 +8-9,40-41 +1$' "$TMP/plan-numa"
# Worked out by hand from the fixture (package 0 = dies 0-3 = CPUs 0-15 and siblings 32-47,
# four cores a die; NPS2: node 0 = dies 0-1, node 1 = dies 2-3): 2 cores each, packed, dealt
# over the eight L3s, or over nodes 0-3 (node 4 has no CPU), starting again at the next core.
check "plan cores: container 15 gets the last two cores" grep -qE '^15 +2 +1 +7 +7 +3 +30-31,62-63 +0-4$' "$TMP/plan-cores"
check "plan l3: container 8 wraps to L3 0's next two cores" grep -qE '^8 +2 +0 +0 +0 +0 +2-3,34-35 +0-4$' "$TMP/plan-l3"
check "plan numa: container 4 back on node 0, its next L3" grep -qE '^4 +2 +0 +1 +1 +0 +4-5,36-37 +0$' "$TMP/plan-numa"
# Every policy against lscpu's map of the same tree: disjoint whole cores covering all 64 CPUs,
# each container inside one L3 (l3, numa) and one node with its memory (numa), spread evenly.
lscpu --sysroot "$S" -p=CPU,CORE,NODE,CACHE | grep -v '^#' >"$TMP/epyc.map"
for p in cores l3 numa; do
    "$HARNESS" plan --containers 16 --placement $p --sysroot "$S" --json >"$TMP/plan-$p.json"
    out=$(python3 - "$p" "$TMP/epyc.map" "$TMP/plan-$p.json" <<'PY'
import json, sys
from collections import Counter
pol, cpus_of = sys.argv[1], {}
for line in open(sys.argv[2]):
    cpu, core, node, _, _, _, _, l3 = line.strip().split(",")
    cpus_of[int(cpu)] = (int(core), int(node), int(l3))
def members(l):
    out = []
    for part in filter(None, l.split(",")):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out
seen, per_l3, per_node, bad = [], Counter(), Counter(), []
for c in json.load(open(sys.argv[3]))["containers"]:
    mine = members(c["cpus"]); seen += mine
    cores = {cpus_of[x][0] for x in mine}
    if sorted(mine) != sorted(x for x, v in cpus_of.items() if v[0] in cores):
        bad.append(f"{c['id']}: not whole cores")
    l3s, nodes = {cpus_of[x][2] for x in mine}, {cpus_of[x][1] for x in mine}
    if pol != "cores" and len(l3s) != 1: bad.append(f"{c['id']}: on L3s {l3s}")
    if pol == "numa" and (len(nodes) != 1 or c["mems"] != str(min(nodes))): bad.append(f"{c['id']}: nodes {nodes} mems {c['mems']}")
    per_l3.update(l3s); per_node.update(nodes)
if sorted(seen) != sorted(cpus_of): bad.append("not every CPU exactly once")
if pol == "l3" and set(per_l3.values()) != {2}: bad.append(f"per L3 {dict(per_l3)}")
if pol == "numa" and set(per_node.values()) != {4}: bad.append(f"per node {dict(per_node)}")
print("; ".join(bad) or "ok")
PY
)
    check_eq "plan 16 x $p: disjoint whole cores on lscpu's map, spread as asked" ok "$out"
done
# plan runs no workload: it needs no credentials, corpus or patterns (a copy of the harness
# away from the repository has none; before the fix it exited 2 on the patterns).
mkdir -p "$TMP/bare"
cp "$HARNESS" "$TMP/bare/harness"
(cd "$TMP/bare" && env -i PATH=/usr/bin:/bin ./harness plan --containers 1 --placement cores --sysroot "$S" >/dev/null 2>"$TMP/bare.err")
st=$?; check_eq "plan away from the repository, without credentials, exits 0 ($(head -1 "$TMP/bare.err"))" 0 $st
refused() { # refused "description" expected-words args...
    local what=$1 words=$2
    shift 2
    "$HARNESS" "$@" >"$TMP/ref.out" 2>"$TMP/ref.err"
    local rc=$?
    check_eq "$what: exit 2" 2 "$rc"
    check_eq "$what: one line" 1 "$(wc -l <"$TMP/ref.err")"
    check_contains "$what: says why" "$words" "$(cat "$TMP/ref.err")"
}
refused "more containers than cores" "33 containers need a whole core each" \
    plan --containers 33 --placement cores --sysroot "$S"
refused "numa on a memoryless node" "NUMA node 1 (CPUs 4-7,12-15) has no memory" \
    plan --containers 2 --placement numa --sysroot "$FX/memoryless-1s"
refused "fractional cores" "it counts whole cores" \
    plan --containers 2 --placement l3 --cpus-per-container 1.5 --sysroot "$S"

# ---- this host, cgroup runtime: what each worker was given is what it runs on -------------
CS=/sys/fs/cgroup/cpuset
h() { "$HARNESS" "$@" >"$TMP/h.out" 2>"$TMP/h.err" & LASTPID=$!; }
workers_seen() { # pid: "i cpus mems" per worker, read from /proc/PID/status here
    for w in $(cat /proc/$1/task/*/children 2>/dev/null); do
        i=$(grep -o "aops-$1-[0-9]*" /proc/$w/cgroup 2>/dev/null | head -1 | sed "s/aops-$1-//")
        [ -n "$i" ] && echo "$i $(awk '/^Cpus_allowed_list/ {print $2}' /proc/$w/status) $(awk '/^Mems_allowed_list/ {print $2}' /proc/$w/status)"
    done | sort -u
}
wait_workers() { # pid n: until n workers are in their cgroups (30 s)
    for _ in $(seq 300); do
        [ "$(workers_seen $1 | wc -l)" -ge $2 ] && return 0
        kill -0 $1 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
"$HARNESS" plan --containers 2 --placement cores --json >"$TMP/plan2.json"
AOPS_SLEEP_US=150000 h --containers 2 --workloads sleep --placement cores --cpus-per-container 1 \
    --out "$TMP/cores" --quiet
if wait_workers $LASTPID 2; then
    seen=$(workers_seen $LASTPID)
    check_eq "cores: each worker's /proc/PID/status = its plan" \
        "$(jq -r '.containers[] | "\(.id) \(.cpus) \(.mems)"' "$TMP/plan2.json")" "$seen"
    # Outside the harness: lscpu's cores of this host, one worker's CPUs each, nothing shared.
    check_eq "cores: the workers' CPUs are lscpu's cores, one each, disjoint" \
        "$(lscpu -p=CPU,CORE | grep -v '^#' | awk -F, '{c[$2] = c[$2] (c[$2] == "" ? "" : ",") $1} END {for (k in c) print c[k]}' | sort -n | head -2 | tr '\n' ' ')" \
        "$(awk '{print $2}' <<<"$seen" | sort -n | tr '\n' ' ')"
    [ -d $CS ] && check_eq "cores: the v1 cpuset cgroups hold the plan" \
        "$(jq -r '[.containers[].cpus] | join(" ")' "$TMP/plan2.json")" \
        "$(cat $CS/aops-$LASTPID-0/cpuset.cpus $CS/aops-$LASTPID-1/cpuset.cpus | tr '\n' ' ' | sed 's/ $//')"
    check_eq "cores: no CPU quota on top (C means whole cores)" 0 \
        "$(find /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct -maxdepth 4 -name "aops-$LASTPID-*" 2>/dev/null | wc -l)"
else
    fail "cores: workers not in their cgroups within 30 s: $(head -3 "$TMP/h.err")"
fi
wait $LASTPID
R=$TMP/cores/result.json
check "cores: containers[] cpus and mems = what each worker read of itself" \
    jq -e '[.containers[] | select(.cpus != null and .cpus == .cpus_allowed and .mems == .mems_allowed)] | length == 2' "$R"
check "cores: the plan is what ran" jq -e --slurpfile p "$TMP/plan2.json" \
    '[.containers[] | {cpus, mems}] == [$p[0].containers[] | {cpus, mems}] and .config.placement.policy == "cores"' "$R"
check "cores: no placement reason (the kernel applied it)" \
    jq -e '.invalid_reasons == ["a test-only workload ran: not a benchmark"]' "$R"
check_eq "cores: no cgroup left" 0 "$(find /sys/fs/cgroup -maxdepth 5 -type d -name "aops-$LASTPID-*" | wc -l)"
refused "run: more containers than cores" "3 containers need a whole core each" \
    --containers 3 --workloads sleep --placement cores --out "$TMP/refused"
check "run refused before anything started: no run directory" test ! -e "$TMP/refused"
refused "run: --placement with --no-cgroups" "needs cgroups" \
    --containers 1 --workloads sleep --placement l3 --no-cgroups --out "$TMP/refused"
# A cpuset the kernel refuses (the fixture's CPUs 0-7,32-39 do not exist here): one line, and
# no cgroup left behind (before the fix the v1 cpuset cgroup of worker 0 stayed).
h --containers 2 --workloads sleep --placement numa --sysroot "$S" --out "$TMP/badset" --quiet
wait $LASTPID
check_eq "cpuset the kernel refuses: exit 1" 1 $?
check_eq "cpuset the kernel refuses: one line" 1 "$(wc -l <"$TMP/h.err")"
check_contains "cpuset the kernel refuses: says which" "cannot give worker 0 CPUs 0-7,32-39" "$(cat "$TMP/h.err")"
check_eq "cpuset the kernel refuses: no cgroup left" "" \
    "$(find /sys/fs/cgroup -maxdepth 5 -type d -name "aops-$LASTPID-*")"

# ---- --server-cpus: the local stack's servers pinned for the run --------------------------
STACK=${AOPS_STACK_DIR:-$ROOT/.local/stack}
mpid=$(cat "$STACK/minio/minio.pid" 2>/dev/null)
dpid=$(cat "$STACK/mariadb/mariadbd.own.pid" 2>/dev/null || cat "$STACK/mariadb/mariadbd.pid")
affinity() { cat /proc/$1/task/*/status 2>/dev/null | awk '/^Cpus_allowed_list/ {print $2}' | sort -u | tr '\n' ' '; }
before="$(affinity "$mpid")/$(affinity "$dpid")"
last=$(nproc --all)
last=$((last - 1))
"$HARNESS" prepare --containers 1 --profile tiny --workloads s3,db --bucket aops-it-place >/dev/null 2>&1 ||
    fail "prepare for the --server-cpus run"
h --containers 1 --profile tiny --workloads s3,db --bucket aops-it-place --placement cores \
    --server-cpus $last --cycles 3 --out "$TMP/pin" --quiet
if wait_workers $LASTPID 1; then
    check_eq "--server-cpus $last: every MinIO and MariaDB thread pinned during the run" \
        "$last /$last " "$(affinity "$mpid")/$(affinity "$dpid")"
else
    fail "--server-cpus: the worker never started: $(head -3 "$TMP/h.err")"
fi
wait $LASTPID
check_eq "--server-cpus: their own affinity back after the run" "$before" "$(affinity "$mpid")/$(affinity "$dpid")"
R=$TMP/pin/result.json
check "--server-cpus recorded: both servers, their threads, the CPUs" \
    jq -e --arg c "$last" '.config.placement.server_cpus == $c and .placement.server_cpus == $c and .placement.servers_pinned.servers.minio.threads > 0 and .placement.servers_pinned.servers.mariadb.threads > 0' "$R"
check "--server-cpus: the worker got every core but the servers'" \
    jq -e --arg c "$last" '.containers[0].cpus_allowed == .containers[0].cpus and (.containers[0].cpus | contains($c) | not) and .totals.errors == 0' "$R"
# ---- this host, docker runtime: HostConfig.CpusetCpus, and what the worker saw inside --------
IMAGE=${AOPS_IMAGE:-aops-harness:local}
started=0
if ! timeout 10 docker info >/dev/null 2>&1; then
    if out=$("$ROOT/scripts/docker" up 2>&1); then started=1; else fail "the Docker engine cannot start: $out"; fi
fi
trap '[ $started = 1 ] && "$ROOT/scripts/docker" down >/dev/null 2>&1; rm -rf "$TMP"' EXIT
if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
    fail "image $IMAGE is missing: scripts/docker images (make setup) builds it"
else
    AOPS_SLEEP_US=200000 h --runtime docker --containers 2 --workloads sleep --placement cores \
        --out "$TMP/dk" --quiet
    for _ in $(seq 300); do
        [ "$(docker ps -q --filter label=aops.pid=$LASTPID | wc -l)" -ge 2 ] && break
        sleep 0.1
    done
    for id in $(docker ps -q --filter label=aops.pid=$LASTPID); do
        docker inspect -f '{{index .Config.Labels "aops.worker"}} {{.HostConfig.CpusetCpus}} {{.State.Pid}}' "$id"
    done | sort >"$TMP/dk.seen"
    check_eq "docker: HostConfig.CpusetCpus = the plan" \
        "$(jq -r '.containers[] | "\(.id) \(.cpus)"' "$TMP/plan2.json")" "$(awk '{print $1, $2}' "$TMP/dk.seen")"
    check_eq "docker: each container's tasks may run on its cores only (/proc/PID/status)" \
        "$(jq -r '[.containers[].cpus] | join(" ")' "$TMP/plan2.json")" \
        "$(while read -r i c p; do awk '/^Cpus_allowed_list/ {printf "%s ", $2}' /proc/$p/status; done <"$TMP/dk.seen" | sed 's/ $//')"
    wait $LASTPID
    check "docker: containers[] cpus = what each worker read inside its container" \
        jq -e '([.containers[] | select(.cpus != null and .cpus == .cpus_allowed and .mems_allowed != null)] | length) == 2 and .config.runtime == "docker"' "$TMP/dk/result.json"
fi

finish
