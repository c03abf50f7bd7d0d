/* placement_run.h -- --placement and --server-cpus in a run: checked before
 * anything starts, the plan for the point being run, the runtimes' cpuset
 * lists, and containers[]'s cpus and mems with what each worker saw. */
#ifndef AOPS_PLACEMENT_RUN_H
#define AOPS_PLACEMENT_RUN_H

#include "../result/run.h"
#include "placement.h"

struct placement_run {
    struct topology *topo; /* NULL when unknown and nothing was asked of it */
    struct placement plan;
    int active; /* a placement other than none */
};

/* Every point of a sweep can be placed (and --no-cgroups is not asked with
 * a placement). 0, or -1 with err: one line, exit 2. */
int placement_run_check(const struct config *cfg, char *err, size_t errlen);

/* The plan for cfg->n containers. 0, or -1 with err. */
int placement_run_setup(struct placement_run *pr, const struct config *cfg, char *err,
                        size_t errlen);
void placement_run_free(struct placement_run *pr);

/* Per container: its cpus list and, with numa, its mems list ("" keeps the
 * parent's memory nodes), as the cgroup layer takes them. 0, or -1 out of
 * memory; free with placement_lists_free. */
int placement_cgroup_lists(const struct placement *p, char ***cpus, char ***mems);
void placement_lists_free(char **cpus, char **mems, unsigned n);

/* containers[i]: cpus, mems and cores as placed (null without a
 * placement), cpus_allowed and mems_allowed as its worker read them from
 * its own /proc/self/status. */
void placement_container_json(const struct placement *p, unsigned i, const char *cpus_seen,
                              const char *mems_seen, json_t *c);

/* The same for each of the run's cfg->n containers, from what its worker
 * wrote into its slot: an array of one object each, which results_build
 * joins into containers[] (result/ is below this layer). NULL out of memory. */
json_t *placement_containers_json(const struct run_ctx *r);

/* A reason when a worker ran elsewhere than its placement (the cpuset was
 * not applied). */
void placement_verify_run(const struct run_ctx *r, unsigned forked, json_t *reasons);

#endif
