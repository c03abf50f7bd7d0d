/* figures.h -- the run-level figures that explain the headline, added to a
 * single host's result once its windows and telemetry are in: how far the
 * last worker finished from the others (stragglers.h), how much of what the
 * workloads read the disks served (against the page cache), the data set
 * against the memory, the cache policy and the phase barrier in config, and
 * the warnings that say a figure measures something else than it seems to:
 * a hypervisor's steal, storage served from memory. */
#ifndef AOPS_FIGURES_H
#define AOPS_FIGURES_H

#include <jansson.h>

#include "results.h"

/* Steal above this share of the CPUs (percent) warns: a shared host. */
#define FIGURES_STEAL_WARN_PCT 5.0
/* Storage figures from disks that served less than this share warn. */
#define FIGURES_DISK_SHARE_WARN 0.5

/* The cache policy and the phase barrier, into the run's config. */
void figures_config(const struct run_report *rep, json_t *config);
/* storage{} and stragglers{} (NULL: the run was never released) of a built
 * result's containers, workloads and system, for the result to place. */
void figures_run(const struct run_report *rep, double wall, const json_t *res, json_t **storage,
                 json_t **stragglers);

/* What storage{} is made of: a single run's (figures_run) or a fleet's
 * (harness merge). A NAN figure is null, its reason beside it. */
struct storage_in {
    const char *cache; /* "asis" or "cold" */
    double dataset;    /* bytes; NAN: unknown, dataset_why says why */
    const char *dataset_why;
    double memory; /* bytes (system.memory_bytes); NAN: unknown */
    double disk;   /* bytes the disks read; NAN: disk_why says why */
    const char *disk_why;
    double wl; /* bytes the workloads read (their byte counters) */
};
json_t *figures_storage(const struct storage_in *in);
/* The bytes a result's workloads read: every counter a workload declares in
 * bytes, summed from res.workloads. */
double figures_workload_bytes(const json_t *res);

/* The warnings of a result's steal_pct and served_from_disk (also for a
 * merged fleet). */
void figures_warnings(json_t *res);

#endif
