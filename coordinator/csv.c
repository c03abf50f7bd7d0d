/* csv.c -- export a run's per-container figures (containers.csv) and its
 * telemetry series (series.csv) as plain CSV: a header row, one row per
 * container or sample, numbers in full precision, an empty cell where
 * result.json has null (a missing figure must not read as zero in a
 * spreadsheet). Called by the coordinator after writing result.json when
 * --csv DIR was given, and by `harness report RUN_DIR --csv DIR`. */
#include "csv.h"
#include "report_html.h"

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
    }
    else if (json_is_boolean(v))
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

int csv_export(const json_t *result, const char *dir, char *err, size_t errlen) {
    char path[4200];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }

    FILE *f = open_in(dir, "containers.csv", path, sizeof path, err, errlen);
    if (!f)
        return -1;
    static const char *ckeys[] = {"id", "ops", "errors", "seconds", "exit_status", "oom_killed"};
    static const char *wl[] = {"s3", "db", "search"};
    fputs("id,ops,errors,seconds,ops_per_second,exit_status,oom_killed,"
          "latency_ms_mean_s3,latency_ms_mean_db,latency_ms_mean_search\n", f);
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
        for (size_t k = 0; k < 3; k++)
            cell(f, json_object_get(json_object_get(c, "latency_ms_mean"), wl[k]), 0);
        fputc('\n', f);
    }
    if (close_checked(f, path, err, errlen))
        return -1;

    f = open_in(dir, "series.csv", path, sizeof path, err, errlen);
    if (!f)
        return -1;
    static const char *skeys[] = {"t", "cpu_util", "read_Bps", "read_iops", "write_Bps", "write_iops", "power_w"};
    for (size_t k = 0; k < 7; k++)
        fprintf(f, "%s%s", k ? "," : "", skeys[k]);
    fputc('\n', f);
    json_t *s;
    json_array_foreach(json_object_get(json_object_get(result, "telemetry"), "series"), i, s) {
        for (size_t k = 0; k < 7; k++)
            cell(f, json_object_get(s, skeys[k]), k == 0);
        fputc('\n', f);
    }
    return close_checked(f, path, err, errlen);
}
