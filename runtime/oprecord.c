/* oprecord.c -- one finished operation into its worker's slot (see
 * oprecord.h). Response time (due to done) goes into the latency
 * histograms, the headline; in a paced run the service time (sent to done)
 * goes into histograms of its own and the lateness (due to sent) into the
 * pacer's. In a closed loop due is sent, so latency is what it always was. */
#include "oprecord.h"

#include <stdio.h>

void op_reset(struct op_result *res) {
    memset(res->count, 0, sizeof res->count);
    for (unsigned h = 0; h < WL_MAX_HISTS; h++)
        res->hist_ns[h] = -1;
    res->klass = -1;
    res->fatal = 0;
    res->err[0] = 0;
}

static uint64_t span(int64_t from, int64_t to) {
    return to > from ? (uint64_t)(to - from) : 0;
}

void op_record(const struct run_ctx *r, struct worker_slot *s, unsigned gid, size_t k,
               unsigned cycle, unsigned w, unsigned op, const struct op_times *t, int rc,
               const struct op_result *res, int queued) {
    const struct run_layout *lay = &r->lay;
    const struct workload *wl = lay->wl[w];
    struct wl_stats *ws = &s->wl[w];
    struct phase_iv *ph = slot_phase(r, s, cycle, w);
    /* The paced threads finish out of order: first and last by value. */
    if (!ws->first_start || t->sent < ws->first_start)
        ws->first_start = t->sent;
    if (t->done > ws->last_end)
        ws->last_end = t->done;
    if (!ph->start || t->sent < ph->start)
        ph->start = t->sent;
    if (t->done > ph->end)
        ph->end = t->done;
    if (t->done > s->end_ns)
        s->end_ns = t->done;
    if (lay->paced) {
        uint64_t late = span(t->sched, t->sent);
        hist_add(slot_hist(r, s, lay->hist_late), late);
        s->late_1ms += late > 1000000;
        s->queued += queued != 0;
    }
    int k_ok = res->klass >= 0 && (unsigned)res->klass < wl->nclasses;
    if (rc == 0) {
        ws->ops++;
        for (unsigned c = 0; c < wl->ncounters; c++)
            ws->count[c] += res->count[c];
        uint64_t resp = span(t->sched, t->done), svc = span(t->sent, t->done);
        hist_add(slot_hist(r, s, lay_hist_lat(lay, w)), resp);
        if (lay->paced)
            hist_add(slot_hist(r, s, lay_hist_svc(lay, w)), svc);
        for (unsigned h = 0; h < wl->nhists; h++)
            if (res->hist_ns[h] >= 0)
                hist_add(slot_hist(r, s, lay_hist_extra(lay, w, h)), (uint64_t)res->hist_ns[h]);
        if (k_ok) {
            ws->class_ops[res->klass]++;
            for (unsigned c = 0; c < wl->ncounters; c++)
                ws->class_count[res->klass][c] += res->count[c];
            hist_add(slot_hist(r, s, lay_hist_class(lay, w, (unsigned)res->klass)), resp);
            if (lay->paced)
                hist_add(slot_hist(r, s, lay_hist_svc_class(lay, w, (unsigned)res->klass)), svc);
        }
    } else {
        ws->errors++;
        if (k_ok)
            ws->class_errors[res->klass]++;
        if (!s->error[0])
            snprintf(s->error, sizeof s->error, "%s: %s", wl->name,
                     res->err[0] ? res->err : "operation failed");
    }
    slot_log(r, s)[k] =
        (struct oplog_rec){t->sent,
                           t->done,
                           res->count[0],
                           gid,
                           (uint16_t)op,
                           (uint8_t)w,
                           (uint8_t)((k_ok ? res->klass : OPLOG_NO_CLASS) | (rc ? OPLOG_ERROR : 0)),
                           t->sched};
    atomic_fetch_add_explicit(&s->done, 1, memory_order_relaxed);
}
