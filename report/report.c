/* report.c -- `harness report RUN_DIR [-o FILE] [--csv DIR]`: turn a run's
 * result.json into one self-contained HTML page (inline SVG, inline CSS, no
 * script, no network) that reads on a laptop and on paper: the headline
 * figures and validity first, since that is what people quote, then where
 * the time went (latency per workload, spread across containers, CPU,
 * storage and power over time, the windows), then what the run ran on (the
 * inventory, the config) so a reader can judge a comparison.
 *
 * A sweep directory (RUN_DIR/sweep.json listing points/N/result.json) gets a
 * page of AOPS, per-core AOPS and latency against the number of containers,
 * and each point gets its own page next to its result.json. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../result/repeat.h"
#include "../workloads/workload.h"
#include "csv.h"
#include "merge_table.h"
#include "report.h"
#include "report_attrib.h"
#include "report_capacity.h"
#include "report_html.h"
#include "report_kv.h"
#include "report_pctl.h"
#include "report_power.h"
#include "report_repeat.h"
#include "report_served.h"
#include "report_sut.h"

#define MAX_WL 8
static const char *STATS[] = {"mean", "p50", "p95", "p99", "max"};

/* A figure whose text is ours (bytes, MB/s) but whose data-value is exact. */
static void sb_num_text(struct sbuf *b, const char *key, double v, const char *text) {
    sb_puts(b, "<span class=\"num\" data-key=\"");
    sb_esc(b, key);
    char e[40];
    if (isfinite(v))
        sb_printf(b, "\" data-value=\"%s\">", fmt_exact(e, sizeof e, v));
    else
        sb_puts(b, "\" data-value=\"null\">");
    sb_esc(b, isfinite(v) ? text : "–");
    sb_puts(b, "</span>");
}

static void num_at(struct sbuf *b, const json_t *r, const char *path, int dec) {
    double v = jnum(r, path);
    sb_num(b, path, v, dec < 0 ? auto_dec(v) : dec);
}

static void bytes_at(struct sbuf *b, const json_t *r, const char *path, const char *suffix) {
    char t[64], u[80];
    double v = jnum(r, path);
    fmt_bytes(t, sizeof t, v, 0);
    snprintf(u, sizeof u, "%s%s", t, suffix);
    sb_num_text(b, path, v, u);
}

static void card_begin(struct sbuf *b, const char *label) {
    sb_puts(b, "<div class=\"card\"><div class=\"label\">");
    sb_esc(b, label);
    sb_puts(b, "</div><div class=\"big\">");
}

static void list_strings(struct sbuf *b, const json_t *arr, const char *cls, const char *id) {
    size_t i;
    json_t *s;
    sb_printf(b, "<ul class=\"%s\" id=\"%s\">", cls, id);
    json_array_foreach(arr, i, s) {
        sb_puts(b, "<li>");
        sb_esc(b, json_is_string(s) ? json_string_value(s) : "(not a string)");
        sb_puts(b, "</li>");
    }
    sb_puts(b, "</ul>\n");
}

static void headline(struct sbuf *b, const json_t *r) {
    int valid = json_is_true(json_object_get(r, "valid"));
    sb_puts(b, "<div class=\"cards\" id=\"headline\">\n");
    card_begin(b, "AOPS (agentic operations per second)");
    num_at(b, r, "totals.aops", 1);
    sb_puts(b, "</div><div class=\"note\">");
    num_at(b, r, "totals.ops", 0);
    sb_puts(b, " operations in ");
    num_at(b, r, "totals.wall_seconds", 3);
    sb_puts(b, " s</div>");
    report_repeats_note(b, r);
    sb_puts(b, "</div>\n");

    card_begin(b, "per-core AOPS");
    num_at(b, r, "totals.aops_per_core", 2);
    sb_puts(b, "</div><div class=\"note\">");
    num_at(b, r, "system.physical_cores", 0);
    sb_puts(b, " physical cores</div></div>\n");

    report_power_cards(b, r);

    card_begin(b, "validity");
    sb_printf(
        b,
        "<span id=\"validity\" class=\"%s\" data-valid=\"%s\">%s</span></div><div class=\"note\">",
        valid ? "valid" : "invalid", valid ? "true" : "false", valid ? "valid" : "not valid");
    num_at(b, r, "totals.errors", 0);
    sb_puts(b, " errors</div></div>\n");

    /* Fit to publish (issue 25's rules, common/reportable.h), and why not. */
    int rep = json_is_true(json_object_get(r, "reportable"));
    json_t *nrr = json_object_get(r, "nonreportable_reasons");
    card_begin(b, "reportable");
    sb_printf(b,
              "<span id=\"reportable\" class=\"%s\" data-reportable=\"%s\">%s</span></div>"
              "<div class=\"note\">",
              rep ? "valid" : "invalid", rep ? "true" : "false",
              rep                                                 ? "reportable"
              : json_is_boolean(json_object_get(r, "reportable")) ? "not reportable"
                                                                  : "not judged");
    sb_printf(b, "%zu reason%s</div></div>\n</div>\n", json_array_size(nrr),
              json_array_size(nrr) == 1 ? "" : "s");

    json_t *why = json_object_get(r, "invalid_reasons");
    if (!valid || json_array_size(why)) {
        sb_puts(b, "<h3>Why the run is not valid</h3>\n");
        list_strings(b, why, "bad", "invalid-reasons");
    }
    if (json_array_size(nrr)) {
        sb_puts(b, "<h3>Why the result is not reportable</h3>\n");
        list_strings(b, nrr, "warn", "nonreportable-reasons");
    }
    json_t *warn = json_object_get(r, "warnings");
    if (json_array_size(warn)) {
        sb_puts(b, "<h3>Warnings</h3>\n");
        list_strings(b, warn, "warn", "warnings");
    }
}

/* One table row of a latency object: ops and errors (for an operation's own
 * latency, not for a workload's other histograms), then the five stats. */
static void latency_row(struct sbuf *b, const json_t *r, const char *name, const char *base,
                        const char *lat) {
    char k[160];
    sb_puts(b, "<tr><td>");
    sb_esc(b, name);
    sb_puts(b, "</td><td>");
    int own = !strcmp(lat, "latency_ms");
    snprintf(k, sizeof k, "%s.ops", base);
    if (own)
        num_at(b, r, k, 0);
    sb_puts(b, "</td><td>");
    snprintf(k, sizeof k, "%s.errors", base);
    if (own)
        num_at(b, r, k, 0);
    for (size_t s = 0; s < 5; s++) {
        sb_puts(b, "</td><td>");
        snprintf(k, sizeof k, "%s.%s.%s", base, lat, STATS[s]);
        num_at(b, r, k, 3);
    }
    sb_puts(b, "</td></tr>\n");
}

static void latency_section(struct sbuf *b, const json_t *r) {
    char k[160], n[80];
    const char *WL[MAX_WL];
    size_t nw = workload_keys(json_object_get(r, "workloads"), WL, MAX_WL);
    sb_puts(b,
            "<h2>Latency per workload (ms)</h2>\n<table "
            "id=\"latency\"><tr><th>workload</th><th>ops</th>"
            "<th>errors</th><th>mean</th><th>p50</th><th>p95</th><th>p99</th><th>max</th></tr>\n");
    for (size_t w = 0; w < nw; w++) {
        snprintf(k, sizeof k, "workloads.%s", WL[w]);
        if (!jget(r, k))
            continue;
        latency_row(b, r, workload_title(WL[w]), k, "latency_ms");
        /* The workload's other histograms and its classes, as it declares them. */
        const struct workload *wl = workload_find(WL[w]);
        for (unsigned h = 0; wl && h < wl->nhists; h++) {
            snprintf(k, sizeof k, "workloads.%s.%s", WL[w], wl->hists[h].key);
            snprintf(n, sizeof n, "  %s: %s", WL[w], wl->hists[h].title);
            if (jget(r, k)) {
                snprintf(k, sizeof k, "workloads.%s", WL[w]);
                latency_row(b, r, n, k, wl->hists[h].key);
            }
        }
        for (unsigned c = 0; wl && c < wl->nclasses; c++) {
            snprintf(k, sizeof k, "workloads.%s.%s.%s", WL[w], wl->classes_key, wl->class_names[c]);
            snprintf(n, sizeof n, "  %s: %s", WL[w], wl->class_names[c]);
            if (jget(r, k))
                latency_row(b, r, n, k, "latency_ms");
        }
    }
    sb_puts(b, "</table>\n");
    /* The distributions from the histograms; a result without them (an
     * older build) gets its five figures as bars. */
    if (report_latency_curves(b, r) == 0)
        return;
    sb_puts(b, "<div class=\"grid2\">\n");
    for (size_t w = 0; w < nw; w++) {
        double v[5];
        char id[64], title[96];
        snprintf(k, sizeof k, "workloads.%s", WL[w]);
        if (!jget(r, k))
            continue;
        for (size_t s = 0; s < 5; s++) {
            snprintf(k, sizeof k, "workloads.%s.latency_ms.%s", WL[w], STATS[s]);
            v[s] = jnum(r, k);
        }
        snprintf(id, sizeof id, "latency-%s", WL[w]);
        snprintf(title, sizeof title, "%s latency", workload_title(WL[w]));
        svg_bar_chart(b, id, title, "ms", STATS, v, 5);
    }
    sb_puts(b, "</div>\n");
}

/* Each workload's counters (bytes received, rows fetched, ...). */
static void figures_section(struct sbuf *b, const json_t *r) {
    const char *WL[MAX_WL];
    size_t nw = workload_keys(json_object_get(r, "workloads"), WL, MAX_WL), rows = 0;
    for (size_t w = 0; w < nw; w++) {
        const struct workload *wl = workload_find(WL[w]);
        for (unsigned c = 0; wl && c < wl->ncounters; c++) {
            char k[160];
            snprintf(k, sizeof k, "workloads.%s.%s", WL[w], wl->counters[c].key);
            if (!jget(r, k))
                continue;
            if (!rows++)
                sb_puts(b, "<h2>What the operations did</h2>\n<table id=\"figures\"><tr>"
                           "<th class=\"t\">workload</th><th class=\"t\">figure</th><th>total</th>"
                           "<th>per operation</th></tr>\n");
            sb_puts(b, "<tr><td class=\"t\">");
            sb_esc(b, workload_title(WL[w]));
            sb_puts(b, "</td><td class=\"t\">");
            sb_esc(b, wl->counters[c].title);
            sb_puts(b, "</td><td>");
            if (wl->counters[c].unit == WL_BYTES)
                bytes_at(b, r, k, "");
            else
                num_at(b, r, k, 0);
            char ko[160], t[64];
            snprintf(ko, sizeof ko, "workloads.%s.ops", WL[w]);
            double per = jnum(r, k) / jnum(r, ko);
            sb_printf(b, "</td><td>%s</td></tr>\n", fmt_num(t, sizeof t, per, auto_dec(per)));
        }
    }
    if (rows)
        sb_puts(b, "</table>\n");
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The finish-time distribution: each container's finish, sorted, so the
 * tail (the last to finish sets AOPS) shows against the median. */
static void finish_chart(struct sbuf *b, const json_t *r) {
    json_t *cs = json_object_get(r, "containers"), *c;
    size_t n = json_array_size(cs), i, k = 0;
    double *v = calloc(n ? n : 1, sizeof *v);
    char **lab = calloc(n ? n : 1, sizeof *lab);
    json_array_foreach(cs, i, c) {
        if (v && isfinite(jnum(c, "seconds")))
            v[k++] = jnum(c, "seconds");
    }
    if (v && lab && k) {
        qsort(v, k, sizeof *v, by_value);
        for (i = 0; i < k; i++) {
            lab[i] = malloc(24);
            if (lab[i])
                snprintf(lab[i], 24, "%zu", i + 1);
        }
        svg_bar_chart(b, "finish-times", "finish time of each container, sorted (s)", "s",
                      (const char *const *)lab, v, k);
        for (i = 0; i < k; i++)
            free(lab[i]);
    }
    free(v);
    free(lab);
}

static void containers_section(struct sbuf *b, const json_t *r) {
    json_t *cs = json_object_get(r, "containers"), *c;
    size_t n = json_array_size(cs), i;
    if (!n)
        return;
    sb_puts(b, "<h2>Distribution across containers</h2>\n");
    double *v = calloc(n, sizeof *v);
    char **lab = calloc(n, sizeof *lab);
    json_array_foreach(cs, i, c) {
        double ops = jnum(c, "ops"), sec = jnum(c, "seconds");
        v[i] = sec > 0 ? ops / sec : NAN;
        lab[i] = malloc(24);
        snprintf(lab[i], 24, "%g", jnum(c, "id"));
    }
    sb_puts(b, "<div class=\"grid2\">");
    svg_bar_chart(b, "containers-ops-per-second", "operations per second per container", "ops/s",
                  (const char *const *)lab, v, n);
    finish_chart(b, r);
    sb_puts(b, "</div>\n");
    if (json_is_object(json_object_get(r, "stragglers"))) {
        sb_puts(b, "<p id=\"stragglers\">Finish: first ");
        num_at(b, r, "stragglers.finish.first", 3);
        sb_puts(b, " s, median ");
        num_at(b, r, "stragglers.finish.median", 3);
        sb_puts(b, " s, last ");
        num_at(b, r, "stragglers.finish.last", 3);
        sb_puts(b, " s; tail share ");
        num_at(b, r, "stragglers.tail_share", 3);
        sb_puts(b, " ((last - median) / last); AOPS at the median finish ");
        num_at(b, r, "stragglers.aops_at_median", 1);
        sb_puts(b, ".</p>\n");
    }
    const char *WL[MAX_WL];
    size_t nw = workload_keys(json_object_get(r, "workloads"), WL, MAX_WL);
    sb_puts(
        b,
        "<table id=\"containers\"><tr><th>container</th><th>ops</th><th>errors</th><th>seconds</th>"
        "<th>ops/s</th><th>exit</th><th>OOM</th>");
    for (size_t w = 0; w < nw; w++) {
        sb_puts(b, "<th>");
        sb_esc(b, WL[w]);
        sb_puts(b, " mean ms</th>");
    }
    sb_puts(b, "</tr>\n");
    json_array_foreach(cs, i, c) {
        char k[96];
        sb_printf(b, "<tr><td>%s</td><td>", lab[i]);
        static const char *f[] = {"ops", "errors", "seconds"};
        for (size_t j = 0; j < 3; j++) {
            snprintf(k, sizeof k, "containers.%zu.%s", i, f[j]);
            num_at(b, r, k, j == 2 ? 3 : 0);
            sb_puts(b, "</td><td>");
        }
        char f2[64];
        sb_printf(b, "%s</td><td>", fmt_num(f2, sizeof f2, v[i], 1));
        snprintf(k, sizeof k, "containers.%zu.exit_status", i);
        num_at(b, r, k, 0);
        sb_printf(b, "</td><td>%s",
                  json_is_true(json_object_get(c, "oom_killed")) ? "<b>killed</b>" : "no");
        for (size_t w = 0; w < nw; w++) {
            snprintf(k, sizeof k, "containers.%zu.latency_ms_mean.%s", i, WL[w]);
            sb_puts(b, "</td><td>");
            num_at(b, r, k, 3);
        }
        sb_puts(b, "</td></tr>\n");
        free(lab[i]);
    }
    sb_puts(b, "</table>\n");
    free(v);
    free(lab);
}

/* Pull one column of telemetry.series into y (NAN for null); scale applies. */
static size_t series_col(const json_t *series, const char *key, double *y, double scale) {
    size_t i, finite = 0;
    json_t *p;
    json_array_foreach(series, i, p) {
        y[i] = jnum(p, key) * scale;
        finite += isfinite(y[i]) != 0;
    }
    return finite;
}

static void telemetry_section(struct sbuf *b, const json_t *r) {
    json_t *series = jget(r, "telemetry.series");
    size_t n = json_array_size(series);
    sb_puts(b, "<h2>Over time</h2>\n");
    sb_puts(b, "<table id=\"telemetry\"><tr><th>whole run</th><th>mean</th><th>peak</th></tr>\n"
               "<tr><td>CPU utilisation (% of all logical CPUs)</td><td>");
    num_at(b, r, "telemetry.cpu_util.mean", 1);
    sb_puts(b, "</td><td>");
    num_at(b, r, "telemetry.cpu_util.peak", 1);
    sb_puts(b, "</td></tr>\n<tr><td>storage read</td><td>");
    bytes_at(b, r, "telemetry.read_Bps.mean", "/s");
    sb_puts(b, "</td><td>");
    bytes_at(b, r, "telemetry.read_Bps.peak", "/s");
    sb_puts(b, "</td></tr>\n<tr><td>read IOPS</td><td>");
    num_at(b, r, "telemetry.read_iops.mean", 0);
    sb_puts(b, "</td><td>");
    num_at(b, r, "telemetry.read_iops.peak", 0);
    sb_puts(b, "</td></tr>\n");
    report_power_rows(b, r);
    sb_puts(b, "</table>\n");

    double *t = calloc(n + 1, sizeof *t), *y[4];
    for (int i = 0; i < 4; i++)
        y[i] = calloc(n + 1, sizeof *y[i]);
    series_col(series, "t", t, 1);
    /* The windows shade the charts so a dip lines up with the phase: one
     * span per cycle's interval (a window is their union), one colour per
     * window. A result without intervals has its first start to last end. */
    enum { MAX_SPANS = 64 * MAX_WL };
    struct chart_span *spans = calloc(MAX_SPANS, sizeof *spans);
    size_t nspans = 0;
    const char *WL[MAX_WL];
    size_t nw = workload_keys(json_object_get(r, "windows"), WL, MAX_WL);
    for (size_t w = 0; spans && w < nw; w++) {
        char k[64];
        snprintf(k, sizeof k, "windows.%s.intervals", WL[w]);
        const json_t *ivs = jget(r, k), *iv;
        size_t i;
        json_array_foreach(ivs, i, iv) {
            double a = jnum(iv, "start"), z = jnum(iv, "end");
            if (isfinite(a) && isfinite(z) && nspans < MAX_SPANS)
                spans[nspans++] = (struct chart_span){WL[w], a, z, (unsigned)w};
        }
        if (json_array_size(ivs))
            continue;
        snprintf(k, sizeof k, "windows.%s.start", WL[w]);
        double a = jnum(r, k);
        snprintf(k, sizeof k, "windows.%s.end", WL[w]);
        double z = jnum(r, k);
        if (isfinite(a) && isfinite(z) && nspans < MAX_SPANS)
            spans[nspans++] = (struct chart_span){WL[w], a, z, (unsigned)w};
    }
    sb_puts(b, "<div class=\"grid2\">\n");
    series_col(series, "cpu_util", y[0], 1);
    struct chart_series cpu = {"CPU", t, y[0], n};
    svg_line_chart(b, "cpu-util", "CPU utilisation", "seconds since start", "%", &cpu, 1, spans,
                   nspans, 100);
    report_throughput_charts(b, r, spans, nspans);

    /* Next to the disks, the bytes the workloads were served: objects and
     * files read far faster than the disks delivered came from the page cache. */
    struct served sv;
    struct chart_series bw[2 + SERVED_MAX] = {{"disk read", t, y[0], n},
                                              {"disk write", t, y[1], n}};
    series_col(series, "read_Bps", y[0], 1e-6);
    series_col(series, "write_Bps", y[1], 1e-6);
    served_series(series, n, 1e-6, &sv);
    for (size_t i = 0; i < sv.n; i++)
        bw[2 + i] = (struct chart_series){sv.name[i], t, sv.y + i * n, n};
    svg_line_chart(b, "storage-throughput",
                   sv.n ? "disk throughput and bytes served to the workloads"
                        : "storage throughput",
                   "seconds since start", "MB/s", bw, 2 + sv.n, spans, nspans, 0);
    served_free(&sv);

    series_col(series, "read_iops", y[2], 1);
    series_col(series, "write_iops", y[3], 1);
    struct chart_series io[2] = {{"read", t, y[2], n}, {"write", t, y[3], n}};
    svg_line_chart(b, "iops", "storage IOPS", "seconds since start", "IOPS", io, 2, spans, nspans,
                   0);

    report_power_chart(b, r, t, n, spans, nspans);
    sb_puts(b, "</div>\n");
    free(spans);
    free(t);
    for (int i = 0; i < 4; i++)
        free(y[i]);
}

/* One table of windows.<w>.<f[j]> (bytes columns as bytes per second). */
static void window_rows(struct sbuf *b, const json_t *r, const char *const *WL, size_t nw,
                        const char *const *f, const int *dec, size_t nf, unsigned bytes_cols) {
    for (size_t w = 0; w < nw; w++) {
        char k[96];
        snprintf(k, sizeof k, "windows.%s", WL[w]);
        if (!jget(r, k))
            continue;
        sb_puts(b, "<tr><td>");
        sb_esc(b, WL[w]);
        sb_puts(b, "</td>");
        for (size_t j = 0; j < nf; j++) {
            snprintf(k, sizeof k, "windows.%s.%s", WL[w], f[j]);
            sb_puts(b, "<td>");
            if (bytes_cols >> j & 1)
                bytes_at(b, r, k, "/s");
            else
                num_at(b, r, k, dec[j]);
            sb_puts(b, "</td>");
        }
        sb_puts(b, "</tr>\n");
    }
    sb_puts(b, "</table>\n");
}

static void windows_section(struct sbuf *b, const json_t *r) {
    if (!json_is_object(json_object_get(r, "windows")))
        return;
    const char *WL[MAX_WL];
    size_t nw = workload_keys(json_object_get(r, "windows"), WL, MAX_WL);
    sb_puts(b, "<h2>Windows</h2>\n<p>A window is the union of its workload's per-cycle intervals; "
               "shared: the share of it when another workload ran too; alone: the rest, and its "
               "CPU; disk: the share of the bytes the workloads read that the disks served.</p>\n"
               "<table id=\"windows\"><tr><th>window</th><th>start s</th><th>end s</th>"
               "<th>CPU mean %</th><th>CPU peak %</th><th>read mean</th><th>read peak</th>"
               "<th>IOPS mean</th><th>IOPS peak</th></tr>\n");
    static const char *f[] = {"start",         "end",           "cpu_util.mean",  "cpu_util.peak",
                              "read_Bps.mean", "read_Bps.peak", "read_iops.mean", "read_iops.peak"};
    static const int dec[] = {3, 3, 1, 1, 0, 0, 0, 0};
    window_rows(b, r, WL, nw, f, dec, 8, 1u << 4 | 1u << 5);
    /* How much of each window was its own: a table of its own, to fit an A4 page. */
    sb_puts(b, "<table id=\"windows-shares\"><tr><th>window</th><th>seconds</th><th>shared</th>"
               "<th>alone s</th><th>alone CPU %</th><th>steal %</th><th>disk</th></tr>\n");
    static const char *g[] = {"seconds",           "overlap_share",
                              "exclusive.seconds", "exclusive.cpu_util.mean",
                              "steal_pct.mean",    "served_from_disk"};
    static const int gdec[] = {3, 3, 3, 1, 1, 3};
    window_rows(b, r, WL, nw, g, gdec, 6, 0);
}

/* The drives' own fio baseline (harness baseline) and each window's read
 * throughput as a share of it: how near the run came to the hardware. */
static void baseline_section(struct sbuf *b, const json_t *r) {
    const json_t *bl = json_object_get(r, "storage_baseline");
    if (!json_is_object(bl) && !jget(r, "telemetry.baseline_unavailable_reason"))
        return; /* an older result: nothing to say */
    sb_puts(b, "<h2>The drives' baseline</h2>\n<p id=\"baseline-summary\">");
    double sum = jnum(r, "telemetry.baseline_read_Bps");
    if (isfinite(sum)) {
        sb_puts(b, "fio measured the sampled drives at ");
        bytes_at(b, r, "telemetry.baseline_read_Bps", "/s");
        sb_puts(b, " of sequential 1 MiB reads together (O_DIRECT). Read throughput as a share of "
                   "that: the whole run ");
        num_at(b, r, "telemetry.read_pct_of_baseline.mean", 1);
        sb_puts(b, " % on average");
        const char *WL[MAX_WL];
        size_t nw = workload_keys(json_object_get(r, "windows"), WL, MAX_WL);
        for (size_t w = 0; w < nw; w++) {
            char k[96];
            snprintf(k, sizeof k, "windows.%s.read_pct_of_baseline.mean", WL[w]);
            sb_puts(b, w ? ", the " : "; the ");
            sb_esc(b, WL[w]);
            sb_puts(b, " window ");
            num_at(b, r, k, 1);
            sb_puts(b, " %");
        }
        sb_puts(b, ".</p>\n");
    } else {
        sb_puts(b, "No read throughput as a share of the drives' baseline: ");
        const char *why = jstr(r, "telemetry.baseline_unavailable_reason");
        sb_esc(b, why ? why : "no baseline");
        sb_puts(b, ".</p>\n");
    }
    if (!json_is_object(bl) || !json_object_size(bl))
        return;
    sb_puts(b, "<table id=\"baseline\"><tr><th>device</th><th>sequential 1 MiB read</th>"
               "<th>random 4 KiB read IOPS</th><th class=\"t\">fio</th><th class=\"t\">"
               "measured at</th></tr>\n");
    const char *dev;
    json_t *e;
    json_object_foreach((json_t *)bl, dev, e) {
        char k[256];
        sb_puts(b, "<tr><td>");
        sb_esc(b, dev);
        sb_puts(b, "</td><td>");
        snprintf(k, sizeof k, "storage_baseline.%s.seq_read_Bps", dev);
        bytes_at(b, r, k, "/s");
        sb_puts(b, "</td><td>");
        snprintf(k, sizeof k, "storage_baseline.%s.rand_read_iops", dev);
        num_at(b, r, k, 0);
        sb_puts(b, "</td><td class=\"t\">");
        const char *why = jstr(e, "reason");
        sb_esc(b, why ? why : jstr(e, "fio_version") ? jstr(e, "fio_version") : "");
        sb_puts(b, "</td><td class=\"t\">");
        sb_esc(b, jstr(e, "measured_at") ? jstr(e, "measured_at") : "");
        sb_puts(b, "</td></tr>\n");
    }
    sb_puts(b, "</table>\n");
}

static void system_section(struct sbuf *b, const json_t *r) {
    json_t *sys = json_object_get(r, "system"), *cfg = json_object_get(r, "config");
    sb_puts(b, "<div class=\"grid2\"><div><h2>System</h2>\n");
    if (json_is_object(sys)) {
        /* Tables of their own: the disks, and the disclosure (system under test). */
        static const char *const skip[] = {
            "disks",        "topology",        "dmi",  "memory_dimms",
            "cpu_settings", "kernel_settings", "nics", NULL};
        kv_table_nested(b, sys, "system", "system", skip);
        json_t *d;
        size_t i;
        if (json_array_size(json_object_get(sys, "disks"))) {
            sb_puts(
                b, "<table id=\"disks\"><tr><th>disk</th><th class=\"t\">model</th><th class=\"t\">"
                   "rotational</th><th class=\"t\">scheduler</th></tr>\n");
            json_array_foreach(json_object_get(sys, "disks"), i, d) {
                sb_puts(b, "<tr><td>");
                sb_esc(b, jstr(d, "name"));
                sb_puts(b, "</td><td class=\"t\">");
                sb_esc(b, jstr(d, "model"));
                sb_printf(b, "</td><td class=\"t\">%s</td><td class=\"t\">",
                          json_is_true(json_object_get(d, "rotational")) ? "yes" : "no");
                sb_esc(b, jstr(d, "scheduler"));
                sb_puts(b, "</td></tr>\n");
            }
            sb_puts(b, "</table>\n");
        }
    }
    sb_puts(b, "</div><div><h2>Configuration</h2>\n");
    if (json_is_object(cfg))
        kv_table_nested(b, cfg, "config", "config", NULL);
    sb_puts(b, "</div></div>\n");
}

/* The whole page body for one run. */
static void render_run(struct sbuf *b, const json_t *r, const char *name) {
    char sub[64];
    sb_puts(b, "<h1>aops-harness run ");
    sb_esc(b, name);
    sb_puts(b, "</h1>\n<p class=\"sub\">");
    sb_esc(b, jstr(r, "system.cpu_model"));
    sb_printf(b, " · %s containers · profile ",
              fmt_num(sub, sizeof sub, jnum(r, "config.containers"), 0));
    sb_esc(b, jstr(r, "config.profile"));
    sb_puts(b, " · schedule ");
    sb_esc(b, jstr(r, "config.schedule"));
    sb_puts(b, "</p>\n");
    headline(b, r);
    report_repeats_section(b, r);
    shards_html(b, r); /* a merged result: one row per host */
    latency_section(b, r);
    figures_section(b, r);
    containers_section(b, r);
    telemetry_section(b, r);
    windows_section(b, r);
    baseline_section(b, r);
    report_attrib_section(b, r);
    report_sut_section(b, r);
    report_topology_map(b, r);
    system_section(b, r);
    sb_printf(b, "<footer>result.json schema %s · written by harness report</footer>\n",
              fmt_num(sub, sizeof sub, jnum(r, "schema_version"), 0));
}

static int write_file(const char *path, const struct sbuf *b, char *err, size_t errlen) {
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fwrite(b->b.p, 1, b->b.len, f);
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}

/* The run directory's last component, for titles ("results/epyc/" -> "epyc"). */
static void base_name(const char *dir, char *out, size_t len) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/')
        tmp[--n] = 0;
    snprintf(out, len, "%s", basename(tmp));
}

/* ---- sweeps ---- */

/* A sweep table's figure columns: the totals, then each workload's p95. */
#define SWEEP_TOTALS 6
struct sweep_cols {
    size_t n;
    const char *path[SWEEP_TOTALS + MAX_WL];
    int dec[SWEEP_TOTALS + MAX_WL];
    char buf[MAX_WL][96];
    char name[MAX_WL][64]; /* the workloads of the p95 columns */
};

static void sweep_columns(const json_t *first, struct sweep_cols *sc) {
    static const char *totals[SWEEP_TOTALS] = {"totals.ops",           "totals.errors",
                                               "totals.wall_seconds",  "totals.aops",
                                               "totals.aops_per_core", "totals.aops_per_watt"};
    static const int tdec[SWEEP_TOTALS] = {0, 0, 3, 1, 2, 3};
    sc->n = 0;
    for (size_t c = 0; c < SWEEP_TOTALS; c++) {
        sc->path[sc->n] = totals[c];
        sc->dec[sc->n++] = tdec[c];
    }
    const char *WL[MAX_WL];
    size_t nw = first ? workload_keys(json_object_get(first, "workloads"), WL, MAX_WL) : 0;
    for (size_t w = 0; w < nw; w++) {
        snprintf(sc->buf[w], sizeof sc->buf[w], "workloads.%s.latency_ms.p95", WL[w]);
        snprintf(sc->name[w], sizeof sc->name[w], "%s", WL[w]);
        sc->path[sc->n] = sc->buf[w];
        sc->dec[sc->n++] = 3;
    }
}

struct point {
    double containers;
    char dir[4200];
    json_t *r;
};

static void sweep_chart(struct sbuf *b, const char *id, const char *title, const char *unit,
                        struct point *p, size_t n, const char *const *paths,
                        const char *const *names, size_t ns) {
    double *x = calloc(n, sizeof *x), *y = calloc(n * ns, sizeof *y);
    double *lo = calloc(n * ns, sizeof *lo), *hi = calloc(n * ns, sizeof *hi);
    struct chart_series s[4];
    const double *los[4] = {0}, *his[4] = {0};
    for (size_t k = 0; k < ns; k++) {
        int spread = 0;
        for (size_t i = 0; i < n; i++) {
            x[i] = p[i].containers;
            y[k * n + i] = p[i].r ? jnum(p[i].r, paths[k]) : NAN;
            /* A point of --repeat runs: its min and max as an error bar. */
            spread |= p[i].r && repeat_range(p[i].r, paths[k], &lo[k * n + i], &hi[k * n + i]) == 1;
            if (!p[i].r)
                lo[k * n + i] = hi[k * n + i] = NAN;
        }
        s[k] = (struct chart_series){names[k], x, y + k * n, n};
        if (spread)
            los[k] = lo + k * n, his[k] = hi + k * n;
    }
    svg_line_chart_spread(b, id, title, "containers", unit, s, ns, los, his);
    free(x);
    free(y);
    free(lo);
    free(hi);
}

static int render_sweep(struct sbuf *b, const char *dir, const json_t *sweep, const char *name,
                        int point_pages, char *err, size_t errlen) {
    json_t *pts = json_object_get(sweep, "points"), *pj;
    size_t n = json_array_size(pts), i;
    if (!n) {
        snprintf(err, errlen, "%s/sweep.json: no points", dir);
        return -1;
    }
    struct point *p = calloc(n, sizeof *p);
    json_t *missing = json_array();
    json_array_foreach(pts, i, pj) {
        char e[512];
        p[i].containers = jnum(pj, "containers");
        snprintf(p[i].dir, sizeof p[i].dir, "%s/%s", dir, jstr(pj, "dir") ? jstr(pj, "dir") : "");
        /* A sweep stopped half way still has points worth showing. Its
         * points' names come from sweep.json: inside RUN_DIR only. */
        p[i].r = load_run_at(dir, jstr(pj, "dir"), e, sizeof e);
        if (!p[i].r)
            json_array_append_new(missing, json_string(e));
    }
    sb_puts(b, "<h1>aops-harness sweep ");
    sb_esc(b, name);
    sb_puts(b, "</h1>\n<p class=\"sub\">");
    const json_t *first = NULL;
    for (i = 0; i < n && !first; i++)
        first = p[i].r;
    if (first) {
        sb_esc(b, jstr(first, "system.cpu_model"));
        sb_puts(b, " · profile ");
        sb_esc(b, jstr(first, "config.profile"));
        sb_puts(b, " · ");
    }
    sb_printf(b, "%zu points</p>\n", n);
    if (json_array_size(missing)) {
        sb_puts(b, "<h3>Points that could not be read</h3>\n");
        list_strings(b, missing, "bad", "missing-points");
    }
    sb_puts(b, "<div class=\"grid2\">\n");
    static const char *aops[] = {"totals.aops"}, *aops_n[] = {"AOPS"};
    static const char *apc[] = {"totals.aops_per_core"}, *apc_n[] = {"per-core AOPS"};
    sweep_chart(b, "sweep-aops", "AOPS against containers", "AOPS", p, n, aops, aops_n, 1);
    sweep_chart(b, "sweep-aops-per-core", "per-core AOPS against containers", "AOPS/core", p, n,
                apc, apc_n, 1);
    const char *WL[MAX_WL];
    size_t nw = first ? workload_keys(json_object_get(first, "workloads"), WL, MAX_WL) : 0;
    for (size_t w = 0; w < nw; w++) {
        char k[3][96], id[96], title[160];
        const char *paths[3] = {k[0], k[1], k[2]};
        static const char *names[] = {"mean", "p95", "p99"};
        snprintf(k[0], 96, "workloads.%s.latency_ms.mean", WL[w]);
        snprintf(k[1], 96, "workloads.%s.latency_ms.p95", WL[w]);
        snprintf(k[2], 96, "workloads.%s.latency_ms.p99", WL[w]);
        snprintf(id, sizeof id, "sweep-latency-%s", WL[w]);
        snprintf(title, sizeof title, "%s latency against containers", workload_title(WL[w]));
        sweep_chart(b, id, title, "ms", p, n, paths, names, 3);
    }
    sb_puts(b, "</div>\n<h2>Points</h2>\n<table id=\"sweep\"><tr><th>containers</th><th>valid</th>"
               "<th>ops</th><th>errors</th><th>seconds</th><th>AOPS</th><th>per-core AOPS</th>"
               "<th>AOPS/W</th>");
    struct sweep_cols sc;
    sweep_columns(first, &sc);
    for (size_t w = 0; w < nw; w++) {
        sb_puts(b, "<th>");
        sb_esc(b, WL[w]);
        sb_puts(b, " p95 ms</th>");
    }
    /* Points of --repeat runs: the spread of their AOPS. */
    static const char *spread_cols[] = {"repeats.n", "repeats.aops_min", "repeats.aops_max",
                                        "repeats.aops_cv"};
    int spread = 0;
    for (i = 0; i < n; i++)
        spread |= p[i].r && json_is_object(json_object_get(p[i].r, "repeats"));
    if (spread)
        sb_puts(b, "<th>runs</th><th>AOPS min</th><th>AOPS max</th><th>AOPS CV %</th>");
    sb_puts(b, "<th class=\"t\">details</th></tr>\n");
    for (i = 0; i < n; i++) {
        char f[64], key[160];
        sb_printf(b, "<tr><td>%s</td>", fmt_num(f, sizeof f, p[i].containers, 0));
        if (!p[i].r) {
            sb_printf(b, "<td colspan=\"%zu\" class=\"t\">missing</td></tr>\n", sc.n + 2);
            continue;
        }
        int valid = json_is_true(json_object_get(p[i].r, "valid"));
        sb_printf(b, "<td class=\"%s\">%s</td>", valid ? "valid" : "invalid", valid ? "yes" : "no");
        const char *const *cols = sc.path;
        const int *dec = sc.dec;
        for (size_t c = 0; c < sc.n; c++) {
            snprintf(key, sizeof key, "sweep.%zu.%s", i, cols[c]);
            sb_puts(b, "<td>");
            sb_num(b, key, jnum(p[i].r, cols[c]), dec[c]);
            sb_puts(b, "</td>");
        }
        for (size_t c = 0; spread && c < 4; c++) {
            snprintf(key, sizeof key, "sweep.%zu.%s", i, spread_cols[c]);
            sb_puts(b, "<td>");
            sb_num(b, key, jnum(p[i].r, spread_cols[c]), c ? 1 : 0);
            sb_puts(b, "</td>");
        }
        sb_puts(b, "<td class=\"t\">");
        if (point_pages) {
            sb_puts(b, "<a href=\"");
            sb_esc(b, jstr(json_array_get(pts, i), "dir"));
            sb_puts(b, "/report.html\">report</a>");
        }
        sb_puts(b, "</td></tr>\n");
    }
    sb_puts(b, "</table>\n");

    /* Warnings of every point, each said once with the points it came from. */
    json_t *warn = json_array();
    for (i = 0; i < n; i++) {
        json_t *w;
        size_t j;
        json_array_foreach(p[i].r ? json_object_get(p[i].r, "warnings") : NULL, j, w) {
            char line[1024];
            snprintf(line, sizeof line, "%g containers: %s", p[i].containers,
                     json_string_value(w) ? json_string_value(w) : "");
            json_array_append_new(warn, json_string(line));
        }
        json_array_foreach(p[i].r ? json_object_get(p[i].r, "invalid_reasons") : NULL, j, w) {
            char line[1024];
            snprintf(line, sizeof line, "%g containers: not valid: %s", p[i].containers,
                     json_string_value(w) ? json_string_value(w) : "");
            json_array_append_new(warn, json_string(line));
        }
    }
    if (json_array_size(warn)) {
        sb_puts(b, "<h3>Warnings</h3>\n");
        list_strings(b, warn, "warn", "warnings");
    }
    if (first)
        system_section(b, first);

    int rc = 0;
    for (i = 0; i < n; i++) {
        if (p[i].r && point_pages) {
            struct sbuf pb = {0};
            char path[4300], title[400];
            snprintf(title, sizeof title, "%s · %g containers", name, p[i].containers);
            page_begin(&pb, title);
            render_run(&pb, p[i].r, title);
            page_end(&pb);
            snprintf(path, sizeof path, "%s/report.html", p[i].dir);
            if (write_file(path, &pb, err, errlen))
                rc = -1;
            sb_free(&pb);
        }
        json_decref(p[i].r);
    }
    json_decref(missing);
    json_decref(warn);
    free(p);
    return rc;
}

static void report_usage(FILE *f) {
    fputs(
        "usage: harness report RUN_DIR [-o FILE.html] [--csv DIR]\n"
        "  Writes one self-contained HTML page (no network needed) from RUN_DIR/result.json,\n"
        "  by default RUN_DIR/report.html. A sweep directory (RUN_DIR/sweep.json) gets a page of\n"
        "  AOPS, per-core AOPS and latency against containers, and one page per point.\n"
        "  --csv DIR  also write DIR/containers.csv and DIR/series.csv (for a sweep: "
        "DIR/sweep.csv\n"
        "             and DIR/points/N/*.csv).\n"
        "exit status: 0 written, 2 bad usage or unreadable run, 1 could not write.\n",
        f);
}

static int sweep_csv(const char *dir, const json_t *sweep, const char *csvdir, char *err,
                     size_t errlen) {
    char path[4300];
    if (mkdir(csvdir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", csvdir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/points", csvdir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/sweep.csv", csvdir);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t i;
    json_t *pj;
    int rc = 0;
    struct sweep_cols sc = {0};
    json_array_foreach(json_object_get(sweep, "points"), i, pj) {
        char pdir[4300], e[512];
        json_t *r = load_run_at(dir, jstr(pj, "dir"), e, sizeof e);
        if (!r)
            continue;
        if (!sc.n) { /* the columns: the first readable point's workloads */
            sweep_columns(r, &sc);
            fputs("containers,valid,ops,errors,wall_seconds,aops,aops_per_core,aops_per_watt", f);
            for (size_t c = SWEEP_TOTALS; c < sc.n; c++)
                fprintf(f, ",%s_p95_ms", sc.name[c - SWEEP_TOTALS]);
            fputc('\n', f);
        }
        fprintf(f, "%g,%s", jnum(pj, "containers"),
                json_is_true(json_object_get(r, "valid")) ? "true" : "false");
        for (size_t c = 0; c < sc.n; c++) {
            double v = jnum(r, sc.path[c]);
            char e[40];
            if (isfinite(v))
                fprintf(f, ",%s", fmt_exact(e, sizeof e, v));
            else
                fputc(',', f);
        }
        fputc('\n', f);
        snprintf(pdir, sizeof pdir, "%s/points/%g", csvdir, jnum(pj, "containers"));
        if (csv_export(r, pdir, err, errlen))
            rc = -1;
        json_decref(r);
    }
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return rc;
}

int report_main(int argc, char **argv) {
    const char *dir = NULL, *out = NULL, *csvdir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            report_usage(stdout);
            return 0;
        } else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out")) && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csvdir = argv[++i];
        else if (argv[i][0] == '-' || dir) {
            fprintf(stderr,
                    "harness report: unexpected argument '%s' (see harness report --help)\n",
                    argv[i]);
            return 2;
        } else
            dir = argv[i];
    }
    if (!dir) {
        fputs("harness report: missing RUN_DIR (usage: harness report RUN_DIR [-o FILE.html])\n",
              stderr);
        return 2;
    }

    char err[8800], name[256], path[4300], sweep_path[4300];
    base_name(dir, name, sizeof name);
    snprintf(sweep_path, sizeof sweep_path, "%s/sweep.json", dir);
    struct sbuf b = {0};
    int rc = 0;
    json_t *cap = NULL; /* harness capacity: the curve (report_capacity.c) */
    int is_cap = capacity_doc(dir, &cap, err, sizeof err);
    if (is_cap < 0) {
        fprintf(stderr, "harness report: %s\n", err);
        return 2;
    }
    if (is_cap) {
        char title[300];
        snprintf(title, sizeof title, "aops-harness capacity %s", name);
        page_begin(&b, title);
        if (render_capacity(&b, cap, name, err, sizeof err))
            fprintf(stderr, "harness report: %s\n", err), rc = 1;
        page_end(&b);
        json_decref(cap);
    } else if (access(sweep_path, F_OK) == 0) {
        json_error_t je;
        json_t *sweep = json_load_file(sweep_path, 0, &je);
        if (!sweep) {
            fprintf(stderr, "harness report: %s: %s\n", sweep_path, je.text);
            return 2;
        }
        char title[300];
        snprintf(title, sizeof title, "aops-harness sweep %s", name);
        page_begin(&b, title);
        /* Point pages sit next to each point's result.json; the links are
         * relative, so they only hold when the sweep page is in RUN_DIR. */
        if (render_sweep(&b, dir, sweep, name, out == NULL, err, sizeof err))
            fprintf(stderr, "harness report: %s\n", err), rc = 1;
        page_end(&b);
        if (csvdir && sweep_csv(dir, sweep, csvdir, err, sizeof err))
            fprintf(stderr, "harness report: %s\n", err), rc = 1;
        json_decref(sweep);
    } else {
        json_t *r = load_run(dir, err, sizeof err);
        if (!r) {
            fprintf(stderr, "harness report: %s\n", err);
            return 2;
        }
        char title[300];
        snprintf(title, sizeof title, "aops-harness run %s", name);
        page_begin(&b, title);
        render_run(&b, r, name);
        page_end(&b);
        if (csvdir && csv_export(r, csvdir, err, sizeof err))
            fprintf(stderr, "harness report: %s\n", err), rc = 1;
        json_decref(r);
    }
    if (!out) {
        snprintf(path, sizeof path, "%s/report.html", dir);
        out = path;
    }
    if (write_file(out, &b, err, sizeof err)) {
        fprintf(stderr, "harness report: %s\n", err);
        rc = 1;
    } else
        printf("wrote %s\n", out);
    sb_free(&b);
    return rc;
}
