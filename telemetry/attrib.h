/* attrib.h -- where the time went: the CPU time of each server the
 * workloads load (MinIO, MariaDB), of all workers together, of the
 * coordinator, and "other" (the machine's busy time minus those), per
 * window and for the run; and the event counters (perfctr.h) of the machine
 * and of the same components.
 *
 * Every component's cumulative CPU time and counters are read at each
 * telemetry sample (the run's first at barrier release, its last after the
 * last worker is reaped). The windows' edges are only known after the run,
 * so a window is cut from the samples at its edges: the last sample at or
 * before its start to the first at or after its end. Its resolution is the
 * sample interval, and each window says which span it covers.
 *
 * Servers are named by the workloads (server_name) and found by them
 * (server_locate: the local stack's state), unless --server-cgroup or
 * --server-pid says where. A component that cannot be read is null with the
 * reason in attribution_unavailable, never 0. Counters never decide a run's
 * validity. */
#ifndef AOPS_ATTRIB_H
#define AOPS_ATTRIB_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/config.h"
#include "../containers/cgroup_acct.h"
#include "perfctr.h"

struct attrib;

struct attrib_in {
    const struct config *cfg;
    const struct cg_acct *acct; /* the workers' CPU cgroups; NULL: acct_why says why not */
    const char *acct_why;
    const struct pc_sys *pc_sys; /* NULL: the real kernel (tests inject failures) */
    int no_counters;             /* CPU time only (tests that need no perf) */
};

/* Find the components and open their counters (each open runs perfctr's
 * probe, a few milliseconds). Never fails for a component that cannot be
 * read: that one is reported unavailable. NULL only when out of memory. */
struct attrib *attrib_new(const struct attrib_in *in);

/* The coordinator's own counters: opened after the workers are forked, or
 * their work would be inherited into the coordinator's. */
void attrib_open_coordinator(struct attrib *a);

/* The first sample, at barrier release (CLOCK_MONOTONIC ns); then one at
 * each telemetry sample and one after the last worker ended. */
void attrib_begin(struct attrib *a, int64_t t0_ns);
/* After attrib_begin, before any sample: times count from t0_ns, the release
 * taken after the baseline was read (which then sits at t <= 0). */
void attrib_rebase(struct attrib *a, int64_t t0_ns);
void attrib_sample(struct attrib *a, int64_t now_ns);

/* attribution, attribution_unavailable, attribution_sources, counters and
 * counters_unavailable (new references, for the result to place: result/),
 * from a built result's windows (start, end), its workloads' ops and
 * totals.ops. */
struct attrib_json {
    json_t *attribution, *unavailable, *sources, *counters, *counters_unavailable;
};
void attrib_results(const struct attrib *a, const json_t *result, struct attrib_json *out);

void attrib_free(struct attrib *a);

/* --server-cgroup / --server-pid name something readable: checked before a
 * run starts (exit 2 otherwise). 0, or -1 with err set. */
int attrib_check_overrides(const struct config *cfg, char *err, size_t errlen);

/* For the summary: "where the time went" lines from a result's attribution. */
void attrib_print_summary(const json_t *result, FILE *f);

#endif
