/* report_charts.h -- two chart types on top of report_html's frame, for the
 * figure set of `harness compare` and the latency distributions of both
 * pages:
 *   - grouped bars: a group per run along x, a bar per series (a window, a
 *     workload) in each group, with an optional tick at each bar's peak and
 *     an optional error bar (a repeated run's min and max);
 *   - a percentile curve: latency (log scale) against the percentile on a
 *     "nines" axis (x = -log10(1 - q): p0 at 0, p90 at 1, p99 at 2 ...),
 *     as HdrHistogram, fio and warp plot their distributions.
 * Every drawn value that is a figure of result.json carries data-key and
 * data-value on its SVG element, so the tests compare it with the JSON. */
#ifndef AOPS_REPORT_CHARTS_H
#define AOPS_REPORT_CHARTS_H

#include <stddef.h>

#include "report_html.h"

struct bar_groups {
    const char *const *groups; /* along x (the runs) */
    size_t ng;
    const char *const *series; /* a bar per series in each group; one: no legend */
    size_t ns;
    const double *v;         /* v[g * ns + s]; NAN: no bar */
    const double *peak;      /* optional, as v: a tick at the peak */
    const double *lo, *hi;   /* optional, as v: an error bar */
    const char *const *keys; /* optional, as v: data-key of the bar ("" for none) */
    const char *const *peak_keys;
};

void svg_group_bars(struct sbuf *b, const char *id, const char *title, const char *unit,
                    const struct bar_groups *g);

/* A marked point of a curve: p50, p99... (key "" when it is no figure of
 * result.json, such as p99.9). */
struct pctl_mark {
    double x, y;
    char label[16];
    char key[200];
};

struct pctl_line {
    const char *name;
    const double *x, *y; /* x in nines, y in ms */
    size_t n;
    const struct pctl_mark *m;
    size_t nm;
    int dashed; /* a secondary figure (time to first byte) */
};

/* x from 0 (p0) to xmax nines (4: p99.99). */
void svg_pctl_chart(struct sbuf *b, const char *id, const char *title, const struct pctl_line *l,
                    size_t nl, double xmax);

#endif
