#!/usr/bin/env bash
# The coordinator on its own, with the test-only workloads: the memory limit
# is enforced and reported, crashes, stalls and signals end the run invalid
# with everything measured so far written, and nothing is left behind (no
# worker process, no cgroup). Bad input exits 2 with one line.
source "$(dirname "$0")/../lib.sh"

# Runs the harness in the background so its pid (the cgroups' name) is known:
# sets RC and LASTPID. Other harness runs on the machine are left out of counts.
h() { # LAST_SECONDS: the command's time by a clock outside it
    local t0 t1
    t0=$(date +%s.%N)
    "$HARNESS" "$@" >"$TMP/h.out" 2>"$TMP/h.err" &
    LASTPID=$!
    wait $LASTPID
    RC=$?
    t1=$(date +%s.%N)
    LAST_SECONDS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
}
cg_count() { # cgroups left by the last run, anywhere under the cgroup mounts
    find /sys/fs/cgroup -maxdepth 5 -type d -name "aops-$LASTPID-*" 2>/dev/null | wc -l
}
workers_left() { pgrep -f "$HARNESS .*--out $TMP" | wc -l; }
# Timing is never luck here: a step that needs the run in some state waits
# for that state, seen from outside (processes, cgroup files, /metrics), up
# to a deadline a loaded machine does not reach, and fails saying which.
wait_until() { # wait_until COMMAND...: 0 once it holds, 1 when it did not within 30 s
    local end=$((SECONDS + 30))
    until "$@"; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.05
    done
}
ops_done() { # operations completed so far by the run serving /metrics on port $1
    curl -s --max-time 2 "http://127.0.0.1:$1/metrics" | awk '/^aops_operations_total/ { s += $2 } END { print s + 0 }'
}
running_with_ops() { # pid workers port: the run is alive, has its workers, and has done an operation
    kill -0 "$1" 2>/dev/null && [ "$(pgrep -c -P "$1")" -ge "$2" ] && [ "$(ops_done "$3")" -gt 0 ]
}
sig_pending() { # pid signo: the signal waits, blocked, in the process's shared pending set
    local m
    m=$(awk '/^ShdPnd:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
    [ -n "$m" ] && (((16#$m >> ($2 - 1)) & 1))
}

# A plain run: counts, AOPS arithmetic, containers, windows.
h --containers 4 --cycles 2 --workloads sleep --out "$TMP/plain" --quiet
R=$TMP/plain/result.json
check_eq "ops = 4 workers x 2 cycles x 20" 160 "$(jq -r .totals.ops $R)"
check_eq "no errors" 0 "$(jq -r .totals.errors $R)"
check_eq "4 containers reported" 4 "$(jq -r '.containers|length' $R)"
# 2 cycles x 20 sleeps of 1 ms each: at least 40 ms, and within the clock around the command.
check "wall_seconds >= 40 sleeps of 1 ms and <= the command's own time" \
    jq -e --argjson c "$LAST_SECONDS" '.totals.wall_seconds >= 0.040 and .totals.wall_seconds <= $c' $R
check "per-core aops = aops / physical cores" jq -e '(.totals.aops_per_core * .system.physical_cores - .totals.aops | fabs) < 1e-6 * .totals.aops' $R
check "each container ran 40 ops and exited 0" jq -e '[.containers[] | select(.ops == 40 and .exit_status == 0 and .oom_killed == false)] | length == 4' $R
check "sleep latency about 1 ms" jq -e '.workloads.sleep.latency_ms.p50 > 0.9 and .workloads.sleep.latency_ms.p50 < 50' $R
check "window recorded" jq -e '.windows.sleep.start >= 0 and .windows.sleep.end <= .totals.wall_seconds + 1e-9' $R
check "test workloads make a run invalid" jq -e '.valid == false and (.invalid_reasons | any(test("test-only")))' $R
check "schema version" jq -e '.schema_version == 3' $R
check_eq "no cgroup left after a run" 0 "$(cg_count)"

# --no-cgroups: no cgroup made, said in the warnings.
h --containers 2 --workloads sleep --no-cgroups --out "$TMP/nocg" --quiet
check "--no-cgroups recorded as a warning" jq -e '(.warnings | any(test("--no-cgroups"))) and .config.memory_limit_bytes == null and .totals.ops == 40' "$TMP/nocg/result.json"
check_eq "--no-cgroups made no cgroup" 0 "$(cg_count)"

# The memory limit is real: memhog gets OOM-killed and reported.
h --containers 2 --workloads memhog --memory-limit 96M --out "$TMP/oom" --quiet
rc=$RC
R=$TMP/oom/result.json
check_eq "OOM run exits 1" 1 "$rc"
check "both containers oom_killed" jq -e '[.containers[] | select(.oom_killed == true)] | length == 2' $R
check "OOM named in the reasons" jq -e '.invalid_reasons | any(test("OOM-killed"))' $R
check "what ran before the kill is kept" jq -e '.totals.ops >= 1' $R
check_eq "no cgroup left after OOM" 0 "$(cg_count)"

# The limits are in the kernel's files while the workers run (v1 or v2).
AOPS_SLEEP_US=100000 "$HARNESS" --containers 2 --workloads sleep --memory-limit 300M --cpus-per-container 0.5 --out "$TMP/lim" --quiet >/dev/null 2>&1 &
LASTPID=$!
two_workers() { [ "$(pgrep -c -P $LASTPID)" = 2 ]; }
wait_until two_workers || fail "limits: the test's own precondition: the run's 2 workers never seen within 30 s"
mem=$(find /sys/fs/cgroup -maxdepth 5 -type d -name "aops-$LASTPID-1" | xargs -I{} sh -c 'cat {}/memory.limit_in_bytes {}/memory.max 2>/dev/null' | head -1)
cpu=$(find /sys/fs/cgroup -maxdepth 5 -type d -name "aops-$LASTPID-1" | xargs -I{} sh -c 'cat {}/cpu.cfs_quota_us {}/cpu.max 2>/dev/null' | head -1)
swap=$(find /sys/fs/cgroup -maxdepth 5 -type d -name "aops-$LASTPID-1" | xargs -I{} sh -c 'cat {}/memory.memsw.limit_in_bytes {}/memory.swap.max 2>/dev/null' | head -1)
check_eq "memory limit set in the worker's cgroup" $((300 * 1048576)) "$mem"
check_contains "CPU limit set in the worker's cgroup" 50000 "$cpu"
# 2 workers: one cgroup each on v2, one per controller hierarchy on v1.
check "cg_count sees the running workers' cgroups (so its 0s below mean something)" test "$(cg_count)" -ge 2
wpid=$(pgrep -P $LASTPID | head -1)
check "a worker is in its own cgroup" grep -q "aops-$LASTPID-" /proc/$wpid/cgroup
wait $LASTPID
check_eq "no cgroup left after a limited run" 0 "$(cg_count)"
# Swap: the limit holds RAM plus swap where the kernel accounts swap (v1
# memsw equal to the limit, v2 swap.max 0), and the result says which.
if [ -n "$swap" ]; then
    check "swap limited in the worker's cgroup ($swap)" test "$swap" = $((300 * 1048576)) -o "$swap" = 0
    check "containers[] say the limit includes swap" jq -e '[.containers[].memory_includes_swap] == [true, true]' "$TMP/lim/result.json"
else
    check "no swap accounting: containers[] say the limit is RAM only" jq -e '[.containers[].memory_includes_swap] == [false, false]' "$TMP/lim/result.json"
    if [ "$(wc -l </proc/swaps)" -gt 1 ]; then
        check "and with swap active, a warning says so" jq -e '.warnings | any(test("RAM only: swap is active"))' "$TMP/lim/result.json"
    fi
fi

# A crash: reported with its signal, the others go on.
AOPS_TEST_CRASH_WORKER=1 h --containers 3 --workloads sleep --out "$TMP/crash" --quiet
R=$TMP/crash/result.json
check "crash reported with its signal" jq -e '.containers[1].signal == "SIGSEGV" and (.invalid_reasons | any(test("container 1 crashed: Segmentation fault")))' $R
check "the others finished" jq -e '.containers[0].ops == 20 and .containers[2].ops == 20' $R
check_eq "no cgroup left after a crash" 0 "$(cg_count)"

# A stall: no progress for --stall-timeout ends the run, never hangs.
t0=$(date +%s)
AOPS_TEST_HANG_WORKER=0 timeout 60 "$HARNESS" --containers 2 --workloads sleep --stall-timeout 2 --out "$TMP/stall" --quiet >/dev/null 2>&1
rc=$?
check_eq "stall exits 1" 1 "$rc"
check "stall ends within 20 s" [ $(( $(date +%s) - t0 )) -lt 20 ]
check "stall named" jq -e '.invalid_reasons | any(test("^stall: no operation completed for 2 s"))' $TMP/stall/result.json
check_eq "no worker left after a stall" 0 "$(workers_left)"

# Ctrl-C and SIGTERM: 130, partial results, valid false, nothing left.
for sig in INT TERM; do
    # /metrics says when an operation has been done: the partial figures below need one.
    mport=$(free_port 9810)
    AOPS_SLEEP_US=300000 "$HARNESS" --containers 3 --workloads sleep --metrics-listen "127.0.0.1:$mport" \
        --metrics-linger 0 --out "$TMP/sig$sig" --quiet >/dev/null 2>"$TMP/sig$sig.err" &
    pid=$!
    LASTPID=$pid
    wait_until running_with_ops $pid 3 "$mport" ||
        fail "SIG$sig: the test's own precondition: within 30 s the run never had 3 workers and an operation done (workers $(pgrep -c -P $pid), ops $(ops_done "$mport"), $(head -1 "$TMP/sig$sig.err"))"
    check "SIG$sig: workers_left sees the running workers (so its 0 below means something)" test "$(workers_left)" -ge 3
    kill -$sig $pid
    wait $pid
    rc=$?
    R=$TMP/sig$sig/result.json
    check_eq "SIG$sig exits 130" 130 "$rc"
    check "SIG$sig: partial figures written, invalid" jq -e '.valid == false and .totals.ops > 0 and .totals.ops < 60 and (.invalid_reasons | any(test("interrupted")))' $R
    check_eq "SIG$sig: no worker left" 0 "$(workers_left)"
    check_eq "SIG$sig: no cgroup left" 0 "$(cg_count)"
done

# A second Ctrl-C while the run is being torn down: the signals stay blocked
# until everything is removed, so nothing is left. To hold the teardown open
# long enough to be hit, a process of this test is put into worker 0's
# memory cgroup and frozen (v1 freezer: a frozen task outlives SIGKILL until
# thawed), so the cgroup's removal waits for it; it is thawed after the
# second signal. The second is SIGTERM: a background job of a script has
# SIGINT ignored (a Ctrl-C at a terminal is not), and SIGTERM stops a run
# the same way.
FZ=/sys/fs/cgroup/freezer/aops-test-$$
if [ -d /sys/fs/cgroup/freezer ] && [ -d /sys/fs/cgroup/memory ] && mkdir -p "$FZ"; then
    AOPS_SLEEP_US=300000 "$HARNESS" --containers 2 --workloads sleep --out "$TMP/sig2" --quiet >/dev/null 2>&1 &
    pid=$!
    LASTPID=$pid
    # Each signal is sent once the state it is meant to hit has been seen, never after a sleep.
    w0_ready() {
        w0=$(find /sys/fs/cgroup/memory -maxdepth 6 -type d -name "aops-$pid-0" 2>/dev/null | head -1)
        [ -n "$w0" ] && [ "$(pgrep -c -P $pid)" = 2 ]
    }
    frozen() { [ "$(cat "$FZ/freezer.state" 2>/dev/null)" = FROZEN ]; }
    # In the teardown: the result is written, the workers are reaped, and the
    # coordinator is still there, held by the frozen task in worker 0's cgroup.
    in_teardown() { [ -s "$TMP/sig2/result.json" ] && [ "$(pgrep -c -P $pid)" = 0 ] && [ -d "/proc/$pid" ] && [ -d "$w0" ]; }
    term_seen() { sig_pending $pid 15 || ! [ -d "/proc/$pid" ]; }
    wait_until w0_ready || fail "second stop signal: the test's own precondition: worker 0's memory cgroup and 2 workers never seen within 30 s"
    sleep 60 &
    hostage=$!
    echo $hostage >"$w0/cgroup.procs"
    echo $hostage >"$FZ/cgroup.procs"
    echo FROZEN >"$FZ/freezer.state"
    wait_until frozen || fail "second stop signal: the test's own precondition: the hostage's freezer never reached FROZEN within 30 s"
    kill -INT $pid
    wait_until in_teardown || fail "second stop signal: the test's own precondition: the run never reached its held-open teardown (result written, workers gone) within 30 s"
    kill -TERM $pid # in the teardown, waiting for the frozen task to leave the cgroup
    # Blocked while the teardown runs: it waits pending, where it can be seen, until the end.
    wait_until term_seen || fail "second stop signal: SIGTERM neither pending nor fatal within 30 s"
    echo THAWED >"$FZ/freezer.state"
    wait $pid
    rc=$?
    kill -9 $hostage 2>/dev/null; wait $hostage 2>/dev/null
    rmdir "$FZ"
    check_eq "second stop signal during teardown: exits 130" 130 "$rc"
    check "second stop signal: the result was written" jq -e '.valid == false and (.invalid_reasons | any(test("interrupted")))' "$TMP/sig2/result.json"
    check_eq "second stop signal: no cgroup left (accounting included)" 0 "$(cg_count)"
    check_eq "second stop signal: no worker left" 0 "$(pgrep -c -P $pid)"
else
    fail "cannot hold a teardown open: no v1 freezer and memory hierarchies to freeze a task in"
fi

# Workers that finished every operation but exit slowly (hundreds of
# containers torn down) are no stall: the run is complete.
AOPS_TEST_SLOW_EXIT_MS=2500 h --containers 2 --workloads sleep --stall-timeout 1 --out "$TMP/slowexit" --quiet
R=$TMP/slowexit/result.json
check_eq "slow exits: every operation counted" 40 "$(jq -r .totals.ops $R)"
check "slow exits: no stall reason" jq -e '[.invalid_reasons[] | select(test("stall"))] | length == 0' $R
check "slow exits: the only reason is the test-only workload" jq -e '.invalid_reasons | length == 1' $R
check_eq "slow exits: no cgroup left" 0 "$(cg_count)"

# Two runs started in the same second get two directories; an existing
# result is never overwritten without --force. The default directories of
# the next seconds are made first (as another run of this second would), so
# the clash is certain.
now=$(date +%s); taken=()
for k in 0 1 2 3 4 5; do
    t=$ROOT/results/$(date -d "@$((now + k))" +%Y%m%d-%H%M%S)
    [ -e "$t" ] || { mkdir -p "$t" && touch "$t/other-run" && taken+=("$t"); }
done
"$HARNESS" --containers 1 --workloads sleep --quiet >"$TMP/same1.out" 2>&1 &
p1=$!
"$HARNESS" --containers 1 --workloads sleep --quiet >"$TMP/same2.out" 2>&1 &
p2=$!
wait $p1; wait $p2
d1=$(sed -n 's/^  results: \(.*\)\/result.json$/\1/p' "$TMP/same1.out")
d2=$(sed -n 's/^  results: \(.*\)\/result.json$/\1/p' "$TMP/same2.out")
check "two runs started together: two run directories ($d1, $d2)" test -n "$d1" -a -n "$d2" -a "$d1" != "$d2"
check_eq "each wrote its own result" "20 20" "$(jq -r .totals.ops "$d1/result.json") $(jq -r .totals.ops "$d2/result.json")"
clash=0; for t in "${taken[@]}"; do [ -e "$t/result.json" ] && clash=$((clash + 1)); done
check_eq "neither wrote into a directory that existed (${#taken[@]} made)" 0 "$clash"
for d in "$d1" "$d2" "${taken[@]}"; do case "$d" in "$ROOT"/results/?*) rm -rf "$d" ;; esac; done
before=$(sha256sum "$TMP/plain/result.json")
out=$("$HARNESS" --containers 1 --workloads sleep --out "$TMP/plain" --quiet 2>&1 >/dev/null)
check_eq "--out holding a result: refused, exit 2" 2 "$?"
check_contains "and said in one line, with --force" "holds a result already" "$out"
check_eq "the result there untouched" "$before" "$(sha256sum "$TMP/plain/result.json")"
h --containers 1 --workloads sleep --out "$TMP/plain" --quiet --force
check_eq "--force replaces it" 20 "$(jq -r .totals.ops "$TMP/plain/result.json")"

# A worker that cannot open its workload stops the run before the barrier.
AOPS_TEST_OPEN_FAIL=1 "$HARNESS" --containers 2 --workloads sleep --out "$TMP/openfail" --quiet >"$TMP/of.out" 2>"$TMP/of.err"
check_eq "open failure exits 1" 1 $?
check_contains "open failure said in one line" "sleep: test workload told to fail at open" "$(head -1 $TMP/of.err)"
check "open failure result invalid" jq -e '.valid == false and .totals.wall_seconds == null' $TMP/openfail/result.json

# A cgroup left by a crashed coordinator is removed by the next run.
if [ -d /sys/fs/cgroup/memory ]; then
    own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
    stale=/sys/fs/cgroup/memory${own%/}/aops-999999-0
else
    own=$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)
    stale=/sys/fs/cgroup${own%/}/aops-999999-0
fi
mkdir -p "$stale"
if [ -d "$stale" ]; then
    h --containers 1 --workloads sleep --out "$TMP/stale" --quiet
    check "stale cgroup of a dead coordinator removed" [ ! -d "$stale" ]
else
    fail "could not make the stale cgroup $stale to test its removal"
fi

# Bad input: exit 2, one line, nothing started.
for args in "--containers 0" "--containers -3" "--containers 1000000" "--memory-limit 1M --containers 1" \
            "--containers 1 --frobnicate" "--containers 1 --profile huge" "--containers 1 --out /proc/nope"; do
    out=$("$HARNESS" $args --workloads sleep 2>&1 >/dev/null)
    rc=$?
    check_eq "'$args' exits 2" 2 "$rc"
    check_eq "'$args' says so in one line" 1 "$(printf '%s\n' "$out" | wc -l)"
done

# A progress line on a terminal, none when stdout is not one or with --quiet.
out=$(AOPS_SLEEP_US=20000 script -qec "$HARNESS --containers 2 --workloads sleep --out $TMP/tty" /dev/null)
check_contains "progress line on a TTY" "40 / 40 operations" "$out"
out=$(AOPS_SLEEP_US=20000 script -qec "$HARNESS --containers 2 --workloads sleep --quiet --out $TMP/tty2" /dev/null)
check_lacks "no progress line with --quiet" 'AOPS so far' "$out"
out=$(AOPS_SLEEP_US=20000 "$HARNESS" --containers 2 --workloads sleep --out $TMP/notty 2>/dev/null)
check_lacks "no progress line when stdout is not a TTY" 'AOPS so far' "$out"

# A sweep: one point after another into one run directory, and its report.
h --containers 1,3 --workloads sleep --out "$TMP/sweep" --quiet
check "sweep.json lists both points" jq -e '[.points[].containers] == [1,3]' "$TMP/sweep/sweep.json"
check_eq "sweep point 3 ran 3 containers" 60 "$(jq -r .totals.ops $TMP/sweep/points/3/result.json)"
check_eq "sweep point 1 ran 1 container" 20 "$(jq -r .totals.ops $TMP/sweep/points/1/result.json)"
"$HARNESS" report "$TMP/sweep" >/dev/null 2>&1
check "sweep report rendered" grep -q 'data-chart' "$TMP/sweep/report.html"

# Scale: 1,024 workers of the trivial workload launch, run and finish.
h --containers 1024 --workloads sleep --memory-limit 64M --out "$TMP/scale" --quiet
check_eq "1,024 workers: all ops done" 20480 "$(jq -r .totals.ops $TMP/scale/result.json)"
check_eq "1,024 workers: no cgroup left" 0 "$(cg_count)"
finish
