#!/bin/sh
# containers/entrypoint.sh [HARNESS ARGS...] -- the compose demo's harness container: make the
# per-worker cgroups possible, then fetch the corpus, prepare and run; with arguments, run
# ./harness with those instead (docker-compose run harness containers/entrypoint.sh ...).
#
# Docker mounts the container's cgroups read-only. The harness service gets CAP_SYS_ADMIN
# (docker-compose.yml says why nothing narrower does) for one thing: remounting those mounts
# read-write (a bind remount, so the container still sees only its own cgroup, not the
# host's tree). The capability is then dropped from the bounding set: the harness and its
# workers run without it.
#
# On cgroup v2 the container's cgroup is the root of /sys/fs/cgroup, and a cgroup that holds
# processes cannot hand controllers to children ("no internal processes"). So, as
# Docker-in-Docker images do, this container's processes move into a leaf first; the harness
# then makes its worker cgroups beside it. On v1 (a hybrid host) the harness makes them
# inside the container's memory cgroup.
set -eu
die() { echo "entrypoint: $*" >&2; exit 1; }

# The read-only cgroup mounts the harness writes in: cgroup2, or v1 memory and cpu (mountinfo:
# field 5 the mount point, field 6 its options; after " - " the type, source, super options).
# Other v1 controllers (devices, freezer, ...) stay read-only.
ro_cgroups=$(awk '{ for (i = 7; $i != "-"; i++); }
    $6 ~ /(^|,)ro(,|$)/ && ($(i + 1) == "cgroup2" || ($(i + 1) == "cgroup" && $(i + 3) ~ /(^|,)(memory|cpu)(,|$)/)) { print $5 }' /proc/self/mountinfo)
for mp in $ro_cgroups; do
    err=$(mount -o remount,bind,rw "$mp" 2>&1) ||
        die "cannot make $mp writable ($(echo "$err" | head -n1)): the harness service needs cap_add SYS_ADMIN (and security_opt apparmor=unconfined where AppArmor runs); see docker-compose.yml"
done

if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    mkdir -p /sys/fs/cgroup/init
    for p in $(cat /sys/fs/cgroup/cgroup.procs); do
        echo "$p" >/sys/fs/cgroup/init/cgroup.procs 2>/dev/null || true
    done
fi

# From here on without CAP_SYS_ADMIN.
unpriv() { setpriv --bounding-set -sys_admin --inh-caps -sys_admin "$@"; }
if [ $# -gt 0 ]; then
    exec setpriv --bounding-set -sys_admin --inh-caps -sys_admin ./harness "$@"
fi
unpriv ./harness corpus fetch --profile "$AOPS_PROFILE"
unpriv ./harness prepare --containers "$AOPS_CONTAINERS" --profile "$AOPS_PROFILE"
exec setpriv --bounding-set -sys_admin --inh-caps -sys_admin \
    ./harness --containers "$AOPS_CONTAINERS" --profile "$AOPS_PROFILE"
