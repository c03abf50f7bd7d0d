/* provenance.h -- result.json's provenance{build, libraries, data} and
 * verification{<workload>: {verified, how|why}}, collected once before the
 * run. (provenance.servers, the servers' versions and settings, is added
 * by the storage telemetry.) No secret is ever in it. */
#ifndef AOPS_PROVENANCE_H
#define AOPS_PROVENANCE_H

#include <jansson.h>

#include "run.h"

/* The provenance object; *verification gets one entry per workload of the
 * run with a provenance hook, and an "answers not verified" warning is
 * appended to warnings for each one that is not. */
json_t *provenance_collect(const struct config *cfg, const struct run_layout *lay,
                           json_t **verification, json_t *warnings);

#endif
