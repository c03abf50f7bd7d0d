#!/usr/bin/env bash
# The cgroup layer on a real pure cgroup v2 kernel: tests/vm/run-v2.sh boots
# Debian's cloud kernel with cgroup_no_v1=all in qemu (TCG) and runs the
# coordinator's cgroup checks inside (limits, OOM from memory.events, SIGINT,
# stale cgroups, a session cgroup and a container's namespace). About a
# minute here; the kernel is fetched once into .local/vm.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec env HARNESS="${HARNESS:-$ROOT/harness}" "$ROOT/tests/vm/run-v2.sh"
