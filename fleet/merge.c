/* merge.c -- several shards' results into one (see merge.h). Pure: JSON in,
 * JSON out, so the arithmetic and the rules are unit-tested on hand-made
 * shards. */
#include "merge.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "../common/walltime.h"
#include "../result/figures.h"
#include "../result/histjson.h"
#include "../result/pacer.h"
#include "../result/result.h"
#include "../result/results.h"
#include "../result/slo.h"
#include "../result/windows.h"
#include "../workloads/workload.h"
#include "fleet.h"

#ifndef AOPS_GIT
#define AOPS_GIT "unknown"
#endif

struct shard_in {
    const json_t *r, *sh;
    const char *name;
    unsigned index;
    int host_first; /* the first shard seen on its machine */
    int released;
    int64_t rel_ns, end_ns; /* release and last completion, epoch ns, on the common clock */
    double offset_s;        /* its clock's measured offset, applied to rel_ns and end_ns */
};

static void add(json_t *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(json_t *arr, const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    json_array_append_new(arr, json_string(buf));
}

static const char *host_of(const struct shard_in *s) {
    const char *h = jstr(s->sh, "host");
    return h ? h : "unknown host";
}

/* What identifies a machine: its kernel's boot id, else its host name. */
static const char *machine_of(const struct shard_in *s) {
    const char *b = jstr(s->sh, "boot_id");
    return b ? b : host_of(s);
}

static uint64_t u64_at(const json_t *r, const char *path) {
    json_t *v = jget(r, path);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* sum += x, held at INT64_MAX (json_int_t's largest) instead of wrapping:
 * the shards' counts come from files, and a sum that wrapped would read as a
 * small, plausible figure. */
static void add_u64(uint64_t *sum, uint64_t x) {
    if (__builtin_add_overflow(*sum, x, sum) || *sum > (uint64_t)INT64_MAX)
        *sum = (uint64_t)INT64_MAX;
}

/* "0, 2 and 5" of up to 12 indices, then "...". */
static void index_list(const unsigned *idx, size_t n, char *out, size_t len) {
    size_t o = 0;
    out[0] = 0;
    for (size_t i = 0; i < n && o < len; i++) {
        if (i == 12) {
            snprintf(out + o, len - o, " ... (%zu in all)", n);
            return;
        }
        o += (size_t)snprintf(out + o, len - o, "%s%u",
                              i == 0       ? ""
                              : i == n - 1 ? " and "
                                           : ", ",
                              idx[i]);
    }
}

/* Step 1: which inputs are shards, of how many; one per index. Returns the
 * count N (0 when no input is a shard) and fills used[] in index order. */
static unsigned pick_shards(json_t *const *in, const char *const *names, size_t n,
                            struct shard_in *used, size_t *nused, json_t *reasons) {
    unsigned N = 0;
    size_t first = 0;
    struct shard_in *all = calloc(n ? n : 1, sizeof *all);
    size_t na = 0;
    for (size_t i = 0; all && i < n; i++) {
        const json_t *sh = json_object_get(in[i], "shard");
        json_t *ji = json_object_get(sh, "index"), *jc = json_object_get(sh, "count");
        if (!json_is_integer(ji) || !json_is_integer(jc) || json_integer_value(jc) < 1 ||
            json_integer_value(ji) < 0 || json_integer_value(ji) >= json_integer_value(jc)) {
            add(reasons, "%s is not a shard's result (no shard block: run with --shard I/N)",
                names[i]);
            continue;
        }
        unsigned count = (unsigned)json_integer_value(jc);
        if (!N) {
            N = count;
            first = i;
        } else if (count != N) {
            add(reasons, "%s is a shard of %u, %s of %u: results of different runs", names[i],
                count, names[first], N);
            continue;
        }
        all[na++] = (struct shard_in){
            .r = in[i], .sh = sh, .name = names[i], .index = (unsigned)json_integer_value(ji)};
    }
    unsigned *missing = calloc(N ? N : 1, sizeof *missing);
    size_t nmissing = 0;
    *nused = 0;
    for (unsigned k = 0; all && missing && k < N; k++) {
        size_t hits = 0, at = 0, second = 0;
        for (size_t i = 0; i < na; i++)
            if (all[i].index == k) {
                if (hits == 0)
                    at = i;
                else if (hits == 1)
                    second = i;
                hits++;
            }
        if (!hits) {
            missing[nmissing++] = k;
            continue;
        }
        if (hits > 1)
            add(reasons,
                "shard %u of %u appears %zu times (%s and %s): results of more than one run "
                "under one prefix, or a shard that ran twice",
                k, N, hits, all[at].name, all[second].name);
        used[(*nused)++] = all[at];
    }
    if (nmissing) {
        char list[256];
        index_list(missing, nmissing, list, sizeof list);
        add(reasons, "shard%s %s of %u %s missing", nmissing > 1 ? "s" : "", list, N,
            nmissing > 1 ? "are" : "is");
    }
    free(missing);
    free(all);
    return N;
}

/* Step 2: the rules that make the shards one run, and each shard valid. */
static void judge(struct shard_in *u, size_t nu, json_t *reasons, json_t *warnings) {
    for (size_t i = 1; i < nu; i++) {
        const char *h0 = jstr(u[0].sh, "config_hash"), *hi = jstr(u[i].sh, "config_hash");
        if (!h0 || !hi || strcmp(h0, hi))
            add(reasons,
                "config differs: shard %u has config hash %s, shard %u %s (every host must run "
                "the same options)",
                u[i].index, hi ? hi : "(none)", u[0].index, h0 ? h0 : "(none)");
        const char *v0 = jstr(u[0].r, "system.harness_version");
        const char *vi = jstr(u[i].r, "system.harness_version");
        if (!v0 || !vi || strcmp(v0, vi))
            add(reasons, "harness versions differ: shard %u runs %s, shard %u %s", u[i].index,
                vi ? vi : "(unknown)", u[0].index, v0 ? v0 : "(unknown)");
        json_t *s0 = json_object_get(u[0].sh, "start_at_ns"),
               *si = json_object_get(u[i].sh, "start_at_ns");
        if (!json_equal(s0, si))
            add(reasons, "the shards were given different --start-at: shard %u %s, shard %u %s",
                u[i].index, jstr(u[i].sh, "start_at") ? jstr(u[i].sh, "start_at") : "(none)",
                u[0].index, jstr(u[0].sh, "start_at") ? jstr(u[0].sh, "start_at") : "(none)");
    }
    for (size_t i = 0; i < nu; i++) {
        if (json_is_true(json_object_get(u[i].r, "valid")))
            continue;
        char why[1500] = "";
        size_t o = 0, k;
        json_t *s;
        json_array_foreach(json_object_get(u[i].r, "invalid_reasons"), k, s) {
            if (o < sizeof why)
                o += (size_t)snprintf(why + o, sizeof why - o, "%s%s", k ? "; " : "",
                                      json_string_value(s));
        }
        add(reasons, "shard %u (%s) is invalid: %s", u[i].index, host_of(&u[i]),
            o ? why : "(no reason given)");
    }
    /* Clocks: each shard's offset against the one reference they share. */
    size_t lo = SIZE_MAX, hi = SIZE_MAX;
    for (size_t i = 0; i < nu; i++) {
        double x = jnum(u[i].sh, "clock.offset_s");
        if (isnan(x)) {
            const char *e = jstr(u[i].sh, "clock.error");
            add(warnings,
                "shard %u (%s) has no clock offset (%s): its start cannot be checked against "
                "the others'",
                u[i].index, host_of(&u[i]), e ? e : "not measured");
            continue;
        }
        if (lo == SIZE_MAX || x < jnum(u[lo].sh, "clock.offset_s"))
            lo = i;
        if (hi == SIZE_MAX || x > jnum(u[hi].sh, "clock.offset_s"))
            hi = i;
    }
    if (lo != SIZE_MAX && lo != hi) {
        double a = jnum(u[lo].sh, "clock.offset_s"), b = jnum(u[hi].sh, "clock.offset_s");
        char line[512];
        snprintf(line, sizeof line,
                 "clock offsets differ by %.3f s: shard %u (%s) %+.3f s, shard %u (%s) %+.3f s "
                 "against the common reference",
                 b - a, u[hi].index, host_of(&u[hi]), b, u[lo].index, host_of(&u[lo]), a);
        if (b - a > MERGE_CLOCK_INVALID_S)
            add(reasons, "%s: more than %.0f s, the start was not common (synchronise the clocks)",
                line, MERGE_CLOCK_INVALID_S);
        else if (b - a > MERGE_CLOCK_WARN_S)
            add(warnings, "%s: more than %.0f ms", line, MERGE_CLOCK_WARN_S * 1000);
    }
}

/* One shard's workloads.<name> (o) read back into the sum a single run
 * keeps per workload: ops, errors, the declared counters, per class too. */
static void stats_of(const json_t *o, const struct workload *wl, struct wl_stats *st) {
    memset(st, 0, sizeof *st);
    st->ops = u64_at(o, "ops");
    st->errors = u64_at(o, "errors");
    for (unsigned c = 0; c < wl->ncounters; c++)
        st->count[c] = u64_at(o, wl->counters[c].key);
    const json_t *cl = json_object_get(o, wl->classes_key ? wl->classes_key : "classes");
    for (unsigned k = 0; k < wl->nclasses; k++) {
        const json_t *x = json_object_get(cl, wl->class_names[k]);
        st->class_ops[k] = u64_at(x, "ops");
        st->class_errors[k] = u64_at(x, "errors");
        for (unsigned c = 0; c < wl->ncounters; c++)
            st->class_count[k][c] = u64_at(x, wl->counters[c].key);
    }
}

/* What a merge adds up: the layout a single run of the shards' workloads
 * would have (paced when a shard was), and per slot the merged histogram. */
struct merged {
    struct run_layout lay;
    struct wl_stats wl[RUN_MAX_WL];
    struct hist *hists;
    unsigned char *broken; /* per slot: a shard lacked it, so its sum is not the fleet's */
};

static void merged_free(struct merged *m) {
    free(m->hists);
    free(m->broken);
}

/* The shards' counts and histograms summed by the single run's own functions
 * (results_stats_add, hist_merge), slot by slot of one layout, each slot's
 * histogram read back from where results_hists_json wrote it. A shard that
 * lacks one has it named in the reasons (once per shard): that figure is
 * then null, not a part read as the whole. 0, or -1 out of memory. */
static int merge_sum(struct shard_in *u, size_t nu, struct merged *m, json_t *reasons) {
    memset(m, 0, sizeof *m);
    struct config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.cycles = 1;
    for (int t = 0; workload_table[t]; t++)
        for (size_t i = 0; i < nu; i++)
            if (json_object_get(json_object_get(u[i].r, "workloads"), workload_table[t]->name))
                cfg.wl_mask |= 1ull << t;
    for (size_t i = 0; i < nu; i++)
        if (json_is_object(json_object_get(u[i].r, "pacer")))
            cfg.arrival = ARRIVAL_FIXED; /* only to lay out the service-time slots */
    char err[256];
    if (layout_build(&cfg, &m->lay, err, sizeof err) != 0)
        return -1;
    const struct run_layout *lay = &m->lay;
    m->hists = malloc(sizeof *m->hists * (lay->nhist ? lay->nhist : 1));
    m->broken = calloc(lay->nhist ? lay->nhist : 1, 1);
    struct hist *h = malloc(sizeof *h);
    if (!m->hists || !m->broken || !h) {
        free(h);
        merged_free(m);
        return -1;
    }
    for (unsigned k = 0; k < lay->nhist; k++)
        hist_init(&m->hists[k]);
    for (size_t i = 0; i < nu; i++) {
        const json_t *wls = json_object_get(u[i].r, "workloads");
        for (unsigned w = 0; w < lay->nwl; w++) {
            struct wl_stats st;
            stats_of(json_object_get(wls, lay->wl[w]->name), lay->wl[w], &st);
            results_stats_add(&m->wl[w], &st);
        }
        const json_t *hs = json_object_get(u[i].r, "histograms");
        int said = 0;
        for (unsigned k = 0; k < lay->nhist; k++) {
            char path[512];
            if (results_hist_path(lay, k, path, sizeof path) != 0)
                continue;
            json_t *j = jget(hs, path);
            if (hists_format_ok(hs) && j && hist_from_json(j, h, err, sizeof err) == 0) {
                hist_merge(&m->hists[k], h);
                continue;
            }
            m->broken[k] = 1;
            if (!said++)
                add(reasons,
                    "shard %u (%s) carries no usable histogram for %s (%s): its latencies "
                    "cannot be merged",
                    u[i].index, host_of(&u[i]), strncmp(path, "workloads.", 10) ? path : path + 10,
                    !hists_format_ok(hs) ? "none, or another bucket layout"
                    : !j                 ? "missing"
                                         : err);
        }
    }
    free(h);
    /* A figure some shard lacked is null (an empty histogram's figures), and
     * its histogram is left out. */
    for (unsigned k = 0; k < lay->nhist; k++)
        if (m->broken[k])
            hist_init(&m->hists[k]);
    return 0;
}

/* Removes what a broken slot left in the merged "histograms". */
static void drop_broken(const struct merged *m, json_t *hists) {
    for (unsigned k = 0; k < m->lay.nhist; k++) {
        char path[512];
        if (!m->broken[k] || results_hist_path(&m->lay, k, path, sizeof path) != 0)
            continue;
        char *dot = strrchr(path, '.');
        *dot = 0;
        json_object_del(jget(hists, path), dot + 1);
    }
}

/* workloads and histograms, as a single run writes them (results.h). */
static void merge_workloads(struct shard_in *u, size_t nu, const struct merged *m, json_t *res,
                            json_t *reasons) {
    json_t *wls = json_object();
    for (unsigned w = 0; w < m->lay.nwl; w++)
        json_object_set_new(wls, m->lay.wl[w]->name,
                            results_workload_json(&m->lay, w, &m->wl[w], m->hists));
    for (size_t i = 0; i < nu; i++) {
        const char *name;
        json_t *v;
        json_object_foreach(json_object_get(u[i].r, "workloads"), name, v) {
            if (!workload_find(name) && !json_object_get(wls, name)) {
                add(reasons, "shard %u ran workload '%s', unknown to this harness (%s)", u[i].index,
                    name, AOPS_GIT);
                json_object_set(wls, name, json_null());
            }
        }
    }
    /* Unknown ones were marked null above only to be named once. */
    const char *name;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(wls, tmp, name, v) if (json_is_null(v)) json_object_del(wls, name);
    result_put(res, RK_WORKLOADS, wls, NULL);
    json_t *hists = results_hists_json(&m->lay, m->hists);
    drop_broken(m, hists);
    result_put(res, RK_HISTOGRAMS, hists, NULL);
}

/* A paced fleet's pacer, built and judged by the single run's function
 * (pacer_build) from the shards' summed counts and merged lateness: each
 * shard's share times its operations is its count again (a share is written
 * with 17 digits, so the count comes back exactly). */
static json_t *merge_pacer(struct shard_in *u, size_t nu, const struct merged *m, json_t *warnings,
                           json_t *reasons) {
    if (!m->lay.paced)
        return NULL;
    const json_t *p0 = NULL;
    uint64_t ops = 0, late1 = 0, queued = 0, containers = 0;
    for (size_t i = 0; i < nu; i++) {
        const json_t *p = json_object_get(u[i].r, "pacer");
        if (!json_is_object(p))
            continue;
        p0 = p0 ? p0 : p;
        double n = jnum(p, "operations"), sl = jnum(p, "late_over_1ms_share"),
               sq = jnum(p, "queued_share");
        if (n > 0 && n < 9e15)
            add_u64(&ops, (uint64_t)n);
        if (n > 0 && n < 9e15 && sl >= 0 && sl <= 1)
            add_u64(&late1, (uint64_t)llround(sl * n));
        if (n > 0 && n < 9e15 && sq >= 0 && sq <= 1)
            add_u64(&queued, (uint64_t)llround(sq * n));
        add_u64(&containers, u64_at(u[i].r, "config.containers"));
    }
    double rate = jnum(p0, "rate_per_s"), conc = jnum(p0, "concurrency");
    const char *arrival = jstr(p0, "arrival");
    struct pacer_in in = {arrival ? arrival : "?",
                          isfinite(rate),
                          rate,
                          (unsigned)(containers < UINT32_MAX ? containers : UINT32_MAX),
                          conc > 0 && conc < UINT32_MAX ? (unsigned)conc : 0,
                          jstr(p0, "think_time"),
                          &m->hists[m->lay.hist_late],
                          ops,
                          late1,
                          queued};
    if (m->broken[m->lay.hist_late])
        add(warnings, "pacer: a shard carries no lateness histogram (a build before "
                      "histograms.pacer): the fleet's lateness figures are null");
    return pacer_build(&in, warnings, reasons);
}

/* ops_per_second added second by second in absolute time. */
static json_t *merge_rate(struct shard_in *u, size_t nu, json_t *warnings) {
    json_int_t start = INT64_MAX, end = INT64_MIN;
    for (size_t i = 0; i < nu; i++) {
        json_t *o = json_object_get(u[i].r, "ops_per_second");
        if (!u[i].released)
            continue;
        if (!json_is_integer(json_object_get(o, "start"))) {
            add(warnings, "shard %u (%s) has no ops_per_second: the merged series is left out",
                u[i].index, host_of(&u[i]));
            return json_null();
        }
        json_int_t s = json_integer_value(json_object_get(o, "start"));
        /* A second from a file: within +-2^40 s (35,000 years) so that the
         * sums and differences below cannot overflow. */
        if (s > ((json_int_t)1 << 40) || s < -((json_int_t)1 << 40)) {
            add(warnings,
                "shard %u (%s) has ops_per_second.start %lld: the merged series is "
                "left out",
                u[i].index, host_of(&u[i]), (long long)s);
            return json_null();
        }
        json_int_t e = s + (json_int_t)json_array_size(json_object_get(o, "counts"));
        start = s < start ? s : start;
        end = e > end ? e : end;
    }
    if (start == INT64_MAX || end - start > 10000000)
        return json_null();
    size_t n = (size_t)(end - start);
    uint64_t *sum = calloc(n ? n : 1, sizeof *sum);
    if (!sum)
        return json_null();
    for (size_t i = 0; i < nu; i++) {
        json_t *o = json_object_get(u[i].r, "ops_per_second"), *c;
        size_t k;
        if (!u[i].released)
            continue;
        json_int_t s = json_integer_value(json_object_get(o, "start"));
        json_array_foreach(json_object_get(o, "counts"), k, c) sum[(size_t)(s - start) + k] +=
            (uint64_t)json_integer_value(c);
    }
    json_t *counts = json_array();
    for (size_t k = 0; k < n; k++)
        json_array_append_new(counts, json_integer((json_int_t)sum[k]));
    free(sum);
    return json_pack("{s:I, s:o}", "start", start, "counts", counts);
}

/* The same string from every machine, else "mixed". */
static json_t *common_str(struct shard_in *u, size_t nu, const char *path) {
    const char *first = NULL;
    for (size_t i = 0; i < nu; i++) {
        const char *s = jstr(u[i].r, path);
        if (!s)
            return json_null();
        if (!first)
            first = s;
        else if (strcmp(first, s))
            return json_string("mixed (see shards[].system)");
    }
    return first ? json_string(first) : json_null();
}

/* A sum over machines, null when any does not know it. */
static json_t *machine_sum(struct shard_in *u, size_t nu, const char *path) {
    double sum = 0;
    for (size_t i = 0; i < nu; i++) {
        if (!u[i].host_first)
            continue;
        double x = jnum(u[i].r, path);
        if (!isfinite(x) || x <= 0)
            return json_null();
        sum += x;
    }
    return json_integer((json_int_t)llround(sum));
}

static json_t *merge_system(struct shard_in *u, size_t nu, unsigned hosts) {
    json_t *s = json_pack("{s:i}", "hosts", (int)hosts);
    json_object_set_new(s, "cpu_vendor", common_str(u, nu, "system.cpu_vendor"));
    json_object_set_new(s, "cpu_model", common_str(u, nu, "system.cpu_model"));
    static const char *sums[] = {"sockets", "physical_cores", "logical_cpus", "numa_nodes",
                                 "memory_bytes"};
    for (size_t k = 0; k < sizeof sums / sizeof sums[0]; k++) {
        char path[64];
        snprintf(path, sizeof path, "system.%s", sums[k]);
        json_object_set_new(s, sums[k], machine_sum(u, nu, path));
    }
    json_object_set_new(s, "kernel", common_str(u, nu, "system.kernel"));
    json_t *disks = json_array(); /* every machine's, each naming its host */
    for (size_t i = 0; i < nu; i++) {
        size_t k;
        json_t *d;
        if (!u[i].host_first)
            continue;
        json_array_foreach(jget(u[i].r, "system.disks"), k, d) {
            json_t *x = json_deep_copy(d);
            json_object_set_new(x, "host", json_string(host_of(&u[i])));
            json_array_append_new(disks, x);
        }
    }
    json_object_set_new(s, "disks", disks);
    json_object_set_new(s, "harness_version", common_str(u, nu, "system.harness_version"));
    json_object_set_new(s, "per_host", json_string("shards[].system"));
    /* Every other key a single run has: the shards' value when they all
     * have the same (every host has this cache, this kernel setting), else
     * null, named in shards_differ (each shard's is in shards[].system). */
    json_t *differ = json_array();
    const char *key;
    json_t *v;
    json_object_foreach(nu ? json_object_get(u[0].r, "system") : NULL, key, v) {
        if (json_object_get(s, key))
            continue;
        int same = 1;
        for (size_t i = 1; same && i < nu; i++)
            same = json_equal(v, json_object_get(json_object_get(u[i].r, "system"), key));
        json_object_set_new(s, key, same ? json_deep_copy(v) : json_null());
        if (!same)
            json_array_append_new(differ, json_string(key));
    }
    /* A key whose null has its own reason key (memory_dimms_unavailable)
     * gets the merge's. */
    size_t k;
    json_array_foreach(differ, k, v) {
        char why[128];
        snprintf(why, sizeof why, "%s_unavailable", json_string_value(v));
        if (json_object_get(json_object_get(u[0].r, "system"), why))
            json_object_set_new(s, why,
                                json_string("the shards' values differ (shards[].system has "
                                            "each)"));
    }
    if (json_array_size(differ))
        json_object_set_new(s, "shards_differ", differ);
    else
        json_decref(differ);
    return s;
}

/* storage{} of the fleet, by the single run's function (figures_storage):
 * what the disks read (the fleet's series) over what the workloads read.
 * The data set is not merged: shards on one machine may read one shared
 * set or each their own, from one server or several, which the results do
 * not say; each host's is against its own memory in its shard's result. */
static void merge_storage(json_t *res, const struct series *ser, int ok, double wall) {
    struct span run = {0, wall};
    struct series_col c = series_column(ser, series_find_col(ser, "read_Bps"));
    double disk = ok && wall > 0 ? series_integral(&c, &run, 1) : NAN;
    const char *tel_why = jstr(res, "telemetry.disk_unavailable_reason");
    const char *cache = jstr(res, "config.cache");
    struct storage_in in = {
        cache ? cache : "unknown",
        NAN,
        "not merged: each host's data set against its own memory is in its shard's result "
        "(shards/shard-N.result.json, storage)",
        jnum(res, "system.memory_bytes"),
        disk,
        !ok        ? "the fleet has no series: a host's result carries no telemetry series"
        : tel_why  ? tel_why
        : wall > 0 ? "no disk reading over the fleet's run"
                   : "the fleet has no span: no shard was released",
        figures_workload_bytes(res)};
    result_put(res, RK_STORAGE, figures_storage(&in), "out of memory");
}

static json_t *shard_entry(const struct shard_in *s) {
    const json_t *r = s->r, *sh = s->sh;
    json_t *e =
        json_pack("{s:i, s:s, s:s}", "shard", (int)s->index, "host", host_of(s), "source", s->name);
    static const struct {
        const char *key, *path;
    } copy[] = {
        {"boot_id", "shard.boot_id"},
        {"containers", "shard.containers"},
        {"worker_ids", "shard.worker_ids"},
        {"valid", "valid"},
        {"invalid_reasons", "invalid_reasons"},
        {"ops", "totals.ops"},
        {"errors", "totals.errors"},
        {"aops", "totals.aops"},
        {"aops_per_core", "totals.aops_per_core"},
        {"wall_seconds", "totals.wall_seconds"},
        {"start_at", "shard.start_at"},
        {"ready_at", "shard.ready_at"},
        {"released_at", "shard.released_at"},
        {"released_at_ns", "shard.released_at_ns"},
        {"missed_start_s", "shard.missed_start_s"},
        {"clock_offset_s", "shard.clock.offset_s"},
        {"clock_uncertainty_s", "shard.clock.uncertainty_s"},
        {"clock_reference", "shard.clock.reference"},
        {"physical_cores", "system.physical_cores"},
        {"cpu_model", "system.cpu_model"},
        {"power_w", "telemetry.power.scope=package.mean_w"},
        {"power_platform_w", "telemetry.power.scope=platform.mean_w"},
        {"cpu_util_mean", "telemetry.cpu_util.mean"},
        {"warnings", "warnings"},
        {"system", "system"},
        {"telemetry", "telemetry"},
        {"telemetry_reason", "telemetry_reason"},
        {"windows", "windows"},
    };
    (void)sh;
    for (size_t k = 0; k < sizeof copy / sizeof copy[0]; k++) {
        json_t *v = jget(r, copy[k].path);
        json_object_set_new(e, copy[k].key, v ? json_deep_copy(v) : json_null());
    }
    return e;
}

/* Warnings of the shards, each text once: "shards 0, 1 and 2: ...". */
static void merge_warnings(struct shard_in *u, size_t nu, json_t *warnings) {
    json_t *seen = json_object();
    for (size_t i = 0; i < nu; i++) {
        size_t k;
        json_t *w;
        json_array_foreach(json_object_get(u[i].r, "warnings"), k, w) {
            const char *text = json_string_value(w);
            if (!text)
                continue;
            json_t *who = json_object_get(seen, text);
            if (!who)
                json_object_set_new(seen, text, who = json_array());
            json_array_append_new(who, json_integer(u[i].index));
        }
    }
    const char *text;
    json_t *who;
    json_object_foreach(seen, text, who) {
        unsigned idx[64];
        size_t n = json_array_size(who) < 64 ? json_array_size(who) : 64;
        for (size_t k = 0; k < n; k++)
            idx[k] = (unsigned)json_integer_value(json_array_get(who, k));
        char list[256];
        index_list(idx, n, list, sizeof list);
        add(warnings, "shard%s %s: %s", n > 1 ? "s" : "", list, text);
    }
    json_decref(seen);
}

/* provenance: the first shard's (the config hash and versions were
 * compared above); verification: a workload's answers are verified when
 * every shard verified them. */
static void merge_provenance(struct shard_in *u, size_t nu, json_t *res) {
    json_t *p = nu ? json_object_get(u[0].r, "provenance") : NULL;
    json_t *c = json_is_object(p) ? json_deep_copy(p) : json_object();
    json_object_set_new(c, "per_host", json_string("shards/*.result.json"));
    result_put(res, RK_PROVENANCE, c, NULL);
    json_t *v = json_object();
    for (size_t i = 0; i < nu; i++) {
        const char *name;
        json_t *w;
        json_object_foreach(json_object_get(u[i].r, "verification"), name, w) {
            json_t *have = json_object_get(v, name);
            if (!have)
                json_object_set_new(v, name, json_deep_copy(w));
            else if (json_is_true(json_object_get(have, "verified")) &&
                     !json_is_true(json_object_get(w, "verified")))
                json_object_set_new(
                    v, name,
                    json_pack("{s:b, s:o}", "verified", 0, "why",
                              json_sprintf("shard %u: %s", u[i].index,
                                           jstr(w, "why") ? jstr(w, "why") : "not verified")));
        }
    }
    result_put(res, RK_VERIFICATION, v, NULL);
}

/* The fleet's SLO verdict, from the merged histograms: against the spec
 * the first shard that has one was judged by (the default when none has:
 * a build from before SLOs), parsed again (it came from a file). */
static json_t *merge_slo(struct shard_in *u, size_t nu, const json_t *res, json_t *warnings) {
    const char *spec = NULL, *source = NULL;
    size_t first = 0;
    for (size_t i = 0; i < nu; i++) {
        const char *s = jstr(u[i].r, "slo.spec");
        if (s && !spec)
            spec = s, source = jstr(u[i].r, "slo.source"), first = i;
        else if (s && strcmp(s, spec))
            add(warnings,
                "shard %u was judged against the SLO '%.200s', shard %u against "
                "'%.200s': the fleet is judged against the first",
                u[i].index, s, u[first].index, spec);
    }
    struct slo slo;
    char err[512];
    if (slo_parse(spec, &slo, err, sizeof err) != 0 || slo_check_names(&slo, err, sizeof err) != 0)
        return slo_unjudged(spec, err);
    slo.is_default |= source && !strcmp(source, "default");
    return slo_verdict(&slo, res);
}

json_t *merge_results(json_t *const *in, const char *const *names, size_t n) {
    json_t *reasons = json_array(), *warnings = json_array();
    struct shard_in *u = calloc(n ? n : 1, sizeof *u);
    if (!u || !reasons || !warnings) {
        free(u);
        json_decref(reasons);
        json_decref(warnings);
        return NULL;
    }
    size_t nu = 0;
    unsigned N = pick_shards(in, names, n, u, &nu, reasons);
    judge(u, nu, reasons, warnings);
    merge_warnings(u, nu, warnings);

    /* Machines, releases, the fleet's totals. */
    unsigned hosts = 0;
    uint64_t ops = 0, errors = 0, expected = 0;
    int64_t rel_ns = INT64_MAX, end_ns = INT64_MIN;
    for (size_t i = 0; i < nu; i++) {
        u[i].host_first = 1;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(machine_of(&u[i]), machine_of(&u[j])))
                u[i].host_first = 0;
        hosts += (unsigned)u[i].host_first;
        add_u64(&ops, u64_at(u[i].r, "totals.ops"));
        add_u64(&errors, u64_at(u[i].r, "totals.errors"));
        add_u64(&expected, u64_at(u[i].r, "totals.expected_ops"));
        json_t *rel = json_object_get(u[i].sh, "released_at_ns");
        double wall = jnum(u[i].r, "totals.wall_seconds");
        if (json_is_integer(rel) && isfinite(wall)) {
            /* On the reference's clock: server time = local + offset. */
            u[i].released = 1;
            u[i].offset_s = fleet_offset(u[i].r);
            u[i].rel_ns = json_integer_value(rel) + llround(u[i].offset_s * 1e9);
            u[i].end_ns = u[i].rel_ns + llround(wall * 1e9);
            rel_ns = u[i].rel_ns < rel_ns ? u[i].rel_ns : rel_ns;
            end_ns = u[i].end_ns > end_ns ? u[i].end_ns : end_ns;
        }
    }
    int released = rel_ns != INT64_MAX;
    double wall = released ? (double)(end_ns - rel_ns) / 1e9 : NAN;
    double aops = wall > 0 ? (double)ops / wall : NAN;
    json_t *cores = merge_system(u, nu, hosts);
    double ncores = jnum(cores, "physical_cores");
    if (nu && isnan(ncores))
        add(warnings, "per-core AOPS unavailable: a host does not know its physical cores");
    /* The fleet's clock and series: telemetry, windows, stragglers (fleet.h). */
    struct fleet_shard *fs = calloc(nu ? nu : 1, sizeof *fs);
    for (size_t i = 0; fs && i < nu; i++)
        fs[i] = (struct fleet_shard){u[i].r,        u[i].index,  u[i].host_first,
                                     u[i].released, u[i].rel_ns, u[i].offset_s};
    struct series ser;
    int ser_ok = fs && released && fleet_series(fs, nu, rel_ns, &ser) == 0;
    if (!ser_ok && fs && released)
        series_free(&ser);
    if (!ser_ok)
        series_init(&ser);
    double watts, pwatts;
    char pwhy[1024];
    json_t *telemetry = fleet_telemetry(fs, fs ? nu : 0, &ser, ser_ok, released ? wall : 0, &watts,
                                        &pwatts, pwhy, sizeof pwhy);
    json_t *totals = json_pack(
        "{s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "ops", (json_int_t)ops, "errors",
        (json_int_t)errors, "expected_ops", (json_int_t)expected, "wall_seconds",
        json_num_or_null(wall, released), "aops", json_num_or_null(aops, wall > 0), "aops_per_core",
        json_num_or_null(aops / ncores, wall > 0 && ncores > 0), "aops_per_watt",
        json_num_or_null(aops / watts, wall > 0 && watts > 0), "aops_per_watt_platform",
        json_num_or_null(aops / pwatts, wall > 0 && pwatts > 0));

    json_t *config = nu ? json_deep_copy(json_object_get(u[0].r, "config")) : json_object();
    if (!json_is_object(config)) {
        json_decref(config);
        config = json_object();
    }
    uint64_t containers = 0;
    for (size_t i = 0; i < nu; i++)
        add_u64(&containers, u64_at(u[i].r, "config.containers"));
    json_object_set_new(config, "containers_per_shard",
                        nu ? json_deep_copy(jget(u[0].r, "config.containers")) : json_null());
    json_object_set_new(config, "containers", json_integer((json_int_t)containers));
    json_object_set_new(config, "shards", json_integer(N));

    /* Built through the result table (result/keys.h), as a single run is. */
    json_t *res = result_begin(reasons, warnings);
    result_put(res, RK_CONFIG, config, NULL);
    result_put(res, RK_SYSTEM, cores, NULL);
    result_put(res, RK_TOTALS, totals, NULL);
    struct merged m;
    int summed = merge_sum(u, nu, &m, reasons) == 0;
    if (summed)
        merge_workloads(u, nu, &m, res, reasons);
    else
        add(reasons, "out of memory while adding up the shards' workloads");
    json_t *containers_arr = json_array(), *shards = json_array();
    for (size_t i = 0; i < nu; i++) {
        size_t k;
        json_t *c;
        json_array_foreach(json_object_get(u[i].r, "containers"), k, c) {
            json_t *x = json_deep_copy(c);
            json_object_set_new(x, "shard", json_integer(u[i].index));
            json_array_append_new(containers_arr, x);
        }
        json_t *e = shard_entry(&u[i]);
        if (u[i].released) { /* its release on the common clock, and by how much it moved */
            json_object_set_new(e, "clock_offset_applied_s", json_real(u[i].offset_s));
            json_object_set_new(e, "aligned_released_at_ns", json_integer(u[i].rel_ns));
        }
        json_array_append_new(shards, e);
    }
    result_put(res, RK_STRAGGLERS,
               released && fs ? fleet_stragglers(containers_arr, fs, nu, rel_ns, &ser, ser_ok)
                              : NULL,
               "no shard was released: no worker finished");
    result_put(res, RK_CONTAINERS, containers_arr, NULL);
    result_put(res, RK_WINDOWS,
               released && fs ? fleet_windows(fs, nu, rel_ns, &ser, ser_ok) : json_object(), NULL);
    result_put(res, RK_TELEMETRY, telemetry, "out of memory");
    merge_storage(res, &ser, ser_ok, released ? wall : 0);
    figures_warnings(res);
    series_free(&ser);
    free(fs);
    result_put(res, RK_SHARDS, shards, NULL);
    result_put(res, RK_SLO, merge_slo(u, nu, res, warnings), NULL);
    if (summed) {
        json_t *pacer = merge_pacer(u, nu, &m, warnings, reasons);
        if (pacer)
            result_put(res, RK_PACER, pacer, NULL);
        merged_free(&m);
    }
    result_put(res, RK_OPS_PER_SECOND, merge_rate(u, nu, warnings), "no shard was released");
    json_t *inputs = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(inputs, json_string(names[i]));
    char now[64], rel[64];
    wall_format(wall_now(), now, sizeof now);
    wall_format(released ? (double)rel_ns / 1e9 : 0, rel, sizeof rel);
    result_put(res, RK_MERGE,
               json_pack("{s:o, s:i, s:i, s:o, s:o, s:s, s:s, s:s}", "inputs", inputs, "shards",
                         (int)N, "hosts", (int)hosts, "released_at",
                         released ? json_string(rel) : json_null(), "released_at_ns",
                         released ? json_integer(rel_ns) : json_null(), "merged_at", now,
                         "merged_by", AOPS_GIT, "clock",
                         "each shard's instants moved by its measured offset "
                         "(shards[].clock_offset_s) onto the common reference"),
               NULL);
    merge_provenance(u, nu, res);
    result_complete(res, RK_MERGED, NULL); /* what cannot be merged: null, with why */
    if (!nu)
        add(reasons, "no shard to merge");
    result_verdict(res, reasons, warnings, 1);
    json_decref(reasons);
    json_decref(warnings);
    free(u);
    return res;
}
