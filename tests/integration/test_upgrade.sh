#!/usr/bin/env bash
# A version-1 result of an earlier build through every command that reads a result, and a
# newer version refused by each (issue 37, item 3; CHANGELOG.md). No stack: the commands only
# read files.
#   - tests/fixtures/result-v1-tiny.json is a tiny run's result.json as the build of 07a1549
#     wrote it (schema_version 1, telemetry.power null, its reason in power_unavailable_reason);
#     a copy with version 1's measured power object {source, mean_w, peak_w} is made here
#     from it with jq, the shape CHANGELOG.md gives for version 1.
#   - harness upgrade prints it in the current shape: telemetry.power the array of one package
#     entry; validated with tests/schema/validate.py, the fixture as written fails on
#     telemetry.power's type and the upgraded one validates: the keys the old build did not
#     write yet (each listed in CHANGELOG.md) are null, named in not_recorded.
#   - report shows the old object's mean and peak under the array's keys, and the old reason
#     where it had none; compare puts the old package power beside a current result's.
#   - check: a lone result.json has no ops.log to recompute from: exit 2, saying so. merge: a
#     lone result is no shard: the merged result is invalid, saying so, exit 1.
#   - schema_version 3 (a newer build's), none, a string: report, compare, check, merge and
#     upgrade each exit 2 with one line naming the version.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
V=tests/schema/validate.py
F=tests/fixtures/result-v1-tiny.json
check_eq "the fixture is a version-1 result with version 1's power null" "1 null" \
    "$(jq -r '"\(.schema_version) \(.telemetry.power)"' "$F")"

mkdir -p "$TMP/null" "$TMP/obj" "$TMP/now"
cp "$F" "$TMP/null/result.json"
jq '.telemetry.power = {source: "rapl", mean_w: 65.4, peak_w: 88.1}
    | .telemetry.power_unavailable_reason = null | .totals.aops_per_watt = 9.46' "$F" >"$TMP/obj/result.json"
cp tests/fixtures/result-tiny-b.json "$TMP/now/result.json" # a late build's, power an array

# ---- harness upgrade, and the schema ------------------------------------------------------------
for k in null obj; do
    "$HARNESS" upgrade "$TMP/$k" >"$TMP/$k.up.json" 2>"$TMP/$k.up.err"
    st=$?; check_eq "upgrade of version 1's power $k: exit 0 ($(head -1 "$TMP/$k.up.err"))" 0 $st
done
check_eq "power null: one package entry, unmeasured, the old reason its reason" \
    "package power_w null null false $(jq -r .telemetry.power_unavailable_reason "$F")" \
    "$(jq -r '.telemetry.power | length as $n | .[0] | "\(.scope) \(.series) \(.source) \(.mean_w) \(.used_for_per_watt) \(.reason)" + (if $n != 1 then " +more" else "" end)' "$TMP/null.up.json")"
check_eq "power object: one package entry with its source, mean and peak" \
    "1 package power_w rapl 65.4 88.1 true null" \
    "$(jq -r '.telemetry.power | "\(length) " + (.[0] | "\(.scope) \(.series) \(.source) \(.mean_w) \(.peak_w) \(.used_for_per_watt) \(.reason)")' "$TMP/obj.up.json")"
check_eq "schema_version stays the one written" "1" "$(jq .schema_version "$TMP/obj.up.json")"
# the keys its build had not written yet come as null, each listed in not_recorded (CHANGELOG.md);
# they and their reasons taken out, nothing else changes
added=$(jq -r '.not_recorded.keys[] | "." + gsub("\\.\\*"; "[]")' "$TMP/obj.up.json" | paste -sd, -)
check_eq "the keys version 1 did not record: null, listed with the reason" \
    "not recorded by schema version 1 42 null null" \
    "$(jq -r '"\(.not_recorded.reason) \(.not_recorded.keys | length) \(.integrity) \(.containers[0].cpus)"' "$TMP/obj.up.json")"
check_eq "nothing else changes" "" \
    "$(diff <(jq -S 'del(.telemetry.power)' "$TMP/obj/result.json") \
        <(jq -S "del(.telemetry.power, .not_recorded, $added)" "$TMP/obj.up.json"))"
"$HARNESS" upgrade "$TMP/now/result.json" >"$TMP/now.up.json"
added=$(jq -r '.not_recorded.keys[] | "." + gsub("\\.\\*"; "[]")' "$TMP/now.up.json" | paste -sd, -)
check_eq "a result with power already an array comes out as it went in, but for what it did not record" "" \
    "$(diff <(jq -S . "$TMP/now/result.json") <(jq -S "del(.not_recorded, $added)" "$TMP/now.up.json"))"

out=$(/usr/bin/python3 "$V" "$TMP/null/result.json" "$TMP/obj/result.json" "$TMP/null.up.json" "$TMP/obj.up.json" 2>&1)
for k in null obj; do
    check_contains "as written (power $k): telemetry.power fails the schema" \
        "$TMP/$k/result.json: .telemetry.power: " "$out"
    up=$(grep -F "$TMP/$k.up.json: " <<<"$out" | grep -v '^\.\.\. and')
    check_lacks "upgraded (power $k): telemetry.power validates" ": \.telemetry\.power" "$up"
    # the schema's errors are at most 40 a file: the check that none is of a wrong shape is
    # on all of them, from jsonschema directly
    wrong=$(/usr/bin/python3 - "$TMP/$k.up.json" <<'EOF'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open("result.schema.json")))
for e in v.iter_errors(json.load(open(sys.argv[1]))):
    if e.validator != "required":
        print("/".join(map(str, e.absolute_path)), e.message[:200])
EOF
)
    check_eq "upgraded (power $k): no key of a wrong shape" "" "$wrong"
    check_eq "upgraded (power $k): validates, the keys its build did not write null" "" "$up"
done

# ---- report and compare --------------------------------------------------------------------------
"$HARNESS" report "$TMP/obj" -o "$TMP/obj.html" >/dev/null 2>"$TMP/obj.err"
st=$?; check_eq "report of version 1 (power object): exit 0 ($(head -1 "$TMP/obj.err"))" 0 $st
check "... its package power's mean on the page" grep -qF 'data-key="telemetry.power.0.mean_w" data-value="65.4"' "$TMP/obj.html"
check "... and its peak" grep -qF 'data-key="telemetry.power.0.peak_w" data-value="88.1"' "$TMP/obj.html"
"$HARNESS" report "$TMP/null" -o "$TMP/null.html" >/dev/null 2>"$TMP/null.err"
st=$?; check_eq "report of version 1 (power null): exit 0 ($(head -1 "$TMP/null.err"))" 0 $st
check "... the package's reason on the page" grep -qF "/sys/class/powercap absent" "$TMP/null.html"
out=$("$HARNESS" compare "$TMP/obj" "$TMP/now" 2>&1)
check_eq "compare of version 1 with a current result: exit 0" 0 $?
check_eq "... version 1's package power beside the other's" "65.4 –" \
    "$(awk '/^package power W/ {print $4, $5}' <<<"$out")"

# ---- check and merge: what a lone result.json allows ------------------------------------------
out=$("$HARNESS" check "$TMP/null" 2>&1)
check_eq "check of a lone version-1 result.json: exit 2" 2 $?
check_contains "... it says the log to recompute from is missing" "ops.log: missing" "$out"
out=$("$HARNESS" merge "$TMP/null" "$TMP/obj" --out "$TMP/m" --quiet 2>&1)
check_eq "merge of two lone version-1 results: exit 1 (no shard)" 1 $?
check_contains "... read, and refused as no shard's" "result.json is not a shard's result" "$out"

# ---- a version this build does not read ----------------------------------------------------------
for bad in 4 null '"2"'; do
    mkdir -p "$TMP/bad"
    jq ".schema_version = $bad" "$F" >"$TMP/bad/result.json"
    [ "$bad" = null ] && jq 'del(.schema_version)' "$F" >"$TMP/bad/result.json"
    for c in report compare check merge upgrade; do
        args=("$TMP/bad")
        [ $c = compare ] && args+=("$TMP/now")
        [ $c = report ] && args+=(-o "$TMP/bad.html")
        [ $c = merge ] && args+=(--out "$TMP/bm")
        out=$("$HARNESS" $c "${args[@]}" 2>&1 >/dev/null)
        check_eq "$c of schema_version $bad: exit 2" 2 $?
        check_contains "... saying why" "schema_version" "$out"
        check_eq "... in one line" 1 "$(grep -c . <<<"$out")"
    done
done
check_contains "a newer build's version is named as such" "schema_version 4 is not one this build reads (1 to 3): a newer build's result" \
    "$("$HARNESS" upgrade "$TMP/bad" 2>&1; jq '.schema_version = 4' "$F" >"$TMP/bad/result.json"; "$HARNESS" upgrade "$TMP/bad" 2>&1)"
finish
