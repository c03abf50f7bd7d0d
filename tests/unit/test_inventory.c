/* test_inventory.c -- the "system" object on fixture sysroots: Intel two
 * sockets with SMT (cpuinfo layout), AMD one socket with sparse core ids, an
 * ARM-style cpuinfo that needs sysfs topology, an empty root; and the
 * warnings (NVMe scheduler, governor, swap) with their exact text.
 *
 * Arm: a one-socket server (tests/fixtures/sysroot-arm-server.sh, an
 * Altra-like 80-core Neoverse-N1) and a heterogeneous board (util-linux's
 * own lscpu dump of a Cortex-A510/A715/A710/X3 machine), each checked
 * against `lscpu --sysroot` on the same tree: vendor, model name per core
 * type, cores and sockets per type, threads per core, cache sizes. */
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
    /* The implementer names the vendor; without a part the model is unknown. */
    CHECK(streq(s, "cpu_vendor", "ARM"));
    CHECK(json_is_null(json_object_get(s, "cpu_model")));
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

/* What `lscpu --sysroot ROOT` says: the vendor, the CPU count, and per
 * core type ("Model name:" opens one) its model, threads per core, cores
 * per socket, sockets and stepping. Caches from `lscpu -B -C`. */
#define LS_TYPES 8
struct lscpu {
    char vendor[64];
    int cpus, ntypes;
    struct {
        char model[64], stepping[16];
        int threads, cores_per_socket, sockets;
    } t[LS_TYPES];
    long long l1d, l1i, l2, l3; /* -1: lscpu gives no size */
};

static char *after_colon(char *line) {
    char *c = strchr(line, ':');
    if (!c)
        return NULL;
    c++;
    while (*c == ' ')
        c++;
    c[strcspn(c, "\n")] = '\0';
    return c;
}

static int lscpu_read(const char *root, struct lscpu *l) {
    char cmd[1200], line[1024];
    memset(l, 0, sizeof *l);
    l->l1d = l->l1i = l->l2 = l->l3 = -1;
    snprintf(cmd, sizeof cmd, "lscpu --sysroot '%s' 2>&1", root);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        char *v = after_colon(line);
        if (!v)
            continue;
        int k = l->ntypes - 1;
        if (!strncmp(line, "Vendor ID:", 10))
            snprintf(l->vendor, sizeof l->vendor, "%s", v);
        else if (!strncmp(line, "CPU(s):", 7))
            l->cpus = atoi(v);
        else if (!strncmp(line, "Model name:", 11) && l->ntypes < LS_TYPES)
            snprintf(l->t[l->ntypes++].model, sizeof l->t[0].model, "%s", v);
        else if (k >= 0 && !strncmp(line, "Thread(s) per core:", 19))
            l->t[k].threads = atoi(v);
        else if (k >= 0 && !strncmp(line, "Core(s) per socket:", 19))
            l->t[k].cores_per_socket = atoi(v);
        else if (k >= 0 && !strncmp(line, "Socket(s):", 10))
            l->t[k].sockets = atoi(v);
        else if (k >= 0 && !strncmp(line, "Stepping:", 9))
            snprintf(l->t[k].stepping, sizeof l->t[0].stepping, "%s", v);
    }
    if (pclose(f) != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "lscpu --sysroot '%s' -B -C=NAME,ONE-SIZE 2>&1", root);
    if (!(f = popen(cmd, "r")))
        return -1;
    char name[32];
    long long size;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%31s %lld", name, &size) == 2) {
            long long *dst = !strcmp(name, "L1d")   ? &l->l1d
                             : !strcmp(name, "L1i") ? &l->l1i
                             : !strcmp(name, "L2")  ? &l->l2
                             : !strcmp(name, "L3")  ? &l->l3
                                                    : NULL;
            if (dst)
                *dst = size;
        }
    return pclose(f) == 0 ? 0 : -1;
}

static long long cache_or(json_t *o, const char *k) {
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* The harness's Arm inventory against lscpu's on the same tree: the same
 * core types in the same order, each with lscpu's model (where lscpu
 * knows the part), threads, cores and sockets; physical cores the sum,
 * sockets the most any type has; cpu0's caches. */
static void against_lscpu(json_t *s, const char *root, const char *const *unknown_to_lscpu) {
    struct lscpu l;
    int ok = lscpu_read(root, &l) == 0;
    CHECKF(ok, "lscpu --sysroot %s failed (util-linux's lscpu is the oracle)", root);
    if (!ok)
        return;
    json_t *types = json_object_get(s, "cpu_types");
    CHECKF((int)json_array_size(types) == l.ntypes, "%zu types, lscpu %d", json_array_size(types),
           l.ntypes);
    CHECK(streq(s, "cpu_vendor", l.vendor));
    CHECK(geti(s, "logical_cpus") == l.cpus);
    int cores = 0, sockets = 0;
    for (int i = 0; i < l.ntypes && i < (int)json_array_size(types); i++) {
        json_t *t = json_array_get(types, i);
        if (strcmp(l.t[i].model, "-") != 0) {
            CHECK(streq(t, "model", l.t[i].model));
            CHECK(streq(t, "stepping", l.t[i].stepping));
        } else /* a part newer than this lscpu: named from util-linux's later table */
            CHECK(unknown_to_lscpu && *unknown_to_lscpu && streq(t, "model", *unknown_to_lscpu++));
        CHECKF(geti(t, "threads_per_core") == l.t[i].threads, "type %d threads", i);
        CHECKF(geti(t, "sockets") == l.t[i].sockets, "type %d sockets %lld, lscpu %d", i,
               geti(t, "sockets"), l.t[i].sockets);
        CHECKF(geti(t, "cores") == l.t[i].cores_per_socket * l.t[i].sockets,
               "type %d cores %lld, lscpu %d x %d", i, geti(t, "cores"), l.t[i].cores_per_socket,
               l.t[i].sockets);
        cores += l.t[i].cores_per_socket * l.t[i].sockets;
        if (l.t[i].sockets > sockets)
            sockets = l.t[i].sockets;
    }
    CHECKF(geti(s, "physical_cores") == cores, "cores %lld, lscpu %d", geti(s, "physical_cores"),
           cores);
    CHECKF(geti(s, "sockets") == sockets, "sockets %lld, lscpu %d", geti(s, "sockets"), sockets);
    CHECK(cache_or(s, "l1d_bytes") == l.l1d && cache_or(s, "l1i_bytes") == l.l1i);
    CHECK(cache_or(s, "l2_bytes") == l.l2 && cache_or(s, "l3_bytes") == l.l3);
}

/* One socket, 80 cores, no SMT, ACPI (PPTT): lscpu's figures, and what
 * lscpu does not print: the clusters (pairs) and cpu_model. */
static void test_arm_server(const char *tmp) {
    char root[512], cmd[1200];
    struct config c;
    snprintf(root, sizeof root, "%s/arm-server", tmp);
    const char *top = getenv("AOPS_ROOT") ? getenv("AOPS_ROOT") : ".";
    snprintf(cmd, sizeof cmd, "'%s/tests/fixtures/sysroot-arm-server.sh' '%s'", top, root);
    CHECK(system(cmd) == 0);
    cfg_for(&c, root);
    json_t *w = json_array();
    json_t *s = inventory_json(&c, w);
    against_lscpu(s, root, NULL);
    CHECK(streq(s, "cpu_vendor", "ARM") && streq(s, "cpu_model", "Neoverse-N1"));
    CHECK(geti(s, "physical_cores") == 80 && geti(s, "sockets") == 1);
    CHECK(geti(s, "clusters") == 40);
    CHECK(streq(s, "smt", "off"));
    CHECK(geti(s, "l1d_bytes") == 64 * 1024 && geti(s, "l2_bytes") == 1024 * 1024);
    CHECK(json_is_null(json_object_get(s, "l3_bytes")));
    json_t *t = json_array_get(json_object_get(s, "cpu_types"), 0);
    CHECK(streq(t, "implementer", "0x41") && streq(t, "part", "0xd0c"));
    CHECK(geti(t, "cpus") == 80);
    CHECK(json_is_null(json_object_get(s, "cpu_family")));
    CHECK(inventory_physical_cores(&c) == 80);
    json_decref(s);
    json_decref(w);
}

/* util-linux's dump of a phone-class board: 3 Cortex-A510, 2 A715, 2 A710
 * and 1 X3 in three kernel "packages" (0-2, 3-6, 7) without ACPI. Before,
 * the inventory had no vendor or model and counted those packages as 3
 * sockets; lscpu says one socket per core type. The host's lscpu (2.38)
 * does not know the X3's part (0xd4e): util-linux 2.41's expected output
 * for this dump (tests/expected/lscpu/lscpu-arm-A510-A710-A715-X3) names
 * it Cortex-X3. */
static void test_arm_big_little(void) {
    char root[1024];
    struct config c;
    cfg_for(&c, fixture("sysroot-arm-big-little", root, sizeof root));
    json_t *w = json_array();
    json_t *s = inventory_json(&c, w);
    const char *const later[] = {"Cortex-X3", NULL};
    against_lscpu(s, root, later);
    CHECK(streq(s, "cpu_vendor", "ARM"));
    CHECK(streq(s, "cpu_model", "Cortex-A510 + Cortex-A715 + Cortex-A710 + Cortex-X3"));
    CHECK(geti(s, "sockets") == 1 && geti(s, "physical_cores") == 8);
    CHECK(geti(s, "clusters") == 3); /* the kernel's groups 0-2, 3-6, 7 (no PPTT) */
    CHECK(streq(s, "smt", "off"));
    json_t *t = json_array_get(json_object_get(s, "cpu_types"), 3);
    CHECK(streq(t, "part", "0xd4e") && geti(t, "cpus") == 1 && streq(t, "stepping", "r1p0"));
    CHECK(inventory_physical_cores(&c) == 8);
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
    test_arm_server(tmp);
    test_arm_big_little();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
    return unit_done("test_inventory");
}
