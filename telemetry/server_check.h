/* server_check.h -- the server agrees with the client: each workload's
 * server counts what it was asked (MariaDB's Com_select, MinIO's GetObject
 * requests, through the workload's server_count hook), read once with every
 * worker ready and once after the last one ended, outside the measured
 * loop. A count the workload marks for comparison must reach the operations
 * the workers completed; a shortfall is a warning naming both numbers (the
 * requests went elsewhere, or the server lost count), never a verdict on
 * validity. More than completed is normal when other clients share the
 * server. */
#ifndef AOPS_SERVER_CHECK_H
#define AOPS_SERVER_CHECK_H

#include <jansson.h>

#include "../common/config.h"
#include "../workloads/workload.h"

struct server_check;

/* For those of the run's workloads wl[0..nwl) that have a server_count
 * hook. NULL when out of memory. */
struct server_check *server_check_new(const struct config *cfg, const struct workload *const *wl,
                                      unsigned nwl);
void server_check_before(struct server_check *sc);
void server_check_after(struct server_check *sc);

/* server_counts{<workload>{<count>{before, after, delta}, completed,
 * agrees}} and server_counts_unavailable{<workload>: reason} (new objects,
 * empty when no workload's server counts, for the result to place:
 * result/) against a built result's workloads.<w>.ops, and a warning per
 * shortfall into warnings. */
void server_check_results(const struct server_check *sc, const json_t *result, json_t *warnings,
                          json_t **counts, json_t **unavailable);

void server_check_free(struct server_check *sc);

#endif
