#!/usr/bin/env bash
# The two start-up scripts the images share with the local stack, without a Docker engine:
#   - containers/mariadb/aops-sizing.sh: the buffer pool as a share of memory (25 % by default,
#     of the smaller of MemTotal and a cgroup limit) or as given, max_connections one per worker
#     of every shard + 32 (512 with no count), every figure worked out by hand here; a bad value
#     is one line and exit 2;
#   - containers/mariadb/aops.cnf: every setting carries a comment saying why, and mariadbd
#     accepts the file as it is (--help --verbose reads it and prints the values it would use);
#   - containers/minio/entrypoint.sh, with a stand-in `minio` that prints its arguments: the
#     default is the one drive /data, a list becomes MinIO's drive arguments and --parity its
#     storage class, and each bad list is one line and exit 1 before MinIO would start (a missing
#     directory, one given twice, several on the root filesystem, a parity above half).
# Takes a second.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"
SIZING="$ROOT/containers/mariadb/aops-sizing.sh"
CNF="$ROOT/containers/mariadb/aops.cnf"

# --- sizing --------------------------------------------------------------------------------------
G=$((1024 * 1024 * 1024))
check_eq "16 GiB, defaults: 25 % and 512" "--innodb-buffer-pool-size=$((4 * G)) --max-connections=512" \
    "$(env -i AOPS_MARIADB_MEMORY=16G sh "$SIZING")"
check_eq "40 % of 10 GiB, 256 workers" "--innodb-buffer-pool-size=$((10 * G * 40 / 100)) --max-connections=288" \
    "$(env -i AOPS_MARIADB_MEMORY=$((10 * G)) AOPS_MARIADB_BUFFER_POOL=40% AOPS_CONTAINERS=256 sh "$SIZING")"
check_eq "a size as given, 4 workers x 3 shards" "--innodb-buffer-pool-size=$((8 * G)) --max-connections=44" \
    "$(env -i AOPS_MARIADB_BUFFER_POOL=8G AOPS_CONTAINERS=4 AOPS_SHARDS=3 sh "$SIZING")"
check_eq "512M, max_connections set outright" "--innodb-buffer-pool-size=536870912 --max-connections=1000" \
    "$(env -i AOPS_MARIADB_BUFFER_POOL=512M AOPS_MARIADB_MAX_CONNECTIONS=1000 sh "$SIZING")"
mem=$(awk '$1 == "MemTotal:" { print $2 * 1024 }' /proc/meminfo)
for f in /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes; do
    [ -r "$f" ] && l=$(cat "$f") && [ "$l" != max ] && [ "$l" -lt "$mem" ] && mem=$l
done
check_eq "no memory given: 25 % of this machine's MemTotal (or its cgroup's limit)" \
    "--innodb-buffer-pool-size=$((mem * 25 / 100)) --max-connections=512" "$(env -i sh "$SIZING")"
for bad in "AOPS_MARIADB_BUFFER_POOL=lots" "AOPS_MARIADB_BUFFER_POOL=95%" "AOPS_MARIADB_BUFFER_POOL=1M" \
    "AOPS_CONTAINERS=x" "AOPS_MARIADB_MAX_CONNECTIONS=3"; do
    out="$(env -i "$bad" sh "$SIZING" 2>&1)"; rc=$?
    check_eq "$bad: exit 2, one line ($out)" "2 1" "$rc $(printf '%s\n' "$out" | wc -l)"
done

# --- aops.cnf ------------------------------------------------------------------------------------
# Every setting line follows a comment line (its why), directly or after other settings of one
# comment; a setting after a blank line without a comment is not documented.
undoc="$(awk '/^\[/ { prev = "c"; next } /^#/ { prev = "c"; next } /^$/ { prev = "b"; next }
             { if (prev == "b") print; prev = "s" }' "$CNF")"
check_eq "aops.cnf: every setting has a comment saying why" "" "$undoc"
if command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; then
    md="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
    vals="$("$md" --defaults-file="$CNF" --help --verbose 2>"$TMP/md.err")"; rc=$?
    check_eq "mariadbd accepts aops.cnf ($(head -n1 "$TMP/md.err"))" 0 "$rc"
    for kv in "innodb-flush-method O_DIRECT" "innodb-io-capacity 2000" "innodb-io-capacity-max 4000" \
        "thread-handling one-thread-per-connection" "innodb-flush-log-at-trx-commit 2" "skip-name-resolve TRUE"; do
        set -- $kv
        check_eq "mariadbd reads $1 from it" "$2" "$(awk -v k="$1" '$1 == k { print $2; exit }' <<<"$vals")"
    done
fi

# --- the MinIO image's entrypoint ----------------------------------------------------------------
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "minio $*"\necho "storage class ${MINIO_STORAGE_CLASS_STANDARD:-default}"\n' >"$TMP/bin/minio"
chmod +x "$TMP/bin/minio"
ep() { env PATH="$TMP/bin:$PATH" "$@" bash "$ROOT/containers/minio/entrypoint.sh"; }
if [ -d /data ]; then
    out="$(ep AOPS_MINIO_DATA_DIRS=/data 2>&1)"
    check_contains "default: the one drive /data" "minio server /data --address :9000 --console-address :9001" "$out"
fi
mkdir -p "$TMP/e1" "$TMP/e2" "$TMP/e3" "$TMP/e4"
out="$(ep AOPS_MINIO_DATA_DIRS="$TMP/e1" 2>&1)"; rc=$?
check_eq "one directory on the root filesystem is fine (a single drive)" 0 "$rc"
check_contains "MinIO gets it" "minio server $TMP/e1 --address :9000" "$out"
for bad in "$TMP/e1,$TMP/e2,$TMP/e3,$TMP/e4:root filesystem" "$TMP/nope:does not exist" \
    "$TMP/e1,$TMP/e1:given twice" "rel/dir:not an absolute path"; do
    out="$(ep AOPS_MINIO_DATA_DIRS="${bad%%:*}" 2>&1)"; rc=$?
    check_eq "${bad%%:*}: exit 1 in one line" "1 1" "$rc $(printf '%s\n' "$out" | wc -l)"
    check_contains "saying why" "${bad#*:}" "$out"
    check_lacks "and MinIO never starts" "^minio server" "$out"
done
out="$(ep AOPS_MINIO_DATA_DIRS="$TMP/e1" AOPS_MINIO_PARITY=1 2>&1)"; rc=$?
check_eq "parity for one drive: exit 1" 1 "$rc"
# Several drives not on the root filesystem need mounts; tmpfs ones are made here when allowed.
if mount -t tmpfs -o size=1m none "$TMP/e1" 2>/dev/null; then
    for i in 2 3 4; do mount -t tmpfs -o size=1m none "$TMP/e$i"; done
    out="$(ep AOPS_MINIO_DATA_DIRS="$TMP/e1,$TMP/e2,$TMP/e3,$TMP/e4" AOPS_MINIO_PARITY=2 2>&1)"
    check_contains "4 drives become MinIO's 4 drive arguments" "minio server $TMP/e1 $TMP/e2 $TMP/e3 $TMP/e4 --address" "$out"
    check_contains "parity 2 its standard storage class" "storage class EC:2" "$out"
    out="$(ep AOPS_MINIO_DATA_DIRS="$TMP/e1,$TMP/e2,$TMP/e3,$TMP/e4" AOPS_MINIO_PARITY=3 2>&1)"; rc=$?
    check_eq "parity 3 over 4: exit 1" 1 "$rc"
    check_contains "saying the limit" "at most 2 for 4 drives" "$out"
    for i in 1 2 3 4; do umount "$TMP/e$i"; done
fi

finish
