/* test_inventory.c -- the "system" object on fixture sysroots: Intel two
 * sockets with SMT (cpuinfo layout), AMD one socket with sparse core ids, an
 * ARM-style cpuinfo that needs sysfs topology, an empty root; and the
 * warnings (NVMe scheduler, governor, swap) with their exact text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "telemetry.h"
#include "unit.h"

static const char *fixture(const char *name, char *buf, size_t size) {
    const char *root = getenv("AOPS_ROOT") ? getenv("AOPS_ROOT") : ".";
    snprintf(buf, size, "%s/tests/fixtures/%s", root, name);
    return buf;
}

static void cfg_for(struct config *c, const char *root) {
    memset(c, 0, sizeof *c);
    snprintf(c->sysroot, sizeof c->sysroot, "%s", root);
    snprintf(c->cmdline, sizeof c->cmdline, "./harness --containers 2 --profile tiny");
}

static long long geti(json_t *o, const char *k) {
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : -12345;
}

static int streq(json_t *o, const char *k, const char *want) {
    const char *s = json_string_value(json_object_get(o, k));
    if (!s || strcmp(s, want) != 0) {
        fprintf(stderr, "  %s: got '%s', want '%s'\n", k, s ? s : "(null)", want);
        return 0;
    }
    return 1;
}

static void test_intel(void) {
    char root[1024];
    struct config c;
    cfg_for(&c, fixture("sysroot-intel-2s", root, sizeof root));
    json_t *w = json_array();
    json_t *s = inventory_json(&c, w);
    CHECK(streq(s, "cpu_vendor", "GenuineIntel"));
    CHECK(streq(s, "cpu_model", "Intel(R) Xeon(R) Platinum 8480+"));
    CHECK(geti(s, "cpu_family") == 6 && geti(s, "cpu_model_number") == 143 &&
          geti(s, "cpu_stepping") == 8);
    CHECK(geti(s, "sockets") == 2);
    CHECK(geti(s, "physical_cores") == 4); /* (0,0) (0,1) (1,0) (1,1) */
    CHECK(geti(s, "logical_cpus") == 8);
    CHECK(streq(s, "smt", "on"));
    CHECK(geti(s, "numa_nodes") == 2);
    CHECK(geti(s, "l1d_bytes") == 48 * 1024 && geti(s, "l1i_bytes") == 32 * 1024);
    CHECK(geti(s, "l2_bytes") == 2048 * 1024 && geti(s, "l3_bytes") == 107520LL * 1024);
    CHECK(geti(s, "memory_bytes") == 527999920LL * 1024);
    CHECK(streq(s, "kernel", "5.15.0-105-generic"));
    CHECK(streq(s, "os_release", "Ubuntu 22.04.4 LTS"));
    CHECK(streq(s, "command_line", "./harness --containers 2 --profile tiny"));
    CHECK(json_is_string(json_object_get(s, "harness_version")));
    CHECK(json_is_string(json_object_get(s, "compiler")));

    json_t *disks = json_object_get(s, "disks");
    const char *names[] = {"dm-0", "md0", "nvme0n1", "nvme1n1", "nvme2n1"}; /* no loop0 */
    CHECKF(json_array_size(disks) == 5, "%zu disks", json_array_size(disks));
    for (size_t i = 0; i < 5 && i < json_array_size(disks); i++)
        CHECK(streq(json_array_get(disks, i), "name", names[i]));
    json_t *n0 = json_array_get(disks, 2);
    CHECK(streq(n0, "model", "SAMSUNG MZQL27T6HBLA-00A07"));
    CHECK(geti(n0, "size_bytes") == 3750748848LL * 512);
    CHECK(json_is_false(json_object_get(n0, "rotational")));
    CHECK(streq(n0, "scheduler", "mq-deadline"));
    CHECK(streq(json_array_get(disks, 3), "scheduler", "none"));
    CHECK(json_is_null(json_object_get(json_array_get(disks, 0), "rotational")));

    CHECKF(json_array_size(w) == 3, "%zu warnings", json_array_size(w));
    const char *want[] = {"NVMe device nvme0n1 uses I/O scheduler mq-deadline, not none",
                          "CPU frequency governor is powersave on 6 of 8 CPUs, not performance",
                          "swap is active: /dev/nvme0n1p3 (8388604 KiB, 1024 KiB used)"};
    for (size_t i = 0; i < 3 && i < json_array_size(w); i++)
        CHECKF(strcmp(json_string_value(json_array_get(w, i)), want[i]) == 0, "%s",
               json_string_value(json_array_get(w, i)));
    CHECK(inventory_physical_cores(&c) == 4);
    json_decref(s);
    json_decref(w);
}

static void test_amd(void) {
    char root[1024];
    struct config c;
    cfg_for(&c, fixture("sysroot-amd-1s", root, sizeof root));
    json_t *w = json_array();
    json_t *s = inventory_json(&c, w);
    CHECK(streq(s, "cpu_vendor", "AuthenticAMD"));
    CHECK(streq(s, "cpu_model", "AMD EPYC 9654 96-Core Processor"));
    CHECK(geti(s, "cpu_family") == 25 && geti(s, "cpu_model_number") == 17);
    CHECK(geti(s, "sockets") == 1);
    CHECK(geti(s, "physical_cores") == 2); /* core ids 0 and 8, two threads each */
    CHECK(geti(s, "logical_cpus") == 4);
    CHECK(streq(s, "smt", "on"));
    CHECK(geti(s, "numa_nodes") == 1);
    CHECK(json_is_null(json_object_get(s, "l3_bytes")));
    CHECK(geti(s, "memory_bytes") == 16384000LL * 1024);
    CHECK(streq(s, "os_release", "Debian GNU/Linux 12 (bookworm)"));
    json_t *disks = json_object_get(s, "disks");
    CHECK(json_array_size(disks) == 1);
    json_t *vda = json_array_get(disks, 0);
    CHECK(streq(vda, "name", "vda") && streq(vda, "scheduler", "none"));
    CHECK(json_is_true(json_object_get(vda, "rotational")) &&
          json_is_null(json_object_get(vda, "model")));
    CHECK(geti(vda, "size_bytes") == 536870912LL * 512);
    CHECKF(json_array_size(w) == 0, "%zu warnings", json_array_size(w)); /* no cpufreq, no swap */
    CHECK(inventory_physical_cores(&c) == 2);
    json_decref(s);
    json_decref(w);
}

static void put(const char *root, const char *rel, const char *text) {
    char path[2048], cmd[2200];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    if (system(cmd) != 0)
        exit(1);
    FILE *f = fopen(path, "w");
    if (!f)
        exit(1);
    fputs(text, f);
    fclose(f);
}

/* No physical id in cpuinfo (ARM): topology comes from sysfs. Then an empty
 * root: everything null, no warnings, cores unknown (-1). */
static void test_sysfs_topology_and_empty(const char *tmp) {
    char root[512], rel[128];
    struct config c;
    snprintf(root, sizeof root, "%s/arm", tmp);
    put(root, "proc/cpuinfo",
        "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n\n"
        "processor\t: 1\nBogoMIPS\t: 50.00\n\nprocessor\t: 2\n\nprocessor\t: 3\n");
    for (int i = 0; i < 4; i++) {
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/topology/physical_package_id", i);
        put(root, rel, "0\n");
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/topology/core_id", i);
        put(root, rel, i == 0 ? "0\n" : i == 1 ? "1\n" : i == 2 ? "2\n" : "3\n");
    }
    put(root, "sys/devices/system/cpu/smt/active", "0\n");
    cfg_for(&c, root);
    json_t *w = json_array();
    json_t *s = inventory_json(&c, w);
    CHECK(json_is_null(json_object_get(s, "cpu_vendor")));
    CHECK(geti(s, "logical_cpus") == 4 && geti(s, "physical_cores") == 4 &&
          geti(s, "sockets") == 1);
    CHECK(streq(s, "smt", "off"));
    CHECK(inventory_physical_cores(&c) == 4);
    json_decref(s);

    snprintf(root, sizeof root, "%s/empty", tmp);
    mkdir(root, 0755);
    cfg_for(&c, root);
    s = inventory_json(&c, w);
    const char *nulls[] = {"cpu_vendor",   "cpu_model", "sockets",    "physical_cores",
                           "logical_cpus", "smt",       "numa_nodes", "memory_bytes",
                           "kernel",       "os_release"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        CHECKF(json_is_null(json_object_get(s, nulls[i])), "%s", nulls[i]);
    CHECK(json_array_size(json_object_get(s, "disks")) == 0);
    CHECK(json_array_size(w) == 0);
    CHECK(inventory_physical_cores(&c) == -1);
    json_decref(s);
    json_decref(w);
}

int main(void) {
    char tmpl[] = "/tmp/aops-inv.XXXXXX", cmd[128];
    const char *tmp = mkdtemp(tmpl);
    if (!tmp)
        return perror("mkdtemp"), 1;
    test_intel();
    test_amd();
    test_sysfs_topology_and_empty(tmp);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
    return unit_done("test_inventory");
}
