/* test_cgroup.c -- which hierarchy the cgroup layer picks and where it makes
 * the worker cgroups, from fixture mountinfo and /proc/PID/cgroup files:
 * this machine's v1/v2 hybrid, a pure v2 host, v1 with cpu,cpuacct
 * co-mounted, and inside containers, with the host's cgroup namespace (the
 * mount's root is the container's own cgroup and must not be joined twice)
 * and a private one. cgroups_probe_files runs locate(), the same function
 * cgroups_create uses on /proc/self. The docker-* fixtures were captured in
 * Docker 20.10 containers: v1 on this machine (docker run, --cgroupns=private,
 * and a fresh `mount -t cgroup -o memory` on /tmp/m), v2 in a Debian 12 VM
 * (pure v2; default and --cgroupns=host). The podman one follows the path in
 * issue 13's error message. (The live limits, OOM and cleanup are
 * tested against the real kernel in tests/integration/test_coordinator.sh,
 * inside a container by tests/integration/test_compose_up.sh, on pure v2 in
 * a VM by tests/vm/run-v2.sh.) And which controllers a v2 cgroup.controllers
 * file lists. */
#include <string.h>

#include "../../containers/cgroup.h"
#include "unit.h"

#define FX "tests/fixtures/cgroup/"

static int probe(const char *name, char *mem, char *cpu) {
    char mi[256], cg[256];
    snprintf(mi, sizeof mi, FX "%s.mountinfo", name);
    snprintf(cg, sizeof cg, FX "%s.cgroup", name);
    return cgroups_probe_files(mi, cg, mem, cpu, 512);
}

int main(void) {
    char mem[512], cpu[512];
    int mode = probe("hybrid", mem, cpu);
    CHECK(mode == CG_V1);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/memory/process_api/6f29"), "%s", mem);
    CHECKF(!strcmp(cpu, "/sys/fs/cgroup/cpu"), "%s", cpu);

    mode = probe("v2", mem, cpu);
    CHECK(mode == CG_V2);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope"), "%s", mem);
    CHECK(cpu[0] == 0);

    mode = probe("v1-cpuacct", mem, cpu);
    CHECK(mode == CG_V1);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/memory/docker/abc"), "%s", mem);
    CHECKF(!strcmp(cpu, "/sys/fs/cgroup/cpu,cpuacct/docker/abc"), "%s", cpu);

    /* v1, host cgroup namespace: the mount already is the container's cgroup
     * (was: /sys/fs/cgroup/memory/docker/<id>, which does not exist there). */
    mode = probe("docker-v1-hostns", mem, cpu);
    CHECK(mode == CG_V1);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/memory"), "%s", mem);
    CHECKF(!strcmp(cpu, "/sys/fs/cgroup/cpu"), "%s", cpu);

    mode = probe("podman-v1-hostns", mem, cpu);
    CHECK(mode == CG_V1);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/memory"), "%s", mem);
    CHECKF(!strcmp(cpu, "/sys/fs/cgroup/cpu,cpuacct"), "%s", cpu);

    /* v1, private cgroup namespace: both paths are relative to it. */
    mode = probe("docker-v1-private", mem, cpu);
    CHECK(mode == CG_V1);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/memory"), "%s", mem);

    /* v1, a fresh mount of the whole hierarchy elsewhere: libcgroup takes
     * the first mount of a controller (the container's read-only one), so
     * that is where worker cgroups would go -- a fresh mount must replace
     * the container's in place (next case). containers/entrypoint.sh keeps
     * the container's own mounts and only remounts them read-write (a bind
     * remount: the docker-v1-hostns case above, root stripped). */
    mode = probe("docker-v1-fresh-mount", mem, cpu);
    CHECK(mode == CG_V1);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/memory"), "%s", mem);

    /* v1, the container's memory and cpu mounts replaced in place by mounts
     * of the whole hierarchy (captured in a Docker 20.10 container here):
     * the mount's root is "/" now, so the own path is joined whole. */
    mode = probe("docker-v1-remounted", mem, cpu);
    CHECK(mode == CG_V1);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/memory/docker/"
                        "b735a8b1d3692046b2e500e5ed256668debb6b4e89a9d5d48d63686ee65dca1a"),
           "%s", mem);
    CHECKF(!strcmp(cpu, "/sys/fs/cgroup/cpu/docker/"
                        "b735a8b1d3692046b2e500e5ed256668debb6b4e89a9d5d48d63686ee65dca1a"),
           "%s", cpu);

    /* A root that is only a name prefix of the own path is not stripped. */
    mode = probe("v1-prefix", mem, cpu);
    CHECK(mode == CG_V1);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/memory/docker/abc"), "%s", mem);

    /* v2, private namespace (Docker's default on v2): the container's
     * cgroup is the mount's top. */
    mode = probe("docker-v2-private", mem, cpu);
    CHECK(mode == CG_V2);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup"), "%s", mem);

    /* v2, host namespace: runc mounts the whole hierarchy (root "/"). */
    mode = probe("docker-v2-hostns", mem, cpu);
    CHECK(mode == CG_V2);
    CHECKF(!strcmp(mem,
                   "/sys/fs/cgroup/system.slice/"
                   "docker-3c0a25922f49f44a460cff3d8c2e6115f401a0bf8960a0b484de2fafdfbeffc9.scope"),
           "%s", mem);

    CHECK(cgroups_probe_files(FX "missing", FX "missing", mem, cpu, 512) == 0);

    /* v2 lists the controllers a cgroup can hand down separated by spaces
     * (the file below is the root's on Debian's 6.1 cloud kernel booted with
     * cgroup_no_v1=all): memory in the middle of it must be found. */
    CHECK(cgroups_v2_has_controller(FX "v2-root", "memory") == 1);
    CHECK(cgroups_v2_has_controller(FX "v2-root", "cpu") == 1);
    CHECK(cgroups_v2_has_controller(FX "v2-root", "misc") == 1);
    CHECK(cgroups_v2_has_controller(FX "v2-root", "mem") == 0);
    CHECK(cgroups_v2_has_controller(FX "v2-nomem", "memory") == 0);
    CHECK(cgroups_v2_has_controller(FX "v2-nomem", "cpu") == 1);
    CHECK(cgroups_v2_has_controller(FX "missing", "memory") == 0);

    /* A limit that could not include swap is said only where swap is
     * active: the Intel fixture's /proc/swaps lists a partition, the AMD
     * one's none (its header only), a sysroot without the file none. */
    char w[256];
    const char *msg = cgroups_swap_warning(0, "tests/fixtures/sysroot-intel-2s", w, sizeof w);
    CHECKF(msg && strstr(msg, "--memory-limit is RAM only: swap is active"), "%s", msg ? msg : "");
    CHECK(cgroups_swap_warning(1, "tests/fixtures/sysroot-intel-2s", w, sizeof w) == NULL);
    CHECK(cgroups_swap_warning(-1, "tests/fixtures/sysroot-intel-2s", w, sizeof w) == NULL);
    CHECK(cgroups_swap_warning(0, "tests/fixtures/sysroot-amd-1s", w, sizeof w) == NULL);
    CHECK(cgroups_swap_warning(0, FX "missing", w, sizeof w) == NULL);
    return unit_done("cgroup");
}
