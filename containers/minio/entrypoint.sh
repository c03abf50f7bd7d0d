#!/bin/bash
# containers/minio/entrypoint.sh -- MinIO on the drives AOPS_MINIO_DATA_DIRS names: paths inside
# the container, comma-separated, default /data. One directory is a single drive; several are one
# erasure-coded set, as MinIO is deployed on a multi-drive server (AOPS_MINIO_PARITY: its parity,
# else MinIO's default for the set size). The same checks as `scripts/stack up --data-dirs`, so a
# bad list is one line and exit 1 instead of MinIO retrying "drive not found" forever.
# Arguments go to `minio server` after the drives (the default: the S3 and console addresses).
set -euo pipefail
die() { echo "minio entrypoint: $*" >&2; exit 1; }

IFS=, read -r -a dirs <<<"${AOPS_MINIO_DATA_DIRS:-/data}"
[ ${#dirs[@]} -gt 0 ] || die "AOPS_MINIO_DATA_DIRS names no directory"
root_dev="$(stat -L -c %d /)"
declare -A seen=()
for d in "${dirs[@]}"; do
    case "$d" in /*) ;; *) die "AOPS_MINIO_DATA_DIRS: '$d' is not an absolute path" ;; esac
    [ -d "$d" ] || die "AOPS_MINIO_DATA_DIRS: $d does not exist in the container (mount a volume there)"
    [ -z "${seen[$d]:-}" ] || die "AOPS_MINIO_DATA_DIRS: $d is given twice"
    seen[$d]=1
done
for d in "${dirs[@]}"; do
    if [ ${#dirs[@]} -gt 1 ] && [ "$(stat -L -c %d "$d")" = "$root_dev" ]; then
        die "AOPS_MINIO_DATA_DIRS: $d is on the container's root filesystem; with several drives MinIO refuses root-filesystem drives and retries forever: mount a volume at each"
    fi
done
if [ -n "${AOPS_MINIO_PARITY:-}" ]; then
    [ ${#dirs[@]} -gt 1 ] || die "AOPS_MINIO_PARITY needs several drives in AOPS_MINIO_DATA_DIRS"
    if ! { [[ "$AOPS_MINIO_PARITY" =~ ^[0-9]+$ ]] && [ "$AOPS_MINIO_PARITY" -le $((${#dirs[@]} / 2)) ]; }; then
        die "AOPS_MINIO_PARITY must be a number of at most $((${#dirs[@]} / 2)) for ${#dirs[@]} drives, got '$AOPS_MINIO_PARITY'"
    fi
    export MINIO_STORAGE_CLASS_STANDARD="EC:$AOPS_MINIO_PARITY"
fi
[ $# -gt 0 ] || set -- --address :9000 --console-address :9001
echo "minio entrypoint: ${#dirs[@]} drive(s): ${dirs[*]}${AOPS_MINIO_PARITY:+, parity $AOPS_MINIO_PARITY}"
exec minio server "${dirs[@]}" "$@"
