/* pacer.h -- result.json's "pacer" of a paced run (--arrival, --think-time;
 * common/pacing.h): what was offered and how late the sender was, and the
 * two bounds on that lateness the run is judged by. */
#ifndef AOPS_RESULT_PACER_H
#define AOPS_RESULT_PACER_H

#include <jansson.h>

#include "run.h"

/* Past this share of operations sent more than 1 ms after their instant a
 * paced run warns: its response-time p99 may then hold the sender's own
 * delay, not the server's. Past the second the run is invalid: a tenth of
 * what it claims to offer was not offered at the stated instants. */
#define PACER_WARN_SHARE 0.01
#define PACER_INVALID_SHARE 0.10

/* The pacer object from the merged lateness histogram and the slots'
 * counts (NULL for a closed-loop run: no key); appends to warnings and
 * reasons by the bounds above. */
json_t *pacer_json(const struct run_ctx *r, const struct hist *late, json_t *warnings,
                   json_t *reasons);

/* The config keys of the pacing options (config.arrival, agent_rate,
 * agent_concurrency, think_time), into c: every run has them. */
void pacer_config(const struct config *cfg, json_t *c);

#endif
