/* report_html.c -- the building blocks of the HTML pages that `harness
 * report` and `harness compare` write: a string buffer, escaping, number
 * formatting, JSON path lookups and inline SVG charts drawn here in C, so a
 * page works offline, prints, and needs no script or CDN.
 *
 * Every string that comes from result.json goes through sb_esc(): a run
 * directory is data from another machine, and a warning or a disk model must
 * never become markup. Numbers the tests check carry data-key/data-value
 * attributes holding the exact value, so a test compares against jq without
 * parsing our rounding. */
#include "report_html.h"

#include "../common/safepath.h"
#include "../common/upgrade.h"
#include "../workloads/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void sb_check(struct sbuf *b) {
    if (b->b.err) {
        perror("harness: out of memory");
        exit(1);
    }
}

void sb_putn(struct sbuf *b, const char *s, size_t n) {
    buf_add(&b->b, s, n);
    sb_check(b);
}

void sb_puts(struct sbuf *b, const char *s) {
    sb_putn(b, s, strlen(s));
}

void sb_printf(struct sbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b->b, fmt, ap); /* a format error appends nothing, as vsnprintf's */
    va_end(ap);
    sb_check(b);
}

void sb_esc(struct sbuf *b, const char *s) {
    if (!s)
        return;
    for (; *s; s++) {
        switch (*s) {
        case '&':
            sb_puts(b, "&amp;");
            break;
        case '<':
            sb_puts(b, "&lt;");
            break;
        case '>':
            sb_puts(b, "&gt;");
            break;
        case '"':
            sb_puts(b, "&quot;");
            break;
        case '\'':
            sb_puts(b, "&#39;");
            break;
        default:
            sb_putn(b, s, 1);
        }
    }
}

void sb_free(struct sbuf *b) {
    buf_free(&b->b);
}

size_t workload_keys(const json_t *obj, const char **out, size_t max) {
    size_t n = 0;
    for (int i = 0; workload_table[i] && n < max; i++)
        if (json_is_object(json_object_get(obj, workload_table[i]->name)))
            out[n++] = workload_table[i]->name;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        if (n < max && !workload_find(k) && json_is_object(v))
            out[n++] = k;
    }
    return n;
}

const char *workload_title(const char *key) {
    const struct workload *w = workload_find(key);
    return w && w->title ? w->title : key;
}

/* result.json's checks and upgrades, r taken (NULL: err already said why). */
static json_t *as_result(json_t *r, const char *path, char *err, size_t errlen) {
    if (r && (!json_is_object(r) || !json_is_object(json_object_get(r, "totals")))) {
        snprintf(err, errlen, "%s: not a harness result (no totals)", path);
        json_decref(r);
        return NULL;
    }
    /* An older version read in today's shape (common/upgrade.c), a newer one
     * refused: nothing below reads an old shape. */
    char why[256];
    if (r && result_upgrade(r, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        json_decref(r);
        return NULL;
    }
    return r;
}

json_t *load_run(const char *dir, char *err, size_t errlen) {
    char path[4200];
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "%s: no such run directory", dir);
        return NULL;
    }
    if (S_ISDIR(st.st_mode))
        return as_result(safepath_load_json(dir, "result.json", NULL, err, errlen), dir, err,
                         errlen);
    /* A result.json named on the command line: a regular file only (a FIFO
     * would hang the open and the read), opened without blocking. */
    snprintf(path, sizeof path, "%s", dir);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    json_error_t je;
    FILE *f = fdopen(fd, "rb"); /* stdio: json_loadfd reads one byte per read(2) */
    json_t *r = f ? json_loadf(f, 0, &je) : NULL;
    if (f)
        fclose(f);
    else
        close(fd), snprintf(je.text, sizeof je.text, "%s", strerror(errno));
    if (!r)
        snprintf(err, errlen, "%s: %s", path, je.text);
    return as_result(r, path, err, errlen);
}

json_t *load_run_at(const char *dir, const char *rel, char *err, size_t errlen) {
    char name[SAFEPATH_NAME_MAX + 16];
    if (safepath_name_ok(rel, err, errlen) != 0)
        return NULL;
    if (safepath_join(rel, "result.json", name, sizeof name) != 0) {
        snprintf(err, errlen, "%s/%.200s: a path too long", dir, rel);
        return NULL;
    }
    return as_result(safepath_load_json(dir, name, NULL, err, errlen), name, err, errlen);
}

char *fmt_num(char *buf, size_t len, double v, int dec) {
    if (!isfinite(v)) {
        snprintf(buf, len, "–");
        return buf;
    }
    char raw[64];
    snprintf(raw, sizeof raw, "%.*f", dec, fabs(v));
    /* Group the integer digits by thousands: figures like 1234567 AOPS are
     * read by people comparing machines. */
    const char *dot = strchr(raw, '.');
    size_t ndig = dot ? (size_t)(dot - raw) : strlen(raw);
    size_t o = 0;
    if (v < 0 && o + 1 < len)
        buf[o++] = '-';
    for (size_t i = 0; i < ndig && o + 2 < len; i++) {
        if (i && (ndig - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    if (dot)
        for (const char *p = dot; *p && o + 1 < len; p++)
            buf[o++] = *p;
    buf[o] = 0;
    return buf;
}

char *fmt_bytes(char *buf, size_t len, double v, int binary) {
    static const char *bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    static const char *dec[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    if (!isfinite(v)) {
        snprintf(buf, len, "–");
        return buf;
    }
    double base = binary ? 1024 : 1000;
    int u = 0;
    while (fabs(v) >= base && u < 5) {
        v /= base;
        u++;
    }
    snprintf(buf, len, "%.*f %s", u ? auto_dec(v) : 0, v, binary ? bin[u] : dec[u]);
    return buf;
}

int auto_dec(double v) {
    double a = fabs(v);
    if (!isfinite(a) || a >= 1000)
        return 0;
    if (a >= 100)
        return 1;
    if (a >= 10)
        return 2;
    return 3;
}

char *fmt_exact(char *buf, size_t len, double v) {
    /* The shortest of %.15g..%.17g that reads back as the same double, so
     * 11.2 stays "11.2" and nothing is lost. */
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, len, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

void sb_num(struct sbuf *b, const char *key, double v, int dec) {
    char f[64];
    sb_puts(b, "<span class=\"num\" data-key=\"");
    sb_esc(b, key);
    char e[40];
    if (isfinite(v))
        sb_printf(b, "\" data-value=\"%s\">%s</span>", fmt_exact(e, sizeof e, v),
                  fmt_num(f, sizeof f, v, dec));
    else
        sb_puts(b, "\" data-value=\"null\">–</span>");
}

void page_begin(struct sbuf *b, const char *title) {
    sb_puts(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    sb_esc(b, title);
    sb_puts(
        b,
        "</title>\n<style>\n"
        ":root{--fg:#1d2430;--mute:#5b6573;--line:#d8dde4;--bg:#fff;--card:#f6f8fa;"
        "--c0:#2f6fdb;--c1:#e0782f;--c2:#2a9d6f;--c3:#b03a8c;--c4:#7a5c00;--c5:#5b3fb0;--c6:#"
        "3fa7b0;"
        "--c7:#6b7280;--bad:#b42318;--ok:#1f7a3f}\n"
        "*{box-sizing:border-box}\n"
        "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);"
        "background:var(--bg);margin:0 auto;max-width:1180px;padding:24px}\n"
        "h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.2em;margin:28px 0 10px;"
        "border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:1em;margin:12px 0 "
        "6px}\n"
        ".sub{color:var(--mute);margin:0 0 16px}\n"
        ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:12px}\n"
        ".card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px "
        "14px}\n"
        ".card .label{color:var(--mute);font-size:.85em}.card "
        ".big{font-size:1.7em;font-weight:600}\n"
        ".card .note{color:var(--mute);font-size:.85em;overflow-wrap:anywhere}\n"
        ".valid{color:var(--ok);font-weight:600}.invalid{color:var(--bad);font-weight:600}\n"
        "table{border-collapse:collapse;width:100%;margin:6px 0 "
        "12px;font-variant-numeric:tabular-nums}\n"
        "th,td{border-bottom:1px solid var(--line);padding:4px "
        "8px;text-align:right;vertical-align:top}\n"
        "th:first-child,td:first-child,td.t,th.t{text-align:left}th{background:var(--card);font-"
        "weight:600}\n"
        ".grid2{display:grid;grid-template-columns:repeat(auto-fill,minmax(440px,1fr));gap:16px}\n"
        ".grid3{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:12px}\n"
        "figure{margin:0;background:var(--bg);border:1px solid "
        "var(--line);border-radius:8px;padding:8px}\n"
        "svg.chart{width:100%;height:auto;display:block}\n"
        "svg.chart text{font:11px system-ui,sans-serif;fill:var(--mute)}\n"
        "svg.chart .ttl{font-size:13px;font-weight:600;fill:var(--fg)}\n"
        "svg.chart .grid{stroke:var(--line);stroke-width:1}\n"
        "svg.chart .axis{stroke:#8a94a3;stroke-width:1}\n"
        "svg.chart .line{fill:none;stroke-width:2}svg.chart .errbar{fill:none;stroke-width:1.5}\n"
        ".ser0{stroke:var(--c0);fill:var(--c0)}.ser1{stroke:var(--c1);fill:var(--c1)}"
        ".ser2{stroke:var(--c2);fill:var(--c2)}.ser3{stroke:var(--c3);fill:var(--c3)}\n"
        ".ser4{stroke:var(--c4);fill:var(--c4)}.ser5{stroke:var(--c5);fill:var(--c5)}"
        ".ser6{stroke:var(--c6);fill:var(--c6)}.ser7{stroke:var(--c7);fill:var(--c7)}\n"
        "svg.chart polyline{fill:none}svg.chart .peak{fill:none;stroke-width:2.5}"
        "svg.chart .dash{stroke-dasharray:5 3}\n"
        "figcaption.legend{font-size:.8em;color:var(--mute);padding:2px 4px 0;line-height:1.7}"
        "figcaption.legend span{white-space:nowrap;margin-right:12px}"
        "figcaption.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;"
        "margin-right:4px;vertical-align:-1px}\n"
        ".legend .ser0{background:var(--c0)}.legend .ser1{background:var(--c1)}"
        ".legend .ser2{background:var(--c2)}.legend .ser3{background:var(--c3)}"
        ".legend .ser4{background:var(--c4)}.legend .ser5{background:var(--c5)}"
        ".legend .ser6{background:var(--c6)}.legend .ser7{background:var(--c7)}\n"
        "table.kv{table-layout:fixed}table.kv td{overflow-wrap:anywhere}table.kv "
        "td:first-child{width:38%}"
        "table.kv tr.grp td{font-weight:600;background:var(--card)}"
        ".d1{padding-left:22px!important}.d2{padding-left:36px!important}"
        ".d3{padding-left:50px!important}.d4{padding-left:64px!important}\n"
        ".why{font-size:.75em;color:var(--mute)}.why "
        "a{text-decoration:none}ol.why{padding-left:22px}ol.why li{overflow-wrap:anywhere}"
        ".path{border-bottom:1px dotted var(--mute)}\n"
        ".span0{fill:#2f6fdb14}.span1{fill:#e0782f14}.span2{fill:#2a9d6f14}\n"
        ".unavail{overflow-wrap:anywhere;color:var(--mute);font-style:italic;padding:16px;border:"
        "1px dashed var(--line);border-radius:8px}\n"
        "ul.warn li{color:#8a4b00}ul.bad li{color:var(--bad)}\n"
        "code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}\n"
        "footer{color:var(--mute);font-size:.8em;margin-top:32px}\n"
        "@media print{body{max-width:none;padding:0;font-size:11pt}"
        "h2{break-after:avoid}figure,.card,table,tr{break-inside:avoid}"
        ".cards{grid-template-columns:repeat(4,1fr)}.grid2{grid-template-columns:1fr 1fr}"
        "a{color:inherit;text-decoration:none}th,td{padding:3px 5px}@page{margin:14mm}}\n"
        "</style></head><body>\n");
}

void page_end(struct sbuf *b) {
    sb_puts(b, "</body></html>\n");
}

/* A "nice" step (1, 2, 5 × 10^k) giving about `ticks` intervals over range. */
double chart_nice_step(double range, int ticks) {
    if (!(range > 0))
        return 1;
    double raw = range / ticks, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* Tick labels short enough for the axis: 1.2k, 3.4M. */
void chart_short_num(char *buf, size_t len, double v) {
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(buf, len, "%gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(buf, len, "%gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(buf, len, "%gk", v / 1e3);
    else
        snprintf(buf, len, "%g", v);
}

enum { W = CHART_W, H = CHART_H, ML = CHART_ML, MR = CHART_MR, MT = CHART_MT, MB = CHART_MB };

void chart_open(struct sbuf *b, const char *id, const char *title, size_t marks) {
    sb_puts(b, "<figure><svg class=\"chart\" data-chart=\"");
    sb_esc(b, id);
    sb_printf(b, "\" data-marks=\"%zu\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", marks, W,
              H);
    sb_esc(b, title);
    sb_printf(b, "\"><text class=\"ttl\" x=\"%d\" y=\"16\">", 4);
    sb_esc(b, title);
    sb_puts(b, "</text>");
}

/* Horizontal grid lines and y labels from 0 to ymax; returns the top value. */
double chart_y_axis(struct sbuf *b, double ymax, const char *unit) {
    double step = chart_nice_step(ymax, 4), top = step * ceil(ymax / step);
    if (!(top > 0))
        top = step;
    for (double v = 0; v <= top + step / 2; v += step) {
        double y = H - MB - (v / top) * (H - MT - MB);
        char t[32];
        chart_short_num(t, sizeof t, v);
        sb_printf(b, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", ML,
                  W - MR, y, y);
        sb_printf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", ML - 4, y + 4, t);
    }
    if (unit && *unit) {
        sb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"start\">", 4, MT - 6);
        sb_esc(b, unit);
        sb_puts(b, "</text>");
    }
    sb_printf(b, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", ML, W - MR,
              H - MB, H - MB);
    return top;
}

/* The legend: on the title line, right-aligned, while it fits beside the
 * title; else (many or long names) as HTML under the chart, where it wraps
 * instead of running over the title or out of the figure. Returns 1 when
 * the caller must emit it after </svg> with chart_legend_html(). */
static int legend(struct sbuf *b, const char *title, const char *const *names, size_t n) {
    double need = 0, x = W - MR;
    for (size_t i = 0; i < n; i++)
        need += 7.0 * (double)strlen(names[i]) + 22;
    if (x - need < 4 + 7.5 * (double)strlen(title) + 12)
        return 1;
    /* Right-aligned, laid out from the last entry leftwards. */
    for (size_t i = n; i-- > 0;) {
        double w = 7.0 * (double)strlen(names[i]) + 22;
        x -= w;
        sb_printf(b,
                  "<rect class=\"ser%zu\" x=\"%.1f\" y=\"7\" width=\"10\" height=\"10\" rx=\"2\"/>",
                  i % CHART_COLOURS, x);
        sb_printf(b, "<text x=\"%.1f\" y=\"16\">", x + 14);
        sb_esc(b, names[i]);
        sb_puts(b, "</text>");
    }
    return 0;
}

void chart_legend_html(struct sbuf *b, const char *const *names, size_t n, const char *note) {
    sb_puts(b, "<figcaption class=\"legend\">");
    for (size_t i = 0; i < n; i++) {
        sb_printf(b, "<span><i class=\"ser%zu\"></i>", i % CHART_COLOURS);
        sb_esc(b, names[i]);
        sb_puts(b, "</span> "); /* the space: a line may break between entries */
    }
    if (note) {
        sb_puts(b, "<span>");
        sb_esc(b, note);
        sb_puts(b, "</span>");
    }
    sb_puts(b, "</figcaption>");
}

static void line_chart(struct sbuf *b, const char *id, const char *title, const char *xlabel,
                       const char *yunit, const struct chart_series *s, size_t ns,
                       const struct chart_span *spans, size_t nspans, double ymax_hint,
                       const double *const *lo_, const double *const *hi_) {
    double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
    size_t marks = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < s[i].n; j++)
            if (isfinite(s[i].x[j]) && isfinite(s[i].y[j])) {
                xmin = fmin(xmin, s[i].x[j]);
                xmax = fmax(xmax, s[i].x[j]);
                ymax = fmax(ymax, s[i].y[j]);
                if (hi_ && hi_[i] && isfinite(hi_[i][j]))
                    ymax = fmax(ymax, hi_[i][j]);
                marks++;
            }
    chart_open(b, id, title, marks);
    if (!marks) {
        sb_printf(
            b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no samples</text></svg></figure>\n",
            W / 2, H / 2);
        return;
    }
    if (ymax_hint > 0 && ymax <= ymax_hint)
        ymax = ymax_hint;
    if (!(xmax > xmin))
        xmax = xmin + 1;
    double top = chart_y_axis(b, ymax > 0 ? ymax : 1, yunit);
#define PX(v) (ML + ((v)-xmin) / (xmax - xmin) * (W - ML - MR))
#define PY(v) (H - MB - (v) / top * (H - MT - MB))
    for (size_t i = 0; i < nspans; i++) {
        double a = fmax(spans[i].from, xmin), z = fmin(spans[i].to, xmax);
        if (!(z > a))
            continue;
        sb_printf(b, "<rect class=\"span%zu\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>",
                  (size_t)spans[i].colour % 3, PX(a), MT, PX(z) - PX(a), H - MT - MB);
        sb_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", (PX(a) + PX(z)) / 2,
                  MT + 12);
        sb_esc(b, spans[i].name);
        sb_puts(b, "</text>");
    }
    double step = chart_nice_step(xmax - xmin, 6);
    for (double v = ceil(xmin / step) * step; v <= xmax + step / 1000; v += step) {
        char t[32];
        chart_short_num(t, sizeof t, v);
        sb_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", PX(v),
                  H - MB + 15, t);
    }
    sb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (ML + W - MR) / 2, H - 6);
    sb_esc(b, xlabel);
    sb_puts(b, "</text>");
    const char *names[8];
    for (size_t i = 0; i < ns; i++) {
        names[i < 8 ? i : 7] = s[i].name;
        /* One polyline per unbroken run of points: a null sample is a gap,
         * never a zero. A lone point gets a dot so it is still seen. */
        size_t j = 0;
        while (j < s[i].n) {
            while (j < s[i].n && !(isfinite(s[i].x[j]) && isfinite(s[i].y[j])))
                j++;
            size_t k = j;
            while (k < s[i].n && isfinite(s[i].x[k]) && isfinite(s[i].y[k]))
                k++;
            if (k == j)
                break;
            if (k - j == 1)
                sb_printf(b, "<circle class=\"ser%zu\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>",
                          i % CHART_COLOURS, PX(s[i].x[j]), PY(s[i].y[j]));
            else {
                sb_printf(b, "<polyline class=\"line ser%zu\" points=\"", i % CHART_COLOURS);
                for (size_t m = j; m < k; m++)
                    sb_printf(b, "%s%.1f,%.1f", m > j ? " " : "", PX(s[i].x[m]), PY(s[i].y[m]));
                sb_puts(b, "\"/>");
            }
            j = k;
        }
        /* Error bars: a vertical line from lo to hi with caps, under the
         * point (a repeated run's min and max around its median). */
        for (size_t m = 0; lo_ && hi_ && lo_[i] && hi_[i] && m < s[i].n; m++) {
            double x = s[i].x[m], lo = lo_[i][m], hi = hi_[i][m];
            if (!isfinite(x) || !isfinite(lo) || !isfinite(hi))
                continue;
            sb_printf(b,
                      "<path class=\"errbar ser%zu\" "
                      "d=\"M%.1f,%.1fV%.1fM%.1f,%.1fH%.1fM%.1f,%.1fH%.1f\"/>",
                      i % CHART_COLOURS, PX(x), PY(lo), PY(hi), PX(x) - 4, PY(lo), PX(x) + 4,
                      PX(x) - 4, PY(hi), PX(x) + 4);
        }
    }
#undef PX
#undef PY
    size_t nl = ns < 8 ? ns : 8;
    int below = ns > 1 && legend(b, title, names, nl);
    sb_puts(b, "</svg>");
    if (below)
        chart_legend_html(b, names, nl, NULL);
    sb_puts(b, "</figure>\n");
}

void svg_line_chart(struct sbuf *b, const char *id, const char *title, const char *xlabel,
                    const char *yunit, const struct chart_series *s, size_t ns,
                    const struct chart_span *spans, size_t nspans, double ymax_hint) {
    line_chart(b, id, title, xlabel, yunit, s, ns, spans, nspans, ymax_hint, NULL, NULL);
}

void svg_line_chart_spread(struct sbuf *b, const char *id, const char *title, const char *xlabel,
                           const char *yunit, const struct chart_series *s, size_t ns,
                           const double *const *lo, const double *const *hi) {
    line_chart(b, id, title, xlabel, yunit, s, ns, NULL, 0, 0, lo, hi);
}

void svg_bar_chart(struct sbuf *b, const char *id, const char *title, const char *yunit,
                   const char *const *labels, const double *v, size_t n) {
    double ymax = 0;
    size_t marks = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            ymax = fmax(ymax, v[i]);
            marks++;
        }
    chart_open(b, id, title, marks);
    if (!marks) {
        sb_printf(b,
                  "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no data</text></svg></figure>\n",
                  W / 2, H / 2);
        return;
    }
    /* Headroom so the value printed over the tallest bar stays clear of the title. */
    double top = chart_y_axis(b, ymax > 0 ? ymax * 1.08 : 1, yunit);
    double slot = (double)(W - ML - MR) / (double)n, bw = slot * 0.7;
    /* Label every bar while they fit, else every k-th one. */
    size_t every = 1;
    while (slot * (double)every < 28)
        every++;
    for (size_t i = 0; i < n; i++) {
        double x = ML + slot * (double)i + (slot - bw) / 2;
        if (isfinite(v[i])) {
            double h = v[i] / top * (H - MT - MB);
            char f[64];
            sb_printf(b,
                      "<rect class=\"bar ser%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                      "height=\"%.1f\"><title>",
                      0, x, H - MB - h, bw, h);
            sb_esc(b, labels[i]);
            sb_printf(b, ": %s</title></rect>", fmt_num(f, sizeof f, v[i], auto_dec(v[i])));
            if (n <= 12)
                sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
                          x + bw / 2, H - MB - h - 3, f);
        }
        if (i % every == 0) {
            sb_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x + bw / 2,
                      H - MB + 15);
            sb_esc(b, labels[i]);
            sb_puts(b, "</text>");
        }
    }
    sb_puts(b, "</svg></figure>\n");
}
