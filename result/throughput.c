/* throughput.c -- per-interval operation counts from the workers' slots (see
 * throughput.h). A reading sums every slot's counters: a few loads per
 * worker and workload, done by the coordinator between its polls, never by
 * a worker. The slots are written by one worker each without locks; an
 * aligned 64-bit load sees either the old or the new value, and a value
 * read a little early is counted in the next interval instead. */
#include "throughput.h"

#include <stdio.h>

/* The columns in the order read_slots() fills them: per workload ops,
 * errors, then its byte counters. */
static unsigned columns(const struct run_layout *lay, struct tel_counter *c, unsigned max) {
    unsigned n = 0;
    for (unsigned w = 0; w < lay->nwl; w++) {
        const struct workload *wl = lay->wl[w];
        if (n + 2 > max)
            break;
        c[n++] = (struct tel_counter){wl->name, "ops", 1};
        c[n++] = (struct tel_counter){wl->name, "errors", 0};
        for (unsigned k = 0; k < wl->ncounters && n < max; k++)
            if (wl->counters[k].unit == WL_BYTES)
                c[n++] = (struct tel_counter){wl->name, wl->counters[k].key, 1};
    }
    return n;
}

static void read_slots(void *ctx, uint64_t *vals) {
    const struct run_ctx *r = ctx;
    const struct run_layout *lay = &r->lay;
    unsigned n = 0;
    for (unsigned w = 0; w < lay->nwl && n + 2 <= TEL_MAX_COUNTERS; w++) {
        const struct workload *wl = lay->wl[w];
        uint64_t ops = 0, errors = 0, bytes[WL_MAX_COUNTERS] = {0};
        for (unsigned i = 0; i < r->cfg->n; i++) {
            const struct wl_stats *s = &run_slot(r, i)->wl[w];
            ops += __atomic_load_n(&s->ops, __ATOMIC_RELAXED);
            errors += __atomic_load_n(&s->errors, __ATOMIC_RELAXED);
            for (unsigned k = 0; k < wl->ncounters; k++)
                bytes[k] += __atomic_load_n(&s->count[k], __ATOMIC_RELAXED);
        }
        vals[n++] = ops;
        vals[n++] = errors;
        for (unsigned k = 0; k < wl->ncounters && n < TEL_MAX_COUNTERS; k++)
            if (wl->counters[k].unit == WL_BYTES)
                vals[n++] = bytes[k];
    }
}

void throughput_attach(struct telemetry *t, const struct run_ctx *r) {
    struct tel_counter c[TEL_MAX_COUNTERS];
    unsigned n = columns(&r->lay, c, TEL_MAX_COUNTERS);
    telemetry_counters(t, "workloads", c, n, read_slots, (void *)r);
}

void throughput_short_run(const struct config *cfg, double wall_seconds, json_t *warnings) {
    if (!(wall_seconds > 0) || wall_seconds >= 10 * cfg->sample_interval)
        return;
    /* No duration in the text: the runs of a --repeat then say it once. */
    json_array_append_new(
        warnings, json_sprintf("short run: it lasted under 10 samples of --sample-interval %g s, "
                               "too few to read throughput over time from (run more --cycles or "
                               "lower --sample-interval)",
                               cfg->sample_interval));
}
