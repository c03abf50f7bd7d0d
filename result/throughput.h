/* throughput.h -- throughput over time: the operations the workers complete
 * in each telemetry interval, per workload, from their shared slots.
 *
 * The telemetry series then holds, for every sample, each workload's
 * completed operations and errors in the interval, its operations per
 * second, and each counter it declares in bytes (WL_BYTES: bytes received,
 * bytes searched) as an increase and a rate:
 *   telemetry.series[i].workloads.<name>.{ops, ops_per_s, errors, <key>, <key>_per_s}
 * Generic over the workload descriptors: no workload is named here. The
 * last sample is taken after every worker is reaped, so each column sums
 * exactly to the run's total (workloads.<name>.ops, .<key>). */
#ifndef AOPS_THROUGHPUT_H
#define AOPS_THROUGHPUT_H

#include <jansson.h>

#include "../telemetry/telemetry.h"
#include "run.h"

/* Register the columns of r's workloads with the sampler (before
 * telemetry_begin); r must outlive t's sampling. */
void throughput_attach(struct telemetry *t, const struct run_ctx *r);

/* A run of fewer than 10 sampling intervals has too few points over time
 * to read a trend from: say so in warnings. */
void throughput_short_run(const struct config *cfg, double wall_seconds, json_t *warnings);

#endif
