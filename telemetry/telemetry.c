/* telemetry.c -- the sampler: CPU utilisation, disk throughput and IOPS and
 * power (each source its own column: power_set.h) at each tick of the
 * coordinator's loop, as a time series with mean and peak for the run and
 * for each workload window.
 *
 * Setup (telemetry_new) resolves the devices behind the data, opens every
 * file the samples re-read and sizes their buffers; a sample is then a few
 * preads and parses plus one append to the series, which grows by doubling
 * (at 1 s intervals the first 4096 points are allocated up front). A figure
 * that cannot be measured is NAN in the series and null in the JSON, never
 * a zero. Means are time-weighted by each point's interval. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsread.h"
#include "../common/json.h"
#include "../workloads/workload.h"
#include "baseline.h"
#include "power_set.h"
#include "series.h"
#include "telemetry.h"
#include "telemetry_proc.h"

/* One interval (t - dt, t], seconds since barrier release. */
struct point {
    double t, dt;
    double cpu, rbps, riops, wbps, wiops, steal;
    double power[POWER_MAX_COLS]; /* the power set's columns, power_w first */
};

/* Every field of struct point after dt is a double: a column is a strided
 * view. Six fixed metrics, then one per power column. */
enum { M_CPU, M_RBPS, M_RIOPS, M_WBPS, M_WIOPS, M_STEAL, M_POWER };
static const char *const metric_names[M_POWER] = {"cpu_util",  "read_Bps",   "read_iops",
                                                  "write_Bps", "write_iops", "steal_pct"};

struct telemetry {
    int stat_fd, disk_fd;
    char statbuf[4096]; /* the aggregate line is first; the rest is not needed */
    char *diskbuf;
    size_t disksize;
    struct blkdev devs[BLK_MAX_DEVS];
    int ndevs;
    json_t *data_paths; /* how each data path mapped to devices, built at setup */
    /* The drives' fio baseline (baseline.h) for the sampled devices, and
     * their summed sequential read throughput (NAN: not every device has
     * one, baseline_why says which). */
    json_t *baseline;
    double baseline_bps;
    char baseline_why[1024];
    char cpu_reason[PATH_MAX + 128], disk_reason[PATH_MAX + 128];
    struct power_set *ps;

    int started;
    int64_t t0, prev_ns;
    int64_t base_ns;       /* when the baselines were read */
    double span_a, span_b; /* the run's span: its figures cover exactly this */
    struct cpu_times prev_cpu;
    int prev_cpu_ok;
    struct disk_counters prev_disk;
    int prev_disk_ok;

    struct point *pts;
    size_t n, cap;

    /* telemetry_counters(): names, the last reading, and each point's
     * increases (ncnt per point, grown with pts). */
    const char *cnt_name;
    struct tel_counter cnt[TEL_MAX_COUNTERS];
    unsigned ncnt;
    void (*cnt_read)(void *ctx, uint64_t *vals);
    void *cnt_ctx;
    uint64_t cnt_prev[TEL_MAX_COUNTERS];
    uint64_t *cnt_pts;
};

static double metric(const struct point *p, int m) {
    const double v[M_POWER] = {p->cpu, p->rbps, p->riops, p->wbps, p->wiops, p->steal};
    return m < M_POWER ? v[m] : p->power[m - M_POWER];
}

static int nmetrics(const struct telemetry *t) {
    return M_POWER + (int)power_set_ncols(t->ps);
}

static const char *metric_name(const struct telemetry *t, int m) {
    return m < M_POWER ? metric_names[m] : power_set_col(t->ps, (unsigned)(m - M_POWER));
}

static struct series_col column(const struct telemetry *t, int m) {
    if (!t->pts)
        return (struct series_col){NULL, NULL, NULL, 1, 0};
    const size_t stride = sizeof(struct point) / sizeof(double);
    const double *base = (const double *)(const void *)t->pts;
    const double *v = (const double *)(const void *)&t->pts[0].cpu + m;
    return (struct series_col){base, base + 1, v, stride, t->n};
}

static int read_cpu(struct telemetry *t, struct cpu_times *c) {
    if (t->stat_fd < 0)
        return -1;
    /* One pread: the "cpu" line is always at the start of the first chunk. */
    ssize_t r = pread(t->stat_fd, t->statbuf, sizeof t->statbuf - 1, 0);
    if (r <= 0)
        return -1;
    t->statbuf[r] = '\0';
    return cpu_parse_stat(t->statbuf, c);
}

static int read_disk(struct telemetry *t, struct disk_counters *d) {
    if (t->disk_fd < 0 || t->ndevs == 0)
        return -1;
    if (fs_pread_str(t->disk_fd, t->diskbuf, t->disksize) < 0)
        return -1;
    /* A device that vanished (or a buffer too small) makes the sum wrong:
     * report nothing for the interval rather than a low figure. */
    return diskstats_parse(t->diskbuf, t->devs, t->ndevs, d) == t->ndevs ? 0 : -1;
}

/* Map one data path to its disks and record how, for result.json. */
static void add_data_path(struct telemetry *t, const char *sysroot, const char *role,
                          const char *path) {
    char devdir[PATH_MAX], reason[1024] = "";
    struct stat st;
    json_t *entry = json_pack("{s:s, s:s}", "role", role, "path", path);
    /* On the real root a missing directory means that part of the stack is
     * not local (a remote endpoint): it has no disk here. A fixture sysroot
     * describes another machine whose paths cannot be checked. */
    if (strcmp(sysroot, "/") == 0 && stat(path, &st) != 0) {
        json_object_set_new(entry, "devices", json_null());
        json_object_set_new(entry, "note", json_string("absent on this machine: not sampled"));
        json_array_append_new(t->data_paths, entry);
        return;
    }
    struct blkdev mine[BLK_MAX_DEVS];
    int nmine = 0;
    if (mount_devdir(sysroot, path, devdir, sizeof devdir, reason, sizeof reason) == 0 &&
        blk_leaf_disks(devdir, mine, &nmine, BLK_MAX_DEVS) >= 0 && nmine > 0) {
        json_t *names = json_array();
        for (int i = 0; i < nmine; i++)
            json_array_append_new(names, json_string(mine[i].name));
        /* Into the sampled set too; a disk two paths share is added once. */
        blk_leaf_disks(devdir, t->devs, &t->ndevs, BLK_MAX_DEVS);
        json_object_set_new(entry, "devices", names);
    } else {
        if (!reason[0])
            snprintf(reason, sizeof reason, "%s: no block device found under sysfs", path);
        json_object_set_new(entry, "devices", json_null());
        json_object_set_new(entry, "note", json_string(reason));
    }
    json_array_append_new(t->data_paths, entry);
}

/* The baseline file's entries for the devices sampled. A fixture sysroot
 * is another machine: its drives have none unless a file is named. */
static void load_baseline(struct telemetry *t, const struct config *cfg, const char *root) {
    char file[4200];
    t->baseline_bps = NAN;
    if (strcmp(root, "/") && !cfg->baseline_file[0]) {
        snprintf(t->baseline_why, sizeof t->baseline_why, "no baseline for a --sysroot machine");
        return;
    }
    baseline_path(cfg, file, sizeof file);
    json_t *f = json_load_file(file, 0, NULL);
    if (!f) {
        snprintf(t->baseline_why, sizeof t->baseline_why,
                 "no drive baseline in %s: run ./harness baseline", file);
        return;
    }
    t->baseline = baseline_select(f, t->devs, t->ndevs, root, &t->baseline_bps, t->baseline_why,
                                  sizeof t->baseline_why);
    json_decref(f);
}

/* open(2) is variadic; calling it through a two-argument pointer is not. */
static int sys_open(const char *path, int flags) {
    return open(path, flags);
}

struct telemetry *telemetry_new_with(const struct config *cfg,
                                     int (*open_fn)(const char *path, int flags)) {
    struct telemetry *t = calloc(1, sizeof *t);
    char path[PATH_MAX];
    const char *root = cfg->sysroot[0] ? cfg->sysroot : "/";
    if (!t)
        return NULL;
    t->stat_fd = t->disk_fd = -1;
    t->data_paths = json_array();
    t->span_a = -INFINITY, t->span_b = INFINITY;

    if (sysroot_path(path, sizeof path, root, "/proc/stat"))
        t->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (t->stat_fd < 0)
        snprintf(t->cpu_reason, sizeof t->cpu_reason, "%s: %s", path, strerror(errno));

    /* The devices behind each workload's data (the stack's data directories,
     * the corpus) are the ones whose reads the storage figures count. */
    const char *names[TEL_MAX_DATA_PATHS];
    char(*paths)[4096] = calloc(TEL_MAX_DATA_PATHS, sizeof *paths);
    for (int w = 0; paths && workload_table[w]; w++) {
        int k = workload_table[w]->data_paths
                    ? workload_table[w]->data_paths(cfg, names, paths, TEL_MAX_DATA_PATHS)
                    : 0;
        for (int i = 0; i < k; i++)
            add_data_path(t, root, names[i], paths[i]);
    }
    free(paths);
    load_baseline(t, cfg, root);

    if (sysroot_path(path, sizeof path, root, "/proc/diskstats"))
        t->disk_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (t->disk_fd < 0) {
        snprintf(t->disk_reason, sizeof t->disk_reason, "%s: %s", path, strerror(errno));
    } else if (t->ndevs == 0) {
        snprintf(t->disk_reason, sizeof t->disk_reason,
                 "no block device found behind the data paths (see data_paths)");
    } else {
        /* Size the buffer once: four times today's file leaves room for
         * devices that appear during the run. */
        size_t size = 16384;
        for (;;) {
            t->diskbuf = realloc(t->diskbuf, size);
            ssize_t n = t->diskbuf ? fs_pread_str(t->disk_fd, t->diskbuf, size) : -1;
            if (n < 0 || (size_t)n < size - 1 - 256 || size > (64u << 20))
                break;
            size *= 2;
        }
        t->disksize = size * 4;
        t->diskbuf = realloc(t->diskbuf, t->disksize);
        if (!t->diskbuf) {
            close(t->disk_fd);
            t->disk_fd = -1;
            snprintf(t->disk_reason, sizeof t->disk_reason, "out of memory");
        }
    }

    struct power_env env = {root, &cfg->power, cfg->sample_interval, open_fn ? open_fn : sys_open,
                            NULL /* ioctl(2) */};
    t->ps = power_set_open(&env);

    t->cap = 4096;
    t->pts = malloc(t->cap * sizeof *t->pts);
    if (!t->pts)
        t->cap = 0;
    return t;
}

struct telemetry *telemetry_new(const struct config *cfg) {
    return telemetry_new_with(cfg, NULL);
}

void telemetry_counters(struct telemetry *t, const char *name, const struct tel_counter *c,
                        unsigned n, void (*read)(void *ctx, uint64_t *vals), void *ctx) {
    if (!t || t->started)
        return;
    if (n > TEL_MAX_COUNTERS)
        n = TEL_MAX_COUNTERS;
    free(t->cnt_pts);
    t->cnt_pts = n && t->cap ? malloc(t->cap * n * sizeof *t->cnt_pts) : NULL;
    t->ncnt = t->cnt_pts ? n : 0;
    memcpy(t->cnt, c, t->ncnt * sizeof *c);
    t->cnt_name = name;
    t->cnt_read = read;
    t->cnt_ctx = ctx;
}

/* read() into vals; a reader that asks for more than it registered is cut. */
static void read_counters(struct telemetry *t, uint64_t *vals) {
    uint64_t all[TEL_MAX_COUNTERS];
    if (!t->ncnt)
        return;
    t->cnt_read(t->cnt_ctx, all);
    memcpy(vals, all, t->ncnt * sizeof *vals);
}

void telemetry_begin(struct telemetry *t, int64_t t0_ns) {
    if (!t)
        return;
    t->t0 = t->prev_ns = t->base_ns = t0_ns;
    t->prev_cpu_ok = read_cpu(t, &t->prev_cpu) == 0;
    t->prev_disk_ok = read_disk(t, &t->prev_disk) == 0;
    power_set_begin(t->ps, t0_ns); /* baselines; the BMCs' readers start */
    read_counters(t, t->cnt_prev);
    t->started = 1;
    t->n = 0;
}

void telemetry_sample(struct telemetry *t, int64_t now_ns) {
    struct cpu_times c;
    struct disk_counters d;
    if (!t || !t->started || now_ns <= t->prev_ns)
        return;
    double dt = (double)(now_ns - t->prev_ns) / 1e9;
    struct point p = {.t = (double)(now_ns - t->t0) / 1e9, .dt = dt};

    int cpu_ok = read_cpu(t, &c) == 0;
    p.cpu = cpu_ok && t->prev_cpu_ok ? cpu_util_pct(&t->prev_cpu, &c) : NAN;
    p.steal = cpu_ok && t->prev_cpu_ok ? cpu_steal_pct(&t->prev_cpu, &c) : NAN;
    if (cpu_ok)
        t->prev_cpu = c;
    t->prev_cpu_ok = cpu_ok;

    int disk_ok = read_disk(t, &d) == 0;
    if (disk_ok && t->prev_disk_ok && d.rd_ios >= t->prev_disk.rd_ios &&
        d.wr_ios >= t->prev_disk.wr_ios) {
        p.rbps = (double)(d.rd_sectors - t->prev_disk.rd_sectors) * 512.0 / dt;
        p.riops = (double)(d.rd_ios - t->prev_disk.rd_ios) / dt;
        p.wbps = (double)(d.wr_sectors - t->prev_disk.wr_sectors) * 512.0 / dt;
        p.wiops = (double)(d.wr_ios - t->prev_disk.wr_ios) / dt;
    } else {
        p.rbps = p.riops = p.wbps = p.wiops = NAN;
    }
    if (disk_ok)
        t->prev_disk = d;
    t->prev_disk_ok = disk_ok;

    power_set_sample(t->ps, now_ns, dt, p.power);
    t->prev_ns = now_ns;

    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4096;
        struct point *np = realloc(t->pts, cap * sizeof *np);
        if (!np)
            return; /* keep what we have; the run is more important */
        t->pts = np;
        if (t->ncnt) {
            uint64_t *nc = realloc(t->cnt_pts, cap * t->ncnt * sizeof *nc);
            if (!nc)
                return; /* the counters' baseline stays: the next point takes the increase */
            t->cnt_pts = nc;
        }
        t->cap = cap;
    }
    if (t->ncnt) {
        uint64_t now[TEL_MAX_COUNTERS];
        read_counters(t, now);
        for (unsigned k = 0; k < t->ncnt; k++) {
            /* Counters only grow; a reading that went back is no increase. */
            t->cnt_pts[t->n * t->ncnt + k] = now[k] >= t->cnt_prev[k] ? now[k] - t->cnt_prev[k] : 0;
            t->cnt_prev[k] = now[k];
        }
    }
    t->pts[t->n++] = p;
}

/* series[i].<name>: {<group>: {<key>: increase, <key>_per_s: rate}}. */
static json_t *counters_point_json(const struct telemetry *t, size_t i) {
    json_t *o = json_object();
    for (unsigned k = 0; k < t->ncnt; k++) {
        json_t *g = json_object_get(o, t->cnt[k].group);
        if (!g) {
            g = json_object();
            json_object_set_new(o, t->cnt[k].group, g);
        }
        uint64_t d = t->cnt_pts[i * t->ncnt + k];
        json_object_set_new(g, t->cnt[k].key, json_integer((json_int_t)d));
        if (t->cnt[k].rate) {
            char key[128];
            snprintf(key, sizeof key, "%s_per_s", t->cnt[k].key);
            json_object_set_new(g, key,
                                t->pts[i].dt > 0
                                    ? json_real(round((double)d / t->pts[i].dt * 1000.0) / 1000.0)
                                    : json_null());
        }
    }
    return o;
}

/* Round for the JSON: the counters are not more precise than this, and the
 * series stays readable. */
static json_t *num(double v) {
    return isnan(v) ? json_null() : json_real(round(v * 1000.0) / 1000.0);
}

void telemetry_baseline_figures(json_t *o, double baseline_bps, const char *why, int run) {
    json_t *r = json_object_get(o, "read_Bps");
    int have = !isnan(baseline_bps) && baseline_bps > 0;
    int ok = have && json_is_object(r);
    json_object_set_new(
        o, "read_pct_of_baseline",
        ok ? json_pack("{s:o, s:o}", "mean",
                       num(json_number_value(json_object_get(r, "mean")) / baseline_bps * 100.0),
                       "peak",
                       num(json_number_value(json_object_get(r, "peak")) / baseline_bps * 100.0))
           : json_null());
    if (!run)
        return; /* a window: the rest is the run's */
    json_object_set_new(o, "baseline_read_Bps", json_num_or_null(baseline_bps, have));
    if (!ok)
        json_object_set_new(o, "baseline_unavailable_reason",
                            json_string(have ? "no storage read figure to compare with it (see "
                                               "disk_unavailable_reason)"
                                             : why));
}

static void baseline_pct(const struct telemetry *t, json_t *o, int run) {
    telemetry_baseline_figures(o, t->baseline_bps, t->baseline_why, run);
}

/* One figure's reason: the source that could not be opened (own), else no
 * sample at all, else no sample with a reading over the span (causes: how a
 * sample lacks one). */
static void null_reason(char *out, size_t len, const char *own, size_t n, const char *what,
                        const char *where, const char *causes) {
    if (own[0])
        snprintf(out, len, "%s", own);
    else if (!n)
        snprintf(out, len, "no sample was taken: the run ended before its first one");
    else
        snprintf(out, len, "none of the %zu samples has a %s reading over %s (%s)", n, what, where,
                 causes);
}

/* Why o's CPU or disk figures are null (series_figure_reasons), where: "the
 * run" or "this window". */
static void figure_reasons(const struct telemetry *t, json_t *o, const char *where) {
    char cpu[sizeof t->cpu_reason + 256], disk[sizeof t->disk_reason + 256];
    null_reason(cpu, sizeof cpu, t->cpu_reason, t->n, "CPU", where,
                "/proc/stat unreadable at an interval's start or end, or its counters did not "
                "advance");
    null_reason(disk, sizeof disk, t->disk_reason, t->n, "disk", where,
                "/proc/diskstats unreadable at an interval's start or end, a sampled device "
                "missing from it, or a counter that went back");
    series_figure_reasons(o, cpu, disk);
}

/* Mean (weighted by each point's overlap with [start, end], within the
 * run's span) and peak of one metric; null when no point with a value
 * overlaps. */
static json_t *stat_json(const struct telemetry *t, int m, double start, double end) {
    struct span sp = {fmax(start, t->span_a), fmin(end, t->span_b)};
    struct series_col c = column(t, m);
    return series_stat_json(&c, &sp, 1);
}

void telemetry_set_span(struct telemetry *t, double start, double end) {
    if (t)
        t->span_a = start, t->span_b = end;
}

void telemetry_rebase(struct telemetry *t, int64_t t0_ns) {
    if (t && t->started && t->n == 0) {
        t->t0 = t0_ns;
        power_set_rebase(t->ps, t0_ns);
    }
}

double telemetry_baseline_s(const struct telemetry *t) {
    return t && t->started ? (double)(t->base_ns - t->t0) / 1e9 : NAN;
}

/* The power set's view of the series: column col over [a, b], as every
 * other figure (a point partly inside counts by its share). */
static int power_colstat(const void *ctx, unsigned col, double a, double b, double *mean,
                         double *peak) {
    const struct telemetry *t = ctx;
    struct span sp = {a, b};
    struct series_col c = column(t, M_POWER + (int)col);
    double covered;
    return series_stat(&c, &sp, 1, mean, peak, &covered);
}

static double mean_power(const struct telemetry *t, enum power_scope scope) {
    double w = t ? power_set_mean(t->ps, scope, t->span_a, t->span_b, power_colstat, t) : NAN;
    return isfinite(w) ? w : -1;
}

double telemetry_mean_power(const struct telemetry *t) {
    return mean_power(t, PSCOPE_PACKAGE);
}

double telemetry_mean_platform_power(const struct telemetry *t) {
    return mean_power(t, PSCOPE_PLATFORM);
}

void telemetry_end(struct telemetry *t) {
    if (t)
        power_set_end(t->ps);
}

void telemetry_say(const struct telemetry *t, FILE *f) {
    if (t)
        power_set_say(t->ps, f);
}

void telemetry_power_warnings(const struct telemetry *t, json_t *warnings) {
    if (t)
        power_set_warnings(t->ps, t->span_a, t->span_b, warnings);
}

json_t *telemetry_spans_json(const struct telemetry *t, const struct span *s, size_t n) {
    json_t *o = json_object();
    for (int m = 0; t && m < nmetrics(t); m++) {
        struct series_col c = column(t, m);
        json_object_set_new(o, metric_name(t, m), series_stat_json(&c, s, n));
    }
    if (t) {
        baseline_pct(t, o, 0);
        figure_reasons(t, o, "this window");
    }
    return o;
}

double telemetry_metric_integral(const struct telemetry *t, const char *metric,
                                 const struct span *s, size_t n) {
    for (int m = 0; t && m < nmetrics(t); m++)
        if (!strcmp(metric_name(t, m), metric)) {
            struct series_col c = column(t, m);
            return series_integral(&c, s, n);
        }
    return NAN;
}

double telemetry_counter_sum(const struct telemetry *t, const char *group, const char *key,
                             const struct span *s, size_t n) {
    unsigned k = 0;
    while (t && k < t->ncnt && (strcmp(t->cnt[k].group, group) || strcmp(t->cnt[k].key, key)))
        k++;
    if (!t || k == t->ncnt)
        return NAN;
    /* Each point's increase spread evenly over its interval. */
    double sum = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct point *p = &t->pts[i];
        struct span me = {p->t - p->dt, p->t};
        double w = spans_overlap(&me, 1, s, n);
        if (w > 0 && p->dt > 0)
            sum += (double)t->cnt_pts[i * t->ncnt + k] * w / p->dt;
    }
    return sum;
}

json_t *telemetry_json(const struct telemetry *t) {
    json_t *o = json_object();
    if (!t)
        return o;
    for (int m = M_CPU; m < M_POWER; m++)
        json_object_set_new(o, metric_names[m], stat_json(t, m, -INFINITY, INFINITY));

    /* One entry per source; the package's reason also where it always was. */
    json_object_set_new(o, "power", power_set_json(t->ps, t->span_a, t->span_b, power_colstat, t));
    const char *why = power_set_reason(t->ps, PSCOPE_PACKAGE);
    json_object_set_new(o, "power_unavailable_reason", why[0] ? json_string(why) : json_null());
    /* The platform's too, for aops_per_watt_platform: a reason one key away. */
    why = power_set_reason(t->ps, PSCOPE_PLATFORM);
    json_object_set_new(o, "platform_power_unavailable_reason",
                        why[0] ? json_string(why) : json_null());

    json_t *devs = json_array();
    for (int i = 0; i < t->ndevs; i++)
        json_array_append_new(devs, json_pack("{s:s, s:i, s:i}", "name", t->devs[i].name, "major",
                                              t->devs[i].major, "minor", t->devs[i].minor));
    json_object_set_new(o, "devices", devs);
    json_object_set_new(o, "data_paths", json_copy(t->data_paths));
    figure_reasons(t, o, "the run");
    json_object_set_new(o, "samples", json_integer((json_int_t)t->n));
    /* What the run's means and peaks cover, and when the baselines were
     * read (before the release: its clock does not include them). */
    if (isfinite(t->span_a) && isfinite(t->span_b))
        json_object_set_new(o, "span",
                            json_pack("{s:f, s:f}", "start", t->span_a, "end", t->span_b));
    if (t->started)
        json_object_set_new(o, "baseline_s", json_real(telemetry_baseline_s(t)));
    baseline_pct(t, o, 1);

    json_t *series = json_array();
    for (size_t i = 0; i < t->n; i++) {
        const struct point *p = &t->pts[i];
        json_t *pt = json_pack("{s:o}", "t", num(p->t));
        for (int m = 0; m < nmetrics(t); m++)
            json_object_set_new(pt, metric_name(t, m), num(metric(p, m)));
        if (t->ncnt)
            json_object_set_new(pt, t->cnt_name, counters_point_json(t, i));
        json_array_append_new(series, pt);
    }
    json_object_set_new(o, "series", series);
    return o;
}

json_t *telemetry_window_json(const struct telemetry *t, double start, double end) {
    struct span sp = {start, end};
    return telemetry_spans_json(t, &sp, 1);
}

int telemetry_latest(const struct telemetry *t, struct tel_latest *out) {
    if (!t || !t->n)
        return -1;
    const struct point *p = &t->pts[t->n - 1];
    *out = (struct tel_latest){p->t, p->cpu, p->rbps, p->riops, p->wbps, p->wiops};
    return 0;
}

int telemetry_power_latest(const struct telemetry *t, struct tel_power_latest *out, int max) {
    int k = 0;
    for (unsigned col = 0; t && t->n && col < power_set_ncols(t->ps) && k < max; col++) {
        const char *source, *scope;
        if (power_set_col_source(t->ps, col, &source, &scope) == 0)
            out[k++] = (struct tel_power_latest){source, scope, t->pts[t->n - 1].power[col]};
    }
    return k;
}

json_t *telemetry_baseline_json(const struct telemetry *t) {
    return t && t->baseline ? json_incref(t->baseline) : json_null();
}

const char *telemetry_baseline_why(const struct telemetry *t) {
    return !t                   ? "no telemetry"
           : t->baseline        ? NULL
           : t->baseline_why[0] ? t->baseline_why
                                : "no drive baseline";
}

void telemetry_free(struct telemetry *t) {
    if (!t)
        return;
    if (t->stat_fd >= 0)
        close(t->stat_fd);
    if (t->disk_fd >= 0)
        close(t->disk_fd);
    power_set_free(t->ps);
    json_decref(t->data_paths);
    json_decref(t->baseline);
    free(t->diskbuf);
    free(t->pts);
    free(t->cnt_pts);
    free(t);
}
