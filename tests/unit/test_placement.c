/* test_placement.c -- the placement on topologies built by hand: which
 * cores each container gets under cores, l3 and numa (the expected lists
 * worked out by hand for each machine below), that cores are whole and
 * exclusive and never the servers', the equal share without
 * --cpus-per-container, and every plan that cannot be met refused with its
 * reason. Also the CPU list parser and formatter it stands on. */
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "placement.h"
#include "unit.h"

/* S sockets x K cores x T threads, L3 domains per socket, nodes per socket
 * (each a run of the socket's cores), and a node without memory (-1 none).
 * CPUs numbered as Linux does: every core's first thread, then the second. */
static struct topology *machine(int S, int K, int T, int l3_per, int nodes_per, int memless) {
    struct topology *t = calloc(1, sizeof *t);
    int ncores = S * K;
    t->cores = calloc((size_t)ncores, sizeof *t->cores);
    t->ncores = ncores;
    t->npkgs = S;
    t->ndies = S;
    t->nl3 = S * l3_per;
    t->nnodes = S * nodes_per;
    t->threads_per_core = T;
    t->l3s = calloc((size_t)t->nl3 + 1, sizeof *t->l3s);
    for (int n = 0; n < t->nnodes; n++) {
        t->nodes[n].id = n;
        t->nodes[n].has_memory = n != memless;
        t->nodes[n].mem_bytes = n != memless ? 1LL << 34 : 0;
        if (n != memless)
            cpuset_add(&t->mem_nodes, n);
    }
    for (int s = 0; s < S; s++)
        for (int k = 0; k < K; k++) {
            int c = s * K + k;
            struct topo_core *core = &t->cores[c];
            core->core_id = k;
            core->pkg = core->die = s;
            core->l3 = s * l3_per + k / (K / l3_per);
            core->node = s * nodes_per + k / (K / nodes_per);
            for (int th = 0; th < T; th++) {
                int cpu = th * ncores + c;
                cpuset_add(&core->threads, cpu);
                cpuset_add(&t->online, cpu);
                cpuset_add(&t->l3s[core->l3].cpus, cpu);
                cpuset_add(&t->nodes[core->node].cpus, cpu);
            }
        }
    t->ncpus = cpuset_count(&t->online);
    return t;
}

static const char *cpus_of(const struct placement *p, unsigned i, char *buf, size_t len) {
    char m[64];
    placement_lists(p, i, buf, len, m, sizeof m);
    return buf;
}

static const char *mems_of(const struct placement *p, unsigned i, char *buf, size_t len) {
    char c[256];
    placement_lists(p, i, c, sizeof c, buf, len);
    return buf;
}

static int list_is(const struct placement *p, unsigned i, const char *want) {
    char b[256];
    const char *got = cpus_of(p, i, b, sizeof b);
    if (strcmp(got, want)) {
        fprintf(stderr, "  container %u: cpus %s, want %s\n", i, got, want);
        return 0;
    }
    return 1;
}

/* Cores whole (all of a core's threads or none), no CPU in two containers,
 * none in the servers' cores. */
static int sound(const struct topology *t, const struct placement *p) {
    struct cpuset seen;
    cpuset_zero(&seen);
    for (unsigned i = 0; i < p->n; i++) {
        const struct cpuset *c = &p->slot[i].cpus;
        if (cpuset_intersects(c, &seen) || cpuset_intersects(c, &p->server_cores))
            return 0;
        cpuset_or(&seen, c);
        for (int k = 0; k < t->ncores; k++)
            if (cpuset_intersects(&t->cores[k].threads, c) &&
                !cpuset_subset(&t->cores[k].threads, c))
                return 0;
    }
    return 1;
}

static void test_cpulist(void) {
    struct cpuset s;
    char b[64];
    CHECK(cpuset_parse("0-3,8,10-11\n", &s) == 0 && cpuset_count(&s) == 7);
    CHECK(!strcmp(cpuset_format(&s, b, sizeof b), "0-3,8,10-11"));
    CHECK(cpuset_parse("", &s) == 0 && cpuset_empty(&s) && !strcmp(cpuset_format(&s, b, 8), ""));
    CHECK(cpuset_parse("5,4,3", &s) == 0 && !strcmp(cpuset_format(&s, b, sizeof b), "3-5"));
    CHECK(cpuset_parse("3-1", &s) != 0);
    CHECK(cpuset_parse("1,a", &s) != 0);
    CHECK(cpuset_parse("8192", &s) != 0);
    CHECK(cpuset_parse("8191", &s) == 0 && cpuset_first(&s) == 8191);
    CHECK(cpuset_parse("0,2,4,6,8,10,12", &s) == 0 &&
          !strcmp(cpuset_format(&s, b, 10), "0,2,4,..."));
}

/* Hex masks as sysfs writes them; the sets worked out by hand from the bits
 * (the first two are util-linux's EPYC 7451 node0/cpumap and its 64-CPU
 * Xeon's node0/cpumap, whose lists lscpu prints as these). */
static void test_cpumask(void) {
    struct cpuset s;
    char b[256], big[2400];
    CHECK(cpuset_parse_mask("00000000,003f0000,0000003f\n", &s) == 0 &&
          !strcmp(cpuset_format(&s, b, sizeof b), "0-5,48-53"));
    CHECK(cpuset_parse_mask("0000,55555555,55555555", &s) == 0 && cpuset_count(&s) == 32 &&
          cpuset_first(&s) == 0 && cpuset_has(&s, 62) && !cpuset_has(&s, 63));
    CHECK(cpuset_parse_mask("f", &s) == 0 && !strcmp(cpuset_format(&s, b, sizeof b), "0-3"));
    CHECK(cpuset_parse_mask("  1,00000000 ", &s) == 0 &&
          !strcmp(cpuset_format(&s, b, sizeof b), "32"));
    CHECK(cpuset_parse_mask("8000000A", &s) == 0 &&
          !strcmp(cpuset_format(&s, b, sizeof b), "1,3,31"));
    CHECK(cpuset_parse_mask("00000000", &s) == 0 && cpuset_empty(&s));
    /* Malformed: no set at all, never a part of one. */
    const char *bad[] = {"",          " \n", "0x3", "f,", ",f",  "f,,f",
                         "123456789", "g",   "1 2", "-1", "f\nf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cpuset_add(&s, 7);
        CHECKF(cpuset_parse_mask(bad[i], &s) == -1 && cpuset_empty(&s), "'%s'", bad[i]);
    }
    /* CPU 8191 is the last there is; bit 8192 (word 256) is past the set. */
    size_t o = (size_t)snprintf(big, sizeof big, "80000000");
    for (int w = 0; w < 255; w++)
        o += (size_t)snprintf(big + o, sizeof big - o, ",00000000");
    CHECK(cpuset_parse_mask(big, &s) == 0 && cpuset_count(&s) == 1 && cpuset_first(&s) == 8191);
    big[0] = '1';
    memmove(big + 9, big, o + 1); /* one word more in front */
    memcpy(big, "00000001,", 9);
    CHECK(cpuset_parse_mask(big, &s) == -1 && cpuset_empty(&s));
}

/* 2 sockets x 8 cores x 2 threads (CPUs 0-15 first threads, 16-31 second),
 * 2 L3 domains and 2 nodes per socket: L3 d = cores 4d..4d+3, node = L3. */
static void test_two_socket(void) {
    struct topology *t = machine(2, 8, 2, 2, 2, -1);
    struct placement p;
    char err[512], b[64];

    CHECK(placement_plan(t, PLACE_CORES, 4, 0, "", &p, err, sizeof err) == 0);
    CHECK(p.cores_each == 4 && sound(t, &p)); /* 16 cores / 4 */
    CHECK(list_is(&p, 0, "0-3,16-19") && list_is(&p, 3, "12-15,28-31"));
    CHECK(!strcmp(mems_of(&p, 0, b, sizeof b), "0-3")); /* cores: every node's memory */
    CHECK(p.nunused_cores == 0);
    placement_free(&p);

    CHECK(placement_plan(t, PLACE_CORES, 3, 2, "", &p, err, sizeof err) == 0);
    CHECK(list_is(&p, 0, "0-1,16-17") && list_is(&p, 2, "4-5,20-21") && p.nunused_cores == 10);
    placement_free(&p);

    /* l3: round-robin over the 4 domains, 2 cores each by default (16/8). */
    CHECK(placement_plan(t, PLACE_L3, 8, 0, "", &p, err, sizeof err) == 0);
    CHECK(p.cores_each == 2 && sound(t, &p));
    CHECK(list_is(&p, 0, "0-1,16-17") && list_is(&p, 1, "4-5,20-21"));
    CHECK(list_is(&p, 2, "8-9,24-25") && list_is(&p, 3, "12-13,28-29"));
    CHECK(list_is(&p, 4, "2-3,18-19") && list_is(&p, 7, "14-15,30-31"));
    CHECK(p.slot[5].domain == 1 && p.slot[5].pkg == 0 && p.slot[6].pkg == 1);
    placement_free(&p);

    /* numa: each container inside one node, bound to its memory. */
    CHECK(placement_plan(t, PLACE_NUMA, 6, 1, "", &p, err, sizeof err) == 0);
    CHECK(sound(t, &p) && p.cores_each == 1);
    CHECK(list_is(&p, 0, "0,16") && list_is(&p, 1, "4,20") && list_is(&p, 4, "1,17"));
    CHECK(!strcmp(mems_of(&p, 0, b, sizeof b), "0") && !strcmp(mems_of(&p, 3, b, sizeof b), "3"));
    CHECK(!strcmp(mems_of(&p, 5, b, sizeof b), "1"));
    placement_free(&p);

    /* Servers: the whole cores holding 0 and 17 (cores 0 and 1) are theirs. */
    CHECK(placement_plan(t, PLACE_CORES, 2, 0, "0,17", &p, err, sizeof err) == 0);
    CHECK(p.nserver_cores == 2 && p.cores_each == 7 && sound(t, &p));
    CHECK(list_is(&p, 0, "2-8,18-24") && list_is(&p, 1, "9-15,25-31"));
    CHECK(!strcmp(cpuset_format(&p.server_cores, b, sizeof b), "0-1,16-17"));
    placement_free(&p);
    CHECK(placement_plan(t, PLACE_NUMA, 4, 0, "0-3", &p, err, sizeof err) == 0);
    /* Node 0 has no free core left: 4 containers over nodes 1-3 put 2 on node 1,
     * so each gets 4 / 2 = 2 cores. */
    CHECK(p.cores_each == 2 && sound(t, &p));
    CHECK(list_is(&p, 0, "4-5,20-21") && list_is(&p, 1, "8-9,24-25"));
    CHECK(list_is(&p, 2, "12-13,28-29") && list_is(&p, 3, "6-7,22-23"));
    placement_free(&p);

    /* What cannot be met: one line each, naming the numbers. */
    CHECK(placement_plan(t, PLACE_CORES, 17, 0, "", &p, err, sizeof err) == -1);
    CHECKF(strstr(err, "17 containers") && strstr(err, "16 cores are free"), "%s", err);
    CHECK(placement_plan(t, PLACE_CORES, 5, 4, "", &p, err, sizeof err) == -1);
    CHECKF(strstr(err, "5 containers x 4 cores need 20 cores"), "%s", err);
    CHECK(placement_plan(t, PLACE_L3, 5, 3, "", &p, err, sizeof err) == -1);
    CHECKF(strstr(err, "container 4 of 5") && strstr(err, "L3 domain"), "%s", err);
    CHECK(placement_plan(t, PLACE_NUMA, 2, 1.5, "", &p, err, sizeof err) == -1);
    CHECKF(strstr(err, "whole number"), "%s", err);
    CHECK(placement_plan(t, PLACE_CORES, 1, 0, "0-40", &p, err, sizeof err) == -1);
    CHECKF(strstr(err, "CPU 32-40 not online"), "%s", err);
    CHECK(placement_plan(t, PLACE_CORES, 1, 0, "0-x", &p, err, sizeof err) == -1);
    CHECK(placement_plan(t, PLACE_NONE, 1, 0, "0-x", &p, err, sizeof err) == -1);
    CHECK(placement_plan(t, PLACE_CORES, 1, 0, "0-31", &p, err, sizeof err) == -1);
    CHECKF(strstr(err, "no core is free"), "%s", err);

    /* none: no slot, the cpus-per-container quota stays a quota. */
    CHECK(placement_plan(t, PLACE_NONE, 300, 0.5, "", &p, err, sizeof err) == 0);
    CHECK(p.slot == NULL && cpus_of(&p, 0, b, sizeof b)[0] == 0);
    placement_free(&p);
    topology_free(t);
}

/* numa on nodes of two L3 domains each: a node's containers spread over its
 * caches. 2 sockets x 8 cores x 2 threads, per socket 4 L3 domains of 2
 * cores and 2 nodes of 4 cores (nodes 0-3). */
static void test_numa_spreads_caches(void) {
    struct topology *t = machine(2, 8, 2, 4, 2, -1);
    struct placement p;
    char err[512];
    CHECK(placement_plan(t, PLACE_NUMA, 8, 1, "", &p, err, sizeof err) == 0);
    CHECK(list_is(&p, 0, "0,16") && list_is(&p, 4, "2,18")); /* node 0: L3 0, then L3 1 */
    CHECK(list_is(&p, 1, "4,20") && list_is(&p, 5, "6,22")); /* node 1: L3 2, then L3 3 */
    CHECK(list_is(&p, 3, "12,28") && list_is(&p, 7, "14,30"));
    placement_free(&p);
    /* 3 cores each: no L3 holds 3, so the node's cores in order. */
    CHECK(placement_plan(t, PLACE_NUMA, 2, 3, "", &p, err, sizeof err) == 0);
    CHECK(list_is(&p, 0, "0-2,16-18") && list_is(&p, 1, "4-6,20-22") && sound(t, &p));
    placement_free(&p);
    topology_free(t);
}

static void test_memoryless_and_no_l3(void) {
    /* 1 socket x 8 cores x 1 thread, 2 nodes; node 1 has CPUs and no memory. */
    struct topology *t = machine(1, 8, 1, 2, 2, 1);
    struct placement p;
    char err[512];
    CHECK(placement_plan(t, PLACE_NUMA, 1, 0, "", &p, err, sizeof err) == 0); /* node 0 only */
    CHECK(list_is(&p, 0, "0-3"));
    placement_free(&p);
    CHECK(placement_plan(t, PLACE_NUMA, 2, 0, "", &p, err, sizeof err) == -1);
    CHECKF(strstr(err, "NUMA node 1 (CPUs 4-7) has no memory"), "%s", err);
    CHECK(placement_plan(t, PLACE_L3, 2, 0, "", &p, err, sizeof err) == 0);
    placement_free(&p);
    t->nl3 = 0;
    for (int k = 0; k < t->ncores; k++)
        t->cores[k].l3 = -1;
    CHECK(placement_plan(t, PLACE_L3, 2, 0, "", &p, err, sizeof err) == -1);
    CHECKF(strstr(err, "no L3 cache"), "%s", err);
    topology_free(t);
}

static void test_verify(void) {
    struct topology *t = machine(1, 4, 2, 1, 1, -1);
    struct placement p;
    char err[512];
    CHECK(placement_plan(t, PLACE_NUMA, 2, 0, "", &p, err, sizeof err) == 0);
    CHECK(list_is(&p, 0, "0-1,4-5"));
    CHECK(placement_verify(&p, 0, "0-1,4-5", "0", err, sizeof err) == 0);
    CHECK(placement_verify(&p, 1, "0-7", "0", err, sizeof err) == -1);
    CHECKF(strstr(err, "ran on CPUs 0-7, not its placement's 2-3,6-7"), "%s", err);
    CHECK(placement_verify(&p, 0, "0-1,4-5", "0-1", err, sizeof err) == -1);
    CHECK(placement_verify(&p, 0, "", "", err, sizeof err) == -1);
    json_t *j = placement_json(&p);
    CHECK(!strcmp(json_string_value(json_object_get(j, "policy")), "numa"));
    CHECK(json_integer_value(json_object_get(j, "cores_per_container")) == 2);
    CHECK(json_is_null(json_object_get(j, "server_cpus")));
    json_decref(j);
    placement_free(&p);
    topology_free(t);
}

/* A node sysfs says nothing about the memory of (no has_memory, no
 * meminfo) is placed on under numa, and the plan says so: unknown is not
 * none (util-linux's EPYC 7451 dump has only cpumap in its node dirs). */
static void test_unknown_memory(void) {
    struct topology *t = machine(1, 8, 1, 2, 2, -1);
    struct placement p;
    char err[512], m[64];
    t->nodes[1].has_memory = -1;
    t->nodes[1].mem_bytes = -1;
    snprintf(t->nodes[1].mem_reason, sizeof t->nodes[1].mem_reason, "node1/meminfo cannot be read");
    CHECKF(placement_plan(t, PLACE_NUMA, 2, 0, "", &p, err, sizeof err) == 0, "%s", err);
    CHECK(list_is(&p, 1, "4-7") && !strcmp(cpuset_format(&p.mem_unknown, m, sizeof m), "1"));
    placement_lists(&p, 1, err, sizeof err, m, sizeof m);
    CHECK(!strcmp(m, "1"));
    json_t *j = placement_json(&p);
    CHECK(!strcmp(json_string_value(json_object_get(j, "memory_unknown_nodes")), "1"));
    json_decref(j);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    placement_print(&p, t, f);
    fclose(f);
    CHECKF(strstr(out, "memory unknown on NUMA node 1 (node1/meminfo cannot be read)"), "%s", out);
    free(out);
    placement_free(&p);
    t->nodes[1].has_memory = 0; /* known to have none: refused as before */
    CHECK(placement_plan(t, PLACE_NUMA, 2, 0, "", &p, err, sizeof err) == -1);
    topology_free(t);
}

int main(void) {
    test_cpulist();
    test_cpumask();
    test_unknown_memory();
    test_two_socket();
    test_numa_spreads_caches();
    test_memoryless_and_no_l3();
    test_verify();
    return unit_done("test_placement");
}
