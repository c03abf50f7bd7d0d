/* compare.c -- `harness compare A B [...]`: the headline and per-workload
 * figures of several runs side by side, each with its ratio against the
 * first run ("AOPS 3.80×"), to stdout and optionally as an HTML page, with
 * cost per 1,000 AOPS when prices are given.
 *
 * A ratio only means something between like runs, so runs of different
 * profiles or corpus manifests are refused unless --force, and inventory
 * differences that move the numbers (cores, SMT, memory, I/O schedulers) are
 * pointed out rather than left for the reader to spot.
 *
 * Runs are labelled A, B, C... in argument order; --price accepts those
 * letters or the run directories' basenames. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../result/repeat.h"
#include "../result/summary.h"
#include "../workloads/workload.h"
#include "compare_figs.h"
#include "report.h"
#include "report_attrib.h"
#include "report_capacity.h"
#include "report_html.h"
#include "report_pctl.h"
#include "report_sut.h"

#define MAX_RUNS 26

struct run {
    char label[2];
    char name[256]; /* basename of the run directory */
    const char *dir;
    json_t *r;
    double price; /* per month, NAN when not given */
    json_t *cap;  /* a capacity directory's capacity object (r its agents at SLO's run), or NULL */
};

struct metric {
    const char *name, *path;
    int dec;
    int lower_better;
};

static const struct metric HEAD[] = {
    {"AOPS", "totals.aops", 1, 0},
    {"per-core AOPS", "totals.aops_per_core", 2, 0},
    {"AOPS per watt (package)", "totals.aops_per_watt", 3, 0},
    {"AOPS per watt (platform)", "totals.aops_per_watt_platform", 3, 0},
    {"operations", "totals.ops", 0, 0},
    {"errors", "totals.errors", 0, 1},
    {"wall seconds", "totals.wall_seconds", 3, 1},
    {"package power W", "telemetry.power.scope=package.mean_w", 1, 1},
    {"platform power W", "telemetry.power.scope=platform.mean_w", 1, 1},
    {"CPU util mean %", "telemetry.cpu_util.mean", 1, 0},
    {"steal mean %", "telemetry.steal_pct.mean", 1, 1},
    {"served from disk", "storage.served_from_disk", 3, 0},
    {"median finish s", "stragglers.finish.median", 3, 1},
    {"tail share", "stragglers.tail_share", 3, 1},
};
#define MAX_WL 8
static const char *STATS[] = {"mean", "p50", "p95", "p99", "max"};

static double ratio(double v, double base) {
    return (isfinite(v) && isfinite(base) && base != 0) ? v / base : NAN;
}

static double cost_per_kaops(const struct run *r) {
    double aops = jnum(r->r, "totals.aops");
    return (isfinite(r->price) && aops > 0) ? r->price / (aops / 1000) : NAN;
}

static void usage(FILE *f) {
    fputs(
        "usage: harness compare RUN_DIR_A RUN_DIR_B [...] [--html FILE] [--price A=P,B=P...] "
        "[--force]\n"
        "  Prints the headline and per-workload figures side by side with each run's ratio\n"
        "  against the first run (A). Runs are labelled A, B, C... in argument order.\n"
        "  --html FILE   also write the comparison as a self-contained HTML page\n"
        "  --price LIST  monthly price per run, any currency, e.g. A=3346.88,B=3681.97; a label\n"
        "                is a run's letter or its directory's basename. Adds cost per 1,000 AOPS.\n"
        "  --force       compare runs of different profiles or corpus manifests anyway\n"
        "exit status: 0 compared, 1 refused (different profile or corpus), 2 bad usage or\n"
        "unreadable run.\n",
        f);
}

/* "A=3346.88,B=3681.97" onto the runs. Returns 0 or -1 with err set. */
static int parse_prices(const char *list, struct run *runs, int n, char *err, size_t errlen) {
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *end;
        if (!eq) {
            snprintf(err, errlen, "--price: '%s' is not LABEL=PRICE", tok);
            rc = -1;
            break;
        }
        *eq = 0;
        double p = strtod(eq + 1, &end);
        if (end == eq + 1 || *end || !(p >= 0) || !isfinite(p)) {
            snprintf(err, errlen, "--price: '%s' is not a price", eq + 1);
            rc = -1;
            break;
        }
        int hit = -1;
        for (int i = 0; i < n && hit < 0; i++)
            if (!strcmp(tok, runs[i].label))
                hit = i;
        for (int i = 0; i < n && hit < 0; i++)
            if (!strcmp(tok, runs[i].name))
                hit = i;
        if (hit < 0) {
            snprintf(err, errlen,
                     "--price: no run labelled '%s' (use A, B, ... or a run directory's name)",
                     tok);
            rc = -1;
        } else
            runs[hit].price = p;
    }
    free(copy);
    return rc;
}

/* What a workload ran on (its descriptor's data_key under config); when
 * that is null, the workload's whole config object. */
static const json_t *data_of(const json_t *r, const char *key) {
    char path[256], *dot;
    snprintf(path, sizeof path, "config.%s", key);
    const json_t *v = jget(r, path);
    if (v && !json_is_null(v))
        return v;
    if ((dot = strchr(path + 7, '.')))
        *dot = 0;
    return jget(r, path);
}

static int same_json(const json_t *a, const json_t *b) {
    return (!a && !b) || (a && b && json_equal(a, b));
}

/* Reasons the runs cannot be compared; one line each into reasons. */
static void incomparable(const struct run *runs, int n, json_t *reasons) {
    char line[1024];
    for (int i = 1; i < n; i++) {
        const char *p0 = jstr(runs[0].r, "config.profile"), *pi = jstr(runs[i].r, "config.profile");
        if (!p0 || !pi || strcmp(p0, pi)) {
            snprintf(line, sizeof line, "%s (%s) ran profile %s, %s (%s) ran profile %s",
                     runs[i].label, runs[i].name, pi ? pi : "(none)", runs[0].label, runs[0].name,
                     p0 ? p0 : "(none)");
            json_array_append_new(reasons, json_string(line));
        }
        for (int w = 0; workload_table[w]; w++) {
            const char *key = workload_table[w]->data_key;
            if (!key || same_json(data_of(runs[0].r, key), data_of(runs[i].r, key)))
                continue;
            snprintf(line, sizeof line,
                     "%s (%s) ran %s on other data than %s (%s): config.%s differs", runs[i].label,
                     runs[i].name, workload_table[w]->name, runs[0].label, runs[0].name, key);
            json_array_append_new(reasons, json_string(line));
        }
        for (int w = 0; workload_table[w]; w++)
            for (const char *const *k = workload_table[w]->compare_keys; k && *k; k++) {
                char path[256];
                snprintf(path, sizeof path, "config.%s", *k);
                json_t *a = jget(runs[0].r, path), *b = jget(runs[i].r, path);
                if (same_json(a, b))
                    continue;
                char va[64], vb[64];
                char *da = a ? json_dumps(a, JSON_ENCODE_ANY) : NULL;
                char *db = b ? json_dumps(b, JSON_ENCODE_ANY) : NULL;
                snprintf(va, sizeof va, "%s", da ? da : "(not recorded)");
                snprintf(vb, sizeof vb, "%s", db ? db : "(not recorded)");
                free(da);
                free(db);
                snprintf(line, sizeof line,
                         "%s (%s) ran %s with %s %s, %s (%s) with %s: one operation is not the "
                         "same work",
                         runs[i].label, runs[i].name, workload_table[w]->name, *k, vb,
                         runs[0].label, runs[0].name, va);
                json_array_append_new(reasons, json_string(line));
            }
    }
}

static void disks_text(const json_t *r, char *out, size_t len) {
    size_t i, o = 0;
    json_t *d;
    out[0] = 0;
    json_array_foreach(jget(r, "system.disks"), i, d) {
        int k = snprintf(out + o, len - o, "%s%s:%s", i ? " " : "",
                         jstr(d, "name") ? jstr(d, "name") : "?",
                         jstr(d, "scheduler") ? jstr(d, "scheduler") : "?");
        if (k < 0 || (size_t)k >= len - o)
            break;
        o += (size_t)k;
    }
    if (!o)
        snprintf(out, len, "(none listed)");
}

/* Inventory differences that move the numbers, one line each. */
static void inventory_diffs(const struct run *runs, int n, json_t *out) {
    char line[2048], vals[1024];
    static const struct {
        const char *name, *path;
        int bytes;
    } F[] = {{"physical cores", "system.physical_cores", 0},
             {"logical CPUs", "system.logical_cpus", 0},
             {"memory", "system.memory_bytes", 1},
             {"CPU model", "system.cpu_model", 0}};
    for (size_t f = 0; f < sizeof F / sizeof F[0]; f++) {
        int differ = 0;
        size_t o = 0;
        for (int i = 0; i < n; i++) {
            json_t *v = jget(runs[i].r, F[f].path), *v0 = jget(runs[0].r, F[f].path);
            differ |= !json_equal(v, v0) && !(v == NULL && v0 == NULL);
            char t[256];
            if (json_is_string(v))
                snprintf(t, sizeof t, "%s", json_string_value(v));
            else if (F[f].bytes)
                fmt_bytes(t, sizeof t, jnum(runs[i].r, F[f].path), 1);
            else
                fmt_num(t, sizeof t, jnum(runs[i].r, F[f].path), 0);
            o += (size_t)snprintf(vals + o, sizeof vals - o, "%s%s %s", i ? ", " : "",
                                  runs[i].label, t);
            if (o >= sizeof vals)
                break;
        }
        if (differ) {
            snprintf(line, sizeof line, "%s: %s", F[f].name, vals);
            json_array_append_new(out, json_string(line));
        }
    }
    /* SMT is what the logical/physical ratio says; per-core AOPS counts
     * physical cores, so SMT on one side only skews it. */
    int smt0 = -1, differ = 0;
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        double l = jnum(runs[i].r, "system.logical_cpus"),
               p = jnum(runs[i].r, "system.physical_cores");
        int smt = (l > 0 && p > 0) ? (l > p) : -1;
        if (i == 0)
            smt0 = smt;
        differ |= smt != smt0;
        o += (size_t)snprintf(vals + o, sizeof vals - o, "%s%s %s", i ? ", " : "", runs[i].label,
                              smt < 0 ? "unknown"
                              : smt   ? "on"
                                      : "off");
        if (o >= sizeof vals)
            break;
    }
    if (differ) {
        snprintf(line, sizeof line, "SMT differs: %s", vals);
        json_array_append_new(out, json_string(line));
    }
    /* The disclosure's other rows (BIOS, microcode, DIMMs, governor...). */
    const json_t *R[MAX_RUNS];
    const char *L[MAX_RUNS];
    for (int i = 0; i < n; i++)
        R[i] = runs[i].r, L[i] = runs[i].label;
    compare_sut_notes(R, L, n, out);
    char d0[512], di[512];
    disks_text(runs[0].r, d0, sizeof d0);
    for (int i = 1; i < n; i++) {
        disks_text(runs[i].r, di, sizeof di);
        if (strcmp(d0, di)) {
            snprintf(line, sizeof line, "disks and I/O schedulers differ: %s %s; %s %s",
                     runs[0].label, d0, runs[i].label, di);
            json_array_append_new(out, json_string(line));
        }
    }
}

/* A workload's own figures, as its descriptor declares them: each counter,
 * and the mean and p95 of each of its other histograms. */
#define MAX_WL_ROWS (WL_MAX_COUNTERS + 2 * WL_MAX_HISTS)
struct wl_rows {
    size_t n;
    char name[MAX_WL_ROWS][96], path[MAX_WL_ROWS][160];
    int dec[MAX_WL_ROWS];
};

static void workload_rows(const char *wl, struct wl_rows *fr) {
    const struct workload *d = workload_find(wl);
    fr->n = 0;
    for (unsigned c = 0; d && c < d->ncounters; c++, fr->n++) {
        snprintf(fr->name[fr->n], sizeof fr->name[0], "  %s %s", wl, d->counters[c].title);
        snprintf(fr->path[fr->n], sizeof fr->path[0], "workloads.%s.%s", wl, d->counters[c].key);
        fr->dec[fr->n] = 0;
    }
    for (unsigned h = 0; d && h < d->nhists; h++)
        for (int s = 0; s < 2; s++, fr->n++) {
            snprintf(fr->name[fr->n], sizeof fr->name[0], "  %s %s %s ms", wl, d->hists[h].title,
                     s ? "p95" : "mean");
            snprintf(fr->path[fr->n], sizeof fr->path[0], "workloads.%s.%s.%s", wl, d->hists[h].key,
                     s ? "p95" : "mean");
            fr->dec[fr->n] = 3;
        }
}

/* ---- text ---- */

static void text_cell(char *out, size_t len, double v, double base, int dec, int first,
                      const char *tag) {
    char f[64];
    fmt_num(f, sizeof f, v, dec);
    double q = ratio(v, base);
    if (first || !isfinite(q))
        snprintf(out, len, "%s", f);
    else
        snprintf(out, len, "%s (%.2f×%s)", f, q, tag ? tag : "");
}

/* The ratio of run i against A is within the two runs' combined spread:
 * their --repeat ranges overlap (repeat.h). Said, never left for a reader
 * to take as a difference. */
static int within_noise(const struct run *runs, int i, const char *path) {
    return i > 0 && repeat_within_noise(runs[0].r, runs[i].r, path) == 1;
}

static void text_row_tagged(int n, const char *name, const double *v, int dec,
                            const struct run *runs, const char *path) {
    printf("%-26s", name);
    for (int i = 0; i < n; i++) {
        char c[96];
        text_cell(c, sizeof c, v[i], v[0], dec, i == 0,
                  runs && within_noise(runs, i, path) ? ", noise" : NULL);
        /* × is two bytes but one column: pad by hand. */
        int pad = 24 - (int)strlen(c) + (strstr(c, "×") ? 1 : 0);
        printf(" %*s%s", pad > 0 ? pad : 0, "", c);
    }
    putchar('\n');
}

static void text_row(int n, const char *name, const double *v, int dec) {
    text_row_tagged(n, name, v, dec, NULL, NULL);
}

/* Each run's AOPS range over its --repeat runs, when any run has one. */
static int any_repeats(const struct run *runs, int n) {
    for (int i = 0; i < n; i++)
        if (json_is_object(json_object_get(runs[i].r, "repeats")))
            return 1;
    return 0;
}

static void range_text(const struct run *r, char *out, size_t len) {
    double lo, hi;
    if (repeat_range(r->r, "totals.aops", &lo, &hi) == 1)
        snprintf(out, len, "%.1f-%.1f (%.0f runs)", lo, hi, jnum(r->r, "repeats.n"));
    else
        snprintf(out, len, "1 run");
}

/* Why a ratio can or cannot be read as a difference: a line for the end. */
static void spread_note(const struct run *runs, int n, char *out, size_t len) {
    out[0] = 0;
    if (!any_repeats(runs, n))
        snprintf(out, len,
                 "every run is a single run: how much AOPS moves on a rerun is unknown "
                 "(harness --repeat 3 measures it)");
}

/* Capacity directories (harness capacity): agents and AOPS at SLO beside
 * AOPS, each run's figures being those of its agents at SLO's point. */
static int any_capacity(const struct run *runs, int n) {
    for (int i = 0; i < n; i++)
        if (runs[i].cap)
            return 1;
    return 0;
}

static const char *spec_of(const json_t *cap) {
    return !cap ? "a run" : jstr(cap, "slo.spec") ? jstr(cap, "slo.spec") : "?";
}

static void capacity_values(const struct run *runs, int n, const char *key, double *v) {
    for (int i = 0; i < n; i++)
        v[i] = runs[i].cap ? jnum(runs[i].cap, key) : NAN;
}

static void print_text(const struct run *runs, int n, int priced, const json_t *notes) {
    for (int i = 0; i < n; i++)
        printf("%s  %s  (%s, profile %s, %g containers, %s, %s)\n", runs[i].label, runs[i].dir,
               jstr(runs[i].r, "system.cpu_model") ? jstr(runs[i].r, "system.cpu_model")
                                                   : "unknown CPU",
               jstr(runs[i].r, "config.profile") ? jstr(runs[i].r, "config.profile") : "?",
               jnum(runs[i].r, "config.containers"),
               json_is_true(json_object_get(runs[i].r, "valid")) ? "valid" : "NOT VALID",
               json_is_true(json_object_get(runs[i].r, "reportable")) ? "reportable"
                                                                      : "not reportable");
    printf("\n%-26s", "ratios against A");
    for (int i = 0; i < n; i++)
        printf(" %24s", runs[i].label);
    putchar('\n');
    double v[MAX_RUNS];
    for (size_t m = 0; m < sizeof HEAD / sizeof HEAD[0]; m++) {
        for (int i = 0; i < n; i++)
            v[i] = jnum(runs[i].r, HEAD[m].path);
        text_row_tagged(n, HEAD[m].name, v, HEAD[m].dec, runs, HEAD[m].path);
    }
    if (any_capacity(runs, n)) {
        capacity_values(runs, n, "agents_at_slo", v);
        text_row(n, "agents at SLO", v, 0);
        capacity_values(runs, n, "aops_at_slo", v);
        text_row(n, "AOPS at SLO", v, 2);
    }
    if (any_repeats(runs, n)) { /* each side's spread, no ratio: it is not a figure to rank */
        printf("%-26s", "AOPS min-max of the runs");
        for (int i = 0; i < n; i++) {
            char c[96];
            range_text(&runs[i], c, sizeof c);
            printf(" %24s", c);
        }
        printf("\n%-26s", "AOPS CV %");
        for (int i = 0; i < n; i++) {
            char c[64];
            printf(" %24s", fmt_num(c, sizeof c, jnum(runs[i].r, "repeats.aops_cv"), 1));
        }
        putchar('\n');
    }
    if (priced) {
        for (int i = 0; i < n; i++)
            v[i] = runs[i].price;
        text_row(n, "price per month", v, 2);
        for (int i = 0; i < n; i++)
            v[i] = cost_per_kaops(&runs[i]);
        text_row(n, "cost per 1,000 AOPS", v, 2);
    }
    const char *WL[MAX_WL];
    size_t nw = workload_keys(json_object_get(runs[0].r, "workloads"), WL, MAX_WL);
    for (size_t w = 0; w < nw; w++) {
        printf("%s latency ms (lower is better)\n", WL[w]);
        for (size_t s = 0; s < 5; s++) {
            char k[96], name[64];
            snprintf(k, sizeof k, "workloads.%s.latency_ms.%s", WL[w], STATS[s]);
            snprintf(name, sizeof name, "  %s %s", WL[w], STATS[s]);
            for (int i = 0; i < n; i++)
                v[i] = jnum(runs[i].r, k);
            text_row(n, name, v, 3);
        }
        struct wl_rows fr;
        workload_rows(WL[w], &fr);
        for (size_t f = 0; f < fr.n; f++) {
            for (int i = 0; i < n; i++)
                v[i] = jnum(runs[i].r, fr.path[f]);
            text_row(n, fr.name[f], v, fr.dec[f]);
        }
    }
    char an[64][ATTRIB_ROW_NAME], ap[64][ATTRIB_ROW_PATH];
    size_t na = attrib_compare_rows(runs[0].r, an, ap, 64);
    if (na)
        printf("CPU seconds per operation by component (lower is better)\n");
    for (size_t a = 0; a < na; a++) {
        for (int i = 0; i < n; i++)
            v[i] = jnum(runs[i].r, ap[a]);
        text_row(n, an[a], v, 6);
    }
    const json_t *R[MAX_RUNS];
    const char *L[MAX_RUNS];
    for (int i = 0; i < n; i++)
        R[i] = runs[i].r, L[i] = runs[i].label;
    compare_figs_text(R, L, n, stdout);
    for (int i = 1; i < n; i++) {
        printf("\n%s vs A: AOPS %.2f×", runs[i].label,
               ratio(jnum(runs[i].r, "totals.aops"), jnum(runs[0].r, "totals.aops")));
        if (within_noise(runs, i, "totals.aops")) {
            char a[96], b[96];
            range_text(&runs[0], a, sizeof a);
            range_text(&runs[i], b, sizeof b);
            printf(" (within noise: the runs' AOPS ranges overlap, A %s, %s %s)", a, runs[i].label,
                   b);
        }
        double ag = ratio(runs[i].cap ? jnum(runs[i].cap, "agents_at_slo") : NAN,
                          runs[0].cap ? jnum(runs[0].cap, "agents_at_slo") : NAN);
        if (isfinite(ag))
            printf(", agents at SLO %.2f×", ag);
        printf(
            ", per-core %.2f×%s",
            ratio(jnum(runs[i].r, "totals.aops_per_core"), jnum(runs[0].r, "totals.aops_per_core")),
            within_noise(runs, i, "totals.aops_per_core") ? " (within noise)" : "");
        double w =
            ratio(jnum(runs[i].r, "totals.aops_per_watt"), jnum(runs[0].r, "totals.aops_per_watt"));
        if (isfinite(w))
            printf(", AOPS/W %.2f×", w);
        else
            printf(", AOPS/W unavailable");
        /* Platform against platform only: never a ratio across scopes. */
        w = ratio(jnum(runs[i].r, "totals.aops_per_watt_platform"),
                  jnum(runs[0].r, "totals.aops_per_watt_platform"));
        if (isfinite(w))
            printf(", AOPS/W platform %.2f×", w);
        double c = ratio(cost_per_kaops(&runs[i]), cost_per_kaops(&runs[0]));
        if (isfinite(c))
            printf(", cost per 1,000 AOPS %.2f×", c);
    }
    putchar('\n');
    char sn[256];
    spread_note(runs, n, sn, sizeof sn);
    if (sn[0])
        printf("spread: %s\n", sn);
    size_t i;
    json_t *s;
    if (json_array_size(notes))
        printf("\nnotes:\n");
    json_array_foreach(notes, i, s) printf("  %s\n", json_string_value(s));
    for (int k = 0; k < n; k++) /* merged results: their hosts */
        if (json_array_size(json_object_get(runs[k].r, "shards"))) {
            printf("\n%s (%s):\n", runs[k].label, runs[k].name);
            shards_print(runs[k].r, stdout);
        }
}

/* ---- HTML ---- */

static void html_row_tagged(struct sbuf *b, int n, const char *name, const char *key,
                            const double *v, int dec, const struct run *runs,
                            struct fig_notes *notes) {
    sb_puts(b, "<tr><td>");
    sb_esc(b, name);
    sb_puts(b, "</td>");
    for (int i = 0; i < n; i++) {
        char k[160], e[40], f[64];
        /* Figures of result.json under runs.N.<its path>; figures made here
         * (price, cost) under derived.N.<name>, so a test can tell them apart. */
        snprintf(k, sizeof k, "%s.%d.%s", strchr(key, '.') ? "runs" : "derived", i, key);
        sb_puts(b, "<td>");
        /* A missing figure with the result's reason (no power source...). */
        const char *why =
            runs && notes && !isfinite(v[i]) ? compare_null_reason(runs[i].r, key) : NULL;
        if (why)
            fig_null_cell(b, notes, k, runs[i].label, why);
        else
            sb_num(b, k, v[i], dec);
        sb_puts(b, "</td>");
        if (i == 0)
            continue;
        double q = ratio(v[i], v[0]);
        snprintf(k, sizeof k, "ratio.%d.%s", i, key);
        sb_puts(b, "<td class=\"ratio\">");
        if (isfinite(q)) {
            snprintf(f, sizeof f, "%.2f", q);
            sb_puts(b, "<span class=\"num\" data-key=\"");
            sb_esc(b, k);
            sb_printf(b, "\" data-value=\"%s\">%s×</span>", fmt_exact(e, sizeof e, q), f);
            if (runs && within_noise(runs, i, key))
                sb_printf(b, " <span class=\"noise\" data-noise=\"%d.%s\">within noise</span>", i,
                          key);
        } else
            sb_puts(b, "–");
        sb_puts(b, "</td>");
    }
    sb_puts(b, "</tr>\n");
}

static void html_row(struct sbuf *b, int n, const char *name, const char *key, const double *v,
                     int dec) {
    html_row_tagged(b, n, name, key, v, dec, NULL, NULL);
}

/* Rows of each run's AOPS spread over its --repeat runs (none: "–"). */
static void html_spread_rows(struct sbuf *b, const struct run *runs, int n) {
    static const char *const rows[][2] = {{"AOPS min (of the runs)", "repeats.aops_min"},
                                          {"AOPS max (of the runs)", "repeats.aops_max"},
                                          {"AOPS CV %", "repeats.aops_cv"},
                                          {"runs", "repeats.n"}};
    if (!any_repeats(runs, n))
        return;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        sb_puts(b, "<tr class=\"spread\"><td>");
        sb_esc(b, rows[r][0]);
        sb_puts(b, "</td>");
        for (int i = 0; i < n; i++) {
            char k[96];
            snprintf(k, sizeof k, "runs.%d.%s", i, rows[r][1]);
            sb_puts(b, "<td>");
            sb_num(b, k, jnum(runs[i].r, rows[r][1]), r == 3 ? 0 : 1);
            sb_puts(b, i ? "</td><td></td>" : "</td>");
        }
        sb_puts(b, "</tr>\n");
    }
}

static int write_html(const char *path, const struct run *runs, int n, int priced,
                      const json_t *notes, const json_t *forced) {
    struct sbuf b = {0};
    page_begin(&b, "aops-harness comparison");
    sb_puts(&b,
            "<h1>aops-harness comparison</h1>\n<table id=\"runs\"><tr><th>run</th><th class=\"t\">"
            "directory</th><th class=\"t\">CPU</th><th class=\"t\">profile</th><th>containers</th>"
            "<th class=\"t\">validity</th><th class=\"t\">reportable</th></tr>\n");
    for (int i = 0; i < n; i++) {
        int valid = json_is_true(json_object_get(runs[i].r, "valid"));
        sb_printf(&b, "<tr><td>%s</td><td class=\"t\">", runs[i].label);
        sb_esc(&b, runs[i].name);
        sb_puts(&b, "</td><td class=\"t\">");
        sb_esc(&b, jstr(runs[i].r, "system.cpu_model"));
        sb_puts(&b, "</td><td class=\"t\">");
        sb_esc(&b, jstr(runs[i].r, "config.profile"));
        sb_puts(&b, "</td><td>");
        char k[64];
        snprintf(k, sizeof k, "runs.%d.config.containers", i);
        sb_num(&b, k, jnum(runs[i].r, "config.containers"), 0);
        int rep = json_is_true(json_object_get(runs[i].r, "reportable"));
        sb_printf(&b, "</td><td class=\"t %s\">%s</td><td class=\"t %s\">%s</td></tr>\n",
                  valid ? "valid" : "invalid", valid ? "valid" : "not valid",
                  rep ? "valid" : "invalid", rep ? "reportable" : "not reportable");
    }
    sb_puts(&b, "</table>\n");
    size_t i;
    json_t *s;
    if (json_array_size(forced)) {
        sb_puts(&b, "<h3>Compared with --force although</h3><ul class=\"bad\" id=\"forced\">");
        json_array_foreach(forced, i, s) {
            sb_puts(&b, "<li>");
            sb_esc(&b, json_string_value(s));
            sb_puts(&b, "</li>");
        }
        sb_puts(&b, "</ul>\n");
    }
    if (json_array_size(notes)) {
        sb_puts(&b, "<h3>Inventory differences</h3><ul class=\"warn\" id=\"inventory-diffs\">");
        json_array_foreach(notes, i, s) {
            sb_puts(&b, "<li>");
            sb_esc(&b, json_string_value(s));
            sb_puts(&b, "</li>");
        }
        sb_puts(&b, "</ul>\n");
    }

    char sn[256];
    spread_note(runs, n, sn, sizeof sn);
    if (sn[0]) {
        sb_puts(&b, "<p class=\"warn\" id=\"spread-note\">");
        sb_esc(&b, sn);
        sb_puts(&b, "</p>\n");
    }
    sb_puts(&b,
            "<h2>Side by side (ratios against A)</h2>\n<table id=\"compare\"><tr><th>figure</th>");
    for (int j = 0; j < n; j++) {
        sb_printf(&b, "<th>%s</th>", runs[j].label);
        if (j)
            sb_printf(&b, "<th>%s ÷ A</th>", runs[j].label);
    }
    sb_puts(&b, "</tr>\n");
    double v[MAX_RUNS];
    struct fig_notes *head_notes = fig_notes_new("compare-notes");
    for (size_t m = 0; m < sizeof HEAD / sizeof HEAD[0]; m++) {
        for (int j = 0; j < n; j++)
            v[j] = jnum(runs[j].r, HEAD[m].path);
        html_row_tagged(&b, n, HEAD[m].name, HEAD[m].path, v, HEAD[m].dec, runs, head_notes);
    }
    if (any_capacity(runs, n)) {
        capacity_values(runs, n, "agents_at_slo", v);
        html_row(&b, n, "agents at SLO", "agents_at_slo", v, 0);
        capacity_values(runs, n, "aops_at_slo", v);
        html_row(&b, n, "AOPS at SLO", "aops_at_slo", v, 2);
    }
    html_spread_rows(&b, runs, n);
    if (priced) {
        for (int j = 0; j < n; j++)
            v[j] = runs[j].price;
        html_row(&b, n, "price per month", "price", v, 2);
        for (int j = 0; j < n; j++)
            v[j] = cost_per_kaops(&runs[j]);
        html_row(&b, n, "cost per 1,000 AOPS", "cost_per_kaops", v, 2);
    }
    const char *WL[MAX_WL];
    size_t nw = workload_keys(json_object_get(runs[0].r, "workloads"), WL, MAX_WL);
    for (size_t w = 0; w < nw; w++) {
        sb_printf(&b, "<tr><th colspan=\"%d\">", 2 * n);
        sb_esc(&b, WL[w]);
        sb_puts(&b, " latency ms (lower is better)</th></tr>\n");
        for (size_t st = 0; st < 5; st++) {
            char k[96], name[64];
            snprintf(k, sizeof k, "workloads.%s.latency_ms.%s", WL[w], STATS[st]);
            snprintf(name, sizeof name, "%s %s", WL[w], STATS[st]);
            for (int j = 0; j < n; j++)
                v[j] = jnum(runs[j].r, k);
            html_row(&b, n, name, k, v, 3);
        }
        struct wl_rows fr;
        workload_rows(WL[w], &fr);
        for (size_t f = 0; f < fr.n; f++) {
            for (int j = 0; j < n; j++)
                v[j] = jnum(runs[j].r, fr.path[f]);
            html_row(&b, n, fr.name[f] + 2, fr.path[f], v, fr.dec[f]);
        }
    }
    char an[64][ATTRIB_ROW_NAME], ap[64][ATTRIB_ROW_PATH];
    size_t na = attrib_compare_rows(runs[0].r, an, ap, 64);
    if (na)
        sb_printf(&b,
                  "<tr><th colspan=\"%d\">CPU seconds per operation by component (lower is "
                  "better)</th></tr>\n",
                  2 * n);
    for (size_t a = 0; a < na; a++) {
        for (int j = 0; j < n; j++)
            v[j] = jnum(runs[j].r, ap[a]);
        html_row(&b, n, an[a] + 2, ap[a], v, 6);
    }
    sb_puts(&b, "</table>\n");
    fig_notes_end(&b, head_notes);

    /* The figure set, grouped as the published comparison reads: throughput,
     * latency, then CPU, storage and power per window, then efficiency. */
    const json_t *R[MAX_RUNS];
    const char *L[MAX_RUNS];
    char lab[MAX_RUNS][300];
    for (int j = 0; j < n; j++) {
        snprintf(lab[j], sizeof lab[j], "%s %s", runs[j].label, runs[j].name);
        R[j] = runs[j].r, L[j] = lab[j];
    }
    compare_figs_table(&b, R, L, n);
    sb_puts(&b, "<h2>The figure set</h2>\n<div class=\"grid2\">\n");
    compare_headline_charts(&b, R, L, n);
    struct chart {
        char id[96], title[160], path[160];
        const char *unit;
    } C[MAX_WL];
    size_t nc = 0;
    for (size_t w = 0; w < nw; w++, nc++) { /* a p95 chart per workload */
        snprintf(C[nc].id, sizeof C[nc].id, "compare-%s-p95", WL[w]);
        snprintf(C[nc].title, sizeof C[nc].title, "%s p95 latency", workload_title(WL[w]));
        snprintf(C[nc].path, sizeof C[nc].path, "workloads.%s.latency_ms.p95", WL[w]);
        C[nc].unit = "ms";
    }
    for (size_t c = 0; c < nc; c++) {
        int any = 0;
        for (int j = 0; j < n; j++)
            any |= isfinite(v[j] = jnum(runs[j].r, C[c].path));
        if (any)
            svg_bar_chart(&b, C[c].id, C[c].title, C[c].unit, L, v, (size_t)n);
    }
    compare_window_charts(&b, R, L, n);
    int watts = 0;
    for (int j = 0; j < n; j++)
        watts |= isfinite(v[j] = jnum(runs[j].r, "totals.aops_per_watt"));
    /* A chart of nothing says less than the reason: AOPS/W without power. */
    if (watts)
        svg_bar_chart(&b, "compare-aops-per-watt", "AOPS per watt (package)", "AOPS/W", L, v,
                      (size_t)n);
    else
        compare_unavailable(&b, "compare-aops-per-watt-unavailable", "AOPS per watt", R, L, n,
                            "telemetry.power_unavailable_reason");
    watts = 0;
    for (int j = 0; j < n; j++)
        watts |= isfinite(v[j] = jnum(runs[j].r, "totals.aops_per_watt_platform"));
    if (watts) /* only when a run has it: most machines have no wall meter */
        svg_bar_chart(&b, "compare-aops-per-watt-platform", "AOPS per watt (platform)", "AOPS/W", L,
                      v, (size_t)n);
    if (priced) {
        for (int j = 0; j < n; j++)
            v[j] = cost_per_kaops(&runs[j]);
        svg_bar_chart(&b, "compare-cost", "cost per 1,000 AOPS (per month)", "", L, v, (size_t)n);
    }
    sb_puts(&b, "</div>\n");
    compare_latency_curves(&b, R, L, n);
    compare_sut_table(&b, R, (const char *const *)L, n);
    sb_puts(&b, "<footer>written by harness compare</footer>\n");
    page_end(&b);
    /* A page that cannot be written is exit 1 from compare_main, not exit()
     * here: the caller frees what it holds (and a fuzzer sees a return). */
    FILE *f = fopen(path, "w");
    int ok = f && fwrite(b.b.p, 1, b.b.len, f) == b.b.len;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "harness compare: %s: %s\n", path, strerror(errno));
    sb_free(&b);
    return ok ? 0 : -1;
}

int compare_main(int argc, char **argv) {
    struct run runs[MAX_RUNS];
    int n = 0, force = 0, rc = 0;
    const char *html = NULL, *prices = NULL;
    char err[4400];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--html") && i + 1 < argc)
            html = argv[++i];
        else if (!strcmp(argv[i], "--price") && i + 1 < argc)
            prices = argv[++i];
        else if (!strcmp(argv[i], "--force"))
            force = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "harness compare: unknown option '%s' (see harness compare --help)\n",
                    argv[i]);
            return 2;
        } else if (n == MAX_RUNS) {
            fprintf(stderr, "harness compare: at most %d runs\n", MAX_RUNS);
            return 2;
        } else {
            struct run *r = &runs[n];
            memset(r, 0, sizeof *r);
            r->label[0] = (char)('A' + n);
            r->dir = argv[i];
            r->price = NAN;
            char tmp[4096];
            snprintf(tmp, sizeof tmp, "%s", argv[i]);
            for (size_t l = strlen(tmp); l > 1 && tmp[l - 1] == '/'; l--)
                tmp[l - 1] = 0;
            snprintf(r->name, sizeof r->name, "%s", basename(tmp));
            n++;
        }
    }
    if (n < 2) {
        fputs("harness compare: give at least two run directories (usage: harness compare A B "
              "[...])\n",
              stderr);
        return 2;
    }
    for (int i = 0; i < n; i++)
        if (!(runs[i].r = capacity_or_run(runs[i].dir, &runs[i].cap, err, sizeof err))) {
            fprintf(stderr, "harness compare: %s\n", err);
            rc = 2;
            goto out;
        }
    if (prices && parse_prices(prices, runs, n, err, sizeof err)) {
        fprintf(stderr, "harness compare: %s\n", err);
        rc = 2;
        goto out;
    }
    int priced = 0;
    for (int i = 0; i < n; i++)
        priced |= isfinite(runs[i].price);

    json_t *reasons = json_array(), *notes = json_array();
    incomparable(runs, n, reasons);
    for (int i = 1; i < n; i++) /* agents at SLO compare only under one SLO */
        if ((runs[i].cap || runs[0].cap) &&
            (!runs[i].cap || !runs[0].cap ||
             !json_equal(jget(runs[i].cap, "slo.spec"), jget(runs[0].cap, "slo.spec"))))
            json_array_append_new(
                reasons, json_sprintf("%s and A were not searched against the same SLO (%s, %s)",
                                      runs[i].label, spec_of(runs[i].cap), spec_of(runs[0].cap)));
    if (json_array_size(reasons) && !force) {
        fprintf(stderr,
                "harness compare: refusing to compare: %s (use --force to compare anyway)\n",
                json_string_value(json_array_get(reasons, 0)));
        for (size_t i = 1; i < json_array_size(reasons); i++)
            fprintf(stderr, "harness compare: also: %s\n",
                    json_string_value(json_array_get(reasons, i)));
        rc = 1;
    } else {
        for (size_t i = 0; i < json_array_size(reasons); i++)
            fprintf(stderr, "harness compare: warning (--force): %s\n",
                    json_string_value(json_array_get(reasons, i)));
        inventory_diffs(runs, n, notes);
        print_text(runs, n, priced, notes);
        if (html) {
            if (write_html(html, runs, n, priced, notes, reasons) != 0)
                rc = 1;
            else
                printf("wrote %s\n", html);
        }
    }
    json_decref(reasons);
    json_decref(notes);
out:
    for (int i = 0; i < n; i++)
        json_decref(runs[i].r), json_decref(runs[i].cap);
    return rc;
}
