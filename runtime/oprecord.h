/* oprecord.h -- what one finished operation leaves in its worker's slot:
 * counters, histograms, phase interval, log record (run.h, oplog.h). The
 * closed loop (worker.c) and the paced threads (paced.c) both record
 * through it, so the two loops cannot count differently. */
#ifndef AOPS_OPRECORD_H
#define AOPS_OPRECORD_H

#include "../result/run.h"

/* One operation's instants, CLOCK_MONOTONIC ns: when it was due (a closed
 * loop: sent), sent, done. */
struct op_times {
    int64_t sched, sent, done;
};

/* Record operation k (its index in the worker's schedule, which is its log
 * slot) of workload slot w. Not thread-safe: the paced threads hold their
 * worker's lock around it. queued: its instant came with every slot busy. */
void op_record(const struct run_ctx *r, struct worker_slot *s, unsigned gid, size_t k,
               unsigned cycle, unsigned w, unsigned op, const struct op_times *t, int rc,
               const struct op_result *res, int queued);

/* An op_result before run() fills it. */
void op_reset(struct op_result *res);

#endif
