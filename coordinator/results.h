/* results.h -- turning a finished run into result.json and a human summary.
 *
 * Measurement and output are kept apart (as fio does): the coordinator hands
 * over the shared slots and what it saw of each worker; this module merges,
 * computes the metrics as SPEC.md defines them and builds the JSON. The
 * summary on stdout is printed from that JSON, so both always agree. */
#ifndef AOPS_RESULTS_H
#define AOPS_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "run.h"
#include "telemetry.h"

#define RESULT_SCHEMA_VERSION 1

struct worker_end {
    int pid;
    int reaped;
    int status;     /* raw wait status when reaped */
    int oom_killed; /* 1, 0, or -1 unknown */
};

struct run_report {
    const struct run_ctx *r;
    const struct worker_end *workers;
    int64_t t0;          /* barrier release; 0 when the run never started */
    int released;        /* the barrier was released */
    json_t *reasons;     /* invalid_reasons, filled by the coordinator first */
    json_t *warnings;
    struct telemetry *tel;
    const char *cgroups; /* description, or NULL with --no-cgroups */
    double startup_seconds; /* command start to barrier release */
    json_t *servers;        /* backends: {"s3": "MinIO ...", "db": "10.11...", "search": "io_uring"} */
};

/* Build the whole result; adds invalid reasons found while merging. */
json_t *results_build(const struct run_report *rep);
int results_write(const json_t *result, const char *dir, char *err, size_t errlen);
void results_print_summary(const json_t *result, const char *dir, FILE *f);

#endif
