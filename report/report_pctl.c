/* report_pctl.c -- percentile curves from result.json's histograms (see
 * report_pctl.h). A curve is the histogram's quantile function sampled
 * every 0.025 nines from p0 to p99.99, plus the marked percentiles
 * themselves, each read with hist_quantile() as the results are: a marked
 * p99 is not interpolated from its neighbours, it is the figure. */
#include "report_pctl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../result/histjson.h"
#include "../workloads/workload.h"
#include "report_charts.h"

#define XMAX 4.0 /* p99.99 */
#define STEPS 160
#define MAX_LINES 12

/* The marked percentiles; those with a key are figures of latency_ms. */
static const struct {
    double q;
    const char *label, *key;
} MARKS[] = {{0.5, "50", "p50"},
             {0.9, "90", NULL},
             {0.95, "95", "p95"},
             {0.99, "99", "p99"},
             {0.999, "99.9", NULL}};
#define NMARKS (sizeof MARKS / sizeof MARKS[0])

struct curve {
    char name[128];
    double x[STEPS + 1 + NMARKS], y[STEPS + 1 + NMARKS];
    struct pctl_mark m[NMARKS];
    size_t n, nm;
    int dashed;
};

static double nines(double q) {
    return q > 0 ? -log10(1 - q) : 0;
}

/* Fill c from the histogram JSON h; key_base ("workloads.<name>.latency_ms")
 * names the figures its marks stand for. 0, or -1 when h is not a usable
 * histogram or holds no value. */
static int curve_from(struct curve *c, const json_t *h, const char *key_base) {
    struct hist *hs = malloc(sizeof *hs);
    char err[160];
    if (!hs)
        return -1;
    if (!h || hist_from_json(h, hs, err, sizeof err) != 0 || !hs->count) {
        free(hs);
        return -1;
    }
    size_t k = 0;
    c->n = c->nm = 0;
    c->dashed = 0;
    for (int s = 0; s <= STEPS; s++) {
        double x = XMAX * s / STEPS;
        /* The marked percentiles in their place along x. */
        while (k < NMARKS && nines(MARKS[k].q) <= x) {
            double y = (double)hist_quantile(hs, MARKS[k].q) / 1e6;
            struct pctl_mark *m = &c->m[c->nm++];
            m->x = nines(MARKS[k].q);
            m->y = y;
            snprintf(m->label, sizeof m->label, "%s", MARKS[k].label);
            if (MARKS[k].key && key_base)
                snprintf(m->key, sizeof m->key, "%s.%s", key_base, MARKS[k].key);
            else
                m->key[0] = 0;
            c->x[c->n] = m->x;
            c->y[c->n++] = y;
            k++;
        }
        double q = s == 0 ? 0 : 1 - pow(10, -x);
        c->x[c->n] = x;
        c->y[c->n++] = (double)hist_quantile(hs, q) / 1e6;
    }
    free(hs);
    return 0;
}

static void set_name(struct curve *c, const char *name, const json_t *h) {
    char ops[64];
    fmt_num(ops, sizeof ops, (double)json_integer_value(json_object_get(h, "count")), 0);
    snprintf(c->name, sizeof c->name, "%s · %s ops", name, ops);
}

static void draw(struct sbuf *b, const char *id, const char *title, struct curve *c, size_t n) {
    struct pctl_line l[MAX_LINES];
    for (size_t i = 0; i < n; i++)
        l[i] = (struct pctl_line){c[i].name, c[i].x, c[i].y, c[i].n, c[i].m, c[i].nm, c[i].dashed};
    svg_pctl_chart(b, id, title, l, n, XMAX);
}

int report_latency_curves(struct sbuf *b, const json_t *r) {
    const json_t *hw = jget(r, "histograms.workloads");
    const char *WL[MAX_LINES];
    size_t nw = workload_keys(hw, WL, MAX_LINES), n = 0;
    if (!nw || !hists_format_ok(jget(r, "histograms")))
        return -1;
    struct curve *c = calloc(MAX_LINES, sizeof *c);
    if (!c)
        return -1;
    char key[200], id[96], title[200];
    for (size_t w = 0; w < nw && n < MAX_LINES; w++) {
        snprintf(key, sizeof key, "workloads.%s.latency_ms", WL[w]);
        const json_t *h = json_object_get(json_object_get(hw, WL[w]), "latency_ms");
        if (curve_from(&c[n], h, key) == 0)
            set_name(&c[n++], WL[w], h);
    }
    if (!n) {
        free(c);
        return -1;
    }
    sb_puts(b, "<div class=\"grid2\">\n");
    draw(b, "pctl-workloads", "latency percentiles by workload", c, n);
    /* A chart per workload with classes or extra histograms: its classes
     * (a query pattern, a size class) and the other times it keeps
     * (dashed). */
    for (size_t w = 0; w < nw; w++) {
        const struct workload *d = workload_find(WL[w]);
        const json_t *hwl = json_object_get(hw, WL[w]);
        if (!d || (!d->nclasses && !d->nhists))
            continue;
        n = 0;
        const char *ck = d->classes_key ? d->classes_key : "classes";
        for (unsigned k = 0; k < d->nclasses && n < MAX_LINES; k++) {
            const json_t *h = json_object_get(json_object_get(hwl, ck), d->class_names[k]);
            snprintf(key, sizeof key, "workloads.%s.%s.%s.latency_ms", WL[w], ck,
                     d->class_names[k]);
            if (curve_from(&c[n], h, key) == 0)
                set_name(&c[n++], d->class_names[k], h);
        }
        for (unsigned k = 0; k < d->nhists && n < MAX_LINES; k++) {
            const json_t *h = json_object_get(hwl, d->hists[k].key);
            snprintf(key, sizeof key, "workloads.%s.%s", WL[w], d->hists[k].key);
            if (curve_from(&c[n], h, key) == 0) {
                set_name(&c[n], d->hists[k].title, h);
                c[n++].dashed = 1;
            }
        }
        if (!n)
            continue;
        snprintf(id, sizeof id, "pctl-%s", WL[w]);
        snprintf(title, sizeof title, "%s latency percentiles%s%s", workload_title(WL[w]),
                 d->nclasses ? " by " : "", d->nclasses ? ck : "");
        draw(b, id, title, c, n);
    }
    sb_puts(b, "</div>\n");
    free(c);
    return 0;
}

void compare_latency_curves(struct sbuf *b, const json_t *const *r, const char *const *labels,
                            int n) {
    const char *WL[MAX_LINES];
    size_t nw = workload_keys(json_object_get(r[0], "workloads"), WL, MAX_LINES);
    struct curve *c = calloc(MAX_LINES, sizeof *c);
    if (!c || !nw) {
        free(c);
        return;
    }
    sb_puts(b, "<h2>Latency distributions (one line per run)</h2>\n<div class=\"grid2\">\n");
    int missing = 0;
    for (size_t w = 0; w < nw; w++) {
        size_t nl = 0;
        for (int i = 0; i < n && nl < MAX_LINES; i++) {
            char key[200], path[160];
            snprintf(path, sizeof path, "histograms.workloads.%s.latency_ms", WL[w]);
            snprintf(key, sizeof key, "runs.%d.workloads.%s.latency_ms", i, WL[w]);
            const json_t *h = hists_format_ok(jget(r[i], "histograms")) ? jget(r[i], path) : NULL;
            if (curve_from(&c[nl], h, key) == 0)
                set_name(&c[nl++], labels[i], h);
            else
                missing |= 1 << (i < 30 ? i : 30);
        }
        if (!nl)
            continue;
        char id[96], title[200];
        snprintf(id, sizeof id, "compare-pctl-%s", WL[w]);
        snprintf(title, sizeof title, "%s latency percentiles", workload_title(WL[w]));
        draw(b, id, title, c, nl);
    }
    sb_puts(b, "</div>\n");
    if (missing) {
        sb_puts(
            b, "<p class=\"why\" id=\"curves-missing\">No latency histograms (a result of an older "
               "build, or no operation) in:");
        for (int i = 0; i < n && i < 30; i++)
            if (missing & (1 << i)) {
                sb_puts(b, " ");
                sb_esc(b, labels[i]);
            }
        sb_puts(b, "</p>\n");
    }
    free(c);
}
