/* policy.h -- the run's cache policy and phase barrier, around the start.
 *
 * --cache asis (the default) runs on whatever the page cache and the
 * servers hold; --warmup-cycles is the warm policy. --cache cold makes the
 * storage figures those of the drives: before the workers start, each
 * workload's server empties its own caches (cold_start: the local stack's
 * MariaDB is restarted, so its buffer pool is empty); once every worker is
 * ready and just before the release, dirty pages are written back (sync)
 * and the page cache is dropped (/proc/sys/vm/drop_caches). Dropping needs
 * root, checked before anything starts. */
#ifndef AOPS_POLICY_H
#define AOPS_POLICY_H

#include <jansson.h>
#include <stddef.h>

#include "../common/config.h"

/* Usage errors of --cache and --phase-barrier, before anything starts:
 * cold without root, cold with --warmup-cycles, a barrier between phases
 * of an interleaved schedule. 0, or -1 with one line in err. */
int policy_check(const struct config *cfg, char *err, size_t errlen);

/* --cache cold, before the run's setup: every workload's cold_start.
 * Returns the record for config.cache_cold (NULL with --cache asis);
 * failures become warnings. */
json_t *policy_cold_servers(const struct config *cfg, json_t *warnings);

/* --cache cold, once every worker is ready: sync and drop the page cache,
 * recorded in cold (from policy_cold_servers). 0, or -1 with err (the run
 * is then not what was asked for: invalid). */
int policy_drop_caches(const struct config *cfg, json_t *cold, char *err, size_t errlen);

#endif
