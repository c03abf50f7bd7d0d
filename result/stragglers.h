/* stragglers.h -- how far the last worker finished from the others.
 *
 * AOPS is set by the last worker to finish: a run whose median worker ended
 * long before the last measures the tail, not the machine. From each
 * container's finish time (containers[].seconds, since the release):
 *   finish{first, median, last}  seconds;
 *   aops_at_median               operations completed by the median finish,
 *                                over that time;
 *   tail_share                   (last - median) / last.
 * The operations completed by a time come from the caller (the telemetry
 * series' per-interval counts, so at --sample-interval resolution). */
#ifndef AOPS_STRAGGLERS_H
#define AOPS_STRAGGLERS_H

#include <jansson.h>

/* ops_by(ctx, t): operations completed in [0, t]; NAN when unknown.
 * Returns the stragglers object, or null when no container finished. */
json_t *stragglers_json(const json_t *containers, double (*ops_by)(void *ctx, double t), void *ctx);

#endif
