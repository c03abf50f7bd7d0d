/* pacer.c -- a paced run's pacer figures and its lateness verdict (see
 * pacer.h). Lateness is send - scheduled instant of every operation that
 * ran, an error included (it was sent all the same). */
#include "pacer.h"

#include "../common/json.h"
#include "results.h"

void pacer_config(const struct config *cfg, json_t *c) {
    int open = cfg->arrival != ARRIVAL_CLOSED;
    char think[96];
    think_format(&cfg->think, think, sizeof think);
    json_object_set_new(c, "arrival", json_string(arrival_name(cfg->arrival)));
    json_object_set_new(c, "agent_rate", json_num_or_null(cfg->agent_rate, open));
    json_object_set_new(c, "agent_concurrency",
                        open ? json_integer(cfg->agent_concurrency) : json_null());
    json_object_set_new(c, "think_time",
                        cfg->think.kind != THINK_NONE ? json_string(think) : json_null());
}

json_t *pacer_json(const struct run_ctx *r, const struct hist *late, json_t *warnings,
                   json_t *reasons) {
    const struct config *cfg = r->cfg;
    if (!r->lay.paced)
        return NULL;
    struct pacer_in in = {arrival_name(cfg->arrival),
                          cfg->arrival != ARRIVAL_CLOSED,
                          cfg->agent_rate,
                          cfg->n,
                          cfg->agent_concurrency,
                          "",
                          late,
                          late->count,
                          0,
                          0};
    char think[96] = "";
    if (cfg->think.kind != THINK_NONE)
        think_format(&cfg->think, think, sizeof think);
    in.think = think[0] ? think : NULL;
    for (unsigned i = 0; i < cfg->n; i++) {
        struct worker_slot *s = run_slot(r, i);
        in.late_1ms += s->late_1ms;
        in.queued += s->queued;
    }
    return pacer_build(&in, warnings, reasons);
}

json_t *pacer_build(const struct pacer_in *in, json_t *warnings, json_t *reasons) {
    const struct hist *late = in->late;
    uint64_t n = in->operations;
    double share = n ? (double)in->late_1ms / (double)n : 0,
           qshare = n ? (double)in->queued / (double)n : 0;
    int open = in->open;
    json_t *lat = late->count ? json_pack("{s:f, s:f, s:f, s:f}", "mean", hist_mean(late) / 1e6,
                                          "p50", (double)hist_quantile(late, 0.50) / 1e6, "p99",
                                          (double)hist_quantile(late, 0.99) / 1e6, "max",
                                          (double)late->max / 1e6)
                              : json_pack("{s:n, s:n, s:n, s:n}", "mean", "p50", "p99", "max");
    json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:I, s:o, s:f, s:o, s:{s:f, s:f}}", "arrival",
                          in->arrival, "rate_per_s", json_num_or_null(in->rate, open),
                          "offered_ops_per_s", json_num_or_null(in->rate * in->containers, open),
                          "concurrency", open ? json_integer(in->concurrency) : json_null(),
                          "think_time", in->think ? json_string(in->think) : json_null(),
                          "operations", (json_int_t)n, "lateness_ms", lat, "late_over_1ms_share",
                          share, "queued_share", open ? json_real(qshare) : json_null(), "bounds",
                          "warn_share", PACER_WARN_SHARE, "invalid_share", PACER_INVALID_SHARE);
    /* Why it was late says what to change: all slots busy (a queue in the
     * worker: more --agent-concurrency, or the server is saturated at this
     * rate), or the sender itself (a machine too loaded to wake it). */
    char why[320];
    if (open)
        snprintf(why, sizeof why,
                 "%.1f %% of operations found all %u --agent-concurrency slots busy (the server "
                 "is slower than the rate, or the slots too few), the rest of the late ones the "
                 "sender woke late (a machine too loaded to pace)",
                 100 * qshare, in->concurrency);
    else
        snprintf(why, sizeof why, "the think times ended late (a machine too loaded to pace)");
    double p99 = late->count ? (double)hist_quantile(late, 0.99) / 1e6 : 0;
    if (share > PACER_INVALID_SHARE)
        json_array_append_new(
            reasons, json_sprintf("the pacer fell behind: %.1f %% of operations were sent more "
                                  "than 1 ms after their instant (bound %.0f %%; lateness p99 "
                                  "%.3g ms): %s",
                                  100 * share, 100 * PACER_INVALID_SHARE, p99, why));
    else if (share > PACER_WARN_SHARE)
        json_array_append_new(
            warnings,
            json_sprintf("the pacer fell behind: %.1f %% of operations were sent more "
                         "than 1 ms after their instant (warned past %.0f %%, invalid "
                         "past %.0f %%; lateness p99 %.3g ms): %s",
                         100 * share, 100 * PACER_WARN_SHARE, 100 * PACER_INVALID_SHARE, p99, why));
    return o;
}
