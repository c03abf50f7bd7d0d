/* report_charts.c -- grouped bars and percentile curves (see
 * report_charts.h), drawn in report_html's chart frame so they look like the
 * page's other charts and print the same way. */
#include "report_charts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { W = CHART_W, H = CHART_H, ML = CHART_ML, MR = CHART_MR, MT = CHART_MT, MB = CHART_MB };
#define PLOT_H (H - MT - MB)

static void data_attrs(struct sbuf *b, const char *key, double v) {
    char e[40];
    if (!key || !*key)
        return;
    sb_puts(b, " data-key=\"");
    sb_esc(b, key);
    sb_printf(b, "\" data-value=\"%s\"", fmt_exact(e, sizeof e, v));
}

void svg_group_bars(struct sbuf *b, const char *id, const char *title, const char *unit,
                    const struct bar_groups *g) {
    size_t nv = g->ng * g->ns, marks = 0;
    double ymax = 0;
    for (size_t i = 0; i < nv; i++) {
        if (!isfinite(g->v[i]))
            continue;
        marks++;
        ymax = fmax(ymax, g->v[i]);
        if (g->peak && isfinite(g->peak[i]))
            ymax = fmax(ymax, g->peak[i]);
        if (g->hi && isfinite(g->hi[i]))
            ymax = fmax(ymax, g->hi[i]);
    }
    chart_open(b, id, title, marks);
    if (!marks) {
        sb_printf(b,
                  "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no data</text></svg></figure>\n",
                  W / 2, H / 2);
        return;
    }
    /* Percent of the machine stops at 100: the headroom for the values over
     * the bars would make it 150. */
    int pct = unit && !strcmp(unit, "%") && ymax <= 100;
    double top = chart_y_axis(b, pct ? 100 : ymax > 0 ? ymax * 1.08 : 1, unit);
    double slot = (double)(W - ML - MR) / (double)g->ng, inner = slot * 0.8;
    double bw = inner / (double)g->ns;
    /* Values over the bars only where they fit and no peak tick sits there. */
    int labels = !g->peak && bw >= 34;
#define PY(v) (H - MB - (v) / top * PLOT_H)
    for (size_t gi = 0; gi < g->ng; gi++) {
        double x0 = ML + slot * (double)gi + (slot - inner) / 2;
        for (size_t s = 0; s < g->ns; s++) {
            size_t i = gi * g->ns + s;
            double x = x0 + bw * (double)s, w = bw * 0.86;
            char f[64];
            if (!isfinite(g->v[i]))
                continue;
            fmt_num(f, sizeof f, g->v[i], auto_dec(g->v[i]));
            sb_printf(
                b,
                "<rect class=\"bar ser%zu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
                g->ns > 1 ? s % CHART_COLOURS : 0, x, PY(g->v[i]), w, H - MB - PY(g->v[i]));
            data_attrs(b, g->keys ? g->keys[i] : NULL, g->v[i]);
            sb_puts(b, "><title>");
            sb_esc(b, g->groups[gi]);
            if (g->ns > 1) {
                sb_puts(b, " ");
                sb_esc(b, g->series[s]);
            }
            sb_printf(b, ": %s", f);
            if (g->peak && isfinite(g->peak[i])) {
                char p[64];
                sb_printf(b, " (peak %s)", fmt_num(p, sizeof p, g->peak[i], auto_dec(g->peak[i])));
            }
            sb_puts(b, "</title></rect>");
            if (g->peak && isfinite(g->peak[i])) {
                sb_printf(b, "<path class=\"peak ser%zu\" d=\"M%.1f,%.1fH%.1f\"",
                          g->ns > 1 ? s % CHART_COLOURS : 0, x - 2, PY(g->peak[i]), x + w + 2);
                data_attrs(b, g->peak_keys ? g->peak_keys[i] : NULL, g->peak[i]);
                sb_puts(b, "/>");
            }
            if (g->lo && g->hi && isfinite(g->lo[i]) && isfinite(g->hi[i])) {
                double cx = x + w / 2;
                sb_printf(
                    b,
                    "<path class=\"errbar\" stroke=\"#1d2430\" d=\"M%.1f,%.1fV%.1fM%.1f,%.1fH%.1f"
                    "M%.1f,%.1fH%.1f\"><title>min %g, max %g</title></path>",
                    cx, PY(g->lo[i]), PY(g->hi[i]), cx - 5, PY(g->lo[i]), cx + 5, cx - 5,
                    PY(g->hi[i]), cx + 5, g->lo[i], g->hi[i]);
            }
            if (labels) {
                double ytop = g->hi && isfinite(g->hi[i]) ? fmax(g->v[i], g->hi[i]) : g->v[i];
                sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>", x + w / 2,
                          PY(ytop) - 3, "middle", f);
            }
        }
        /* The group's name, cut to its slot (the whole name is in the table). */
        char name[128];
        size_t fit = (size_t)(slot / 6.6) > 4 ? (size_t)(slot / 6.6) : 4;
        snprintf(name, sizeof name, "%s", g->groups[gi]);
        if (strlen(name) > fit) {
            size_t cut = fit - 1;
            while (cut > 0 && ((unsigned char)name[cut] & 0xC0) == 0x80)
                cut--;
            snprintf(name + cut, sizeof name - cut, "…");
        }
        sb_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x0 + inner / 2,
                  H - MB + 15);
        sb_esc(b, name);
        sb_puts(b, "</text>");
    }
#undef PY
    sb_puts(b, "</svg>");
    if (g->ns > 1 || g->peak)
        chart_legend_html(b, g->ns > 1 ? g->series : NULL, g->ns > 1 ? g->ns : 0,
                          g->peak ? "bars: mean, ticks: peak" : NULL);
    sb_puts(b, "</figure>\n");
}

/* ---- percentile curves ---- */

/* The percentiles the x axis names, at their nines. */
static const struct {
    double q;
    const char *label;
} XTICKS[] = {{0, "0"}, {0.5, "50"}, {0.9, "90"}, {0.99, "99"}, {0.999, "99.9"}, {0.9999, "99.99"}};

void svg_pctl_chart(struct sbuf *b, const char *id, const char *title, const struct pctl_line *l,
                    size_t nl, double xmax) {
    double lo = INFINITY, hi = 0;
    size_t marks = 0;
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < l[i].n; j++)
            if (isfinite(l[i].y[j]) && l[i].y[j] > 0) {
                lo = fmin(lo, l[i].y[j]);
                hi = fmax(hi, l[i].y[j]);
                marks++;
            }
    chart_open(b, id, title, marks);
    if (!marks) {
        sb_printf(
            b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no samples</text></svg></figure>\n",
            W / 2, H / 2);
        return;
    }
    /* y: whole decades around the values, so a line's shape reads the same
     * whether the workload takes 1 ms or 100 ms. */
    int d0 = (int)floor(log10(lo)), d1 = (int)ceil(log10(hi));
    if (d1 <= d0)
        d1 = d0 + 1;
    double span = d1 - d0;
#define PX(v) (ML + (v) / xmax * (W - ML - MR))
#define PY(v) (H - MB - (log10(fmax((v), pow(10, d0))) - d0) / span * PLOT_H)
    for (int d = d0; d <= d1; d++)
        for (int m = 1; m <= 5; m += (m == 1 ? 1 : 3)) { /* 1, 2, 5 x 10^d */
            double v = m * pow(10, d);
            if (v > pow(10, d1) * 1.0001 || (m > 1 && span > 2))
                continue;
            char t[32];
            chart_short_num(t, sizeof t, v);
            sb_printf(b, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", ML,
                      W - MR, PY(v), PY(v));
            sb_printf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", ML - 4,
                      PY(v) + 4, t);
        }
    sb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"start\">ms (log)</text>", 4, MT - 6);
    for (size_t k = 0; k < sizeof XTICKS / sizeof XTICKS[0]; k++) {
        double x = XTICKS[k].q > 0 ? -log10(1 - XTICKS[k].q) : 0;
        if (x > xmax + 1e-9)
            continue;
        sb_printf(b, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", PX(x),
                  PX(x), MT, H - MB);
        /* The last label ends at the plot's edge rather than past the figure. */
        sb_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>", PX(x), H - MB + 15,
                  x > xmax - 0.2 ? "end" : "middle", XTICKS[k].label);
    }
    sb_printf(b, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", ML, W - MR,
              H - MB, H - MB);
    sb_printf(b,
              "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">percentile (nines: each step "
              "ten times rarer)</text>",
              (ML + W - MR) / 2, H - 6);
    const char *names[CHART_COLOURS];
    size_t nn = 0;
    for (size_t i = 0; i < nl; i++) {
        size_t c = i % CHART_COLOURS;
        if (nn < CHART_COLOURS)
            names[nn++] = l[i].name;
        sb_printf(b, "<polyline class=\"line ser%zu%s\" points=\"", c, l[i].dashed ? " dash" : "");
        for (size_t j = 0, first = 1; j < l[i].n; j++) {
            if (!isfinite(l[i].y[j]))
                continue;
            sb_printf(b, "%s%.1f,%.1f", first ? "" : " ", PX(l[i].x[j]), PY(l[i].y[j]));
            first = 0;
        }
        sb_puts(b, "\"/>");
        for (size_t j = 0; j < l[i].nm; j++) {
            const struct pctl_mark *m = &l[i].m[j];
            char f[64];
            sb_printf(b, "<circle class=\"ser%zu\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" data-q=\"%s\"",
                      c, PX(m->x), PY(m->y), m->label);
            data_attrs(b, m->key, m->y);
            sb_puts(b, "><title>");
            sb_esc(b, l[i].name);
            sb_printf(b, " p%s: %s ms</title></circle>", m->label,
                      fmt_num(f, sizeof f, m->y, auto_dec(m->y)));
        }
    }
#undef PX
#undef PY
    sb_puts(b, "</svg>");
    chart_legend_html(b, names, nn, "dots: p50, p90, p95, p99, p99.9");
    sb_puts(b, "</figure>\n");
}
