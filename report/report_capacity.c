/* report_capacity.c -- the page of a `harness capacity` directory: the
 * capacity curve. For each bound of the SLO, the percentile it is on
 * against the agents, with the bound as a flat line across, so the knee is
 * where a curve crosses its line; then AOPS against the agents, and the
 * points as a table linking to each point's own run.
 *
 * capacity.json may come from anyone: every figure is read through jnum
 * (a missing or non-numeric one is a gap in the curve, never a 0), every
 * string escaped, and a point's directory is shown, never opened. A count
 * run alone and then repeated is drawn once, at its repeated (median)
 * run's figures: the ones its verdict came from. */
#include "report_capacity.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/json.h"

#define CAP_MAX_CURVE 256

/* The points of capacity.json by agents, one per count (its confirmation
 * where it has one), in increasing order; their count. */
static size_t curve_points(const json_t *points, const json_t **out, size_t max) {
    size_t n = 0, i;
    const json_t *p;
    json_array_foreach(points, i, p) {
        double a = jnum(p, "agents");
        if (!isfinite(a) || a < 1)
            continue;
        size_t k = 0;
        while (k < n && jnum(out[k], "agents") != a)
            k++;
        if (k < n) {
            if (jnum(p, "repeat") > 1 || !(jnum(out[k], "repeat") > 1))
                out[k] = p;
            continue;
        }
        if (n == max)
            break;
        out[n++] = p;
    }
    for (size_t x = 1; x < n; x++) /* insertion sort: a few dozen points */
        for (size_t y = x; y > 0 && jnum(out[y - 1], "agents") > jnum(out[y], "agents"); y--) {
            const json_t *t = out[y];
            out[y] = out[y - 1], out[y - 1] = t;
        }
    return n;
}

static void check_name(const json_t *c, char *buf, size_t len) {
    const char *w = jstr(c, "workload"), *k = jstr(c, "class"), *p = jstr(c, "percentile");
    snprintf(buf, len, "%s%s%s %s", w ? w : "?", k ? "." : "", k ? k : "", p ? p : "?");
}

json_t *capacity_load(const char *path, char *err, size_t errlen) {
    return json_load_bounded(path, 64u << 20, JSON_REJECT_DUPLICATES, err, errlen);
}

int render_capacity(struct sbuf *b, const json_t *doc, const char *name, char *err, size_t errlen) {
    const json_t *cap = json_object_get(doc, "capacity");
    if (!json_is_object(cap)) {
        snprintf(err, errlen, "capacity.json: no capacity object");
        return -1;
    }
    const json_t **pts = calloc(CAP_MAX_CURVE, sizeof *pts);
    if (!pts) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t n = curve_points(json_object_get(cap, "points"), pts, CAP_MAX_CURVE);
    sb_puts(b, "<h1>aops-harness capacity ");
    sb_esc(b, name);
    sb_puts(b, "</h1>\n<p class=\"sub\">SLO ");
    sb_esc(b, jstr(cap, "slo.spec") ? jstr(cap, "slo.spec") : "?");
    char lo[32], hi[32];
    sb_printf(b, " (%s) · agents %s..%s · %zu counts run</p>\n",
              jstr(cap, "slo.source") && !strcmp(jstr(cap, "slo.source"), "default") ? "default"
                                                                                     : "given",
              fmt_num(lo, sizeof lo, jnum(cap, "containers.lo"), 0),
              fmt_num(hi, sizeof hi, jnum(cap, "containers.hi"), 0), n);
    /* The verdict, as the command printed it. */
    const json_t *lim = json_object_get(cap, "limiting");
    char limtxt[160] = "";
    if (json_is_object(lim))
        check_name(lim, limtxt, sizeof limtxt);
    sb_puts(b, "<p id=\"capacity-verdict\">agents at SLO: ");
    if (isfinite(jnum(cap, "agents_at_slo"))) {
        if (json_is_true(json_object_get(cap, "at_least")))
            sb_puts(b, "at least ");
        sb_num(b, "capacity.agents_at_slo", jnum(cap, "agents_at_slo"), 0);
        sb_puts(b, " (AOPS at SLO ");
        sb_num(b, "capacity.aops_at_slo", jnum(cap, "aops_at_slo"), 2);
        if (limtxt[0]) {
            sb_puts(b, ", limited by ");
            sb_esc(b, limtxt);
        }
        sb_puts(b, ")");
    } else {
        sb_puts(b, "none (");
        sb_esc(b, jstr(cap, "agents_at_slo_reason") ? jstr(cap, "agents_at_slo_reason") : "?");
        sb_puts(b, ")");
    }
    sb_puts(b, json_is_true(json_object_get(cap, "valid")) ? " · valid</p>\n"
                                                           : " · <b>not valid</b></p>\n");
    if (!n) {
        sb_puts(b, "<p>No point was run.</p>\n");
        free(pts);
        return 0;
    }
    double *x = calloc(n, sizeof *x), *y = calloc(n, sizeof *y), *bound = calloc(n, sizeof *bound);
    if (!x || !y || !bound) {
        free(x), free(y), free(bound), free(pts);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = jnum(pts[i], "agents");
    sb_puts(b, "<div class=\"grid2\">\n");
    /* One chart per bound: its percentile against the agents, the bound
     * flat across. The checks are in the SLO's order at every point. */
    size_t nchecks = json_array_size(json_object_get(pts[0], "checks"));
    for (size_t k = 0; k < nchecks && k < 16; k++) {
        char label[160], id[64], title[200], bl[64];
        check_name(json_array_get(json_object_get(pts[0], "checks"), k), label, sizeof label);
        double bms = jnum(json_array_get(json_object_get(pts[0], "checks"), k), "bound_ms");
        for (size_t i = 0; i < n; i++) {
            y[i] = jnum(json_array_get(json_object_get(pts[i], "checks"), k), "measured_ms");
            bound[i] = bms;
        }
        snprintf(id, sizeof id, "capacity-bound-%zu", k);
        snprintf(title, sizeof title, "%s against agents", label);
        snprintf(bl, sizeof bl, "bound %g ms", bms);
        struct chart_series s[2] = {{label, x, y, n}, {bl, x, bound, n}};
        svg_line_chart(b, id, title, "agents", "ms", s, 2, NULL, 0, NAN);
    }
    for (size_t i = 0; i < n; i++)
        y[i] = jnum(pts[i], "aops");
    struct chart_series s = {"AOPS", x, y, n};
    svg_line_chart(b, "capacity-aops", "AOPS against agents", "agents", "AOPS", &s, 1, NULL, 0,
                   NAN);
    sb_puts(b, "</div>\n<h2>Points</h2>\n<table id=\"capacity-points\"><tr><th>agents</th>"
               "<th>runs</th><th>SLO</th><th>AOPS</th>");
    for (size_t k = 0; k < nchecks && k < 16; k++) {
        char label[160];
        check_name(json_array_get(json_object_get(pts[0], "checks"), k), label, sizeof label);
        sb_puts(b, "<th>");
        sb_esc(b, label);
        sb_puts(b, " ms</th>");
    }
    sb_puts(b, "<th class=\"t\">run</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
        char f[64], key[96];
        const json_t *met = json_object_get(pts[i], "met");
        sb_printf(b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>", fmt_num(f, sizeof f, x[i], 0),
                  jnum(pts[i], "repeat") > 1 ? "median" : "1",
                  json_is_true(met)    ? "met"
                  : json_is_false(met) ? "<b>not met</b>"
                                       : "–");
        snprintf(key, sizeof key, "capacity.points.agents=%.0f.aops", x[i]);
        sb_num(b, key, jnum(pts[i], "aops"), 2);
        sb_puts(b, "</td>");
        for (size_t k = 0; k < nchecks && k < 16; k++) {
            sb_puts(b, "<td>");
            sb_num(b, "", jnum(json_array_get(json_object_get(pts[i], "checks"), k), "measured_ms"),
                   3);
            sb_puts(b, "</td>");
        }
        sb_puts(b, "<td class=\"t\">");
        sb_esc(b, jstr(pts[i], "dir") ? jstr(pts[i], "dir") : "?");
        sb_puts(b, "</td></tr>\n");
    }
    sb_puts(b, "</table>\n");
    free(x), free(y), free(bound), free(pts);
    return 0;
}

/* DIR/result.json holds capacity{}: this build's capacity directory. */
static json_t *capacity_result(const char *dir) {
    char path[4300], err[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/result.json", dir);
    if (lstat(path, &st) != 0)
        return NULL;
    json_t *r = load_run(dir, err, sizeof err);
    if (!json_is_object(json_object_get(r, "capacity")))
        json_decref(r), r = NULL;
    return r;
}

int capacity_doc(const char *dir, json_t **doc, char *err, size_t errlen) {
    char path[4300];
    struct stat st;
    if ((*doc = capacity_result(dir)))
        return 1;
    snprintf(path, sizeof path, "%s/capacity.json", dir);
    if (lstat(path, &st) != 0)
        return 0;
    *doc = capacity_load(path, err, errlen);
    return *doc ? 1 : -1;
}

json_t *capacity_or_run(const char *dir, json_t **cap, char *err, size_t errlen) {
    char path[4300];
    struct stat st;
    *cap = NULL;
    snprintf(path, sizeof path, "%s/capacity.json", dir);
    json_t *res = capacity_result(dir);
    if (res) { /* the headline run, capacity{} in it */
        const json_t *c = json_object_get(res, "capacity");
        if (!isfinite(jnum(c, "agents_at_slo"))) {
            snprintf(err, errlen,
                     "%s: no count met the SLO (capacity.agents_at_slo is null): nothing to "
                     "compare",
                     dir);
            json_decref(res);
            return NULL;
        }
        *cap = json_incref((json_t *)c);
        return res;
    }
    if (lstat(path, &st) != 0)
        return load_run(dir, err, errlen);
    json_t *doc = capacity_load(path, err, errlen);
    if (!doc)
        return NULL;
    const json_t *c = json_object_get(doc, "capacity");
    double agents = jnum(c, "agents_at_slo");
    if (!json_is_object(c) || !isfinite(agents)) {
        snprintf(err, errlen, "%s: %s", dir,
                 !json_is_object(c)
                     ? "capacity.json holds no capacity object"
                     : "no count met the SLO (capacity.agents_at_slo is null): nothing to compare");
        json_decref(doc);
        return NULL;
    }
    /* The point the figure came from: its repeated (median) run where there is one. */
    const json_t *best = NULL, *p;
    size_t i;
    json_array_foreach(json_object_get(c, "points"), i, p) {
        if (jnum(p, "agents") == agents && (!best || jnum(p, "repeat") > 1))
            best = p;
    }
    json_t *r = best ? load_run_at(dir, jstr(best, "dir"), err, errlen) : NULL;
    if (!best)
        snprintf(err, errlen, "%s: capacity.json lists no point of %.0f agents", dir, agents);
    if (r)
        *cap = json_incref((json_t *)c);
    json_decref(doc);
    return r;
}
