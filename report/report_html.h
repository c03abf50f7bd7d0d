/* report_html.h -- what `harness report` and `harness compare` share: a
 * growable string buffer, HTML escaping, number formatting, dotted-path
 * lookups into result.json, the page frame (head, CSS) and the inline SVG
 * charts. Everything here writes into a `struct sbuf`; nothing touches files
 * except run loading. */
#ifndef AOPS_REPORT_HTML_H
#define AOPS_REPORT_HTML_H

#include <jansson.h>
#include <stddef.h>

#include "../common/buf.h"
#include "../common/json.h"

/* A page being written: common/buf.h's buffer, without a cap; running out of
 * memory ends the command ("harness: out of memory"), since half a page is no
 * report. */
struct sbuf {
    struct buf b;
};

void sb_putn(struct sbuf *b, const char *s, size_t n);
void sb_puts(struct sbuf *b, const char *s);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s with & < > " ' escaped; NULL appends nothing. */
void sb_esc(struct sbuf *b, const char *s);
void sb_free(struct sbuf *b);

/* The workload names of a "workloads" or "windows" object: those of the
 * registry first, in its order (a phased cycle's), then any other (a result
 * from another build) as they come. Returns how many were put in out. */
size_t workload_keys(const json_t *obj, const char **out, size_t max);
/* A workload's title from the registry; unknown names as they are. */
const char *workload_title(const char *key);

/* Load DIR/result.json (or DIR itself when it is a file). NULL with err set. */
json_t *load_run(const char *dir, char *err, size_t errlen);
/* The same for a run named by a file (a sweep's point "dir"): rel inside dir
 * only, through common/safepath.h (no "..", no symlink, a regular file). */
json_t *load_run_at(const char *dir, const char *rel, char *err, size_t errlen);

/* "12,345.6" with `dec` decimals; "–" for NAN. Returns buf. */
char *fmt_num(char *buf, size_t len, double v, int dec);
/* "1.5 GiB", "200 MB/s"... binary (1024) or decimal (1000) units. */
char *fmt_bytes(char *buf, size_t len, double v, int binary);
/* Decimals that show v with about 4 significant figures. */
int auto_dec(double v);

/* v in the fewest digits that read back exactly (data-value, CSV). */
char *fmt_exact(char *buf, size_t len, double v);

/* A figure the tests can find: <span class="num" data-key=KEY
 * data-value=exact>formatted</span>; "–" for NAN with data-value="null". */
void sb_num(struct sbuf *b, const char *key, double v, int dec);

/* <!doctype html>... <body>, with the shared screen and print CSS. */
void page_begin(struct sbuf *b, const char *title);
void page_end(struct sbuf *b);

/* Line chart: series of (x, y) points, NAN y breaks the line. Optional
 * shaded x spans (the windows) drawn behind. */
struct chart_series {
    const char *name;
    const double *x, *y;
    size_t n;
};
struct chart_span {
    const char *name;
    double from, to;
    unsigned colour; /* spans of one window (its cycles) share a colour */
};
void svg_line_chart(struct sbuf *b, const char *id, const char *title, const char *xlabel,
                    const char *yunit, const struct chart_series *s, size_t ns,
                    const struct chart_span *spans, size_t nspans, double ymax_hint);
/* The same with error bars (a repeated run's min and max around its median):
 * lo[i][j] to hi[i][j] at series i's point j; lo[i] NULL: none on series i. */
void svg_line_chart_spread(struct sbuf *b, const char *id, const char *title, const char *xlabel,
                           const char *yunit, const struct chart_series *s, size_t ns,
                           const double *const *lo, const double *const *hi);

/* The frame every chart shares, for chart types drawn in other files
 * (report_charts.c): the viewBox, the plot margins, the series colours
 * (CSS classes ser0..ser7). */
enum { CHART_W = 560, CHART_H = 250, CHART_ML = 56, CHART_MR = 14, CHART_MT = 34, CHART_MB = 40 };
#define CHART_COLOURS 8
/* <figure><svg class="chart" data-chart=ID data-marks=MARKS ...> and the title. */
void chart_open(struct sbuf *b, const char *id, const char *title, size_t marks);
/* Grid lines and labels from 0 to about ymax (linear); returns the top value. */
double chart_y_axis(struct sbuf *b, double ymax, const char *unit);
/* A 1, 2, 5 x 10^k step giving about `ticks` intervals over range. */
double chart_nice_step(double range, int ticks);
/* Tick labels: 1.2k, 3.4M. */
void chart_short_num(char *buf, size_t len, double v);
/* A legend in HTML under a chart (after </svg>, inside the figure): it
 * wraps, so many or long names never run out of the figure. note: words
 * after the entries ("bars: mean, ticks: peak"), or NULL. */
void chart_legend_html(struct sbuf *b, const char *const *names, size_t n, const char *note);

/* Vertical bar chart, one bar per label. */
void svg_bar_chart(struct sbuf *b, const char *id, const char *title, const char *yunit,
                   const char *const *labels, const double *v, size_t n);

#endif
