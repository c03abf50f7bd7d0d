#!/usr/bin/env bash
# Integration test for `harness rerun` on results crafted by someone else (issue 35): a result
# that names a BMC, a database host, an endpoint, a CSV directory, a PID and CPUs to pin and a
# metrics listener gets each dropped with one line, and what runs connects to none of them (a
# listener of the test's own logs every connection) and writes no CSV; a non-string value, an
# unknown option and an operand are one line and exit 2 with nothing run. Needs no stack: the
# job is the coordinator's own tick workload.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"

LOG="$TMP/listener.log"
# The listener: every connection it accepts is a line in LOG; it answers nothing.
python3 - "$LOG" "$TMP/port" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[2] + ".tmp", "w").write(str(s.getsockname()[1]))
import os
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
while True:
    c, a = s.accept()
    with open(sys.argv[1], "a") as f:
        f.write("connection from %s:%d\n" % a)
    c.close()
PY
LISTENER=$!
trap 'kill $LISTENER 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
P=$(cat "$TMP/port")
# a port nothing listens on, for --metrics-listen (the listener's own would make the run refuse
# to start, and connect to nothing, before the fix too)
Q=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
: >"$LOG"

# craft NAME ARGV_JSON ENV_JSON: a run directory whose result records that invocation
craft() {
    mkdir -p "$TMP/$1"
    jq -n --argjson argv "$2" --argjson env "$3" \
        '{valid: true, totals: {aops: 100}, provenance: {invocation: {argv: $argv, environment_options: $env}}}' \
        >"$TMP/$1/result.json"
}

# a process of the test's own for --server-pid: before the fix the rerun pinned what the result
# named (PID 1 would have been every process of the host)
sleep 600 &
VICTIM=$!
trap 'kill $LISTENER $VICTIM 2>/dev/null; rm -rf "$TMP"' EXIT
JOB='"--containers", "1", "--workloads", "tick", "--cycles", "3", "--no-cgroups"'
craft hostile "[$JOB, \"--bmc\", \"http://127.0.0.1:$P/redfish/v1/Chassis/1\", \"--db-host\", \"127.0.0.1\",
    \"--db-port\", \"$P\", \"--s3-endpoint=http://127.0.0.1:$P\", \"--csv\", \"$TMP/x\",
    \"--server-pid\", \"minio=$VICTIM\", \"--server-cpus\", \"0\", \"--metrics-listen\", \"127.0.0.1:$Q\"]" \
    "{\"s3-endpoint\": \"http://127.0.0.1:$P\", \"db-host\": \"127.0.0.1\", \"db-port\": \"$P\", \"bmc-user\": \"root\"}"
out=$(BMC_USERNAME=admin BMC_PASSWORD=secret "$HARNESS" rerun "$TMP/hostile" --out "$TMP/rr" --quiet 2>&1)
rc=$?
check_eq "rerun of a hostile result runs the job: exit 1, its verdict on a test-only workload ($(tail -2 <<<"$out" | tr "\n" " "))" 1 $rc
for o in "--bmc (a BMC, not the job)" "--db-host (an endpoint, not the job)" "--db-port (an endpoint, not the job)" \
    "--s3-endpoint (an endpoint, not the job)" "--csv (an output path, not the job)" \
    "--server-pid (a PID or CPU pin of this host, not the job)" "--server-cpus (a PID or CPU pin of this host, not the job)" \
    "--metrics-listen (a listener, not the job)" "--bmc-user (a credential, not the job)"; do
    check_contains "one line: dropped $o" "rerun: dropped $o" "$out"
done
check_contains "it prints what it runs" "again into $TMP/rr: --containers=1 --workloads=tick --cycles=3 --no-cgroups" "$out"
check_lacks "what it runs names no endpoint" "again into.*127.0.0.1:$P" "$out"
check_eq "the listener got no connection" "" "$(cat "$LOG")"
check "no CSV directory was written" test ! -e "$TMP/x"
check "the job ran: a result with 1 container" jq -e '.config.containers == 1' "$TMP/rr/result.json"
check "and it recorded no BMC" jq -e '(.config.power.bmc // "") == "" and ((.telemetry.power // {}) | tostring | test("127.0.0.1") | not)' "$TMP/rr/result.json"

# refused before anything runs: one line, exit 2, no run directory
refused() { # refused WHAT RUNDIR NEEDLE
    local o rc
    o=$("$HARNESS" rerun "$TMP/$2" --out "$TMP/$2-rr" --quiet 2>&1)
    rc=$?
    check_eq "$1: exit 2 ($o)" 2 $rc
    check_eq "$1: one line" 1 "$(grep -c . <<<"$o")"
    check_contains "$1: says what" "$3" "$o"
    check "$1: nothing ran" test ! -e "$TMP/$2-rr"
}
craft envint "[$JOB]" '{"s3-endpoint": 5}'
refused "a non-string environment option" envint "environment_options.s3-endpoint is not a string"
craft argvint '["--containers", 1, "--workloads", "tick"]' '{}'
refused "a non-string option" argvint "argv[1] is not a string"
craft unknown "[$JOB, \"--frobnicate\", \"1\"]" '{}'
refused "an unknown option" unknown "does not know: '--frobnicate'"
craft operand "[$JOB, \"evil\"]" '{}'
refused "an operand" operand "'evil', not an option"
craft flagval "[$JOB, \"--no-verify=0\"]" '{}'
refused "a flag given a value" flagval "a value to the flag '--no-verify=0'"
mkfifo "$TMP/fifo" && mkdir -p "$TMP/fifodir" && ln -s ../fifo "$TMP/fifodir/result.json"
o=$(timeout 10 "$HARNESS" rerun "$TMP/fifodir" 2>&1)
check_eq "a result.json that is a symlink to a FIFO: exit 2, no hang ($o)" 2 $?
check_eq "the listener still got no connection" "" "$(cat "$LOG")"
finish
