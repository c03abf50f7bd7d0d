#!/usr/bin/env bash
# Platform power from a BMC over RMCP+: OpenIPMI's ipmi_sim (Debian's openipmi),
# a real BMC simulator, and --bmc ipmi://127.0.0.1:PORT through FreeIPMI.
#   - ipmi_sim as shipped implements no DCMI: Get Power Reading (NetFn 2Ch, Cmd
#     02h, DCh 01h 00h 00h) is answered with completion code C1h, and the
#     harness says so at start and records null with that reason;
#   - with tests/power/ipmi_sim_dcmi.c loaded into it (ipmi_sim's module
#     interface, "loadlib") it answers with readings from a file the test
#     writes, and logs each one: the readings in result.json are checked one by
#     one against the BMC's log, and mean and peak against what it served;
#   - a session at user privilege (what DCMI asks) is refused by ipmi_sim for
#     this command (D4h), wrong passwords are refused by RMCP+ itself;
#   - a BMC whose answer has no bytes at all (the module's "empty"), with the
#     harness under valgrind's memcheck: the failure is said, and no byte of
#     an answer never received is looked at (main read rsp[0] uninitialised).
set -u
. "$(dirname "$0")/../lib.sh"

PORT=$(free_port 19623)
SIM=$(command -v ipmi_sim || true)
if [ -z "$SIM" ] || [ ! -e /usr/include/OpenIPMI/mcserv.h ]; then
    fail "ipmi_sim or its headers missing: scripts/setup installs openipmi and libopenipmi-dev"
    finish
fi
PIDS=() WRAP=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$TMP"' EXIT

cat >"$TMP/lan.conf" <<EOF
name "aops-test"
set_working_mc 0x20
  startlan 1
    addr 127.0.0.1 $PORT
    priv_limit admin
    allowed_auths_callback none md2 md5 straight
    allowed_auths_user none md2 md5 straight
    allowed_auths_operator none md2 md5 straight
    allowed_auths_admin none md2 md5 straight
    guid a123456789abcdefa123456789abcdef
  endlan
  user 2 true "admin" "s3cret" admin 10 none md2 md5 straight
EOF
cat >"$TMP/bmc.emu" <<'EOF'
mc_setbmc 0x20
mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr
mc_enable 0x20
EOF
sim() { # sim CONF: ipmi_sim in the background, until its port answers
    "$SIM" -c "$1" -f "$TMP/bmc.emu" -s "$TMP/state" -n -p >"$TMP/sim.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 50); do ss -ulnH "sport = :$PORT" | grep -q . && return 0; sleep 0.1; done
    return 1
}
stop_sim() { kill "${PIDS[-1]}" 2>/dev/null; wait "${PIDS[-1]}" 2>/dev/null; }
run() { # run NAME [options...]
    local name=$1; shift
    AOPS_SLEEP_US=${SLEEP_US:-1000} BMC_USERNAME=${USER_:-admin} BMC_PASSWORD=${PASS_:-s3cret} \
        ${WRAP[@]+"${WRAP[@]}"} "$HARNESS" --containers 2 --profile tiny --workloads sleep --sample-interval 0.2 \
        --bmc ipmi://127.0.0.1:$PORT --out "$TMP/$name" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}
platform() { jq -c '[.telemetry.power[] | select(.scope == "platform")][0]' "$TMP/$1/result.json"; }
said_once() { # said_once NAME "text": one line at start with the reason, null in the result
    local e; e=$(platform "$1")
    check_eq "$1: platform power null" "null null" "$(jq -r '"\(.mean_w) \(.peak_w)"' <<<"$e")"
    check_contains "$1: the reason" "$2" "$(jq -r .reason <<<"$e")"
    check_eq "$1: one line at start" 1 "$(grep -c "warning: platform power" "$TMP/$1.err")"
    check_contains "$1: the line gives the reason" "$2" "$(grep "warning: platform power" "$TMP/$1.err")"
}

# ---- ipmi_sim as shipped: no DCMI ----
check "ipmi_sim up on udp $PORT" sim "$TMP/lan.conf"
run stock --cycles 1 --bmc-privilege admin
said_once stock "DCMI Get Power Reading: completion code 0xc1 (invalid command)"
stop_sim

# ---- with the DCMI module: readings that change ----
gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$TMP/dcmi.so" "$ROOT/tests/power/ipmi_sim_dcmi.c" 2>"$TMP/gcc.err"
check "the DCMI module builds against OpenIPMI's headers" test -s "$TMP/dcmi.so"
for k in $(seq 0 400); do echo $((250 + (53 * k) % 97)); done >"$TMP/values"
: >"$TMP/served"
cp "$TMP/lan.conf" "$TMP/lan-dcmi.conf"
echo "  loadlib \"$TMP/dcmi.so\" \"$TMP/values $TMP/served\"" >>"$TMP/lan-dcmi.conf"
check "ipmi_sim with the module up" sim "$TMP/lan-dcmi.conf"
SLEEP_US=10000 run good --cycles 10 --quiet --bmc-privilege admin --bmc-interval 0.25
R=$TMP/good/result.json
E=$(platform good)
check_eq "the platform source is IPMI over RMCP+, at admin, opensesspriv needed" \
    "ipmi_lan platform power_platform_w true admin opensesspriv" \
    "$(jq -r '[.source, .scope, .series, .used_for_per_watt, .privilege, .workaround] | map(tostring) | join(" ")' <<<"$E")"
check_eq "the DCMI statistics period recorded" 1 "$(jq -r .dcmi_statistics_period_s <<<"$E")"
# The BMC's log: the reading at start, then the reader's.
jq -R tonumber "$TMP/served" | jq -s '.[1:]' >"$TMP/read.json"
check_eq "every reading is the one the BMC served, in order" 0 \
    "$(jq --slurpfile s "$TMP/read.json" '[.readings | to_entries[] | select(.value.w != null and .value.w != $s[0][.key])] | length' <<<"$E")"
n=$(jq '[.readings[] | select(.w != null)] | length' <<<"$E")
check "several readings ($n)" test "$n" -ge 5
ref=$(jq -rn --slurpfile s "$TMP/read.json" --slurpfile r "$R" --argjson e "$E" '
    ($r[0].totals.wall_seconds) as $w
    | [$e.readings | to_entries[] | select(.value.w != null and .value.t >= 0 and .value.t <= $w) | $s[0][.key]]
    | "\((add / length * 1000 | round) / 1000) \(max) \(length)"')
check_eq "mean, peak and count of the readings served inside the run" "$ref" \
    "$(jq -r '"\(.mean_w) \(.peak_w) \(.n_readings)"' <<<"$E")"
check "AOPS per watt platform = AOPS / that mean" jq -e \
    '(.totals.aops / ([.telemetry.power[] | select(.scope == "platform")][0].mean_w) - .totals.aops_per_watt_platform | fabs) < 1e-5 * .totals.aops_per_watt_platform' "$R"
check "each reading's latency recorded" jq -e '.latency_ms.mean > 0 and ([.readings[].latency_ms] | all(. > 0))' <<<"$E"
check_lacks "nothing said at start when the BMC works" "warning: platform power" "$(cat "$TMP/good.err")"

# ---- refusals, said at start ----
run userpriv --cycles 1
said_once userpriv "completion code 0xd4 (insufficient privilege level)"
PASS_=wrong run wrongpw --cycles 1 --bmc-privilege admin
said_once wrongpw "password invalid"
stop_sim

# ---- an answer with no bytes, under memcheck ----
if command -v valgrind >/dev/null; then
    echo empty >"$TMP/values-empty"
    : >"$TMP/served-empty"
    cp "$TMP/lan.conf" "$TMP/lan-empty.conf"
    echo "  loadlib \"$TMP/dcmi.so\" \"$TMP/values-empty $TMP/served-empty\"" >>"$TMP/lan-empty.conf"
    check "ipmi_sim with the module answering nothing up" sim "$TMP/lan-empty.conf"
    WRAP=(valgrind --tool=memcheck --track-origins=yes "--log-file=$TMP/vg.%p")
    run empty --cycles 1 --bmc-privilege admin
    WRAP=()
    check_eq "the BMC answered with no bytes" empty "$(head -1 "$TMP/served-empty")"
    said_once empty "a short answer"
    check "memcheck ran on the coordinator" grep -lq "Memcheck" "$TMP"/vg.*
    uninit=$(grep -h -A12 "uninitialised value" "$TMP"/vg.* | grep -c "power_ipmi.c")
    check_eq "memcheck: no uninitialised read in power_ipmi.c" 0 "$uninit"
    stop_sim
else
    fail "valgrind missing: scripts/setup installs it (TEST_PACKAGES)"
fi
finish
