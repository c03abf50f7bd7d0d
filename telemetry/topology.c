/* topology.c -- packages, dies, L3 domains, NUMA nodes and SMT siblings
 * from sysfs (see topology.h).
 *
 * Per online CPU: cpuN/topology/{physical_package_id, die_id, core_id,
 * thread_siblings_list} and the level-3 entry of cpuN/cache/indexK
 * (shared_cpu_list, id, size). Per node: nodeN/{cpulist, meminfo,
 * distance}, and node/has_memory for which nodes have memory. A kernel
 * without NUMA has no node directory: one node 0 then stands for the
 * machine, with /proc/meminfo's MemTotal. Runs once per command, so it
 * allocates freely.
 *
 * Where a *_list file is absent, its hex mask is read instead, as lscpu
 * reads only the masks: thread_siblings (core_cpus), shared_cpu_map,
 * nodeN/cpumap. util-linux's own dumps of real machines (the EPYC 7451's,
 * tests/fixtures/lscpu/) have nothing else, and older kernels or a partial
 * /sys in a container look the same. A list that is there but malformed is
 * no set: it does not fall back to a mask that may disagree with it.
 *
 * A node whose memory neither node/has_memory nor nodeN/meminfo tells has
 * unknown memory (has_memory -1, the reason in mem_reason), not none: those
 * dumps have no meminfo, and calling every node memoryless there would make
 * --placement numa refuse a machine lscpu reads as 8 ordinary nodes. */
#include "topology.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/fsread.h"

/* A sysroot file's content, or NULL. */
static char *rd(const char *root, const char *rel, char *buf, size_t len) {
    char path[PATH_MAX];
    if (!sysroot_path(path, sizeof path, root, rel) || fs_read_str(path, buf, len) < 0)
        return NULL;
    return buf;
}

static int rd_int(const char *root, const char *rel, int def) {
    char buf[64];
    char *end;
    if (!rd(root, rel, buf, sizeof buf))
        return def;
    long v = strtol(buf, &end, 10);
    return end == buf ? def : (int)v;
}

/* A CPU list (mask: a hex mask) file: 0, or -1 when it cannot be read, is
 * malformed or fills the buffer (it may have been cut short, and the head
 * of a list or a mask parses as a smaller set). */
static int rd_set_as(const char *root, const char *rel, int mask, struct cpuset *out) {
    char buf[16384];
    if (!rd(root, rel, buf, sizeof buf) || strlen(buf) >= sizeof buf - 1) {
        cpuset_zero(out);
        return -1;
    }
    if ((mask ? cpuset_parse_mask(buf, out) : cpuset_parse(buf, out)) == 0)
        return 0;
    cpuset_zero(out);
    return -1;
}

static int rd_set(const char *root, const char *rel, struct cpuset *out) {
    return rd_set_as(root, rel, 0, out);
}

/* The list file rel, or, only when it is absent, the hex mask file map. 0,
 * or -1 with out empty. */
static int rd_set_or_mask(const char *root, const char *rel, const char *map, struct cpuset *out) {
    char path[PATH_MAX];
    if (rd_set(root, rel, out) == 0)
        return 0;
    /* A list that exists and does not parse fails closed (see the top). */
    if (sysroot_path(path, sizeof path, root, rel) && access(path, F_OK) == 0)
        return -1;
    return rd_set_as(root, map, 1, out);
}

/* The online CPUs: cpu/online, else every cpuN whose cpuN/online is not 0. */
static void read_online(const char *root, struct cpuset *on) {
    char dir[PATH_MAX];
    if (rd_set(root, "/sys/devices/system/cpu/online", on) == 0 && !cpuset_empty(on))
        return;
    cpuset_zero(on);
    DIR *d = sysroot_path(dir, sizeof dir, root, "/sys/devices/system/cpu") ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "cpu", 3) || !fs_is_index(e->d_name + 3))
            continue;
        char rel[128];
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/%s/online", e->d_name);
        if (rd_int(root, rel, 1) != 0)
            cpuset_add(on, atoi(e->d_name + 3));
    }
    if (d)
        closedir(d);
}

struct cpu_raw {
    int pkg, die, core;
    struct cpuset siblings;
    int have_siblings;
    struct cpuset l3;
    int have_l3, l3_id;
    int64_t l3_size;
};

static int64_t size_bytes(const char *s) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 0)
        return -1;
    /* A sysroot's file may say anything: a negative or huge size is none
     * (shifting one would be undefined). */
    int sh = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    return v > (LLONG_MAX >> sh) ? -1 : v << sh;
}

static void read_cpu(const char *root, int cpu, struct cpu_raw *c) {
    char rel[160], buf[64];
    snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    c->pkg = rd_int(root, rel, 0);
    snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/topology/die_id", cpu);
    c->die = rd_int(root, rel, 0);
    snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
    c->core = rd_int(root, rel, -1);
    /* core_cpus_list is the newer name of thread_siblings_list; each has
     * its mask without _list. */
    char map[160];
    snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    snprintf(map, sizeof map, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings", cpu);
    c->have_siblings = rd_set_or_mask(root, rel, map, &c->siblings) == 0;
    if (!c->have_siblings) {
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/topology/core_cpus_list", cpu);
        snprintf(map, sizeof map, "/sys/devices/system/cpu/cpu%d/topology/core_cpus", cpu);
        c->have_siblings = rd_set_or_mask(root, rel, map, &c->siblings) == 0;
    }
    c->have_l3 = 0;
    c->l3_id = -1;
    c->l3_size = -1;
    for (int k = 0; k < 8 && !c->have_l3; k++) {
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, k);
        if (rd_int(root, rel, -1) != 3)
            continue;
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, k);
        if (rd(root, rel, buf, sizeof buf) && !strcmp(buf, "Instruction"))
            continue;
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
                 cpu, k);
        snprintf(map, sizeof map, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_map", cpu,
                 k);
        c->have_l3 = rd_set_or_mask(root, rel, map, &c->l3) == 0;
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/id", cpu, k);
        c->l3_id = rd_int(root, rel, -1);
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, k);
        if (rd(root, rel, buf, sizeof buf))
            c->l3_size = size_bytes(buf);
    }
}

/* Index of the domain with these CPUs (or this key), appended when new. */
static int domain_of(struct topo_domain **arr, int *n, int id, int pkg, const struct cpuset *cpus,
                     int by_cpus) {
    for (int i = 0; i < *n; i++)
        if (by_cpus ? cpuset_equal(&(*arr)[i].cpus, cpus)
                    : (*arr)[i].id == id && (*arr)[i].pkg == pkg)
            return i;
    struct topo_domain *na = realloc(*arr, (size_t)(*n + 1) * sizeof *na);
    if (!na)
        return -1;
    *arr = na;
    memset(&na[*n], 0, sizeof na[*n]);
    na[*n].id = id;
    na[*n].pkg = pkg;
    na[*n].size_bytes = -1;
    return (*n)++;
}

static void read_nodes(const char *root, struct topology *t) {
    char dir[PATH_MAX], rel[160], map[160], buf[4096];
    int ids[TOPO_MAX_NODES], n = 0;
    DIR *d = sysroot_path(dir, sizeof dir, root, "/sys/devices/system/node") ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "node", 4) && fs_is_index(e->d_name + 4) && n < TOPO_MAX_NODES)
            ids[n++] = atoi(e->d_name + 4);
    if (d)
        closedir(d);
    for (int i = 0; i < n; i++) /* by id: few nodes, a plain insertion sort */
        for (int j = i; j > 0 && ids[j] < ids[j - 1]; j--) {
            int x = ids[j];
            ids[j] = ids[j - 1], ids[j - 1] = x;
        }
    struct cpuset has_mem;
    int have_has_mem = rd_set(root, "/sys/devices/system/node/has_memory", &has_mem) == 0;
    cpuset_zero(&t->mem_nodes);
    for (int i = 0; i < n; i++) {
        struct topo_node *nd = &t->nodes[i];
        nd->id = ids[i];
        snprintf(rel, sizeof rel, "/sys/devices/system/node/node%d/cpulist", nd->id);
        snprintf(map, sizeof map, "/sys/devices/system/node/node%d/cpumap", nd->id);
        if (rd_set_or_mask(root, rel, map, &nd->cpus) != 0)
            cpuset_zero(&nd->cpus);
        struct cpuset on = t->online, off = nd->cpus;
        cpuset_andnot(&off, &on); /* offline CPUs are in no placement */
        cpuset_andnot(&nd->cpus, &off);
        nd->mem_bytes = -1;
        nd->mem_reason[0] = 0;
        snprintf(rel, sizeof rel, "/sys/devices/system/node/node%d/meminfo", nd->id);
        if (!rd(root, rel, buf, sizeof buf))
            snprintf(nd->mem_reason, sizeof nd->mem_reason, "node%d/meminfo cannot be read%s",
                     nd->id, have_has_mem ? "" : ", and there is no node/has_memory");
        else if (fs_meminfo_total(buf, &nd->mem_bytes) != 0) {
            nd->mem_bytes = -1;
            snprintf(nd->mem_reason, sizeof nd->mem_reason, "node%d/meminfo has no MemTotal%s",
                     nd->id, have_has_mem ? "" : ", and there is no node/has_memory");
        }
        /* Unknown stays unknown (-1): neither file says there is none. */
        nd->has_memory = have_has_mem         ? cpuset_has(&has_mem, nd->id)
                         : nd->mem_bytes >= 0 ? nd->mem_bytes > 0
                                              : -1;
        if (nd->has_memory != 0)
            cpuset_add(&t->mem_nodes, nd->id);
        snprintf(rel, sizeof rel, "/sys/devices/system/node/node%d/distance", nd->id);
        nd->ndist = 0;
        if (rd(root, rel, buf, sizeof buf))
            for (char *p = buf, *end; nd->ndist < TOPO_MAX_NODES; p = end) {
                long v = strtol(p, &end, 10);
                if (end == p)
                    break;
                nd->dist[nd->ndist++] = (int)v;
            }
    }
    t->nnodes = n;
    if (n == 0) { /* no NUMA in this kernel: the machine is node 0 */
        t->nodes_implicit = 1;
        t->nnodes = 1;
        t->nodes[0].id = 0;
        t->nodes[0].cpus = t->online;
        t->nodes[0].has_memory = 1;
        t->nodes[0].mem_bytes = -1;
        t->nodes[0].ndist = 1;
        t->nodes[0].dist[0] = 10;
        if (!rd(root, "/proc/meminfo", buf, sizeof buf) ||
            fs_meminfo_total(buf, &t->nodes[0].mem_bytes) != 0) {
            t->nodes[0].mem_bytes = -1;
            snprintf(t->nodes[0].mem_reason, sizeof t->nodes[0].mem_reason,
                     "no NUMA nodes in sysfs, and /proc/meminfo has no MemTotal");
        }
        cpuset_add(&t->mem_nodes, 0);
    }
}

static int node_of_cpu(const struct topology *t, int cpu) {
    for (int i = 0; i < t->nnodes; i++)
        if (cpuset_has(&t->nodes[i].cpus, cpu))
            return i;
    return -1;
}

static int core_cmp(const void *a, const void *b) {
    const struct topo_core *x = a, *y = b;
    if (x->pkg != y->pkg)
        return x->pkg - y->pkg;
    if (x->die != y->die)
        return x->die - y->die;
    if (x->l3 != y->l3)
        return x->l3 - y->l3;
    return cpuset_first(&x->threads) - cpuset_first(&y->threads);
}

static int dom_id_cmp(const void *a, const void *b) {
    const struct topo_domain *x = a, *y = b;
    if (x->pkg != y->pkg)
        return x->pkg - y->pkg;
    if (x->id != y->id)
        return x->id - y->id;
    return cpuset_first(&x->cpus) - cpuset_first(&y->cpus);
}

struct topology *topology_read(const char *sysroot, char *err, size_t errlen) {
    const char *root = sysroot && *sysroot ? sysroot : "/";
    struct topology *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    read_online(root, &t->online);
    t->ncpus = cpuset_count(&t->online);
    int last = 0; /* the highest online CPU: the per-CPU arrays go up to it */
    for (int c = cpuset_first(&t->online); c >= 0; c = cpuset_next(&t->online, c))
        last = c;
    struct cpu_raw *raw = calloc((size_t)last + 1, sizeof *raw);
    int *core_of = malloc(((size_t)last + 1) * sizeof *core_of);
    if (!raw || !core_of || t->ncpus == 0) {
        snprintf(err, errlen,
                 t->ncpus
                     ? "out of memory"
                     : "no online CPU listed under %s/sys/devices/system/cpu: topology unknown",
                 strcmp(root, "/") ? root : "");
        free(raw);
        free(core_of);
        free(t);
        return NULL;
    }
    for (int c = cpuset_first(&t->online); c >= 0; c = cpuset_next(&t->online, c)) {
        read_cpu(root, c, &raw[c]);
        core_of[c] = -1;
    }
    /* Packages (by id), dies (by package and id), in id order. */
    for (int c = cpuset_first(&t->online); c >= 0; c = cpuset_next(&t->online, c)) {
        int p = domain_of(&t->pkgs, &t->npkgs, raw[c].pkg, -1, NULL, 0);
        if (p >= 0)
            cpuset_add(&t->pkgs[p].cpus, c);
    }
    qsort(t->pkgs, (size_t)t->npkgs, sizeof *t->pkgs, dom_id_cmp);
    for (int c = cpuset_first(&t->online); c >= 0; c = cpuset_next(&t->online, c)) {
        int p = 0;
        while (p < t->npkgs && !cpuset_has(&t->pkgs[p].cpus, c))
            p++;
        int d = domain_of(&t->dies, &t->ndies, raw[c].die, p, NULL, 0);
        if (d >= 0)
            cpuset_add(&t->dies[d].cpus, c);
        raw[c].pkg = p; /* from here on: the package's index */
    }
    qsort(t->dies, (size_t)t->ndies, sizeof *t->dies, dom_id_cmp);
    /* L3 domains: CPUs sharing one L3 (the online ones of shared_cpu_list). */
    for (int c = cpuset_first(&t->online); c >= 0; c = cpuset_next(&t->online, c)) {
        if (!raw[c].have_l3)
            continue;
        struct cpuset s = raw[c].l3, off = raw[c].l3;
        cpuset_andnot(&off, &t->online);
        cpuset_andnot(&s, &off);
        cpuset_add(&s, c);
        int l = domain_of(&t->l3s, &t->nl3, raw[c].l3_id, raw[c].pkg, &s, 1);
        if (l >= 0) {
            t->l3s[l].cpus = s;
            t->l3s[l].size_bytes = raw[c].l3_size;
        }
    }
    /* In CPU order: the first CPU of each L3 domain sorts them. */
    for (int i = 0; i < t->nl3; i++)
        for (int j = i; j > 0 && cpuset_first(&t->l3s[j].cpus) < cpuset_first(&t->l3s[j - 1].cpus);
             j--) {
            struct topo_domain x = t->l3s[j];
            t->l3s[j] = t->l3s[j - 1], t->l3s[j - 1] = x;
        }
    read_nodes(root, t);
    /* Cores: the online CPUs of each SMT sibling set; without sibling lists,
     * the CPUs sharing package, die and core id. */
    t->cores = calloc((size_t)t->ncpus, sizeof *t->cores);
    if (!t->cores) {
        snprintf(err, errlen, "out of memory");
        free(raw);
        free(core_of);
        topology_free(t);
        return NULL;
    }
    for (int c = cpuset_first(&t->online); c >= 0; c = cpuset_next(&t->online, c)) {
        if (core_of[c] >= 0)
            continue;
        struct topo_core *k = &t->cores[t->ncores];
        cpuset_zero(&k->threads);
        if (raw[c].have_siblings) {
            k->threads = raw[c].siblings;
            struct cpuset off = k->threads;
            cpuset_andnot(&off, &t->online);
            cpuset_andnot(&k->threads, &off);
        } else
            for (int o = c; o >= 0; o = cpuset_next(&t->online, o))
                if (raw[o].pkg == raw[c].pkg && raw[o].die == raw[c].die &&
                    raw[o].core == raw[c].core && raw[c].core >= 0)
                    cpuset_add(&k->threads, o);
        cpuset_add(&k->threads, c);
        for (int o = cpuset_first(&k->threads); o >= 0; o = cpuset_next(&k->threads, o))
            core_of[o] = t->ncores;
        k->core_id = raw[c].core;
        k->pkg = raw[c].pkg;
        k->die = 0;
        for (int d = 0; d < t->ndies; d++)
            if (cpuset_has(&t->dies[d].cpus, c))
                k->die = d;
        k->l3 = -1;
        for (int l = 0; l < t->nl3; l++)
            if (cpuset_has(&t->l3s[l].cpus, c))
                k->l3 = l;
        k->node = node_of_cpu(t, c);
        int nt = cpuset_count(&k->threads);
        if (nt > t->threads_per_core)
            t->threads_per_core = nt;
        t->ncores++;
    }
    qsort(t->cores, (size_t)t->ncores, sizeof *t->cores, core_cmp);
    free(raw);
    free(core_of);
    return t;
}

void topology_free(struct topology *t) {
    if (!t)
        return;
    free(t->cores);
    free(t->pkgs);
    free(t->dies);
    free(t->l3s);
    free(t);
}

int topology_core_of(const struct topology *t, int cpu) {
    for (int i = 0; i < t->ncores; i++)
        if (cpuset_has(&t->cores[i].threads, cpu))
            return i;
    return -1;
}

static json_t *list_json(const struct cpuset *s) {
    char buf[8192];
    return json_string(cpuset_format(s, buf, sizeof buf));
}

static json_t *domains_json(const struct topo_domain *d, int n, int with_pkg, int with_size) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o =
            json_pack("{s:o, s:o, s:i}", "id", d[i].id >= 0 ? json_integer(d[i].id) : json_null(),
                      "cpus", list_json(&d[i].cpus), "cpu_count", cpuset_count(&d[i].cpus));
        if (with_pkg)
            json_object_set_new(o, "package", json_integer(d[i].pkg));
        if (with_size)
            json_object_set_new(o, "size_bytes",
                                d[i].size_bytes >= 0 ? json_integer(d[i].size_bytes) : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

json_t *topology_json(const struct topology *t) {
    json_t *o = json_object();
    json_object_set_new(o, "online_cpus", list_json(&t->online));
    json_object_set_new(o, "cpus", json_integer(t->ncpus));
    json_object_set_new(o, "cores", json_integer(t->ncores));
    json_object_set_new(o, "threads_per_core", json_integer(t->threads_per_core));
    json_object_set_new(o, "packages", domains_json(t->pkgs, t->npkgs, 0, 0));
    json_object_set_new(o, "dies", domains_json(t->dies, t->ndies, 1, 0));
    json_object_set_new(o, "l3", domains_json(t->l3s, t->nl3, 1, 1));
    json_t *nodes = json_array();
    for (int i = 0; i < t->nnodes; i++) {
        const struct topo_node *n = &t->nodes[i];
        json_t *dist = json_array();
        for (int k = 0; k < n->ndist; k++)
            json_array_append_new(dist, json_integer(n->dist[k]));
        json_array_append_new(
            nodes,
            json_pack("{s:i, s:o, s:i, s:o, s:o, s:o, s:o}", "id", n->id, "cpus",
                      list_json(&n->cpus), "cpu_count", cpuset_count(&n->cpus), "memory_bytes",
                      n->mem_bytes >= 0 ? json_integer(n->mem_bytes) : json_null(), "has_memory",
                      n->has_memory < 0 ? json_null() : json_boolean(n->has_memory),
                      "memory_reason", n->mem_reason[0] ? json_string(n->mem_reason) : json_null(),
                      "distances", dist));
    }
    json_object_set_new(o, "numa_nodes", nodes);
    json_object_set_new(o, "numa_nodes_implicit", json_boolean(t->nodes_implicit));
    json_t *smt = json_array();
    for (int i = 0; i < t->ncores; i++)
        json_array_append_new(smt, list_json(&t->cores[i].threads));
    json_object_set_new(o, "smt_siblings", smt);
    return o;
}

void topology_add(const char *sysroot, json_t *sys) {
    char err[512];
    struct topology *t = topology_read(sysroot, err, sizeof err);
    json_object_set_new(sys, "topology", t ? topology_json(t) : json_null());
    if (!t)
        json_object_set_new(sys, "topology_unavailable", json_string(err));
    topology_free(t);
}
