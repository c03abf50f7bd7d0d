/* merge.h -- `harness merge`: the shards of one run (merge.h's inputs are
 * their result.json files) into one result for the fleet, in the same
 * schema plus "shards" (one entry per host).
 *
 * The fleet's figures follow the single-host definitions (SPEC.md):
 *   - AOPS: every shard's completions over the seconds from the common
 *     release (the earliest shard's) to the last completion anywhere;
 *   - per-core AOPS over the physical cores of the hosts under test, each
 *     machine counted once (shards sharing a kernel boot id share cores);
 *   - latency percentiles from the shards' histograms added bucket by
 *     bucket, never from their percentiles;
 *   - power summed when every host measured it, else null with the reason;
 *   - telemetry per host (shards[].telemetry).
 * The merged result is invalid, with reasons, when a shard is missing or
 * appears twice, the shards' config hashes or harness versions or --start-at
 * differ, a shard is invalid, or their clock offsets against the common
 * reference differ by more than 1 s (a warning above 100 ms). */
#ifndef AOPS_MERGE_H
#define AOPS_MERGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#define MERGE_CLOCK_INVALID_S 1.0
#define MERGE_CLOCK_WARN_S 0.1

/* The merge proper, pure: n results (names[i] says where each came from, for
 * the reasons). Bad content becomes invalid_reasons, never a failure; NULL
 * only when out of memory. */
json_t *merge_results(json_t *const *in, const char *const *names, size_t n);

#endif
