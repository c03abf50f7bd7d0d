#!/usr/bin/env bash
# Numbers that repeat (--repeat, --warmup-cycles, throughput over time, the
# stability rule, compare's "within noise"):
#   - the whole job on the tiny profile against the real stack, 3 times with
#     one warm-up cycle: three runs on disk, the top-level result is the run
#     whose AOPS jq finds to be the median, with the min, max and CV jq
#     recomputes from runs/<i>/result.json; each worker ran 2 x 1,340
#     operations (MinIO's own GET count for a bucket only this test reads)
#     but counted 1,340; the per-interval counts of the series sum to the
#     totals exactly;
#   - the unstable warning on a run made slow on purpose, none on three equal
#     runs of the sleep workload; repeats.trend as jq applies its rule, none
#     on the equal runs, a rising one named on stdout on runs made to speed up;
#   - an even count takes the lower median; a sweep repeats each point and its
#     report draws error bars; Ctrl-C in the second of three runs;
#   - compare marks a ratio within the runs' combined spread (fixtures);
#   - bad values exit 2 with one line.
source "$(dirname "$0")/../lib.sh"

CREDS=${AOPS_CREDENTIALS:-$ROOT/.local/stack/credentials}
E=$(sed -n 's/^S3_ENDPOINT=//p' "$CREDS" 2>/dev/null | head -1)
B=aops-it-repeat
# MinIO's GetObject count for one bucket (its v2 bucket metrics; 0 before any).
gets() { curl -s "$E/minio/v2/metrics/bucket" | awk -v b="$B" '
    index($0, "minio_bucket_requests_total{api=\"getobject\",bucket=\"" b "\"") == 1 { n = $2 } END { print n + 0 }'; }

# ---- the real job, 3 runs, one warm-up cycle each ----
N=1
"$HARNESS" corpus fetch --profile tiny --dir "$TMP/corpus" >/dev/null 2>&1 || fail "corpus fetch --profile tiny"
out=$("$HARNESS" prepare --containers $N --profile tiny --bucket $B --corpus "$TMP/corpus" 2>&1) || { fail "prepare"; echo "$out"; }
g0=$(gets)
"$HARNESS" --containers $N --profile tiny --bucket $B --corpus "$TMP/corpus" --repeat 3 --warmup-cycles 1 \
    --sample-interval 0.2 --out "$TMP/rep" --csv "$TMP/rep/csv" >"$TMP/rep.out" 2>"$TMP/rep.err"
rc=$?
R=$TMP/rep/result.json
check_eq "repeat run exits 0 ($(tail -2 "$TMP/rep.err"))" 0 "$rc"
check "three runs written" test -s "$TMP/rep/runs/1/result.json" -a -s "$TMP/rep/runs/2/result.json" -a -s "$TMP/rep/runs/3/result.json"
RUNS=$(jq -s '[.[].totals.aops]' "$TMP"/rep/runs/{1,2,3}/result.json)
check "repeats.aops lists each run's AOPS in order" jq -e --argjson a "$RUNS" '.repeats.aops == $a and .repeats.n == 3' $R
check "aops_median, min, max as jq finds them" jq -e --argjson a "$RUNS" \
    '($a | sort) as $s | .repeats.aops_median == $s[1] and .repeats.aops_min == $s[0] and .repeats.aops_max == $s[2]' $R
check "aops_cv = sample SD / mean, in percent" jq -e --argjson a "$RUNS" \
    '($a | add / length) as $m | ((($a | map((. - $m) * (. - $m)) | add) / 2 | sqrt) / $m * 100) as $cv
     | (.repeats.aops_cv - $cv | fabs) < 1e-6 * ($cv + 1)' $R
# The trend rule of result/repeat.c, applied by jq to repeats.aops: strictly monotonic, every
# run within a quarter of the change of the line through the first and the last, and a change
# above --max-cv; else no direction.
check "repeats.trend as jq applies the rule to repeats.aops ($(jq -c .repeats.trend $R))" jq -e '
    [.repeats.aops[] | select(. != null)] as $v | ($v | length) as $k | ($v[$k - 1] - $v[0]) as $d
    | ($d / $v[0] * 100) as $c
    | (if $k < 3 or $v[0] <= 0 then null
       elif ([range(1; $k) as $i | ($v[$i] - $v[$i - 1]) * $d > 0] | all | not) then null
       elif (([range(1; $k - 1) as $i | ($v[$i] - ($v[0] + $d * $i / ($k - 1))) | fabs] | max // 0)
             >= ($d | fabs) / 4) then null
       elif ($c | fabs) <= .config.max_cv then null
       elif $d > 0 then "rising" else "falling" end) as $want
    | .repeats.trend.direction == $want and .repeats.trend.runs == $k
      and ((.repeats.trend.change_pct - $c) | fabs) < 1e-9 * (($c | fabs) + 1)
      and ((.warnings | any(test("^the runs (rise|fall) monotonically"))) == ($want != null))' $R
med=$(jq -r '.repeats.median_run' $R)
# What only the combined result says: the spread, validity over all runs, and
# so whether it is reportable; its own digests; where the median run's log is.
ONLY='.warnings, .invalid_reasons, .valid, .reportable, .nonreportable_reasons, .integrity, .oplog.file'
check "the headline is the median run's whole result, not a mix" bash -c \
    "jq -S 'del(.repeats, $ONLY)' '$R' | cmp -s - <(jq -S 'del($ONLY)' '$TMP/rep/runs/$med/result.json')"
check "totals.aops is aops_median" jq -e '.totals.aops == .repeats.aops_median' $R
check "valid: every run valid" jq -e '.valid == true' $R
check_contains "summary line" "AOPS $(jq -r '.repeats.aops_median * 10 | round / 10 | tostring' $R | sed 's/^\([0-9]*\)$/\1.0/') (median of 3; min" "$(cat "$TMP/rep.out")"
check "config says the warm-up and the repeat" jq -e '.config.warmup_cycles == 1 and .config.repeat == 3' $R
for i in 1 2 3; do
    r=$TMP/rep/runs/$i/result.json
    check "run $i: 1,340 operations counted per worker" jq -e --argjson n $N '.totals.ops == 1340 * $n and ([.containers[].ops] | all(. == 1340))' "$r"
    check "run $i: 1,340 warm-up operations per worker, not counted, with their time" \
        jq -e '[.containers[] | .warmup_ops == 1340 and .warmup_errors == 0 and .warmup_seconds > 0] | all' "$r"
    check "run $i: per-interval ops sum to each workload's total" jq -e \
        '.workloads as $w | [.telemetry.series[].workloads | to_entries[] | {k: .key, v: .value.ops}]
         | group_by(.k) | map({(.[0].k): (map(.v) | add)}) | add | to_entries | all(.value == $w[.key].ops)' "$r"
    check "run $i: per-interval bytes sum to the byte counters" jq -e \
        '.workloads.s3.bytes == ([.telemetry.series[].workloads.s3.bytes] | add) and
         .workloads.search.bytes_searched == ([.telemetry.series[].workloads.search.bytes_searched] | add)' "$r"
done
check "rates are ops over the interval" jq -e '.telemetry.series as $s | [range(1; $s | length) as $i
    | ($s[$i].t - $s[$i - 1].t) as $dt | select($dt > 0.05) | $s[$i].workloads.s3 | (.ops_per_s * $dt - .ops | fabs) < 0.01 * (.ops + 10)] | all' $R
col=$(head -1 "$TMP/rep/csv/series.csv" | tr , '\n' | grep -nx s3_ops | cut -d: -f1)
check_eq "--csv: the median run's series, with an s3_ops column summing to the total" $((1190 * N)) \
    "$(awk -F, -v c="${col:-0}" 'NR > 1 { s += $c } END { print s + 0 }' "$TMP/rep/csv/series.csv")"
# What MinIO answered: per worker and run, open()'s 1-byte probe, its two GETs of the
# objects manifest (the header, then its section), the 1-byte probe of the presigned form
# and 2 x 1,190 GETs; per run the coordinator's GET of the whole manifest (its digest, for
# provenance).
want=$((3 * (N * (1 + 2 + 1 + 2 * 1190) + 1)))
for _ in $(seq 40); do [ $(($(gets) - g0)) -ge $want ] && break; sleep 0.5; done
check_eq "MinIO answered 2 x 1,190 GETs per worker and run (warm-up + measured) + the probe" $want $(($(gets) - g0))
"$HARNESS" report "$TMP/rep" >/dev/null 2>&1
check "report: the spread next to the headline" grep -q 'id="repeats-note"' "$TMP/rep/report.html"
for w in s3 db search; do
    check "report: $w operations per second against time" grep -qE "data-chart=\"throughput-$w\" data-marks=\"[1-9]" "$TMP/rep/report.html"
done
check "report: a bytes-per-second chart" grep -qE 'data-chart="throughput-bytes" data-marks="[1-9]' "$TMP/rep/report.html"
check "report: a bar per run" grep -q 'data-chart="repeats-aops" data-marks="3"' "$TMP/rep/report.html"

# ---- the stability rule ----
AOPS_TEST_SLOW_RUN=2 AOPS_SLEEP_US=5000 "$HARNESS" --containers 2 --cycles 2 --workloads sleep --repeat 3 \
    --out "$TMP/noisy" --quiet >"$TMP/noisy.out" 2>/dev/null
check "a run made slow on purpose: unstable warning" jq -e '.repeats.aops_cv > 5 and (.warnings | any(test("^unstable: AOPS CV [0-9.]+ % over 3 runs")))' "$TMP/noisy/result.json"
check_contains "and in the summary" "warning: unstable: AOPS CV" "$(cat "$TMP/noisy.out")"
"$HARNESS" report "$TMP/noisy" >/dev/null 2>&1
check "report: unstable shown next to the headline" grep -q 'id="unstable"' "$TMP/noisy/report.html"
# Equal runs: paced 100 ms sleeps, so a late wake-up on a loaded machine is made
# up by the next sleep and the three runs do the same work in the same time. Three cycles (6 s
# runs): the last sleep's lateness is not made up, and on 2 s runs a loaded machine's 0.1-0.2 s
# of it was enough for a CV over 5 %.
AOPS_SLEEP_PACED=1 AOPS_SLEEP_US=100000 "$HARNESS" --containers 2 --cycles 3 --workloads sleep --repeat 3 --out "$TMP/equal" --quiet >/dev/null 2>&1
check "three equal runs: no unstable warning ($(jq -c .repeats.aops "$TMP/equal/result.json"))" \
    jq -e '.repeats.n == 3 and .repeats.aops_cv <= 5 and (.warnings | any(test("unstable")) | not)' "$TMP/equal/result.json"
check "three equal runs: no trend" jq -e '.repeats.trend.direction == null and (.repeats.trend.reason | type == "string")' "$TMP/equal/result.json"
# Runs that speed up as caches warming make them: run i sleeps 1/i as long, AOPS about 1, 2, 3.
# Four cycles (80 sleeps; runs of 4.8, 2.4 and 1.6 s): the rule wants the middle run within a
# quarter of the change of the line, and one cycle's 0.6 s middle run lost that to a 0.3 s stall
# of a loaded machine (15.9, 22.1, 46.3 AOPS at load 10: no trend). Longer runs dilute a stall.
AOPS_TEST_WARMING=1 AOPS_SLEEP_PACED=1 AOPS_SLEEP_US=60000 "$HARNESS" --containers 1 --cycles 4 --workloads sleep --repeat 3 \
    --out "$TMP/warming" >"$TMP/warming.out" 2>/dev/null
# The change is the runs' own (last over first, as jq works it out from repeats.aops), not the
# 1:2:3 of the sleeps: each run's fixed start-up and a loaded machine's late wake-ups take more
# of a shorter run (16.7, 31.2, 45.5 AOPS at load 10 here: +173 %, not +200 %).
check "runs rising 1, 2, 3: a rising trend ($(jq -c .repeats.aops "$TMP/warming/result.json"))" \
    jq -e '.repeats.aops as $a | (($a[2] - $a[0]) / $a[0] * 100) as $c
        | .repeats.trend.direction == "rising" and .repeats.trend.runs == 3
          and $c > 50 and ((.repeats.trend.change_pct - $c) | fabs) < 1e-9 * ($c + 1)' \
    "$TMP/warming/result.json"
check_contains "and the summary names it with the remedy" "warning: the runs rise monotonically (" "$(cat "$TMP/warming.out")"
check_contains "the remedy" "add --warmup-cycles 1 (or more)" "$(cat "$TMP/warming.out")"
check "the short-run warning is said once, not per run" jq -e '[.warnings[] | select(test("short run"))] | length == 1' "$TMP/equal/result.json"

# ---- a long warm-up is progress, a warm-up that hangs is a stall ----
AOPS_SLEEP_US=100000 "$HARNESS" --containers 2 --workloads sleep --warmup-cycles 1 --stall-timeout 1 \
    --out "$TMP/longwarm" --quiet >/dev/null 2>&1
check "a 2 s warm-up with --stall-timeout 1 is not a stall" jq -e '.totals.ops == 40 and
    (.invalid_reasons | any(test("not ready|stall")) | not) and ([.containers[].warmup_seconds] | min) > 1.5' "$TMP/longwarm/result.json"
t0=$(date +%s)
AOPS_TEST_HANG_WORKER=1 timeout 60 "$HARNESS" --containers 2 --workloads sleep --warmup-cycles 1 --stall-timeout 1 \
    --out "$TMP/hangwarm" --quiet >/dev/null 2>&1
check_eq "a warm-up that hangs exits 1" 1 $?
check "and is stopped by --stall-timeout, nothing measured" jq -e '(.invalid_reasons | any(test("1 of 2 workers not ready after 1 s"))) and .totals.ops == 0' "$TMP/hangwarm/result.json"
check "within seconds" test $(( $(date +%s) - t0 )) -lt 20

# ---- even count, sweeps ----
# Run 1 sleeps 3 x 30 ms paced, run 2 30 ms: 1.8 s against 0.6 s, a margin no late wake-up
# of a loaded machine closes (unpaced 1 ms sleeps, 60 ms against 20, it was not).
AOPS_TEST_SLOW_RUN=1 AOPS_SLEEP_PACED=1 AOPS_SLEEP_US=30000 "$HARNESS" --containers 1,2 --workloads sleep --repeat 2 \
    --out "$TMP/sweep" --quiet >/dev/null 2>&1
check "even count: the lower of the two runs is the headline" jq -e '.repeats.median_run == 1 and .totals.aops == .repeats.aops_min' "$TMP/sweep/points/2/result.json"
check "sweep.json: each point's spread" jq -e '([.points[] | .repeats.n == 2 and .repeats.aops_min <= .repeats.aops_max] | all) and (.points | length == 2)' "$TMP/sweep/sweep.json"
check "each point's runs on disk" test -s "$TMP/sweep/points/1/runs/2/result.json" -a -s "$TMP/sweep/points/2/runs/2/result.json"
"$HARNESS" report "$TMP/sweep" >/dev/null 2>&1
check "sweep report: error bars on the AOPS chart" bash -c "sed -n '/data-chart=\"sweep-aops\"/,/<\/svg>/p' '$TMP/sweep/report.html' | grep -c 'class=\"errbar' | grep -qx 2"
check "sweep report: spread columns" grep -q 'data-key="sweep.1.repeats.aops_cv"' "$TMP/sweep/report.html"

# ---- Ctrl-C in run 2 of 3: what was made is written, invalid, 130 ----
AOPS_SLEEP_US=50000 "$HARNESS" --containers 1 --workloads sleep --repeat 3 --out "$TMP/int" --quiet >/dev/null 2>&1 &
pid=$!
# "In run 2" is seen, not slept for: its directory made (run 1 is over by
# then) and its worker forked, waited for up to 30 s, else the test's own failure.
in_run2() { [ -d "$TMP/int/runs/2" ] && [ "$(pgrep -c -P $pid)" -ge 1 ]; }
end=$((SECONDS + 30))
until in_run2 || [ $SECONDS -ge $end ]; do sleep 0.05; done
in_run2 || fail "interrupted repeat: the test's own precondition: run 2 and its worker never seen within 30 s"
kill -INT $pid
wait $pid
check_eq "interrupted repeat exits 130" 130 $?
check "the runs made so far are combined, invalid, with why" jq -e '.repeats.n == 2 and .valid == false and
    (.invalid_reasons | any(test("only 2 of 3 runs were made"))) and (.invalid_reasons | any(test("interrupted")))' "$TMP/int/result.json"

# ---- compare: within noise (fixtures) ----
F=$ROOT/tests/fixtures/result-sample-a.json
mkdir -p "$TMP/c/a" "$TMP/c/b" "$TMP/c/c" "$TMP/c/s1" "$TMP/c/s2"
jq '.totals.aops = 239.3 | .repeats = {n: 3, aops: [230, 239.3, 250], aops_median: 239.3, aops_min: 230, aops_max: 250, aops_cv: 4.2, median_run: 2}' "$F" >"$TMP/c/a/result.json"
jq '.totals.aops = 226 | .totals.aops_per_core = 28.25 | .repeats = {n: 3, aops: [220, 226, 235], aops_median: 226, aops_min: 220, aops_max: 235, aops_cv: 3.3, median_run: 2}' "$F" >"$TMP/c/b/result.json"
jq '.totals.aops = 120 | .totals.aops_per_core = 15 | .repeats = {n: 3, aops: [118, 120, 123], aops_median: 120, aops_min: 118, aops_max: 123, aops_cv: 2.1, median_run: 2}' "$F" >"$TMP/c/c/result.json"
cp "$F" "$TMP/c/s1/result.json"
jq '.totals.aops = 220' "$F" >"$TMP/c/s2/result.json"
out=$("$HARNESS" compare "$TMP/c/a" "$TMP/c/b" "$TMP/c/c" --html "$TMP/c/cmp.html" 2>&1)
check_contains "overlapping ranges: the ratio is said to be within noise" "B vs A: AOPS 0.94× (within noise: the runs' AOPS ranges overlap, A 230.0-250.0 (3 runs), B 220.0-235.0 (3 runs))" "$out"
check "apart: a plain ratio" grep -qx 'C vs A: AOPS 0.50×, per-core 0.50×, AOPS/W 1.00×, AOPS/W platform 1.00×' <<<"$out"
check_contains "each side's min-max" "230.0-250.0 (3 runs)     220.0-235.0 (3 runs)     118.0-123.0 (3 runs)" "$out"
check "HTML: within noise on B's AOPS ratio" grep -q 'data-noise="1.totals.aops">within noise' "$TMP/c/cmp.html"
check "HTML: none on C's" bash -c "! grep -q 'data-noise=\"2.totals.aops\"' '$TMP/c/cmp.html'"
check "HTML: each side's min and max" grep -q 'data-key="runs.2.repeats.aops_max" data-value="123"' "$TMP/c/cmp.html"
out=$("$HARNESS" compare "$TMP/c/s1" "$TMP/c/s2" --html "$TMP/c/single.html" 2>&1)
check_contains "single runs: the spread is said to be unknown" "spread: every run is a single run" "$out"
check "HTML: the same note" grep -q 'id="spread-note"' "$TMP/c/single.html"

# ---- bad values ----
for args in "--repeat 0" "--repeat many" "--warmup-cycles -1" "--max-cv -2"; do
    err=$("$HARNESS" --containers 1 --workloads sleep $args --out "$TMP/bad" 2>&1 >/dev/null)
    rc=$?
    check_eq "'$args' exits 2" 2 "$rc"
    check_eq "'$args' says so in one line" 1 "$(printf '%s\n' "$err" | wc -l)"
done
err=$("$HARNESS" --containers 1 --workloads sleep --repeat 2 --shard 0/2 --start-at $(($(date +%s) + 60)) --out "$TMP/bad" 2>&1 >/dev/null)
check_eq "--repeat with --shard exits 2" 2 $?
check_contains "and says why" "every run of a --repeat would need its own --start-at" "$err"
check "nothing ran for bad values" test ! -e "$TMP/bad/result.json"
finish
