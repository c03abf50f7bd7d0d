/* results.h -- turning a finished run into result.json and a human summary.
 *
 * Measurement and output are kept apart (as fio does): the coordinator hands
 * over the shared slots and what it saw of each worker; this module merges
 * them (a pure sum), judges the run's validity by the rules of SPEC.md (a
 * pure function, unit-tested without forking), and builds the JSON, whose
 * per-workload figures come from each workload's declared counters,
 * histograms and classes. The summary on stdout is printed from that JSON,
 * so both always agree. */
#ifndef AOPS_RESULTS_H
#define AOPS_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "../telemetry/attrib.h"
#include "../telemetry/server_check.h"
#include "../telemetry/telemetry.h"
#include "hist.h"
#include "run.h"

#include "../common/upgrade.h" /* RESULT_SCHEMA_VERSION */

struct run_report {
    const struct run_ctx *r;
    const struct worker_end *workers;
    int64_t t0;      /* barrier release; 0 when the run never started */
    int released;    /* the barrier was released */
    json_t *reasons; /* invalid_reasons, filled by the coordinator first */
    json_t *warnings;
    struct telemetry *tel;
    const char *cgroups;    /* description, or NULL with --no-cgroups */
    double startup_seconds; /* command start to barrier release */
    json_t *launch;         /* coordinator.launch: how the containers were started; NULL forked */
    json_t *servers;        /* backends: what serves each workload */
    const struct attrib *attrib;             /* where the time went; NULL: not measured */
    const struct server_check *server_check; /* the servers' own counts; NULL: none */
    double t0_epoch; /* the release by the wall clock (windows' absolute edges); 0 none */
    json_t *cache;   /* --cache cold: what was dropped and restarted; NULL otherwise */
    /* provenance.servers: each workload's server_info(), or NULL */
    json_t *server_info;
    json_t *servers_pinned; /* placement.servers_pinned (--server-cpus), or NULL */
    /* What placement/ (a layer above) made of --placement, placed as handed
     * (borrowed; NULL: null): config.placement, what was asked; the root
     * "placement", as made on this host; and per container an object whose
     * keys (cpus, mems, cores, cpus_allowed, mems_allowed) join containers[i]. */
    json_t *placement_config;
    json_t *placement;
    json_t *container_placement; /* array of cfg->n objects, or NULL */
};

/* Step 1, the merge: every worker's slot summed per workload. */
struct run_totals {
    unsigned nwl;
    struct wl_stats wl[RUN_MAX_WL];
    struct hist *hists; /* lay->nhist merged histograms (owned) */
    uint64_t ops, errors;
    int64_t t_end; /* last completion, CLOCK_MONOTONIC ns */
};
int results_merge(const struct run_ctx *r, int64_t t0, struct run_totals *t);
/* The two steps of that sum a merge of several hosts' results takes too
 * (fleet/merge.c), so that a merged workload is added up and written as a
 * single run's is: one workload's counts added into a (saturating: a merge
 * adds counts read from files), and workloads.<name> (ops, errors, latency,
 * a paced run's service time, its counters, histograms and classes) from a
 * sum and the layout's merged histograms. */
void results_stats_add(struct wl_stats *a, const struct wl_stats *b);
json_t *results_workload_json(const struct run_layout *lay, unsigned w, const struct wl_stats *t,
                              const struct hist *hists);
void results_totals_free(struct run_totals *t);

/* Step 2, the validity rules other than what the coordinator saw itself
 * (signals, OOM kills, stalls): failed operations, operations that never
 * ran, test-only workloads, a partial cycle. Appends one reason each. */
struct verdict_in {
    uint64_t ops, errors, expected;
    int released;
    int test_only;          /* a test-only workload ran */
    unsigned ops_per_cycle; /* of the workloads that ran */
    unsigned full_cycle;    /* of every real workload */
    const char *workloads;  /* the selection, for the message */
};
void results_judge(const struct verdict_in *v, json_t *reasons);
/* Whether an invalid reason is one results_judge gives the configuration
 * itself (a test-only workload, a partial cycle), the same for every run of
 * it, rather than one this run earned (`harness capacity` goes on past
 * the first kind, never the second). */
int results_reason_of_config(const char *reason);

/* Step 3: build the whole result (runs steps 1 and 2). */
json_t *results_build(const struct run_report *rep);
int results_write(const json_t *result, const char *dir, char *err, size_t errlen);

/* {mean, p50, p95, p99, max} in milliseconds; nulls for an empty histogram. */
json_t *results_latency_json(const struct hist *h);

#endif
