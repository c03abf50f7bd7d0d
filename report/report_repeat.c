/* report_repeat.c -- spread, stability and throughput over time on the
 * report page (see report_repeat.h). Figures carry data-key paths into
 * result.json like every other figure of the page, so the tests can check
 * each against the JSON. */
#include "report_repeat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/workload.h"

#define MAX_LINES 8

static const char *unstable_warning(const json_t *r) {
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(r, "warnings"), i, w) {
        const char *s = json_string_value(w);
        if (s && !strncmp(s, "unstable:", 9))
            return s;
    }
    return NULL;
}

void report_repeats_note(struct sbuf *b, const json_t *r) {
    const json_t *rep = json_object_get(r, "repeats");
    if (!json_is_object(rep))
        return;
    sb_puts(b, "<div class=\"note\" id=\"repeats-note\">median of ");
    sb_num(b, "repeats.n", jnum(rep, "n"), 0);
    sb_puts(b, " runs; min ");
    sb_num(b, "repeats.aops_min", jnum(rep, "aops_min"), 1);
    sb_puts(b, ", max ");
    sb_num(b, "repeats.aops_max", jnum(rep, "aops_max"), 1);
    sb_puts(b, ", CV ");
    sb_num(b, "repeats.aops_cv", jnum(rep, "aops_cv"), 1);
    sb_puts(b, " %</div>");
    const char *u = unstable_warning(r);
    if (u) { /* the warning's first words; all of it is under Warnings */
        const char *paren = strstr(u, " (");
        char shortw[160];
        snprintf(shortw, sizeof shortw, "%.*s", paren ? (int)(paren - u) : (int)strlen(u), u);
        sb_puts(b, "<div class=\"invalid\" id=\"unstable\">");
        sb_esc(b, shortw);
        sb_puts(b, "</div>");
    }
}

void report_repeats_section(struct sbuf *b, const json_t *r) {
    const json_t *rep = json_object_get(r, "repeats"), *a = json_object_get(rep, "aops");
    size_t n = json_array_size(a);
    if (!json_is_object(rep) || !n)
        return;
    double *v = calloc(n, sizeof *v);
    char(*lab)[32] = calloc(n, sizeof *lab);
    const char **labels = calloc(n, sizeof *labels);
    int median = (int)jnum(rep, "median_run");
    if (!v || !lab || !labels)
        goto out;
    sb_puts(b, "<h2>Runs of the repeat</h2>\n<p class=\"sub\">The headline is run ");
    sb_num(b, "repeats.median_run", median, 0);
    sb_puts(b, n % 2 ? ", the run with the median AOPS"
                     : ", the run with the median AOPS (of an even count, the lower of the two "
                       "middle runs)");
    sb_puts(b, ": every figure on this page is that run's, never a mix of runs, never the "
               "best.</p>\n<div class=\"grid2\">");
    for (size_t i = 0; i < n; i++) {
        v[i] = jnum(json_array_get(a, i), "");
        snprintf(lab[i], sizeof lab[i], (int)i + 1 == median ? "%zu (median)" : "%zu", i + 1);
        labels[i] = lab[i];
    }
    svg_bar_chart(b, "repeats-aops", "AOPS of each run", "AOPS", labels, v, n);
    sb_puts(b, "</div>\n<table id=\"repeats\"><tr><th>run</th><th>AOPS</th><th class=\"t\">"
               "result</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
        char key[64];
        snprintf(key, sizeof key, "repeats.aops.%zu", i);
        sb_printf(b, "<tr><td>%s</td><td>", lab[i]);
        sb_num(b, key, v[i], 1);
        sb_puts(b, "</td><td class=\"t\">");
        const char *dir = json_string_value(json_array_get(json_object_get(rep, "runs"), i));
        if (dir) {
            sb_esc(b, dir);
            sb_puts(b, "/result.json");
        }
        sb_puts(b, "</td></tr>\n");
    }
    sb_puts(b, "</table>\n");
out:
    free(v);
    free(lab);
    free(labels);
}

/* Names of the rate columns of one workload in the series, "ops_per_s"
 * first, then each "<counter>_per_s" other than it (the byte counters). */
static size_t rate_keys(const json_t *series, const char *wl, const char **out, size_t max) {
    const json_t *first = NULL;
    size_t i, n = 0;
    json_t *p;
    json_array_foreach(series, i, p) {
        first = json_object_get(json_object_get(p, "workloads"), wl);
        if (first)
            break;
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)first, k, v) {
        size_t l = strlen(k);
        if (n < max && l > 6 && !strcmp(k + l - 6, "_per_s") && strcmp(k, "ops_per_s"))
            out[n++] = k;
    }
    return n;
}

static void column(const json_t *series, const char *wl, const char *key, double *y, double scale) {
    size_t i;
    json_t *p;
    json_array_foreach(series, i, p) {
        y[i] = jnum(json_object_get(json_object_get(p, "workloads"), wl), key) * scale;
    }
}

/* The counter's words from its descriptor ("bytes read"), else its key. */
static void counter_title(const char *wl, const char *rate_key, char *out, size_t len) {
    const struct workload *d = workload_find(wl);
    size_t kl = strlen(rate_key) - 6; /* without "_per_s" */
    for (unsigned c = 0; d && c < d->ncounters; c++)
        if (strlen(d->counters[c].key) == kl && !strncmp(d->counters[c].key, rate_key, kl)) {
            snprintf(out, len, "%s %s", wl, d->counters[c].title);
            return;
        }
    snprintf(out, len, "%s %.*s", wl, (int)kl, rate_key);
}

void report_throughput_charts(struct sbuf *b, const json_t *r, const struct chart_span *spans,
                              size_t nspans) {
    const json_t *series = jget(r, "telemetry.series");
    size_t n = json_array_size(series), i;
    json_t *p;
    /* The workloads the series holds, in the order the first point has them. */
    const char *wl[MAX_LINES];
    size_t nw = 0;
    json_array_foreach(series, i, p) {
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(p, "workloads"), k, v) {
            size_t j = 0;
            while (j < nw && strcmp(wl[j], k))
                j++;
            if (j == nw && nw < MAX_LINES)
                wl[nw++] = k;
        }
    }
    if (!n || !nw)
        return;
    double *t = calloc(n, sizeof *t), *y = calloc(n * MAX_LINES, sizeof *y);
    char names[MAX_LINES][96];
    struct chart_series s[MAX_LINES];
    if (!t || !y)
        goto out;
    json_array_foreach(series, i, p) t[i] = jnum(p, "t");
    /* One chart per workload: their rates differ by a hundredfold (GETs
     * against searches), and one scale would flatten the slow ones. */
    for (size_t w = 0; w < nw; w++) {
        char id[96], title[160];
        column(series, wl[w], "ops_per_s", y, 1);
        s[0] = (struct chart_series){wl[w], t, y, n};
        snprintf(id, sizeof id, "throughput-%s", wl[w]);
        snprintf(title, sizeof title, "%s: operations per second", workload_title(wl[w]));
        svg_line_chart(b, id, title, "seconds since start", "ops/s", s, 1, spans, nspans, 0);
    }
    size_t ns = 0;
    for (size_t w = 0; w < nw && ns < MAX_LINES; w++) {
        const char *keys[WL_MAX_COUNTERS];
        size_t nk = rate_keys(series, wl[w], keys, WL_MAX_COUNTERS);
        for (size_t k = 0; k < nk && ns < MAX_LINES; k++, ns++) {
            column(series, wl[w], keys[k], y + ns * n, 1e-6);
            counter_title(wl[w], keys[k], names[ns], sizeof names[ns]);
            s[ns] = (struct chart_series){names[ns], t, y + ns * n, n};
        }
    }
    if (ns)
        svg_line_chart(b, "throughput-bytes", "bytes/s by workload", "seconds since start", "MB/s",
                       s, ns, spans, nspans, 0);
out:
    free(t);
    free(y);
}
