#!/usr/bin/env bash
# prepare says what it will write and refuses what cannot fit (issue 41), on private stacks
# (own dir; ports TEST_PREPARE_SPACE_MINIO_PORT / _MARIADB_PORT, free ports from 19620 / 13387 by default):
#   (a) the README's `./harness prepare --containers 256` (full profile) against a MinIO whose one
#       drive is a directory on this machine's root filesystem: the plan says 3.66 TiB of objects,
#       3.85 TiB with the margin, the drive's free space as df reads it and the shortfall; one
#       line on stderr, exit 2, and nothing written: du of MinIO's data dir (its own .minio.sys
#       aside) is the same before and after, no bucket, no table; --force does not bypass it.
#       A run without data names the prepare command with the run's options (s3 and db).
#   (b) MinIO on one 2 GiB loop-device drive that another writer has filled to 100 MiB free:
#       prepare refuses (exit 2); with --no-space-check it stops at the first "no room" answer with
#       one line, leaves no objects manifest (a run says "not prepared" and names the prepare), and
#       the record says the check was skipped; the other writer gone, the next prepare fits,
#       completes, and a run verifies every object it reads.
#   (c) MinIO over 4 loop-device drives (EC:2): the plan's bytes on the drives (objects + parity)
#       against what du finds in the bucket on the 4 drives after the prepare, within 10 %.
# Everything it made (stacks, loop devices, mounts) is removed at the end. Needs root (losetup,
# mount, fallocate). About 60-90 s here.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"
STACK="$ROOT/scripts/stack"
cd "$ROOT" || exit 1

export AOPS_STACK_DIR="$TMP/stack"
export AOPS_MINIO_PORT="${TEST_PREPARE_SPACE_MINIO_PORT:-$(free_port 19620)}"
export AOPS_MINIO_CONSOLE_PORT="${TEST_PREPARE_SPACE_MINIO_CONSOLE_PORT:-$(free_port $((AOPS_MINIO_PORT + 1)))}"
export AOPS_MARIADB_PORT="${TEST_PREPARE_SPACE_MARIADB_PORT:-$(free_port 13387)}"
export AOPS_CREDENTIALS="$AOPS_STACK_DIR/credentials"
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
for c in losetup mkfs.ext4 fallocate jq curl mariadb; do
    command -v "$c" >/dev/null 2>&1 || { fail "$c is missing"; finish; }
done
for p in "$AOPS_MINIO_PORT" "$AOPS_MINIO_CONSOLE_PORT" "$AOPS_MARIADB_PORT"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then fail "test port $p is in use"; finish; fi
done
"$HARNESS" corpus fetch --profile tiny >/dev/null 2>&1

# mkdrive N SIZE: an ext4 filesystem on a loop device over a sparse file, mounted at $TMP/dN
mkdrive() {
    local img="$TMP/img$1" dev
    truncate -s "$2" "$img" && mkfs.ext4 -q -F "$img" || return 1
    dev="$(losetup -f --show "$img")" || return 1
    LOOPS+=("$dev")
    mkdir -p "$TMP/d$1" && mount "$dev" "$TMP/d$1" || return 1
    MNTS+=("$TMP/d$1")
}
up() { # up [stack options]: a fresh stack dir each time (credentials, record, drives file)
    rm -rf "$AOPS_STACK_DIR"
    local out
    out="$("$STACK" up --containers 2 --buffer-pool 128M "$@" 2>&1)" || { fail "stack up $*: $out"; finish; }
}
ak() { sed -n "s/^$1=//p" "$AOPS_CREDENTIALS"; }
s3status() { # s3status PATH -> the HTTP status of a HEAD
    curl -s -o /dev/null -w '%{http_code}' -I --aws-sigv4 "aws:amz:us-east-1:s3" \
        --user "$(ak AWS_ACCESS_KEY_ID):$(ak AWS_SECRET_ACCESS_KEY)" \
        -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
        "http://127.0.0.1:$AOPS_MINIO_PORT/$1"
}
# du of MinIO's data: everything but .minio.sys, which MinIO itself rewrites (usage, metadata).
data_du() { du -sb --exclude=.minio.sys "$1" | cut -f1; }
size_of() { # "70.6 GiB" -> bytes
    awk -v n="$1" -v u="$2" 'BEGIN { m["B"] = 1; m["KiB"] = 2^10; m["MiB"] = 2^20; m["GiB"] = 2^30;
        m["TiB"] = 2^40; printf "%.0f\n", n * m[u] }'
}

# --- (a) the headline's prepare on this machine --------------------------------------------------
up
DATA="$AOPS_STACK_DIR/minio/data"
before="$(data_du "$DATA")"
# A prepare that starts writing 3.66 TiB (the defect) is stopped after 20 s, not left to fill
# the disk; a fixed one refuses in well under a second.
timeout 20 "$HARNESS" prepare --containers 256 >"$TMP/a.out" 2>"$TMP/a.err"
rc=$?
check_eq "prepare --containers 256 exits 2 ($(tail -n1 "$TMP/a.err"))" 2 "$rc"
out="$(cat "$TMP/a.out")"
check_contains "the plan: 304,640 objects, 3.66 TiB (256 x 15,000 MiB)" "write 304,640 objects, 3.66 TiB" "$out"
check_contains "where" "into MinIO at http://127.0.0.1:$AOPS_MINIO_PORT, bucket 'aops'" "$out"
check_contains "with the margin: 3.85 TiB (+ 5 %)" "= 3.85 TiB needed" "$out"
check_contains "the rows" "write 10,000,000 rows" "$out"
check_contains "the time: unknown on the first prepare" "time    unknown" "$out"
free_line="$(grep "drives' free space:" <<<"$out")"
read -r fnum funit <<<"$(sed -E "s/.*free space: ([0-9.]+) ([KMGT]?i?B).*/\1 \2/" <<<"$free_line")"
dfree="$(df -B1 --output=avail "$DATA" | tail -n1 | tr -d ' ')"
pfree="$(size_of "$fnum" "$funit")"
check "the free space stated ($fnum $funit) is df's for the drive ($dfree B, within 2 %)" \
    awk -v a="$pfree" -v b="$dfree" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.02 * b) }'
check_contains "and the shortfall" " short" "$free_line"
err="$(cat "$TMP/a.err")"
check_eq "stderr: one line" 1 "$(grep -c . <<<"$err")"
check_contains "naming the sizes" "s3: objects do not fit: 3.85 TiB needed (3.66 TiB of objects" "$err"
check_contains "and the bypass" "--no-space-check writes anyway" "$err"
check_eq "du of MinIO's data dir is unchanged" "$before" "$(data_du "$DATA")"
check_eq "no bucket was made" 404 "$(s3status aops)"
dbq() { mariadb --defaults-extra-file="$AOPS_STACK_DIR/harness.cnf" -N -e "$1" 2>&1; }
check_eq "no table was made" "" "$(dbq 'SHOW TABLES')"
timeout 20 "$HARNESS" prepare --containers 256 --force >/dev/null 2>"$TMP/a2.err"
check_eq "--force does not bypass the check (exit 2)" 2 "$?"
check_eq "still nothing written" "$before" "$(data_du "$DATA")"
# Item 4: a run without data names the prepare command with its own options.
"$HARNESS" --containers 3 --profile tiny --workloads s3 --dataset shared --out "$TMP/ra" >"$TMP/ra.log" 2>&1
check_eq "a run before prepare (s3) exits 1" 1 "$?"
check_contains "naming the prepare with its options" \
    "run ./harness prepare --containers 3 --profile tiny --workloads s3 --dataset shared" "$(cat "$TMP/ra.log")"
"$HARNESS" --containers 2 --profile tiny --workloads db --out "$TMP/rb" >"$TMP/rb.log" 2>&1
check_eq "a run before prepare (db) exits 1" 1 "$?"
check_contains "naming the prepare with its options" \
    "no harness tables: run ./harness prepare --containers 2 --profile tiny --workloads db" "$(cat "$TMP/rb.log")"
"$STACK" down >/dev/null 2>&1

# --- (b) another writer leaves the drive too little room; once it is gone, the data fits ---------
mkdrive 1 2G || { fail "cannot make loop drive 1"; finish; }
up --data-dirs "$TMP/d1"
avail="$(df -B1 --output=avail "$TMP/d1" | tail -n1 | tr -d ' ')"
# The other writer: all but 100 MiB of the drive (a file MinIO does not take for a bucket).
fallocate -l $((avail - 100 * 1048576)) "$TMP/d1/.other-writer" || { fail "fallocate"; finish; }
P=(--containers 1 --profile small --dataset shared --workloads s3)
"$HARNESS" prepare "${P[@]}" >"$TMP/b.out" 2>"$TMP/b.err"
check_eq "234 MiB + 1 GiB margin into 100 MiB: refused, exit 2" 2 "$?"
"$HARNESS" prepare "${P[@]}" --no-space-check >"$TMP/b.out" 2>"$TMP/b.err"
rc=$?
check_eq "with --no-space-check it writes until the drive is full: exit 1" 1 "$rc"
check_contains "the plan says the check is off" "--no-space-check: written even if it does not fit" "$(cat "$TMP/b.out")"
fails="$(grep -v -e '^harness prepare: s3\.\.\.$' "$TMP/b.err")"
check_eq "one line says why ($fails)" 1 "$(grep -c . <<<"$fails")"
check_contains "the drive is full" "has no room left" "$fails"
check_eq "no objects manifest: nothing a run would count as prepared" 404 "$(s3status aops/small/objects-manifest)"
check_eq "the prepare record says the check was skipped" "true" "$(jq -r .no_space_check "$AOPS_STACK_DIR/prepare.json")"
check_contains "and how it ended" "has no room left" "$(jq -r .result "$AOPS_STACK_DIR/prepare.json")"
"$HARNESS" "${P[@]}" --cycles 1 --out "$TMP/rfull" >"$TMP/rfull.log" 2>&1
check_eq "a run on the half-written set exits 1" 1 "$?"
check_contains "saying to prepare" "run ./harness prepare --containers 1 --profile small --dataset shared --workloads s3" \
    "$(cat "$TMP/rfull.log")"
rm -f "$TMP/d1/.other-writer"
# MinIO keeps its drives' free space for a while: wait until its admin info shows the room again.
room() {
    curl -s --aws-sigv4 "aws:amz:us-east-1:s3" --user "$(ak AWS_ACCESS_KEY_ID):$(ak AWS_SECRET_ACCESS_KEY)" \
        -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
        "http://127.0.0.1:$AOPS_MINIO_PORT/minio/admin/v3/info" | jq -r '[.servers[].drives[].availspace] | min'
}
deadline=$((SECONDS + 60))
until [ "$(room)" -gt $((1500 * 1048576)) ] 2>/dev/null || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
check "MinIO sees the room again" test "$(room)" -gt $((1500 * 1048576))
"$HARNESS" prepare "${P[@]}" >"$TMP/b2.out" 2>"$TMP/b2.err"
check_eq "the next prepare, with room, completes ($(tail -n1 "$TMP/b2.err"))" 0 "$?"
check_contains "its plan fits" ": fits" "$(cat "$TMP/b2.out")"
check_eq "the record: complete" complete "$(jq -r .result "$AOPS_STACK_DIR/prepare.json")"
check_eq "the record: checked this time" false "$(jq -r .no_space_check "$AOPS_STACK_DIR/prepare.json")"
"$HARNESS" "${P[@]}" --cycles 1 --quiet --out "$TMP/rb2" >"$TMP/rb2.log" 2>&1
R="$TMP/rb2/result.json"
check_eq "a run then reads every object without error" "1190 0" \
    "$(jq -r '"\(.workloads.s3.ops) \(.workloads.s3.errors)"' "$R" 2>&1)"
check_eq "each body checked against the manifest" true "$(jq -r .verification.s3.verified "$R" 2>&1)"
"$STACK" down >/dev/null 2>&1

# --- (c) 4 drives, EC:2: the estimate against du --------------------------------------------------
for i in 2 3 4 5; do mkdrive "$i" 1G || { fail "cannot make loop drive $i"; finish; }; done
up --data-dirs "$TMP/d2,$TMP/d3,$TMP/d4,$TMP/d5"
"$HARNESS" prepare "${P[@]}" >"$TMP/c.out" 2>"$TMP/c.err"
check_eq "prepare over 4 drives exits 0 ($(tail -n1 "$TMP/c.err"))" 0 "$?"
check_contains "the plan names the layout" "4 drives, EC:2, each object as 2 data + 2 parity shards" "$(cat "$TMP/c.out")"
REC="$AOPS_STACK_DIR/prepare.json"
check "the parity it adds is the objects' size again (2 + 2 shards)" \
    jq -e '.plan.s3 | .parity == .write and .write == 245760000' "$REC"
est="$(jq -r '.plan.s3 | .write + .parity' "$REC")"
got=0
for i in 2 3 4 5; do got=$((got + $(du -sb "$TMP/d$i/aops" | cut -f1))); done
check "the estimate on the drives ($est B) is within 10 % of du of the bucket on them ($got B)" \
    awk -v a="$est" -v b="$got" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.10 * b) }'
echo "estimate $est B, du $got B"

finish
