#!/usr/bin/env bash
# Platform power from a real Redfish server: sushy-tools' sushy-static serves a
# mockup directory shaped on DMTF's (tests/power/redfish-mockup) over HTTPS, and
# the chassis' Power resource is a FIFO the test writes one reading into per GET:
# every reading the harness takes is one the test chose and logged, so the mean
# and peak in result.json are checked against the readings served inside the
# run, and one answer held back for 1.5 s shows the sampling loop goes on
# without it. Then the bad inputs, each one line at start and null with its
# reason: no BMC at the port, a certificate that does not verify, a chassis
# without power readings (sushy-static), wrong and missing credentials
# (sushy-emulator with HTTP basic auth over HTTPS, a 401 from a real server).
# Then a hostile BMC (tests/power/hostile_bmc.py) whose JSON names another
# origin -- for the login, the chassis, the session's Location, a redirect --
# and a thief listening there that logs every request: the thief gets no
# request at all, let alone a password, a Basic header or a token, and each
# case is one line naming the URL refused. A password in --bmc, and
# credentials over http://, are refused with one line and exit 2.
set -u
. "$(dirname "$0")/../lib.sh"

VENV=$ROOT/.local/sushy/venv
if [ ! -x "$VENV/bin/sushy-static" ]; then
    fail "sushy-tools missing: scripts/setup (or tests/power/tools.sh) installs it"
    finish
fi
PORT=$(free_port 19610)
EPORT=$(free_port $((PORT + 1)))
DEAD=$(free_port $((EPORT + 1))) # nothing listens there
HPORT=$(free_port $((DEAD + 1)))
TPORT=$(free_port $((HPORT + 1)))
SERVERS=()
cleanup() {
    for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null; done
    [ -n "${WRITER:-}" ] && kill "$WRITER" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

# A self-signed certificate for 127.0.0.1: the harness trusts it only when told.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$TMP/key.pem" -out "$TMP/cert.pem" >/dev/null 2>&1
cp -r "$ROOT/tests/power/redfish-mockup" "$TMP/mockup"
FIFO=$TMP/mockup/Chassis/1U/Power/index.json
cp "$FIFO" "$TMP/power.json"
rm "$FIFO" && mkfifo "$FIFO"

"$VENV/bin/sushy-static" -i 127.0.0.1 -p $PORT -m "$TMP/mockup" -c "$TMP/cert.pem" -k "$TMP/key.pem" \
    >"$TMP/static.out" 2>"$TMP/static.log" &
SERVERS+=($!)

# The readings, one per GET of the Power resource: 300 + (37 k mod 101) W. The
# 7th is held back 1.5 s (a BMC that is slow to answer). A reading is written
# only once sushy-static has logged its request (it logs before it opens the
# file, and serves one request at a time), so no two ever run together.
serve() {
    local k=0 v
    while :; do
        until [ "$(grep -c 'GET /redfish/v1/Chassis/1U/Power ' "$TMP/static.log")" -gt $k ]; do
            sleep 0.01
        done
        v=$((300 + (37 * k) % 101))
        [ $k -eq 6 ] && sleep 1.5
        jq --argjson v $v '.PowerControl[0].PowerConsumedWatts = $v' "$TMP/power.json" >"$FIFO" || break
        echo $v >>"$TMP/served"
        k=$((k + 1))
    done
}
: >"$TMP/served"
serve &
WRITER=$!

up=0
for _ in $(seq 100); do
    curl -s --cacert "$TMP/cert.pem" https://127.0.0.1:$PORT/redfish/v1/ >/dev/null 2>&1 && { up=1; break; }
    sleep 0.1
done
check_eq "sushy-static serves the mockup over HTTPS" 1 $up

run() { # run NAME [harness options...]: a short run of the test workload
    local name=$1; shift
    AOPS_SLEEP_US=${SLEEP_US:-1000} "$HARNESS" --containers 2 --profile tiny --workloads sleep \
        --sample-interval 0.2 --out "$TMP/$name" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}
platform() { jq -c '[.telemetry.power[] | select(.scope == "platform")][0]' "$TMP/$1/result.json"; }

# ---- readings that change, read on the source's own thread ----
# 30 cycles, about 6 s: readings every 0.25 s give two dozen, and a loaded machine's slow
# simulator (0.5-0.7 s a GET at load 20: 4 readings in 15 cycles' 3 s) still more than 6.
SLEEP_US=10000 BMC_USERNAME=admin BMC_PASSWORD=s3cret run good --cycles 30 --quiet \
    --bmc https://127.0.0.1:$PORT --bmc-cacert "$TMP/cert.pem" --bmc-interval 0.25
kill $WRITER 2>/dev/null; wait $WRITER 2>/dev/null; WRITER=
# sushy-static serves one request at a time: one still waiting in open() on the FIFO (the
# reader's last, cancelled at the end) would hold up every later one. The resource becomes
# a plain file again, and the FIFO gets a writer to let such a request go.
mv "$FIFO" "$TMP/fifo" && cp "$TMP/power.json" "$FIFO"
timeout 2 bash -c "echo '{}' >'$TMP/fifo'" 2>/dev/null
R=$TMP/good/result.json
check "result.json written" test -s "$R"
E=$(platform good)
check_eq "the platform source is Redfish" "redfish platform power_platform_w true" \
    "$(jq -r '[.source, .scope, .series, .used_for_per_watt] | map(tostring) | join(" ")' <<<"$E")"
check_eq "found the chassis with readings (Fan3 has none), its PowerControl" \
    "/redfish/v1/Chassis/1U PowerControl[].PowerConsumedWatts 0" \
    "$(jq -r '[.chassis, .property, .power_control] | join(" ")' <<<"$E")"
check_eq "TLS verified against --bmc-cacert" true "$(jq -r .tls_verified <<<"$E")"
check_eq "no session token from sushy-static: basic auth" basic "$(jq -r .auth <<<"$E")"
check_eq "the BMC's averaging interval recorded (IntervalInMin 30)" 1800 "$(jq -r .averaging_interval_s <<<"$E")"
# GETs of the Power resource: discovery, the check at start, then the reader's.
jq -R 'tonumber' "$TMP/served" | jq -s '.[2:]' >"$TMP/read.json"
check_eq "every reading is the one served for its GET, in order" "0" \
    "$(jq --slurpfile s "$TMP/read.json" '[.readings | to_entries[] | select(.value.w != null and .value.w != $s[0][.key])] | length' <<<"$E")"
n=$(jq '[.readings[] | select(.w != null)] | length' <<<"$E")
check "several readings ($n)" test "$n" -ge 6
# Mean and peak of what was served inside the run's span [0, wall].
ref=$(jq -rn --slurpfile s "$TMP/read.json" --slurpfile r "$R" --argjson e "$E" '
    ($r[0].totals.wall_seconds) as $w
    | [$e.readings | to_entries[] | select(.value.w != null and .value.t >= 0 and .value.t <= $w) | $s[0][.key]]
    | "\((add / length * 1000 | round) / 1000) \(max) \(length)"')
check_eq "mean, peak and count of the readings served inside the run" "$ref" \
    "$(jq -r '"\(.mean_w) \(.peak_w) \(.n_readings)"' <<<"$E")"
check "AOPS per watt platform = AOPS / that mean" jq -e \
    '(.totals.aops / ([.telemetry.power[] | select(.scope == "platform")][0].mean_w) - .totals.aops_per_watt_platform | fabs) < 1e-5 * .totals.aops_per_watt_platform' "$R"
check "the package figure stays the package's (null here: no RAPL)" jq -e \
    '(.totals.aops_per_watt == null) == ([.telemetry.power[] | select(.scope == "package")][0].mean_w == null)' "$R"
slow=$(jq '[.readings[].latency_ms] | max' <<<"$E")
check "the held-back answer took over a second ($slow ms)" jq -en "$slow >= 1000"
maxdt=$(jq '[.telemetry.series | . as $s | range(1; length) | $s[.].t - $s[. - 1].t] | max' "$R")
check "meanwhile the sampling loop kept its 0.2 s pace (longest gap $maxdt s)" jq -en "$maxdt < 0.8"
check "latency of each reading recorded" jq -e '.latency_ms.mean > 0 and .latency_ms.max >= .latency_ms.mean' <<<"$E"
check "the reader's interval recorded" jq -e '.interval_s.mean >= 0.25' <<<"$E"
check "slower than the 0.2 s samples: said" jq -e '.slower_than_sample and (.note | test("slower than the 0.20 s sample interval"))' <<<"$E"
check "and in the warnings" jq -e '[.warnings[] | select(test("platform power from redfish is slower"))] | length == 1' "$R"
# A sample gets the readings that arrived in its interval (two after the slow one: their mean).
check "a series column of its own, of served values" jq -e --slurpfile s "$TMP/read.json" '
    [.telemetry.series[].power_platform_w | select(. != null)] as $c | ($s[0] | min) as $lo | ($s[0] | max) as $hi
    | ($c | length) > 0 and ($c | all(. >= $lo and . <= $hi))
    and ([$c[] | . as $v | $s[0] | map(. == $v) | any | select(.)] | length) >= 0.8 * ($c | length)' "$R"
check "the platform mean per window" jq -e '[.windows[] | .power_platform_w.mean] | any(. != null)' "$R"
check_lacks "the password is nowhere in the result" s3cret "$(cat "$R")"
check_lacks "nothing said at start when the BMC works" "warning: platform power" "$(cat "$TMP/good.err")"

# ---- EnvironmentMetrics, a sensor that says it is read every 2 s ----
run env --cycles 2 --quiet --bmc "https://127.0.0.1:$PORT/redfish/v1/Chassis/Blade2" --bmc-cacert "$TMP/cert.pem"
E=$(platform env)
check_eq "EnvironmentMetrics PowerWatts read" "374 PowerWatts.Reading" "$(jq -r '"\(.mean_w) \(.property)"' <<<"$E")"
check_eq "the sensor's SensingInterval PT2S recorded" "2 the sensor's SensingInterval" \
    "$(jq -r '"\(.device_interval_s) \(.device_interval_from)"' <<<"$E")"
check_eq "slower than the samples, by what the sensor says" true "$(jq -r .slower_than_sample <<<"$E")"

# ---- bad input: one line at start, null with the reason, never 0 ----
bad() { # bad NAME "what the reason says" harness-options...
    local name=$1 want=$2; shift 2
    run "$name" --cycles 1 "$@"
    local e; e=$(platform "$name")
    check_eq "$name: platform power null, AOPS per watt platform null" "null null" \
        "$(jq -r '"\(.mean_w)"' <<<"$e") $(jq -r .totals.aops_per_watt_platform "$TMP/$name/result.json")"
    check_contains "$name: the reason says so" "$want" "$(jq -r .reason <<<"$e")"
    local lines; lines=$(grep -c "warning: platform power" "$TMP/$name.err")
    check_eq "$name: one line at start" 1 "$lines"
    check_contains "$name: the line gives the reason" "$want" "$(grep "warning: platform power" "$TMP/$name.err")"
    local at ready
    at=$(grep -n "warning: platform power" "$TMP/$name.err" | cut -d: -f1)
    ready=$(grep -n "released" "$TMP/$name.err" | head -1 | cut -d: -f1)
    check "$name: said before the workers are released" test "$at" -lt "${ready:-999999}"
}
bad unreachable "Failed to connect" --bmc https://127.0.0.1:$DEAD
bad tls "TLS error" --bmc https://127.0.0.1:$PORT
bad nopower "has no power readings" --bmc "https://127.0.0.1:$PORT/redfish/v1/Chassis/Fan3" --bmc-cacert "$TMP/cert.pem"

# A real 401: sushy-emulator with basic auth (bcrypt in an htpasswd file).
"$VENV/bin/python" -c 'import bcrypt, sys; print("admin:" + bcrypt.hashpw(b"s3cret", bcrypt.gensalt(4)).decode())' >"$TMP/htpasswd"
cat >"$TMP/emulator.conf" <<EOF
SUSHY_EMULATOR_LISTEN_IP = '127.0.0.1'
SUSHY_EMULATOR_LISTEN_PORT = $EPORT
SUSHY_EMULATOR_AUTH_FILE = '$TMP/htpasswd'
SUSHY_EMULATOR_FAKE_DRIVER = True
SUSHY_EMULATOR_STATE_DIR = '$TMP/emulator-state'
SUSHY_EMULATOR_SSL_CERT = '$TMP/cert.pem'
SUSHY_EMULATOR_SSL_KEY = '$TMP/key.pem'
EOF
"$VENV/bin/sushy-emulator" --config "$TMP/emulator.conf" >"$TMP/emulator.log" 2>&1 &
SERVERS+=($!)
up=0
for _ in $(seq 150); do
    curl -s --cacert "$TMP/cert.pem" https://127.0.0.1:$EPORT/redfish/v1/ >/dev/null 2>&1 && { up=1; break; }
    sleep 0.1
done
check_eq "sushy-emulator up with basic auth over HTTPS" 1 $up
EMU=https://127.0.0.1:$EPORT
CH=$(curl -s --cacert "$TMP/cert.pem" -u admin:s3cret $EMU/redfish/v1/Chassis | jq -r '.Members[0]["@odata.id"]')
check_eq "the emulator refuses a wrong password itself" 401 \
    "$(curl -s --cacert "$TMP/cert.pem" -o /dev/null -w '%{http_code}' -u admin:wrong "$EMU$CH")"
BMC_USERNAME=admin BMC_PASSWORD=wrong bad wrongpw "wrong credentials" --bmc "$EMU$CH" --bmc-cacert "$TMP/cert.pem"
bad nocreds "set BMC_USERNAME and BMC_PASSWORD" --bmc "$EMU$CH" --bmc-cacert "$TMP/cert.pem"
BMC_USERNAME=admin BMC_PASSWORD=s3cret bad emunopower "has no power readings" --bmc "$EMU$CH" --bmc-cacert "$TMP/cert.pem"

# ---- refused before anything runs: one line, exit 2, the password nowhere ----
refused() { # refused NAME "what the line says" harness-options... (env: the credentials)
    local name=$1 want=$2; shift 2
    local rc=0
    run "$name" --cycles 1 "$@" || rc=$?
    check_eq "$name: exit 2" 2 "$rc"
    check_eq "$name: one line" 1 "$(wc -l <"$TMP/$name.err")"
    check_contains "$name: the line says why" "$want" "$(cat "$TMP/$name.err")"
    check_lacks "$name: the password is not in it" s3cret "$(cat "$TMP/$name.err" "$TMP/$name.out")"
    check "$name: no result written" test ! -e "$TMP/$name/result.json"
}
refused userinfo "a user name or password in the URL" --bmc "https://admin:s3cret@127.0.0.1:$PORT" \
    --bmc-cacert "$TMP/cert.pem"
refused userinfo-ipmi "a user name or password in the URL" --bmc "ipmi://admin:s3cret@127.0.0.1:623"
BMC_USERNAME=admin BMC_PASSWORD=s3cret refused http-creds "sent only over https://" \
    --bmc "http://127.0.0.1:$EPORT$CH"

# ---- a BMC that names another origin; the thief there logs what it gets ----
: >"$TMP/hostile.log"
echo honest >"$TMP/mode"
python3 "$ROOT/tests/power/hostile_bmc.py" --port $HPORT --thief-port $TPORT \
    --mockup "$ROOT/tests/power/redfish-mockup" --cert "$TMP/cert.pem" --key "$TMP/key.pem" \
    --log "$TMP/hostile.log" --mode-file "$TMP/mode" 2>"$TMP/hostile.err" &
SERVERS+=($!)
up=0
for _ in $(seq 100); do
    curl -s --cacert "$TMP/cert.pem" https://127.0.0.1:$HPORT/redfish/v1/ >/dev/null 2>&1 &&
        curl -s --cacert "$TMP/cert.pem" https://127.0.0.1:$TPORT/redfish/v1/ >/dev/null 2>&1 && { up=1; break; }
    sleep 0.1
done
check_eq "the hostile BMC and its thief up" 1 $up
: >"$TMP/hostile.log"
hrun() { # hrun MODE: a run against the hostile BMC in that mode
    echo "$1" >"$TMP/mode"
    BMC_USERNAME=admin BMC_PASSWORD=s3cret run "h-$1" --cycles 1 --bmc https://127.0.0.1:$HPORT \
        --bmc-cacert "$TMP/cert.pem"
}
# The honest mode first: sessions, a same-origin redirect followed, the session deleted.
hrun honest
E=$(platform h-honest)
# open() takes a first reading before the workers are released, and says at start when it
# cannot: nothing said before "released" is a reading taken (the run's own reads may be cut
# short by its end, so they are not what is checked).
check_eq "honest BMC: a session" session "$(jq -r .auth <<<"$E")"
check_lacks "honest BMC: read at start, nothing said" "warning: platform power" \
    "$(sed '/released/q' "$TMP/h-honest.err")"
check "honest BMC: the Power resource read with the token" jq -se '[.[] | select(.mode == "honest"
    and .path == "/redfish/v1/Chassis/1U/Power" and .headers["X-Auth-Token"] == "tok-bmc")] | length > 0' \
    "$TMP/hostile.log"
check_eq "honest BMC: the same-origin redirect followed, with the token" 1 \
    "$(jq -s '[.[] | select(.mode == "honest" and .method == "GET" and .path == "/redfish/v1/Chassis/"
        and .headers["X-Auth-Token"] == "tok-bmc")] | length' "$TMP/hostile.log")"
check_eq "honest BMC: the session deleted with its token at the end" 1 \
    "$(jq -s '[.[] | select(.mode == "honest" and .method == "DELETE" and .headers["X-Auth-Token"] == "tok-bmc")] | length' "$TMP/hostile.log")"
for m in sessions odata location redirect; do
    hrun $m
    E=$(platform h-$m)
    check_eq "$m: the thief got no request" 0 \
        "$(jq -s --arg m $m '[.[] | select(.server == "thief" and .mode == $m)] | length' "$TMP/hostile.log")"
    check_eq "$m: no password, Basic header or token reached the thief" 0 \
        "$(jq -s --arg m $m '[.[] | select(.server == "thief" and .mode == $m)
            | select((.body | test("s3cret")) or (.headers | keys | map(ascii_downcase)
              | any(. == "authorization" or . == "x-auth-token")))] | length' "$TMP/hostile.log")"
    check_eq "$m: platform power null" null "$(jq -r .mean_w <<<"$E")"
    check_contains "$m: the reason names the URL refused" \
        "refused the BMC's URL 'https://127.0.0.1:$TPORT/redfish/v1/" "$(jq -r .reason <<<"$E")"
    check_eq "$m: one line at start, naming it" 1 \
        "$(grep -c "warning: platform power.*refused the BMC's URL 'https://127.0.0.1:$TPORT" "$TMP/h-$m.err")"
    check_lacks "$m: the password is nowhere in the result" s3cret "$(cat "$TMP/h-$m/result.json")"
done
finish
