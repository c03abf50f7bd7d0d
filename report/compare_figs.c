/* compare_figs.c -- the figure set of `harness compare` (see compare_figs.h). */
#include "compare_figs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../result/repeat.h"
#include "report_charts.h"

#define MAX_WIN 8
#define MAX_RUNS 26
#define MAX_NOTES 32

/* A figure of each window and of the whole run: windows.<w>.<metric>.mean
 * and .peak, the run's at run_mean / run_peak; why: the result's words for
 * a null. */
static const struct fig {
    const char *id, *title, *chart, *metric, *unit;
    int bytes, dec;
    const char *run_mean, *run_peak, *why;
    int optional; /* shown only when a run has it (platform power: most have no wall meter) */
} FIGS[] = {
    {"compare-cpu-util", "CPU utilisation, % of all logical CPUs",
     "CPU utilisation per window (% of all CPUs)", "cpu_util", "%", 0, 1, "telemetry.cpu_util.mean",
     "telemetry.cpu_util.peak", "telemetry.cpu_unavailable_reason", 0},
    {"compare-read-bps", "storage read throughput", "storage read throughput per window",
     "read_Bps", "MB/s", 1, 0, "telemetry.read_Bps.mean", "telemetry.read_Bps.peak",
     "telemetry.disk_unavailable_reason", 0},
    {"compare-read-iops", "storage read IOPS", "storage read IOPS per window", "read_iops", "IOPS",
     0, 0, "telemetry.read_iops.mean", "telemetry.read_iops.peak",
     "telemetry.disk_unavailable_reason", 0},
    /* The read throughput against what fio measured the same drives doing
     * (harness baseline): how close the run came to the hardware. Shown
     * when a run has a baseline (most runs on a laptop have none). */
    {"compare-read-baseline", "storage read, % of the drives' fio baseline",
     "storage read per window, % of the drives' baseline", "read_pct_of_baseline", "%", 0, 1,
     "telemetry.read_pct_of_baseline.mean", "telemetry.read_pct_of_baseline.peak",
     "telemetry.baseline_unavailable_reason", 1},
    {"compare-power", "package power, W", "package power per window", "power_w", "W", 0, 1,
     "telemetry.power.scope=package.mean_w", "telemetry.power.scope=package.peak_w",
     "telemetry.power_unavailable_reason", 0},
    {"compare-power-platform", "platform power, W", "platform power per window", "power_platform_w",
     "W", 0, 1, "telemetry.power.scope=platform.mean_w", "telemetry.power.scope=platform.peak_w",
     "telemetry.power.scope=platform.reason", 1},
};
#define NFIGS (sizeof FIGS / sizeof FIGS[0])

/* An optional figure no run has is left out. */
static int fig_absent(const struct fig *f, const json_t *const *r, int n) {
    for (int i = 0; f->optional && i < n; i++)
        if (isfinite(jnum(r[i], f->run_mean)))
            return 0;
    return f->optional;
}

/* The windows of all runs: the registry's order, then others as found. */
static size_t windows_of(const json_t *const *r, int n, const char **out) {
    size_t nw = 0;
    for (int i = 0; i < n; i++) {
        const char *w[MAX_WIN];
        size_t k = workload_keys(json_object_get(r[i], "windows"), w, MAX_WIN);
        for (size_t j = 0; j < k; j++) {
            size_t m = 0;
            while (m < nw && strcmp(out[m], w[j]))
                m++;
            if (m == nw && nw < MAX_WIN)
                out[nw++] = w[j];
        }
    }
    return nw;
}

/* The rows of a figure: each window's mean and peak, then the run's. */
struct row {
    char name[96], path[160];
    const char *win; /* NULL: the whole run */
};

static size_t fig_rows(const struct fig *f, const char *const *win, size_t nw, struct row *rows) {
    size_t n = 0;
    for (size_t w = 0; w < nw; w++)
        for (int p = 0; p < 2; p++, n++) {
            snprintf(rows[n].name, sizeof rows[n].name, "%s window %s", win[w],
                     p ? "peak" : "mean");
            snprintf(rows[n].path, sizeof rows[n].path, "windows.%s.%s.%s", win[w], f->metric,
                     p ? "peak" : "mean");
            rows[n].win = win[w];
        }
    for (int p = 0; p < 2; p++, n++) {
        snprintf(rows[n].name, sizeof rows[n].name, "whole run %s", p ? "peak" : "mean");
        snprintf(rows[n].path, sizeof rows[n].path, "%s", p ? f->run_peak : f->run_mean);
        rows[n].win = NULL;
    }
    return n;
}

/* Why r has no value at a row of f, in the result's own words if it has some. */
static void why_null(const json_t *r, const struct fig *f, const char *win, char *out, size_t len) {
    char k[128];
    snprintf(k, sizeof k, "windows.%s", win ? win : "");
    const char *why = jstr(r, f->why);
    if (win && !json_is_object(jget(r, k)))
        snprintf(out, len, "no %s window in this run", win);
    else if (win && !json_object_get(jget(r, k), f->metric))
        snprintf(out, len, "the result has no %s per window (written by an older build)",
                 f->metric);
    else if (why && *why)
        snprintf(out, len, "%s", why);
    else if (win)
        snprintf(out, len, "no telemetry sample in the %s window", win);
    else
        snprintf(out, len, "not measured");
}

/* Reasons for a "–", each said once with the runs it holds for ("A, B: no
 * power source"), listed under their table as <ol id=ID>, items ID-<n>. */
struct fig_notes {
    char id[32];
    int n;
    char why[MAX_NOTES][600], who[MAX_NOTES][128];
};

struct fig_notes *fig_notes_new(const char *id) {
    struct fig_notes *ns = calloc(1, sizeof *ns);
    if (ns)
        snprintf(ns->id, sizeof ns->id, "%s", id);
    return ns;
}

/* The number of the note giving why, run label added (0: no room). */
static int note(struct fig_notes *ns, const char *label, const char *why) {
    int i = 0;
    while (i < ns->n && strcmp(ns->why[i], why))
        i++;
    if (i == ns->n) {
        if (ns->n == MAX_NOTES)
            return 0;
        snprintf(ns->why[i], sizeof ns->why[i], "%s", why);
        ns->who[i][0] = 0;
        ns->n++;
    }
    /* The label once, in the order the runs come. */
    size_t l = strlen(label), o = strlen(ns->who[i]);
    const char *p = ns->who[i];
    int seen = 0;
    while ((p = strstr(p, label)) && !seen) {
        seen = (p == ns->who[i] || p[-1] == ' ') && (p[l] == ',' || p[l] == 0);
        p += l;
    }
    if (!seen)
        snprintf(ns->who[i] + o, sizeof ns->who[i] - o, "%s%s", o ? ", " : "", label);
    return i + 1;
}

void fig_null_cell(struct sbuf *b, struct fig_notes *ns, const char *key, const char *label,
                   const char *why) {
    int m = note(ns, label, why);
    sb_puts(b, "<span class=\"num\" data-key=\"");
    sb_esc(b, key);
    sb_puts(b, "\" data-value=\"null\">–</span>");
    if (!m)
        return;
    sb_printf(b, " <sup class=\"why\"><a href=\"#%s-%d\" title=\"", ns->id, m);
    sb_esc(b, why);
    sb_printf(b, "\">%d</a></sup>", m);
}

void fig_notes_end(struct sbuf *b, struct fig_notes *ns) {
    if (!ns)
        return;
    if (ns->n) {
        sb_printf(b, "<ol class=\"why\" id=\"%s\">", ns->id);
        for (int i = 0; i < ns->n; i++) {
            sb_printf(b, "<li id=\"%s-%d\">", ns->id, i + 1);
            sb_esc(b, ns->who[i]);
            sb_puts(b, ": ");
            sb_esc(b, ns->why[i]);
            sb_puts(b, "</li>");
        }
        sb_puts(b, "</ol>\n");
    }
    free(ns);
}

const char *compare_null_reason(const json_t *r, const char *path) {
    static const struct {
        const char *prefix, *why;
    } W[] = {{"totals.aops_per_watt_platform", "telemetry.power.scope=platform.reason"},
             {"totals.aops_per_watt", "telemetry.power_unavailable_reason"},
             {"telemetry.power.scope=platform", "telemetry.power.scope=platform.reason"},
             {"telemetry.power.", "telemetry.power_unavailable_reason"},
             {"telemetry.cpu_util.", "telemetry.cpu_unavailable_reason"},
             {"telemetry.read_", "telemetry.disk_unavailable_reason"}};
    for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
        if (!strncmp(path, W[i].prefix, strlen(W[i].prefix))) {
            const char *why = jstr(r, W[i].why);
            return why && *why ? why : NULL;
        }
    return NULL;
}

static void cell_text(char *out, size_t len, const struct fig *f, double v) {
    char t[64];
    if (f->bytes && isfinite(v))
        snprintf(out, len, "%s/s", fmt_bytes(t, sizeof t, v, 0));
    else
        fmt_num(out, len, v, f->dec);
}

static double ratio(double v, double base) {
    return (isfinite(v) && isfinite(base) && base != 0) ? v / base : NAN;
}

/* ---- text ---- */

void compare_figs_text(const json_t *const *r, const char *const *labels, int n, FILE *out) {
    const char *win[MAX_WIN];
    size_t nw = windows_of(r, n, win);
    struct fig_notes *ns = fig_notes_new("");
    if (!ns)
        return;
    fprintf(out, "per activity window (mean and peak; ratios against %s)\n", labels[0]);
    for (size_t fi = 0; fi < NFIGS; fi++) {
        const struct fig *f = &FIGS[fi];
        if (fig_absent(f, r, n))
            continue;
        struct row rows[2 * MAX_WIN + 2];
        size_t nr = fig_rows(f, win, nw, rows);
        fprintf(out, "%s\n", f->title);
        for (size_t k = 0; k < nr; k++) {
            fprintf(out, "  %-24s", rows[k].name);
            double base = jnum(r[0], rows[k].path);
            for (int i = 0; i < n; i++) {
                char c[128], t[64];
                double v = jnum(r[i], rows[k].path);
                cell_text(t, sizeof t, f, v);
                if (!isfinite(v)) {
                    char why[600];
                    why_null(r[i], f, rows[k].win, why, sizeof why);
                    snprintf(c, sizeof c, "%s[%d]", t, note(ns, labels[i], why));
                } else if (i && isfinite(ratio(v, base)))
                    snprintf(c, sizeof c, "%s (%.2f×)", t, ratio(v, base));
                else
                    snprintf(c, sizeof c, "%s", t);
                /* "×" and "–" take two or three bytes for one column. */
                int pad = 24 - (int)strlen(c) + (strstr(c, "×") ? 1 : 0) + (strstr(c, "–") ? 2 : 0);
                fprintf(out, " %*s%s", pad > 0 ? pad : 0, "", c);
            }
            fputc('\n', out);
        }
    }
    for (int i = 0; i < ns->n; i++)
        fprintf(out, "  [%d] %s: %s\n", i + 1, ns->who[i], ns->why[i]);
    free(ns);
}

/* ---- HTML ---- */

void compare_figs_table(struct sbuf *b, const json_t *const *r, const char *const *labels, int n) {
    const char *win[MAX_WIN];
    size_t nw = windows_of(r, n, win);
    struct fig_notes *ns = fig_notes_new("compare-windows-notes");
    if (!ns)
        return;
    sb_printf(b,
              "<h2>Per activity window (ratios against %s)</h2>\n<table id=\"compare-windows\"><tr>"
              "<th>figure</th>",
              labels[0]);
    for (int i = 0; i < n; i++) {
        sb_puts(b, "<th>");
        sb_esc(b, labels[i]);
        sb_puts(b, "</th>");
        if (i) {
            sb_puts(b, "<th>");
            sb_esc(b, labels[i]);
            sb_puts(b, " ÷ ");
            sb_esc(b, labels[0]);
            sb_puts(b, "</th>");
        }
    }
    sb_puts(b, "</tr>\n");
    for (size_t fi = 0; fi < NFIGS; fi++) {
        const struct fig *f = &FIGS[fi];
        if (fig_absent(f, r, n))
            continue;
        struct row rows[2 * MAX_WIN + 2];
        size_t nr = fig_rows(f, win, nw, rows);
        sb_printf(b, "<tr><th class=\"t\" colspan=\"%d\">", 2 * n);
        sb_esc(b, f->title);
        sb_puts(b, "</th></tr>\n");
        for (size_t k = 0; k < nr; k++) {
            double base = jnum(r[0], rows[k].path);
            sb_puts(b, "<tr><td>");
            sb_esc(b, rows[k].name);
            sb_puts(b, "</td>");
            for (int i = 0; i < n; i++) {
                char key[200], t[64], e[40];
                double v = jnum(r[i], rows[k].path);
                snprintf(key, sizeof key, "runs.%d.%s", i, rows[k].path);
                cell_text(t, sizeof t, f, v);
                sb_puts(b, "<td>");
                if (isfinite(v)) {
                    sb_puts(b, "<span class=\"num\" data-key=\"");
                    sb_esc(b, key);
                    sb_printf(b, "\" data-value=\"%s\">%s</span>", fmt_exact(e, sizeof e, v), t);
                } else {
                    char why[600];
                    why_null(r[i], f, rows[k].win, why, sizeof why);
                    fig_null_cell(b, ns, key, labels[i], why);
                }
                sb_puts(b, "</td>");
                if (!i)
                    continue;
                double q = ratio(v, base);
                snprintf(key, sizeof key, "ratio.%d.%s", i, rows[k].path);
                sb_puts(b, "<td class=\"ratio\">");
                if (isfinite(q)) {
                    sb_puts(b, "<span class=\"num\" data-key=\"");
                    sb_esc(b, key);
                    sb_printf(b, "\" data-value=\"%s\">%.2f×</span>", fmt_exact(e, sizeof e, q), q);
                } else
                    sb_puts(b, "–");
                sb_puts(b, "</td>");
            }
            sb_puts(b, "</tr>\n");
        }
    }
    sb_puts(b, "</table>\n");
    fig_notes_end(b, ns);
}

void compare_unavailable(struct sbuf *b, const char *id, const char *what, const json_t *const *r,
                         const char *const *labels, int n, const char *why_path) {
    struct fig_notes *ns = fig_notes_new("");
    if (!ns)
        return;
    for (int i = 0; i < n; i++) {
        const char *why = jstr(r[i], why_path);
        note(ns, labels[i], why && *why ? why : "not measured");
    }
    sb_puts(b, "<figure><div class=\"unavail\" id=\"");
    sb_esc(b, id);
    sb_puts(b, "\"><b>");
    sb_esc(b, what);
    sb_puts(b, ": unavailable.</b>");
    for (int i = 0; i < ns->n; i++) { /* each reason once, with its runs */
        sb_puts(b, i ? "; " : " ");
        sb_esc(b, ns->who[i]);
        sb_puts(b, ": ");
        sb_esc(b, ns->why[i]);
    }
    sb_puts(b, "</div></figure>\n");
    free(ns);
}

/* One chart of bar groups from paths into each run; NULL path: no bar. */
struct series_paths {
    const char *name;
    char mean[160], peak[160];
};

static void path_chart(struct sbuf *b, const char *id, const char *title, const char *unit,
                       double scale, const json_t *const *r, const char *const *labels, int n,
                       const struct series_paths *sp, size_t ns, int peaks, int spread) {
    size_t nv = (size_t)n * ns;
    double *v = calloc(nv, sizeof *v), *pk = calloc(nv, sizeof *pk);
    double *lo = calloc(nv, sizeof *lo), *hi = calloc(nv, sizeof *hi);
    char(*keys)[200] = calloc(nv, sizeof *keys), (*pkeys)[200] = calloc(nv, sizeof *pkeys);
    const char **kp = calloc(nv, sizeof *kp), **pkp = calloc(nv, sizeof *pkp);
    const char *names[MAX_WIN + 1];
    int any_spread = 0;
    if (!v || !pk || !lo || !hi || !keys || !pkeys || !kp || !pkp)
        goto out;
    for (size_t s = 0; s < ns; s++)
        names[s] = sp[s].name;
    for (int i = 0; i < n; i++)
        for (size_t s = 0; s < ns; s++) {
            size_t j = (size_t)i * ns + s;
            v[j] = jnum(r[i], sp[s].mean) * scale;
            pk[j] = peaks ? jnum(r[i], sp[s].peak) * scale : NAN;
            snprintf(keys[j], sizeof keys[j], "runs.%d.%s", i, sp[s].mean);
            snprintf(pkeys[j], sizeof pkeys[j], "runs.%d.%s", i, sp[s].peak);
            /* Scaled values are drawn, not checked: the table has them exactly. */
            kp[j] = scale == 1 ? keys[j] : "";
            pkp[j] = scale == 1 ? pkeys[j] : "";
            lo[j] = hi[j] = NAN;
            if (spread && repeat_range(r[i], sp[s].mean, &lo[j], &hi[j]) == 1) {
                lo[j] *= scale, hi[j] *= scale;
                any_spread = 1;
            } else
                lo[j] = hi[j] = NAN;
        }
    char t[200];
    snprintf(t, sizeof t, "%s%s", title,
             any_spread ? " · error bars: min to max of the repeats" : "");
    struct bar_groups g = {labels,
                           (size_t)n,
                           names,
                           ns,
                           v,
                           peaks ? pk : NULL,
                           any_spread ? lo : NULL,
                           any_spread ? hi : NULL,
                           kp,
                           pkp};
    svg_group_bars(b, id, t, unit, &g);
out:
    free(v), free(pk), free(lo), free(hi), free(keys), free(pkeys), free(kp), free(pkp);
}

void compare_headline_charts(struct sbuf *b, const json_t *const *r, const char *const *labels,
                             int n) {
    struct series_paths aops = {"AOPS", "totals.aops", ""},
                        apc = {"per-core AOPS", "totals.aops_per_core", ""};
    path_chart(b, "compare-aops", "AOPS", "AOPS", 1, r, labels, n, &aops, 1, 0, 1);
    path_chart(b, "compare-aops-per-core", "per-core AOPS", "AOPS/core", 1, r, labels, n, &apc, 1,
               0, 1);
    const char *WL[MAX_WIN];
    size_t nw = workload_keys(json_object_get(r[0], "workloads"), WL, MAX_WIN);
    struct series_paths sp[MAX_WIN];
    for (size_t w = 0; w < nw; w++) {
        sp[w].name = WL[w];
        snprintf(sp[w].mean, sizeof sp[w].mean, "workloads.%s.latency_ms.mean", WL[w]);
        sp[w].peak[0] = 0;
    }
    if (nw)
        path_chart(b, "compare-latency-mean", "mean latency per workload", "ms", 1, r, labels, n,
                   sp, nw, 0, 0);
}

void compare_window_charts(struct sbuf *b, const json_t *const *r, const char *const *labels,
                           int n) {
    const char *win[MAX_WIN];
    size_t nw = windows_of(r, n, win);
    struct series_paths sp[MAX_WIN + 1];
    for (size_t fi = 0; fi < NFIGS; fi++) {
        const struct fig *f = &FIGS[fi];
        if (fig_absent(f, r, n))
            continue;
        size_t ns = 0;
        for (size_t w = 0; w < nw && ns < MAX_WIN; w++, ns++) {
            sp[ns].name = win[w];
            snprintf(sp[ns].mean, sizeof sp[ns].mean, "windows.%s.%s.mean", win[w], f->metric);
            snprintf(sp[ns].peak, sizeof sp[ns].peak, "windows.%s.%s.peak", win[w], f->metric);
        }
        sp[ns].name = "whole run";
        snprintf(sp[ns].mean, sizeof sp[ns].mean, "%s", f->run_mean);
        snprintf(sp[ns++].peak, sizeof sp[0].peak, "%s", f->run_peak);
        int any = 0;
        for (int i = 0; i < n; i++)
            for (size_t s = 0; s < ns; s++)
                any |= isfinite(jnum(r[i], sp[s].mean));
        if (!any) { /* a chart of nothing says less than the reason */
            char id[96];
            snprintf(id, sizeof id, "%s-unavailable", f->id);
            compare_unavailable(b, id, f->title, r, labels, n, f->why);
            continue;
        }
        path_chart(b, f->id, f->chart, f->unit, f->bytes ? 1e-6 : 1, r, labels, n, sp, ns, 1, 0);
    }
}
