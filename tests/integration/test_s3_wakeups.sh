#!/usr/bin/env bash
# The s3 workload's receive low-water mark (workloads/s3.c, on_progress):
# while a body streams in, a worker sleeps until min(what the body still
# owes, 1 MiB) bytes are there. A mark above what the server will still
# send would sleep until --op-timeout, so the runs here go through
# tests/s3_stall_proxy.py, in front of the real MinIO, which holds back the
# last 100,000 bytes of one 800 KiB object (small/w0/50MiB/3):
#  - for 2 s, then sends them: every GET succeeds, that one takes >= 2 s
#    and far less than --op-timeout (60 s); strace shows the
#    marks the workers set: above 1 (the mark is used), never above 1 MiB;
#  - or closes the connection instead: that GET fails naming the object,
#    the others succeed, and nothing waits for the timeout.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"

BUCKET=aops-it-wake # kept between runs: a rerun finds it prepared
MINIO_PORT=${AOPS_MINIO_PORT:-9000}
COMMON=(--profile small --workloads s3 --containers 1 --cycles 1 --bucket "$BUCKET" --op-timeout 60)

out=$("$HARNESS" prepare --profile small --workloads s3 --containers 1 --bucket "$BUCKET" 2>&1)
check_eq "prepare the small profile's objects ($(tail -1 <<<"$out"))" 0 $?

PROXIES=()
trap 'kill "${PROXIES[@]}" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
proxy() { # proxy MODE: a proxy on PORT; its stderr in $TMP/proxy-MODE.log
    local ready=$TMP/ready-${1%%:*}
    PORT=$(free_port 14100)
    python3 tests/s3_stall_proxy.py "$PORT" "$MINIO_PORT" "/50MiB/3?" 100000 "$1" "$ready" \
        >/dev/null 2>"$TMP/proxy-${1%%:*}.log" &
    PROXIES+=($!)
    for _ in $(seq 50); do [ -f "$ready" ] && break; sleep 0.1; done
}

# ---- the end of a body held back for 2 s -----------------------------------------------------------
proxy stall:2
t0=$(date +%s.%N)
strace -f -qq -e trace=setsockopt -o "$TMP/strace" \
    "$HARNESS" "${COMMON[@]}" --s3-endpoint "http://127.0.0.1:$PORT" --out "$TMP/stall" >"$TMP/stall.log" 2>&1
rc=$?
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
# --workloads s3 alone is a partial cycle: invalid for that reason only, exit 1.
check_eq "the run through the stalling proxy exits 1, a partial cycle ($(tail -1 "$TMP/stall.log"))" 1 $rc
check_contains "the proxy held the bytes back" "held back 100000 bytes for stall:2 s" "$(cat "$TMP/proxy-stall.log")"
j=$TMP/stall/result.json
check_eq "every GET succeeded" "1190 0" "$(jq_ '"\(.workloads.s3.ops) \(.workloads.s3.errors)"' "$j")"
check "invalid only as a partial cycle" jq -e '.invalid_reasons | length == 1 and (.[0] | test("^partial cycle"))' "$j"
check "the held-back GET took 2 s or more, and far less than the 60 s timeout" \
    jq -e '.workloads.s3.classes["50MiB"].latency_ms.max | . >= 2000 and . < 20000' "$j"
check "the run ended before the timeout (${wall} s under strace)" awk -v w="$wall" 'BEGIN { exit !(w < 55) }'
marks=$(sed -n 's/.*SO_RCVLOWAT, \[\([0-9]*\)\].*/\1/p' "$TMP/strace" | sort -n | uniq)
check "the workers set marks above 1 ($(wc -l <<<"$marks") distinct values)" awk -v m="$(tail -1 <<<"$marks")" 'BEGIN { exit !(m > 1) }'
check_eq "no mark above 1 MiB" "" "$(awk '$1 > 1048576' <<<"$marks")"

# ---- the connection closed with the end of a body held back ------------------------------------------
proxy close
t0=$(date +%s.%N)
"$HARNESS" "${COMMON[@]}" --s3-endpoint "http://127.0.0.1:$PORT" --out "$TMP/close" >"$TMP/close.log" 2>&1
rc=$?
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
check_eq "the run with a short body exits 1 (invalid)" 1 $rc
check_contains "the proxy closed the connection" "closed with 100000 bytes held back" "$(cat "$TMP/proxy-close.log")"
j=$TMP/close/result.json
check_eq "one GET failed, the others not (ops counts those that succeeded)" "1189 1" "$(jq_ '"\(.workloads.s3.ops) \(.workloads.s3.errors)"' "$j")"
check "the error names the object" jq -e '.containers[0].error | test("small/w0/50MiB/3")' "$j"
check "nothing waited for the timeout (${wall} s)" awk -v w="$wall" 'BEGIN { exit !(w < 55) }'
finish
