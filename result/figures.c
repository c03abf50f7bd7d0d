/* figures.c -- run-level figures and their warnings (see figures.h). */
#include "figures.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/json.h"
#include "stragglers.h"
#include "windows.h"

/* Operations completed in [0, t]: the series' per-interval counts. */
static double ops_by(void *ctx, double t) {
    const struct run_report *rep = ctx;
    const struct run_layout *lay = &rep->r->lay;
    struct span s = {0, t};
    double sum = 0;
    for (unsigned w = 0; w < lay->nwl; w++) {
        double x = telemetry_counter_sum(rep->tel, lay->wl[w]->name, "ops", &s, 1);
        if (!isfinite(x))
            return NAN;
        sum += x;
    }
    return sum;
}

double figures_workload_bytes(const json_t *res) {
    double wl = 0;
    for (int t = 0; workload_table[t]; t++)
        for (unsigned k = 0; k < workload_table[t]->ncounters; k++)
            if (workload_table[t]->counters[k].unit == WL_BYTES) {
                char path[256];
                snprintf(path, sizeof path, "workloads.%s.%s", workload_table[t]->name,
                         workload_table[t]->counters[k].key);
                double b = jnum(res, path);
                wl += isfinite(b) ? b : 0;
            }
    return wl;
}

json_t *figures_storage(const struct storage_in *in) {
    int ds_ok = isfinite(in->dataset), mem_ok = isfinite(in->memory);
    json_t *o = json_pack("{s:s}", "cache", in->cache);
    json_object_set_new(o, "dataset_bytes", json_num_or_null(in->dataset, ds_ok));
    if (!ds_ok)
        json_object_set_new(o, "dataset_reason", json_string(in->dataset_why));
    json_object_set_new(o, "memory_bytes", json_num_or_null(in->memory, mem_ok));
    json_object_set_new(
        o, "dataset_to_memory",
        json_num_or_null(in->dataset / in->memory, ds_ok && mem_ok && in->memory > 0));
    json_object_set_new(o, "disk_read_bytes",
                        json_num_or_null(round(in->disk), isfinite(in->disk)));
    if (!isfinite(in->disk))
        json_object_set_new(o, "disk_unavailable_reason", json_string(in->disk_why));
    json_object_set_new(o, "workload_read_bytes", json_real(in->wl));
    double served = windows_served(in->disk, in->wl), per = windows_disk_per_wl(in->disk, in->wl);
    json_object_set_new(o, "served_from_disk",
                        json_num_or_null(round(served * 1e4) / 1e4, isfinite(served)));
    json_object_set_new(o, "disk_bytes_per_workload_byte",
                        json_num_or_null(round(per * 1e4) / 1e4, isfinite(per)));
    return o;
}

static json_t *storage_json(const struct run_report *rep, double wall, const json_t *res) {
    const struct config *cfg = rep->r->cfg;
    const struct run_layout *lay = &rep->r->lay;
    double dataset = 0;
    char ds_why[256] = "", disk_why[1024];
    for (unsigned w = 0; w < lay->nwl; w++) {
        const struct workload *d = lay->wl[w];
        double b = d->dataset_bytes ? d->dataset_bytes(cfg) : 0;
        if (b < 0 && !ds_why[0])
            snprintf(ds_why, sizeof ds_why,
                     "%s's data set size is unknown (search: no corpus manifest giving its "
                     "trees' bytes)",
                     d->name);
        else if (b >= 0)
            dataset += b;
    }
    struct span run = {0, wall};
    double disk =
        rep->tel && wall > 0 ? telemetry_metric_integral(rep->tel, "read_Bps", &run, 1) : NAN;
    const char *tel_why = jstr(res, "telemetry.disk_unavailable_reason");
    snprintf(disk_why, sizeof disk_why, "%s",
             !rep->tel  ? "the run has no telemetry (telemetry_reason says why)"
             : wall > 0 ? (tel_why ? tel_why : "no disk reading over the run")
                        : "the run has no span: no worker was released");
    struct storage_in in = {cfg->cache == CACHE_COLD ? "cold" : "asis",
                            ds_why[0] ? NAN : dataset,
                            ds_why,
                            jnum(res, "system.memory_bytes"),
                            disk,
                            disk_why,
                            figures_workload_bytes(res)};
    return figures_storage(&in);
}

void figures_warnings(json_t *res) {
    json_t *warnings = json_object_get(res, "warnings");
    double steal = jnum(res, "telemetry.steal_pct.mean");
    if (json_is_array(warnings) && steal > FIGURES_STEAL_WARN_PCT)
        json_array_append_new(warnings,
                              json_sprintf("steal: the hypervisor took %.1f %% of the CPUs over "
                                           "the run, so the figures measure a shared host",
                                           steal));
    double served = jnum(res, "storage.served_from_disk");
    double wl = jnum(res, "storage.workload_read_bytes");
    if (json_is_array(warnings) && isfinite(served) && wl > 0 && served < FIGURES_DISK_SHARE_WARN) {
        double ds = jnum(res, "storage.dataset_bytes"), mem = jnum(res, "storage.memory_bytes");
        char fit[160] = "";
        if (isfinite(ds) && isfinite(mem) && mem > 0)
            snprintf(fit, sizeof fit, " (the data set is %.2f GiB, %.0f %% of the memory)",
                     ds / 1073741824.0, 100 * ds / mem);
        const char *cache = jstr(res, "storage.cache");
        int cold = cache && !strcmp(cache, "cold");
        json_array_append_new(
            warnings,
            json_sprintf("storage: the disks served %.1f %% of the bytes the workloads read%s, "
                         "so the storage figures mostly measure the page cache %s",
                         100 * served, fit,
                         cold ? "even after --cache cold: the workloads read the same data more "
                                "than once (a data set larger than memory reads from the drives)"
                              : "(--cache cold, or a data set larger than memory, reads from "
                                "the drives)"));
    }
}

void figures_config(const struct run_report *rep, json_t *config) {
    const struct config *cfg = rep->r->cfg;
    json_object_set_new(config, "phase_barrier", json_boolean(cfg->phase_barrier));
    json_object_set_new(config, "cache", json_string(cfg->cache == CACHE_COLD ? "cold" : "asis"));
    if (rep->cache)
        json_object_set(config, "cache_cold", rep->cache);
}

void figures_run(const struct run_report *rep, double wall, const json_t *res, json_t **storage,
                 json_t **stragglers) {
    *storage = storage_json(rep, wall, res);
    *stragglers = rep->released ? stragglers_json(json_object_get(res, "containers"),
                                                  rep->tel ? ops_by : NULL, (void *)rep)
                                : NULL;
}
