/* tick.c -- a test-only workload that proves the workload interface: this
 * file and its name in WORKLOADS (workload.h) are all it took to add it, and its
 * figures reach result.json, the summary, the report, CSV and compare
 * through its descriptor alone.
 *
 * Each of its 10 operations per cycle sleeps --tick-us microseconds (default
 * 200) and reports one counter (ticks: 1 per operation) and one histogram
 * (how much longer than asked the sleep took). Test-only: a run that uses
 * it is never a valid benchmark. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../common/util.h"
#include "workload.h"

struct tick_opts {
    unsigned us;
};

static void *tick_open(const struct config *cfg, unsigned worker, char *err, size_t len) {
    (void)worker;
    const struct tick_opts *o = workload_opts_at(cfg, WL_SLOT_tick);
    unsigned *us = malloc(sizeof *us);
    if (!us)
        snprintf(err, len, "out of memory");
    else
        *us = o->us;
    return us;
}

static int tick_run(void *st, unsigned cycle, unsigned op, struct op_result *res) {
    (void)cycle, (void)op;
    unsigned us = *(unsigned *)st;
    struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
    int64_t t = now_ns();
    nanosleep(&ts, NULL);
    int64_t over = now_ns() - t - (int64_t)us * 1000;
    res->count[0] = 1;
    res->hist_ns[0] = over > 0 ? over : 0;
    return 0;
}

static int tick_prepare(const struct config *cfg, char *err, size_t len) {
    (void)cfg, (void)err, (void)len;
    return 0;
}

static const struct opt_row tick_rows[] = {
    {"tick-us", OPT_UINT, offsetof(struct tick_opts, us), 0, 0, 1000000, "200", NULL, NULL, 0, NULL,
     "tick workload (test): microseconds each operation sleeps"},
};
static const struct wl_counter tick_counters[] = {{"ticks", "ticks", WL_COUNT}};
static const struct wl_hist tick_hists[] = {{"oversleep_ms", "oversleep"}};

const struct workload tick_workload = {
    .name = "tick",
    .title = "tick (test)",
    .ops_per_cycle = 10,
    .test_only = 1,
    .options = tick_rows,
    .noptions = 1,
    .opts_size = sizeof(struct tick_opts),
    .counters = tick_counters,
    .ncounters = 1,
    .hists = tick_hists,
    .nhists = 1,
    .prepare = tick_prepare,
    .open = tick_open,
    .run = tick_run,
    .close = free,
};
