/* report_attrib.c -- the report's "where the time went" section and the
 * compare rows (see report_attrib.h). Components are taken from the result
 * as they come (the servers a build's workloads name, then workers,
 * coordinator, other), so a result from another build renders too. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_attrib.h"

#define MAX_WIN 10
#define MAX_COMP 10

/* Fixed colours per position; the legend says which is which. */
static const char *const FILL[MAX_COMP] = {"#2f6fdb", "#e0782f", "#2a9d6f", "#b03a8c", "#8c8c8c",
                                           "#c9a227", "#5b3fb0", "#3fa7b0", "#b05b3f", "#555"};

/* A window's component entries: objects or nulls, not its other keys. */
static int is_component(const char *key, const json_t *v) {
    return strcmp(key, "machine") != 0 &&
           ((json_is_object(v) && json_object_get(v, "cpu_s")) || json_is_null(v));
}

/* The windows in display order: the workloads' (registry order), then run. */
static size_t windows_of(const json_t *att, const char **out) {
    size_t n = workload_keys(att, out, MAX_WIN - 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(out[i], "run") != 0)
            out[k++] = out[i];
    if (json_object_get(att, "run"))
        out[k++] = "run";
    return k;
}

static size_t components_of(const json_t *att, const char **out) {
    size_t n = 0;
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(att, "run"), key, v) {
        if (is_component(key, v) && n < MAX_COMP)
            out[n++] = key;
    }
    return n;
}

static void stacked_bars(struct sbuf *b, const json_t *att, const char **win, size_t nw,
                         const char **comp, size_t nc) {
    const int W = 760, LW = 70, RH = 26, TOP = 34;
    double max = 0;
    for (size_t w = 0; w < nw; w++) {
        double sum = 0;
        for (size_t c = 0; c < nc; c++) {
            double s = jnum(json_object_get(json_object_get(att, win[w]), comp[c]), "cpu_s");
            if (isfinite(s) && s > 0)
                sum += s;
        }
        max = fmax(max, sum);
    }
    int h = TOP + (int)nw * RH + 24;
    sb_printf(b,
              "<figure class=\"chart\" id=\"attribution-bars\"><figcaption>CPU seconds by component"
              "</figcaption><svg class=\"chart\" style=\"max-width:%dpx\" viewBox=\"0 0 %d %d\" "
              "role=\"img\" aria-label=\"CPU seconds by component per window\">",
              W, W, h);
    double lx = LW;
    for (size_t c = 0; c < nc; c++) { /* legend */
        sb_printf(b,
                  "<rect x=\"%.0f\" y=\"6\" width=\"12\" height=\"12\" style=\"fill:%s\"/>"
                  "<text x=\"%.0f\" y=\"16\">",
                  lx, FILL[c], lx + 16);
        sb_esc(b, comp[c]);
        sb_puts(b, "</text>");
        lx += 26 + 8.0 * (double)strlen(comp[c]);
    }
    for (size_t w = 0; w < nw; w++) {
        const json_t *row = json_object_get(att, win[w]);
        double y = TOP + (double)w * RH, x = LW;
        sb_printf(b, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", LW - 6, y + RH / 2.0 + 4);
        sb_esc(b, win[w]);
        sb_puts(b, "</text>");
        for (size_t c = 0; c < nc && max > 0; c++) {
            const json_t *e = json_object_get(row, comp[c]);
            double s = jnum(e, "cpu_s");
            if (!isfinite(s) || s <= 0)
                continue;
            double wpx = s / max * (W - LW - 10);
            char f[64], g[64];
            sb_printf(b,
                      "<rect class=\"seg\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" "
                      "style=\"fill:%s\"><title>",
                      x, y + 3, wpx, RH - 6, FILL[c]);
            sb_esc(b, win[w]);
            sb_puts(b, " ");
            sb_esc(b, comp[c]);
            sb_printf(b, ": %s s, %s%% of the machine</title></rect>", fmt_num(f, sizeof f, s, 3),
                      fmt_num(g, sizeof g, jnum(e, "share"), 1));
            x += wpx;
        }
    }
    char f[64];
    sb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s s</text>", W - 10, h - 6,
              fmt_num(f, sizeof f, max, 2));
    sb_puts(b, "</svg></figure>\n");
}

/* IPC of a component in a window, NAN where not counted. */
static double ipc_of(const json_t *r, const char *win, const char *comp) {
    char p[256];
    if (!strcmp(comp, "other"))
        return NAN;
    snprintf(p, sizeof p, "counters.%s.components.%s.ipc", win, comp);
    return jnum(r, p);
}

static void cpu_table(struct sbuf *b, const json_t *r, const json_t *att, const char **win,
                      size_t nw, const char **comp, size_t nc) {
    sb_puts(
        b, "<table id=\"attribution\"><tr><th>window</th><th class=\"t\">component</th>"
           "<th>CPU s</th><th>CPU s per op</th><th>share of the machine %</th><th>IPC</th></tr>\n");
    for (size_t w = 0; w < nw; w++) {
        const json_t *row = json_object_get(att, win[w]);
        for (size_t c = 0; c < nc; c++) {
            const json_t *e = json_object_get(row, comp[c]);
            char k[256];
            sb_puts(b, "<tr><td>");
            sb_esc(b, c == 0 ? win[w] : "");
            sb_puts(b, "</td><td class=\"t\">");
            sb_esc(b, comp[c]);
            sb_puts(b, "</td>");
            static const char *F[] = {"cpu_s", "cpu_s_per_op", "share"};
            static const int D[] = {3, 6, 1};
            for (int f = 0; f < 3; f++) {
                snprintf(k, sizeof k, "attribution.%s.%s.%s", win[w], comp[c], F[f]);
                sb_puts(b, "<td>");
                sb_num(b, k, jnum(e, F[f]), D[f]);
                sb_puts(b, "</td>");
            }
            snprintf(k, sizeof k, "counters.%s.components.%s.ipc", win[w], comp[c]);
            sb_puts(b, "<td>");
            sb_num(b, k, ipc_of(r, win[w], comp[c]), 2);
            sb_puts(b, "</td></tr>\n");
        }
    }
    sb_puts(b, "</table>\n");
}

/* The machine-wide counters per window: the value, or the status where
 * there is none; each distinct reason listed once below. */
static void counters_table(struct sbuf *b, const json_t *r, const char **win, size_t nw) {
    const json_t *cnt = json_object_get(r, "counters");
    const json_t *run = json_object_get(cnt, "run");
    if (!json_is_object(run))
        return;
    sb_puts(
        b,
        "<h3>Counters (whole machine)</h3><table id=\"counters\"><tr><th class=\"t\">event</th>");
    for (size_t w = 0; w < nw; w++) {
        sb_puts(b, "<th>");
        sb_esc(b, win[w]);
        sb_puts(b, "</th>");
    }
    sb_puts(b, "</tr>\n");
    json_t *reasons = json_array();
    const char *ev;
    json_t *v;
    json_object_foreach((json_t *)run, ev, v) {
        if (!json_is_object(v) || !json_object_get(v, "status"))
            continue;
        sb_puts(b, "<tr><td class=\"t\">");
        sb_esc(b, ev);
        sb_puts(b, "</td>");
        for (size_t w = 0; w < nw; w++) {
            const json_t *c = json_object_get(json_object_get(cnt, win[w]), ev);
            const char *st = jstr(c, "status"), *why = jstr(c, "reason");
            char k[256];
            snprintf(k, sizeof k, "counters.%s.%s.value", win[w], ev);
            sb_puts(b, "<td>");
            if (json_is_number(json_object_get(c, "value")))
                sb_num(b, k, jnum(c, "value"), 0);
            else
                sb_esc(b, st ? st : "–");
            sb_puts(b, "</td>");
            int seen = 0;
            for (size_t i = 0; why && i < json_array_size(reasons); i++)
                seen |= !strcmp(json_string_value(json_array_get(reasons, i)), why);
            if (why && !seen && st && strcmp(st, "ok") != 0)
                json_array_append_new(reasons, json_string(why));
        }
        sb_puts(b, "</tr>\n");
    }
    sb_puts(b, "</table>\n");
    if (json_array_size(reasons)) {
        sb_puts(b, "<ul class=\"warn\" id=\"counter-reasons\">");
        size_t i;
        json_t *s;
        json_array_foreach(reasons, i, s) {
            sb_puts(b, "<li>");
            sb_esc(b, json_string_value(s));
            sb_puts(b, "</li>");
        }
        sb_puts(b, "</ul>\n");
    }
    json_decref(reasons);
}

static void reasons_list(struct sbuf *b, const json_t *obj, const char *id, const char *lead) {
    if (!json_object_size(obj))
        return;
    sb_printf(b, "<ul class=\"warn\" id=\"%s\">", id);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        sb_puts(b, "<li>");
        sb_esc(b, lead);
        sb_esc(b, k);
        sb_puts(b, ": ");
        sb_esc(b, json_string_value(v));
        sb_puts(b, "</li>");
    }
    sb_puts(b, "</ul>\n");
}

void report_attrib_section(struct sbuf *b, const json_t *r) {
    const json_t *att = json_object_get(r, "attribution");
    sb_puts(b, "<h2 id=\"where-the-time-went\">Where the time went</h2>\n");
    if (!json_is_object(att)) {
        sb_puts(b, "<p class=\"unavail\">No CPU attribution in this result");
        const char *why = jstr(r, "attribution_unavailable.run");
        if (why) {
            sb_puts(b, ": ");
            sb_esc(b, why);
        }
        sb_puts(b, ".</p>\n");
        return;
    }
    const char *win[MAX_WIN], *comp[MAX_COMP];
    size_t nw = windows_of(att, win), nc = components_of(att, comp);
    char f[64];
    sb_printf(b,
              "<p class=\"sub\">CPU seconds of each component in each window, read from cgroup "
              "files (servers, workers), the coordinator's own usage and /proc/stat (other = "
              "the machine's busy time less steal less the rest). A window spans the telemetry "
              "samples around it (sampled every %s s).</p>\n",
              fmt_num(f, sizeof f, jnum(r, "config.sample_interval"), 2));
    stacked_bars(b, att, win, nw, comp, nc);
    cpu_table(b, r, att, win, nw, comp, nc);
    reasons_list(b, json_object_get(r, "attribution_unavailable"), "attribution-unavailable",
                 "not attributed: ");
    counters_table(b, r, win, nw);
    reasons_list(b, json_object_get(r, "counters_unavailable"), "counters-unavailable",
                 "not counted: ");
}

size_t attrib_compare_rows(const json_t *r, char (*names)[ATTRIB_ROW_NAME],
                           char (*paths)[ATTRIB_ROW_PATH], size_t max) {
    const json_t *att = json_object_get(r, "attribution");
    if (!json_is_object(att))
        return 0;
    const char *win[MAX_WIN], *comp[MAX_COMP];
    size_t nw = windows_of(att, win), nc = components_of(att, comp), n = 0;
    for (size_t w = 0; w < nw; w++)
        for (size_t c = 0; c < nc && n < max; c++, n++) {
            snprintf(names[n], ATTRIB_ROW_NAME, "  %s %s", win[w], comp[c]);
            snprintf(paths[n], ATTRIB_ROW_PATH, "attribution.%s.%s.cpu_s_per_op", win[w], comp[c]);
        }
    return n;
}
