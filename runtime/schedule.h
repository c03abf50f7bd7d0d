/* schedule.h -- the order of a worker's operations, fixed by seed and schedule.
 *
 * A schedule entry packs the workload's slot (its index among the run's
 * workloads) and the operation index within that workload's cycle. Phased:
 * each workload's block in seeded order, blocks in the run's workload order
 * (the registry's: objects, then queries, then code), as the published AMD/Micron
 * benchmark ran it.
 * Interleaved: all of a cycle's operations shuffled together. Each cycle and
 * each worker gets its own shuffle; the same seed always gives the same order. */
#ifndef AOPS_SCHEDULE_H
#define AOPS_SCHEDULE_H

#include <stdint.h>

#include "../common/config.h"

#define SCHED_OP(e) ((e)&0xffffffu)
#define SCHED_WL(e) ((e) >> 24)
#define SCHED_ENTRY(wl, op) (((uint32_t)(wl) << 24) | (uint32_t)(op))

/* Fills out[] (capacity cycles * sum(ops)) for one cycle `cycle` of worker
 * `worker`; ops[i] is workload slot i's operations per cycle. Returns the
 * number of entries written. */
unsigned schedule_cycle(uint32_t *out, const unsigned *ops, unsigned nwl, enum schedule s,
                        uint64_t seed, unsigned worker, unsigned cycle);

#endif
