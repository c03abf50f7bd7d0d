/* windows.h -- the workload windows of a result: each one's per-cycle phase
 * intervals, their union, how much of it another workload shared, and the
 * telemetry figures over the union and over the time it ran alone.
 *
 * A window is a workload's activity: in each cycle, its phase interval runs
 * from the first start of one of its operations in that cycle to the last
 * end, over every worker (a fleet: every worker of every host). Its figures
 * cover the union of those intervals, never first start to last end over
 * the whole run (with --cycles 3 that was nearly the whole run for every
 * workload). overlap_share is the fraction of the union when another
 * workload was also in one of its intervals; exclusive{} holds the same
 * figures over the rest, when only this workload ran.
 *
 * The figures come from a source (struct win_src): the sampler of this run
 * (results.c) or a fleet's aligned series (merge.c), so one code path makes
 * both. */
#ifndef AOPS_WINDOWS_H
#define AOPS_WINDOWS_H

#include <jansson.h>

#include "../telemetry/series.h"
#include "results.h"

struct win_src {
    /* {cpu_util{mean,peak}, read_Bps..., steal_pct..., power...} over the spans */
    json_t *(*stats)(void *ctx, const struct span *s, size_t n);
    /* bytes the disks read over the spans; NAN when not measured */
    double (*disk_bytes)(void *ctx, const struct span *s, size_t n);
    /* bytes the workloads were served over the spans (S3 bodies received,
     * files searched: every counter a workload declares in bytes); NAN unknown */
    double (*wl_bytes)(void *ctx, const struct span *s, size_t n);
    void *ctx;
    /* why there is no figure at all when stats is NULL (no sampler, no
     * fleet series): the disk_unavailable_reason beside disk_read_bytes */
    const char *why;
};

/* One workload's per-cycle intervals, in cycle order (seconds since the
 * release; a cycle without an operation of it has a > b). */
struct win_in {
    const char *name;
    json_t *win; /* windows.<name>: the figures are added to it */
    struct span *cyc;
    unsigned ncyc;
};

/* Add intervals[], seconds, overlap_share, exclusive{} and the telemetry
 * figures (and served_from_disk, disk_bytes_per_workload_byte) to each
 * window. */
void windows_figures(struct win_in *w, unsigned nw, const struct win_src *src);

/* windows{} of a single host's run from its slots' phase records and its
 * sampler. NULL when the run never started. */
json_t *windows_build(const struct run_report *rep);

/* served_from_disk: the share of the bytes the workloads read that the
 * disks served, the disks' bytes over the workloads' capped at 1; NAN when
 * either is unknown or nothing was read. The disks read more than the
 * workloads were served when readahead, the servers' metadata and
 * erasure-coded shards count against them: a share cannot say "more than
 * all of it", so the quotient itself is windows_disk_per_wl's. */
double windows_served(double disk_bytes, double wl_bytes);

/* disk_bytes_per_workload_byte: the disks' bytes over the workloads',
 * uncapped (1.42: the disks read 1.42 bytes for each byte served); NAN as
 * windows_served. */
double windows_disk_per_wl(double disk_bytes, double wl_bytes);

#endif
