/* csv.c -- export a run's per-workload figures (workloads.csv: one row per
 * workload and per class, its latency and each counter it declares), its
 * per-container figures (containers.csv) and its telemetry series
 * (series.csv) as plain CSV: a header row, numbers in full precision, an
 * empty cell where result.json has null (a missing figure must not read as
 * zero in a spreadsheet). Called by the coordinator after writing
 * result.json when --csv DIR was given, and by `harness report RUN_DIR
 * --csv DIR`. */
#include "csv.h"
#include "report_html.h"

#include "../workloads/workload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* One cell: numbers exact in the fewest digits, booleans as true/false, null or missing empty. */
static void cell(FILE *f, const json_t *v, int first) {
    if (!first)
        fputc(',', f);
    if (json_is_integer(v))
        fprintf(f, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) {
        char e[40];
        fputs(fmt_exact(e, sizeof e, json_real_value(v)), f);
    } else if (json_is_boolean(v))
        fputs(json_is_true(v) ? "true" : "false", f);
    else if (json_is_string(v)) {
        /* RFC 4180 quoting; no string column is expected, but be safe. */
        fputc('"', f);
        for (const char *s = json_string_value(v); *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    }
}

static FILE *open_in(const char *dir, const char *name, char *path, size_t plen, char *err,
                     size_t errlen) {
    snprintf(path, plen, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return f;
}

static int close_checked(FILE *f, const char *path, char *err, size_t errlen) {
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}

#define MAX_CSV_WL 16
static const char *const STATS[] = {"mean", "p50", "p95", "p99", "max"};

/* One row of workloads.csv: a workload or one of its classes. */
static void workload_row(FILE *f, const char *name, const char *klass, const json_t *o,
                         const char *const *keys, size_t nkeys) {
    fprintf(f, "%s,%s", name, klass);
    cell(f, json_object_get(o, "ops"), 0);
    cell(f, json_object_get(o, "errors"), 0);
    for (size_t s = 0; s < 5; s++)
        cell(f, json_object_get(json_object_get(o, "latency_ms"), STATS[s]), 0);
    for (size_t k = 0; k < nkeys; k++)
        cell(f, json_object_get(o, keys[k]), 0);
    fputc('\n', f);
}

/* workloads.csv: the counters are the columns the run's workloads declare,
 * in registry order, empty where a workload does not have one. */
static int workloads_csv(const json_t *result, const char *const *wl, size_t nw, const char *dir,
                         char *err, size_t errlen) {
    char path[4200];
    const char *keys[MAX_CSV_WL * WL_MAX_COUNTERS];
    size_t nkeys = 0;
    for (size_t w = 0; w < nw; w++) {
        const struct workload *d = workload_find(wl[w]);
        for (unsigned c = 0; d && c < d->ncounters; c++) {
            size_t k = 0;
            while (k < nkeys && strcmp(keys[k], d->counters[c].key))
                k++;
            if (k == nkeys)
                keys[nkeys++] = d->counters[c].key;
        }
    }
    FILE *f = open_in(dir, "workloads.csv", path, sizeof path, err, errlen);
    if (!f)
        return -1;
    fputs("workload,class,ops,errors,latency_ms_mean,latency_ms_p50,latency_ms_p95,"
          "latency_ms_p99,latency_ms_max",
          f);
    for (size_t k = 0; k < nkeys; k++)
        fprintf(f, ",%s", keys[k]);
    fputc('\n', f);
    for (size_t w = 0; w < nw; w++) {
        const json_t *o = json_object_get(json_object_get(result, "workloads"), wl[w]);
        workload_row(f, wl[w], "", o, keys, nkeys);
        const struct workload *d = workload_find(wl[w]);
        const json_t *cls = d && d->classes_key ? json_object_get(o, d->classes_key) : NULL;
        for (unsigned c = 0; cls && c < d->nclasses; c++) {
            const json_t *x = json_object_get(cls, d->class_names[c]);
            if (x)
                workload_row(f, wl[w], d->class_names[c], x, keys, nkeys);
        }
    }
    return close_checked(f, path, err, errlen);
}

int csv_export(const json_t *result, const char *dir, char *err, size_t errlen) {
    char path[4200];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }

    const char *wl[MAX_CSV_WL];
    size_t nw = workload_keys(json_object_get(result, "workloads"), wl, MAX_CSV_WL);
    if (workloads_csv(result, wl, nw, dir, err, errlen) != 0)
        return -1;

    FILE *f = open_in(dir, "containers.csv", path, sizeof path, err, errlen);
    if (!f)
        return -1;
    static const char *ckeys[] = {"id", "ops", "errors", "seconds", "exit_status", "oom_killed"};
    fputs("id,ops,errors,seconds,ops_per_second,exit_status,oom_killed", f);
    for (size_t k = 0; k < nw; k++)
        fprintf(f, ",latency_ms_mean_%s", wl[k]);
    fputc('\n', f);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(result, "containers"), i, c) {
        for (size_t k = 0; k < 4; k++)
            cell(f, json_object_get(c, ckeys[k]), k == 0);
        /* ops/s is the figure the report's distribution chart shows. */
        json_t *ops = json_object_get(c, "ops"), *sec = json_object_get(c, "seconds");
        fputc(',', f);
        char e[40];
        if (json_is_number(ops) && json_is_number(sec) && json_number_value(sec) > 0)
            fputs(fmt_exact(e, sizeof e, json_number_value(ops) / json_number_value(sec)), f);
        for (size_t k = 4; k < 6; k++)
            cell(f, json_object_get(c, ckeys[k]), 0);
        for (size_t k = 0; k < nw; k++)
            cell(f, json_object_get(json_object_get(c, "latency_ms_mean"), wl[k]), 0);
        fputc('\n', f);
    }
    if (close_checked(f, path, err, errlen))
        return -1;

    f = open_in(dir, "series.csv", path, sizeof path, err, errlen);
    if (!f)
        return -1;
    static const char *skeys[] = {"t",         "cpu_util",   "read_Bps", "read_iops",
                                  "write_Bps", "write_iops", "power_w"};
    for (size_t k = 0; k < 7; k++)
        fprintf(f, "%s%s", k ? "," : "", skeys[k]);
    /* Then the other power sources' columns (power_platform_w...), and each
     * workload's per-interval counts (<workload>_<key>), as the first point
     * has them. */
    const json_t *series = json_object_get(json_object_get(result, "telemetry"), "series");
    const json_t *per0 = json_object_get(json_array_get(series, 0), "workloads");
    const char *key, *pcol[8];
    size_t npcol = 0, kl;
    json_t *v;
    json_object_foreach((json_t *)json_array_get(series, 0), key,
                        v) if (npcol < 8 && !strncmp(key, "power_", 6) && strcmp(key, "power_w") &&
                               (kl = strlen(key)) > 8 && !strcmp(key + kl - 2, "_w"))
        fprintf(f, ",%s", pcol[npcol++] = key);
    for (size_t w = 0; w < nw; w++)
        json_object_foreach((json_t *)json_object_get(per0, wl[w]), key, v)
            fprintf(f, ",%s_%s", wl[w], key);
    fputc('\n', f);
    json_t *s;
    json_array_foreach(series, i, s) {
        for (size_t k = 0; k < 7; k++)
            cell(f, json_object_get(s, skeys[k]), k == 0);
        for (size_t k = 0; k < npcol; k++)
            cell(f, json_object_get(s, pcol[k]), 0);
        const json_t *per = json_object_get(s, "workloads");
        for (size_t w = 0; w < nw; w++)
            json_object_foreach((json_t *)json_object_get(per0, wl[w]), key, v)
                cell(f, json_object_get(json_object_get(per, wl[w]), key), 0);
        fputc('\n', f);
    }
    return close_checked(f, path, err, errlen);
}
