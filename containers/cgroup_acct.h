/* cgroup_acct.h -- where each worker's CPU time is read from: a cgroup per
 * worker whatever limits it runs under, so CPU attribution reads the
 * workers like the servers, from cgroup files.
 *
 * cgroup.c places workers for their limits: on cgroup v2 that cgroup already
 * has cpu.stat, so nothing is made here. With v1 controllers (and on hybrid
 * hosts, where memory is v1) a worker is only in a cpu cgroup when it has a
 * CPU limit, so the workers join a second cgroup made for accounting alone:
 * in the cgroup2 hierarchy when one is mounted (every v2 cgroup has cpu.stat
 * without enabling a controller, and there perf_event_open can count it when
 * no v1 hierarchy holds perf_event), else in the v1 hierarchy carrying
 * cpuacct -- unless cpu and cpuacct share that hierarchy and a CPU limit put
 * the worker in a cpu cgroup already, which then is read. The accounting
 * cgroups sit below one parent per run, aops-<run>-acct/<i>, so all workers
 * read as one directory (one file per sample, one perf target). */
#ifndef AOPS_CGROUP_ACCT_H
#define AOPS_CGROUP_ACCT_H

#include <stddef.h>

#include "cgroup.h"
#include "cgroup_stat.h"

struct cg_acct;

/* For run `run` (the coordinator's pid) and the n workers of cg. NULL with
 * err set when the workers' CPU cannot be read from a cgroup (no hierarchy,
 * no permission); the run goes on without it. */
struct cg_acct *cgacct_create(const struct cgroups *cg, unsigned run, unsigned n, char *err,
                              size_t errlen);

/* All workers' CPU read from one cgroup that something else made (the
 * docker runtime's containers all sit below one cgroup parent): its path in
 * its hierarchy ("/aops-12-docker"). Nothing is made or removed here. NULL
 * with err set when no hierarchy has it. */
struct cg_acct *cgacct_existing(const char *cgpath, const char *what, char *err, size_t errlen);

/* In the forked worker, after cgroups_attach_self. 0 or -1 (errno). */
int cgacct_attach_self(const struct cg_acct *a, unsigned i);

/* All workers' CPU time together: the parent's file when there is one, else
 * the sum over the workers' cgroups. 0, or -1 with why set. */
int cgacct_read(const struct cg_acct *a, struct cpu_time *out, char *why, size_t whylen);

/* The one directory holding every worker (for perf_event_open's cgroup
 * target), or NULL when the workers' cgroups have no parent of their own
 * (cgroup v2: cgroup.c makes them side by side). */
const char *cgacct_parent(const struct cg_acct *a);

/* "cgroup2 /sys/fs/cgroup/unified/aops-12-acct (accounting only)". */
const char *cgacct_describe(const struct cg_acct *a);

/* Remove what create made (the workers must have been reaped). */
void cgacct_destroy(struct cg_acct *a);

/* Where accounting cgroups would go, from a mountinfo and a /proc/PID/cgroup
 * file: cg_mode is cgroup.c's (CG_V1, CG_V2), v1_cpu_limit whether workers
 * get a v1 cpu cgroup. Returns 2 (made in cgroup2), 1 (made in v1 cpuacct),
 * 0 (the workers' own cgroups are read: v2, or v1 cpu,cpuacct with a limit),
 * -1 with why set. base: the directory the run's parent goes in. For tests
 * and for create. */
int cgacct_plan(const char *mountinfo, const char *cgroup_file, int cg_mode, int v1_cpu_limit,
                char *base, size_t len, char *why, size_t whylen);

#endif
