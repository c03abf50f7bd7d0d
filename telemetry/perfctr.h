/* perfctr.h -- hardware and software event counters of one component (a
 * cgroup, the whole machine, or a process) through perf_event_open(2), read
 * at window edges, with a status per counter that says why a figure is
 * missing rather than printing 0.
 *
 * Two groups per component, each scheduled on the PMU as a unit so ratios
 * within a group are exact even when multiplexed: hardware {cycles,
 * instructions, cache-references, cache-misses, branch-misses} and software
 * {task-clock, context-switches, page-faults}. Counting only: no sampling,
 * no ring buffers, no `perf` process. Counters never decide a run's
 * validity. */
#ifndef AOPS_PERFCTR_H
#define AOPS_PERFCTR_H

#include <jansson.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum pc_event {
    PC_CYCLES,
    PC_INSTRUCTIONS,
    PC_CACHE_REFERENCES,
    PC_CACHE_MISSES,
    PC_BRANCH_MISSES, /* the hardware group ends here */
    PC_TASK_CLOCK,    /* nanoseconds */
    PC_CONTEXT_SWITCHES,
    PC_PAGE_FAULTS,
    PC_NEVENTS
};

/* perf's names: "cycles", ..., "task-clock", "context-switches", "page-faults". */
const char *perfctr_event_name(enum pc_event e);

enum pc_status {
    PC_OK,          /* counted the whole window */
    PC_MULTIPLEXED, /* counted part of it (running_ratio), value scaled up */
    PC_UNSUPPORTED, /* the kernel or the hardware cannot count it (reason) */
    PC_EACCES,      /* not allowed: reason names perf_event_paranoid and the fix */
};

const char *perfctr_status_name(enum pc_status s); /* "ok", "multiplexed", ... */

enum pc_target {
    PC_TARGET_CGROUP, /* tasks of one cgroup, one group per CPU (PERF_FLAG_PID_CGROUP) */
    PC_TARGET_SYSTEM, /* everything on every CPU, one group per CPU */
    PC_TARGET_PID,    /* a process: each of its threads at open time, with
                       * inherit, so threads and children made later count too
                       * (for the coordinator: open after forking the workers,
                       * or their work lands in its counters) */
};

/* The system calls, injectable so a test can play the kernel (EACCES,
 * EOPNOTSUPP, multiplexing, counters that read 0). NULL members and a NULL
 * struct mean the real ones. sysroot ("/" when NULL) is where
 * /proc/sys/kernel/perf_event_paranoid, /sys/devices/system/cpu/online and
 * /sys/bus/event_source/devices are read. */
struct pc_sys {
    int (*open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags,
                void *arg); /* an fd, or -1 with errno */
    ssize_t (*read)(int fd, void *buf, size_t len, void *arg);
    int (*ioctl)(int fd, unsigned long request, unsigned long value, void *arg);
    int (*close)(int fd, void *arg);
    void *arg;
    const char *sysroot;
};

struct perfctr;

/* Open both groups on the target and run the startup probe: the same events
 * on this thread over a known loop (page touches, unpredictable branches, a
 * short sleep); a counter that opened but reads 0 there is what some
 * hypervisors give instead of "not supported" and becomes unsupported,
 * "reads 0 on a known loop". Counters that cannot be opened keep their
 * status; that is not an error. NULL with err set only when the target
 * itself cannot be counted: the cgroup directory cannot be opened or is not
 * in the perf_event hierarchy (then fall back to PC_TARGET_SYSTEM), no such
 * pid, no online CPU list. cgroup_dir is for PC_TARGET_CGROUP, pid for
 * PC_TARGET_PID. */
struct perfctr *perfctr_open(enum pc_target target, const char *cgroup_dir, pid_t pid,
                             const struct pc_sys *sys, char *err, size_t errlen);
void perfctr_close(struct perfctr *pc);

/* perfctr_open taking the probe's verdicts from `like` (another perfctr of
 * this process, or NULL) for every event it probed: the probe counts the
 * calling thread whatever the target, so a process needs it once, not once
 * per component (each costs tens of milliseconds). */
struct perfctr *perfctr_open_like(enum pc_target target, const char *cgroup_dir, pid_t pid,
                                  const struct pc_sys *sys, const struct perfctr *like, char *err,
                                  size_t errlen);

/* "cgroup /sys/fs/cgroup/unified/x on 2 CPUs", "all 2 CPUs", "pid 42 (5 threads)". */
const char *perfctr_describe(const struct perfctr *pc);

/* A counter's status after open and probe: PC_OK when it can count (a window
 * may still find it multiplexed), else why not in *reason. */
enum pc_status perfctr_status(const struct perfctr *pc, enum pc_event e, const char **reason);

/* The directory under which cgroups can be counted with PERF_FLAG_PID_CGROUP:
 * a v1 hierarchy mounted with perf_event, else the cgroup2 mount when the
 * kernel has the perf_event controller (/proc/cgroups) and no v1 hierarchy
 * took it. Returns 1 (v1) or 2 (v2) with root set; -1 with why set. */
int perfctr_cgroup_root(const char *sysroot, char *root, size_t rootlen, char *why, size_t whylen);

/* Readings at an instant. Allocate once per edge you keep, read into it; a
 * read allocates nothing. */
struct pc_snap;
struct pc_snap *perfctr_snap_new(const struct perfctr *pc);
void perfctr_snap_free(struct pc_snap *s);
/* 0, or -1 when a group could not be read (its counters then come out
 * unsupported in a delta, with the errno text). */
int perfctr_read(struct perfctr *pc, struct pc_snap *s);

/* One counter over a window. */
struct pc_count {
    enum pc_status status;
    int has_value;        /* value usable: ok, or multiplexed and counted at all */
    double value;         /* scaled by enabled/running time when multiplexed */
    double running_ratio; /* running / enabled time over the window; NAN unless ok/multiplexed */
    char reason[256];     /* why not ok; empty when ok */
};

struct pc_delta {
    struct pc_count ev[PC_NEVENTS];
    /* NAN unless cycles and instructions (and the misses) have values. Both
     * sit in one group, so multiplexing scales them alike and their ratio
     * is as good as an unmultiplexed one. */
    double ipc, cache_mpki, branch_mpki; /* misses per 1,000 instructions */
};

/* The window from snapshot a to snapshot b (a taken first). */
void perfctr_delta(const struct perfctr *pc, const struct pc_snap *a, const struct pc_snap *b,
                   struct pc_delta *out);

/* A snapshot summed over its CPUs or threads: small enough to keep one per
 * telemetry sample, so windows whose edges are only known after the run can
 * be cut from the samples at their edges. A window of sums scales a
 * multiplexed counter by the summed enabled/running times (perf stat's
 * aggregate estimate) rather than per CPU. */
#define PC_NGROUPS 2
struct pc_sum {
    uint64_t val[PC_NEVENTS];
    uint64_t en[PC_NGROUPS], run[PC_NGROUPS];
    int err[PC_NGROUPS]; /* errno of a failed group read, 0 if fine */
};
void perfctr_sum(const struct perfctr *pc, const struct pc_snap *s, struct pc_sum *out);
void perfctr_delta_sum(const struct perfctr *pc, const struct pc_sum *a, const struct pc_sum *b,
                       struct pc_delta *out);

/* { "<event name>": {"status", "value", "running_ratio"[, "reason"]}, ...,
 *   "ipc", "cache_mpki", "branch_mpki" } with null for what has no value.
 * value is an integer count (task-clock: nanoseconds). A new reference. */
json_t *perfctr_delta_json(const struct pc_delta *d);

#endif
