/* results.c -- merge the workers' slots into result.json (see results.h).
 *
 * Definitions follow SPEC.md: an operation that failed is an error, never a
 * completion; AOPS is completions over the seconds from barrier release to
 * the last completion; per-core AOPS divides by physical cores, not threads.
 * Latencies are reported in milliseconds from nanosecond histograms. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/json.h"
#include "../containers/cgroup.h"
#include "../result/result.h"
#include "figures.h"
#include "histjson.h"
#include "pacer.h"
#include "results.h"
#include "slo.h"
#include "throughput.h"
#include "windows.h"

json_t *results_latency_json(const struct hist *h) {
    if (!h->count)
        return json_pack("{s:n,s:n,s:n,s:n,s:n}", "mean", "p50", "p95", "p99", "max");
    return json_pack("{s:f,s:f,s:f,s:f,s:f}", "mean", hist_mean(h) / 1e6, "p50",
                     (double)hist_quantile(h, 0.50) / 1e6, "p95",
                     (double)hist_quantile(h, 0.95) / 1e6, "p99",
                     (double)hist_quantile(h, 0.99) / 1e6, "max", (double)h->max / 1e6);
}

/* A value another layer made and the caller handed in (borrowed): a new
 * reference to it, or null when none was. */
static json_t *handed(json_t *v) {
    return v ? json_incref(v) : json_null();
}

/* config: the harness's own settings, then each workload's part. */
static json_t *config_json(const struct config *cfg, const struct run_layout *lay,
                           const char *cgroups, json_t *warnings) {
    json_t *wl = json_array();
    for (unsigned w = 0; w < lay->nwl; w++)
        json_array_append_new(wl, json_string(lay->wl[w]->name));
    json_t *c = json_pack(
        "{s:i, s:s, s:i, s:I, s:s, s:o, s:o, s:o, s:f, s:f, s:f, s:s}", "containers", (int)cfg->n,
        "profile", profile_name(cfg->profile), "cycles", (int)cfg->cycles, "seed",
        (json_int_t)cfg->seed, "schedule", schedule_name(cfg->schedule), "memory_limit_bytes",
        cfg->no_cgroups ? json_null() : json_integer((json_int_t)cfg->memory_limit), "workloads",
        wl, "cpus_per_container",
        cfg->cpus_per_container > 0 ? json_real(cfg->cpus_per_container) : json_null(),
        "sample_interval", cfg->sample_interval, "stall_timeout", cfg->stall_timeout, "op_timeout",
        cfg->op_timeout, "cgroups", cgroups ? cgroups : "none (--no-cgroups)");
    json_object_set_new(c, "warmup_cycles", json_integer(cfg->warmup_cycles));
    json_object_set_new(c, "repeat", json_integer(cfg->repeat ? cfg->repeat : 1));
    json_object_set_new(c, "max_cv", json_real(cfg->max_cv));
    json_object_set_new(c, "runtime",
                        json_string(cfg->runtime == RUNTIME_DOCKER ? "docker" : "cgroup"));
    if (cfg->runtime == RUNTIME_DOCKER)
        json_object_set_new(c, "docker",
                            json_pack("{s:s, s:s, s:i}", "image", cfg->image, "network",
                                      cfg->container_network, "engine_connections",
                                      (int)cfg->engine_connections));
    pacer_config(cfg, c); /* paced agents (issue 38) */
    for (int i = 0; workload_table[i]; i++) {
        if (!workload_table[i]->describe)
            continue;
        json_t *part = workload_table[i]->describe(cfg, cfg->wl_mask >> i & 1, warnings);
        json_object_update(c, part);
        json_decref(part);
    }
    return c;
}

static const char *signame(int sig) {
    const char *s = sigabbrev_np(sig);
    return s ? s : "unknown";
}

/* a += b held at INT64_MAX (json_int_t's largest) instead of wrapping: a
 * merge adds counts read from files (fleet/merge.c), and a sum that wrapped
 * would read as a small, plausible figure. */
static void sat_add(uint64_t *a, uint64_t b) {
    if (__builtin_add_overflow(*a, b, a) || *a > (uint64_t)INT64_MAX)
        *a = (uint64_t)INT64_MAX;
}

void results_stats_add(struct wl_stats *a, const struct wl_stats *b) {
    sat_add(&a->ops, b->ops);
    sat_add(&a->errors, b->errors);
    for (unsigned c = 0; c < WL_MAX_COUNTERS; c++)
        sat_add(&a->count[c], b->count[c]);
    if (b->first_start && (!a->first_start || b->first_start < a->first_start))
        a->first_start = b->first_start;
    if (b->last_end > a->last_end)
        a->last_end = b->last_end;
    for (unsigned k = 0; k < WL_MAX_CLASSES; k++) {
        sat_add(&a->class_ops[k], b->class_ops[k]);
        sat_add(&a->class_errors[k], b->class_errors[k]);
        for (unsigned c = 0; c < WL_MAX_COUNTERS; c++)
            sat_add(&a->class_count[k][c], b->class_count[k][c]);
    }
}

int results_merge(const struct run_ctx *r, int64_t t0, struct run_totals *t) {
    const struct run_layout *lay = &r->lay;
    memset(t, 0, sizeof *t);
    t->nwl = lay->nwl;
    t->t_end = t0;
    t->hists = malloc(sizeof(struct hist) * (lay->nhist ? lay->nhist : 1));
    if (!t->hists)
        return -1;
    for (unsigned h = 0; h < lay->nhist; h++)
        hist_init(&t->hists[h]);
    for (unsigned i = 0; i < r->cfg->n; i++) {
        struct worker_slot *s = run_slot(r, i);
        for (unsigned w = 0; w < lay->nwl; w++)
            results_stats_add(&t->wl[w], &s->wl[w]);
        for (unsigned h = 0; h < lay->nhist; h++) {
            struct hist *src = slot_hist(r, s, h);
            if (src->count)
                hist_merge(&t->hists[h], src);
        }
        if (s->end_ns > t->t_end)
            t->t_end = s->end_ns;
    }
    for (unsigned w = 0; w < lay->nwl; w++) {
        t->ops += t->wl[w].ops;
        t->errors += t->wl[w].errors;
    }
    return 0;
}

void results_totals_free(struct run_totals *t) {
    free(t->hists);
    t->hists = NULL;
}

void results_judge(const struct verdict_in *v, json_t *reasons) {
    if (v->errors)
        json_array_append_new(
            reasons, json_sprintf("%llu operations failed", (unsigned long long)v->errors));
    if (v->released && v->ops + v->errors < v->expected)
        json_array_append_new(reasons,
                              json_sprintf("%llu of %llu operations never ran",
                                           (unsigned long long)(v->expected - v->ops - v->errors),
                                           (unsigned long long)v->expected));
    if (v->test_only)
        json_array_append_new(reasons, json_string("a test-only workload ran: not a benchmark"));
    else if (v->ops_per_cycle != v->full_cycle)
        json_array_append_new(
            reasons, json_sprintf("partial cycle (%u of %u operations per cycle, workloads: %s): "
                                  "AOPS is not comparable",
                                  v->ops_per_cycle, v->full_cycle, v->workloads));
}

int results_reason_of_config(const char *reason) {
    return reason && (!strncmp(reason, "a test-only workload ran", 24) ||
                      !strncmp(reason, "partial cycle (", 15));
}

/* A workload's declared counters of one stats block into o. */
static void counters_json(json_t *o, const struct workload *wl, const uint64_t *count) {
    for (unsigned c = 0; c < wl->ncounters; c++)
        json_object_set_new(o, wl->counters[c].key, json_integer((json_int_t)count[c]));
}

json_t *results_workload_json(const struct run_layout *lay, unsigned w, const struct wl_stats *t,
                              const struct hist *hists) {
    const struct workload *wl = lay->wl[w];
    json_t *o =
        json_pack("{s:I, s:I, s:o}", "ops", (json_int_t)t->ops, "errors", (json_int_t)t->errors,
                  "latency_ms", results_latency_json(&hists[lay_hist_lat(lay, w)]));
    /* Paced: latency_ms is the response time, service_ms from the send. */
    if (lay->paced)
        json_object_set_new(o, "service_ms", results_latency_json(&hists[lay_hist_svc(lay, w)]));
    counters_json(o, wl, t->count);
    for (unsigned h = 0; h < wl->nhists; h++)
        json_object_set_new(o, wl->hists[h].key,
                            results_latency_json(&hists[lay_hist_extra(lay, w, h)]));
    if (wl->nclasses) {
        json_t *cl = json_object();
        for (unsigned k = 0; k < wl->nclasses; k++) {
            json_t *x = json_pack("{s:I, s:I}", "ops", (json_int_t)t->class_ops[k], "errors",
                                  (json_int_t)t->class_errors[k]);
            counters_json(x, wl, t->class_count[k]);
            json_object_set_new(x, "latency_ms",
                                results_latency_json(&hists[lay_hist_class(lay, w, k)]));
            if (lay->paced)
                json_object_set_new(x, "service_ms",
                                    results_latency_json(&hists[lay_hist_svc_class(lay, w, k)]));
            json_object_set_new(cl, wl->class_names[k], x);
        }
        json_object_set_new(o, wl->classes_key ? wl->classes_key : "classes", cl);
    }
    return o;
}

static json_t *containers_json(const struct run_report *rep) {
    const struct run_ctx *r = rep->r;
    const struct run_layout *lay = &r->lay;
    json_t *containers = json_array();
    for (unsigned i = 0; i < r->cfg->n; i++) {
        struct worker_slot *s = run_slot(r, i);
        const struct worker_end *we = &rep->workers[i];
        uint64_t cops = 0, cerr = 0;
        json_t *means = json_object();
        for (unsigned w = 0; w < lay->nwl; w++) {
            cops += s->wl[w].ops;
            cerr += s->wl[w].errors;
            const struct hist *h = slot_hist(r, s, lay_hist_lat(lay, w));
            json_object_set_new(means, lay->wl[w]->name,
                                h->count ? json_real(hist_mean(h) / 1e6) : json_null());
        }
        unsigned id = r->id_base + i; /* global: unique across the shards of a run */
        json_t *c = json_pack(
            "{s:i, s:I, s:I, s:o, s:o, s:o, s:o}", "id", (int)id, "ops", (json_int_t)cops, "errors",
            (json_int_t)cerr, "seconds",
            rep->released && s->end_ns > rep->t0 ? json_real((double)(s->end_ns - rep->t0) / 1e9)
                                                 : json_null(),
            "exit_status",
            we->reaped && WIFEXITED(we->status) ? json_integer(WEXITSTATUS(we->status))
                                                : json_null(),
            "oom_killed", we->oom_killed < 0 ? json_null() : json_boolean(we->oom_killed),
            "latency_ms_mean", means);
        if (we->reaped && WIFSIGNALED(we->status))
            json_object_set_new(c, "signal", json_sprintf("SIG%s", signame(WTERMSIG(we->status))));
        if (s->error[0])
            json_object_set_new(c, "error", json_sprintf("%.*s", SLOT_TEXT(s->error)));
        if (r->cfg->warmup_cycles) {
            json_object_set_new(c, "warmup_seconds",
                                json_num_or_null((double)s->warmup_ns / 1e9, s->warmup_ns > 0));
            json_object_set_new(c, "warmup_ops", json_integer((json_int_t)s->warmup_done));
            json_object_set_new(c, "warmup_errors", json_integer((json_int_t)s->warmup_errors));
            if (s->warmup_errors)
                json_array_append_new(rep->warnings,
                                      json_sprintf("container %u: %llu warm-up operations failed "
                                                   "(not counted), first: %.*s",
                                                   i, (unsigned long long)s->warmup_errors,
                                                   SLOT_TEXT(s->warmup_error)));
        }
        if (we->runtime_id[0])
            json_object_set_new(c, "runtime_id", json_string(we->runtime_id));
        json_object_set_new(c, "memory_includes_swap",
                            r->swap_limited < 0 ? json_null() : json_boolean(r->swap_limited));
        json_object_update(c, json_array_get(rep->container_placement, i));
        json_array_append_new(containers, c);
    }
    return containers;
}

json_t *results_build(const struct run_report *rep) {
    const struct run_ctx *r = rep->r;
    const struct config *cfg = r->cfg;
    const struct run_layout *lay = &r->lay;
    json_t *reasons = rep->reasons, *warnings = rep->warnings;

    struct run_totals tot;
    if (results_merge(r, rep->t0, &tot) != 0)
        return NULL;
    int test_only = 0;
    for (unsigned w = 0; w < lay->nwl; w++)
        test_only |= lay->wl[w]->test_only;
    uint64_t expected = (uint64_t)cfg->n * cfg->cycles * lay->ops_per_cycle;
    struct verdict_in v = {tot.ops,
                           tot.errors,
                           expected,
                           rep->released,
                           test_only,
                           lay->ops_per_cycle,
                           workloads_full_cycle(),
                           cfg->workloads[0] ? cfg->workloads : "all"};
    results_judge(&v, reasons);
    /* Paced agents (issue 38): how late the sender was, judged by its bounds. */
    json_t *pacer =
        lay->paced ? pacer_json(r, &tot.hists[lay->hist_late], warnings, reasons) : NULL;
    if (cfg->no_cgroups)
        json_array_append_new(warnings,
                              json_string("--no-cgroups: workers ran without memory limits"));
    char swapw[256];
    if (cgroups_swap_warning(r->swap_limited, cfg->sysroot[0] ? cfg->sysroot : "/", swapw,
                             sizeof swapw))
        json_array_append_new(warnings, json_string(swapw));

    json_t *workloads = json_object();
    for (unsigned w = 0; w < lay->nwl; w++)
        json_object_set_new(workloads, lay->wl[w]->name,
                            results_workload_json(lay, w, &tot.wl[w], tot.hists));
    double wall = rep->released ? (double)(tot.t_end - rep->t0) / 1e9 : 0;
    if (rep->released) /* every run figure covers [release, last completion] */
        telemetry_set_span(rep->tel, 0, wall);
    json_t *windows = windows_build(rep);

    json_t *config = config_json(cfg, lay, rep->cgroups, warnings);
    json_object_set_new(config, "placement", handed(rep->placement_config));
    json_t *system = inventory_json(cfg, warnings);
    if (rep->servers)
        json_object_set(system, "backends", rep->servers);
    int cores = inventory_physical_cores(cfg);
    double aops = wall > 0 ? (double)tot.ops / wall : 0;
    throughput_short_run(cfg, wall, warnings);
    telemetry_power_warnings(rep->tel, warnings);
    double watts = rep->tel ? telemetry_mean_power(rep->tel) : -1;
    double pwatts = rep->tel ? telemetry_mean_platform_power(rep->tel) : -1;
    json_t *totals = json_pack(
        "{s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "ops", (json_int_t)tot.ops, "errors",
        (json_int_t)tot.errors, "expected_ops", (json_int_t)expected, "wall_seconds",
        json_num_or_null(wall, rep->released), "aops", json_num_or_null(aops, wall > 0),
        "aops_per_core", json_num_or_null(aops / cores, wall > 0 && cores > 0), "aops_per_watt",
        json_num_or_null(aops / watts, wall > 0 && watts > 0), "aops_per_watt_platform",
        json_num_or_null(aops / pwatts, wall > 0 && pwatts > 0));

    json_t *res = result_begin(reasons, warnings);
    if (!res) {
        json_decref(pacer);
        results_totals_free(&tot);
        return NULL;
    }
    figures_config(rep, config);
    result_put(res, RK_CONFIG, config, NULL);
    result_put(res, RK_SYSTEM, system, NULL);
    result_put(res, RK_TOTALS, totals, NULL);
    result_put(res, RK_WORKLOADS, workloads, NULL);
    if (pacer)
        result_put(res, RK_PACER, pacer, NULL);
    result_put(res, RK_CONTAINERS, containers_json(rep), NULL);
    result_put(res, RK_WINDOWS, windows, NULL);
    result_put(res, RK_TELEMETRY, rep->tel ? telemetry_json(rep->tel) : NULL,
               "telemetry could not start (out of memory)");
    result_put(res, RK_STORAGE_BASELINE, telemetry_baseline_json(rep->tel),
               telemetry_baseline_why(rep->tel));
    result_put(res, RK_HISTOGRAMS, results_hists_json(lay, tot.hists), NULL);
    result_put(res, RK_SLO, slo_judge_run(cfg, res), NULL); /* from the histograms just put */
    json_t *placement = rep->placement ? json_incref(rep->placement) : NULL; /* as made here */
    if (placement && rep->servers_pinned)
        json_object_set(placement, "servers_pinned", rep->servers_pinned);
    result_put(res, RK_PLACEMENT, placement, "out of memory");
    /* The coordinator's own cost, so its overhead at scale is on record. */
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    result_put(res, RK_COORDINATOR,
               json_pack("{s:o, s:I, s:f, s:O?}", "startup_seconds",
                         json_num_or_null(rep->startup_seconds, rep->released), "peak_rss_bytes",
                         (json_int_t)ru.ru_maxrss * 1024, "cpu_seconds",
                         (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                             (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
                         "launch", rep->launch),
               "out of memory");
    struct attrib_json at;
    attrib_results(rep->attrib, res, &at);
    result_put(res, RK_ATTRIBUTION, at.attribution, NULL);
    result_put(res, RK_ATTRIBUTION_UNAVAILABLE, at.unavailable, NULL);
    result_put(res, RK_ATTRIBUTION_SOURCES, at.sources, NULL);
    result_put(res, RK_COUNTERS, at.counters, NULL);
    result_put(res, RK_COUNTERS_UNAVAILABLE, at.counters_unavailable, NULL);
    json_t *counts, *counts_una;
    server_check_results(rep->server_check, res, warnings, &counts, &counts_una);
    result_put(res, RK_SERVER_COUNTS, counts, NULL);
    result_put(res, RK_SERVER_COUNTS_UNAVAILABLE, counts_una, NULL);
    json_t *storage, *stragglers;
    figures_run(rep, wall, res, &storage, &stragglers);
    result_put(res, RK_STORAGE, storage, "out of memory");
    result_put(res, RK_STRAGGLERS, stragglers, "the run was never released: no worker finished");
    figures_warnings(res);
    results_totals_free(&tot);
    return res;
}

int results_write(const json_t *result, const char *dir, char *err, size_t errlen) {
    char path[4200];
    snprintf(path, sizeof path, "%s/result.json", dir);
    if (json_write_atomic(path, result, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
