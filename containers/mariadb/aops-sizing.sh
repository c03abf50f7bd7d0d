#!/bin/sh
# containers/mariadb/aops-sizing.sh -- the two settings of aops.cnf (beside this file) that depend
# on the machine and the run, printed as mariadbd options on one line:
#
#   --innodb-buffer-pool-size=BYTES  from AOPS_MARIADB_BUFFER_POOL: a size (8G, 512M, 1073741824)
#       or a share of the memory MariaDB may use ("25%", the default). That memory is the
#       smaller of MemTotal and its cgroup's limit (a container's), or AOPS_MARIADB_MEMORY
#       (bytes) when set. Why 25 %: the server shares the machine with MinIO (whose page cache
#       holds the hot objects), the workers (--memory-limit each) and the corpus; 25 % holds
#       the full profile's tables and indexes on a machine of 16 GiB or more.
#   --max-connections=N  one connection per worker: AOPS_CONTAINERS x AOPS_SHARDS (1), + 32 for
#       the harness's own checks, prepare and an administrator; AOPS_MARIADB_MAX_CONNECTIONS
#       sets it outright; 512 when no container count is given.
#
# Used by scripts/stack (the local stack) and the aops-mariadb image's entrypoint (compose,
# Kubernetes). POSIX sh: the image's /bin/sh is dash. A bad value: one line on stderr, exit 2.
set -eu
die() { echo "aops-sizing: $*" >&2; exit 2; }

# bytes SIZE -> bytes (K, M, G, T suffixes are binary, optional "iB"/"B")
bytes() {
    n=$(printf '%s' "$1" | sed -nE 's/^([0-9]+)([KkMmGgTt]?)(i?[Bb])?$/\1 \2/p')
    [ -n "$n" ] || return 1
    num="${n%% *}" suf="${n#* }"
    case "$suf" in
    "") echo "$num" ;;
    [Kk]) echo $((num * 1024)) ;;
    [Mm]) echo $((num * 1024 * 1024)) ;;
    [Gg]) echo $((num * 1024 * 1024 * 1024)) ;;
    [Tt]) echo $((num * 1024 * 1024 * 1024 * 1024)) ;;
    esac
}

# The memory this server may use: MemTotal, or its cgroup's limit when lower.
memory() {
    if [ -n "${AOPS_MARIADB_MEMORY:-}" ]; then
        bytes "$AOPS_MARIADB_MEMORY" || die "AOPS_MARIADB_MEMORY must be a size in bytes (or 16G), got '$AOPS_MARIADB_MEMORY'"
        return
    fi
    m=$(awk '$1 == "MemTotal:" { print $2 * 1024 }' /proc/meminfo)
    for f in /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes; do
        [ -r "$f" ] || continue
        l=$(cat "$f")
        case "$l" in *[!0-9]*|"") continue ;; esac   # "max": no limit
        [ "$l" -lt "$m" ] && m=$l
    done
    echo "$m"
}

pool="${AOPS_MARIADB_BUFFER_POOL:-25%}"
case "$pool" in
*%)
    pct="${pool%\%}"
    case "$pct" in ''|*[!0-9]*) die "AOPS_MARIADB_BUFFER_POOL must be a size (8G) or a percentage (25%), got '$pool'" ;; esac
    if [ "$pct" -lt 1 ] || [ "$pct" -gt 90 ]; then die "AOPS_MARIADB_BUFFER_POOL: $pool is outside 1%..90% of memory"; fi
    mem=$(memory)
    bp=$((mem * pct / 100))
    ;;
*)
    bp=$(bytes "$pool") || die "AOPS_MARIADB_BUFFER_POOL must be a size (8G) or a percentage (25%), got '$pool'"
    ;;
esac
# MariaDB's floor is 5M; below 64M nothing of the benchmark fits.
[ "$bp" -ge $((64 * 1024 * 1024)) ] || die "AOPS_MARIADB_BUFFER_POOL: $pool is $bp bytes, below 64M"

if [ -n "${AOPS_MARIADB_MAX_CONNECTIONS:-}" ]; then
    conn="$AOPS_MARIADB_MAX_CONNECTIONS"
    case "$conn" in ''|*[!0-9]*) die "AOPS_MARIADB_MAX_CONNECTIONS must be a number, got '$conn'" ;; esac
elif [ -n "${AOPS_CONTAINERS:-}" ]; then
    c="$AOPS_CONTAINERS" s="${AOPS_SHARDS:-1}"
    case "$c$s" in *[!0-9]*) die "AOPS_CONTAINERS and AOPS_SHARDS must be numbers, got '$c' and '$s'" ;; esac
    conn=$((c * s + 32))
else
    conn=512
fi
if [ "$conn" -lt 10 ] || [ "$conn" -gt 100000 ]; then die "max_connections $conn is outside 10..100000"; fi

echo "--innodb-buffer-pool-size=$bp --max-connections=$conn"
