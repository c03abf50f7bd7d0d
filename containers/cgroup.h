/* cgroup.h -- the per-worker "container": one cgroup per worker with a memory
 * limit and an optional CPU limit, on cgroup v2 or on v1 controllers (the
 * hybrid layout where memory is still v1). */
#ifndef AOPS_CGROUP_H
#define AOPS_CGROUP_H

#include <stddef.h>
#include <stdint.h>

enum cg_mode { CG_V1 = 1, CG_V2 = 2 };

struct cgroups;

/* Create n cgroups named aops-<run>-<i> (run = the coordinator's pid), set
 * the limits. cpus = 0 means no CPU limit. NULL with err set on failure;
 * nothing is left behind then. */
struct cgroups *cgroups_create(unsigned run, unsigned n, uint64_t mem_bytes, double cpus, char *err,
                               size_t errlen);

/* The same with a cpuset per worker (--placement): cpus[i] and mems[i] are
 * kernel lists ("0-3,64-67", "1"); mems[i] "" leaves the memory nodes as
 * the parent has them. Without a cpuset controller, NULL with err. */
struct cgroups *cgroups_create_placed(unsigned run, unsigned n, uint64_t mem_bytes, double cpus,
                                      const char *const *cpus_lists, const char *const *mems_lists,
                                      char *err, size_t errlen);

/* In the forked worker, before it does anything else. 0 or -1. */
int cgroups_attach_self(const struct cgroups *cg, unsigned i);

/* 1 when the kernel OOM-killed a task of cgroup i, 0 if not, -1 unknown. */
int cgroups_oom_killed(const struct cgroups *cg, unsigned i);

/* Remove every cgroup of the run (their tasks must have been reaped). */
void cgroups_destroy(struct cgroups *cg);

/* "cgroup v1 under /sys/fs/cgroup/memory/... (libcgroup)" */
const char *cgroups_describe(const struct cgroups *cg);

/* 1 when every worker's limit holds RAM plus swap (memory.swap.max = 0 on
 * v2, memory.memsw.limit_in_bytes = the limit on v1), 0 when some could not
 * be set (no swap accounting in the kernel). */
int cgroups_swap_limited(const struct cgroups *cg);

/* The warning a run gives when its memory limit could not include swap
 * (limited == 0) while swap is active (SYSROOT/proc/swaps lists a device):
 * one line in buf, returned; NULL when there is nothing to say. */
const char *cgroups_swap_warning(int limited, const char *sysroot, char *buf, size_t len);

/* Remove aops-* cgroups whose coordinator is gone (a crashed run). Returns
 * how many were removed. */
int cgroups_remove_stale(void);

/* For tests: which hierarchy a mountinfo and a /proc/PID/cgroup file give,
 * and the directories worker cgroups would be made in (v2: before the
 * fall-back to the root), found by the code cgroups_create runs on
 * /proc/self. Returns CG_V1, CG_V2 or 0 for none. */
int cgroups_probe_files(const char *mountinfo, const char *cgroup_file, char *mem_dir,
                        char *cpu_dir, size_t len);

/* For tests: whether DIR/cgroup.controllers (v2) lists controller NAME. */
int cgroups_v2_has_controller(const char *dir, const char *name);

/* cgroup_acct.c: the mode, and the directory that accounts worker i's CPU
 * time: on v2 its cgroup, on v1 its cpu cgroup when it has a CPU limit. 0
 * with out set, -1 when it has none. */
enum cg_mode cgroups_mode(const struct cgroups *cg);
int cgroups_cpu_dir(const struct cgroups *cg, unsigned i, char *out, size_t len);

#endif
