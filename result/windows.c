/* windows.c -- per-cycle phase intervals into windows and their figures
 * (see windows.h). */
#include "windows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"

double windows_disk_per_wl(double disk_bytes, double wl_bytes) {
    return isfinite(disk_bytes) && isfinite(wl_bytes) && wl_bytes > 0 ? disk_bytes / wl_bytes : NAN;
}

double windows_served(double disk_bytes, double wl_bytes) {
    double r = windows_disk_per_wl(disk_bytes, wl_bytes);
    return r > 1 ? 1 : r; /* NAN stays NAN (fmin would make it 1) */
}

static json_t *rounded(double v, double unit) {
    return isfinite(v) ? json_real(round(v / unit) * unit) : json_null();
}

/* The figures over spans s[0..n): telemetry, and the disks' share. */
static void add_figures(json_t *o, const struct win_src *src, const struct span *s, size_t n) {
    json_t *st = src->stats ? src->stats(src->ctx, s, n) : NULL;
    if (st)
        json_object_update(o, st);
    json_decref(st);
    double disk = src->disk_bytes ? src->disk_bytes(src->ctx, s, n) : NAN;
    double wl = src->wl_bytes ? src->wl_bytes(src->ctx, s, n) : NAN;
    json_object_set_new(o, "disk_read_bytes", rounded(disk, 1));
    /* The stats say why their read_Bps is null, and disk is its integral;
     * without stats the source says why there is nothing. */
    if (!isfinite(disk) && !json_object_get(o, "disk_unavailable_reason"))
        json_object_set_new(o, "disk_unavailable_reason",
                            json_string(src->why ? src->why : "no disk figure over this window"));
    json_object_set_new(o, "workload_read_bytes", rounded(wl, 1));
    json_object_set_new(o, "served_from_disk", rounded(windows_served(disk, wl), 1e-4));
    json_object_set_new(o, "disk_bytes_per_workload_byte",
                        rounded(windows_disk_per_wl(disk, wl), 1e-4));
}

void windows_figures(struct win_in *w, unsigned nw, const struct win_src *src) {
    size_t total = 0;
    for (unsigned i = 0; i < nw; i++)
        total += w[i].ncyc;
    /* Each window's union (ucnt[i] spans at uni[i]), then all the others'. */
    struct span *all = malloc((total + 1) * sizeof *all);
    struct span **uni = calloc(nw ? nw : 1, sizeof *uni);
    size_t *ucnt = calloc(nw ? nw : 1, sizeof *ucnt);
    struct span *others = malloc((total + 1) * sizeof *others);
    struct span *excl = malloc((2 * total + 1) * sizeof *excl);
    if (!all || !uni || !ucnt || !others || !excl)
        goto out;
    size_t off = 0;
    for (unsigned i = 0; i < nw; i++) {
        uni[i] = all + off;
        memcpy(uni[i], w[i].cyc, w[i].ncyc * sizeof *uni[i]);
        ucnt[i] = spans_union(uni[i], w[i].ncyc);
        off += w[i].ncyc;
    }
    for (unsigned i = 0; i < nw; i++) {
        size_t no = 0;
        for (unsigned j = 0; j < nw; j++)
            if (j != i) {
                memcpy(others + no, uni[j], ucnt[j] * sizeof *others);
                no += ucnt[j];
            }
        no = spans_union(others, no);
        double len = spans_length(uni[i], ucnt[i]);
        double shared = spans_overlap(uni[i], ucnt[i], others, no);
        size_t ne = spans_subtract(uni[i], ucnt[i], others, no, excl);
        json_t *o = w[i].win;
        json_object_set_new(o, "seconds", json_real(len));
        json_object_set_new(o, "overlap_share", json_num_or_null(shared / len, len > 0));
        add_figures(o, src, uni[i], ucnt[i]);
        json_t *x = json_pack("{s:f}", "seconds", spans_length(excl, ne));
        if (ne)
            add_figures(x, src, excl, ne);
        json_object_set_new(o, "exclusive", x);
    }
out:
    free(all);
    free(uni);
    free(ucnt);
    free(others);
    free(excl);
}

/* ---- a single host: the sampler ---- */

static json_t *tel_stats(void *ctx, const struct span *s, size_t n) {
    return telemetry_spans_json(ctx, s, n);
}

static double tel_disk(void *ctx, const struct span *s, size_t n) {
    return telemetry_metric_integral(ctx, "read_Bps", s, n);
}

static double tel_wl(void *ctx, const struct span *s, size_t n) {
    const struct run_report *rep = ctx;
    const struct run_layout *lay = &rep->r->lay;
    double sum = 0;
    int any = 0;
    for (unsigned w = 0; w < lay->nwl; w++)
        for (unsigned k = 0; k < lay->wl[w]->ncounters; k++) {
            if (lay->wl[w]->counters[k].unit != WL_BYTES)
                continue;
            double b = telemetry_counter_sum(rep->tel, lay->wl[w]->name,
                                             lay->wl[w]->counters[k].key, s, n);
            if (isfinite(b))
                sum += b, any = 1;
        }
    return any ? sum : NAN;
}

/* The sampler's functions want the telemetry; the bytes want the layout. */
static json_t *rep_stats(void *ctx, const struct span *s, size_t n) {
    return tel_stats(((const struct run_report *)ctx)->tel, s, n);
}
static double rep_disk(void *ctx, const struct span *s, size_t n) {
    return tel_disk(((const struct run_report *)ctx)->tel, s, n);
}

json_t *windows_build(const struct run_report *rep) {
    const struct run_ctx *r = rep->r;
    const struct run_layout *lay = &r->lay;
    json_t *windows = json_object();
    if (!rep->released)
        return windows;
    unsigned nc = lay->phase_cycles;
    struct win_in in[RUN_MAX_WL];
    unsigned nw = 0;
    json_int_t t0e = rep->t0_epoch > 0 ? llround(rep->t0_epoch * 1e9) : 0;
    for (unsigned w = 0; w < lay->nwl; w++) {
        struct span *cyc = malloc(nc * sizeof *cyc);
        if (!cyc)
            break;
        int64_t first = 0, last = 0;
        json_t *ivs = json_array();
        for (unsigned c = 0; c < nc; c++) {
            int64_t a = 0, b = 0;
            for (unsigned i = 0; i < r->cfg->n; i++) {
                const struct phase_iv *p = slot_phase(r, run_slot(r, i), c, w);
                if (p->start && (!a || p->start < a))
                    a = p->start;
                if (p->end > b)
                    b = p->end;
            }
            cyc[c] = a ? (struct span){(double)(a - rep->t0) / 1e9, (double)(b - rep->t0) / 1e9}
                       : (struct span){1, 0};
            if (!a)
                continue;
            if (!first || a < first)
                first = a;
            if (b > last)
                last = b;
            json_t *iv = json_pack("{s:i, s:f, s:f}", "cycle", (int)c + 1, "start", cyc[c].a, "end",
                                   cyc[c].b);
            if (c == nc - 1 && r->cfg->cycles > nc) /* the record later cycles share */
                json_object_set_new(iv, "last_cycle", json_integer(r->cfg->cycles));
            if (t0e) {
                json_object_set_new(iv, "start_at_ns", json_integer(t0e + (a - rep->t0)));
                json_object_set_new(iv, "end_at_ns", json_integer(t0e + (b - rep->t0)));
            }
            json_array_append_new(ivs, iv);
        }
        if (!first) {
            json_decref(ivs);
            free(cyc);
            continue;
        }
        json_t *win = json_pack("{s:f, s:f, s:o}", "start", (double)(first - rep->t0) / 1e9, "end",
                                (double)(last - rep->t0) / 1e9, "intervals", ivs);
        if (t0e) { /* absolute, exact: what a merge lines up */
            json_object_set_new(win, "start_at_ns", json_integer(t0e + (first - rep->t0)));
            json_object_set_new(win, "end_at_ns", json_integer(t0e + (last - rep->t0)));
        }
        json_object_set_new(windows, lay->wl[w]->name, win);
        in[nw++] = (struct win_in){lay->wl[w]->name, win, cyc, nc};
    }
    struct win_src src = {rep->tel ? rep_stats : NULL, rep->tel ? rep_disk : NULL,
                          rep->tel ? tel_wl : NULL, (void *)rep,
                          "the run has no telemetry (telemetry_reason says why)"};
    windows_figures(in, nw, &src);
    for (unsigned i = 0; i < nw; i++)
        free(in[i].cyc);
    return windows;
}
