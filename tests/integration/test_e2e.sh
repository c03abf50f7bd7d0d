#!/usr/bin/env bash
# The whole job on the tiny profile against the real stack: corpus fetch,
# prepare, a phased run and an interleaved run of all three workloads, exact
# counts, windows in phase order, a valid result, and a report of it.
source "$(dirname "$0")/../lib.sh"
N=2
B=aops-it-e2e
C=$TMP/corpus
"$HARNESS" corpus fetch --profile tiny --dir "$C" >/dev/null 2>&1 || fail "corpus fetch --profile tiny"
out=$("$HARNESS" prepare --containers $N --profile tiny --bucket $B --corpus "$C" --patterns "$ROOT/corpus/patterns" 2>&1)
rc=$?; check_eq "prepare exits 0" 0 $rc; [ $rc = 0 ] || echo "$out"

t_before=$(date +%s.%N)
# In the background, so its workers' command lines and environments can be
# read while they run (for the secrets check below).
"$HARNESS" --containers $N --profile tiny --bucket $B --corpus "$C" --patterns "$ROOT/corpus/patterns" --out "$TMP/phased" --csv "$TMP/csv" --quiet >"$TMP/out" 2>&1 &
pid=$!
mkdir -p "$TMP/proc"
while kill -0 $pid 2>/dev/null; do
    for w in $(pgrep -P $pid); do
        cat /proc/$w/cmdline >"$TMP/proc/$w.cmdline" 2>/dev/null
        cat /proc/$w/environ >"$TMP/proc/$w.environ" 2>/dev/null
    done
    sleep 0.2
done
wait $pid
rc=$?
t_after=$(date +%s.%N)
R=$TMP/phased/result.json
check_eq "phased run exits 0 ($(tail -3 $TMP/out))" 0 "$rc"
check "valid, no reasons" jq -e '.valid == true and (.invalid_reasons | length == 0)' $R
check_eq "1,340 ops per container" $((1340 * N)) "$(jq -r .totals.ops $R)"
check_eq "no errors" 0 "$(jq -r .totals.errors $R)"
check_eq "s3 ops" $((1190 * N)) "$(jq -r .workloads.s3.ops $R)"
check_eq "db ops" $((50 * N)) "$(jq -r .workloads.db.ops $R)"
check_eq "search ops" $((100 * N)) "$(jq -r .workloads.search.ops $R)"
# tiny sizes: 500 x 1 KiB + 500 x 10 KiB + 190 x 50 KiB per worker
check_eq "s3 bytes exact" $(( N * (500 * 1024 + 500 * 10240 + 190 * 51200) )) "$(jq -r .workloads.s3.bytes $R)"
check "each db pattern ran 10 per container" jq -e --argjson n $N '[.workloads.db.patterns[] | .ops == 10 * $n] | all' $R
check "search matched lines and files counted" jq -e '.workloads.search.matched_lines > 0 and .workloads.search.files_searched > 0 and .workloads.search.bytes_searched > 0' $R
check "phased windows in order s3 < db < search" jq -e '.windows.s3.start < .windows.db.start and .windows.db.start < .windows.search.start and .windows.s3.end <= .windows.db.end' $R
# A clock outside the harness around the whole command bounds the run's wall.
check "wall_seconds within the clock around the command ($(jq_ .totals.wall_seconds $R) s < $(awk -v a=$t_before -v b=$t_after 'BEGIN{print b-a}') s)" \
    jq -e --argjson a "$t_before" --argjson b "$t_after" '.totals.wall_seconds > 0 and .totals.wall_seconds < ($b - $a)' $R
check "AOPS at least ops over that clock" jq -e --argjson a "$t_before" --argjson b "$t_after" '.totals.aops >= .totals.ops / ($b - $a)' $R
check "the baselines were read before the release" jq -e '.telemetry.baseline_s <= 0' $R
check "power is null with a reason, never 0" jq -e '(.totals.aops_per_watt == null) == (.telemetry.power[0].mean_w == null) and (.telemetry.power | all(.mean_w > 0 or (.mean_w == null and (.reason | length > 0))))' $R
check "platform per watt only with a platform source" jq -e '(.totals.aops_per_watt_platform == null) == ([.telemetry.power[] | select(.scope == "platform" and .mean_w != null)] | length == 0)' $R
check "backends in the inventory: servers and the file reader" jq -e '(.system.backends.db | test("MariaDB")) and (.system.backends.s3 | test("MinIO")) and (.system.backends.search | test("^io_uring; (avx2|sse2) scans; PCRE2 JIT$"))' $R
check "corpus manifest recorded" jq -e '.config.corpus.manifest != null' $R
check "per-container latency means for the three" jq -e '[.containers[] | .latency_ms_mean.s3 > 0 and .latency_ms_mean.db > 0 and .latency_ms_mean.search > 0] | all' $R

"$HARNESS" --containers $N --profile tiny --bucket $B --corpus "$C" --patterns "$ROOT/corpus/patterns" --schedule interleaved --out "$TMP/inter" --quiet >"$TMP/inter.log" 2>&1
R=$TMP/inter/result.json
check_eq "interleaved: same op count" $((1340 * N)) "$(jq -r .totals.ops $R)"
check "interleaved: windows overlap" jq -e '.windows.s3.end > .windows.db.start and .windows.db.end > .windows.search.start' $R

"$HARNESS" report "$TMP/phased" -o "$TMP/report.html" >/dev/null 2>&1
check "report written" test -s "$TMP/report.html"

# No secret anywhere a run leaves or shows something: the access key, the
# secret key and the MariaDB password, in result.json, the report, the CSV,
# the logs, and the workers' /proc/<pid>/cmdline and environ read live.
check "the workers' command lines and environments were read while they ran" \
    test "$(ls "$TMP/proc" | grep -c '\.environ$')" -ge $N
for key in AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY MARIADB_PASSWORD; do
    v=$(sed -n "s/^$key=//p" "$ROOT/.local/stack/credentials")
    if [ ${#v} -lt 8 ]; then fail "$key: no value of 8+ characters in the stack's credentials to look for"; continue; fi
    hits=$(grep -rlF -- "$v" "$TMP/phased" "$TMP/inter" "$TMP/report.html" "$TMP/csv" "$TMP/out" "$TMP/inter.log" "$TMP/proc" 2>/dev/null)
    check_eq "$key in no result, report, CSV, log or worker's cmdline/environ" "" "$hits"
done
check "the CSV was written (so its check means something)" test -s "$TMP/csv/containers.csv"
finish
