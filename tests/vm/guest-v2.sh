#!/bin/busybox sh
# tests/vm/guest-v2.sh -- /init of the pure cgroup v2 VM that tests/vm/run-v2.sh boots.
#
# Sets the VM up as a systemd-less host is (proc, sysfs, devtmpfs, and only
# cgroup2 on /sys/fs/cgroup, mounted nsdelegate as OpenRC mounts it; init and
# its shell in the root cgroup), then checks the harness's cgroup layer with
# the test-only workloads, as tests/integration/test_coordinator.sh does on
# the host: only v2 exists; the worker cgroups get memory.max, memory.swap.max
# = 0 and cpu.max; memhog is OOM-killed and reported from memory.events;
# SIGINT leaves no worker and no cgroup; a stale cgroup is removed. Then the
# same from a session cgroup that holds processes, and from a container
# (cgroup namespace) set up as containers/entrypoint.sh does it. Last, the VM
# being two sockets and two NUMA nodes: the harness's topology against lscpu
# inside the VM, and --placement numa giving each worker its node's CPUs and
# memory (its cgroup's cpuset files, its /proc/PID/status, result.json).
#
# Check lines ("ok: ..." / "FAIL: ...", then "N passed, N failed", as
# tests/lib.sh) go to the second serial port; the kernel's go to the first.
# Run with an argument (session, container) it is one of those scenarios,
# started by the first run inside the cgroup the scenario needs.

H=/opt/aops/harness
CG=/sys/fs/cgroup
TALLY=/tmp/tally # one line per check: the scenarios run in child processes

pass() { echo "ok: $*"; echo p >>$TALLY; }
fail() { echo "FAIL: $*"; echo f >>$TALLY; }
check() { # check "description" command...
    what=$1
    shift
    if "$@" >/dev/null 2>&1; then pass "$what"; else fail "$what"; fi
}
check_eq() { # check_eq "description" expected actual
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: expected '$2', got '$3'"; fi
}
check_rc() { # check_rc "description" expected: the last h run's status, its stderr if wrong
    if [ "$RC" = "$2" ]; then pass "$1"; else fail "$1: expected $2, got $RC: $(head -3 /tmp/h.err)"; fi
}
info() { echo "# $*"; }

# The harness in the background so its pid (the cgroups' name) is known.
h() {
    # With the guest's uptime, so a stall (once, in a make test: nothing after "plain run
    # exits 1" until the 300 s kill) says whether it was inside a run or between checks.
    info "at $(cut -d' ' -f1 /proc/uptime) s: harness $*"
    "$H" "$@" >/tmp/h.out 2>/tmp/h.err &
    LASTPID=$!
    watchdog $LASTPID &
    WD=$!
    wait $LASTPID
    RC=$?
    kill $WD 2>/dev/null
    wait $WD 2>/dev/null
}
# watchdog PID: a run still going after RUN_LIMIT s is a hang (every run here takes seconds,
# under TCG on a loaded host at most ~20). Once, in a --repeat 5 of the suite, the memhog run
# printed nothing more until the host's 300 s kill, which left no trace of where it was: this
# says, for the harness and each process below it, its state, where the kernel has it waiting
# (wchan, its kernel stack) and its system call, then kills them, so the check fails by name
# and the guest goes on to the next one.
RUN_LIMIT=120
procs_below() { # pid: it and every descendant
    echo "$1"
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do procs_below "$c"; done
}
watchdog() {
    # Its sleep goes with it: a sleep left behind in a scenario's cgroup keeps that cgroup
    # from being removed (the container case's "nothing left of /ctr-1").
    sleep $RUN_LIMIT &
    SL=$!
    trap 'kill $SL 2>/dev/null; exit 0' TERM
    wait $SL
    kill -0 "$1" 2>/dev/null || exit 0
    fail "harness (pid $1) still running after $RUN_LIMIT s: a hang; where its processes wait:"
    for p in $(procs_below "$1"); do
        [ -d "/proc/$p" ] || continue # ended since it was listed
        echo "#   pid $p $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | head -c 120)"
        echo "#     $(grep -E '^(State|Threads)' "/proc/$p/status" 2>/dev/null | tr '\n\t' '  ')"
        echo "#     wchan $(cat "/proc/$p/wchan" 2>/dev/null), syscall $(cat "/proc/$p/syscall" 2>/dev/null)"
        for t in "/proc/$p"/task/*; do
            echo "#     task ${t##*/}: $(cat "$t/wchan" 2>/dev/null); $(tr '\n' '|' 2>/dev/null <"$t/stack" | head -c 300)"
        done
        echo "#     cgroup $(cat "/proc/$p/cgroup" 2>/dev/null)"
    done
    for p in $(procs_below "$1"); do kill -9 "$p" 2>/dev/null; done
}
child_pids() { cat /proc/$1/task/*/children 2>/dev/null; }
alive() { # pids...: how many still run (zombies do not count)
    n=0
    for p in "$@"; do
        [ -e /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status 2>/dev/null && n=$((n + 1))
    done
    echo $n
}
cgs() { find $CG -type d -name "aops-$1-*" | wc -l; } # cgroups of coordinator $1
wait_joined() { # pid n: until n workers of coordinator pid are in their cgroups (60 s)
    i=0
    while [ $i -lt 600 ]; do
        joined=0
        for w in $(child_pids $1); do
            grep -q "aops-$1-" /proc/$w/cgroup 2>/dev/null && joined=$((joined + 1))
        done
        [ $joined -ge $2 ] && return 0
        [ "$(alive $1)" = 0 ] && return 1 # the coordinator gave up
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# A run with --memory-limit 300M --cpus-per-container 0.5, checked while its
# two workers wait in their cgroups; $1 names the scenario. Sets DIR to the
# directory the worker cgroups were made in.
limits() {
    AOPS_SLEEP_US=100000 "$H" --containers 2 --workloads sleep --memory-limit 300M \
        --cpus-per-container 0.5 --out /tmp/lim-$1 --quiet >/tmp/h.out 2>/tmp/h.err &
    P=$!
    DIR=
    if wait_joined $P 2; then
        DIR=$(dirname "$(find $CG -type d -name "aops-$P-0")")
        info "$1: coordinator in $(cut -d: -f3 /proc/$P/cgroup), worker cgroups made in $DIR"
        d=$DIR/aops-$P-1
        check_eq "$1: memory.max = --memory-limit 300M" $((300 * 1048576)) "$(cat $d/memory.max)"
        check_eq "$1: memory.swap.max = 0" 0 "$(cat $d/memory.swap.max)"
        check_eq "$1: cpu.max set by --cpus-per-container 0.5" "50000 100000" "$(cat $d/cpu.max)"
        kids=$(child_pids $P)
        ok=0
        for i in 0 1; do
            procs=$(cat $DIR/aops-$P-$i/cgroup.procs)
            [ "$(echo $procs | wc -w)" = 1 ] && echo "$kids" | tr ' ' '\n' | grep -qx "$procs" &&
                ok=$((ok + 1))
        done
        check_eq "$1: each worker cgroup holds exactly its worker" 2 $ok
    else
        fail "$1: workers not in their cgroups within 60 s: $(head -3 /tmp/h.err)"
    fi
    wait $P
    RC=$?
    check_rc "$1: limited run exits 1 (test-only workloads)" 1
    check "$1: containers[] say the limit includes swap (memory.swap.max written)" \
        jq -e '[.containers[].memory_includes_swap] == [true, true]' /tmp/lim-$1/result.json
    check_eq "$1: no cgroup left after the run" 0 "$(cgs $P)"
}

# ---- scenarios run in a child, inside the cgroup they need --------------------------------
case "${1:-}" in
session)
    # A login session's cgroup (as elogind makes them) holding the shell.
    limits session
    exit 0 # the caller checks that the scenario got here
    ;;
container)
    # Started in /ctr-1 with new cgroup and mount namespaces: mount cgroup2
    # again so it shows this cgroup as its root, as a container runtime does.
    umount $CG && mount -t cgroup2 cgroup2 $CG
    check_eq "container: own cgroup is the namespace root" "0::/" "$(cat /proc/self/cgroup)"
    # As is, the root holds this shell, so it cannot hand controllers down.
    h --containers 1 --workloads sleep --out /tmp/ctr-busy --quiet
    info "container, root holding processes: exit $RC: $(head -1 /tmp/h.err)"
    check "container, root holding processes: refused non-zero in one line" \
        [ "$RC" -ne 0 -a "$(wc -l </tmp/h.err)" -eq 1 ]
    check_eq "container, root holding processes: no cgroup left" 0 "$(cgs $LASTPID)"
    # containers/entrypoint.sh moves the container's processes into a leaf first.
    mkdir -p $CG/init
    for p in $(cat $CG/cgroup.procs); do echo $p >$CG/init/cgroup.procs 2>/dev/null; done
    limits container
    check_eq "container: worker cgroups made beside the leaf, in the namespace root" "$CG" "$DIR"
    mkdir $CG/aops-999999-0
    h --containers 1 --workloads sleep --out /tmp/ctr-stale --quiet
    check "container: stale cgroup in the namespace root removed" [ ! -d $CG/aops-999999-0 ]
    exit 0
    ;;
esac

# ---- PID 1: the VM set up as a systemd-less host ------------------------------------------
/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/bin HOME=/
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 -o nosuid,nodev,noexec,nsdelegate cgroup2 $CG
exec >/dev/ttyS1 2>&1
: >$TALLY
info "kernel $(uname -r), cmdline: $(cat /proc/cmdline)"
info "root cgroup.controllers: $(cat $CG/cgroup.controllers)"

# Only v2 exists.
check_eq "only cgroup2 is mounted (no v1 hierarchy)" "0 1" \
    "$(grep -c ' - cgroup ' /proc/self/mountinfo) $(grep -c ' - cgroup2 ' /proc/self/mountinfo)"
mkdir -p /mnt/v1
check "no v1 memory controller can be mounted (cgroup_no_v1=all)" \
    sh -c '! mount -t cgroup -o memory cgroup /mnt/v1'
check_eq "/proc/self/cgroup holds the v2 line only" "0::/" "$(cat /proc/self/cgroup)"

# A plain run from the root cgroup.
h --containers 4 --cycles 2 --workloads sleep --out /tmp/plain --quiet
R=/tmp/plain/result.json
check_rc "plain run exits 1 (test-only workloads are never valid)" 1
info "at $(cut -d' ' -f1 /proc/uptime) s: plain run's checks"
check_eq "plain run: 4 workers x 2 cycles x 20 ops" 160 "$(jq -r .totals.ops $R)"
check "plain run: each container ran 40 ops, exit 0, not OOM-killed" \
    jq -e '[.containers[] | select(.ops == 40 and .exit_status == 0 and .oom_killed == false)] | length == 4' $R
check_eq "plain run: result says cgroup v2, through libcgroup" "cgroup v2 under $CG (libcgroup)" "$(jq -r .config.cgroups $R)"
check_eq "plain run: no cgroup left" 0 "$(cgs $LASTPID)"

# The limits are in the kernel's files while the workers run.
limits root
check "root: memory and cpu enabled in the root's subtree_control" \
    sh -c "grep -qw memory $CG/cgroup.subtree_control && grep -qw cpu $CG/cgroup.subtree_control"

# The memory limit is real: memhog is OOM-killed by its cgroup, and reported.
h --containers 2 --workloads memhog --memory-limit 96M --out /tmp/oom --quiet
R=/tmp/oom/result.json
check_rc "memhog run exits 1" 1
check "memhog: both containers reported oom_killed" \
    jq -e '[.containers[] | select(.oom_killed == true)] | length == 2' $R
check "memhog: run invalid with the OOM reason" \
    jq -e '.valid == false and (.invalid_reasons | any(test("OOM-killed")))' $R
check "memhog: the kernel's memcg OOM killer killed in aops-$LASTPID-*" \
    sh -c "dmesg | grep -q 'oom_memcg=/aops-$LASTPID-'"
check_eq "memhog: no cgroup left" 0 "$(cgs $LASTPID)"

# SIGINT: 130, nothing left.
AOPS_SLEEP_US=300000 "$H" --containers 3 --workloads sleep --out /tmp/int --quiet \
    >/tmp/h.out 2>/tmp/h.err &
P=$!
wait_joined $P 3 || fail "SIGINT: workers not in their cgroups within 60 s"
W=$(child_pids $P)
sleep 1.5
kill -INT $P
wait $P
RC=$?
check_rc "SIGINT exits 130" 130
check "SIGINT: result written, invalid, interrupted" \
    jq -e '.valid == false and (.invalid_reasons | any(test("interrupted")))' /tmp/int/result.json
check_eq "SIGINT: no worker process left (of $(echo $W | wc -w))" 0 "$(alive $W)"
check_eq "SIGINT: no cgroup left" 0 "$(cgs $P)"

# A stale cgroup of a dead coordinator, beside where the harness makes its
# own, still holding a task: the next run removes it.
mkdir $CG/aops-999999-0
sleep 600 &
S=$!
echo $S >$CG/aops-999999-0/cgroup.procs
h --containers 1 --workloads sleep --out /tmp/stale --quiet
check_rc "stale: run exits 1" 1
check "stale: cgroup aops-999999-0 removed by the next run" [ ! -d $CG/aops-999999-0 ]
check_eq "stale: its leftover task killed" 0 "$(alive $S)"

# From a session cgroup holding processes (the no-internal-processes rule).
mkdir $CG/session-1
sh -c "echo \$\$ >$CG/session-1/cgroup.procs && exec /init session"
check_eq "session: scenario ran to its end" 0 $?
rmdir $CG/session-1

# From a container: cgroup and mount namespaces rooted at /ctr-1 (util-linux
# unshare by its path: busybox's applet would win otherwise, and has no -C).
mkdir $CG/ctr-1
sh -c "echo \$\$ >$CG/ctr-1/cgroup.procs && exec /usr/local/bin/unshare -C -m /init container"
check_eq "container: scenario ran to its end" 0 $?
rmdir $CG/ctr-1/init $CG/ctr-1 2>/dev/null
check "container: nothing left of /ctr-1" [ ! -d $CG/ctr-1 ]

# ---- a real two-node machine: topology and --placement numa ---------------------------------
# qemu gives this VM 2 sockets x 1 core and two NUMA nodes (CPU 0 and CPU 1, 512 MiB each).
# The kernel's own answers are the oracles: lscpu for the topology, each node's cpulist for
# the CPUs a numa placement must give, the workers' /proc/PID/status read from here.
norm() { # renumber columns 2.. of "cpu,a,b,c" lines by first appearance (lscpu's logical ids)
    awk -F, 'BEGIN { OFS = "," } { for (i = 2; i <= NF; i++) { k = i SUBSEP $i
        if (!(k in id)) id[k] = n[i]++; $i = id[k] } print }'
}
info "placement checks from $(cut -d' ' -f1 /proc/uptime) s since boot; lscpu: $(lscpu | grep -E '^(Socket|Core|NUMA node|L3)' | tr -s ' ' | tr '\n' ';')"
"$H" plan --containers 2 --placement numa --json >/tmp/plan.json 2>/tmp/plan.err
check_eq "plan --placement numa on the VM exits 0" 0 $?
# CPU, core, socket, node, L3 per CPU: from the harness's topology, and from lscpu.
jq -r '.topology as $t
  | def members($l): if $l == "" then [] else ($l | split(",") | map(if test("-") then
      (split("-") | map(tonumber)) as [$a, $b] | [range($a; $b + 1)] else [tonumber] end) | add) end;
  members($t.online_cpus)[] as $cpu
  | [($cpu | tostring),
     ([$t.smt_siblings | to_entries[] | select(members(.value) | index([$cpu]) != null) | .key][0] | tostring),
     ([$t.packages | to_entries[] | select(members(.value.cpus) | index([$cpu]) != null) | .key][0] | tostring),
     ([$t.numa_nodes[] | select(members(.cpus) | index([$cpu]) != null) | .id][0] | tostring),
     ([$t.l3 | to_entries[] | select(members(.value.cpus) | index([$cpu]) != null) | .key][0] // "-" | tostring)]
  | join(",")' \
    /tmp/plan.json | norm >/tmp/topo.harness
lscpu -p=CPU,CORE,SOCKET,NODE,CACHE | grep -v '^#' |
    awk -F, 'BEGIN { OFS = "," } { print $1, $2, $3, $4, (NF >= 9 && $9 != "" ? $9 : "-") }' |
    norm >/tmp/topo.lscpu
check_eq "topology (CPU,core,socket,node,L3) = lscpu -p's" "$(cat /tmp/topo.lscpu | tr '\n' ' ')" \
    "$(cat /tmp/topo.harness | tr '\n' ' ')"
check_eq "2 packages, 2 NUMA nodes with memory, as lscpu says" \
    "$(lscpu | awk -F: '/^Socket/ {gsub(/ /, "", $2); s = $2} /^NUMA node\(s\)/ {gsub(/ /, "", $2); n = $2} END {print s, n}')" \
    "$(jq -r '"\(.topology.packages | length) \([.topology.numa_nodes[] | select(.has_memory)] | length)"' /tmp/plan.json)"
for n in 0 1; do
    check_eq "node $n's memory = its meminfo" \
        "$(($(awk '/MemTotal/ {print $4}' /sys/devices/system/node/node$n/meminfo) * 1024))" \
        "$(jq -r ".topology.numa_nodes[$n].memory_bytes" /tmp/plan.json)"
done

# Workers that would sleep for minutes: read while they run, then Ctrl-C (the result is
# written all the same), so the reading never races a worker's end.
AOPS_SLEEP_US=10000000 "$H" --containers 2 --workloads sleep --placement numa --out /tmp/numa \
    --quiet >/tmp/h.out 2>/tmp/h.err &
P=$!
if wait_joined $P 2; then
    for w in $(child_pids $P); do
        i=$(grep -o "aops-$P-[0-9]*" /proc/$w/cgroup | sed "s/aops-$P-//")
        [ -n "$i" ] || continue
        echo "$i $(awk '/^Cpus_allowed_list/ {print $2}' /proc/$w/status) $(awk '/^Mems_allowed_list/ {print $2}' /proc/$w/status) $(cat $CG/aops-$P-$i/cpuset.cpus) $(cat $CG/aops-$P-$i/cpuset.mems)"
    done | sort >/tmp/numa.seen
    info "numa workers (id, Cpus_allowed_list, Mems_allowed_list, cpuset.cpus, cpuset.mems): $(tr '\n' ';' </tmp/numa.seen)"
    for n in 0 1; do
        want="$n $(cat /sys/devices/system/node/node$n/cpulist) $n $(cat /sys/devices/system/node/node$n/cpulist) $n"
        check_eq "worker $n runs on node $n's CPUs and memory only (its /proc/PID/status, its cgroup)" \
            "$want" "$(grep "^$n " /tmp/numa.seen)"
    done
    check "cpuset handed down through the root's subtree_control" grep -qw cpuset $CG/cgroup.subtree_control
else
    fail "numa: workers not in their cgroups within 60 s: $(head -3 /tmp/h.err)"
fi
kill -INT $P
wait $P
RC=$?
check_rc "numa run stopped by SIGINT exits 130" 130
R=/tmp/numa/result.json
check "numa: containers[].cpus, mems = what each worker read of itself" \
    jq -e '[.containers[] | select(.cpus == .cpus_allowed and .mems == .mems_allowed)] | length == 2' $R
for n in 0 1; do
    check_eq "numa: container $n placed on node $n (result.json)" \
        "$(cat /sys/devices/system/node/node$n/cpulist) $n" "$(jq -r ".containers[$n] | \"\(.cpus) \(.mems)\"" $R)"
done
check "numa: the plan is what ran" jq -e --slurpfile p /tmp/plan.json \
    '[.containers[] | {cpus, mems}] == [$p[0].containers[] | {cpus, mems}]' $R
check "numa: no reason says the cpuset was not applied" jq -e '.invalid_reasons | all(test("cpuset") | not)' $R
check_eq "numa: no cgroup left" 0 "$(cgs $P)"
jq -c '[.containers[] | {id, cpus, mems, cpus_allowed, mems_allowed}]' $R | sed 's/^/# workers saw: /'

info "guest time $(cut -d' ' -f1 /proc/uptime) s since boot"
echo "$(grep -c p $TALLY) passed, $(grep -c f $TALLY) failed"
sync
poweroff -f
