#!/usr/bin/env bash
# The storage stack at scale, for real, on a private stack (own dir, free ports from 19600 and 13367):
#   - bad --data-dirs are one line before anything starts: a directory that does not exist, four
#     on the root filesystem (where MinIO would retry "drive not found" forever), a parity above
#     half the drives;
#   - MinIO over 4 directories, each an ext4 filesystem on a loop device made here: the erasure
#     set has quorum (/minio/health/cluster), format.json on a drive lists a set of 4, a 1 MiB
#     object is split into 2 data + 2 parity shards on the drives (MinIO's default EC:2 for 4),
#     a tiny run is valid with every GET answered and counted by MinIO, provenance.servers.s3
#     says 4 drives, one set of 4, parity 2, and the telemetry names all 4 loop devices;
#   - the MariaDB it starts from containers/mariadb/aops.cnf reports in the result the values
#     the mariadb client reads from it (buffer pool as given, max_connections from --containers,
#     the file's io capacity, flush method and thread handling);
#   - the servers do not keep a lock their caller held on an inherited descriptor;
#   - harness baseline: fio on each drive's filesystem through a scratch file, within 2x of a
#     direct fio run of the same jobs here (medians of three of each, interleaved, so a load
#     burst on the shared machine does not decide it), no scratch file left; a run then states its read
#     throughput as a share of the summed baseline; without fio, or without room, one line and
#     null with the reason;
#   - MinIO over 1 directory (one loop device): a single drive, as today.
# Everything it made (loop devices, mounts, images) is removed at the end. Needs root (losetup,
# mount) and fio (make setup installs it).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"
STACK="$ROOT/scripts/stack"
cd "$ROOT" || exit 1

export AOPS_STACK_DIR="$TMP/stack"
export AOPS_MINIO_PORT="${TEST_STORAGE_MINIO_PORT:-$(free_port 19600)}"
export AOPS_MINIO_CONSOLE_PORT="${TEST_STORAGE_MINIO_CONSOLE_PORT:-$(free_port $((AOPS_MINIO_PORT + 1)))}"
export AOPS_MARIADB_PORT="${TEST_STORAGE_MARIADB_PORT:-$(free_port 13367)}"
# No AOPS_CREDENTIALS: the harness finds the credentials scripts/stack wrote into $AOPS_STACK_DIR
# (checked below by the run's endpoint).
unset AOPS_CREDENTIALS
BL="$TMP/baseline.json"
LOOPS=() MNTS=()

cleanup() {
    "$STACK" down >/dev/null 2>&1
    local m l
    for m in "${MNTS[@]}"; do umount "$m" 2>/dev/null; done
    for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || { fail "needs root for losetup and mount"; finish; }
for c in losetup mkfs.ext4 fio jq curl mariadb; do
    command -v "$c" >/dev/null 2>&1 || { fail "$c is missing (make setup installs fio)"; finish; }
done
for p in "$AOPS_MINIO_PORT" "$AOPS_MINIO_CONSOLE_PORT" "$AOPS_MARIADB_PORT"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then fail "test port $p is in use"; finish; fi
done

# mkdrive N: an ext4 filesystem of 128 MiB on a loop device, mounted at $TMP/dN
mkdrive() {
    local img="$TMP/img$1" dev
    truncate -s 128M "$img" && mkfs.ext4 -q -F "$img" || return 1
    dev="$(losetup -f --show "$img")" || return 1
    LOOPS+=("$dev")
    mkdir -p "$TMP/d$1" && mount "$dev" "$TMP/d$1" || return 1
    MNTS+=("$TMP/d$1")
}
nothing_started() { # no pid file, no listener on the test ports
    [ ! -f "$AOPS_STACK_DIR/minio/minio.pid" ] && [ ! -f "$AOPS_STACK_DIR/mariadb/mariadbd.pid" ] &&
        ! (exec 3<>"/dev/tcp/127.0.0.1/$AOPS_MINIO_PORT") 2>/dev/null
}

# --- bad input: one line, nothing started --------------------------------------------------------
out="$("$STACK" up --data-dirs "$TMP/nope" 2>&1)"; rc=$?
check_eq "a data dir that does not exist: exit 1" 1 "$rc"
check_eq "in one line" 1 "$(printf '%s\n' "$out" | wc -l)"
check_contains "naming it" "$TMP/nope does not exist" "$out"
check "and nothing started" nothing_started
mkdir -p "$TMP"/r{1,2,3,4}
out="$("$STACK" up --data-dirs "$TMP/r1,$TMP/r2,$TMP/r3,$TMP/r4" 2>&1)"; rc=$?
check_eq "four dirs on the root filesystem: exit 1" 1 "$rc"
check_eq "in one line" 1 "$(printf '%s\n' "$out" | wc -l)"
check_contains "saying why" "$TMP/r1 is on the root filesystem" "$out"
check "and nothing started (no MinIO retrying its drives)" nothing_started
check_eq "no MinIO process on the test port" 0 "$(pgrep -fc -- "--address 127.0.0.1:$AOPS_MINIO_PORT")"

for i in 1 2 3 4 5; do mkdrive "$i" || { fail "cannot make loop drive $i"; finish; }; done
D4="$TMP/d1,$TMP/d2,$TMP/d3,$TMP/d4"
out="$("$STACK" up --data-dirs "$D4" --parity 3 2>&1)"; rc=$?
check_eq "--parity 3 over 4 drives: exit 1" 1 "$rc"
check_contains "saying the limit" "at most 2 for 4 drives" "$out"
check "and nothing started" nothing_started

# --- 4 drives, erasure-coded; started while the caller holds a lock on an inherited fd ----------
t0=$(date +%s%N)
exec 7>"$TMP/caller.lock"
flock 7
out="$("$STACK" up --data-dirs "$D4" --containers 2 --buffer-pool 256M 2>&1)"; rc=$?
exec 7>&-
check_eq "stack up over 4 loop-backed drives exits 0 ($out)" 0 "$rc"
[ "$rc" = 0 ] || finish
echo "stack up with 4 drives took $(( ($(date +%s%N) - t0) / 1000000 )) ms ($out)"
check_contains "the up line says the layout" "4 drives, erasure-coded" "$out"
check "the servers hold no lock their caller had (flock -n succeeds)" flock -n "$TMP/caller.lock" true
check_eq "/minio/health/cluster: the set has quorum" 200 \
    "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$AOPS_MINIO_PORT/minio/health/cluster")"
check_eq "format.json on a drive: one set of 4 drives" "1 4" \
    "$(jq -r '[(.xl.sets | length), (.xl.sets[0] | length)] | join(" ")' "$TMP/d1/.minio.sys/format.json")"

# A 1 MiB object: each drive holds one shard of it; 1 MiB / shard = the data shards.
ak="$(sed -n 's/^AWS_ACCESS_KEY_ID=//p' "$AOPS_STACK_DIR/credentials")"
sk="$(sed -n 's/^AWS_SECRET_ACCESS_KEY=//p' "$AOPS_STACK_DIR/credentials")"
s3curl() { curl -s --aws-sigv4 "aws:amz:us-east-1:s3" --user "$ak:$sk" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
head -c 1048576 /dev/urandom >"$TMP/obj"
s3curl -X PUT -o /dev/null "http://127.0.0.1:$AOPS_MINIO_PORT/ectest" &&
    s3curl -T "$TMP/obj" -o /dev/null "http://127.0.0.1:$AOPS_MINIO_PORT/ectest/obj"
shards=0 shard=0
for i in 1 2 3 4; do
    f="$(find "$TMP/d$i/ectest/obj" -name 'part.1' 2>/dev/null | head -n1)"
    [ -n "$f" ] && shards=$((shards + 1)) && shard=$(stat -c %s "$f")
done
check_eq "every drive holds a shard of the object" 4 "$shards"
data=$(( (1048576 + shard - 1) / shard ))
check_eq "2 data shards (1 MiB / $shard-byte shards), so 2 parity: MinIO's EC:2 for 4 drives" 2 "$data"
cmp -s "$TMP/obj" <(s3curl "http://127.0.0.1:$AOPS_MINIO_PORT/ectest/obj") && pass "the object reads back intact" || fail "the object reads back changed"

# --- a tiny run over the 4 drives --------------------------------------------------------------
"$HARNESS" corpus fetch --profile tiny >/dev/null 2>&1
# 128 MiB drives hold the tiny set but not prepare's 1 GiB margin: its space check (tested in
# test_prepare_space.sh) is skipped here.
"$HARNESS" prepare --containers 2 --profile tiny --dataset shared --no-space-check >"$TMP/prep.log" 2>&1
check_eq "prepare over 4 drives exits 0 ($(tail -n1 "$TMP/prep.log"))" 0 "$?"
"$HARNESS" --containers 2 --profile tiny --dataset shared --sample-interval 0.1 --quiet \
    --baseline-file "$BL" --out "$TMP/run4" >"$TMP/run4.log" 2>&1
check_eq "a tiny run over 4 drives exits 0" 0 "$?"
R="$TMP/run4/result.json"
check_eq "and is valid" true "$(jq -r .valid "$R")"
check_eq "it ran against the stack in \$AOPS_STACK_DIR, found without AOPS_CREDENTIALS" \
    "http://127.0.0.1:$AOPS_MINIO_PORT" "$(jq -r .config.s3.endpoint "$R")"
check_eq "every GET completed without error" "2380 0" "$(jq -r '"\(.workloads.s3.ops) \(.workloads.s3.errors)"' "$R")"
check "MinIO itself counted at least those 2380 GETs" jq -e \
    '[.server_counts[] | select(.GetObject) | .agrees and .GetObject.delta >= 2380] == [true]' "$R"
check_eq "provenance.servers.s3: 4 drives, 1 set of 4, parity 2, erasure" "4 1 4 2 erasure" \
    "$(jq -r '.provenance.servers.s3 | "\(.drives) \(.sets) \(.set_size) \(.parity) \(.layout)"' "$R")"
. scripts/lib.sh
check_eq "provenance.servers.s3.version: the pinned module version" "$AOPS_MINIO_VERSION" "$(jq -r .provenance.servers.s3.version "$R")"
check_eq "provenance.servers.s3.drive_paths: the 4 dirs" "$D4" "$(jq -r '.provenance.servers.s3.drive_paths | join(",")' "$R")"
want=""; for i in 0 1 2 3; do want+="$(basename "${LOOPS[$i]}") "; done
got=""; for i in 0 1 2 3; do
    n="$(basename "${LOOPS[$i]}")"
    jq -e --arg n "$n" '.telemetry.devices | map(.name) | index($n) != null' "$R" >/dev/null && got+="$n "
done
check_eq "the telemetry samples all 4 loop devices" "$want" "$got"
check_eq "the storage telemetry maps each minio drive to its loop device" "$want" \
    "$(jq -r '[.telemetry.data_paths[] | select(.role == "minio") | .devices[0]] | join(" ")' "$R") "

# --- MariaDB from the documented file: the result reports what the server says ------------------
dbq() { mariadb --no-defaults --socket="$AOPS_STACK_DIR/mariadb/mysqld.sock" -u "$(id -un)" -N -e "SELECT @@$1"; }
for v in innodb_buffer_pool_size max_connections innodb_io_capacity innodb_io_capacity_max innodb_flush_method \
    innodb_flush_log_at_trx_commit thread_handling; do
    check_eq "result's $v is the server's" "$(dbq "$v")" "$(jq -r ".provenance.servers.db.$v" "$R")"
done
check_eq "buffer pool as given (--buffer-pool 256M)" 268435456 "$(jq -r .provenance.servers.db.innodb_buffer_pool_size "$R")"
check_eq "max_connections from --containers 2 (+ 32)" 34 "$(jq -r .provenance.servers.db.max_connections "$R")"
cnf() { sed -nE "s/^$1 *= *//p" containers/mariadb/aops.cnf; }
check_eq "innodb_io_capacity from aops.cnf" "$(cnf innodb_io_capacity)" "$(jq -r .provenance.servers.db.innodb_io_capacity "$R")"
check_eq "innodb_flush_method from aops.cnf" "$(cnf innodb_flush_method)" "$(jq -r .provenance.servers.db.innodb_flush_method "$R")"
check_eq "thread_handling from aops.cnf" "$(cnf thread_handling)" "$(jq -r .provenance.servers.db.thread_handling "$R")"
check_eq "VERSION() as the client reads it" "$(dbq version)" "$(jq -r .provenance.servers.db.version "$R")"
check_eq "no baseline yet: the run says why, no percentage" "null" "$(jq -r .windows.s3.read_pct_of_baseline "$R")"
check_contains "and the reason names the command" "run ./harness baseline" "$(jq -r .telemetry.baseline_unavailable_reason "$R")"

# --- harness baseline ----------------------------------------------------------------------------
BO=(--baseline-file "$BL" --baseline-size 32M --baseline-seconds 1)
"$HARNESS" baseline "${BO[@]}" >"$TMP/bl.log" 2>&1
check_eq "harness baseline exits 0 ($(tail -n1 "$TMP/bl.log"))" 0 "$?"
for i in 0 1 2 3; do
    n="$(basename "${LOOPS[$i]}")"
    check "baseline of $n: sequential and random figures above 0, fio's version" \
        jq -e --arg n "$n" '.devices[$n] | .seq_read_Bps > 0 and .rand_read_iops > 0 and (.fio_version | startswith("fio-"))' "$BL"
done
check_eq "no scratch file left on the drives" "" "$(find "$TMP"/d{1,2,3,4} -maxdepth 1 -name '.aops-baseline*')"
# The same jobs, run here with fio directly on drive 1's filesystem.
n1="$(basename "${LOOPS[0]}")"
direct() { # direct OUT.json: drive 1's seq and rand jobs, as the harness runs them
    fio --output-format=json --filename="$TMP/d1/direct.fio" --size=32M --direct=1 --ioengine="$(jq -r --arg n "$n1" '.devices[$n].fio.ioengine' "$BL")" \
        --time_based=1 --runtime=1 --group_reporting=1 --randrepeat=0 --name=seq --rw=read --bs=1M --iodepth=16 \
        --name=rand --stonewall --rw=randread --bs=4k --iodepth=32 --numjobs="$(jq -r --arg n "$n1" '.devices[$n].fio.rand.numjobs' "$BL")" \
        >"$1" 2>"$TMP/direct.err"
    rm -f "$TMP/d1/direct.fio"
}
# Loop devices over page-cached files on this shared 2-core VM: one 1-2 s fio run differs
# from the next by a third when idle (seen: 5.5 vs 8.1 GB/s), and by more than a factor of 2
# when another job takes the cores for a second (the flake of issue 36). So the two are
# measured alike: three rounds, each a harness baseline and a direct run back to back, the
# order alternating (the first round's baseline is the one above), and the medians are
# compared. The bound stays a factor of 2: the same job on the same drive, not a figure off
# by its units or its job.
BLS=("$BL") DIRS=()
direct "$TMP/direct1.json"; DIRS+=("$TMP/direct1.json")
for r in 2 3; do
    [ $r = 2 ] && { direct "$TMP/direct$r.json"; DIRS+=("$TMP/direct$r.json"); }
    "$HARNESS" baseline --baseline-file "$TMP/bl$r.json" --baseline-size 32M --baseline-seconds 1 >>"$TMP/bl.log" 2>&1 ||
        fail "harness baseline, round $r of the comparison ($(tail -n1 "$TMP/bl.log"))"
    BLS+=("$TMP/bl$r.json")
    [ $r = 3 ] && { direct "$TMP/direct$r.json"; DIRS+=("$TMP/direct$r.json"); }
done
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "" }'; }
for k in "seq:seq_read_Bps:bw_bytes" "rand:rand_read_iops:iops"; do
    IFS=: read -r job ours theirs <<<"$k"
    as=$(for f in "${BLS[@]}"; do jq -r --arg n "$n1" ".devices[\$n].$ours // empty" "$f"; done)
    bs=$(for f in "${DIRS[@]}"; do jq -r --arg j "$job" ".jobs[] | select(.jobname == \$j) | .read.$theirs" "$f"; done)
    a=$(median <<<"$as") b=$(median <<<"$bs")
    check_eq "three baselines and three direct runs of $job, for the medians" "3 3" "$(grep -c . <<<"$as") $(grep -c . <<<"$bs")"
    check "baseline $job of $n1, median of 3 ($a; $(echo $as)) within a factor of 2 of fio run directly, median of 3 ($b; $(echo $bs))" \
        awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0 && a / b > 0.5 && a / b < 2) }'
done
"$HARNESS" --containers 1 --profile tiny --dataset shared --sample-interval 0.1 --quiet \
    --baseline-file "$BL" --out "$TMP/run4b" >/dev/null 2>&1
R="$TMP/run4b/result.json"
check_eq "a run after the baseline: storage_baseline has every sampled device" \
    "$(jq -r '[.telemetry.devices[].name] | sort | join(" ")' "$R")" "$(jq -r '.storage_baseline | keys | sort | join(" ")' "$R")"
sum_run="$(jq -r .telemetry.baseline_read_Bps "$R")"
sum_file="$(jq -r --slurpfile f "$BL" '[.telemetry.devices[].name as $n | $f[0].devices | to_entries[] | select(any(.value.devices[]; . == $n)) | {key, v: .value.seq_read_Bps}] | unique_by(.key) | map(.v) | add' "$R")"
# result.json's reals carry 10 significant digits: equal to that.
check "the summed baseline ($sum_run) is the file's sequential figures of those devices ($sum_file)" \
    awk -v a="$sum_run" -v b="$sum_file" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-9 * b) }'
check "each window with a read figure has it as a % of the baseline" jq -e \
    '[.windows[] | select(.read_Bps | type == "object")] | length > 0 and all(.read_pct_of_baseline | type == "object")' "$R"
check "the s3 window's % is its read_Bps.mean over the sum" jq -e \
    '(.windows.s3.read_Bps.mean / .telemetry.baseline_read_Bps * 100 - .windows.s3.read_pct_of_baseline.mean) | fabs < 0.01' "$R"
"$HARNESS" report "$TMP/run4b" -o "$TMP/run4b/report.html" >/dev/null 2>&1
check "the report states it" grep -q 'id="baseline-summary"' "$TMP/run4b/report.html"
"$HARNESS" compare "$TMP/run4" "$TMP/run4b" >"$TMP/cmp.txt" 2>&1
check_contains "compare states it" "% of the drives' fio baseline" "$(cat "$TMP/cmp.txt")"

# Without fio; without room: one line each, null with the reason.
mkdir -p "$TMP/nofio"; for c in bash sh; do ln -s "$(command -v $c)" "$TMP/nofio/$c"; done
PATH="$TMP/nofio" "$HARNESS" baseline --baseline-file "$TMP/nofio.json" --baseline-size 32M --baseline-seconds 1 >"$TMP/nofio.log" 2>&1
check_eq "without fio: exit 1" 1 "$?"
check_contains "one line per drive saying so" "$n1 (minio $TMP/d1): not measured: fio not found" "$(cat "$TMP/nofio.log")"
check "null with the reason in the file" jq -e --arg n "$n1" '.devices[$n] | .seq_read_Bps == null and (.reason | test("fio not found"))' "$TMP/nofio.json"
"$HARNESS" baseline --baseline-file "$TMP/noroom.json" --baseline-size 100M --baseline-seconds 1 >"$TMP/noroom.log" 2>&1
check_contains "no room on a 128 MiB drive for 2 x 100 MiB: said" "no room for the scratch file on $n1" "$(cat "$TMP/noroom.log")"
check "null with the reason in the file" jq -e --arg n "$n1" '.devices[$n] | .seq_read_Bps == null and (.reason | test("no room"))' "$TMP/noroom.json"

# --- one directory (a loop device of its own): a single drive, as today -------------------------
"$STACK" down >/dev/null 2>&1
out="$("$STACK" up --data-dirs "$TMP/d5" 2>&1)"; rc=$?
check_eq "stack up over 1 drive exits 0 ($out)" 0 "$rc"
check_contains "a single drive" "single drive" "$out"
"$HARNESS" prepare --containers 1 --profile tiny --no-space-check >/dev/null 2>&1
"$HARNESS" --containers 1 --profile tiny --quiet --baseline-file "$BL" --out "$TMP/run1" >/dev/null 2>&1
check_eq "a tiny run over 1 drive is valid" true "$(jq -r .valid "$TMP/run1/result.json")"
check_eq "provenance: 1 drive, single drive, parity 0" "1 single drive 0" \
    "$(jq -r '.provenance.servers.s3 | "\(.drives) \(.layout) \(.parity)"' "$TMP/run1/result.json")"
check "the telemetry samples its loop device" jq -e --arg n "$(basename "${LOOPS[4]}")" \
    '.telemetry.devices | map(.name) | index($n) != null' "$TMP/run1/result.json"
"$STACK" down >/dev/null 2>&1
check "down leaves no drive list behind" test ! -e "$AOPS_STACK_DIR/minio/drives"

finish
