/* fleet.c -- a fleet's series, telemetry, windows and stragglers on one
 * clock (see fleet.h). Pure: JSON in, JSON out. */
#include "fleet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "../result/stragglers.h"
#include "../result/windows.h"
#include "../telemetry/telemetry.h"
#include "../workloads/workload.h"

/* The machine columns: weighted by logical CPUs (shares) or summed (rates). */
static const struct {
    const char *name;
    int weighted;
} MCOL[] = {{"cpu_util", 1},   {"read_Bps", 0},  {"read_iops", 0}, {"write_Bps", 0},
            {"write_iops", 0}, {"steal_pct", 1}, {"power_w", 0},   {"power_platform_w", 0}};
#define NMCOL (sizeof MCOL / sizeof MCOL[0])
/* Columns of every shard: its completions and the bytes its workloads read. */
#define C_OPS "ops_per_s"
#define C_WLB "workload_read_Bps"

double fleet_offset(const json_t *r) {
    double x = jnum(r, "shard.clock.offset_s");
    return isfinite(x) ? x : 0;
}

static double shift_of(const struct fleet_shard *s, int64_t rel_ns) {
    return (double)(s->rel_ns - rel_ns) / 1e9;
}

/* One shard's points: end times on the fleet's clock and lengths. */
struct pts {
    size_t n;
    const json_t *arr;
    double *t, *dt;
};

static int pts_load(struct pts *p, const struct fleet_shard *s, int64_t rel_ns) {
    p->arr = jget(s->r, "telemetry.series");
    p->n = json_array_size(p->arr);
    p->t = malloc((p->n ? p->n : 1) * sizeof *p->t);
    p->dt = malloc((p->n ? p->n : 1) * sizeof *p->dt);
    if (!p->t || !p->dt)
        return -1;
    double shift = shift_of(s, rel_ns), base = jnum(s->r, "telemetry.baseline_s");
    double prev = isfinite(base) ? base : 0;
    for (size_t k = 0; k < p->n; k++) {
        double t = jnum(json_array_get(p->arr, k), "t");
        p->t[k] = t + shift;
        p->dt[k] = t - prev;
        prev = t;
    }
    return 0;
}

/* The point of p covering instant x, or -1. */
static long pts_at(const struct pts *p, double x) {
    size_t lo = 0, hi = p->n;
    while (lo < hi) { /* the first point ending at or after x */
        size_t mid = (lo + hi) / 2;
        if (p->t[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == p->n || !(p->dt[lo] > 0) || p->t[lo] - p->dt[lo] > x)
        return -1;
    return (long)lo;
}

static int dbl_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The bytes a shard's point k says its workloads read. */
static double point_wl_bytes(const json_t *pt) {
    const char *name;
    json_t *w;
    double sum = 0;
    json_object_foreach(json_object_get(pt, "workloads"), name, w) {
        const struct workload *wl = workload_find(name);
        for (unsigned c = 0; wl && c < wl->ncounters; c++)
            if (wl->counters[c].unit == WL_BYTES) {
                double b = jnum(w, wl->counters[c].key);
                sum += isfinite(b) ? b : 0;
            }
    }
    return sum;
}

static double point_ops(const json_t *pt) {
    const char *name;
    json_t *w;
    double sum = 0;
    json_object_foreach(json_object_get(pt, "workloads"), name, w) {
        double x = jnum(w, "ops");
        sum += isfinite(x) ? x : 0;
    }
    return sum;
}

int fleet_series(const struct fleet_shard *s, size_t n, int64_t rel_ns, struct series *out) {
    series_init(out);
    for (size_t c = 0; c < NMCOL; c++)
        series_add_col(out, MCOL[c].name);
    int c_ops = series_add_col(out, C_OPS), c_wlb = series_add_col(out, C_WLB);
    struct pts *p = calloc(n ? n : 1, sizeof *p);
    double *edges = NULL;
    int rc = -1;
    size_t ne = 0;
    if (!p)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!s[i].released)
            continue;
        if (pts_load(&p[i], &s[i], rel_ns) != 0)
            goto out;
        if (!p[i].n && s[i].host_first)
            goto out; /* a machine without a series: no fleet series */
        ne += 2 * p[i].n;
    }
    edges = malloc((ne ? ne : 1) * sizeof *edges);
    if (!edges)
        goto out;
    ne = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; s[i].released && k < p[i].n; k++) {
            edges[ne++] = p[i].t[k] - p[i].dt[k];
            edges[ne++] = p[i].t[k];
        }
    qsort(edges, ne, sizeof *edges, dbl_cmp);
    for (size_t j = 0; j + 1 < ne; j++) {
        double a = edges[j], b = edges[j + 1];
        if (!(b - a > 1e-9))
            continue;
        double mid = (a + b) / 2;
        double *row = series_append(out, b, b - a);
        if (!row)
            goto out;
        double wsum[NMCOL] = {0}, vsum[NMCOL] = {0}, ops = 0, wlb = 0;
        int missing[NMCOL] = {0};
        for (size_t i = 0; i < n; i++) {
            if (!s[i].released)
                continue;
            long k = pts_at(&p[i], mid);
            const json_t *pt = k >= 0 ? json_array_get(p[i].arr, (size_t)k) : NULL;
            if (pt) { /* every shard's operations and bytes, spread over its point */
                ops += point_ops(pt) / p[i].dt[k];
                wlb += point_wl_bytes(pt) / p[i].dt[k];
            }
            if (!s[i].host_first)
                continue;
            double cpus = jnum(s[i].r, "system.logical_cpus");
            for (size_t c = 0; c < NMCOL; c++) {
                double v = pt ? jnum(pt, MCOL[c].name) : NAN;
                if (isnan(v)) {
                    missing[c] = 1;
                    continue;
                }
                double w = MCOL[c].weighted ? (cpus > 0 ? cpus : NAN) : 1;
                if (isnan(w)) {
                    missing[c] = 1;
                    continue;
                }
                wsum[c] += w, vsum[c] += v * w;
            }
        }
        for (size_t c = 0; c < NMCOL; c++) {
            /* A share is the present machines'; a sum needs every machine. */
            if (MCOL[c].weighted)
                row[2 + c] = wsum[c] > 0 ? vsum[c] / wsum[c] : NAN;
            else
                row[2 + c] = missing[c] ? NAN : vsum[c];
        }
        row[2 + c_ops] = ops;
        row[2 + c_wlb] = wlb;
    }
    rc = 0;
out:
    for (size_t i = 0; i < n; i++)
        free(p[i].t), free(p[i].dt);
    free(p);
    free(edges);
    return rc;
}

static json_t *r3(double v) {
    return isfinite(v) ? json_real(round(v * 1000.0) / 1000.0) : json_null();
}

static json_t *series_json(const struct series *ser) {
    json_t *arr = json_array();
    for (size_t k = 0; k < ser->n; k++) {
        const double *row = ser->rows + k * (2 + ser->ncols);
        json_t *pt = json_pack("{s:o, s:o}", "t", r3(row[0]), "dt", r3(row[1]));
        for (unsigned c = 0; c < ser->ncols; c++)
            json_object_set_new(pt, ser->names[c], r3(row[2 + c]));
        /* A piece cut at every host's sample edges: no host counted over it
         * alone (ops_per_s and workload_read_Bps spread each host's counts). */
        json_object_set_new(pt, "workloads", json_null());
        json_array_append_new(arr, pt);
    }
    return arr;
}

static json_t *col_stat(const struct series *ser, const char *name, const struct span *sp,
                        size_t n) {
    struct series_col c = series_column(ser, series_find_col(ser, name));
    return series_stat_json(&c, sp, n);
}

/* One power scope of the fleet: summed over the machines when every one
 * has it (the series' column when there is one, else the hosts' means),
 * else NAN with the first missing one's reason. */
static json_t *fleet_power(const struct fleet_shard *s, size_t n, const struct series *ser,
                           int from_series, const struct span *run, const char *scope,
                           const char *col, unsigned hosts, double *watts, char *why, size_t len) {
    char mean[96], reason[96];
    snprintf(mean, sizeof mean, "telemetry.power.scope=%s.mean_w", scope);
    snprintf(reason, sizeof reason, "telemetry.power.scope=%s.reason", scope);
    double sum = 0;
    int all = hosts > 0;
    snprintf(why, len, "no host");
    for (size_t i = 0; all && i < n; i++) {
        if (!s[i].host_first)
            continue;
        double w = jnum(s[i].r, mean);
        if (!isfinite(w)) {
            const char *r = jstr(s[i].r, reason);
            if (!r && !strcmp(scope, "package"))
                r = jstr(s[i].r, "telemetry.power_unavailable_reason");
            snprintf(why, len, "no %s power reading on shard %u (%s): %s", scope, s[i].index,
                     jstr(s[i].r, "shard.host") ? jstr(s[i].r, "shard.host") : "unknown host",
                     r ? r : "none recorded");
            all = 0;
        }
        sum += isfinite(w) ? w : 0;
    }
    json_t *mw = json_null(), *pk = json_null();
    if (all && from_series) {
        json_t *st = col_stat(ser, col, run, 1);
        if (json_is_object(st)) {
            mw = json_incref(json_object_get(st, "mean"));
            pk = json_incref(json_object_get(st, "peak"));
        }
        json_decref(st);
    } else if (all)
        mw = json_real(sum);
    *watts = json_is_number(mw) ? json_number_value(mw) : NAN;
    if (all && !isfinite(*watts))
        snprintf(why, len, "no %s power in the fleet's series", scope);
    else if (all)
        why[0] = 0;
    return json_pack("{s:s, s:s, s:o, s:o, s:i, s:o}", "source", "sum over the hosts", "scope",
                     scope, "mean_w", mw, "peak_w", pk, "hosts", (int)hosts, "reason",
                     why[0] ? json_string(why) : json_null());
}

/* Every machine's array at path (its first shard's), each entry naming its
 * host. */
static json_t *host_list(const struct fleet_shard *s, size_t n, const char *path) {
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++) {
        size_t k;
        json_t *d;
        if (!s[i].host_first)
            continue;
        const char *host = jstr(s[i].r, "shard.host");
        json_array_foreach(jget(s[i].r, path), k, d) {
            json_t *x = json_deep_copy(d);
            json_object_set_new(x, "host", json_string(host ? host : "unknown host"));
            json_array_append_new(out, x);
        }
    }
    return out;
}

/* The first machine's reason at path, naming its shard and host; dflt when
 * none has one. */
static void host_reason(const struct fleet_shard *s, size_t n, const char *path, const char *dflt,
                        char *out, size_t len) {
    for (size_t i = 0; i < n; i++) {
        const char *r = s[i].host_first ? jstr(s[i].r, path) : NULL;
        if (r) {
            snprintf(out, len, "shard %u (%s): %s", s[i].index,
                     jstr(s[i].r, "shard.host") ? jstr(s[i].r, "shard.host") : "unknown host", r);
            return;
        }
    }
    snprintf(out, len, "%s", dflt);
}

json_t *fleet_telemetry(const struct fleet_shard *s, size_t n, const struct series *ser, int ok,
                        double wall, double *watts, double *pwatts, char *why, size_t len) {
    unsigned hosts = 0;
    double cpu = 0, cpu_w = 0, rbps = 0, riops = 0;
    int cpu_ok = 1, rd_ok = 1;
    why[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (!s[i].host_first)
            continue;
        hosts++;
        double c = jnum(s[i].r, "telemetry.cpu_util.mean"), l = jnum(s[i].r, "system.logical_cpus");
        cpu_ok &= isfinite(c) && l > 0;
        if (isfinite(c) && l > 0)
            cpu += c * l, cpu_w += l;
        double rb = jnum(s[i].r, "telemetry.read_Bps.mean"),
               ri = jnum(s[i].r, "telemetry.read_iops.mean");
        rd_ok &= isfinite(rb) && isfinite(ri);
        rbps += isfinite(rb) ? rb : 0;
        riops += isfinite(ri) ? ri : 0;
    }
    int any = hosts > 0;
    json_t *t = json_object();
    json_object_set_new(t, "per_host", json_string("shards[].telemetry"));
    struct span run = {0, wall};
    int from_series = ok && any && wall > 0;
    if (from_series) {
        for (size_t c = 0; c < NMCOL; c++)
            if (strncmp(MCOL[c].name, "power_", 6))
                json_object_set_new(t, MCOL[c].name, col_stat(ser, MCOL[c].name, &run, 1));
        json_object_set_new(t, "span", json_pack("{s:f, s:f}", "start", 0.0, "end", wall));
    } else { /* a host without a series: its means, weighted alike; no peaks */
        json_object_set_new(t, "cpu_util",
                            json_pack("{s:o, s:n}", "mean",
                                      json_num_or_null(cpu / cpu_w, cpu_ok && any && cpu_w > 0),
                                      "peak"));
        json_object_set_new(
            t, "read_Bps",
            json_pack("{s:o, s:n}", "mean", json_num_or_null(rbps, rd_ok && any), "peak"));
        json_object_set_new(
            t, "read_iops",
            json_pack("{s:o, s:n}", "mean", json_num_or_null(riops, rd_ok && any), "peak"));
    }
    /* Each scope summed apart, never one into the other. */
    char pwhy[1024];
    json_t *pw = json_array();
    json_array_append_new(pw, fleet_power(s, n, ser, from_series, &run, "package", "power_w", hosts,
                                          watts, why, len));
    json_array_append_new(pw, fleet_power(s, n, ser, from_series, &run, "platform",
                                          "power_platform_w", hosts, pwatts, pwhy, sizeof pwhy));
    json_object_set_new(t, "power", pw);
    json_object_set_new(t, "power_unavailable_reason",
                        isfinite(*watts) ? json_null() : json_string(why));
    json_object_set_new(t, "platform_power_unavailable_reason",
                        isfinite(*pwatts) ? json_null() : json_string(pwhy));
    json_t *series = from_series ? series_json(ser) : json_array();
    /* Each machine's devices and data paths, naming its host. */
    json_object_set_new(t, "devices", host_list(s, n, "telemetry.devices"));
    json_object_set_new(t, "data_paths", host_list(s, n, "telemetry.data_paths"));
    char cwhy[1024], dwhy[1024];
    host_reason(s, n, "telemetry.cpu_unavailable_reason",
                "no host has a CPU reading over the fleet's run", cwhy, sizeof cwhy);
    host_reason(s, n, "telemetry.disk_unavailable_reason",
                "a host has no disk reading over part of the fleet's run (a sum needs every host)",
                dwhy, sizeof dwhy);
    series_figure_reasons(t, cwhy, dwhy);
    json_object_set_new(t, "samples", json_integer((json_int_t)json_array_size(series)));
    /* Where the fleet's series starts: the earliest host's first reading. */
    json_object_set_new(t, "baseline_s",
                        from_series && ser->n ? json_real(ser->rows[0] - ser->rows[1])
                                              : json_null());
    /* The drives' baselines summed over the machines, when every one has one. */
    double base = 0;
    char bwhy[1024] = "";
    for (size_t i = 0; i < n; i++) {
        double b = jnum(s[i].r, "telemetry.baseline_read_Bps");
        if (!s[i].host_first || bwhy[0])
            continue;
        if (isfinite(b) && b > 0) {
            base += b;
            continue;
        }
        const char *r = jstr(s[i].r, "telemetry.baseline_unavailable_reason");
        snprintf(bwhy, sizeof bwhy, "shard %u (%s): %s", s[i].index,
                 jstr(s[i].r, "shard.host") ? jstr(s[i].r, "shard.host") : "unknown host",
                 r ? r : "no drive baseline recorded");
    }
    telemetry_baseline_figures(t, bwhy[0] || !hosts ? NAN : base, hosts ? bwhy : "no host", 1);
    json_object_set_new(t, "series", series);
    return t;
}

/* ---- windows ---- */

static json_t *f_stats(void *ctx, const struct span *s, size_t n) {
    const struct series *ser = ctx;
    json_t *o = json_object();
    for (size_t c = 0; c < NMCOL; c++)
        json_object_set_new(o, MCOL[c].name, col_stat(ser, MCOL[c].name, s, n));
    series_figure_reasons(o, "no host has a CPU reading over this window",
                          "a host has no disk reading over part of this window (a sum needs "
                          "every host)");
    return o;
}

static double f_integral(const struct series *ser, const char *name, const struct span *s,
                         size_t n) {
    struct series_col c = series_column(ser, series_find_col(ser, name));
    return series_integral(&c, s, n);
}

static double f_disk(void *ctx, const struct span *s, size_t n) {
    return f_integral(ctx, "read_Bps", s, n);
}

static double f_wl(void *ctx, const struct span *s, size_t n) {
    return f_integral(ctx, C_WLB, s, n);
}

#define FLEET_MAX_CYCLES 4096

json_t *fleet_windows(const struct fleet_shard *s, size_t n, int64_t rel_ns,
                      const struct series *ser, int ok) {
    json_t *out = json_object();
    /* Per workload: [cycle] = {min start, max end} on the fleet's clock. */
    for (int t = 0; workload_table[t]; t++) {
        const char *name = workload_table[t]->name;
        struct span *cyc = NULL;
        unsigned ncyc = 0;
        int any = 0;
        for (size_t i = 0; i < n; i++) {
            const json_t *w = jget(s[i].r, "windows");
            w = json_object_get(w, name);
            if (!s[i].released || !w)
                continue;
            double shift = shift_of(&s[i], rel_ns);
            const json_t *ivs = json_object_get(w, "intervals");
            size_t k, m = json_array_size(ivs);
            json_t *iv;
            for (k = 0; k < (m ? m : 1); k++) {
                iv = m ? json_array_get(ivs, k) : NULL;
                double a = iv ? jnum(iv, "start") : jnum(w, "start");
                double b = iv ? jnum(iv, "end") : jnum(w, "end");
                double cy = iv ? jnum(iv, "cycle") : 1; /* an older result: one interval */
                if (!isfinite(a) || !isfinite(b) || !(cy >= 1) || cy > FLEET_MAX_CYCLES)
                    continue;
                unsigned c = (unsigned)cy - 1;
                if (c >= ncyc) {
                    struct span *nc = realloc(cyc, (c + 1) * sizeof *nc);
                    if (!nc)
                        continue;
                    cyc = nc;
                    for (unsigned z = ncyc; z <= c; z++)
                        cyc[z] = (struct span){INFINITY, -INFINITY};
                    ncyc = c + 1;
                }
                cyc[c].a = fmin(cyc[c].a, a + shift);
                cyc[c].b = fmax(cyc[c].b, b + shift);
                any = 1;
            }
        }
        if (!any) {
            free(cyc);
            continue;
        }
        double first = INFINITY, last = -INFINITY;
        json_t *ivs = json_array();
        for (unsigned c = 0; c < ncyc; c++) {
            if (!(cyc[c].b >= cyc[c].a)) {
                cyc[c] = (struct span){1, 0}; /* no operation of it in that cycle */
                continue;
            }
            first = fmin(first, cyc[c].a), last = fmax(last, cyc[c].b);
            json_array_append_new(ivs, json_pack("{s:i, s:f, s:f, s:I, s:I}", "cycle", (int)c + 1,
                                                 "start", cyc[c].a, "end", cyc[c].b, "start_at_ns",
                                                 (json_int_t)(rel_ns + llround(cyc[c].a * 1e9)),
                                                 "end_at_ns",
                                                 (json_int_t)(rel_ns + llround(cyc[c].b * 1e9))));
        }
        json_t *win = json_pack("{s:f, s:f, s:I, s:I, s:o, s:s}", "start", first, "end", last,
                                "start_at_ns", (json_int_t)(rel_ns + llround(first * 1e9)),
                                "end_at_ns", (json_int_t)(rel_ns + llround(last * 1e9)),
                                "intervals", ivs, "per_host", "shards[].windows");
        json_object_set_new(out, name, win);
        free(cyc);
    }
    /* The figures: overlap and exclusive time need every window at once. */
    struct win_in all[16];
    unsigned na = 0;
    const char *name;
    json_t *win;
    json_object_foreach(out, name, win) {
        if (na == 16)
            break;
        const json_t *ivs = json_object_get(win, "intervals");
        size_t m = json_array_size(ivs), k;
        json_t *iv;
        struct span *sp = malloc((m ? m : 1) * sizeof *sp);
        if (!sp)
            continue;
        json_array_foreach(ivs, k, iv) sp[k] = (struct span){jnum(iv, "start"), jnum(iv, "end")};
        all[na++] = (struct win_in){name, win, sp, (unsigned)m};
    }
    struct win_src src = {ok ? f_stats : NULL, ok ? f_disk : NULL, ok ? f_wl : NULL, (void *)ser,
                          "the fleet has no series: a host's result carries no telemetry series"};
    windows_figures(all, na, &src);
    for (unsigned i = 0; i < na; i++)
        free(all[i].cyc);
    return out;
}

/* ---- stragglers ---- */

static double f_ops_by(void *ctx, double t) {
    struct span s = {-INFINITY, t};
    double x = f_integral(ctx, C_OPS, &s, 1);
    return x;
}

json_t *fleet_stragglers(json_t *containers, const struct fleet_shard *s, size_t n, int64_t rel_ns,
                         const struct series *ser, int ok) {
    size_t k;
    json_t *c;
    json_array_foreach(containers, k, c) {
        double sec = jnum(c, "seconds"), sh = jnum(c, "shard");
        for (size_t i = 0; isfinite(sec) && i < n; i++)
            if (s[i].released && (double)s[i].index == sh) {
                json_object_set_new(c, "shard_seconds", json_real(sec));
                json_object_set_new(c, "seconds", json_real(sec + shift_of(&s[i], rel_ns)));
                break;
            }
    }
    return stragglers_json(containers, ok ? f_ops_by : NULL, (void *)ser);
}
