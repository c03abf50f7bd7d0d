#!/usr/bin/env bash
# Integration test for `harness report`, `harness compare` and --csv, on the
# sample runs in tests/fixtures and variants made from them with jq: pages
# rendered in headless Debian chromium, every chart drawn, every figure on the
# page equal to result.json, strings from the JSON escaped, power unavailable
# said in words, ratios and cost equal to the ones computed here by hand,
# refusals, exit codes, CSV rows, and a sweep directory. Screenshots are kept
# in build/test-artifacts/. Two real tiny runs of the test-only sleep workload
# are reported and compared as well (a run that fails is a failure).
. "$(dirname "$0")/../lib.sh"
CHROMIUM="$ROOT/tests/browser/chromium.sh"
DOMCHECK="$ROOT/tests/browser/domcheck.py"
LAYOUT="$ROOT/tests/browser/layout.py"
ART="$ROOT/build/test-artifacts"
FIX="$ROOT/tests/fixtures"
mkdir -p "$ART"

if ! command -v chromium >/dev/null 2>&1; then
    fail "chromium is not installed (apt-get install -y chromium; make setup should do it)"
    finish
fi

# page FILE -> FILE.dom (the DOM chromium built) and FILE.tsv (domcheck rows);
# the same browser start checks that nothing is wider than a 1280 px window
# (the document, every table and cell, every element) and leaves the page's
# height in FILE.height for a full-page screenshot.
page() {
    "$LAYOUT" "$1" 1280 --dom "$1.dom" >"$1.layout"
    case $? in
    0) pass "nothing on $(basename "$1") is wider than a 1280 px window, no chart text larger than the page's" ;;
    1) fail "$(basename "$1") runs past a 1280 px window or sets chart text too large:"; sed 1d "$1.layout" | head -8 >&2 ;;
    *) fail "chromium could not render $1" ;;
    esac
    awk '$1 == "height" { print $2 }' "$1.layout" >"$1.height"
    "$DOMCHECK" <"$1.dom" >"$1.tsv"
}

# The page laid out with its print stylesheet on an A4 page (688 px).
check_print() {
    if "$LAYOUT" "$1" 688 --print >"$1.print"; then pass "nothing on $(basename "$1") is wider than an A4 page in print"
    else fail "$(basename "$1") runs past an A4 page in print:"; sed 1d "$1.print" | head -8 >&2; fi
}

# A screenshot of the whole page, kept.
shot() { "$CHROMIUM" shot "$1" "$2" "$(cat "$1.height" 2>/dev/null || echo 2000)"
    check "screenshot kept as ${2#"$ROOT/"}" test -s "$2"; }

# Numbers equal to ~1e-9 relative (the page holds the exact double).
same_num() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
    exit !(d <= 1e-9 * (m > 1 ? m : 1)) }'; }

# jq value at a dotted data-key, arrays indexed by number ("containers.0.ops").
jq_key() { jq -r --arg k "$2" 'getpath($k | split(".") | map(tonumber? // .)) | if . == null then "null" else . end' "$1"; }

# Every figure on the page FILE.tsv (keys under PREFIX, stripped) equals the
# one in JSON. Prints how many were checked. KIND: num (the figures in the
# text, by default) or mark (the figures drawn: bars, ticks, curve points).
check_numbers() { # description tsv json [prefix] [kind]
    local what=$1 tsv=$2 json=$3 prefix=${4:-} kind=${5:-num} n bad
    # KEY<tab>VALUE of the page's figures, the prefix stripped; then one jq
    # for all of them (a jq per figure took seconds on a compare page).
    awk -F'\t' -v k="$kind" -v p="$prefix" '$1 == k {
        key = k == "mark" ? $3 : $2; val = k == "mark" ? $4 : $3
        if (index(key, p) == 1) print substr(key, length(p) + 1) "\t" val }' "$tsv" >"$TMP/page.figs"
    # A key's step is a member, an index, or a selector as jget has it:
    # telemetry.power.scope=platform.mean_w, the first entry of that scope.
    jq -r --rawfile figs "$TMP/page.figs" 'def at($p): reduce $p[] as $s (.;
            if . == null then null
            elif ($s | type) == "string" and ($s | contains("=")) then ($s | split("=")) as $kv
                | (if type == "array" then (map(select(type == "object" and .[$kv[0]] == $kv[1])) | .[0]) else null end)
            elif type == "array" then (if ($s | type) == "number" then .[$s] else null end)
            elif type == "object" then .[$s | tostring] else null end);
        . as $r | $figs | split("\n")[] | select(length > 0)
        | (split("\t")[0] | split(".") | map(tonumber? // .)) as $p
        | ($r | at($p)) | if . == null then "null" else tostring end' "$json" \
        | paste "$TMP/page.figs" - >"$TMP/page.cmp"
    n=$(wc -l <"$TMP/page.cmp")
    bad=$(awk -F'\t' -v p="$prefix" '
        function differ(a, b,   d, m) { if (a == "null" || b == "null") return a != b
            d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; return d > 1e-9 * (m > 1 ? m : 1) }
        differ($2, $3) { print "  " p $1 ": page " $2 ", result.json " $3 > "/dev/stderr"; n++ }
        END { print n + 0 }' "$TMP/page.cmp")
    if [ "$bad" -eq 0 ] && [ "$n" -gt 0 ]; then pass "$what ($n figures)"; else fail "$what: $bad of $n differ"; fi
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
# (a link: an attribute or a CSS url() that fetches; the run's S3 endpoint is shown as text)
check "page is self-contained: no http(s) links, no script" \
    bash -c "! grep -qiE '(href|src|action)=[\"'\'']?https?:|url\\([\"'\'']?https?:|<script|<link ' '$A/report.html'"
page "$A/report.html"
T=$A/report.html.tsv
check_charts "$T" latency-s3 latency-db latency-search containers-ops-per-second cpu-util \
    storage-throughput iops power
check_numbers "every figure on the report equals result.json" "$T" "$A/result.json"
for k in totals.aops totals.aops_per_core totals.aops_per_watt totals.aops_per_watt_platform \
    telemetry.power.0.mean_w telemetry.power.1.peak_w totals.ops totals.errors \
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
shot "$A/report.html" "$ART/report.png"

# -o FILE, and a run with no power source, invalid, with a hostile string.
N=$TMP/runs/nopower; mkdir -p "$N"
jq '.telemetry.power = null | .totals.aops_per_watt = null | .totals.aops_per_watt_platform = null
    | .telemetry.power_unavailable_reason = "no RAPL <powercap> & no perf power PMU"
    | .telemetry.series[].power_w = null | del(.telemetry.series[].power_platform_w) | .valid = false
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
check "AOPS/W platform unavailable said in words" has_id "$T2" aops-per-watt-platform-unavailable
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
# A as an older build wrote it, without power_w per window: the page says so (below).
jq 'del(.windows[].power_w)' "$FIX/result-sample-a.json" >"$A/result.json"
PA=3346.88; PB=3681.97
"$HARNESS" compare "$A" "$B" --price A=$PA,B=$PB --html "$TMP/compare.html" >"$TMP/cmp.txt" 2>"$TMP/cmp.err"
check_eq "compare exits 0" 0 "$?"
ja=$A/result.json; jb=$B/result.json
r_aops=$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" '$b[0].totals.aops / $a[0].totals.aops')
r_core=$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" '$b[0].totals.aops_per_core / $a[0].totals.aops_per_core')
r_watt=$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" '$b[0].totals.aops_per_watt / $a[0].totals.aops_per_watt')
r_wattp=$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" '$b[0].totals.aops_per_watt_platform / $a[0].totals.aops_per_watt_platform')
r_cost=$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" --argjson pa $PA --argjson pb $PB \
    '($pb / ($b[0].totals.aops / 1000)) / ($pa / ($a[0].totals.aops / 1000))')
check_contains "stdout: AOPS ratio by hand" "AOPS $(printf %.2f "$r_aops")×" "$(cat "$TMP/cmp.txt")"
check_contains "stdout: per-core ratio by hand" "per-core $(printf %.2f "$r_core")×" "$(cat "$TMP/cmp.txt")"
check_contains "stdout: AOPS/W ratio by hand" "AOPS/W $(printf %.2f "$r_watt")×" "$(cat "$TMP/cmp.txt")"
check_contains "stdout: AOPS/W platform ratio by hand, apart" "AOPS/W platform $(printf %.2f "$r_wattp")×" "$(cat "$TMP/cmp.txt")"
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
check "HTML AOPS/W platform ratio equals the hand ratio" same_num "$(value "$C" ratio.1.totals.aops_per_watt_platform)" "$r_wattp"
check "HTML platform power ratio: platform against platform" same_num \
    "$(value "$C" "ratio.1.telemetry.power.scope=platform.mean_w")" \
    "$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" '$b[0].telemetry.power[1].mean_w / $a[0].telemetry.power[1].mean_w')"
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
    compare-search-p95 compare-cost compare-latency-mean compare-cpu-util compare-read-bps compare-read-iops \
    compare-power compare-aops-per-watt-platform compare-power-platform
check_numbers "every bar of run A equals its result.json" "$C" "$ja" runs.0. mark
check_numbers "every bar of run B equals its result.json" "$C" "$jb" runs.1. mark
check "HTML db window CPU mean ratio by hand" same_num "$(value "$C" ratio.1.windows.db.cpu_util.mean)" \
    "$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" '$b[0].windows.db.cpu_util.mean / $a[0].windows.db.cpu_util.mean')"
check "HTML search window read peak ratio by hand" same_num "$(value "$C" ratio.1.windows.search.read_Bps.peak)" \
    "$(jq -n --slurpfile a "$ja" --slurpfile b "$jb" '$b[0].windows.search.read_Bps.peak / $a[0].windows.search.read_Bps.peak')"
check_eq "a window figure the result lacks is null on the page" null "$(value "$C" runs.0.windows.s3.power_w.mean)"
check "and says why in a note" grep -qF 'has no power_w per window (written by an older build)' "$TMP/compare.html.dom"
check_contains "stdout: the window rows" "s3 window peak" "$(cat "$TMP/cmp.txt")"
shot "$TMP/compare.html" "$ART/compare.png"

# A run without a wall meter against one with: no platform ratio, never one across scopes.
P=$TMP/runs/nowall; mkdir -p "$P"
jq 'del(.telemetry.power[1]) | .totals.aops_per_watt_platform = null | del(.telemetry.series[].power_platform_w)
    | .windows[] |= del(.power_platform_w)' "$jb" >"$P/result.json"
"$HARNESS" compare "$A" "$P" >"$TMP/cmp3.txt" 2>&1
check_eq "compare with one run lacking platform power exits 0" 0 "$?"
check_contains "the package ratio is still given" "AOPS/W $(printf %.2f "$r_watt")×" "$(cat "$TMP/cmp3.txt")"
check_lacks "no platform ratio against a run without platform power" "AOPS/W platform" "$(cat "$TMP/cmp3.txt")"
# A result of an older build: telemetry.power one object, the package's.
O=$TMP/runs/old; mkdir -p "$O"
jq '.telemetry.power = .telemetry.power[0] | del(.telemetry.power.scope, .telemetry.power.series)
    | del(.totals.aops_per_watt_platform)' "$ja" >"$O/result.json"
"$HARNESS" report "$O" -o "$TMP/old.html" >/dev/null 2>&1
check_eq "report of an older result exits 0" 0 "$?"
page "$TMP/old.html"
check "an older result's package power reads as its first entry" same_num \
    "$(value "$TMP/old.html.tsv" telemetry.power.0.mean_w)" "$(jq '.telemetry.power[0].mean_w' "$ja")"

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
shot "$W/report.html" "$ART/sweep.png"
"$HARNESS" report "$W" --csv "$TMP/sweepcsv" -o "$TMP/s.html" >/dev/null 2>&1
check_eq "sweep.csv: header + one row per point" 4 "$(wc -l <"$TMP/sweepcsv/sweep.csv")"

# ---- the figure set, latency curves, configuration: two real tiny runs ----
# Runs of the whole job (2 containers, tiny profile) on this machine, kept as
# fixtures so these checks need no stack and always see three workloads with
# their classes, byte counters and histograms.
TA=$TMP/runs/tiny-a; TB=$TMP/runs/tiny-b; ta=$TA/result.json; tb=$TB/result.json
mkdir -p "$TA" "$TB"
cp "$FIX/result-tiny-a.json" "$ta"; cp "$FIX/result-tiny-b.json" "$tb"
"$HARNESS" report "$TA" >/dev/null 2>&1
check_eq "report of a real tiny run exits 0" 0 "$?"
page "$TA/report.html"; check_print "$TA/report.html"
T=$TA/report.html.tsv
# A chart per workload that keeps more than its latency (classes, time to first byte).
check_charts "$T" pctl-workloads storage-throughput \
    $(jq -r '.histograms.workloads | to_entries[] | select(.value | keys | length > 1) | "pctl-" + .key' "$ta")
check_numbers "every figure of the tiny run's report equals result.json" "$T" "$ta"
check_numbers "every curve point of the tiny run equals result.json" "$T" "$ta" "" mark
# Each p99 of the result (workloads, their classes, time to first byte) is the
# p99 point of its curve, drawn from the histogram.
n=0; bad=0
for k in $(jq -r 'paths(type == "number") | select(.[0] == "workloads" and .[-1] == "p99") | map(tostring) | join(".")' "$ta"); do
    n=$((n + 1))
    got=$(awk -F'\t' -v k="$k" '$1 == "mark" && $3 == k { print $4; exit }' "$T")
    if [ -z "$got" ] || ! same_num "$got" "$(jq_key "$ta" "$k")"; then
        bad=$((bad + 1)); echo "  $k: curve ${got:-(no point)}, result.json $(jq_key "$ta" "$k")" >&2
    fi
done
if [ $n -ge 10 ] && [ $bad -eq 0 ]; then pass "each of the $n p99 figures is its curve's p99 point"
else fail "p99 points: $bad of $n differ or are missing"; fi
nbytes=$(jq '[.telemetry.series[0].workloads[] | keys[] | select(endswith("_per_s") and . != "ops_per_s")] | length' "$ta")
row=$(awk -F'\t' '$1 == "chart" && $2 == "storage-throughput"' "$T")
check "storage chart: disk read and write plus the $nbytes byte rates the workers counted" \
    test "$(echo "$row" | cut -f4)" -ge $((2 + nbytes))
check_contains "storage chart legend: the disk read" "disk read" "$(echo "$row" | cut -f6)"
check_contains "storage chart legend: next to the bytes S3 served" "s3 bytes received" "$(echo "$row" | cut -f6)"
sed -n '/<table class="kv" id="config"/,/<\/table>/p' "$TA/report.html.dom" >"$TMP/config.html"
check "configuration: nested objects are rows, not raw JSON" bash -c "! grep -qE '\\{&quot;|\\{\"' '$TMP/config.html'"
check "configuration: a nested figure (the corpus manifest's linux bytes) is on the page" \
    test -n "$(value "$T" config.corpus.manifest.trees.linux.bytes)"
np=0; badp=0
while IFS=$'\t' read -r kind full shown; do
    [ "$kind" = path ] || continue
    np=$((np + 1))
    jq -e --arg v "$full" '[.. | strings] | index($v) != null' "$ta" >/dev/null &&
        [ ${#shown} -lt ${#full} ] && case $shown in *…*) true ;; *) false ;; esac || {
        badp=$((badp + 1)); echo "  path '$full' shown as '$shown'" >&2; }
done <"$T"
if [ $np -gt 0 ] && [ $badp -eq 0 ]; then pass "long paths shortened in the middle, the whole value in a title ($np)"
else fail "shortened paths: $badp of $np wrong"; fi
shot "$TA/report.html" "$ART/report-tiny.png"

"$HARNESS" compare "$TA" "$TB" --html "$TMP/tiny.html" >"$TMP/tiny.txt" 2>&1
check_eq "compare of the two tiny runs exits 0" 0 "$?"
page "$TMP/tiny.html"; check_print "$TMP/tiny.html"
TC=$TMP/tiny.html.tsv
check_charts "$TC" compare-aops compare-aops-per-core compare-latency-mean compare-cpu-util compare-read-bps \
    compare-read-iops $(jq -r '.workloads | keys[] | "compare-pctl-" + .' "$ta")
for i in 0 1; do
    j=$ta; [ $i = 1 ] && j=$tb
    check_numbers "tiny compare: every figure of run $i equals its result.json" "$TC" "$j" runs.$i.
    check_numbers "tiny compare: every drawn figure of run $i equals its result.json" "$TC" "$j" runs.$i. mark
    for w in $(jq -r '.workloads | keys[]' "$j"); do
        check "tiny compare: run $i's $w curve has its p99 point at latency_ms.p99" same_num \
            "$(awk -F'\t' -v k="runs.$i.workloads.$w.latency_ms.p99" '$1 == "mark" && $3 == k { print $4 }' "$TC")" \
            "$(jq ".workloads.$w.latency_ms.p99" "$j")"
    done
done
nwin=$(jq '.windows | length' "$ta")
check_eq "a row for each window's CPU, read throughput, IOPS and power, mean and peak, and the run's" \
    $((8 * nwin + 8)) "$(grep -oP '^num\truns\.0\.(windows\.[^.]+\.(cpu_util|read_Bps|read_iops|power_w)|telemetry\.(cpu_util|read_Bps|read_iops|power\.scope=package))\.(mean|peak|mean_w|peak_w)\t' "$TC" | sort -u | wc -l)"
check "tiny compare: search window read mean ratio by hand" same_num "$(value "$TC" ratio.1.windows.search.read_Bps.mean)" \
    "$(jq -n --slurpfile a "$ta" --slurpfile b "$tb" '$b[0].windows.search.read_Bps.mean / $a[0].windows.search.read_Bps.mean')"
why=$(jq -r .telemetry.power_unavailable_reason "$ta")
check "no power here: the power chart is the reason in words" has_id "$TC" compare-power-unavailable
check "and so is AOPS per watt" has_id "$TC" compare-aops-per-watt-unavailable
check_eq "a power cell is null on the page" null "$(value "$TC" runs.1.windows.db.power_w.peak)"
check "with the reason as a note" grep -qF "$why" "$TMP/tiny.html.dom"
check_eq "the headline's AOPS per watt is null too" null "$(value "$TC" runs.0.totals.aops_per_watt)"
check "with the same reason as a note under its table" has_id "$TC" compare-notes-1
check_contains "stdout: the reason once for both runs" "[1] A, B: $why" "$(cat "$TMP/tiny.txt")"
shot "$TMP/tiny.html" "$ART/compare-tiny.png"

# A result of --repeat runs: compare draws its spread as an error bar.
RA=$TMP/runs/repeated; mkdir -p "$RA"
jq '.totals.aops as $a | .repeats = {n: 3, aops: [$a * 0.95, $a, $a * 1.1], aops_median: $a,
    aops_min: ($a * 0.95), aops_max: ($a * 1.1), aops_cv: 7.6, median_run: 2}' "$ta" >"$RA/result.json"
"$HARNESS" compare "$RA" "$TB" --html "$TMP/rep.html" >/dev/null 2>&1
"$CHROMIUM" dom "$TMP/rep.html" | "$DOMCHECK" >"$TMP/rep.tsv"
check_eq "the repeated run's AOPS has an error bar, the single run none" 1 \
    "$(awk -F'\t' '$1 == "chart" && $2 == "compare-aops" { print $5 }' "$TMP/rep.tsv")"
check_eq "and so has its per-core AOPS" 1 \
    "$(awk -F'\t' '$1 == "chart" && $2 == "compare-aops-per-core" { print $5 }' "$TMP/rep.tsv")"

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
        pctl-workloads
    check_numbers "every curve point of the real run equals its result.json" "$R1/report.html.tsv" \
        "$R1/result.json" "" mark
    for w in $(jq -r '.workloads | keys[]' "$R1/result.json"); do
        check "real run: the $w curve's p99 point is latency_ms.p99" same_num \
            "$(awk -F'\t' -v k="workloads.$w.latency_ms.p99" '$1 == "mark" && $3 == k { print $4 }' "$R1/report.html.tsv")" \
            "$(jq ".workloads.$w.latency_ms.p99" "$R1/result.json")"
    done
    "$HARNESS" compare "$R1" "$R2" --html "$TMP/real.html" >"$TMP/real.txt" 2>&1
    check_eq "compare of two real tiny runs exits 0" 0 "$?"
    page "$TMP/real.html"
    check "real runs: AOPS ratio by hand" same_num "$(value "$TMP/real.html.tsv" ratio.1.totals.aops)" \
        "$(jq -n --slurpfile a "$R1/result.json" --slurpfile b "$R2/result.json" '$b[0].totals.aops / $a[0].totals.aops')"
    check "real runs: per-core ratio by hand" same_num "$(value "$TMP/real.html.tsv" ratio.1.totals.aops_per_core)" \
        "$(jq -n --slurpfile a "$R1/result.json" --slurpfile b "$R2/result.json" '$b[0].totals.aops_per_core / $a[0].totals.aops_per_core')"
    check_charts "$TMP/real.html.tsv" $(jq -r '.workloads | keys[] | "compare-pctl-" + .' "$R1/result.json")
    check_numbers "real runs: every drawn figure of A equals its result.json" "$TMP/real.html.tsv" "$R1/result.json" runs.0. mark
    check_numbers "real runs: every drawn figure of B equals its result.json" "$TMP/real.html.tsv" "$R2/result.json" runs.1. mark
    shot "$R1/report.html" "$ART/report-real.png"
else
    fail "real tiny runs: harness run with --workloads sleep wrote no result: $(tail -3 "$TMP/run.log" | tr '\n' ' ')"
fi

finish
