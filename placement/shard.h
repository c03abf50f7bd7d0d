/* shard.h -- one host's share of a run over several hosts.
 *
 * `harness run --shard I/N --start-at T` runs --containers workers here with
 * global ids from I x --containers (so object keys and seeds never collide
 * with another host's), releases them at T by the wall clock once all are
 * ready (a shard ready after T ends at once, invalid: it missed the start),
 * optionally waits first until the N shards' DNS names resolve
 * (--rendezvous), measures this host's clock against the server the run
 * already talks to, and records all of it in result.json's "shard" block;
 * with --results-url it also puts result.json into the store, where
 * `harness merge` finds every shard's (merge.h).
 *
 * Nothing here knows a workload: the store and the clock reference are the
 * hooks of whichever workload offers them (workload.h). */
#ifndef AOPS_SHARD_H
#define AOPS_SHARD_H

#include <jansson.h>
#include <stddef.h>

#include "../common/config.h"
#include "../workloads/workload.h"

struct shard_state {
    char host[256];
    char boot_id[64]; /* the kernel's: shards on one machine share it */
    int clock_ok;
    struct wl_clock clock;
    char clock_err[256];
    double clock_at;     /* when it was measured, epoch s */
    double ready_at;     /* every local worker ready, epoch s; 0 before */
    double rendezvous_s; /* how long the peers took to resolve; < 0 not asked */
    double missed_by;    /* > 0: ready this many seconds after --start-at */
    char key[1400];      /* where result.json goes in the store ("" without --results-url) */
};

/* The run's shard options hang together (exit 2 otherwise): --shard I/N with
 * N > 1 needs --start-at, no sweep, --rendezvous has {i}, --peers matches,
 * --results-url names a known store. 0, or -1 with err. */
int shard_check(const struct config *cfg, char *err, size_t errlen);
/* prepare takes none of them: it covers every shard at once. */
int shard_check_prepare(const struct config *cfg, char *err, size_t errlen);

/* Host name, boot id, the store key. */
void shard_init(struct shard_state *s, const struct config *cfg);
/* Ask the reference clock: the results store's workload, else the first
 * running workload that has one. Failure is recorded, not fatal. */
void shard_measure_clock(struct shard_state *s, const struct config *cfg);

/* One round of --rendezvous: resolve each name not resolved yet (resolved[i]
 * set as they do). Returns how many are still missing; the first of them
 * into first. */
unsigned shard_resolve_round(const struct config *cfg, unsigned char *resolved, char *first,
                             size_t len);

/* result.json's "shard" block; reads the config hash off res.config. */
json_t *shard_json(const struct shard_state *s, const struct config *cfg, const json_t *res,
                   double released_at);
/* Put result.json at the store key. 0, or -1 with err. */
int shard_upload(const struct shard_state *s, const struct config *cfg, const json_t *res,
                 char *err, size_t errlen);

/* "fnv1a64:<hex>" of config as every shard must share it: without what
 * differs by host alone (its cgroup path, corpus and patterns paths). */
void config_hash(const json_t *config, char *out, size_t len);

#endif
