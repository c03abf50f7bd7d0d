/* paced.c -- paced agents inside one worker (see paced.h).
 *
 * The instants are fixed before the barrier; here each thread takes the
 * next operation from a shared counter and sleeps to its instant with
 * clock_nanosleep(TIMER_ABSTIME), so a wake-up late by some microseconds is
 * never carried into the next instant (no drift). An operation whose
 * instant has passed when a thread takes it found every slot busy: it is
 * sent at once, and its wait counts in its response time, which runs from
 * the instant (no coordinated omission, as wrk2). The figures go through
 * op_record() under one lock per worker: a few hundred ns against an
 * operation of tens of microseconds at least. */
#include "paced.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../common/util.h"
#include "oprecord.h"
#include "schedule.h"

struct shared {
    struct paced_run *p;
    int64_t t0;
    _Atomic size_t next;
    _Atomic int stop;
    pthread_mutex_t mu;
};

struct thr {
    struct shared *sh;
    unsigned i;
};

static void sleep_until(int64_t at) {
    struct timespec ts = {at / 1000000000, at % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static void *agent(void *arg) {
    struct thr *t = arg;
    struct shared *sh = t->sh;
    struct paced_run *p = sh->p;
    const struct run_ctx *r = p->r;
    unsigned per_cycle = r->lay.ops_per_cycle;
    struct op_result res;
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        size_t k = atomic_fetch_add(&sh->next, 1);
        if (k >= p->total)
            break;
        int64_t due = sh->t0 + p->due[k];
        int queued = now_ns() > due;
        if (!queued)
            sleep_until(due);
        unsigned cycle = (unsigned)(k / per_cycle);
        unsigned w = SCHED_WL(p->order[k]), op = SCHED_OP(p->order[k]);
        op_reset(&res);
        struct op_times tm = {due, now_ns(), 0};
        int rc = r->lay.wl[w]->run(p->st[t->i][w], cycle, op, &res);
        tm.done = now_ns();
        pthread_mutex_lock(&sh->mu);
        op_record(r, p->s, p->gid, k, cycle, w, op, &tm, rc, &res, queued);
        if (rc != 0 && res.fatal) {
            p->s->fatal = 1;
            atomic_store(&sh->stop, 1);
        }
        pthread_mutex_unlock(&sh->mu);
    }
    return NULL;
}

int paced_run(struct paced_run *p, int64_t t0) {
    struct shared sh = {.p = p, .t0 = t0};
    atomic_init(&sh.next, 0);
    atomic_init(&sh.stop, 0);
    pthread_mutex_init(&sh.mu, NULL);
    pthread_t tid[1024];
    struct thr th[1024];
    unsigned started = 0;
    int rc = 0;
    for (unsigned i = 0; i < p->nthreads && i < 1024; i++) {
        th[i] = (struct thr){&sh, i};
        int e = pthread_create(&tid[i], NULL, agent, &th[i]);
        if (e) {
            /* Fewer agents than asked would queue what the run claims to
             * offer: stop the started ones and fail the worker. */
            atomic_store(&sh.stop, 1);
            pthread_mutex_lock(&sh.mu);
            snprintf(p->s->error, sizeof p->s->error, "paced agents: thread %u of %u: %s", i,
                     p->nthreads, strerror(e));
            pthread_mutex_unlock(&sh.mu);
            rc = -1;
            break;
        }
        started++;
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&sh.mu);
    if (rc == 0 && p->s->fatal)
        rc = 1;
    return rc;
}
