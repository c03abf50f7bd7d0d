/* schedule.c -- seeded operation order for one worker's cycle (see schedule.h). */
#include "schedule.h"
#include "../common/util.h"

static void shuffle(uint32_t *a, unsigned n, struct rng *r) {
    for (unsigned i = n; i > 1; i--) {
        unsigned j = (unsigned)rng_below(r, i);
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

unsigned schedule_cycle(uint32_t *out, const unsigned *ops, unsigned nwl, enum schedule s,
                        uint64_t seed, unsigned worker, unsigned cycle) {
    struct rng r;
    /* Stream 1 is the schedule's: workloads use their own streams. */
    rng_seed(&r, seed, ((uint64_t)worker << 32) | cycle, 1);
    unsigned n = 0;
    for (unsigned w = 0; w < nwl; w++) {
        unsigned start = n;
        for (unsigned i = 0; i < ops[w]; i++)
            out[n++] = SCHED_ENTRY(w, i);
        if (s == SCHED_PHASED)
            shuffle(out + start, ops[w], &r);
    }
    if (s == SCHED_INTERLEAVED)
        shuffle(out, n, &r);
    return n;
}
