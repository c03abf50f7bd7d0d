/* test_topology.c -- the topology and the disclosure on fixture sysroots of
 * machines we do not have (tests/fixtures/mksysroot.py writes them): two
 * sockets with four dies each in NPS2 and a CPU-less memory node, two
 * sockets with SMT switched off, memoryless nodes, several dies per socket.
 * Expected values are the machines' layouts worked out by hand;
 * tests/integration/test_placement.sh compares the same trees with
 * `lscpu --sysroot` and `dmidecode --from-dump`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "disclosure.h"
#include "telemetry.h"
#include "topology.h"
#include "unit.h"

static char dir[256];

static const char *fixture(const char *name, char *buf, size_t len) {
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

static int list_eq(const struct cpuset *s, const char *want) {
    char b[512];
    cpuset_format(s, b, sizeof b);
    if (strcmp(b, want))
        fprintf(stderr, "  got %s, want %s\n", b, want);
    return !strcmp(b, want);
}

static const char *jstr(json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "(null)";
}

static void test_epyc(void) {
    char root[512], err[256];
    struct topology *t = topology_read(fixture("epyc-2s-nps2", root, sizeof root), err, sizeof err);
    CHECKF(t != NULL, "%s", err);
    if (!t)
        return;
    CHECK(t->ncpus == 64 && t->ncores == 32 && t->threads_per_core == 2);
    CHECK(t->npkgs == 2 && t->ndies == 8 && t->nl3 == 8 && t->nnodes == 5);
    CHECK(list_eq(&t->pkgs[1].cpus, "16-31,48-63"));
    CHECK(list_eq(&t->dies[5].cpus, "20-23,52-55") && t->dies[5].pkg == 1 && t->dies[5].id == 1);
    CHECK(list_eq(&t->l3s[2].cpus, "8-11,40-43") && t->l3s[2].size_bytes == 32 << 20);
    CHECK(list_eq(&t->nodes[1].cpus, "8-15,40-47") && t->nodes[1].mem_bytes == 32LL << 30);
    /* Node 4: memory (64 GiB, CXL-like) and no CPU, far from everything. */
    CHECK(cpuset_empty(&t->nodes[4].cpus) && t->nodes[4].has_memory &&
          t->nodes[4].mem_bytes == 64LL << 30);
    CHECK(t->nodes[0].ndist == 5 && t->nodes[0].dist[1] == 12 && t->nodes[0].dist[2] == 32 &&
          t->nodes[0].dist[4] == 50);
    CHECK(list_eq(&t->mem_nodes, "0-4"));
    int k = topology_core_of(t, 41);
    CHECK(k >= 0 && list_eq(&t->cores[k].threads, "9,41") && t->cores[k].l3 == 2 &&
          t->cores[k].node == 1 && t->cores[k].die == 2);
    topology_free(t);

    /* The disclosure on the same machine. */
    json_t *sys = json_object();
    disclosure_add(root, sys);
    json_t *dmi = json_object_get(sys, "dmi");
    CHECK(!strcmp(jstr(dmi, "system_vendor"), "Dell Inc.") &&
          !strcmp(jstr(dmi, "product_name"), "PowerEdge R7625"));
    CHECK(!strcmp(jstr(dmi, "bios_version"), "1.8.3") &&
          !strcmp(jstr(dmi, "bios_date"), "04/17/2024"));
    json_t *dimms = json_object_get(sys, "memory_dimms");
    CHECKF(json_is_object(dimms), "%s", jstr(sys, "memory_dimms_unavailable"));
    CHECK(json_integer_value(json_object_get(dimms, "slots")) == 24);
    CHECK(json_integer_value(json_object_get(dimms, "count")) == 16);
    CHECK(json_integer_value(json_object_get(dimms, "total_bytes")) == 16 * (32LL << 30));
    CHECK(!strcmp(json_string_value(json_array_get(json_object_get(dimms, "types"), 0)), "DDR5"));
    CHECK(json_integer_value(json_array_get(json_object_get(dimms, "speeds_mts"), 0)) == 4800);
    CHECK(json_integer_value(json_array_get(json_object_get(dimms, "configured_speeds_mts"), 0)) ==
          4400);
    json_t *cpu = json_object_get(sys, "cpu_settings");
    CHECK(!strcmp(jstr(cpu, "microcode"), "0xa101148") &&
          !strcmp(jstr(cpu, "cpufreq_driver"), "acpi-cpufreq"));
    CHECK(!strcmp(jstr(cpu, "boost"), "on") && !strcmp(jstr(cpu, "smt_control"), "on"));
    CHECK(json_integer_value(json_object_get(cpu, "scaling_max_khz")) == 3250000);
    CHECK(!strcmp(json_string_value(json_array_get(json_object_get(cpu, "cstates"), 2)),
                  "C2 (disabled)"));
    json_t *ks = json_object_get(sys, "kernel_settings");
    CHECK(!strcmp(jstr(ks, "thp_enabled"), "madvise") && !strcmp(jstr(ks, "clocksource"), "tsc"));
    CHECK(json_integer_value(json_object_get(ks, "numa_balancing")) == 1);
    CHECK(!strcmp(jstr(json_object_get(ks, "vulnerabilities"), "spec_rstack_overflow"),
                  "Mitigation: Safe RET"));
    CHECK(json_is_false(json_object_get(json_object_get(ks, "virtualization"), "virtualized")));
    json_t *nic = json_array_get(json_object_get(sys, "nics"), 0);
    CHECKF(json_array_size(json_object_get(sys, "nics")) == 1, "lo is no NIC");
    CHECK(!strcmp(jstr(nic, "driver"), "bnxt_en") &&
          json_integer_value(json_object_get(nic, "speed_mbps")) == 25000 &&
          json_integer_value(json_object_get(nic, "numa_node")) == 0);
    json_t *disk = json_pack("{s:s}", "name", "nvme0n1");
    disclosure_disk(root, "nvme0n1", disk);
    CHECK(!strcmp(jstr(disk, "firmware"), "GDC5902Q") &&
          !strcmp(jstr(disk, "pcie_link_speed"), "16.0 GT/s PCIe"));
    CHECK(json_integer_value(json_object_get(disk, "pcie_link_width")) == 4 &&
          json_integer_value(json_object_get(disk, "numa_node")) == 1);
    json_decref(disk);
    json_decref(sys);
}

static void test_others(void) {
    char root[512], err[256];
    /* SMT off: the siblings (16-31) are offline; one thread per core. */
    struct topology *t =
        topology_read(fixture("xeon-2s-smtoff", root, sizeof root), err, sizeof err);
    CHECK(t && t->ncpus == 16 && t->ncores == 16 && t->threads_per_core == 1);
    CHECK(t && list_eq(&t->online, "0-15") && list_eq(&t->nodes[1].cpus, "8-15") && t->nl3 == 2);
    topology_free(t);
    /* Node 1 has CPUs and no memory; node 2 memory and no CPU. */
    t = topology_read(fixture("memoryless-1s", root, sizeof root), err, sizeof err);
    CHECK(t && t->nnodes == 3 && !t->nodes[1].has_memory && t->nodes[1].mem_bytes == 0);
    CHECK(t && list_eq(&t->nodes[1].cpus, "4-7,12-15") && cpuset_empty(&t->nodes[2].cpus));
    CHECK(t && list_eq(&t->mem_nodes, "0,2") && t->ndies == 2 && t->npkgs == 1);
    topology_free(t);
    /* Two dies in one package, an L3 and a node each. */
    t = topology_read(fixture("multidie-1s", root, sizeof root), err, sizeof err);
    CHECK(t && t->npkgs == 1 && t->ndies == 2 && t->nl3 == 2 && t->ncores == 12);
    CHECK(t && list_eq(&t->dies[1].cpus, "6-11") && t->dies[1].id == 1 && t->dies[1].pkg == 0);
    topology_free(t);
    /* No CPU at all: an error, not a guess. */
    CHECK(topology_read("/nonexistent-root", err, sizeof err) == NULL && strstr(err, "no online"));
    /* No DMI and no dump: nulls with their reasons. */
    json_t *sys = json_object();
    disclosure_add(fixture("multidie-1s", root, sizeof root), sys);
    CHECK(json_is_null(json_object_get(sys, "memory_dimms")) &&
          strstr(jstr(sys, "memory_dimms_unavailable"), "dmidecode.bin"));
    CHECK(strstr(jstr(sys, "dmi_unavailable"), "/sys/class/dmi/id") != NULL);
    json_decref(sys);
}

static void put(const char *root, const char *rel, const char *text) {
    char path[768], cmd[1600];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    CHECKF(system(cmd) == 0, "%s", cmd);
    FILE *f = fopen(path, "w");
    CHECKF(f != NULL, "%s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A tree with only the hex masks lscpu reads (as util-linux's dumps of real
 * machines have): 1 socket, 2 cores x 2 threads (CPUs 0,2 and 1,3), one L3,
 * node 0 = CPUs 0-1, node 1 = CPUs 2-3, no meminfo and no has_memory.
 * Worked out by hand from the masks. Then a node whose cpulist is there but
 * malformed: no CPUs, not its cpumap's (fail closed). */
static void test_masks_only(void) {
    char root[512], rel[160], err[256];
    fixture("masks", root, sizeof root);
    put(root, "sys/devices/system/cpu/online", "0-3\n");
    static const char *sib[] = {"00000005", "0000000a", "00000005", "0000000a"};
    for (int c = 0; c < 4; c++) {
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
        put(root, rel, "0\n");
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/topology/core_id", c);
        put(root, rel, c % 2 ? "1\n" : "0\n");
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/topology/thread_siblings", c);
        put(root, rel, sib[c]);
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cache/index3/level", c);
        put(root, rel, "3\n");
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cache/index3/type", c);
        put(root, rel, "Unified\n");
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cache/index3/shared_cpu_map", c);
        put(root, rel, "00000000,0000000f\n");
    }
    put(root, "sys/devices/system/node/node0/cpumap", "00000003\n");
    put(root, "sys/devices/system/node/node1/cpumap", "0000000c\n");
    struct topology *t = topology_read(root, err, sizeof err);
    CHECKF(t != NULL, "%s", err);
    if (!t)
        return;
    CHECK(t->ncpus == 4 && t->ncores == 2 && t->threads_per_core == 2 && t->nl3 == 1);
    CHECK(list_eq(&t->l3s[0].cpus, "0-3") && t->nnodes == 2);
    int k = topology_core_of(t, 2);
    CHECK(k >= 0 && list_eq(&t->cores[k].threads, "0,2") && t->cores[k].node == 0);
    CHECK(list_eq(&t->nodes[0].cpus, "0-1") && list_eq(&t->nodes[1].cpus, "2-3"));
    CHECK(t->nodes[1].has_memory == -1 && t->nodes[1].mem_bytes == -1 &&
          strstr(t->nodes[1].mem_reason, "node1/meminfo cannot be read"));
    CHECK(list_eq(&t->mem_nodes, "0-1"));
    json_t *j = topology_json(t);
    json_t *n1 = json_array_get(json_object_get(j, "numa_nodes"), 1);
    CHECK(json_is_null(json_object_get(n1, "has_memory")) &&
          json_is_null(json_object_get(n1, "memory_bytes")) &&
          strstr(jstr(n1, "memory_reason"), "meminfo"));
    json_decref(j);
    topology_free(t);
    /* A list beside the mask wins; a malformed one is no set, not the mask. */
    put(root, "sys/devices/system/node/node0/cpulist", "0-1\n");
    put(root, "sys/devices/system/node/node1/cpulist", "2-3,x\n");
    put(root, "sys/devices/system/node/has_memory", "0\n");
    t = topology_read(root, err, sizeof err);
    CHECK(t && list_eq(&t->nodes[0].cpus, "0-1") && cpuset_empty(&t->nodes[1].cpus));
    CHECK(t && t->nodes[0].has_memory == 1 && t->nodes[1].has_memory == 0);
    topology_free(t);
}

/* dmidecode's text as older versions and other machines print it. */
static void test_dimm_text(void) {
    const char *txt = "# dmidecode 3.1\n"
                      "Handle 0x0011, DMI type 17, 40 bytes\nMemory Device\n"
                      "\tSize: 16384 MB\n\tLocator: DIMM_A1\n\tType: DDR4\n\tSpeed: 2666 MT/s\n"
                      "\tManufacturer: Micron\n\tPart Number: 36ASF2G72PZ-2G6E1\n"
                      "\tConfigured Clock Speed: 2400 MT/s\n\n"
                      "Handle 0x0012, DMI type 17, 40 bytes\nMemory Device\n"
                      "\tSize: No Module Installed\n\tLocator: DIMM_A2\n\tType: Unknown\n"
                      "\tSpeed: Unknown\n\n";
    json_t *d = disclosure_parse_dimms(txt);
    CHECK(d && json_integer_value(json_object_get(d, "slots")) == 2 &&
          json_integer_value(json_object_get(d, "count")) == 1);
    json_t *x = json_array_get(json_object_get(d, "dimms"), 0);
    CHECK(json_integer_value(json_object_get(x, "size_bytes")) == 16LL << 30);
    CHECK(json_integer_value(json_object_get(x, "configured_speed_mts")) == 2400);
    CHECK(!strcmp(jstr(x, "locator"), "DIMM_A1") && !strcmp(jstr(x, "type"), "DDR4"));
    json_decref(d);
    CHECK(disclosure_parse_dimms("# dmidecode 3.4\n/dev/mem: No such file or directory\n") == NULL);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/aops-topo.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    char cmd[600];
    const char *root = getenv("AOPS_ROOT") ? getenv("AOPS_ROOT") : ".";
    snprintf(cmd, sizeof cmd, "python3 %s/tests/fixtures/mksysroot.py %s", root, dir);
    CHECKF(system(cmd) == 0, "%s", cmd);
    test_epyc();
    test_others();
    test_masks_only();
    test_dimm_text();
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return unit_done("test_topology");
}
