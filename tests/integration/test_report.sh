#!/usr/bin/env bash
# Integration test for `harness report`, `harness compare` and --csv, on the
# sample runs in tests/fixtures and variants made from them with jq: pages
# rendered in headless Debian chromium, every chart drawn, every figure on the
# page equal to result.json, strings from the JSON escaped, power unavailable
# said in words, ratios and cost equal to the ones computed here by hand,
# refusals, exit codes, CSV rows, and a sweep directory. Screenshots are kept
# in build/test-artifacts/. When `harness run` works, two real tiny runs of the
# test-only sleep workload are reported and compared as well.
. "$(dirname "$0")/../lib.sh"
CHROMIUM="$ROOT/tests/browser/chromium.sh"
DOMCHECK="$ROOT/tests/browser/domcheck.py"
ART="$ROOT/build/test-artifacts"
FIX="$ROOT/tests/fixtures"
mkdir -p "$ART"

if ! command -v chromium >/dev/null 2>&1; then
    fail "chromium is not installed (apt-get install -y chromium; make setup should do it)"
    finish
fi

# page FILE -> FILE.dom (the DOM chromium built) and FILE.tsv (domcheck rows)
page() {
    "$CHROMIUM" dom "$1" >"$1.dom" || fail "chromium could not render $1"
    "$DOMCHECK" <"$1.dom" >"$1.tsv"
}

# Numbers equal to ~1e-9 relative (the page holds the exact double).
same_num() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
    exit !(d <= 1e-9 * (m > 1 ? m : 1)) }'; }

# jq value at a dotted data-key, arrays indexed by number ("containers.0.ops").
jq_key() { jq -r --arg k "$2" 'getpath($k | split(".") | map(tonumber? // .)) | if . == null then "null" else . end' "$1"; }

# Every figure on the page FILE.tsv (keys under PREFIX, stripped) equals the
# one in JSON. Prints how many were checked.
check_numbers() { # description tsv json [prefix]
    local what=$1 tsv=$2 json=$3 prefix=${4:-} n=0 bad=0 key val want
    while IFS=$'\t' read -r kind key val _; do
        [ "$kind" = num ] || continue
        case "$key" in "$prefix"*) ;; *) continue ;; esac
        want=$(jq_key "$json" "${key#"$prefix"}")
        n=$((n + 1))
        if [ "$val" = null ] || [ "$want" = null ]; then
            [ "$val" = "$want" ] || { bad=$((bad + 1)); echo "  $key: page $val, result.json $want" >&2; }
        elif ! same_num "$val" "$want"; then
            bad=$((bad + 1)); echo "  $key: page $val, result.json $want" >&2
        fi
    done <"$tsv"
    if [ $bad -eq 0 ] && [ $n -gt 0 ]; then pass "$what ($n figures)"; else fail "$what: $bad of $n differ"; fi
}

# Every chart named is present, says it has marks, and really draws them.
check_charts() { # tsv id...
    local tsv=$1 id row; shift
    for id in "$@"; do
        row=$(awk -F'\t' -v id="$id" '$1 == "chart" && $2 == id' "$tsv")
        if [ -z "$row" ]; then fail "chart $id missing"; continue; fi
        set -- $row
        if [ "$3" -gt 0 ] && [ "$4" -gt 0 ]; then pass "chart $id drawn ($3 points, $4 marks)"
        else fail "chart $id is empty: $row"; fi
    done
}

shown() { awk -F'\t' -v k="$2" '$1 == "num" && $2 == k { print $4; exit }' "$1"; }
value() { awk -F'\t' -v k="$2" '$1 == "num" && $2 == k { print $3; exit }' "$1"; }
has_id() { grep -q -P "^id\t$2\$" "$1"; }

# ---- one run ----
A=$TMP/runs/epyc; B=$TMP/runs/xeon
mkdir -p "$A" "$B"
cp "$FIX/result-sample-a.json" "$A/result.json"
cp "$FIX/result-sample-b.json" "$B/result.json"

out=$("$HARNESS" report "$A" 2>&1); rc=$?
check_eq "report exits 0" 0 "$rc"
check "report.html written by default in RUN_DIR" test -s "$A/report.html"
check "page is self-contained: no http(s) links, no script" \
    bash -c "! grep -qiE 'https?://|<script|<link ' '$A/report.html'"
page "$A/report.html"
T=$A/report.html.tsv
check_charts "$T" latency-s3 latency-db latency-search containers-ops-per-second cpu-util \
    storage-throughput iops power
check_numbers "every figure on the report equals result.json" "$T" "$A/result.json"
for k in totals.aops totals.aops_per_core totals.aops_per_watt totals.ops totals.errors \
    workloads.s3.latency_ms.p95 workloads.db.latency_ms.p99 workloads.search.latency_ms.max \
    workloads.s3.latency_ms.p50 containers.1.ops telemetry.cpu_util.peak windows.db.start system.physical_cores; do
    check "figure $k is on the page" test -n "$(value "$T" $k)"
done
check_eq "AOPS shown rounded to 0.1" "$(printf %.1f "$(jq .totals.aops "$A/result.json")")" \
    "$(shown "$T" totals.aops | tr -d ,)"
check_eq "per-core AOPS shown rounded to 0.01" "$(printf %.2f "$(jq .totals.aops_per_core "$A/result.json")")" \
    "$(shown "$T" totals.aops_per_core | tr -d ,)"
check "validity shown as valid" grep -q 'data-valid="true"' "$A/report.html.dom"
check "warning text escaped, not markup" grep -qF '&lt;b&gt;not&lt;/b&gt;' "$A/report.html.dom"
check "no <b> element injected from the warning" bash -c "! grep -qF '<b>not</b>' '$A/report.html.dom'"
check "print stylesheet present" grep -q '@media print' "$A/report.html"
"$CHROMIUM" shot "$A/report.html" "$ART/report.png"
check "screenshot kept as build/test-artifacts/report.png" test -s "$ART/report.png"

# -o FILE, and a run with no power source, invalid, with a hostile string.
N=$TMP/runs/nopower; mkdir -p "$N"
jq '.telemetry.power = null | .totals.aops_per_watt = null
    | .telemetry.power_unavailable_reason = "no RAPL <powercap> & no perf power PMU"
    | .telemetry.series[].power_w = null | .valid = false
    | .invalid_reasons = ["worker 1 was OOM-killed"]
    | .warnings += ["<img id=\"injected\" src=\"x\">"]
    | .containers[1].oom_killed = true' "$FIX/result-sample-a.json" >"$N/result.json"
"$HARNESS" report "$N" -o "$TMP/nopower.html" >/dev/null 2>&1
check_eq "report -o FILE exits 0" 0 "$?"
check "-o FILE written" test -s "$TMP/nopower.html"
page "$TMP/nopower.html"
T2=$TMP/nopower.html.tsv
check "no power chart when power is null" bash -c "! grep -qP '^chart\tpower\t' '$T2'"
check "power unavailable said in words" has_id "$T2" power-unavailable
check "AOPS/W unavailable said in words" has_id "$T2" aops-per-watt-unavailable
check "unavailable reason shown, escaped" grep -qF 'no RAPL &lt;powercap&gt; &amp; no perf power PMU' "$TMP/nopower.html.dom"
check "invalid run shown as not valid" grep -q 'data-valid="false"' "$TMP/nopower.html.dom"
check "invalid reason listed" grep -qF 'worker 1 was OOM-killed' "$TMP/nopower.html.dom"
check "the injected warning is on the page, as text" grep -qF '&lt;img id="injected"' "$TMP/nopower.html.dom"
check "injected markup stays text" bash -c "! grep -qP '^id\tinjected\$' '$T2'"
check_numbers "figures of the power-less run equal result.json" "$T2" "$N/result.json"
check_charts "$T2" cpu-util storage-throughput iops

# ---- usage errors ----
"$HARNESS" report "$TMP/nonexistent" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "report of a missing run exits 2" 2 "$rc"
check_eq "with a one-line error" 1 "$(wc -l <"$TMP/err")"
"$HARNESS" report >/dev/null 2>&1
check_eq "report without RUN_DIR exits 2" 2 "$?"

# ---- CSV ----
"$HARNESS" report "$A" --csv "$TMP/csv" -o "$TMP/a.html" >/dev/null
check_eq "report --csv exits 0" 0 "$?"
check_eq "containers.csv: header + one row per container" $(($(jq '.containers | length' "$A/result.json") + 1)) \
    "$(wc -l <"$TMP/csv/containers.csv")"
check_eq "series.csv: header + one row per sample" $(($(jq '.telemetry.series | length' "$A/result.json") + 1)) \
    "$(wc -l <"$TMP/csv/series.csv")"
check_eq "containers.csv ops of container 1" "$(jq '.containers[1].ops' "$A/result.json")" \
    "$(awk -F, 'NR == 3 { print $2 }' "$TMP/csv/containers.csv")"
check "series.csv read_Bps of sample 4" same_num "$(awk -F, 'NR == 5 { print $3 }' "$TMP/csv/series.csv")" \
    "$(jq '.telemetry.series[3].read_Bps' "$A/result.json")"
"$HARNESS" report "$N" --csv "$TMP/csvn" -o "$TMP/n.html" >/dev/null
check_eq "null power is an empty CSV cell, not 0" "" "$(awk -F, 'NR == 2 { print $7 }' "$TMP/csvn/series.csv")"

# ---- compare ----
PA=3346.88; PB=3681.97
"$HARNESS" compare "$A" "$B" --price A=$PA,B=$PB --html "$TMP/compare.html" >"$TMP/cmp.txt" 2>"$TMP/cmp.err"
check_eq "compare exits 0" 0 "$?"
ja=$A/result.json; jb=$B/result.json
r_aops=$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" '$b[0].totals.aops / $a[0].totals.aops')
r_core=$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" '$b[0].totals.aops_per_core / $a[0].totals.aops_per_core')
r_watt=$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" '$b[0].totals.aops_per_watt / $a[0].totals.aops_per_watt')
r_cost=$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" --argjson pa $PA --argjson pb $PB \
    '($pb / ($b[0].totals.aops / 1000)) / ($pa / ($a[0].totals.aops / 1000))')
check_contains "stdout: AOPS ratio by hand" "AOPS $(printf %.2f "$r_aops")×" "$(cat "$TMP/cmp.txt")"
check_contains "stdout: per-core ratio by hand" "per-core $(printf %.2f "$r_core")×" "$(cat "$TMP/cmp.txt")"
check_contains "stdout: AOPS/W ratio by hand" "AOPS/W $(printf %.2f "$r_watt")×" "$(cat "$TMP/cmp.txt")"
check_contains "stdout: cost ratio by hand" "cost per 1,000 AOPS $(printf %.2f "$r_cost")×" "$(cat "$TMP/cmp.txt")"
check_contains "stdout: inventory difference in cores" "physical cores: A 8, B 16" "$(cat "$TMP/cmp.txt")"
check_contains "stdout: SMT difference" "SMT differs: A on, B off" "$(cat "$TMP/cmp.txt")"
check_contains "stdout: scheduler difference" "nvme0n1:none; B nvme0n1:mq-deadline" "$(cat "$TMP/cmp.txt")"
check_contains "stdout: memory difference" "memory: A 64.00 GiB, B 128.0 GiB" "$(cat "$TMP/cmp.txt")"
page "$TMP/compare.html"
C=$TMP/compare.html.tsv
check "HTML AOPS ratio equals the hand ratio" same_num "$(value "$C" ratio.1.totals.aops)" "$r_aops"
check "HTML per-core ratio equals the hand ratio" same_num "$(value "$C" ratio.1.totals.aops_per_core)" "$r_core"
check "HTML AOPS/W ratio equals the hand ratio" same_num "$(value "$C" ratio.1.totals.aops_per_watt)" "$r_watt"
check "HTML cost ratio equals the hand ratio" same_num "$(value "$C" ratio.1.cost_per_kaops)" "$r_cost"
check "HTML cost per 1,000 AOPS of A by hand" same_num "$(value "$C" derived.0.cost_per_kaops)" \
    "$(jq --argjson p $PA '$p / (.totals.aops / 1000)' "$ja")"
for w in s3 db search; do
    check "HTML $w p95 ratio by hand" same_num "$(value "$C" ratio.1.workloads.$w.latency_ms.p95)" \
        "$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" "\$b[0].workloads.$w.latency_ms.p95 / \$a[0].workloads.$w.latency_ms.p95")"
done
check_numbers "every figure of run A on the compare page equals its result.json" "$C" "$ja" runs.0.
check_numbers "every figure of run B on the compare page equals its result.json" "$C" "$jb" runs.1.
check_charts "$C" compare-aops compare-aops-per-core compare-aops-per-watt compare-s3-p95 compare-db-p95 \
    compare-search-p95 compare-cost
"$CHROMIUM" shot "$TMP/compare.html" "$ART/compare.png"
check "screenshot kept as build/test-artifacts/compare.png" test -s "$ART/compare.png"

"$HARNESS" compare "$A" "$B" --price epyc=1,xeon=2 >"$TMP/cmp2.txt" 2>&1
check_eq "--price takes run directory names" 0 "$?"
check_contains "price by name used" "price per month" "$(cat "$TMP/cmp2.txt")"

# Refusals and usage errors.
S=$TMP/runs/small; mkdir -p "$S"
jq '.config.profile = "small"' "$jb" >"$S/result.json"
"$HARNESS" compare "$A" "$S" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "different profiles refused (exit 1)" 1 "$rc"
check_contains "refusal says why" "profile small" "$(cat "$TMP/err")"
"$HARNESS" compare "$A" "$S" --force >/dev/null 2>&1
check_eq "--force compares anyway" 0 "$?"
K=$TMP/runs/corpus; mkdir -p "$K"
jq '.config.corpus.manifest.files = 9999' "$jb" >"$K/result.json"
"$HARNESS" compare "$A" "$K" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "different corpus manifests refused (exit 1)" 1 "$rc"
check_contains "refusal names the corpus" "corpus" "$(cat "$TMP/err")"
"$HARNESS" compare "$A" >/dev/null 2>&1
check_eq "compare with one run exits 2" 2 "$?"
"$HARNESS" compare "$A" "$TMP/nonexistent" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "compare with a missing run exits 2" 2 "$rc"
check_eq "with a one-line error" 1 "$(wc -l <"$TMP/err")"
"$HARNESS" compare "$A" "$B" --price Z=1 >/dev/null 2>&1
check_eq "--price with an unknown label exits 2" 2 "$?"
"$HARNESS" compare --help | grep -q "labelled A, B, C"
check_eq "--help documents the labels" 0 "$?"

# ---- sweep ----
W=$TMP/runs/sweep
for n in 1 2 4; do
    mkdir -p "$W/points/$n"
    jq --argjson n $n '.config.containers = $n | .totals.aops *= (1 + $n / 3)
        | .totals.aops_per_core = .totals.aops / .system.physical_cores
        | .workloads.s3.latency_ms.p95 *= $n' "$FIX/result-sample-a.json" >"$W/points/$n/result.json"
done
echo '{"points":[{"containers":1,"dir":"points/1"},{"containers":2,"dir":"points/2"},{"containers":4,"dir":"points/4"}]}' >"$W/sweep.json"
"$HARNESS" report "$W" >/dev/null 2>&1
check_eq "sweep report exits 0" 0 "$?"
page "$W/report.html"
check_charts "$W/report.html.tsv" sweep-aops sweep-aops-per-core sweep-latency-s3 sweep-latency-db sweep-latency-search
i=0
for n in 1 2 4; do
    check_numbers "sweep point $n figures equal its result.json" "$W/report.html.tsv" "$W/points/$n/result.json" "sweep.$i."
    check "sweep point $n has its own page" test -s "$W/points/$n/report.html"
    i=$((i + 1))
done
"$CHROMIUM" shot "$W/report.html" "$ART/sweep.png"
"$HARNESS" report "$W" --csv "$TMP/sweepcsv" -o "$TMP/s.html" >/dev/null 2>&1
check_eq "sweep.csv: header + one row per point" 4 "$(wc -l <"$TMP/sweepcsv/sweep.csv")"

# ---- real runs, when the coordinator can run the test-only sleep workload ----
R1=$TMP/real1; R2=$TMP/real2
# A sleep run is not valid by design (test-only workload), so the harness may
# exit non-zero: what matters here is that it wrote result.json.
"$HARNESS" --containers 2 --profile tiny --workloads sleep --out "$R1" >"$TMP/run.log" 2>&1
"$HARNESS" --containers 2 --profile tiny --workloads sleep --out "$R2" >>"$TMP/run.log" 2>&1
if [ -s "$R1/result.json" ] && [ -s "$R2/result.json" ]; then
    "$HARNESS" report "$R1" >/dev/null 2>&1
    check_eq "report of a real tiny run exits 0" 0 "$?"
    page "$R1/report.html"
    check_numbers "every figure of the real run equals its result.json" "$R1/report.html.tsv" "$R1/result.json"
    check_charts "$R1/report.html.tsv" cpu-util storage-throughput iops containers-ops-per-second \
        $(jq -r '.workloads | keys[] | "latency-" + .' "$R1/result.json")
    "$HARNESS" compare "$R1" "$R2" --html "$TMP/real.html" >"$TMP/real.txt" 2>&1
    check_eq "compare of two real tiny runs exits 0" 0 "$?"
    page "$TMP/real.html"
    check "real runs: AOPS ratio by hand" same_num "$(value "$TMP/real.html.tsv" ratio.1.totals.aops)" \
        "$(jq -n --slurpfile a "$R1/result.json" --slurpfile b "$R2/result.json" '$b[0].totals.aops / $a[0].totals.aops')"
    check "real runs: per-core ratio by hand" same_num "$(value "$TMP/real.html.tsv" ratio.1.totals.aops_per_core)" \
        "$(jq -n --slurpfile a "$R1/result.json" --slurpfile b "$R2/result.json" '$b[0].totals.aops_per_core / $a[0].totals.aops_per_core')"
    "$CHROMIUM" shot "$R1/report.html" "$ART/report-real.png"
else
    echo "skip: real tiny runs (harness run with --workloads sleep failed):"; tail -3 "$TMP/run.log"
fi

finish
