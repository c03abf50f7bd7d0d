/* phasebar.h -- --phase-barrier: every worker finishes phase X of cycle k
 * before any worker starts the next phase, so each window holds one
 * workload alone.
 *
 * Barrier b (1, 2, ...) sits before each phase but the first. A worker that
 * reaches it records b in its slot, writes one byte on the ready channel to
 * wake the coordinator, and waits on a futex in its slot. The coordinator
 * releases b once every worker has reached it or ended (a dead worker never
 * holds the others), storing b in every slot and waking each. The futex
 * words live in the shared slots (an anonymous shared mapping, or the tmpfs
 * file containers map), so this works for forked workers and containers
 * alike. The waits are part of the run: AOPS includes them. */
#ifndef AOPS_PHASEBAR_H
#define AOPS_PHASEBAR_H

#include <stdint.h>

#include "../result/run.h"

/* Worker side: wait at barrier b. Returns 0 when released, -1 when the
 * coordinator is gone (the ready channel is closed). */
int phasebar_wait(const struct run_ctx *r, struct worker_slot *s, uint32_t b);

/* Coordinator side: release every barrier that all n workers have reached
 * or left behind (reaped, done or failed). *next is the next barrier to
 * release (start it at 1). Returns how many were released. */
unsigned phasebar_poll(const struct run_ctx *r, const struct worker_end *we, unsigned n,
                       uint32_t *next);

#endif
