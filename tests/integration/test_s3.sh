#!/usr/bin/env bash
# Integration test of the s3 workload against the real MinIO of scripts/stack:
# prepare on tiny (and that a second prepare uploads nothing), runs whose
# op, error and byte counts in result.json are exact, --dataset shared, the
# messages for wrong keys, an unreachable endpoint and a missing data set,
# the live unit checks (SigV4 on keys that need encoding, --op-timeout), and
# a private MinIO killed in the middle of a run: the run ends, invalid, with
# the failed GETs counted as errors, and nothing hangs.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"

TINY_SET=15360000 # bytes per worker per cycle: 500 x 1 KiB + 500 x 10 KiB + 190 x 50 KiB
BUCKET=aops-it-s3 # kept between runs: a rerun finds it prepared

run_s3() { # run_s3 OUTDIR args... -> exit status; stdout+stderr in OUTDIR.log
    local out=$1; shift
    "$HARNESS" --profile tiny --workloads s3 --bucket "$BUCKET" --out "$out" "$@" >"$out.log" 2>&1
}

# --- prepare, twice ------------------------------------------------------------------------
out=$("$HARNESS" prepare --containers 2 --profile tiny --workloads s3 --bucket "$BUCKET" 2>&1)
check_eq "prepare exits 0 ($out)" 0 $?
check_contains "prepare covers both workers" "2380 objects in bucket '$BUCKET'" "$out"
out=$("$HARNESS" prepare --containers 2 --profile tiny --workloads s3 --bucket "$BUCKET" 2>&1)
check_eq "second prepare exits 0" 0 $?
check_contains "second prepare uploads nothing" "0 uploaded (0 bytes), 2380 already there" "$out"

# --prepare-jobs: one upload thread and four, each into a bucket of its own made fresh, upload
# every object once and write byte-identical objects manifests; a run verifies the four's bodies.
CRED=${AOPS_STACK_DIR:-$ROOT/.local/stack}/credentials
ak() { sed -n "s/^$1=//p" "$CRED"; }
s3curl() { # s3curl METHOD PATH [curl args...]
    local m=$1 p=$2; shift 2
    curl -s -X "$m" --aws-sigv4 "aws:amz:us-east-1:s3" --user "$(ak AWS_ACCESS_KEY_ID):$(ak AWS_SECRET_ACCESS_KEY)" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@" "http://127.0.0.1:${AOPS_MINIO_PORT:-9000}/$p"
}
for j in 1 4; do
    s3curl DELETE "aops-it-pj$j" -H "x-minio-force-delete: true" -o /dev/null # fresh: nothing to skip
    out=$("$HARNESS" prepare --containers 2 --profile tiny --workloads s3 --bucket "aops-it-pj$j" --prepare-jobs $j 2>&1)
    check_eq "prepare --prepare-jobs $j exits 0 ($out)" 0 $?
    check_contains "... every object uploaded, by $j job(s)" "2380 uploaded ($((2 * TINY_SET)) bytes), 0 already there" "$out"
    s3curl GET "aops-it-pj$j/tiny/objects-manifest" -o "$TMP/manifest-$j"
done
check "the manifest of 1 job has a line per object" test "$(wc -c <"$TMP/manifest-1")" -gt $((2380 * 40))
check "1 job and 4 write byte-identical objects manifests" cmp "$TMP/manifest-1" "$TMP/manifest-4"
"$HARNESS" --profile tiny --workloads s3 --bucket aops-it-pj4 --containers 2 --out "$TMP/pj4" >"$TMP/pj4.log" 2>&1
check "a run over the 4 jobs' objects verifies every body, no error" \
    jq -e '.verification.s3.verified == true and .workloads.s3.errors == 0 and .workloads.s3.ops == 2380' "$TMP/pj4/result.json"
for j in 1 4; do s3curl DELETE "aops-it-pj$j" -H "x-minio-force-delete: true" -o /dev/null; done

# --- a run: exact counts -------------------------------------------------------------------
run_s3 "$TMP/r1" --containers 2 --cycles 2
j="$TMP/r1/result.json"
if [ -f "$j" ]; then
    check_eq "s3 ops = 1190 x 2 containers x 2 cycles" 4760 "$(jq_ .workloads.s3.ops "$j")"
    check_eq "s3 errors" 0 "$(jq_ .workloads.s3.errors "$j")"
    check_eq "s3 bytes = 4 x one set" $((4 * TINY_SET)) "$(jq_ .workloads.s3.bytes "$j")"
    check_eq "1MiB class ops" 2000 "$(jq_ '.workloads.s3.classes["1MiB"].ops' "$j")"
    check_eq "50MiB class bytes" $((4 * 190 * 51200)) "$(jq_ '.workloads.s3.classes["50MiB"].bytes' "$j")"
    check "ttfb recorded and below latency" jq -e '.workloads.s3.ttfb_ms.p50 > 0 and
        .workloads.s3.ttfb_ms.mean <= .workloads.s3.latency_ms.mean' "$j"
    check_eq "the only invalid reason is the partial cycle" 1 \
        "$(jq_ '[.invalid_reasons[] | select(test("partial cycle") | not)] | length + 1' "$j")"
else
    fail "run wrote no result.json: $(tail -5 "$TMP/r1.log")"
fi

# --- --dataset shared: three workers read worker 0's set ---------------------------------
out=$("$HARNESS" prepare --containers 3 --profile tiny --workloads s3 --bucket "$BUCKET" --dataset shared 2>&1)
check_contains "shared prepare finds the set there" "1190 objects in bucket '$BUCKET': 0 uploaded" "$out"
run_s3 "$TMP/r2" --containers 3 --dataset shared
check_eq "shared: ops" 3570 "$(jq_ .workloads.s3.ops "$TMP/r2/result.json")"
check_eq "shared: bytes" $((3 * TINY_SET)) "$(jq_ .workloads.s3.bytes "$TMP/r2/result.json")"
check_eq "shared: errors" 0 "$(jq_ .workloads.s3.errors "$TMP/r2/result.json")"

# --- bad input -----------------------------------------------------------------------------
AWS_ACCESS_KEY_ID=not-a-key run_s3 "$TMP/e1" --containers 1
check "wrong key id: run fails" test $? -ne 0
check_contains "wrong key id: message" "S3 rejected the credentials (403 InvalidAccessKeyId)" "$(cat "$TMP/e1.log")"
AWS_SECRET_ACCESS_KEY=wrong-secret-key run_s3 "$TMP/e2" --containers 1
check_contains "wrong secret: message" "S3 rejected the credentials (403 SignatureDoesNotMatch)" "$(cat "$TMP/e2.log")"
out=$(AWS_ACCESS_KEY_ID=not-a-key "$HARNESS" prepare --containers 1 --profile tiny --workloads s3 --bucket "$BUCKET" 2>&1)
check "wrong key id: prepare fails" test $? -ne 0
check_contains "wrong key id: prepare message" "S3 rejected the credentials (403 InvalidAccessKeyId)" "$out"

run_s3 "$TMP/e3" --containers 1 --s3-endpoint http://127.0.0.1:1
check "unreachable endpoint: run fails" test $? -ne 0
check_contains "unreachable endpoint: message" \
    "cannot connect to S3 endpoint http://127.0.0.1:1: connection refused" "$(cat "$TMP/e3.log")"
check "unreachable endpoint: result says invalid" jq -e '.valid == false' "$TMP/e3/result.json"

# The stack's own endpoint spoken to in https (it is plain http, wherever it listens).
plain=$(sed -n 's/^S3_ENDPOINT=//p' "${AOPS_CREDENTIALS:-$ROOT/.local/stack/credentials}" 2>/dev/null)
plain=${S3_ENDPOINT:-${plain:-http://127.0.0.1:9000}}
run_s3 "$TMP/e6" --containers 1 --s3-endpoint "https://${plain#http://}"
check_contains "https to a plain http endpoint: message" \
    "S3 endpoint https://${plain#http://}: TLS handshake failed" "$(cat "$TMP/e6.log")"

"$HARNESS" --profile tiny --workloads s3 --bucket "aops-it-none-$$" --containers 1 --out "$TMP/e4" >"$TMP/e4.log" 2>&1
check_contains "no data set: names the key and says prepare" \
    "S3 object 'tiny/w0/1MiB/0' is missing from bucket 'aops-it-none-$$' (no such bucket): run ./harness prepare" \
    "$(cat "$TMP/e4.log")"
run_s3 "$TMP/e5" --containers 3
check_contains "set of worker 2 missing: names its key" \
    "S3 object 'tiny/w2/1MiB/0' is missing from bucket '$BUCKET': run ./harness prepare --profile tiny --workloads s3 --bucket $BUCKET --containers 3" \
    "$(cat "$TMP/e5.log")"

# --- the live unit checks: SigV4 on odd keys, content, --op-timeout, keep-alive ------------
if [ -x "$ROOT/build/asan/tests/test_s3" ]; then
    out=$(AOPS_CREDENTIALS="${AOPS_CREDENTIALS:-$ROOT/.local/stack/credentials}" \
        "$ROOT/build/asan/tests/test_s3" live 2>&1)
    rc=$?
    check "test_s3 live ($(echo "$out" | tail -1))" test $rc -eq 0
    echo "$out" | grep 'CHECK failed' >&2
else
    fail "build/asan/tests/test_s3 missing: run make asan"
fi

# --- a private MinIO killed in the middle of a run ----------------------------------------
MINIO="$ROOT/.local/bin/minio"
PORT=${TEST_S3_KILL_PORT:-$(free_port 19190)}
if [ -x "$MINIO" ] && ! (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    export AWS_ACCESS_KEY_ID=killtest AWS_SECRET_ACCESS_KEY=killtest-secret-0123
    MINIO_ROOT_USER=$AWS_ACCESS_KEY_ID MINIO_ROOT_PASSWORD=$AWS_SECRET_ACCESS_KEY \
        "$MINIO" server "$TMP/minio" --address "127.0.0.1:$PORT" \
        --console-address "127.0.0.1:$((PORT + 1))" >"$TMP/minio.log" 2>&1 &
    mpid=$!
    trap 'kill -9 $mpid 2>/dev/null; rm -rf "$TMP"' EXIT
    for _ in $(seq 100); do
        # live answers before the drives are initialised (then S3 calls get 503
        # XMinioServerNotInitialized); cluster answers 200 once it takes writes.
        curl -sf "http://127.0.0.1:$PORT/minio/health/cluster" >/dev/null && break
        sleep 0.1
    done
    ep="http://127.0.0.1:$PORT"
    out=$("$HARNESS" prepare --containers 1 --profile tiny --workloads s3 --s3-endpoint "$ep" 2>&1)
    check "private MinIO prepared" test $? -eq 0
    check_contains "fresh store: prepare uploads every object" \
        "1190 objects in bucket 'aops': 1190 uploaded ($TINY_SET bytes), 0 already there" "$out"
    # "In the middle" is a state seen, not a time slept: MinIO is killed once the
    # run's /metrics counts GETs done (the "some GETs completed" below needs them),
    # waited for up to 30 s.
    mport=$((PORT + 2))
    while (exec 3<>"/dev/tcp/127.0.0.1/$mport") 2>/dev/null; do mport=$((mport + 1)); done
    s3_ops() {
        curl -s --max-time 2 "http://127.0.0.1:$mport/metrics" |
            awk '/^aops_operations_total\{.*workload="s3"/ { s += $2 } END { print s + 0 }'
    }
    timeout 120 "$HARNESS" --containers 1 --profile tiny --workloads s3 --s3-endpoint "$ep" \
        --cycles 200 --metrics-listen "127.0.0.1:$mport" --metrics-linger 0 --out "$TMP/k" >"$TMP/k.log" 2>&1 &
    hpid=$!
    end=$((SECONDS + 30))
    until [ "$(s3_ops)" -gt 0 ] || ! kill -0 $hpid 2>/dev/null || [ $SECONDS -ge $end ]; do sleep 0.05; done
    [ "$(s3_ops)" -gt 0 ] || fail "killed MinIO: the test's own precondition: no GET done within 30 s of the start ($(tail -1 "$TMP/k.log"))"
    t0=$(date +%s)
    kill -9 $mpid
    wait $mpid 2>/dev/null
    wait $hpid
    rc=$?
    secs=$(($(date +%s) - t0))
    check "killed MinIO: run exits non-zero, not by timeout (rc $rc)" test $rc -ne 0 -a $rc -ne 124
    check "killed MinIO: run ends promptly (${secs}s)" test "$secs" -lt 60
    k="$TMP/k/result.json"
    check "killed MinIO: result invalid" jq -e '.valid == false' "$k"
    check "killed MinIO: failed GETs counted as errors" jq -e '.workloads.s3.errors >= 1' "$k"
    check "killed MinIO: some GETs completed before" jq -e '.workloads.s3.ops >= 1' "$k"
    check_contains "killed MinIO: says why" "S3 endpoint $ep" "$(cat "$TMP/k.log")"
else
    fail "cannot start a private MinIO on port $PORT (binary missing or port in use)"
fi

# --- bench/s3's driver starts anywhere: it checks the s3 workload's options only ----------
# (as `./harness --workloads s3` does), so a copy outside the repository, where no search
# patterns are, still GETs.
if [ -x "$ROOT/build/bench/s3_get" ]; then
    cp "$ROOT/build/bench/s3_get" "$TMP/s3_get"
    # the credentials file's keys, not the killed MinIO's exported above
    out=$(cd "$TMP" && env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
        AOPS_CREDENTIALS="${AOPS_CREDENTIALS:-$ROOT/.local/stack/credentials}" \
        S3_BENCH_BUCKET=aops-it-s3get sh -c './s3_get prepare 2 && ./s3_get harness 1 2 2' 2>&1)
    check_contains "bench/s3's s3_get, run outside the repository, GETs without errors" \
        "harness conc=1 gets=2 errors=0 bytes=2097152" "$out"
else
    fail "build/bench/s3_get is not built (make bench-build; make test builds it)"
fi

finish
