#!/usr/bin/env bash
# result.json against result.schema.json, with a real validator (Debian's python3-jsonschema,
# Draft202012Validator, in tests/schema/validate.py):
#   - a tiny single run, a --repeat 2 run (the combined result and each run's), two shards of
#     one fleet run and their merge, two invalid results (a shard that missed its start, a
#     run whose S3 endpoint does not answer) and a harness capacity search's result.json (a
#     run's with capacity{}), all against the real stack: each validates;
#   - the validator is no rubber stamp: the single run's result with a key of the wrong type, an
#     unknown top-level key, a fixed key removed, each fails; a file that is not JSON exits 2;
#   - the key table (result/keys.c): the merged and the repeated result have every top-level key
#     of the single run (null with its reason where it cannot be merged), harness check passes
#     the single, repeated, shard, merged and capacity results and names a null without its
#     reason;
#   - every null in each of those results has its reason key beside it, present and not null
#     (validate.py --nulls; how many nulls there are is the machine's: RAPL, PCIe disks);
#   - KNOWN_GAPS below pins today's distance from the contract of issue 37, so that new drift
#     fails here and a gap closed shows (and fails until it is taken off the list): where SPEC.md's
#     fixed keys and the schema disagree (tests/schema/spec_keys.py), keys the schema lets be null
#     with no reason key beside them (validate.py --nullable: none), the section keys a merged
#     result lacks (none) or adds against a single run, and the version-1 fixtures that do not
#     validate once read through harness upgrade (result_upgrade()).
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
# Below the top level, worked out from the shards' own results: the logs kept hold the records
# the shards wrote, in their format; the machine's devices name its host; what differs between
# the shards (each its own --shard I/N) is null and named.
check_eq "merged oplog: the shards' records, format and record size, no file of its own" \
    "$(jq -s '[(map(.oplog.records) | add), .[0].oplog.format, .[0].oplog.record_bytes, null]' -c "$TMP/s0/result.json" "$TMP/s1/result.json")" \
    "$(jq -c '[.oplog.records, .oplog.format, .oplog.record_bytes, .oplog.file]' "$TMP/m/result.json")"
check_eq "merged telemetry.devices: the machine's, naming its host" \
    "$(jq -c --arg h "$(jq -r .shard.host "$TMP/s0/result.json")" '[.telemetry.devices[] | . + {host: $h}]' "$TMP/s0/result.json")" \
    "$(jq -c '.telemetry.devices' "$TMP/m/result.json")"
check "merged system: command_line null and named in shards_differ, smt the shards' own" \
    jq -e --slurpfile s "$TMP/s0/result.json" '.system.command_line == null and .system.shards_differ == ["command_line"] and .system.smt == $s[0].system.smt' "$TMP/m/result.json"
# An invalid result is a result too: a shard started after its --start-at ends at once.
"$HARNESS" "${COMMON[@]}" --containers 1 --shard 0/2 --start-at $(($(date +%s) - 5)) --out "$TMP/late" \
    --quiet >/dev/null 2>&1
check_eq "a shard after its --start-at: exit 1" 1 $?
check "... invalid, with its reason" jq -e '.valid == false and (.invalid_reasons[0] | test("^missed start"))' "$TMP/late/result.json"
# And one whose S3 endpoint does not answer: it ends before the sampler's first sample, so its
# CPU and disk figures are null (a build before this check wrote them with no reason beside).
"$HARNESS" "${COMMON[@]}" --containers 1 --workloads s3 --s3-endpoint http://127.0.0.1:1 \
    --out "$TMP/nos3" --quiet >/dev/null 2>&1
check_eq "an S3 endpoint that does not answer: exit 1" 1 $?
check "... its CPU figure null, the reason beside it" \
    jq -e '.telemetry.cpu_util == null and (.telemetry.cpu_unavailable_reason | test("no sample was taken"))' "$TMP/nos3/result.json"

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
ALL=(one rep rep/runs/1 rep/runs/2 s0 s1 m late nos3 cap)
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
# A shard whose db window shared all its time with another workload: result/windows.c writes
# its exclusive part as {seconds: 0} alone. A real two-shard capacity run's merge had one, and
# the schema wanted every figure there.
jq '.shards[0].windows.db.exclusive = {seconds: 0}' "$TMP/m/result.json" >"$TMP/m-excl0.json"
check_eq "a merge with a shard's window of no exclusive time validates" "" \
    "$(/usr/bin/python3 "$V" "$TMP/m-excl0.json" 2>&1)"

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

# ---- every null with its reason beside it ----------------------------------------------------------
# validate.py --nulls: each null the schema explains by a reason key (x-null-reason) has that key,
# non-null, in the result; the schema lets no key be null with neither (KNOWN_GAPS below).
# How many nulls each result has is the machine's (RAPL, PCIe disks, a BMC); that each has its
# reason is the code's.
results=()
for r in "${ALL[@]}"; do results+=("$TMP/$r/result.json"); done
out=$(/usr/bin/python3 "$V" --nulls "${results[@]}" 2>&1)
for r in "${ALL[@]}"; do
    lines=$(grep -F "$TMP/$r/result.json: " <<<"$out" | grep ': null')
    check_eq "$r/result.json: every null has its reason key ($(jq '[paths(. == null)] | length' "$TMP/$r/result.json") nulls)" \
        "" "$lines"
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
# SPEC.md against the schema (tests/schema/spec_keys.py): three items of SPEC are prose, not key
# names.
spec prose clock offset ± uncertainty
spec prose data hashes
spec prose ready / release times

# (none) Keys the schema lets be null with no reason key beside them (validate.py --nullable):
# issue 37 asks for null only where a reason key goes with it (x-null-reason), or where null is a
# value the schema explains (x-null-means: not pinned, an empty histogram, inventory this
# machine does not expose). Every nullable key does one or the other: a new one that does
# neither shows here as a "null-without-reason" line and fails.

# A merged result against a single run, below the top level. It lacks none of a single run's
# section keys (issue 37: a value the shards agree on or that adds up, else null with its reason;
# a new "merged-lacks" line fails here). What only a merge has is intended: the shards and how
# they were put together (shards, merge, config.shards, containers[].shard, oplog.shards, the
# per_host pointers, system.hosts), the fleet series' own columns, system.shards_differ (the
# keys null because the shards differ: here command_line, --shard I/N differs) and
# storage.dataset_reason (a merge does not add up the hosts' data sets; a single run has the
# key only when it cannot size its own).
merged-adds config.containers_per_shard
merged-adds config.shards
merged-adds containers[].shard
merged-adds containers[].shard_seconds
merged-adds merge
merged-adds oplog.shards
merged-adds provenance.per_host
merged-adds shards
merged-adds storage.dataset_reason
merged-adds system.hosts
merged-adds system.per_host
merged-adds system.shards_differ
merged-adds telemetry.per_host
merged-adds telemetry.series[].dt
merged-adds telemetry.series[].ops_per_s
merged-adds telemetry.series[].power_platform_w
merged-adds telemetry.series[].workload_read_Bps

# The version-1 fixtures after result_upgrade() (harness upgrade): none is short of the schema.
# The tiny runs' are an earlier build's (the keys it had not written yet are null, listed in
# not_recorded); the report's samples are hand-written figures in the shape a version-1 build
# wrote (tests/fixtures/result-v1-tiny.json's keys, their own series' means and peaks).
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
