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

/* What the pacer object is made of, from one run's slots or from the
 * shards of a merge (fleet/merge.c: their summed counts and merged
 * lateness histogram), so that both are built and judged by one function. */
struct pacer_in {
    const char *arrival; /* config.arrival's name */
    int open;            /* --arrival: an open loop at a rate (else a think time) */
    double rate;         /* --agent-rate per worker */
    unsigned containers; /* all of them: the offered rate is rate x containers */
    unsigned concurrency;
    const char *think;         /* --think-time as given, or NULL */
    const struct hist *late;   /* lateness; empty when not known (figures null) */
    uint64_t operations;       /* that were sent */
    uint64_t late_1ms, queued; /* of them: sent > 1 ms late; found every slot busy */
};
json_t *pacer_build(const struct pacer_in *in, json_t *warnings, json_t *reasons);

/* The config keys of the pacing options (config.arrival, agent_rate,
 * agent_concurrency, think_time), into c: every run has them. */
void pacer_config(const struct config *cfg, json_t *c);

#endif
