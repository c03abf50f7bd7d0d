#!/usr/bin/env bash
# The SLO verdict (--slo, result/slo.c) on real runs, against references outside the code:
#   - the whole job on the tiny profile against the real stack, judged twice by bounds far on
#     either side of anything a machine can do: 3600 s (an hour: the op timeout is 120 s, so
#     no operation that completed can take longer) must be met, 1 us must not (a GET is an HTTP
#     round trip over loopback: a connect, a request and a checksummed body, never under a
#     microsecond). Each check's figure is the latency_ms figure the result reports; the run
#     stays valid (an SLO verdict is not validity); check and the schema accept both results;
#   - the clock as the reference: the sleep workload with AOPS_SLEEP_US=3000 sleeps at least
#     3 ms per operation (nanosleep never returns early), so p50 <= 2.9 ms is never met;
#   - a merge is judged from the fleet's histograms, not by its shards' verdicts: shard 0
#     sleeps 1 ms per operation, shard 1 sleeps 60 ms, each 20 operations, and the bound is
#     p99 <= 50 ms. Shard 0 meets it (a 1 ms sleep woken 49 ms late would be a scheduling
#     delay no loaded 2-core machine gives), shard 1 cannot (60 ms by the clock), and the
#     fleet's p99 of 40 operations is the 40th by nearest rank, one of shard 1's: not met;
#   - the default SLO when --slo is not given, restricted to the run's workloads, and none on
#     a test workload (met null, with the reason);
#   - harness check recomputes each check from the log (nearest rank, errors, the verdict where
#     the bound is more than 1 % from the figure) and finds an edited one;
#   - a spec that does not parse, a name this build lacks, a workload the run does not run:
#     exit 2, one line naming the term, nothing left behind.
source "$(dirname "$0")/../lib.sh"

B=aops-it-slo
"$HARNESS" corpus fetch --profile tiny --dir "$TMP/corpus" >/dev/null 2>&1 || fail "corpus fetch --profile tiny"
out=$("$HARNESS" prepare --containers 1 --profile tiny --bucket $B --corpus "$TMP/corpus" 2>&1) || { fail "prepare"; echo "$out"; }
JOB=(--containers 1 --profile tiny --bucket $B --corpus "$TMP/corpus" --sample-interval 0.2)

# ---- the whole job: an hour is met, a microsecond is not ----
"$HARNESS" "${JOB[@]}" --out "$TMP/hour" \
    --slo 's3.p99<=3600s,db.p99<=3600s,search.p99.9<=3600s,s3.1MiB.p50<=3600s,db.point.p100<=3600s' \
    >"$TMP/hour.out" 2>"$TMP/hour.err"
st=$?; check_eq "a tiny run judged by hour-long bounds exits 0 ($(tail -2 "$TMP/hour.err"))" 0 $st
R=$TMP/hour/result.json
check "... met, every check met, none with a reason" jq -e \
    '.slo.met == true and (.slo.checks | length == 5) and all(.slo.checks[]; .met and .reason == null and .errors == 0)' $R
check "... spec and source as given" jq -e \
    '.slo.source == "given" and .slo.spec == "s3.p99<=3600s,db.p99<=3600s,search.p99.9<=3600s,s3.1MiB.p50<=3600s,db.point.p100<=3600s"' $R
check "... each measured figure is the one latency_ms reports (p99, p50 of the class, p100 = max)" jq -e '
    .slo.checks[0].measured_ms == .workloads.s3.latency_ms.p99
    and .slo.checks[3].measured_ms == .workloads.s3.classes["1MiB"].latency_ms.p50
    and .slo.checks[4].measured_ms == .workloads.db.patterns.point.latency_ms.max
    and .slo.checks[3].class == "1MiB" and .slo.checks[2].percentile == "p99.9"' $R
check "... bound_ms in milliseconds" jq -e 'all(.slo.checks[]; .bound_ms == 3600000)' $R
check_contains "... the summary says met" "SLO         met: s3.p99 " "$(cat "$TMP/hour.out")"
check "... harness check agrees with the result" "$HARNESS" check "$TMP/hour"
check "... the schema accepts it" python3 "$ROOT/tests/schema/validate.py" $R

# harness check recomputes the verdict from the log: a figure or a verdict edited is found
cp -r "$TMP/hour" "$TMP/forged"
jq '.slo.checks[0].measured_ms = 0.5 | .slo.checks[1].met = false' "$TMP/hour/result.json" >"$TMP/forged/result.json"
out=$("$HARNESS" check "$TMP/forged" 2>&1)
check_eq "check of an edited verdict exits 1" 1 $?
check_contains "... names the figure, with the log's nearest-rank value" "DIFFERS slo.checks.0.measured_ms: result.json 0.5, recomputed from the log" "$out"
check_contains "... and the verdict the log contradicts" "DIFFERS slo.checks.1.met: result.json false, but the log's p99 of db" "$out"
check_contains "... and slo.met against its checks" "DIFFERS slo.met: result.json true, but its checks say a bound is not met" "$out"

"$HARNESS" "${JOB[@]}" --out "$TMP/us" --slo 's3.p50<=1us,db.p99<=3600s' >"$TMP/us.out" 2>"$TMP/us.err"
st=$?; check_eq "a run that misses its SLO is still valid: exit 0 ($(tail -2 "$TMP/us.err"))" 0 $st
R=$TMP/us/result.json
check "... not met: the 1 us bound fails on its figure, the hour holds" jq -e '
    .valid and .slo.met == false and .slo.checks[0].met == false and .slo.checks[0].reason == null
    and .slo.checks[0].measured_ms > 0.001 and .slo.checks[1].met == true' $R
check_contains "... the summary says which" "NOT met: s3.p50 " "$(cat "$TMP/us.out")"
check "... the schema accepts it" python3 "$ROOT/tests/schema/validate.py" $R

# ---- the default SLO ----
"$HARNESS" "${JOB[@]}" --workloads s3 --out "$TMP/def" >/dev/null 2>&1
check "no --slo: the default, restricted to the run's workloads" jq -e \
    '.slo.source == "default" and .slo.spec == "s3.p99<=250ms" and (.slo.checks | length == 1)
     and .slo.checks[0].bound_ms == 250' "$TMP/def/result.json"

# ---- the clock: 3 ms sleeps are never at most 2.9 ms; a test workload has no default ----
AOPS_SLEEP_US=3000 "$HARNESS" --containers 2 --workloads sleep --out "$TMP/sl" \
    --slo 'sleep.p50<=2.9ms,sleep.p100<=3600s' --quiet >"$TMP/sl.out" 2>&1
check "sleeps of 3 ms: p50 <= 2.9 ms not met, the hour met" jq -e '
    .slo.met == false and .slo.checks[0].met == false and .slo.checks[0].measured_ms >= 3
    and .slo.checks[1].met == true' "$TMP/sl/result.json"
"$HARNESS" --containers 1 --workloads sleep --out "$TMP/sd" --quiet >/dev/null 2>&1
check "a test workload alone under the default SLO: met null, with why" jq -e \
    '.slo.met == null and (.slo.reason | test("no term")) and .slo.checks == []' "$TMP/sd/result.json"
# (a test workload's result is outside the schema, which lists the real workloads: its slo alone)
slo_schema() { python3 -c 'import json, sys, jsonschema
s = json.load(open(sys.argv[1]))["properties"]["slo"]
jsonschema.validate(json.load(open(sys.argv[2]))["slo"], s)' "$ROOT/result.schema.json" "$1"; }
check "... and the schema's slo accepts that too" slo_schema "$TMP/sd/result.json"

# ---- a merge is judged from the fleet's histograms ----
at=$(($(date +%s) + 4))
SH=(--containers 1 --workloads sleep --start-at $at --slo 'sleep.p99<=50ms' --quiet)
AOPS_SLEEP_US=1000 "$HARNESS" "${SH[@]}" --shard 0/2 --out "$TMP/s0" >"$TMP/s0.log" 2>&1 &
p0=$!
AOPS_SLEEP_US=60000 "$HARNESS" "${SH[@]}" --shard 1/2 --out "$TMP/s1" >"$TMP/s1.log" 2>&1 &
p1=$!
wait $p0 $p1
check "shard 0 (1 ms sleeps) meets p99 <= 50 ms" jq -e '.slo.met == true' "$TMP/s0/result.json"
check "shard 1 (60 ms sleeps) does not" jq -e '.slo.met == false and .slo.checks[0].measured_ms >= 60' "$TMP/s1/result.json"
"$HARNESS" merge "$TMP/s0" "$TMP/s1" --out "$TMP/m" --quiet >"$TMP/m.log" 2>&1
R=$TMP/m/result.json
check "the fleet: its p99 is one of shard 1's operations, not met ($(tail -1 "$TMP/m.log"))" jq -e '
    .slo.spec == "sleep.p99<=50ms" and .slo.met == false and .slo.checks[0].measured_ms >= 60
    and .histograms.workloads.sleep.latency_ms.count == 40' $R
check "... and its median one of shard 0's: the merged histogram, not a shard's verdict" \
    jq -e '.workloads.sleep.latency_ms.p50 < 50' $R
check "... the schema's slo accepts the merged one" slo_schema $R

# ---- specs that are refused before anything runs ----
bad() { # bad "description" "expected message" args...
    local what=$1 msg=$2; shift 2
    check_refused "$what" "$msg" "$HARNESS" "$@" --out "$TMP/bad"
    check "$what: nothing left behind" test ! -e "$TMP/bad"
}
bad "no unit" "SLO term 2 'db.p99<=50': no unit after the bound" --containers 1 --slo 's3.p99<=250ms,db.p99<=50'
bad "a strict <" "the operator is '<='" --containers 1 --slo 's3.p99<250ms'
bad "an unknown workload" "no workload 'nosuch'" --containers 1 --slo 'nosuch.p99<=1ms'
bad "an unknown class" "has no class '2MiB'" --containers 1 --slo 's3.2MiB.p99<=1ms'
bad "a workload the run does not run" "does not run workload s3" --containers 1 --workloads sleep --slo 's3.p99<=1s'
bad "a control character" "printable" --containers 1 --slo "$(printf 's3.p99<=1s\033[2J')"
finish
