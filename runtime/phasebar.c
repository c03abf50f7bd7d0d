/* phasebar.c -- the phase barrier across workers (see phasebar.h). */
#include "phasebar.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts) {
    /* Not FUTEX_PRIVATE_FLAG: the waiters and the waker are other processes. */
    return syscall(SYS_futex, (uint32_t *)w, op, val, ts, NULL, 0);
}

int phasebar_wait(const struct run_ctx *r, struct worker_slot *s, uint32_t b) {
    atomic_store(&s->bar_arrived, b);
    char c = 'B';
    if (write(r->ready_fd, &c, 1) < 0 && errno == EPIPE)
        return -1;
    const struct timespec second = {1, 0};
    uint32_t go;
    while ((go = atomic_load(&s->bar_go)) < b) {
        /* A timed wait: a coordinator that died cannot leave us here (its
         * death kills forked workers; a container is removed). */
        futex(&s->bar_go, FUTEX_WAIT, go, &second);
    }
    return 0;
}

unsigned phasebar_poll(const struct run_ctx *r, const struct worker_end *we, unsigned n,
                       uint32_t *next) {
    unsigned released = 0;
    for (;;) {
        uint32_t b = *next;
        for (unsigned i = 0; i < n; i++) {
            struct worker_slot *s = run_slot(r, i);
            int ph = atomic_load(&s->phase);
            if (we[i].reaped || ph == PH_DONE || ph == PH_FAILED)
                continue;
            if (atomic_load(&s->bar_arrived) < b)
                return released;
        }
        /* Nobody left to wait for: nothing to release either. */
        int waiting = 0;
        for (unsigned i = 0; i < n; i++) {
            struct worker_slot *s = run_slot(r, i);
            if (atomic_load(&s->bar_arrived) >= b && atomic_load(&s->bar_go) < b) {
                atomic_store(&s->bar_go, b);
                futex(&s->bar_go, FUTEX_WAKE, INT_MAX, NULL);
                waiting = 1;
            }
        }
        if (!waiting)
            return released;
        (*next)++;
        released++;
    }
}
