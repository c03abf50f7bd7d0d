/* run.h -- what the coordinator and its workers share for one run.
 *
 * Before forking, the coordinator maps one shared anonymous region with a
 * slot per worker. A worker writes only its own slot (counters, histograms,
 * its first error); the coordinator reads all slots for progress, stall
 * detection and the final merge. Because the figures live in shared memory, a
 * worker that is OOM-killed or crashes still leaves what it measured. */
#ifndef AOPS_RUN_H
#define AOPS_RUN_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "../common/config.h"
#include "../common/oplog.h"
#include "../workloads/workload.h"
#include "hist.h"

#define RUN_MAX_WL 5

enum worker_phase { PH_STARTING = 0, PH_READY, PH_RUNNING, PH_DONE, PH_FAILED, PH_WARMUP };

/* One workload's figures in one worker, and (summed) in the run: the
 * workload's declared counters, whole and per class. */
struct wl_stats {
    uint64_t ops;    /* completed without error */
    uint64_t errors; /* failed operations */
    uint64_t count[WL_MAX_COUNTERS];
    int64_t first_start, last_end; /* CLOCK_MONOTONIC ns, 0 before any */
    uint64_t class_ops[WL_MAX_CLASSES], class_errors[WL_MAX_CLASSES];
    uint64_t class_count[WL_MAX_CLASSES][WL_MAX_COUNTERS];
};

struct cg_acct;
struct placement;

struct worker_slot {
    _Atomic uint64_t done; /* operations finished, with or without error */
    _Atomic int phase;
    /* Set by the coordinator just before it releases the barrier: a worker
     * that sees the release channel close without it knows the coordinator
     * died, not that the run started. */
    _Atomic int go;
    int64_t end_ns;             /* last completion */
    int fatal;                  /* stopped early on an error it could not go on after */
    char error[WL_ERRLEN + 64]; /* first error, "<workload>: ..." */
    /* --warmup-cycles: operations run before the barrier, never in the
     * figures below; the coordinator watches warmup_done for progress. */
    _Atomic uint64_t warmup_done;
    uint64_t warmup_errors;
    int64_t warmup_ns;                 /* how long the warm-up took */
    char warmup_error[WL_ERRLEN + 64]; /* its first error */
    /* Where the kernel lets it run and allocate, from its own
     * /proc/self/status once in its cgroup or container: checked against
     * its placement, and in containers[] (cpus_allowed, mems_allowed). */
    char cpus_seen[512], mems_seen[256];
    struct wl_stats wl[RUN_MAX_WL];
    /* --phase-barrier (phasebar.h): barriers this worker reached, and the
     * coordinator's release of them (a futex word). */
    _Atomic uint32_t bar_arrived, bar_go;
    /* Paced runs (--arrival, --think-time): operations sent more than 1 ms
     * after their scheduled instant, and those whose instant came while all
     * --agent-concurrency slots were busy (a queue inside the worker). */
    uint64_t late_1ms, queued;
    /* followed by the worker's histograms, then its phase intervals (see
     * struct run_layout) */
};

/* A phase of one cycle in one worker: its first start and last end
 * (CLOCK_MONOTONIC ns, 0 before any). */
struct phase_iv {
    int64_t start, end;
};

/* Cycles with a phase record each; a longer run's later cycles share the
 * last record, so a slot stays small whatever --cycles is. */
#define RUN_MAX_PHASE_CYCLES 256

/* Histograms of workload w: latency at hist_base[w], its extra histograms
 * at +1..+nhists, class c's latency after those (see the functions below). */
struct run_layout {
    unsigned nwl;
    const struct workload *wl[RUN_MAX_WL];
    unsigned hist_base[RUN_MAX_WL];
    unsigned nhist;
    size_t slot_size;
    unsigned ops_per_cycle; /* sum over the run's workloads */
    size_t phase_off;       /* where a slot's phase intervals start */
    unsigned phase_cycles;  /* cycles with a record: min(--cycles, RUN_MAX_PHASE_CYCLES) */
    /* The worker's per-operation log (oplog.h): room for every measured
     * operation, after the histograms. */
    size_t log_off, log_cap;
    /* Paced runs (--arrival, --think-time; common/pacing.h): latency is the
     * response time (scheduled instant to completion) and these hold the
     * service time (send to completion) of workload w at svc_base[w], its
     * classes' after it; hist_late the pacer's lateness (send - scheduled
     * instant) over all workloads. paced 0: none of them. */
    int paced;
    unsigned svc_base[RUN_MAX_WL];
    unsigned hist_late;
};

static inline unsigned lay_hist_lat(const struct run_layout *l, unsigned w) {
    return l->hist_base[w];
}
static inline unsigned lay_hist_extra(const struct run_layout *l, unsigned w, unsigned h) {
    return l->hist_base[w] + 1 + h;
}
static inline unsigned lay_hist_class(const struct run_layout *l, unsigned w, unsigned c) {
    return l->hist_base[w] + 1 + l->wl[w]->nhists + c;
}
static inline unsigned lay_hist_svc(const struct run_layout *l, unsigned w) {
    return l->svc_base[w];
}
static inline unsigned lay_hist_svc_class(const struct run_layout *l, unsigned w, unsigned c) {
    return l->svc_base[w] + 1 + c;
}
static inline unsigned lay_nhists_of(const struct workload *wl) {
    return 1 + wl->nhists + wl->nclasses;
}

/* The run's workloads (cfg->wl_mask) in table order, which is the phased
 * order, and the slot size their figures need. 0, or -1 with err. */
int layout_build(const struct config *cfg, struct run_layout *lay, char *err, size_t errlen);

struct run_ctx {
    const struct config *cfg;
    struct run_layout lay;
    unsigned char *shm;   /* n slots */
    int ready_fd;         /* workers write one byte when ready (or failed) */
    int release_fd;       /* workers block reading it; EOF releases them */
    struct cgroups *cg;   /* NULL with --no-cgroups */
    struct cg_acct *acct; /* where the workers' CPU time is read; NULL when nowhere */
    pid_t coord_pid;
    unsigned id_base; /* global id of worker 0: --shard I/N runs I x n onwards */
    int swap_limited; /* the runtime's memory limit holds swap too: 1, 0, -1 unknown/none */
    const struct placement *place; /* --placement: each worker's cpuset; NULL for none */
};

/* A text field of a slot (error, warmup_error) for "%.*s": the slots are
 * memory (with --runtime docker a file) the workers write, so a field is
 * read only up to its own end, even when its NUL is missing. */
#define SLOT_TEXT(field) (int)strnlen((field), sizeof(field)), (field)

static inline struct worker_slot *run_slot(const struct run_ctx *r, unsigned i) {
    return (struct worker_slot *)(r->shm + (size_t)i * r->lay.slot_size);
}

static inline struct hist *slot_hist(const struct run_ctx *r, struct worker_slot *s, unsigned h) {
    (void)r;
    return (struct hist *)((unsigned char *)s + sizeof(struct worker_slot)) + h;
}

/* Workload w's phase in cycle c (0-based) of slot s. */
static inline struct phase_iv *slot_phase(const struct run_ctx *r, struct worker_slot *s,
                                          unsigned c, unsigned w) {
    unsigned k = c < r->lay.phase_cycles ? c : r->lay.phase_cycles - 1;
    return (struct phase_iv *)((unsigned char *)s + r->lay.phase_off) + (size_t)k * r->lay.nwl + w;
}

/* Worker s's log records, log_cap of them; the first `done` are written. */
static inline struct oplog_rec *slot_log(const struct run_ctx *r, struct worker_slot *s) {
    return (struct oplog_rec *)((unsigned char *)s + r->lay.log_off);
}

/* What the coordinator saw of each worker's end: the runtimes fill it
 * (runtime.h), the result reads it (results.h). */
struct worker_end {
    int pid; /* forked workers; -1 in a container */
    int reaped;
    int status;          /* raw wait status when reaped */
    int oom_killed;      /* 1, 0, or -1 unknown */
    char runtime_id[72]; /* the container's id (docker runtime), "" otherwise */
};

/* worker.c: the body of a forked worker. Never returns. */
void worker_main(const struct run_ctx *r, unsigned id) __attribute__((noreturn));

#endif
