/* capacity_fleet.h -- `harness capacity --shard I/N`: one agents-at-SLO
 * figure for a fleet, with no host coordinating the others.
 *
 * Every host runs the same command (its own I). Each point is a fleet run:
 * every shard runs its share, the same per-host count of containers, as
 * `harness run --shard I/N` does, released at one --start-at, and puts its
 * result (and log) under the store prefix URL<run>/ (--results-url). Each
 * host then waits for all N shards' results of that run, merges them with
 * `harness merge`'s own code into DIR/<run>, and judges the SLO on the
 * merged histograms (the merge's slo{}). Every host has merged the same
 * inputs, so each takes the same verdict, the same next count
 * (capacity_search.c is a pure function of the verdicts) and the same next
 * start: the merged run's last completion (merge.released_at_ns +
 * totals.wall_seconds, on the common reference clock) plus --lead,
 * rounded up to a whole second. A shard that fails, is late (missed its
 * start) or never puts its result makes the merged run invalid, and every
 * host that merged it stops the search at that point with what it
 * measured. A result that comes after one host stopped waiting for it
 * splits them by one point: that host merges without it and stops; the
 * others go on, and stop at the next point, whose merge lacks it. */
#ifndef AOPS_CAPACITY_FLEET_H
#define AOPS_CAPACITY_FLEET_H

#include <stddef.h>

#include "capacity_run.h"

struct config;

/* The lead when --lead is not given: enough for a host to fetch and merge
 * the shards' results and have its workers ready (a few seconds each). */
#define CAP_FLEET_LEAD_S 20.0
/* The least a host waits for the other shards' results after its own run
 * (the lead, or its own run's wall time when either is longer). */
#define CAP_FLEET_WAIT_S 30.0

struct cap_fleet {
    const struct config *cfg; /* the store's settings, as a run has them */
    unsigned shard, shards;   /* --shard I/N */
    const char *url;          /* --results-url, a prefix */
    double start_at;          /* the next fleet run's start, epoch seconds */
    double lead;              /* --lead, seconds */
    double max_cv;            /* --max-cv, for the confirmations' spread */
};

/* One point: k fleet runs (k = 1: one) of n containers on this host, each
 * into DIR/host/<rel>[/runs/<i>] (this shard's run) and DIR/<rel>[/runs/<i>]
 * (the merge), started at fl->start_at and each next one where the merge
 * says; with k > 1 the merged runs are combined as --repeat combines runs
 * (the median run) into DIR/<rel>. The point's result is DIR/<rel>/
 * result.json (none when nothing was merged). Stops after a merged run
 * that is invalid. Returns the worst exit code of the runs and merges;
 * why gets a line when a step itself failed (a store that cannot be read). */
int fleet_point(struct cap_fleet *fl, const struct cap_runner *r, unsigned n, unsigned k,
                const char *rel, char *why, size_t len);

#endif
