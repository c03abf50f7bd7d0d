/* test_cgroup.c -- which hierarchy the cgroup layer picks and where it makes
 * the worker cgroups, from fixture mountinfo and /proc/PID/cgroup files: this
 * machine's v1/v2 hybrid, a pure v2 host, and v1 with cpu,cpuacct co-mounted;
 * and which controllers a v2 cgroup.controllers file lists.
 * (The live limits, OOM and cleanup are tested against the real kernel in
 * tests/integration/test_coordinator.sh.) */
#include <string.h>

#include "../../containers/cgroup.h"
#include "unit.h"

#define FX "tests/fixtures/cgroup/"

int main(void) {
    char mem[512], cpu[512];
    int mode = cgroups_probe_files(FX "hybrid.mountinfo", FX "hybrid.cgroup", mem, cpu, 512);
    CHECK(mode == CG_V1);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/memory/process_api/6f29"), "%s", mem);
    CHECKF(!strcmp(cpu, "/sys/fs/cgroup/cpu"), "%s", cpu);

    mode = cgroups_probe_files(FX "v2.mountinfo", FX "v2.cgroup", mem, cpu, 512);
    CHECK(mode == CG_V2);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope"), "%s", mem);
    CHECK(cpu[0] == 0);

    mode = cgroups_probe_files(FX "v1-cpuacct.mountinfo", FX "v1-cpuacct.cgroup", mem, cpu, 512);
    CHECK(mode == CG_V1);
    CHECKF(!strcmp(mem, "/sys/fs/cgroup/memory/docker/abc"), "%s", mem);
    CHECKF(!strcmp(cpu, "/sys/fs/cgroup/cpu,cpuacct/docker/abc"), "%s", cpu);

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
    return unit_done("cgroup");
}
