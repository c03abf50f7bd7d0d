#!/usr/bin/env bash
# --server-cpus with --server-pid (issue 35): only the server named is ever pinned. PID 1, a
# process that is not the server (a `sleep` named as minio) and the harness's own tree (the
# shell that runs it) are refused with one line and exit 2 before anything runs. A run that
# pins a process called minio and is SIGKILLed leaves it pinned, and a record in the stack
# dir; the next run gives the process its own affinity back (taskset shows the mask it had
# before) and says so in one line; a recorded pid whose start time no longer matches (reused)
# is left alone. Needs the stack (MinIO serves the run's GETs; the process pinned is a copy
# of sleep named minio, so the real server is never touched).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"
SD=${AOPS_STACK_DIR:-$ROOT/.local/stack}
PINS="$SD/server-pins.json"
B=aops-it-serverpin
RUN=(--containers 1 --profile tiny --workloads s3 --bucket $B --no-cgroups --quiet)
KIDS=()
cleanup() { kill "${KIDS[@]}" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
mask() { taskset -p "$1" | awk '{print $NF}'; }

if ! "$HARNESS" prepare "${RUN[@]}" >"$TMP/prep.log" 2>&1; then
    fail "prepare: $(tail -1 "$TMP/prep.log")"
    finish
fi
mkdir "$TMP/bin"
cp "$(command -v sleep)" "$TMP/bin/minio"
"$TMP/bin/minio" 600 &
FAKE=$!
sleep 600 &
SLEEPER=$!
KIDS+=("$FAKE" "$SLEEPER")
ncpu=$(nproc)

refused() { # refused WHAT PID NEEDLE
    local o rc
    o=$("$HARNESS" "${RUN[@]}" --server-pid "minio=$2" --server-cpus 0 --out "$TMP/r$2" 2>&1)
    rc=$?
    check_eq "$1: exit 2 ($o)" 2 $rc
    check_eq "$1: one line" 1 "$(grep -c . <<<"$o")"
    check_contains "$1: says why" "$3" "$o"
    check "$1: nothing ran" test ! -e "$TMP/r$2/result.json"
}
refused "PID 1" 1 "PID 1 is the init process, never minio; refused"
check_eq "and PID 1 keeps its mask" "$(mask $$)" "$(mask 1)"
refused "a sleep named as minio" "$SLEEPER" "PID $SLEEPER is sleep, not minio; refused"
refused "the shell that runs the harness" "$$" "PID $$ is the harness itself, an ancestor or a child of it"

# ---- a SIGKILLed run, then the next one -----------------------------------------------------
if [ "$ncpu" -lt 2 ]; then
    pass "one CPU: pinning cannot be told from not pinning (skipped)"
    finish
fi
before=$(mask "$FAKE")
rm -f "$PINS"
"$HARNESS" "${RUN[@]}" --cycles 500 --server-pid "minio=$FAKE" --server-cpus 0 --out "$TMP/killed" >"$TMP/killed.log" 2>&1 &
H=$!
KIDS+=("$H")
for _ in $(seq 300); do # wait for the condition (pinned and recorded), never a fixed time
    [ "$(mask "$FAKE")" = 1 ] && [ -s "$PINS" ] && break
    kill -0 "$H" 2>/dev/null || break
    sleep 0.1
done
check_eq "the run pinned the process to CPU 0 ($(tail -1 "$TMP/killed.log"))" 1 "$(mask "$FAKE")"
check "and recorded it in the stack dir" jq -e --argjson p "$FAKE" '.pins | any(.pid == $p)' "$PINS"
check_eq "with the start time of /proc/PID/stat" "$(awk '{print $22}' "/proc/$FAKE/stat")" \
    "$(jq -r --argjson p "$FAKE" '.pins[] | select(.pid == $p) | .start' "$PINS")"
workers=$(pgrep -P "$H" | tr '\n' ' ')
kill -KILL "$H"
wait "$H" 2>/dev/null
for w in $workers; do kill -KILL "$w" 2>/dev/null; done
check_eq "SIGKILLed: the process stays pinned" 1 "$(mask "$FAKE")"
o=$("$HARNESS" --containers 1 --workloads tick --cycles 1 --no-cgroups --out "$TMP/next" --quiet 2>&1)
check_contains "the next run says it gave the affinity back" "was killed: 1 of its server processes given their own affinity back, 0 gone" "$o"
check_eq "taskset shows the mask it had before" "$before" "$(mask "$FAKE")"
check "and the record is gone" test ! -e "$PINS"

# ---- a reused pid is left alone --------------------------------------------------------------
taskset -p 1 "$FAKE" >/dev/null
jq -n --argjson p "$FAKE" '{coordinator: {pid: 999999, start: 1}, cpus: "0",
    pins: [{pid: $p, start: 1, server: "minio", cpus: [0, 1]}]}' >"$PINS"
o=$("$HARNESS" --containers 1 --workloads tick --cycles 1 --no-cgroups --out "$TMP/next2" --quiet 2>&1)
check_contains "a record whose start time does not match: left alone" "0 of its server processes given their own affinity back, 1 gone or their pid reused" "$o"
check_eq "and the process keeps the mask it has now" 1 "$(mask "$FAKE")"

# ---- a clean run gives it back itself ---------------------------------------------------------
taskset -p "$before" "$FAKE" >/dev/null
"$HARNESS" "${RUN[@]}" --cycles 1 --server-pid "minio=$FAKE" --server-cpus 0 --out "$TMP/clean" >"$TMP/clean.log" 2>&1
check "a whole run pins it (placement.servers_pinned)" jq -e '.placement.servers_pinned.servers.minio.processes == 1' "$TMP/clean/result.json"
check_eq "and gives its mask back at the end" "$before" "$(mask "$FAKE")"
check "leaving no record" test ! -e "$PINS"
finish
