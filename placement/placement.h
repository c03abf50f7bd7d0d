/* placement.h -- which CPUs and memory nodes each container gets
 * (--placement), worked out from the topology before anything starts.
 *
 *   none   today's behaviour: no cpuset, the scheduler decides;
 *   cores  whole cores (SMT siblings together), packed in topology order:
 *          package, die, L3 domain, core;
 *   l3     whole cores, containers dealt round-robin over the L3 domains,
 *          each container inside one domain;
 *   numa   whole cores, round-robin over the NUMA nodes that have CPUs,
 *          each container inside one node and bound to its memory
 *          (cpuset.mems).
 *
 * Cores are exclusive: no two containers, and no container and the
 * servers (--server-cpus: the whole cores holding those CPUs), share one.
 * --cpus-per-container C gives each container C cores; without it every
 * container gets the same share, the most cores each domain can give all
 * its containers. What cannot be met (more containers than cores, C not a
 * whole number, a node without memory under numa, no L3 information for
 * l3) is one line of err, and the run does not start. A node whose memory
 * is unknown (sysfs has neither node/has_memory nor its meminfo) is not a
 * memoryless one: numa places on it, and the plan says so.
 *
 * Pure: a topology and the options in, the plan out (tests/unit builds
 * topologies by hand). */
#ifndef AOPS_PLACEMENT_H
#define AOPS_PLACEMENT_H

#include <jansson.h>
#include <stdio.h>

#include "../common/config.h"
#include "../common/cpulist.h"
#include "../telemetry/topology.h"

struct placement_slot {
    struct cpuset cpus;
    struct cpuset mems; /* numa: its node; cores, l3: every node with memory */
    int ncores;
    int domain;   /* l3: the L3 domain's index, numa: the node's; cores: -1 */
    int pkg, die; /* of its first core (indexes into the topology) */
    int node;     /* the node of its first core, -1 unknown */
};

struct placement {
    enum placement_kind kind;
    unsigned n;
    unsigned cores_each;
    struct placement_slot *slot; /* n of them */
    struct cpuset servers;       /* --server-cpus as given */
    struct cpuset server_cores;  /* the whole cores holding them: no container's */
    struct cpuset unused;        /* cores nobody got */
    struct cpuset mem_unknown;   /* numa: nodes given containers whose memory sysfs does not tell */
    int nserver_cores, nunused_cores;
};

const char *placement_name(enum placement_kind k);

/* The plan for n containers. cpus_per: --cpus-per-container (0: an equal
 * share); server_cpus: --server-cpus ("" none). 0, or -1 with err set to
 * one line a person can act on. With PLACE_NONE only server_cpus is
 * checked, and no slot is made. */
int placement_plan(const struct topology *t, enum placement_kind kind, unsigned n, double cpus_per,
                   const char *server_cpus, struct placement *out, char *err, size_t errlen);
void placement_free(struct placement *p);

/* result.json's "placement", what the plan came to on this machine:
 * {policy, cores_per_container, server_cpus, server_cores, server_core_cpus,
 * unused_cores, unused_cpus}, and with numa memory_unknown_nodes (a node
 * list, "" none); NULL p: policy none and nulls. */
json_t *placement_json(const struct placement *p);

/* config.placement, what was asked (the same on every host of a sharded
 * run, so it belongs in the config hash): {policy, cores_per_container
 * (null: an equal share), server_cpus}. */
json_t *placement_config_json(const struct config *cfg);

/* Container i's cpus and mems as lists; NULL/"" without a plan. */
void placement_lists(const struct placement *p, unsigned i, char *cpus, size_t clen, char *mems,
                     size_t mlen);

/* Whether what container i's worker saw (Cpus_allowed_list and
 * Mems_allowed_list of its /proc/self/status) is its plan. 0, or -1 with
 * err saying what differs. */
int placement_verify(const struct placement *p, unsigned i, const char *cpus_seen,
                     const char *mems_seen, char *err, size_t errlen);

/* `harness plan`: one line per container (its CPUs, memory nodes, cores,
 * and where it sits), then the cores left for the servers. */
void placement_print(const struct placement *p, const struct topology *t, FILE *f);

#endif
