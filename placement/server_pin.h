/* server_pin.h -- --server-cpus: the run's servers pinned to their CPUs for
 * the run (see server_pin.c). */
#ifndef AOPS_SERVER_PIN_H
#define AOPS_SERVER_PIN_H

#include <jansson.h>
#include <stddef.h>

#include "../common/config.h"
#include "../result/run.h"

struct server_pin;

/* Before anything starts: every server of the run's workloads can be found
 * on this host. 0, or -1 with err (one line). Nothing to do without
 * --server-cpus. */
int server_pin_check(const struct config *cfg, const struct run_layout *lay, char *err,
                     size_t errlen);

/* Pin them; NULL without --server-cpus, or on failure with err set (what
 * was pinned is given back first). */
struct server_pin *server_pin_apply(const struct config *cfg, const struct run_layout *lay,
                                    char *err, size_t errlen);

/* placement.servers_pinned: {cpus, servers{<name>{source, processes, threads}}}
 * (a new reference, for results.c to place), or NULL when none was pinned. */
json_t *server_pin_results(const struct server_pin *sp);

/* Give every pinned process its own affinity back; frees sp. */
void server_pin_restore(struct server_pin *sp);

#endif
