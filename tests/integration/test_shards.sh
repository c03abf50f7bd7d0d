#!/usr/bin/env bash
# A run over several hosts, on one: 3 shards as 3 local processes against the
# real stack, released by one --start-at, each putting its result.json into
# the bucket (--results-url); then `harness merge s3://...`: exact op counts,
# global worker ids, valid, AOPS from the common release to the last
# completion, latency counts from the added histograms, and the per-host
# table in report and compare. Then the ways it must go invalid: a shard
# dropped or duplicated, a shard started after --start-at (it ends at once),
# peers that never resolve; and the options that cannot go together.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
B=aops-it-shards # data kept between runs: a rerun finds it prepared
P=results/$$-$RANDOM
URL=s3://$B/$P
C=$TMP/corpus
COMMON=(--profile tiny --bucket $B --corpus "$C" --patterns "$ROOT/corpus/patterns")
# One object set read by every worker keeps prepare to 1,190 HEADs; that each shard's
# workers get their own global ids (and so their own objects) is checked below, per worker.
RUN=(--containers 2 --dataset shared "${COMMON[@]}")

# The result objects this test put, removed again (the data set stays).
s3_as_stack
s3() { s3_curl "$B" "$@"; } # s3 METHOD PATH [curl args...]
cleanup() {
    s3_rm_prefix "$B" "$P"
    rm -rf "$TMP"
}
trap cleanup EXIT

"$HARNESS" corpus fetch --profile tiny --dir "$C" >/dev/null 2>&1 || fail "corpus fetch --profile tiny"
out=$("$HARNESS" prepare "${COMMON[@]}" --dataset shared --containers 6 2>&1)
rc=$?; check_eq "prepare for 3 shards x 2 containers" 0 $rc; [ $rc = 0 ] || echo "$out"

# --- 3 shards, one start -----------------------------------------------------------------------
T=$(( $(date +%s) + 5 ))
TEXT=$(date -u -d "@$T" +%Y-%m-%dT%H:%M:%SZ) # shard 1 gets the same time in RFC 3339
for i in 0 1 2; do
    at=$T; [ $i = 1 ] && at=$TEXT
    "$HARNESS" "${RUN[@]}" --shard $i/3 --start-at "$at" --results-url "$URL/run/" \
        --rendezvous '127.0.1.{i}' --out "$TMP/s$i" --quiet >"$TMP/s$i.log" 2>&1 &
    pids[$i]=$!
done
for i in 0 1 2; do
    wait ${pids[$i]}; rc=$?
    check_eq "shard $i exits 0 ($(tail -2 "$TMP/s$i.log" | tr '\n' ' '))" 0 $rc
done
for i in 0 1 2; do
    R=$TMP/s$i/result.json
    check "shard $i: valid" jq -e '.valid == true' "$R"
    check_eq "shard $i: 2 x 1,340 ops" 2680 "$(jq_ .totals.ops "$R")"
    check_eq "shard $i: its global worker ids" "$((2 * i)) $((2 * i + 1))" "$(jq_ '[.containers[].id] | join(" ")' "$R")"
    check "shard $i: index, count and worker ids in its shard block" \
        jq -e --argjson i $i '.shard.index == $i and .shard.count == 3 and .shard.worker_ids == [2*$i, 2*$i+1]' "$R"
    check "shard $i: released at --start-at (within 0.5 s), ready before it" \
        jq -e --argjson t $T '(.shard.released_at_ns / 1e9 - $t) as $d | $d >= 0 and $d < 0.5 and .shard.ready_at_ns < .shard.start_at_ns' "$R"
    check "shard $i: a clock offset against MinIO's Date (same machine: ~0)" \
        jq -e '(.shard.clock.offset_s | fabs) <= .shard.clock.uncertainty_s + 0.05 and (.shard.clock.reference | test("Date header"))' "$R"
    check "shard $i: the peers resolved" jq -e '.shard.rendezvous.peers == 3 and .shard.rendezvous.seconds >= 0' "$R"
    check "shard $i: completions per second add up to its ops" jq -e '([.ops_per_second.counts[]] | add) == .totals.ops' "$R"
    check "shard $i: a histogram per workload holding its ops" \
        jq -e '[.workloads | to_entries[] | .value.ops] == [.histograms.workloads | to_entries[] | .value.latency_ms.count]' "$R"
    check "shard $i: its result put in the store" jq -e --arg u "$URL/run/shard-$i-of-3-" '.shard.results_url | startswith($u)' "$R"
done
check_eq "the shards share one config hash" 1 "$(jq -s '[.[].shard.config_hash] | unique | length' "$TMP"/s?/result.json)"

# --- the merge, from the bucket ------------------------------------------------------------------
"$HARNESS" merge "$URL/run/" --out "$TMP/m" --results-url "$URL/run/merged/" >"$TMP/m.log" 2>&1
st=$?; check_eq "merge s3://.../run/ exits 0 ($(tail -3 "$TMP/m.log" | tr '\n' ' '))" 0 $st
M=$TMP/m/result.json
check "merged: valid" jq -e '.valid == true and (.invalid_reasons | length == 0)' "$M"
check_eq "merged: 3 x 2 x 1,340 ops" 8040 "$(jq_ .totals.ops "$M")"
check_eq "merged: ops = the shards' sum" "$(jq -s '[.[].totals.ops] | add' "$TMP"/s?/result.json)" "$(jq_ .totals.ops "$M")"
check_eq "merged: s3 ops" 7140 "$(jq_ .workloads.s3.ops "$M")"
check_eq "merged: db ops" 300 "$(jq_ .workloads.db.ops "$M")"
check_eq "merged: search ops" 600 "$(jq_ .workloads.search.ops "$M")"
check_eq "merged: s3 bytes exact" $(( 6 * (500 * 1024 + 500 * 10240 + 190 * 51200) )) "$(jq_ .workloads.s3.bytes "$M")"
check_eq "merged: containers 0..5, once each" "0 1 2 3 4 5" "$(jq_ '[.containers[].id] | sort | join(" ")' "$M")"
check_eq "merged: 3 shards, one machine" "3 1" "$(jq_ '"\(.shards | length) \(.system.hosts)"' "$M")"
# Each shard's instants on the common clock: its release moved by its measured offset.
wall=$(jq -s '[.[] | .shard.released_at_ns + .shard.clock.offset_s * 1e9] as $r
    | ([.[] | .shard.released_at_ns + .shard.clock.offset_s * 1e9 + .totals.wall_seconds * 1e9] | max) - ($r | min) | . / 1e9' "$TMP"/s?/result.json)
check "merged: wall = common release to the last completion, offsets applied ($wall s)" \
    jq -e --argjson w "$wall" '(.totals.wall_seconds - $w | fabs) < 1e-6' "$M"
check "merged: AOPS over that wall ($(jq_ .totals.aops "$M"))" jq -e --argjson w "$wall" '(.totals.aops * $w - 8040 | fabs) < 1e-3' "$M"
check "merged: cpu_util weighted by logical CPUs from the fleet series, one machine: its own mean" \
    jq -e --slurpfile s "$TMP/s0/result.json" '.telemetry.cpu_util.mean != null and (.telemetry.series | length > 0)' "$M"
check "merged: windows carry telemetry and overlap shares" \
    jq -e '[.windows[] | .cpu_util.mean != null and .overlap_share != null] | all' "$M"
check "merged: stragglers on the common clock" jq -e '.stragglers.finish.last <= .totals.wall_seconds + 1e-6' "$M"
check "merged: per-core over the machine's cores, counted once" \
    jq -e '(.totals.aops_per_core - .totals.aops / .system.physical_cores | fabs) < 1e-6 * .totals.aops' "$M"
check "merged: latency histograms hold every operation" \
    jq -e '.histograms.workloads.s3.latency_ms.count == 7140 and .histograms.workloads.db.patterns.point.count == 60' "$M"
check "merged: p95 between the shards' lowest p50 and highest max" \
    jq -e --slurpfile s <(cat "$TMP"/s?/result.json) '.workloads.s3.latency_ms.p95 >= ([$s[].workloads.s3.latency_ms.p50] | min) and .workloads.s3.latency_ms.p95 <= ([$s[].workloads.s3.latency_ms.max] | max)' "$M"
check "merged: completions per second add up" jq -e '([.ops_per_second.counts[]] | add) == 8040' "$M"
check "merged: no clock warning on one machine" jq -e '[.warnings[] | select(test("clock"))] | length == 0' "$M"
check_contains "merge prints the per-host table" "per host (3 shards on 1 machine(s))" "$(cat "$TMP/m.log")"
check "the merged result is in the store, and is no shard of the next merge" \
    bash -c "'$HARNESS' merge '$URL/run/' --out '$TMP/m2' --quiet && jq -e '.shards | length == 3' '$TMP/m2/result.json'"
check "... and can be read back" s3 GET "/$P/run/merged/result.json" -o "$TMP/back.json"
check "report: the per-host table" bash -c "'$HARNESS' report '$TMP/m' >/dev/null && grep -q 'data-key=\"shards.2.ops\" data-value=\"2680\"' '$TMP/m/report.html'"
check_contains "compare: the per-host table of a merged run" "per host (3 shards" "$("$HARNESS" compare "$TMP/m" "$TMP/s0" 2>&1)"

# --- dropped, duplicated ------------------------------------------------------------------------
"$HARNESS" merge "$TMP/s0" "$TMP/s1" --out "$TMP/drop" --quiet >/dev/null 2>&1
check_eq "a dropped shard: merge exits 1" 1 $?
check "... and says which" jq -e '.valid == false and (.invalid_reasons | any(test("shard 2 of 3 is missing")))' "$TMP/drop/result.json"
"$HARNESS" merge "$TMP/s0" "$TMP/s1" "$TMP/s2" "$TMP/s1/result.json" --out "$TMP/dup" --quiet >/dev/null 2>&1
check_eq "a duplicated shard: merge exits 1" 1 $?
check "... counted once, and said" jq -e '.totals.ops == 8040 and (.invalid_reasons | any(test("shard 1 of 3 appears 2 times")))' "$TMP/dup/result.json"

# --- a shard that starts late ends at once --------------------------------------------------------
t0=$(date +%s)
"$HARNESS" "${RUN[@]}" --shard 2/3 --start-at "$T" --results-url "$URL/late/" --out "$TMP/late" --quiet >"$TMP/late.log" 2>&1
check_eq "a shard ready after --start-at exits 1" 1 $?
check "... at once, without running an operation" test $(( $(date +%s) - t0 )) -lt 20
check "... saying by how much it missed" jq -e '.valid == false and .totals.ops == 0 and (.invalid_reasons[0] | test("^missed start by [0-9.]+ s")) and .shard.missed_start_s > 0' "$TMP/late/result.json"
"$HARNESS" merge "$TMP/s0" "$TMP/s1" "$URL/late/" --out "$TMP/m-late" --quiet >/dev/null 2>&1
check_eq "merging it: exit 1" 1 $?
check "... invalid: the late shard" jq -e '.valid == false and (.invalid_reasons | any(test("shard 2 .* is invalid: missed start by")))' "$TMP/m-late/result.json"

# --- global ids reach the workloads: shard 5 of 6 reads objects tiny/w10 and w11 --------------------
"$HARNESS" "${COMMON[@]}" --containers 2 --workloads s3 --shard 5/6 --start-at $(( $(date +%s) + 30 )) \
    --out "$TMP/w10" --quiet >/dev/null 2>&1
check_eq "shard 5/6, with an object set per worker: exit 1 (nothing prepared for ids 10, 11)" 1 $?
check "... its workers asked for the objects of global ids 10 and 11" \
    jq -e '.invalid_reasons[0] | test("tiny/w1[01]/") and test("harness prepare .*--containers 12( |$)") and test("--profile tiny")' "$TMP/w10/result.json"

# --- peers that never come up --------------------------------------------------------------------
out=$("$HARNESS" --containers 1 --workloads tick --shard 0/2 --start-at $(( $(date +%s) + 2 )) \
    --rendezvous 'aops-shard-{i}.invalid' --out "$TMP/rdv" --quiet 2>&1)
check_eq "peers that do not resolve by --start-at: exit 1" 1 $?
check "... the reason names them" jq -e '.invalid_reasons | any(test("rendezvous: 2 of 2 peers did not resolve by --start-at \\(aops-shard-0.invalid"))' "$TMP/rdv/result.json"

# --- options that do not go together: exit 2, nothing left behind ---------------------------------
bad() { # bad "description" "expected message" args...
    local what=$1 msg=$2; shift 2
    local err rc
    err=$("$HARNESS" "$@" --out "$TMP/bad" 2>&1 >/dev/null); rc=$?
    check_eq "$what: exit 2" 2 $rc
    check_contains "$what: says why" "$msg" "$err"
    check "$what: nothing left behind" test ! -e "$TMP/bad"
}
bad "--shard without --start-at" "needs --start-at" --containers 1 --shard 1/3
bad "--shard 3/3" "expected I/N" --containers 1 --shard 3/3 --start-at 1999999999
bad "--start-at nonsense" "--start-at 'soon'" --containers 1 --shard 0/2 --start-at soon
bad "--rendezvous without {i}" "needs {i}" --containers 1 --shard 0/2 --start-at 1999999999 --rendezvous host
bad "--peers not the shard count" "the peers are the 2 shards" --containers 1 --shard 0/2 --start-at 1999999999 --rendezvous 'h{i}' --peers 3
bad "a sweep with --shard" "not a sweep" --containers 1,2 --shard 0/2 --start-at 1999999999
bad "--results-url of no store" "no store for ftp://" --containers 1 --results-url ftp://b/p/
bad "prepare --shard" "prepare covers every shard at once" prepare --containers 1 --shard 0/2
err=$("$HARNESS" merge "$URL/nothing-here/" --out "$TMP/bad" 2>&1); rc=$?
check_eq "merge of an empty prefix: exit 2" 2 $rc
check_contains "... says so" "no result files (*.json) under" "$err"
check "... nothing left behind" test ! -e "$TMP/bad"
finish
