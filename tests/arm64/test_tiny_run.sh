#!/usr/bin/env bash
# test_tiny_run.sh -- a tiny run of the aarch64 harness under qemu-user against the native
# local stack: workers are forked processes under the emulator reaching MinIO and MariaDB over
# loopback. Valid, with exact counts; the same counts as the native harness on the same data
# (they must not depend on the CPU); the result names the aarch64 build, the NEON scans and the
# reader (pread where qemu-user does not emulate io_uring, with the reason); power is null
# with a reason that says Arm has no RAPL. The run is made twice, with the search on the
# default thread count (the workers' rule, min(CPUs, 12)) and on 4 (--search-threads 4): the
# default is what every run on an Arm server uses, and it hung under a mixed glibc (issue 36).
# Each run is under `timeout` (AOPS_ARM64_RUN_TIMEOUT, 300 s): a hang fails, never hangs.
source "$(dirname "$0")/../lib.sh"
N=2
B=aops-it-arm64
C=$TMP/corpus
P=(--profile tiny --bucket $B --corpus "$C" --patterns "$ROOT/corpus/patterns")
"$HARNESS" corpus fetch --profile tiny --dir "$C" >/dev/null 2>&1 || fail "corpus fetch --profile tiny"
out=$("$HARNESS" prepare --containers $N "${P[@]}" 2>&1)
rc=$?; check_eq "prepare under qemu exits 0" 0 $rc; [ $rc = 0 ] || echo "$out"

LIMIT=${AOPS_ARM64_RUN_TIMEOUT:-300}
timeout "$LIMIT" "$HARNESS" --containers $N "${P[@]}" --out "$TMP/arm" --quiet >"$TMP/out" 2>&1
rc=$?
[ $rc = 124 ] && fail "the run under qemu (default search threads) did not end within $LIMIT s"
R=$TMP/arm/result.json
check_eq "run under qemu exits 0 ($(tail -3 "$TMP/out"))" 0 "$rc"
ncpu=$(nproc); [ "$ncpu" -gt 12 ] && ncpu=12
check_eq "the search ran on the default thread count, min(CPUs, 12)" "default $ncpu" \
    "$(jq -r '"\(.config.search_threads_rule | if test("--search-threads") then "given" else "default" end) \(.config.search_threads)"' $R)"
check "valid, no reasons" jq -e '.valid == true and (.invalid_reasons | length == 0)' $R
check_eq "1,340 ops per container" $((1340 * N)) "$(jq -r .totals.ops $R)"
check_eq "no errors" 0 "$(jq -r .totals.errors $R)"
check_eq "s3 ops" $((1190 * N)) "$(jq -r .workloads.s3.ops $R)"
check_eq "s3 bytes exact" $(( N * (500 * 1024 + 500 * 10240 + 190 * 51200) )) "$(jq -r .workloads.s3.bytes $R)"
check "each db pattern ran 10 per container" jq -e --argjson n $N '[.workloads.db.patterns[] | .ops == 10 * $n] | all' $R
check_eq "search ops" $((100 * N)) "$(jq -r .workloads.search.ops $R)"
check_contains "built for aarch64" aarch64 "$(jq -r .system.compiler $R)"
S=$(jq -r .system.backends.search $R)
check_contains "the search names its NEON scans and PCRE2's JIT" "; neon scans; PCRE2 JIT" "$S"
case "$S" in
io_uring*) pass "io_uring emulated here: $S" ;;
*) check_contains "io_uring not emulated: the pread reader ran, with the reason" "pread (io_uring unavailable: io_uring setup failed" "$S" ;;
esac
check "power is null with a reason, never 0" jq -e '(.telemetry.power | all(.mean_w == null and (.reason | length > 0))) and .totals.aops_per_watt == null' $R
check_contains "the reason says Arm has no RAPL" "MSR: none on aarch64" "$(jq -r .telemetry.power_unavailable_reason $R)"

# The same with the search on 4 threads.
timeout "$LIMIT" "$HARNESS" --containers $N "${P[@]}" --search-threads 4 --out "$TMP/arm4" --quiet >"$TMP/out4" 2>&1
rc=$?
[ $rc = 124 ] && fail "the run under qemu (--search-threads 4) did not end within $LIMIT s"
R4=$TMP/arm4/result.json
check_eq "run under qemu with --search-threads 4 exits 0 ($(tail -3 "$TMP/out4"))" 0 "$rc"
check_eq "and its search ran on 4 threads" 4 "$(jq -r .config.search_threads $R4)"
check "and is valid" jq -e '.valid == true' $R4

# The native harness on the same data: every count the same, at either thread count.
"$ROOT/harness" --containers $N "${P[@]}" --out "$TMP/x86" --quiet >/dev/null 2>&1
X=$TMP/x86/result.json
for k in .totals.ops .workloads.s3.bytes .workloads.db.rows .workloads.search.matched_lines \
    .workloads.search.files_searched .workloads.search.bytes_searched; do
    check_eq "$k: aarch64 = x86-64" "$(jq -r "$k" $X)" "$(jq -r "$k" $R)"
    check_eq "$k: aarch64 on 4 search threads = x86-64" "$(jq -r "$k" $X)" "$(jq -r "$k" $R4)"
done
finish
