#!/usr/bin/env bash
# --runtime docker against a real Docker engine (started here when none
# answers, stopped again after; an engine that cannot start is a failure with
# its error, never a skip) and the real local stack: a valid tiny run with
# exact counts, each worker a container with the memory limit in `docker
# inspect`, an OOM-killed worker reported as such, a crash reported with its
# signal, Ctrl-C leaving no container, and the containers of a coordinator
# killed with SIGKILL removed by the next run.
source "$(dirname "$0")/../lib.sh"
IMAGE=${AOPS_IMAGE:-aops-harness:local}

started=0
if ! timeout 10 docker info >/dev/null 2>&1; then
    if out=$("$ROOT/scripts/docker" up 2>&1); then
        started=1
    else
        fail "the Docker engine cannot start: $out"
        finish
    fi
fi
stop_engine() { [ $started = 1 ] && "$ROOT/scripts/docker" down >/dev/null 2>&1; started=0; }
trap 'stop_engine; rm -rf "$TMP"' EXIT
if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
    # First use on this machine (make test's setup builds it before the suite too).
    if [ "$IMAGE" != aops-harness:local ] || ! { "$ROOT/scripts/docker" base && "$ROOT/scripts/docker" images; } >"$TMP/images.log" 2>&1; then
        fail "image $IMAGE is missing and could not be built (scripts/docker images): $(tail -n 3 "$TMP/images.log" 2>/dev/null)"
        finish
    fi
fi
# Containers this test made and left: those not there before it started (stale
# ones of an earlier killed run may be there, and the first run removes them).
docker ps -aq --no-trunc --filter label=aops.harness=1 | sort >"$TMP/before"
ours() { docker ps -aq --no-trunc --filter label=aops.harness=1 | sort | comm -13 "$TMP/before" - | wc -l; }
# A step that needs the run in some state waits for that state, seen from
# outside (the engine's containers, the run's /metrics), up to 30 s, and says
# which precondition never held; never a fixed sleep a loaded box outlasts.
running() { [ "$(docker ps -q --filter "label=aops.run=$1@$(hostname)" | wc -l)" -ge "$2" ]; }
ops_done() { # operations completed so far by the run serving /metrics on port $1
    curl -s --max-time 2 "http://127.0.0.1:$1/metrics" | awk '/^aops_operations_total/ { s += $2 } END { print s + 0 }'
}
wait_for() { # wait_for DESCRIPTION COMMAND...: fails naming DESCRIPTION when it did not hold within 30 s
    local what=$1 end=$((SECONDS + 30))
    shift
    until "$@"; do
        [ $SECONDS -lt $end ] || { fail "the test's own precondition: $what, not seen within 30 s"; return 1; }
        sleep 0.2
    done
}

# A valid tiny run, every worker a container. Its corpus is in a directory
# with ':' in its name (a bind mount has no separator to split it on); and
# /dev/shm holds what a local user could plant for it: a directory of the
# coordinator's pid (known here: the shell that execs it) owned by nobody,
# with its credentials and slots linked to files of theirs, a stale-looking
# run directory that is a link to a directory of theirs, and cgroup parents
# of a dead coordinator with no run directory at all.
CO="$TMP/co:rpus"
"$HARNESS" corpus fetch --profile tiny --dir "$CO" >/dev/null 2>&1 || fail "corpus fetch --profile tiny"
"$HARNESS" prepare --containers 3 --profile tiny --corpus "$CO" >/dev/null 2>&1 || fail "prepare --profile tiny"
mkdir -p "$TMP/victim"; touch "$TMP/victim/credentials" "$TMP/leak" "$TMP/leak-slots"
chown nobody "$TMP/leak" "$TMP/leak-slots" "$TMP/victim"
ln -sfn "$TMP/victim" /dev/shm/aops-4194301-planted
stale_cg=()
for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
    [ -e "$h/cgroup.procs" ] && mkdir -p "$h/aops-4194302-docker" && stale_cg+=("$h/aops-4194302-docker")
done
bash -c 'd=/dev/shm/aops-$$; mkdir -p $d; ln -s "$1" $d/credentials; ln -s "$2" $d/slots
         chown -h nobody $d $d/credentials $d/slots; echo $$ >"$3"; shift 3; exec "$@"' _ \
    "$TMP/leak" "$TMP/leak-slots" "$TMP/planted.pid" \
    "$HARNESS" --runtime docker --containers 3 --profile tiny --corpus "$CO" --out "$TMP/run" --quiet >"$TMP/run.log" 2>&1
rc=$?
planted=/dev/shm/aops-$(cat "$TMP/planted.pid")
R=$TMP/run/result.json
check_eq "a planted run directory's credentials link received nothing" 0 "$(stat -c %s "$TMP/leak")"
check_eq "nor its slots link" 0 "$(stat -c %s "$TMP/leak-slots")"
check "the other user's directory is left to them" test -d "$planted" -a -L "$planted/credentials"
check "a planted link to a directory is not followed by the stale sweep" test -e "$TMP/victim/credentials"
check "no secret on the run's output" bash -c "! grep -qF \"\$(sed -n 's/^AWS_SECRET_ACCESS_KEY=//p' '$ROOT/.local/stack/credentials')\" '$TMP/run.log'"
left=0; for d in "${stale_cg[@]}"; do [ -d "$d" ] && left=$((left + 1)); done
check_eq "a dead coordinator's cgroup parents removed, run directory or not (${#stale_cg[@]} made)" 0 "$left"
rm -rf "$planted" /dev/shm/aops-4194301-planted
for d in "${stale_cg[@]}"; do rmdir "$d" 2>/dev/null; done
check_eq "docker run exits 0 ($(tail -2 "$TMP/run.log" | tr '\n' ' '))" 0 "$rc"
check "valid" jq -e '.valid == true' "$R"
check_eq "3 x 1,340 operations" 4020 "$(jq -r .totals.ops "$R")"
check_eq "config.runtime" docker "$(jq -r .config.runtime "$R")"
check "each container has its runtime id and exited 0" jq -e '[.containers[] | select((.runtime_id | length) == 64 and .exit_status == 0 and .oom_killed == false and .ops == 1340)] | length == 3' "$R"
check_eq "no container left after a run" 0 "$(ours)"
# created and started over min(--engine-connections 16, 3) connections, each request timed
check "coordinator.launch: 3 containers over 3 connections, each create and start timed" \
    jq -e '.coordinator.launch | .containers == 3 and .connections == 3 and .seconds > 0 and
           .create_ms.median > 0 and .start_ms.max >= .start_ms.median and .start_ms.median > 0' "$R"
check "config.docker.engine_connections is the default, 16" jq -e '.config.docker.engine_connections == 16' "$R"
out=$(/usr/bin/python3 "$ROOT/tests/schema/validate.py" "$R" 2>&1)
check_eq "the docker run's result validates against result.schema.json ($out)" "" "$out"
check "attribution: the workers' CPU read from the containers' common cgroup" \
    jq -e '.attribution.run.workers.cpu_s > 0 and (.attribution_sources.workers | test("aops-[0-9]+-docker"))' "$R"
check "and that cgroup removed after the run" bash -c "! ls -d /sys/fs/cgroup/*/aops-*-docker /sys/fs/cgroup/aops-*-docker 2>/dev/null | grep -q ."

# A server the stack did not start, running as a container: found by name.
docker run -d --rm --name aops-test-minio --network host "$IMAGE" sleep 120 >/dev/null
mkdir -p "$TMP/no-stack"
AOPS_STACK_DIR=$TMP/no-stack "$HARNESS" --runtime docker --containers 1 --workloads sleep --out "$TMP/srv" --quiet >/dev/null 2>&1
check "a server container found by name for attribution" \
    jq -e '.attribution_sources.minio | test("docker container /aops-test-minio")' "$TMP/srv/result.json"
docker rm -f aops-test-minio >/dev/null 2>&1

# The limits are the engine's own while the workers run.
AOPS_SLEEP_US=200000 "$HARNESS" --runtime docker --containers 2 --workloads sleep --memory-limit 200M \
    --cpus-per-container 0.5 --engine-connections 1 --out "$TMP/lim" --quiet >/dev/null 2>&1 &
pid=$!
wait_for "limits: the run's 2 containers running" running $pid 2
id=$(docker ps -q --filter "label=aops.run=$pid@$(hostname)" | head -1)
if [ -n "$id" ]; then
    check_eq "docker inspect: Memory = --memory-limit" $((200 * 1048576)) "$(docker inspect -f '{{.HostConfig.Memory}}' "$id")"
    check_eq "docker inspect: no swap (MemorySwap = Memory)" $((200 * 1048576)) "$(docker inspect -f '{{.HostConfig.MemorySwap}}' "$id")"
    check_eq "docker inspect: NanoCpus from --cpus-per-container" 500000000 "$(docker inspect -f '{{.HostConfig.NanoCpus}}' "$id")"
    check_eq "docker inspect: the network (host)" host "$(docker inspect -f '{{.HostConfig.NetworkMode}}' "$id")"
    docker inspect "$id" >"$TMP/inspect.json"
    check "docker inspect gave the container (so the checks below mean something)" jq -e '.[0].Config.Env | length > 0' "$TMP/inspect.json"
    for key in AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY MARIADB_PASSWORD; do
        v=$(sed -n "s/^$key=//p" "$ROOT/.local/stack/credentials")
        check "no $key in the container's environment, command or anything docker inspect shows" \
            bash -c "[ \${#1} -ge 8 ] && ! grep -qF -- \"\$1\" '$TMP/inspect.json'" _ "$v"
    done
else
    fail "the running workers' containers were never seen"
fi
wait $pid
check_eq "no container left after a limited run" 0 "$(ours)"
check "--engine-connections 1: one connection, both containers" \
    jq -e '.coordinator.launch | .connections == 1 and .containers == 2' "$TMP/lim/result.json"
check_eq "containers[] say whether the limit holds swap, as the engine's SwapLimit" \
    "$(docker info -f '{{.SwapLimit}}') $(docker info -f '{{.SwapLimit}}')" \
    "$(jq -r '[.containers[].memory_includes_swap] | map(tostring) | join(" ")' "$TMP/lim/result.json")"

# The memory limit is real: memhog gets OOM-killed, and the engine says so.
"$HARNESS" --runtime docker --containers 2 --workloads memhog --memory-limit 96M --out "$TMP/oom" --quiet >/dev/null 2>&1
check_eq "OOM run exits 1" 1 "$?"
check "both containers oom_killed (State.OOMKilled)" jq -e '[.containers[] | select(.oom_killed == true)] | length == 2' "$TMP/oom/result.json"
check "OOM named in the reasons" jq -e '.invalid_reasons | any(test("OOM-killed"))' "$TMP/oom/result.json"

# A crash: its signal, the others go on.
AOPS_TEST_CRASH_WORKER=1 "$HARNESS" --runtime docker --containers 3 --workloads sleep --out "$TMP/crash" --quiet >/dev/null 2>&1
check "crash reported with its signal" jq -e '.containers[1].signal == "SIGSEGV" and .containers[0].ops == 20 and .containers[2].ops == 20' "$TMP/crash/result.json"
check_eq "no container left after a crash" 0 "$(ours)"

# Ctrl-C: 130, what ran is kept, no container left.
# The partial figures below need an operation done: /metrics says when.
mport=$(free_port 19310)
AOPS_SLEEP_US=300000 "$HARNESS" --runtime docker --containers 3 --workloads sleep --metrics-listen "127.0.0.1:$mport" \
    --metrics-linger 0 --out "$TMP/int" --quiet >/dev/null 2>&1 &
pid=$!
int_ready() { running $pid 3 && [ "$(ops_done $mport)" -gt 0 ]; }
wait_for "SIGINT: 3 containers running and an operation done" int_ready
kill -INT $pid
wait $pid
check_eq "SIGINT exits 130" 130 "$?"
check "SIGINT: partial figures, invalid" jq -e '.valid == false and .totals.ops > 0 and (.invalid_reasons | any(test("interrupted")))' "$TMP/int/result.json"
check_eq "SIGINT: no container left" 0 "$(ours)"
check "SIGINT: no run directory left in /dev/shm" bash -c "! ls -d /dev/shm/aops-$pid-* 2>/dev/null"

# A coordinator killed outright leaves its containers; the next run removes them.
AOPS_SLEEP_US=500000 "$HARNESS" --runtime docker --containers 2 --workloads sleep --out "$TMP/dead" --quiet >/dev/null 2>&1 &
pid=$!
wait_for "SIGKILL: the run's 2 containers running" running $pid 2
kill -9 $pid
wait $pid 2>/dev/null
dead_dirs=$(ls -d /dev/shm/aops-$pid-* 2>/dev/null)
check "the killed coordinator's containers are there" test "$(docker ps -aq --filter "label=aops.run=$pid@$(hostname)" | wc -l)" -ge 1
"$HARNESS" --runtime docker --containers 1 --workloads sleep --out "$TMP/next" --quiet >/dev/null 2>&1
check_eq "stale containers removed by the next run" 0 "$(docker ps -aq --filter "label=aops.run=$pid@$(hostname)" | wc -l)"
check "the killed coordinator's run directory was there" test -n "$dead_dirs"
check "stale run directory removed by the next run" bash -c "! ls -d /dev/shm/aops-$pid-* 2>/dev/null"
check "and its cgroup parents" bash -c "! ls -d /sys/fs/cgroup/*/aops-$pid-docker /sys/fs/cgroup/aops-$pid-docker 2>/dev/null"

# Bad input: a clear line, nothing started.
err=$("$HARNESS" --runtime docker --image aops-no-such-image:x --containers 1 --workloads sleep --out "$TMP/bad" 2>&1 >/dev/null)
check_contains "a missing image is named, with how to build one" "no such image" "$err"
err=$("$HARNESS" --runtime docker --docker-host /nonexistent.sock --containers 1 --workloads sleep --out "$TMP/bad2" 2>&1 >/dev/null)
check_contains "an engine that is not there is said so" "cannot reach the Docker engine at /nonexistent.sock" "$err"
check_eq "and no container was made" 0 "$(ours)"
# A create the engine refuses, in the pool (more CPUs than this machine has): one line naming
# the worker and the engine's reason, the result written invalid, nothing left, no hang.
cpus=$(($(nproc) * 2 + 2))
timeout 120 "$HARNESS" --runtime docker --containers 6 --workloads sleep --engine-connections 3 \
    --cpus-per-container "$cpus" --out "$TMP/refused" --quiet >"$TMP/refused.log" 2>&1
check_eq "a create the engine refuses: exit 1 (not a hang: 124)" 1 "$?"
check "... naming the worker and the engine's reason" grep -q "cannot create the container of worker [0-9]*: .*CPU" "$TMP/refused.log"
check "... the result written, invalid, with that reason" \
    jq -e '.valid == false and any(.invalid_reasons[]; test("cannot create the container"))' "$TMP/refused/result.json"
check_eq "... and no container left" 0 "$(ours)"
finish
