#!/usr/bin/env bash
# Integration test for telemetry and inventory on this machine: a short real
# run (the test-only sleep workload) records a CPU and disk series for the
# device holding the data, power null with its reason where no RAPL/perf/MSR
# source exists (and a source name where one does), an inventory that agrees
# with lscpu, uname and /proc/meminfo; then the same run on a fixture
# --sysroot picks up that machine's sockets, disks, RAPL and warnings.
set -u
. "$(dirname "$0")/../lib.sh"

OUT=$TMP/run
"$HARNESS" --containers 2 --profile tiny --workloads sleep --cycles 20 --sample-interval 0.05 \
    --out "$OUT" --quiet >"$TMP/stdout" 2>"$TMP/stderr"
R=$OUT/result.json
check "result.json written" test -s "$R"

n=$(jq_ '.telemetry.series | length' "$R")
check "series has several samples ($n)" test "$n" -ge 3
check_eq "every point has a CPU figure in 0..100" "0" \
    "$(jq_ '[.telemetry.series[] | select((.cpu_util|type) != "number" or .cpu_util < 0 or .cpu_util > 100)] | length' "$R")"
check_eq "every point has disk figures" "0" \
    "$(jq_ '[.telemetry.series[] | select([.read_Bps, .read_iops, .write_Bps, .write_iops] | any(type != "number"))] | length' "$R")"
check_eq "cpu_util mean and peak" "number number" "$(jq_ '[.telemetry.cpu_util.mean, .telemetry.cpu_util.peak] | map(type) | join(" ")' "$R")"
check_eq "read_Bps and read_iops summarised" "object object" "$(jq_ '[.telemetry.read_Bps, .telemetry.read_iops] | map(type) | join(" ")' "$R")"

# The device behind the repository's file system (partition -> its disk).
majmin=$(stat -c '%Hd:%Ld' "$ROOT")
dev=$(basename "$(readlink -f "/sys/dev/block/$majmin")")
[ -e "/sys/dev/block/$majmin/partition" ] && dev=$(basename "$(readlink -f "/sys/dev/block/$majmin/..")")
if [ -e "/sys/dev/block/$majmin" ] && [ ! -d "/sys/dev/block/$majmin/slaves" -o -z "$(ls "/sys/dev/block/$majmin/slaves" 2>/dev/null)" ]; then
    check_contains "corpus disk sampled" "\"$dev\"" "$(jq -c '[.telemetry.devices[].name]' "$R")"
fi

# A source the machine has must be measured: named, watts above 0, in the series.
# Only a machine with none of the three may report null, with the reason.
if ls /sys/class/powercap/*/energy_uj >/dev/null 2>&1 || [ -e /sys/bus/event_source/devices/power/events/energy-pkg ] ||
    ls /dev/cpu/*/msr >/dev/null 2>&1; then
    check "power source named ($(jq_ '.telemetry.power_unavailable_reason' "$R"))" test "$(jq_ '.telemetry.power[0].source' "$R")" != null
    check "power measured: mean above 0 W" jq -e '.telemetry.power[0].mean_w > 0' "$R"
    check "power in the series" jq -e '[.telemetry.series[] | select(.power_w != null)] | length > 0' "$R"
    check "AOPS per watt measured" jq -e '.totals.aops_per_watt != null' "$R"
else
    check_eq "no power source: package power null" "null null" "$(jq_ '.telemetry.power[] | select(.scope == "package") | "\(.mean_w) \(.peak_w)"' "$R")"
    check_eq "no power source: every power_w null" "0" "$(jq_ '[.telemetry.series[] | select(.power_w != null)] | length' "$R")"
    check_contains "reason names RAPL" "RAPL" "$(jq_ '.telemetry.power_unavailable_reason' "$R")"
    check_contains "reason names the msr module" "msr" "$(jq_ '.telemetry.power_unavailable_reason' "$R")"
    check_eq "AOPS per watt null" "null" "$(jq_ '.totals.aops_per_watt' "$R")"
fi
# No meter at the wall on this VM either: null with what was looked for, never 0.
if ! ls /sys/class/hwmon/*/name 2>/dev/null | xargs -r grep -qx power_meter && [ ! -e /dev/ipmi0 ]; then
    check_eq "no platform power: null" "null" "$(jq_ '.telemetry.power[] | select(.scope == "platform") | .mean_w' "$R")"
    check_contains "platform reason names the ACPI power meter" "ACPI power meter" "$(jq_ '.telemetry.power[] | select(.scope == "platform") | .reason' "$R")"
    check_eq "AOPS per watt platform null" "null" "$(jq_ '.totals.aops_per_watt_platform' "$R")"
fi

check_eq "a window has CPU figures" "number" "$(jq_ '[.windows[]][0].cpu_util.mean | type' "$R")"

cores=$(lscpu -p=CORE,SOCKET 2>/dev/null | grep -v '^#' | sort -u | wc -l)
check_eq "physical cores as lscpu" "$cores" "$(jq_ '.system.physical_cores' "$R")"
check_eq "logical CPUs" "$(grep -c '^processor' /proc/cpuinfo)" "$(jq_ '.system.logical_cpus' "$R")"
check_eq "kernel" "$(uname -r)" "$(jq_ '.system.kernel' "$R")"
check_eq "memory" "$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 ))" "$(jq_ '.system.memory_bytes' "$R")"
check_contains "command line recorded" "--sample-interval 0.05" "$(jq_ '.system.command_line' "$R")"
check "harness version recorded" test "$(jq_ '.system.harness_version' "$R")" != null

# The same run described by a fixture: two Intel sockets, RAPL, NVMe warnings.
OUT2=$TMP/fixture
"$HARNESS" --containers 2 --profile tiny --workloads sleep --sysroot "$ROOT/tests/fixtures/sysroot-intel-2s" \
    --out "$OUT2" --quiet >"$TMP/stdout2" 2>&1
R2=$OUT2/result.json
check_eq "fixture: sockets/cores/threads" "2 4 8" "$(jq_ '[.system.sockets, .system.physical_cores, .system.logical_cpus] | map(tostring) | join(" ")' "$R2")"
check_eq "fixture: RAPL over two packages" "rapl 2" "$(jq_ '.telemetry.power[0] | [.source, (.packages|tostring)] | join(" ")' "$R2")"
check_eq "fixture: three warnings" "3" "$(jq_ '.warnings | map(select(test("scheduler|governor|swap"))) | length' "$R2")"
check_contains "fixture: warning on stdout" "governor" "$(cat "$TMP/stdout2")"

# A machine with an ACPI power meter (245 W, averaged over 1 s) and two Ampere sockets
# (85 and 65 W): power at the wall next to the package's, each scope its own figure.
OUT3=$TMP/meter
"$HARNESS" --containers 2 --profile tiny --workloads sleep --cycles 5 --sample-interval 0.25 \
    --sysroot "$ROOT/tests/fixtures/sysroot-power" --out "$OUT3" --quiet >/dev/null 2>&1
R3=$OUT3/result.json
check_eq "meter: platform 245 W from hwmon, socket 150 W over 2 sockets" "hwmon 245 hwmon_socket 150 2" \
    "$(jq_ '[(.telemetry.power[] | select(.scope == "platform") | "\(.source) \(.mean_w)"),
        (.telemetry.power[] | select(.scope == "socket") | "\(.source) \(.mean_w) \(.sockets)")] | join(" ")' "$R3")"
check "meter: AOPS per watt platform = AOPS / 245 W" jq -e '(.totals.aops / 245 - .totals.aops_per_watt_platform | fabs) < 1e-9 * .totals.aops' "$R3"
check_eq "meter: the package figure stays null (no RAPL in this fixture)" null "$(jq_ '.totals.aops_per_watt' "$R3")"
finish
