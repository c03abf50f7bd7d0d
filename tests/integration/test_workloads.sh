#!/usr/bin/env bash
# The workload interface end to end: the test-only `tick` workload (one file
# and one registry line, nothing else) has its counter and histogram in
# result.json, the summary, the report, CSV and compare, all from its
# descriptor; its option comes from its own rows. And the workloads' own
# checks refuse bad settings before anything starts.
source "$(dirname "$0")/../lib.sh"

out=$("$HARNESS" --containers 2 --cycles 3 --workloads tick --tick-us 300 --out "$TMP/a" --csv "$TMP/a/csv" 2>&1)
R=$TMP/a/result.json
check_eq "tick: 2 x 3 x 10 operations" 60 "$(jq -r .totals.ops $R)"
check_eq "result.json: the counter, one per operation" 60 "$(jq -r .workloads.tick.ticks $R)"
check "result.json: the histogram, as ms" jq -e '.workloads.tick.oversleep_ms.p50 >= 0 and .workloads.tick.oversleep_ms.max >= .workloads.tick.oversleep_ms.p50' $R
check "result.json: its latency holds the 300 us sleep" jq -e '.workloads.tick.latency_ms.p50 >= 0.3' $R
check "a test-only workload makes the run invalid" jq -e '.valid == false and (.invalid_reasons | any(test("test-only")))' $R
check_contains "summary: the counter" "tick     ticks 60" "$out"
check_contains "summary: the histogram" "tick     oversleep ms: mean" "$out"
check "CSV: a ticks column" grep -q '^workload,class,.*,ticks$' "$TMP/a/csv/workloads.csv"
check_eq "CSV: the tick row's ticks" 60 "$(awk -F, '$1=="tick" && $2=="" {print $NF}' "$TMP/a/csv/workloads.csv")"
check "CSV: a latency column per workload in containers.csv" grep -q 'latency_ms_mean_tick' "$TMP/a/csv/containers.csv"
"$HARNESS" report "$TMP/a" >/dev/null 2>&1
check "report: the counter row" grep -q 'data-key="workloads.tick.ticks" data-value="60"' "$TMP/a/report.html"
check "report: the histogram row" grep -q 'data-key="workloads.tick.oversleep_ms.p99"' "$TMP/a/report.html"
"$HARNESS" --containers 1 --cycles 3 --workloads tick --out "$TMP/b" --quiet >/dev/null 2>&1
cmp=$("$HARNESS" compare "$TMP/a" "$TMP/b" --html "$TMP/cmp.html" 2>&1)
check_contains "compare: the counter, side by side" "tick ticks" "$cmp"
check_contains "compare: the histogram, side by side" "tick oversleep p95 ms" "$cmp"
check "compare HTML: the counter with its ratio" grep -q 'data-key="ratio.1.workloads.tick.ticks" data-value="0.5"' "$TMP/cmp.html"

# Its option is its own row: bad values are refused like any other.
err=$("$HARNESS" --containers 1 --workloads tick --tick-us lots 2>&1 >/dev/null); rc=$?
check_eq "--tick-us lots exits 2" 2 "$rc"
check_contains "--tick-us lots says why" "--tick-us 'lots': expected a whole number" "$err"

# The search workload's check: a patterns file must hold a cycle's 100 searches.
head -50 "$ROOT/corpus/patterns" >"$TMP/short"
err=$("$HARNESS" --containers 1 --profile tiny --patterns "$TMP/short" --out "$TMP/p" 2>&1 >/dev/null); rc=$?
check_eq "a patterns file of 47 patterns exits 2" 2 "$rc"
check_contains "and says so in one line" "holds 47 patterns; a cycle runs exactly 100 searches" "$err"
check_eq "one line" 1 "$(printf '%s\n' "$err" | wc -l)"
check "nothing ran" test ! -e "$TMP/p/result.json"

# --op-timeout covers searches: a search past it stops (between files, between
# reads) and is an error naming its pattern. 99 quick searches and one that
# takes PCRE2 some 20 s over the tiny corpus (it backtracks on every line).
"$HARNESS" corpus fetch --profile tiny >/dev/null 2>&1
for i in $(seq 99); do printf 'any\tstatic\n'; done >"$TMP/slow"
printf 'any\t(\\w+\\s*)+\\(\n' >>"$TMP/slow"
t0=$(date +%s.%N)
"$HARNESS" --containers 1 --profile tiny --workloads search --patterns "$TMP/slow" --op-timeout 0.5 \
    --out "$TMP/slow-run" --quiet >/dev/null 2>&1
t1=$(date +%s.%N)
R=$TMP/slow-run/result.json
check_eq "--op-timeout: the slow search is the one error" "99 1" "$(jq -r '"\(.workloads.search.ops) \(.workloads.search.errors)"' "$R")"
check_contains "--op-timeout: the error names the pattern and the limit" "('(\w+\s*)+\(') ran past --op-timeout 0.5 s" "$(jq -r '.containers[0].error' "$R")"
check "--op-timeout: the run did not wait for it (took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)" \
    awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 8) }'

# Secrets are rows too, and never taken from the command line.
err=$("$HARNESS" --containers 1 --s3-secret-key hunter2 2>&1 >/dev/null); rc=$?
check_eq "a secret on argv exits 2" 2 "$rc"
check_contains "and names where it comes from" "AWS_SECRET_ACCESS_KEY in the environment" "$err"
check_lacks "and is not echoed" 'hunter2' "$err"
finish
