/* opsrate.h -- operations completed per second of absolute (wall-clock)
 * time, for result.json's "ops_per_second".
 *
 * Shards of one run on several hosts share only the wall clock, so this is
 * the series a merge can add up second by second. The coordinator reads the
 * workers' completion counters at every whole wall-clock second from its
 * own loop; the workers do nothing more per operation. Second k of the
 * series is [start + k, start + k + 1) with start the whole second the run
 * was released in; the last is the second of the last completion, which
 * gets every completion after the last reading, so the series adds up to
 * totals.ops exactly. */
#ifndef AOPS_OPSRATE_H
#define AOPS_OPSRATE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "run.h"

struct opsrate {
    int64_t t0;      /* release, CLOCK_MONOTONIC ns */
    double t0_epoch; /* the same instant by the wall clock */
    double start;    /* floor(t0_epoch) */
    uint64_t *cum;   /* cum[k]: completions by the end of second k */
    size_t n, cap;
    uint64_t total; /* at the end */
    int64_t t_end;  /* last completion, CLOCK_MONOTONIC ns */
    int finished, oom;
};

void opsrate_begin(struct opsrate *o, int64_t t0, double t0_epoch);
/* CLOCK_MONOTONIC ns of the next reading due; INT64_MAX before begin. */
int64_t opsrate_due(const struct opsrate *o);
/* A reading at now of `completed` (every worker's operations without error). */
void opsrate_sample(struct opsrate *o, int64_t now, uint64_t completed);
/* The final count and the time of the last completion. */
void opsrate_finish(struct opsrate *o, uint64_t total, int64_t t_end);
/* {"start": epoch second, "counts": [...]}, or null before begin. */
json_t *opsrate_json(const struct opsrate *o);
void opsrate_free(struct opsrate *o);

/* Completions without error so far, over every worker's slot. */
uint64_t run_completed(const struct run_ctx *r, unsigned nworkers);
/* The last completion of any worker (0 when none). */
int64_t run_last_end(const struct run_ctx *r, unsigned nworkers);

#endif
