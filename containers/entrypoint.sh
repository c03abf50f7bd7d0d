#!/bin/sh
# containers/entrypoint.sh -- the compose demo's harness container: make the
# per-worker cgroups possible, then fetch the corpus, prepare and run.
#
# On a cgroup v2 host the container sees its own cgroup as the root of
# /sys/fs/cgroup, and a non-root cgroup that holds processes cannot hand
# controllers to children ("no internal processes"). So, as Docker-in-Docker
# images do, move this container's processes into a leaf first; the harness
# then makes its worker cgroups beside it. Needs `privileged: true`.
set -e
if [ -f /sys/fs/cgroup/cgroup.controllers ] && [ -w /sys/fs/cgroup ]; then
    mkdir -p /sys/fs/cgroup/init
    for p in $(cat /sys/fs/cgroup/cgroup.procs); do
        echo "$p" >/sys/fs/cgroup/init/cgroup.procs 2>/dev/null || true
    done
fi
./harness corpus fetch --profile "$AOPS_PROFILE"
./harness prepare --containers "$AOPS_CONTAINERS" --profile "$AOPS_PROFILE"
exec ./harness --containers "$AOPS_CONTAINERS" --profile "$AOPS_PROFILE"
