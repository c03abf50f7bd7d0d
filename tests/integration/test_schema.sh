#!/usr/bin/env bash
# result.json against result.schema.json, with a real validator (Debian's python3-jsonschema,
# Draft202012Validator, in tests/schema/validate.py):
#   - a tiny single run, a --repeat 2 run (the combined result and each run's), two shards of
#     one fleet run and their merge, an invalid result (a shard that missed its start) and a
#     harness capacity search's result.json (a run's with capacity{}), all against the real
#     stack: each validates;
#   - the validator is no rubber stamp: the single run's result with a key of the wrong type, an
#     unknown top-level key, a fixed key removed, each fails; a file that is not JSON exits 2;
#   - the key table (result/keys.c): the merged and the repeated result have every top-level key
#     of the single run (null with its reason where it cannot be merged), harness check passes
#     the single, repeated, shard, merged and capacity results and names a null without its
#     reason;
#   - KNOWN_GAPS below pins today's distance from the contract of issue 37, so that new drift
#     fails here and a gap closed shows (and fails until it is taken off the list): where SPEC.md's
#     fixed keys and the schema disagree (tests/schema/spec_keys.py), keys the schema lets be null
#     with no reason key beside them (validate.py --nullable), the top-level and section keys a
#     merged result lacks or adds against a single run, and the version-1 fixtures that do not
#     validate once read through harness upgrade (result_upgrade()). The nulls without a reason
#     in each result are counted and printed, not pinned (a machine with RAPL or PCIe disks has
#     fewer).
# AOPS_SCHEMA_KEEP=DIR keeps the results there.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
V=tests/schema/validate.py
B=aops-it-schema # data kept between runs: a rerun finds it prepared
C=$TMP/corpus
COMMON=(--profile tiny --bucket "$B" --corpus "$C" --patterns "$ROOT/corpus/patterns" --dataset shared)

check "the schema is a valid JSON Schema 2020-12 (the meta-schema)" \
    /usr/bin/python3 -c 'import json, jsonschema; jsonschema.Draft202012Validator.check_schema(json.load(open("result.schema.json")))'

"$HARNESS" corpus fetch --profile tiny --dir "$C" >/dev/null 2>&1 || fail "corpus fetch --profile tiny"
out=$("$HARNESS" prepare "${COMMON[@]}" --containers 2 2>&1) || { fail "prepare"; echo "$out"; }

"$HARNESS" "${COMMON[@]}" --containers 1 --out "$TMP/one" --quiet >"$TMP/one.log" 2>&1
st=$?; check_eq "single run exits 0 ($(tail -1 "$TMP/one.log"))" 0 $st
"$HARNESS" "${COMMON[@]}" --containers 1 --repeat 2 --out "$TMP/rep" --quiet >"$TMP/rep.log" 2>&1
st=$?; check_eq "--repeat 2 exits 0 ($(tail -1 "$TMP/rep.log"))" 0 $st

# Two shards released together. A shard not ready by --start-at ends at once ("missed start"):
# on a loaded machine the pair is started again with twice the lead, so that no run depends on
# the machine being quick.
lead=3
for _ in 1 2 3; do
    T=$(($(date +%s) + lead))
    for i in 0 1; do
        rm -rf "$TMP/s$i"
        "$HARNESS" "${COMMON[@]}" --containers 1 --shard $i/2 --start-at $T --out "$TMP/s$i" \
            --quiet >"$TMP/s$i.log" 2>&1 &
        pids[i]=$!
    done
    rc0=0 rc1=0
    wait "${pids[0]}" || rc0=$?
    wait "${pids[1]}" || rc1=$?
    grep -qs "missed start" "$TMP"/s?/result.json || break
    lead=$((lead * 2))
done
check_eq "two shards exit 0 ($(tail -1 "$TMP/s0.log") / $(tail -1 "$TMP/s1.log"))" "0 0" "$rc0 $rc1"
"$HARNESS" merge "$TMP/s0" "$TMP/s1" --out "$TMP/m" --quiet >"$TMP/m.log" 2>&1
st=$?; check_eq "merge of the two exits 0 ($(tail -1 "$TMP/m.log"))" 0 $st
check "the merged result has two shards" jq -e '.shards | length == 2' "$TMP/m/result.json"
# An invalid result is a result too: a shard started after its --start-at ends at once.
"$HARNESS" "${COMMON[@]}" --containers 1 --shard 0/2 --start-at $(($(date +%s) - 5)) --out "$TMP/late" \
    --quiet >/dev/null 2>&1
check_eq "a shard after its --start-at: exit 1" 1 $?
check "... invalid, with its reason" jq -e '.valid == false and (.invalid_reasons[0] | test("^missed start"))' "$TMP/late/result.json"
# A capacity search's result.json (harness capacity): one count, no confirmation, bounds of an
# hour, so it passes: its run's result with capacity{} beside it.
"$HARNESS" capacity "${COMMON[@]}" --containers 1..1 --repeat 1 \
    --slo 's3.p99<=3600s,db.p99<=3600s,search.p99<=3600s' --out "$TMP/cap" >"$TMP/cap.log" 2>&1
st=$?; check_eq "a capacity search of one count exits 0 ($(tail -2 "$TMP/cap.log" | head -1))" 0 $st
check "... its result.json is the point's run, capacity{} in it" jq -e \
    '.capacity.agents_at_slo == 1 and .capacity.at_least == true and .capacity.headline.dir == "points/1"' \
    "$TMP/cap/result.json"

# One validator run for all of them (each start of python3 and jsonschema costs ~0.3 s here);
# each line it prints names its file.
ALL=(one rep rep/runs/1 rep/runs/2 s0 s1 m late cap)
files=()
for r in "${ALL[@]}"; do files+=("$TMP/$r/result.json"); done
out=$(/usr/bin/python3 "$V" "${files[@]}" 2>&1)
rc=$?
check_eq "the validator passes all ${#ALL[@]} results (exit status)" 0 $rc
[ $rc = 0 ] || echo "$out" | head -40
for r in "${ALL[@]}"; do
    check_eq "$r/result.json validates against result.schema.json" "" "$(grep -F "$TMP/$r/result.json: " <<<"$out")"
done
check "the repeat result is the one with repeats{}" jq -e '.repeats.n == 2' "$TMP/rep/result.json"

# ---- the key table (result/keys.c): harness check's own check of each result's keys -----------
# A merged and a repeated result have every top-level key a single run has; harness check (its
# key findings among the rest) passes each result that has a log to recompute from.
for r in rep m; do
    check_eq "$r/result.json has every top-level key of the single run" "" \
        "$(comm -23 <(jq -r 'keys[]' "$TMP/one/result.json" | sort) <(jq -r 'keys[]' "$TMP/$r/result.json" | sort))"
done
check_eq "the merged result: what cannot be merged is null, its reason beside it" \
    "null not merged null not merged" \
    "$(jq -r '"\(.placement) \(.placement_reason[0:10]) \(.attribution) \(.attribution_unavailable.run[0:10])"' "$TMP/m/result.json")"
for r in one rep s0 m cap; do
    out=$("$HARNESS" check "$TMP/$r" 2>&1)
    st=$?; check_eq "harness check $r: exit 0 ($(grep -m1 'DIFFERS\|harness check' <<<"$out"))" 0 $st
done
cp -r "$TMP/one" "$TMP/nokey"
jq 'del(.placement_reason) | .placement = null' "$TMP/one/result.json" >"$TMP/nokey/result.json"
out=$("$HARNESS" check "$TMP/nokey" 2>&1)
check_eq "harness check of a null without its reason: exit 1" 1 $?
check_contains "... naming the key" "placement: null without its reason (placement_reason)" "$out"

# ---- the validator rejects what breaks the schema ----------------------------------------------
# Each broken on purpose from the single run's result, all checked in one validator run.
R=$TMP/one/result.json
BAD=(
    "totals.ops a string|.totals.ops = \"many\"|.totals.ops: 'many' is not of type 'integer'"
    "an unknown top-level key|. + {surprise: 1}|.: Additional properties are not allowed ('surprise' was unexpected)"
    "valid removed|del(.valid)|.: 'valid' is a required property"
    "a latency summary without p99|del(.workloads.s3.latency_ms.p99)|.workloads.s3.latency_ms: 'p99' is a required property"
    "a null where the schema allows none|.workloads.db.ops = null|.workloads.db.ops: None is not of type 'integer'"
)
files=()
for k in "${!BAD[@]}"; do
    IFS='|' read -r _ filter _ <<<"${BAD[$k]}"
    jq "$filter" "$R" >"$TMP/bad$k.json"
    files+=("$TMP/bad$k.json")
done
out=$(/usr/bin/python3 "$V" "${files[@]}" 2>&1)
check_eq "the broken results: exit 1" 1 $?
for k in "${!BAD[@]}"; do
    IFS='|' read -r what _ msg <<<"${BAD[$k]}"
    check_contains "$what: fails, saying which" "$TMP/bad$k.json: $msg" "$out"
    check_eq "$what: that is its only complaint" 1 "$(grep -c "^$TMP/bad$k.json: " <<<"$out")"
done
echo '{"schema_version": 2,' >"$TMP/trunc.json"
out=$(/usr/bin/python3 "$V" "$TMP/trunc.json" 2>&1)
check_eq "a file that is not JSON: exit 2" 2 $?
check_contains "... one line saying so" "not JSON" "$out"
check_eq "... only one line" 1 "$(wc -l <<<"$out")"

# ---- nulls without a reason, counted (not pinned: the machine decides many) -----------------------
out=$(/usr/bin/python3 "$V" --nulls "$TMP/one/result.json" "$TMP/rep/result.json" "$TMP/m/result.json")
for r in one rep m; do
    lines=$(grep -F "$TMP/$r/result.json: " <<<"$out" | grep ': null')
    echo "info: $r/result.json: $(grep -c . <<<"$lines") nulls without a reason key, at" \
        "$(sed 's/^[^:]*: //; s/\[[0-9]*\]/[]/g' <<<"$lines" | sort -u | grep -c .) distinct key paths"
done

# ---- today's gaps, pinned -----------------------------------------------------------------------
gaps() {
    SPEC_LINES=$(/usr/bin/python3 tests/schema/spec_keys.py)
    [ -n "$SPEC_LINES" ] && sed 's/^/spec /' <<<"$SPEC_LINES"
    /usr/bin/python3 "$V" --nullable | sed 's/^/null-without-reason /'
    # the keys of each section, a merged result against a single run (windows left out: which
    # windows overlap, and so carry "exclusive", is the run's timing)
    for s in . .system .storage .oplog .telemetry '.telemetry.series[0]' .config '.containers[0]' .provenance; do
        p=${s#.} && p=${p//\[0\]/[]} && p=${p:+$p.}
        a=$(jq -r "$s | keys[]" "$TMP/one/result.json" | sort)
        b=$(jq -r "$s | keys[]" "$TMP/m/result.json" | sort)
        comm -23 <(echo "$a") <(echo "$b") | sed "s|^|merged-lacks $p|"
        comm -13 <(echo "$a") <(echo "$b") | sed "s|^|merged-adds $p|"
    done
    # each fixture read as the harness reads it (harness upgrade, common/upgrade.c): a key of
    # a wrong shape is a gap; keys that later builds added and an older one did not write
    # (CHANGELOG.md) are one gap line for the fixture, not one per key
    mkdir -p "$TMP/fixup"
    for f in tests/fixtures/result-*.json; do
        u=$TMP/fixup/$(basename "$f")
        if ! "$HARNESS" upgrade "$f" >"$u" 2>"$u.err"; then
            echo "fixture-unreadable $f: $(head -1 "$u.err")"
            continue
        fi
        /usr/bin/python3 - "$f" "$u" <<'PY'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open("result.schema.json")))
errs = list(v.iter_errors(json.load(open(sys.argv[2]))))
ver = json.load(open(sys.argv[1])).get("schema_version")
if any(e.validator != "required" for e in errs):
    print("fixture-invalid %s (schema_version %s, upgraded)" % (sys.argv[1], ver))
elif errs:
    print("fixture-lacks-later-keys %s (schema_version %s, upgraded)" % (sys.argv[1], ver))
PY
    done
}
KNOWN_GAPS=$(
    cat <<'EOF'
# SPEC.md against the schema (tests/schema/spec_keys.py): attribution's machine has no cpu_s_per_op
# or share; three items of SPEC are prose, not key names.
spec prose clock offset ± uncertainty
spec prose data hashes
spec prose ready / release times
spec spec-only attribution.*.machine.cpu_s_per_op
spec spec-only attribution.*.machine.share
spec spec-only attribution.run.machine.cpu_s_per_op
spec spec-only attribution.run.machine.share

# Keys the schema lets be null with no reason key beside them (validate.py --nullable); issue 37:
# null only where a reason key goes with it (x-null-reason), or where null is a value the schema
# explains (x-null-means: not pinned, an empty histogram, inventory this machine does not expose).
# A $defs shape counts once per place it is used.
null-without-reason .provenance.build.exe_sha256
null-without-reason .provenance.servers.db.version
null-without-reason .provenance.servers.s3.version
null-without-reason .shards[].telemetry
null-without-reason .shards[].telemetry.cpu_util
null-without-reason .shards[].telemetry.read_Bps
null-without-reason .shards[].telemetry.read_iops
null-without-reason .shards[].telemetry.steal_pct
null-without-reason .shards[].telemetry.write_Bps
null-without-reason .shards[].telemetry.write_iops
null-without-reason .shards[].windows.db.cpu_util
null-without-reason .shards[].windows.db.disk_bytes_per_workload_byte
null-without-reason .shards[].windows.db.disk_read_bytes
null-without-reason .shards[].windows.db.exclusive.cpu_util
null-without-reason .shards[].windows.db.exclusive.disk_bytes_per_workload_byte
null-without-reason .shards[].windows.db.exclusive.disk_read_bytes
null-without-reason .shards[].windows.db.exclusive.read_Bps
null-without-reason .shards[].windows.db.exclusive.read_iops
null-without-reason .shards[].windows.db.exclusive.served_from_disk
null-without-reason .shards[].windows.db.exclusive.steal_pct
null-without-reason .shards[].windows.db.exclusive.write_Bps
null-without-reason .shards[].windows.db.exclusive.write_iops
null-without-reason .shards[].windows.db.read_Bps
null-without-reason .shards[].windows.db.read_iops
null-without-reason .shards[].windows.db.served_from_disk
null-without-reason .shards[].windows.db.steal_pct
null-without-reason .shards[].windows.db.write_Bps
null-without-reason .shards[].windows.db.write_iops
null-without-reason .shards[].windows.s3.cpu_util
null-without-reason .shards[].windows.s3.disk_bytes_per_workload_byte
null-without-reason .shards[].windows.s3.disk_read_bytes
null-without-reason .shards[].windows.s3.exclusive.cpu_util
null-without-reason .shards[].windows.s3.exclusive.disk_bytes_per_workload_byte
null-without-reason .shards[].windows.s3.exclusive.disk_read_bytes
null-without-reason .shards[].windows.s3.exclusive.read_Bps
null-without-reason .shards[].windows.s3.exclusive.read_iops
null-without-reason .shards[].windows.s3.exclusive.served_from_disk
null-without-reason .shards[].windows.s3.exclusive.steal_pct
null-without-reason .shards[].windows.s3.exclusive.write_Bps
null-without-reason .shards[].windows.s3.exclusive.write_iops
null-without-reason .shards[].windows.s3.read_Bps
null-without-reason .shards[].windows.s3.read_iops
null-without-reason .shards[].windows.s3.served_from_disk
null-without-reason .shards[].windows.s3.steal_pct
null-without-reason .shards[].windows.s3.write_Bps
null-without-reason .shards[].windows.s3.write_iops
null-without-reason .shards[].windows.search.cpu_util
null-without-reason .shards[].windows.search.disk_bytes_per_workload_byte
null-without-reason .shards[].windows.search.disk_read_bytes
null-without-reason .shards[].windows.search.exclusive.cpu_util
null-without-reason .shards[].windows.search.exclusive.disk_bytes_per_workload_byte
null-without-reason .shards[].windows.search.exclusive.disk_read_bytes
null-without-reason .shards[].windows.search.exclusive.read_Bps
null-without-reason .shards[].windows.search.exclusive.read_iops
null-without-reason .shards[].windows.search.exclusive.served_from_disk
null-without-reason .shards[].windows.search.exclusive.steal_pct
null-without-reason .shards[].windows.search.exclusive.write_Bps
null-without-reason .shards[].windows.search.exclusive.write_iops
null-without-reason .shards[].windows.search.read_Bps
null-without-reason .shards[].windows.search.read_iops
null-without-reason .shards[].windows.search.served_from_disk
null-without-reason .shards[].windows.search.steal_pct
null-without-reason .shards[].windows.search.write_Bps
null-without-reason .shards[].windows.search.write_iops
null-without-reason .storage.disk_bytes_per_workload_byte
null-without-reason .storage.disk_read_bytes
null-without-reason .storage.served_from_disk
null-without-reason .telemetry.cpu_util
null-without-reason .telemetry.read_Bps
null-without-reason .telemetry.read_iops
null-without-reason .telemetry.steal_pct
null-without-reason .telemetry.write_Bps
null-without-reason .telemetry.write_iops
null-without-reason .windows.*.cpu_util
null-without-reason .windows.*.disk_bytes_per_workload_byte
null-without-reason .windows.*.disk_read_bytes
null-without-reason .windows.*.exclusive.cpu_util
null-without-reason .windows.*.exclusive.disk_bytes_per_workload_byte
null-without-reason .windows.*.exclusive.disk_read_bytes
null-without-reason .windows.*.exclusive.read_Bps
null-without-reason .windows.*.exclusive.read_iops
null-without-reason .windows.*.exclusive.served_from_disk
null-without-reason .windows.*.exclusive.steal_pct
null-without-reason .windows.*.exclusive.write_Bps
null-without-reason .windows.*.exclusive.write_iops
null-without-reason .windows.*.read_Bps
null-without-reason .windows.*.read_iops
null-without-reason .windows.*.served_from_disk
null-without-reason .windows.*.steal_pct
null-without-reason .windows.*.write_Bps
null-without-reason .windows.*.write_iops

# A merged result against a single run, below the top level (where it has every key a single
# run has, result/keys.c): the section keys it lacks and the ones only it has.
merged-adds config.containers_per_shard
merged-adds config.shards
merged-adds containers[].shard
merged-adds containers[].shard_seconds
merged-adds merge
merged-adds oplog.shards
merged-adds provenance.per_host
merged-adds shards
merged-adds system.hosts
merged-adds system.per_host
merged-adds telemetry.per_host
merged-adds telemetry.series[].dt
merged-adds telemetry.series[].ops_per_s
merged-adds telemetry.series[].power_platform_w
merged-adds telemetry.series[].workload_read_Bps
merged-lacks oplog.file
merged-lacks oplog.format
merged-lacks oplog.record_bytes
merged-lacks oplog.records
merged-lacks storage.cache
merged-lacks storage.dataset_bytes
merged-lacks storage.dataset_to_memory
merged-lacks storage.memory_bytes
merged-lacks system.backends
merged-lacks system.clusters
merged-lacks system.command_line
merged-lacks system.compiler
merged-lacks system.cpu_family
merged-lacks system.cpu_model_number
merged-lacks system.cpu_settings
merged-lacks system.cpu_stepping
merged-lacks system.cpu_types
merged-lacks system.dmi
merged-lacks system.dmi_unavailable
merged-lacks system.kernel_settings
merged-lacks system.l1d_bytes
merged-lacks system.l1i_bytes
merged-lacks system.l2_bytes
merged-lacks system.l3_bytes
merged-lacks system.memory_dimms
merged-lacks system.memory_dimms_unavailable
merged-lacks system.nics
merged-lacks system.os_release
merged-lacks system.smt
merged-lacks system.topology
merged-lacks telemetry.baseline_read_Bps
merged-lacks telemetry.baseline_s
merged-lacks telemetry.baseline_unavailable_reason
merged-lacks telemetry.data_paths
merged-lacks telemetry.devices
merged-lacks telemetry.read_pct_of_baseline
merged-lacks telemetry.samples
merged-lacks telemetry.series[].workloads

# The version-1 fixtures after result_upgrade() (harness upgrade): the tiny runs' validate (the
# keys their builds had not written yet are null, listed in not_recorded); the report's samples
# are hand-written and carry keys of a shape no build wrote (a top-level "harness",
# config.corpus.manifest{files, bytes, sha256}).
fixture-invalid tests/fixtures/result-sample-a.json (schema_version 1, upgraded)
fixture-invalid tests/fixtures/result-sample-b.json (schema_version 1, upgraded)
EOF
)
now=$(gaps | sort)
known=$(grep -v '^#\|^$' <<<"$KNOWN_GAPS" | sort)
echo "info: $(wc -l <<<"$now") known gaps today (spec: $(grep -c '^spec ' <<<"$now"), null-without-reason: $(grep -c '^null-without-reason ' <<<"$now"), merged shape: $(grep -c '^merged-' <<<"$now"), v1 fixtures: $(grep -c '^fixture-' <<<"$now"))"
new=$(comm -13 <(echo "$known") <(echo "$now"))
gone=$(comm -23 <(echo "$known") <(echo "$now"))
check_eq "no new gap against the contract (new drift: fix it, or add it to KNOWN_GAPS with a reason)" "" "$new"
check_eq "no gap closed unseen (take these off KNOWN_GAPS)" "" "$gone"
if [ -n "${AOPS_SCHEMA_KEEP:-}" ]; then # the results, for a look at what failed
    mkdir -p "$AOPS_SCHEMA_KEEP" && cp -r "$TMP/one" "$TMP/rep" "$TMP/s0" "$TMP/s1" "$TMP/m" "$AOPS_SCHEMA_KEEP/"
fi
finish
