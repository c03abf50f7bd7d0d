/* testwl.c -- test-only workloads for the coordinator's own tests.
 *
 * "sleep" does 20 short sleeps per cycle (AOPS_SLEEP_US, default 1000 us);
 * "memhog" touches AOPS_MEMHOG_MB (default 64) more MiB per operation, so a
 * low --memory-limit gets it OOM-killed. AOPS_TEST_CRASH_WORKER=i makes
 * worker i die of SIGSEGV at its 5th operation, AOPS_TEST_HANG_WORKER=i makes
 * it stop making progress: the crash, stall and cleanup tests use them.
 * AOPS_TEST_SLOW_EXIT_MS=n makes every worker take n ms to close after its
 * last operation, as hundreds of containers being torn down do.
 * AOPS_TEST_SLOW_RUN=i makes the sleeps of run i of a --repeat three times
 * as long: a run made noisy on purpose, for the stability rule's test;
 * AOPS_TEST_WARMING=1 divides the sleeps of run i by i, so the runs' AOPS
 * rise as 1, 2, 3, ...: a trend, as caches warming give (the trend's test).
 * AOPS_SLEEP_PACED=1 sleeps to deadlines one AOPS_SLEEP_US apart instead,
 * so a late wake-up on a loaded machine is made up by the next operation
 * and equal runs stay equal (the stability rule's other test).
 * AOPS_SLEEP_PER_AGENT_US=u makes each sleep u us times the run's
 * containers: a latency that grows with the agents by a law known in
 * advance, so `harness capacity`'s knee can be worked out by hand. Both
 * are marked test_only: a run that uses them is never a valid benchmark. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/util.h"
#include "workload.h"

struct testwl {
    unsigned worker;
    long sleep_us;
    long memhog_mb;
    int crash, hang;
    long slow_exit_ms;
    int paced;
    int64_t next_ns; /* AOPS_SLEEP_PACED: the next deadline, CLOCK_MONOTONIC */
    unsigned done;
    void *chain; /* memhog's allocations, kept reachable so none is elided */
};

static long env_long(const char *name, long def) {
    const char *v = getenv(name);
    return v && *v ? atol(v) : def;
}

static int test_prepare(const struct config *cfg, char *err, size_t len) {
    (void)cfg, (void)err, (void)len;
    return 0;
}

static void *test_open(const struct config *cfg, unsigned worker, char *err, size_t len) {
    struct testwl *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->worker = worker;
    t->sleep_us = env_long("AOPS_SLEEP_US", 1000);
    if (cfg->repeat_index && env_long("AOPS_TEST_SLOW_RUN", 0) == (long)cfg->repeat_index)
        t->sleep_us *= 3;
    if (cfg->repeat_index && env_long("AOPS_TEST_WARMING", 0))
        t->sleep_us /= cfg->repeat_index;
    if (env_long("AOPS_SLEEP_PER_AGENT_US", 0) > 0)
        t->sleep_us = env_long("AOPS_SLEEP_PER_AGENT_US", 0) * (long)cfg->n;
    t->memhog_mb = env_long("AOPS_MEMHOG_MB", 64);
    t->paced = env_long("AOPS_SLEEP_PACED", 0) != 0;
    t->crash = env_long("AOPS_TEST_CRASH_WORKER", -1) == (long)worker;
    t->hang = env_long("AOPS_TEST_HANG_WORKER", -1) == (long)worker;
    t->slow_exit_ms = env_long("AOPS_TEST_SLOW_EXIT_MS", 0);
    if (env_long("AOPS_TEST_OPEN_FAIL", 0)) {
        snprintf(err, len, "test workload told to fail at open");
        free(t);
        return NULL;
    }
    return t;
}

static void faults(struct testwl *t) {
    if (++t->done == 5) {
        if (t->crash)
            raise(SIGSEGV);
        if (t->hang)
            for (;;)
                pause();
    }
}

static int sleep_run(void *st, unsigned cycle, unsigned op, struct op_result *res) {
    (void)cycle, (void)op, (void)res;
    struct testwl *t = st;
    faults(t);
    if (t->paced) {
        /* From the first operation on (or after a gap longer than a sleep,
         * such as the start barrier), every sleep ends on its deadline. */
        int64_t now = now_ns(), step = (int64_t)t->sleep_us * 1000;
        if (!t->next_ns || now - t->next_ns > step)
            t->next_ns = now;
        t->next_ns += step;
        struct timespec ts = {t->next_ns / 1000000000, t->next_ns % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
        return 0;
    }
    struct timespec ts = {t->sleep_us / 1000000, (t->sleep_us % 1000000) * 1000};
    nanosleep(&ts, NULL);
    return 0;
}

static int memhog_run(void *st, unsigned cycle, unsigned op, struct op_result *res) {
    (void)cycle, (void)op;
    struct testwl *t = st;
    faults(t);
    size_t n = (size_t)t->memhog_mb << 20;
    char *p = malloc(n); /* kept on purpose: the point is to grow */
    if (!p) {
        snprintf(res->err, sizeof res->err, "malloc of %ld MiB failed", t->memhog_mb);
        return -1;
    }
    memset(p, 0xa5, n);
    *(void **)p = t->chain;
    t->chain = p;
    res->count[0] = n;
    return 0;
}

static void test_close(void *st) {
    struct testwl *t = st;
    if (t && t->slow_exit_ms > 0)
        nanosleep(&(struct timespec){t->slow_exit_ms / 1000, (t->slow_exit_ms % 1000) * 1000000},
                  NULL);
    free(st);
}

const struct workload sleep_workload = {
    .name = "sleep",
    .title = "sleep (test)",
    .ops_per_cycle = 20,
    .test_only = 1,
    .prepare = test_prepare,
    .open = test_open,
    .run = sleep_run,
    .close = test_close,
};

static const struct wl_counter memhog_counters[] = {{"bytes", "bytes touched", WL_BYTES}};

const struct workload memhog_workload = {
    .name = "memhog",
    .title = "memhog (test)",
    .ops_per_cycle = 20,
    .test_only = 1,
    .counters = memhog_counters,
    .ncounters = 1,
    .prepare = test_prepare,
    .open = test_open,
    .run = memhog_run,
    .close = test_close,
};
