/* fleet.h -- a fleet's time-based figures for `harness merge`: the shards'
 * instants on one clock, one series for the fleet, its windows and its
 * stragglers (merge.c does the counts, histograms and rules).
 *
 * Every shard measured its clock against the one reference the shards
 * share (server time = local + offset_s). Its release, last completion,
 * windows, series and finish times are moved onto that clock before they
 * are compared; a shard without an offset is taken as it is (merge.c warns).
 *
 * The fleet's series: each machine's points (the first shard on it: shards
 * of one machine share its telemetry) lined up from their shard's release,
 * cut at every point edge of every machine, so each piece has one value per
 * machine. CPU utilisation and steal are the machines' weighted by their
 * logical CPUs (a 2-CPU host at 100 % and a 126-CPU host at 0 % are 1.6 %,
 * not 50 %); disk rates and power are summed (unknown while a machine has no
 * value); operations and bytes come from every shard. Means and peaks over
 * the fleet's span and each window come from this series, never from the
 * hosts' own peaks. */
#ifndef AOPS_FLEET_H
#define AOPS_FLEET_H

#include <jansson.h>
#include <stdint.h>

#include "../telemetry/series.h"

struct fleet_shard {
    const json_t *r; /* the shard's result */
    unsigned index;  /* its shard index (containers[].shard) */
    int host_first;  /* the first shard of its machine */
    int released;    /* it ran */
    int64_t rel_ns;  /* its release on the common clock, epoch ns */
    double offset_s; /* applied */
};

/* The fleet's series (out, owned by the caller) from [0, ...) seconds after
 * rel_ns, the common release. Returns 0, or -1 when a machine has no series
 * (the telemetry then falls back to the hosts' means). */
int fleet_series(const struct fleet_shard *s, size_t n, int64_t rel_ns, struct series *out);

/* telemetry{} of the fleet over [0, wall]: from the series when there is
 * one (ok), else the hosts' means weighted the same way with no peaks.
 * telemetry.power is one entry per scope (package, platform), each summed
 * over the machines; *watts and *pwatts get those means, NAN when a
 * machine lacks one; why (len) the package's reason. */
json_t *fleet_telemetry(const struct fleet_shard *s, size_t n, const struct series *ser, int ok,
                        double wall, double *watts, double *pwatts, char *why, size_t len);

/* windows{} of the fleet: per workload and cycle the earliest start and
 * last end over every shard on the common clock, with windows.h's figures
 * from the series (when ok). */
json_t *fleet_windows(const struct fleet_shard *s, size_t n, int64_t rel_ns,
                      const struct series *ser, int ok);

/* containers[].seconds moved onto the fleet's clock (shard_seconds keeps
 * the shard's own), then stragglers{} from them. */
json_t *fleet_stragglers(json_t *containers, const struct fleet_shard *s, size_t n, int64_t rel_ns,
                         const struct series *ser, int ok);

/* The shard's offset from its result; 0 when it has none. */
double fleet_offset(const json_t *r);

#endif
