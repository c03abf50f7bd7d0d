/* summary.c -- a result as a person reads it on stdout: the headline, each
 * workload's operations and latency, CPU, where the time went, warnings and
 * validity; and, for a merged result, one row per host. Printed from the
 * result's JSON, never from the run's state, so the summary and result.json
 * always agree (run, repeat and merge print the same way). */
#include <math.h>
#include <stdio.h>

#include "../common/json.h"
#include "../telemetry/attrib.h"
#include "../workloads/workload.h"
#include "repeat.h"
#include "slo.h"
#include "summary.h"

/* "12.345" or "-" for a figure that could not be measured. */
static const char *fmt(char *buf, size_t len, const char *f, double x) {
    if (isnan(x))
        return "-";
    snprintf(buf, len, f, x);
    return buf;
}

void results_print_summary(const json_t *res, const char *dir, FILE *f) {
    char b[6][32];
    const json_t *cfg = json_object_get(res, "config");
    fprintf(f, "\naops-harness: %lld containers, profile %s, %lld cycle(s), %s schedule\n",
            json_integer_value(json_object_get(cfg, "containers")),
            json_string_value(json_object_get(cfg, "profile")),
            json_integer_value(json_object_get(cfg, "cycles")),
            json_string_value(json_object_get(cfg, "schedule")));
    fprintf(f, "  operations  %.0f completed, %.0f errors, in %s s\n", jnum(res, "totals.ops"),
            jnum(res, "totals.errors"),
            fmt(b[0], sizeof b[0], "%.3f", jnum(res, "totals.wall_seconds")));
    double apw = jnum(res, "totals.aops_per_watt");
    double app = jnum(res, "totals.aops_per_watt_platform");
    char spread[160], plat[64] = "";
    if (isfinite(app)) /* at the wall, where the machine has a meter: its own figure */
        snprintf(plat, sizeof plat, " (package), %s (platform)",
                 fmt(b[3], sizeof b[3], "%.4f", app));
    if (repeat_headline(res, spread, sizeof spread) == 0) /* the median run's, with the spread */
        fprintf(f, "  %s\n  per core    %s   per watt %s%s\n", spread,
                fmt(b[1], sizeof b[1], "%.2f", jnum(res, "totals.aops_per_core")),
                isnan(apw) ? "unavailable" : fmt(b[2], sizeof b[2], "%.4f", apw), plat);
    else
        fprintf(f, "  AOPS        %s   per core %s   per watt %s%s\n",
                fmt(b[0], sizeof b[0], "%.2f", jnum(res, "totals.aops")),
                fmt(b[1], sizeof b[1], "%.2f", jnum(res, "totals.aops_per_core")),
                isnan(apw) ? "unavailable" : fmt(b[2], sizeof b[2], "%.4f", apw), plat);
    double wu = jnum(res, "config.warmup_cycles");
    if (wu > 0) {
        double lo = INFINITY, hi = -INFINITY;
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(res, "containers"), i, c) {
            double s = jnum(c, "warmup_seconds");
            if (isfinite(s))
                lo = fmin(lo, s), hi = fmax(hi, s);
        }
        fprintf(f, "  warm-up     %.0f cycle(s) per container before the start, not counted", wu);
        if (isfinite(lo))
            fprintf(f, ": %.2f-%.2f s", lo, hi);
        fputc('\n', f);
    }
    const json_t *wls = json_object_get(res, "workloads");
    const char *name;
    const json_t *w;
    fprintf(f, "  %-8s %10s %7s %10s %10s %10s %10s\n", "workload", "ops", "errors", "mean ms",
            "p95 ms", "p99 ms", "max ms");
    json_object_foreach((json_t *)wls, name, w) {
        fprintf(f, "  %-8s %10.0f %7.0f %10s %10s %10s %10s\n", name, jnum(w, "ops"),
                jnum(w, "errors"), fmt(b[0], 32, "%.3f", jnum(w, "latency_ms.mean")),
                fmt(b[1], 32, "%.3f", jnum(w, "latency_ms.p95")),
                fmt(b[2], 32, "%.3f", jnum(w, "latency_ms.p99")),
                fmt(b[3], 32, "%.3f", jnum(w, "latency_ms.max")));
    }
    /* A paced run (issue 38): the table above is the response time. */
    const json_t *pc = json_object_get(res, "pacer");
    if (json_is_object(pc)) {
        const char *arr = json_string_value(json_object_get(pc, "arrival"));
        const char *think = json_string_value(json_object_get(pc, "think_time"));
        if (think)
            fprintf(f, "  paced       think time %s after each completion", think);
        else
            fprintf(f, "  paced       %s arrivals at %s/s per container, up to %s in flight",
                    arr ? arr : "?", fmt(b[0], 32, "%g", jnum(pc, "rate_per_s")),
                    fmt(b[1], 32, "%.0f", jnum(pc, "concurrency")));
        fprintf(f, ": latency is the response time (from the instant due)\n");
        json_object_foreach((json_t *)wls, name, w) {
            fprintf(f, "  %-8s service time ms (from the send): mean %s, p95 %s, p99 %s\n", name,
                    fmt(b[0], 32, "%.3f", jnum(w, "service_ms.mean")),
                    fmt(b[1], 32, "%.3f", jnum(w, "service_ms.p95")),
                    fmt(b[2], 32, "%.3f", jnum(w, "service_ms.p99")));
        }
        fprintf(f, "  pacer       sent late: p50 %s ms, p99 %s ms, max %s ms; %s %% over 1 ms\n",
                fmt(b[0], 32, "%.3f", jnum(pc, "lateness_ms.p50")),
                fmt(b[1], 32, "%.3f", jnum(pc, "lateness_ms.p99")),
                fmt(b[2], 32, "%.3f", jnum(pc, "lateness_ms.max")),
                fmt(b[3], 32, "%.1f", 100 * jnum(pc, "late_over_1ms_share")));
    }
    /* Each workload's own figures: its counters, then its other histograms. */
    json_object_foreach((json_t *)wls, name, w) {
        const struct workload *wl = workload_find(name);
        for (unsigned c = 0; wl && c < wl->ncounters; c++)
            fprintf(f, "  %-8s %s %.0f\n", name, wl->counters[c].title,
                    jnum(w, wl->counters[c].key));
        for (unsigned h = 0; wl && h < wl->nhists; h++) {
            const json_t *x = json_object_get(w, wl->hists[h].key);
            fprintf(f, "  %-8s %s ms: mean %s, p95 %s, p99 %s\n", name, wl->hists[h].title,
                    fmt(b[0], 32, "%.3f", jnum(x, "mean")), fmt(b[1], 32, "%.3f", jnum(x, "p95")),
                    fmt(b[2], 32, "%.3f", jnum(x, "p99")));
        }
    }
    slo_print(json_object_get(res, "slo"), f);
    const json_t *cpu = json_object_get(json_object_get(res, "telemetry"), "cpu_util");
    if (cpu && json_is_object(cpu))
        fprintf(f, "  CPU util    mean %s %%, peak %s %%\n",
                fmt(b[0], 32, "%.1f", jnum(cpu, "mean")), fmt(b[1], 32, "%.1f", jnum(cpu, "peak")));
    if (json_is_object(json_object_get(res, "stragglers")))
        fprintf(f, "  finish      median %s s, last %s s, tail share %s\n",
                fmt(b[0], 32, "%.3f", jnum(res, "stragglers.finish.median")),
                fmt(b[1], 32, "%.3f", jnum(res, "stragglers.finish.last")),
                fmt(b[2], 32, "%.3f", jnum(res, "stragglers.tail_share")));
    if (isfinite(jnum(res, "storage.served_from_disk"))) {
        /* A share of at most 100 %: past it, the disks read more than the
         * workloads were served (readahead, metadata, erasure-coded shards),
         * which is the ratio's to say, not the share's. */
        double served = jnum(res, "storage.served_from_disk");
        double per = jnum(res, "storage.disk_bytes_per_workload_byte");
        char more[96] = "";
        if (isfinite(per) && per > 1)
            snprintf(more, sizeof more, "; they read %.2f bytes for each byte served", per);
        fprintf(f,
                "  storage     the disks served %.1f %% of the bytes the workloads read (cache "
                "%s%s)\n",
                100 * (served > 1 ? 1 : served),
                jstr(res, "storage.cache") ? jstr(res, "storage.cache") : "asis", more);
    }
    attrib_print_summary(res, f);
    size_t i;
    const json_t *v;
    json_array_foreach(json_object_get(res, "warnings"), i, v)
        fprintf(f, "  warning: %s\n", json_string_value(v));
    if (json_is_true(json_object_get(res, "valid")))
        fprintf(f, "  valid: yes\n");
    else {
        fprintf(f, "  valid: NO\n");
        json_array_foreach(json_object_get(res, "invalid_reasons"), i, v)
            fprintf(f, "    - %s\n", json_string_value(v));
    }
    if (json_is_true(json_object_get(res, "reportable")))
        fprintf(f, "  reportable: yes\n");
    else if (json_is_boolean(json_object_get(res, "reportable"))) { /* null: not judged */
        const json_t *why = json_object_get(res, "nonreportable_reasons");
        fprintf(f, "  reportable: no (%zu reason%s)\n", json_array_size(why),
                json_array_size(why) == 1 ? "" : "s");
        json_array_foreach(why, i, v) fprintf(f, "    - %s\n", json_string_value(v));
    }
    fprintf(f, "  results: %s/result.json\n", dir);
}

void shards_print(const json_t *res, FILE *f) {
    const json_t *shards = json_object_get(res, "shards");
    if (!json_is_array(shards) || !json_array_size(shards))
        return;
    fprintf(f, "  per host (%zu shards on %.0f machine(s)):\n", json_array_size(shards),
            jnum(res, "system.hosts"));
    fprintf(f, "  %5s  %-20s %10s %10s %7s %10s %9s %20s %6s\n", "shard", "host", "containers",
            "ops", "errors", "AOPS", "wall s", "clock offset ms", "valid");
    size_t i;
    const json_t *s;
    json_array_foreach(shards, i, s) {
        char b[7][48];
        double off = jnum(s, "clock_offset_s"), unc = jnum(s, "clock_uncertainty_s");
        if (!isnan(off))
            snprintf(b[5], sizeof b[5], "%+.1f +- %.1f", off * 1000, isnan(unc) ? 0 : unc * 1000);
        else
            snprintf(b[5], sizeof b[5], "-");
        fprintf(f, "  %5s  %-20.20s %10s %10s %7s %10s %9s %20s %6s\n",
                fmt(b[0], 48, "%.0f", jnum(s, "shard")), jstr(s, "host") ? jstr(s, "host") : "?",
                fmt(b[1], 48, "%.0f", jnum(s, "containers")), fmt(b[2], 48, "%.0f", jnum(s, "ops")),
                fmt(b[3], 48, "%.0f", jnum(s, "errors")), fmt(b[4], 48, "%.2f", jnum(s, "aops")),
                fmt(b[6], 48, "%.3f", jnum(s, "wall_seconds")), b[5],
                json_is_true(json_object_get(s, "valid")) ? "yes" : "NO");
    }
}
