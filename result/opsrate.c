/* opsrate.c -- completions per wall-clock second (see opsrate.h). */
#include "opsrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void opsrate_begin(struct opsrate *o, int64_t t0, double t0_epoch) {
    opsrate_free(o);
    o->t0 = t0;
    o->t0_epoch = t0_epoch;
    o->start = floor(t0_epoch);
}

int64_t opsrate_due(const struct opsrate *o) {
    if (o->t0_epoch <= 0 || o->finished)
        return INT64_MAX;
    double boundary = o->start + (double)o->n + 1; /* end of second n */
    return o->t0 + (int64_t)((boundary - o->t0_epoch) * 1e9);
}

void opsrate_sample(struct opsrate *o, int64_t now, uint64_t completed) {
    while (!o->oom && now >= opsrate_due(o)) {
        if (o->n == o->cap) {
            size_t cap = o->cap ? o->cap * 2 : 256;
            uint64_t *c = realloc(o->cum, cap * sizeof *c);
            if (!c) {
                o->oom = 1; /* the series is then left out, never wrong */
                return;
            }
            o->cum = c;
            o->cap = cap;
        }
        o->cum[o->n++] = completed;
    }
}

void opsrate_finish(struct opsrate *o, uint64_t total, int64_t t_end) {
    o->total = total;
    o->t_end = t_end > o->t0 ? t_end : o->t0;
    o->finished = 1;
}

json_t *opsrate_json(const struct opsrate *o) {
    if (o->t0_epoch <= 0 || !o->finished || o->oom)
        return json_null();
    double end_epoch = o->t0_epoch + (double)(o->t_end - o->t0) / 1e9;
    size_t last = (size_t)(floor(end_epoch) - o->start); /* the second of the last completion */
    json_t *counts = json_array();
    uint64_t prev = 0;
    for (size_t k = 0; k <= last; k++) {
        uint64_t at = k < last && k < o->n ? o->cum[k] : k < last ? prev : o->total;
        if (at > o->total)
            at = o->total;
        json_array_append_new(counts, json_integer((json_int_t)(at - prev)));
        prev = at;
    }
    return json_pack("{s:I, s:o}", "start", (json_int_t)o->start, "counts", counts);
}

void opsrate_free(struct opsrate *o) {
    free(o->cum);
    memset(o, 0, sizeof *o);
}

uint64_t run_completed(const struct run_ctx *r, unsigned nworkers) {
    uint64_t sum = 0;
    for (unsigned i = 0; i < nworkers; i++) {
        struct worker_slot *s = run_slot(r, i);
        for (unsigned w = 0; w < r->lay.nwl; w++)
            sum += __atomic_load_n(&s->wl[w].ops, __ATOMIC_RELAXED);
    }
    return sum;
}

int64_t run_last_end(const struct run_ctx *r, unsigned nworkers) {
    int64_t t = 0;
    for (unsigned i = 0; i < nworkers; i++) {
        int64_t e = __atomic_load_n(&run_slot(r, i)->end_ns, __ATOMIC_RELAXED);
        if (e > t)
            t = e;
    }
    return t;
}
