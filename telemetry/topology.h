/* topology.h -- the machine's CPU and memory topology, read once from sysfs
 * under cfg->sysroot: packages, dies, L3 domains, NUMA nodes (their CPUs,
 * memory and distances, nodes with memory but no CPUs, and CPUs whose node
 * has no memory), and the SMT sibling sets that make up each core. Only
 * online CPUs count: with SMT switched off the siblings are offline and the
 * cores have one thread each.
 *
 * The placement (placement/placement.c) hands out whole cores from it, and
 * result.json's system.topology is written from it. Everything comes from
 * files under the sysroot, so fixture trees describe machines we do not
 * have; `lscpu --sysroot` reads the same trees and is what the tests check
 * it against. */
#ifndef AOPS_TOPOLOGY_H
#define AOPS_TOPOLOGY_H

#include <jansson.h>
#include <stdint.h>

#include "../common/cpulist.h"

#define TOPO_MAX_NODES 64

/* A core: its online SMT siblings, and where it sits (indexes into the
 * arrays of struct topology; l3 is -1 without L3 information). */
struct topo_core {
    struct cpuset threads;
    int core_id; /* sysfs core_id, -1 unknown */
    int pkg, die, l3, node;
};

/* A package, a die or an L3 domain. */
struct topo_domain {
    int id;  /* physical_package_id, die_id or the cache's id (-1 unknown) */
    int pkg; /* for dies and L3 domains: the package index */
    struct cpuset cpus;
    int64_t size_bytes; /* L3: one instance's size; -1 otherwise */
};

struct topo_node {
    int id;
    struct cpuset cpus;
    int64_t mem_bytes;    /* MemTotal of the node; -1 unknown */
    int has_memory;       /* 1, 0, or -1 unknown: no node/has_memory and no meminfo */
    char mem_reason[128]; /* why mem_bytes is unknown; "" when known */
    int ndist;
    int dist[TOPO_MAX_NODES]; /* to the nodes in id order, as nodeN/distance lists them */
};

struct topology {
    struct cpuset online;
    int ncpus;
    int ncores, npkgs, ndies, nl3, nnodes;
    struct topo_core *cores; /* by package, die, L3, then first thread */
    struct topo_domain *pkgs, *dies, *l3s;
    struct topo_node nodes[TOPO_MAX_NODES]; /* by id */
    int nodes_implicit;      /* no /sys/devices/system/node: one node 0 stands for the machine */
    int threads_per_core;    /* the most threads any core has */
    struct cpuset mem_nodes; /* nodes with memory */
};

/* Read the topology under sysroot ("/" for this machine). NULL with err
 * (one line) when sysfs lists no online CPU with topology information. */
struct topology *topology_read(const char *sysroot, char *err, size_t errlen);
void topology_free(struct topology *t);

/* Index of the core holding cpu, or -1. */
int topology_core_of(const struct topology *t, int cpu);

/* system.topology: {online_cpus, packages[], dies[], l3[], numa_nodes[],
 * smt_siblings[], cores, threads_per_core}. A node's memory_bytes (and
 * has_memory, when unknown) is null with memory_reason beside it. */
json_t *topology_json(const struct topology *t);

/* The same read under sysroot into sys.topology, or null and
 * sys.topology_unavailable with the reason. */
void topology_add(const char *sysroot, json_t *sys);

#endif
