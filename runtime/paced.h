/* paced.h -- a worker's measured part as paced agents (--arrival): every
 * operation sent at its scheduled instant, whether or not the last one
 * returned, by up to --agent-concurrency threads of the worker, each with
 * workload states of its own (common/pacing.h has the instants). */
#ifndef AOPS_PACED_H
#define AOPS_PACED_H

#include "../result/run.h"

struct paced_run {
    const struct run_ctx *r;
    struct worker_slot *s;
    unsigned gid;
    const uint32_t *order; /* the schedule (schedule.h), total entries */
    const int64_t *due;    /* each one's instant, ns after the release */
    size_t total;
    unsigned nthreads;       /* <= --agent-concurrency */
    void *(*st)[RUN_MAX_WL]; /* st[i]: thread i's open workload states */
};

/* Run the whole schedule from release t0 (CLOCK_MONOTONIC ns). Returns 1
 * when an error stopped it (s->fatal set), 0 when every operation ran, -1
 * when the threads could not start (s->error set). */
int paced_run(struct paced_run *p, int64_t t0);

#endif
