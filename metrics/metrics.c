/* metrics.c -- the exposition of the live /metrics endpoint (see
 * metrics.h): the run's slots, telemetry and labels as text, in either
 * format. metrics_http.c serves it.
 *
 * The slots are written by the workers without locks while a scrape reads
 * them: every field is read with a relaxed atomic load, as the progress line
 * and the throughput counters do, so a value is either the old or the new
 * one. A histogram's _count is the sum of the buckets this scrape read
 * (equal to its +Inf bucket, as the format requires); its _sum may already
 * hold an operation whose bucket is only seen by the next scrape. Once the
 * workers are gone every figure is exact and equals result.json's. */
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../result/opsrate.h"

#ifndef AOPS_GIT
#define AOPS_GIT "unknown"
#endif

/* The histogram's upper bounds: le labels in the canonical form OpenMetrics
 * asks for (Go's %g, ".0" added to whole numbers), the same in both formats
 * so a query names one spelling whichever was negotiated; and in ns. */
const char *const metrics_bounds[METRICS_NBOUNDS] = {
    "5e-05", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005",
    "0.01",  "0.025",  "0.05",    "0.1",    "0.25",  "0.5",    "1.0",
    "2.5",   "5.0",    "10.0",    "25.0",   "50.0",  "100.0",  "250.0"};
static const uint64_t bound_ns[METRICS_NBOUNDS] = {
    50000ULL,       100000ULL,       250000ULL,      500000ULL,     1000000ULL,     2500000ULL,
    5000000ULL,     10000000ULL,     25000000ULL,    50000000ULL,   100000000ULL,   250000000ULL,
    500000000ULL,   1000000000ULL,   2500000000ULL,  5000000000ULL, 10000000000ULL, 25000000000ULL,
    50000000000ULL, 100000000000ULL, 250000000000ULL};

/* ---- labels ------------------------------------------------------------------------------ */

/* "X/<dir>/<digits>" -> "X" in place; anything else stays. */
static void strip_below(char *p, const char *dir) {
    char *num = strrchr(p, '/');
    if (!num || !num[1] || strspn(num + 1, "0123456789") != strlen(num + 1))
        return;
    *num = 0;
    char *up = strrchr(p, '/');
    if (up && !strcmp(up + 1, dir))
        *up = 0;
    else
        *num = '/';
}

/* The run directory's name, past the parts a --repeat (runs/<i>) and a
 * sweep (points/<N>) add below it. */
static void run_id_of(const char *out, char *id, size_t len) {
    char p[4096];
    snprintf(p, sizeof p, "%s", out);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = 0;
    strip_below(p, "runs");
    strip_below(p, "points");
    const char *base = strrchr(p, '/');
    snprintf(id, len, "%s", base && base[1] ? base + 1 : p);
}

void metrics_labels_init(struct metrics_labels *l, const struct config *cfg) {
    memset(l, 0, sizeof *l);
    run_id_of(cfg->out, l->run_id, sizeof l->run_id);
    if (gethostname(l->host, sizeof l->host) != 0)
        snprintf(l->host, sizeof l->host, "unknown");
    l->host[sizeof l->host - 1] = 0;
    l->shard = cfg->shard;
    l->shards = cfg->shards ? cfg->shards : 1;
}

/* A label value, escaped as both formats want: backslash, quote, newline. */
static void put_escaped(struct buf *b, const char *s) {
    while (*s) {
        size_t plain = strcspn(s, "\\\"\n");
        buf_add(b, s, plain);
        s += plain;
        if (*s) {
            buf_add(b, *s == '\n' ? "\\n" : *s == '"' ? "\\\"" : "\\\\", 2);
            s++;
        }
    }
}

/* s appended at d[n..cap), escaped when esc; returns the new length (cut
 * at cap - 1: the labels' sizes keep it well inside). */
static size_t escape_to(char *d, size_t cap, size_t n, const char *s, int esc) {
    for (; *s && n + 2 < cap; s++) {
        if (esc && (*s == '\\' || *s == '"' || *s == '\n')) {
            d[n++] = '\\';
            d[n++] = *s == '\n' ? 'n' : *s;
        } else
            d[n++] = *s;
    }
    d[n] = 0;
    return n;
}

/* ---- the exposition ------------------------------------------------------------------------ */

struct expo {
    struct buf *b;
    const struct metrics_labels *l;
    int om;            /* OpenMetrics */
    char common[1600]; /* run_id="..",shard="..",host=".." escaped, made once per scrape */
    size_t ncommon;
    unsigned last_k[METRICS_NBOUNDS]; /* the last fine bucket at or below each bound */
    struct metrics_cache *cache;      /* NULL, or cache_per_worker() entries per worker */
};

enum ftype { F_COUNTER, F_GAUGE, F_HISTOGRAM, F_INFO };

/* A family's metadata. name is the sample name without _total / _info;
 * unit, when not NULL, is its name's suffix (OpenMetrics UNIT). */
static void family(struct expo *e, const char *name, enum ftype t, const char *unit,
                   const char *help) {
    static const char *const om_types[] = {"counter", "gauge", "histogram", "info"};
    static const char *const classic_types[] = {"counter", "gauge", "histogram", "gauge"};
    static const char *const classic_suffix[] = {"_total", "", "", "_info"};
    /* "# WHAT name[suffix] text\n", without printf: a scrape writes many. */
#define META(what, suffix, text)                                                                   \
    do {                                                                                           \
        buf_puts(e->b, "# " what " ");                                                             \
        buf_puts(e->b, name);                                                                      \
        buf_puts(e->b, suffix);                                                                    \
        buf_add(e->b, " ", 1);                                                                     \
        buf_puts(e->b, text);                                                                      \
        buf_add(e->b, "\n", 1);                                                                    \
    } while (0)
    if (e->om) {
        META("TYPE", "", om_types[t]);
        if (unit)
            META("UNIT", "", unit);
        META("HELP", "", help);
    } else {
        META("HELP", classic_suffix[t], help);
        META("TYPE", classic_suffix[t], classic_types[t]);
    }
#undef META
}

/* v in decimal at the end of b, without printf. */
static void put_u64(struct buf *b, uint64_t v) {
    char d[24];
    int i = sizeof d;
    do
        d[--i] = (char)('0' + v % 10);
    while ((v /= 10) && i > 0);
    buf_add(b, d + i, sizeof d - (size_t)i);
}

/* name{run_id=..,shard=..,host=..,k=v...} and the space before the value;
 * kv: name, value pairs, NULL-terminated (KV(...), or NOKV). */
#define KV(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NOKV ((const char *const[]){NULL})
static void sample_start(struct expo *e, const char *name, const char *const *kv) {
    buf_puts(e->b, name);
    buf_add(e->b, e->common, e->ncommon);
    for (; kv[0] && kv[1]; kv += 2) {
        buf_add(e->b, ",", 1);
        buf_puts(e->b, kv[0]);
        buf_add(e->b, "=\"", 2);
        put_escaped(e->b, kv[1]);
        buf_add(e->b, "\"", 1);
    }
    buf_puts(e->b, "} ");
}

static void val_u64(struct expo *e, uint64_t v) {
    put_u64(e->b, v);
    buf_add(e->b, "\n", 1);
}

/* A float with full precision; NaN and infinities as both formats spell them. */
static void val_f(struct expo *e, double v) {
    if (isnan(v))
        buf_puts(e->b, "NaN\n");
    else if (isinf(v))
        buf_puts(e->b, v > 0 ? "+Inf\n" : "-Inf\n");
    else
        buf_printf(e->b, "%.17g\n", v);
}

/* Nanoseconds as exact decimal seconds. */
static void val_ns(struct expo *e, uint64_t ns) {
    buf_printf(e->b, "%llu.%09llu\n", (unsigned long long)(ns / 1000000000ULL),
               (unsigned long long)(ns % 1000000000ULL));
}

static uint64_t ld64(const uint64_t *p) {
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* One worker's latency histogram added into cum[0..NBOUNDS] (the last is
 * +Inf) and *sum. Only the buckets between its min and max are read: a
 * scrape of many workers walks a few hundred buckets each, not 2,432. A fine
 * bucket [lo, hi) goes to the first bound that every value in it is at or
 * below (hi - 1 <= bound); the one that straddles a bound (at most 1/64 of
 * it wide) counts in the next, so a bucket never overstates. */
struct metrics_hcache {
    uint64_t count, sum;
    uint64_t part[METRICS_NBOUNDS + 1]; /* this histogram's share of each bucket, not cumulative */
};

static void hist_coarse(const struct hist *h, const unsigned *last_k, struct metrics_hcache *out) {
    memset(out, 0, sizeof *out);
    /* The count first: a value added during the walk makes the next scrape
     * see a new count and walk again. */
    out->count = ld64(&h->count);
    uint64_t mn = ld64(&h->min), mx = ld64(&h->max);
    if (!out->count || mn > mx)
        return;
    out->sum = ld64(&h->sum);
    unsigned k = hist_bucket(mn), last = hist_bucket(mx);
    for (unsigned j = 0; j <= METRICS_NBOUNDS && k <= last; j++) {
        unsigned upto = j < METRICS_NBOUNDS && last_k[j] < last ? last_k[j] : last;
        uint64_t c = 0;
        for (; k <= upto; k++)
            c += __atomic_load_n(&h->b[k], __ATOMIC_RELAXED);
        out->part[j] = c;
    }
}

void metrics_cache_free(struct metrics_cache *c) {
    free(c->h);
    c->h = NULL;
    c->n = 0; /* renders stays: it counts the endpoint's renders, not the cache's */
}

/* last_k[j]: the highest fine bucket whose values are all at or below bound j
 * (the bucket holding the bound itself when its last value is the bound,
 * else the one before). Fine buckets up to it count in bound j, which
 * none below did. */
static void coarse_table(unsigned *last_k) {
    for (unsigned j = 0; j < METRICS_NBOUNDS; j++) {
        uint64_t lo, hi;
        unsigned k = hist_bucket(bound_ns[j]);
        hist_bucket_range(k, &lo, &hi);
        last_k[j] = hi - 1 <= bound_ns[j] || k == 0 ? k : k - 1;
    }
}

static const char *state_names[] = {"starting", "running", "done", "failed"};
enum { ST_STARTING, ST_RUNNING, ST_DONE, ST_FAILED, ST_COUNT };

/* A worker's state, and its phase: the workload of the operation it is on
 * in a phased schedule ("running" when interleaved: all are mixed). */
static int worker_state(const struct metrics_run *run, unsigned i, const char **phase) {
    const struct run_ctx *r = run->r;
    if (i >= run->forked) {
        *phase = "starting";
        return ST_STARTING;
    }
    struct worker_slot *s = run_slot(r, i);
    int ph = atomic_load_explicit(&s->phase, memory_order_relaxed);
    int reaped = run->we && run->we[i].reaped;
    if (ph == PH_DONE) {
        *phase = "done";
        return ST_DONE;
    }
    if (ph == PH_FAILED || reaped) { /* crashed, OOM-killed, stopped, killed */
        *phase = "failed";
        return ST_FAILED;
    }
    if (ph != PH_RUNNING) {
        *phase = ph == PH_WARMUP ? "warmup" : ph == PH_READY ? "ready" : "starting";
        return ST_STARTING;
    }
    *phase = "running";
    const struct run_layout *lay = &r->lay;
    if (r->cfg->schedule == SCHED_PHASED && lay->ops_per_cycle) {
        uint64_t done = atomic_load_explicit(&s->done, memory_order_relaxed);
        uint64_t total = (uint64_t)lay->ops_per_cycle * r->cfg->cycles;
        if (done >= total && total)
            done = total - 1; /* its last operation has ended; it is closing */
        unsigned pos = (unsigned)(done % lay->ops_per_cycle), cum = 0;
        for (unsigned w = 0; w < lay->nwl; w++) {
            cum += lay->wl[w]->ops_per_cycle;
            if (pos < cum) {
                *phase = lay->wl[w]->name;
                break;
            }
        }
    }
    return ST_RUNNING;
}

static void render_run(struct expo *e, const struct metrics_run *run, int64_t now) {
    const struct config *cfg = run->r->cfg;
    const struct run_layout *lay = &run->r->lay;
    char n[32], shards[32];
    snprintf(n, sizeof n, "%u", cfg->n);
    snprintf(shards, sizeof shards, "%u", e->l->shards);
    family(e, "aops_run", F_INFO, NULL,
           "The run: its size, profile and schedule (the values are labels; always 1).");
    sample_start(e, "aops_run_info",
                 KV("containers", n, "shards", shards, "profile", profile_name(cfg->profile),
                    "schedule", schedule_name(cfg->schedule), "runtime",
                    cfg->runtime == RUNTIME_DOCKER ? "docker" : "cgroup", "version", AOPS_GIT));
    val_u64(e, 1);

    family(e, "aops_run_expected_operations", F_GAUGE, NULL,
           "Operations the run will make in all: containers x cycles x operations per cycle.");
    sample_start(e, "aops_run_expected_operations", NOKV);
    val_u64(e, (uint64_t)cfg->n * cfg->cycles * lay->ops_per_cycle);

    if (!run->released)
        return;
    /* The same definition as totals.aops: completions over the seconds
     * from the release to now, or to the last completion once all ended. */
    int64_t end = now;
    if (run->ended) {
        int64_t last = run_last_end(run->r, run->forked);
        end = last > run->t0 ? last : run->t0;
    }
    double secs = (double)(end - run->t0) / 1e9;
    uint64_t completed = run_completed(run->r, run->forked);
    family(e, "aops_run_elapsed_seconds", F_GAUGE, "seconds",
           "Seconds since the start barrier was released (to the last completion once every "
           "worker ended).");
    sample_start(e, "aops_run_elapsed_seconds", NOKV);
    val_f(e, secs);
    family(e, "aops_run_aops", F_GAUGE, NULL,
           "AOPS so far: operations completed without error by all workers over "
           "aops_run_elapsed_seconds.");
    sample_start(e, "aops_run_aops", NOKV);
    val_f(e, secs > 0 ? (double)completed / secs : 0);
    if (run->verdict >= 0) {
        family(e, "aops_run_valid", F_GAUGE, NULL,
               "1 when the written result is valid, 0 when it is not (see invalid_reasons).");
        sample_start(e, "aops_run_valid", NOKV);
        val_u64(e, (uint64_t)run->verdict);
    }
}

/* Cache entries per worker: a closed loop's latency histogram per workload;
 * a paced run's service-time histogram per workload and its lateness too. */
static unsigned cache_per_worker(const struct run_layout *lay) {
    return lay->paced ? 2 * lay->nwl + 1 : lay->nwl;
}

/* One histogram of family `name` (labelled workload=wl, or not when wl is
 * NULL): slot histogram h of every worker merged into classic buckets, each
 * worker's share taken from its cache entry `ce` when its count has not moved
 * since the last scrape. */
static void render_hist(struct expo *e, const struct metrics_run *run, const char *name,
                        const char *wl, unsigned h, unsigned ce) {
    const struct run_ctx *r = run->r;
    unsigned nw = r->cfg->n, per = cache_per_worker(&r->lay);
    uint64_t cum[METRICS_NBOUNDS + 1] = {0}, sum = 0;
    for (unsigned i = 0; i < nw; i++) {
        const struct hist *hs = slot_hist(r, run_slot(r, i), h);
        struct metrics_hcache one, *hc = e->cache ? &e->cache->h[i * per + ce] : &one;
        if (!e->cache || ld64(&hs->count) != hc->count)
            hist_coarse(hs, e->last_k, hc);
        sum += hc->sum;
        for (unsigned j = 0; j <= METRICS_NBOUNDS; j++)
            cum[j] += hc->part[j];
    }
    char bucket[64], count[64], total[64];
    snprintf(bucket, sizeof bucket, "%s_bucket", name);
    snprintf(count, sizeof count, "%s_count", name);
    snprintf(total, sizeof total, "%s_sum", name);
    uint64_t acc = 0;
    for (unsigned j = 0; j <= METRICS_NBOUNDS; j++) {
        acc += cum[j];
        const char *le = j < METRICS_NBOUNDS ? metrics_bounds[j] : "+Inf";
        sample_start(e, bucket, wl ? KV("workload", wl, "le", le) : KV("le", le));
        val_u64(e, acc);
    }
    sample_start(e, count, wl ? KV("workload", wl) : NOKV);
    val_u64(e, acc);
    sample_start(e, total, wl ? KV("workload", wl) : NOKV);
    val_ns(e, sum);
}

static void render_ops(struct expo *e, const struct metrics_run *run) {
    const struct run_ctx *r = run->r;
    const struct run_layout *lay = &r->lay;
    unsigned nw = r->cfg->n;
    uint64_t ops[RUN_MAX_WL] = {0}, errs[RUN_MAX_WL] = {0};
    uint64_t cops[RUN_MAX_WL][WL_MAX_CLASSES] = {{0}}, cerrs[RUN_MAX_WL][WL_MAX_CLASSES] = {{0}};
    for (unsigned i = 0; i < nw; i++) {
        const struct worker_slot *s = run_slot(r, i);
        for (unsigned w = 0; w < lay->nwl; w++) {
            ops[w] += ld64(&s->wl[w].ops);
            errs[w] += ld64(&s->wl[w].errors);
            for (unsigned k = 0; k < lay->wl[w]->nclasses && k < WL_MAX_CLASSES; k++) {
                cops[w][k] += ld64(&s->wl[w].class_ops[k]);
                cerrs[w][k] += ld64(&s->wl[w].class_errors[k]);
            }
        }
    }
    family(e, "aops_operations", F_COUNTER, NULL,
           "Operations completed without error, per workload (as result.json's ops).");
    for (unsigned w = 0; w < lay->nwl; w++) {
        sample_start(e, "aops_operations_total", KV("workload", lay->wl[w]->name));
        val_u64(e, ops[w]);
    }
    family(e, "aops_errors", F_COUNTER, NULL,
           "Operations that failed, per workload; an error is never a completion.");
    for (unsigned w = 0; w < lay->nwl; w++) {
        sample_start(e, "aops_errors_total", KV("workload", lay->wl[w]->name));
        val_u64(e, errs[w]);
    }
    family(e, "aops_class_operations", F_COUNTER, NULL,
           "Operations completed without error, per workload class (S3 object size, DB query "
           "pattern).");
    for (unsigned w = 0; w < lay->nwl; w++)
        for (unsigned k = 0; k < lay->wl[w]->nclasses && k < WL_MAX_CLASSES; k++) {
            sample_start(e, "aops_class_operations_total",
                         KV("workload", lay->wl[w]->name, "class", lay->wl[w]->class_names[k]));
            val_u64(e, cops[w][k]);
        }
    family(e, "aops_class_errors", F_COUNTER, NULL, "Operations that failed, per workload class.");
    for (unsigned w = 0; w < lay->nwl; w++)
        for (unsigned k = 0; k < lay->wl[w]->nclasses && k < WL_MAX_CLASSES; k++) {
            sample_start(e, "aops_class_errors_total",
                         KV("workload", lay->wl[w]->name, "class", lay->wl[w]->class_names[k]));
            val_u64(e, cerrs[w][k]);
        }

    family(e, "aops_operation_duration_seconds", F_HISTOGRAM, "seconds",
           "Latency of the operations completed without error, per workload, from the workers' "
           "log-linear histograms merged at scrape time; in a paced run (--arrival, "
           "--think-time) the response time, from the instant each was scheduled.");
    for (unsigned w = 0; w < lay->nwl; w++)
        render_hist(e, run, "aops_operation_duration_seconds", lay->wl[w]->name,
                    lay_hist_lat(lay, w), w);
    if (!lay->paced)
        return; /* a closed loop has neither family below: none, not empty */
    family(e, "aops_operation_service_seconds", F_HISTOGRAM, "seconds",
           "Service time of the operations completed without error in a paced run, per "
           "workload: from the send to the completion (result.json's service_ms).");
    for (unsigned w = 0; w < lay->nwl; w++)
        render_hist(e, run, "aops_operation_service_seconds", lay->wl[w]->name,
                    lay_hist_svc(lay, w), lay->nwl + w);
    family(e, "aops_pacer_lateness_seconds", F_HISTOGRAM, "seconds",
           "How late the paced sender was: send minus scheduled instant of every operation sent, "
           "errors included, over all workloads (result.json's pacer.lateness_ms).");
    render_hist(e, run, "aops_pacer_lateness_seconds", NULL, lay->hist_late, 2 * lay->nwl);
}

static void render_workers(struct expo *e, const struct metrics_run *run) {
    unsigned nw = run->r->cfg->n;
    unsigned count[ST_COUNT] = {0};
    const char *phase;
    for (unsigned i = 0; i < nw; i++)
        count[worker_state(run, i, &phase)]++;
    family(e, "aops_containers", F_GAUGE, NULL,
           "Containers (workers) by state: starting (up to the release), running, done, failed "
           "(crashed, OOM-killed, stopped on an error, killed).");
    for (int k = 0; k < ST_COUNT; k++) {
        sample_start(e, "aops_containers", KV("state", state_names[k]));
        val_u64(e, count[k]);
    }
    family(e, "aops_worker_phase", F_GAUGE, NULL,
           "1 for the phase each container is in: starting, warmup, ready, the workload of its "
           "current operation (phased schedule; running when interleaved), done, failed.");
    for (unsigned i = 0; i < nw; i++) {
        char id[16];
        worker_state(run, i, &phase);
        snprintf(id, sizeof id, "%u", run->r->id_base + i);
        sample_start(e, "aops_worker_phase", KV("container", id, "phase", phase));
        val_u64(e, 1);
    }
}

static void render_telemetry(struct expo *e, const struct metrics_run *run) {
    struct tel_latest t;
    if (!run->tel || telemetry_latest(run->tel, &t) != 0)
        return; /* nothing sampled yet: absent, never 0 */
    struct {
        const char *name, *help;
        double v;
    } g[] = {
        {"aops_cpu_utilization_ratio",
         "Whole-machine CPU busy share (idle, iowait and steal excluded) over the latest "
         "--sample-interval, 0 to 1.",
         t.cpu_util / 100.0},
        {"aops_storage_read_bytes_per_second",
         "Bytes read per second from the disks that hold the data, over the latest interval.",
         t.read_Bps},
        {"aops_storage_read_operations_per_second",
         "Read operations per second on the disks that hold the data, over the latest interval.",
         t.read_iops},
    };
    for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
        if (isnan(g[k].v))
            continue;
        family(e, g[k].name, F_GAUGE, NULL, g[k].help);
        sample_start(e, g[k].name, NOKV);
        val_f(e, g[k].v);
    }
    struct tel_power_latest p[16];
    int np = telemetry_power_latest(run->tel, p, 16), any = 0;
    for (int k = 0; k < np; k++) {
        if (isnan(p[k].watts))
            continue;
        if (!any++)
            family(e, "aops_power_watts", F_GAUGE, "watts",
                   "Power per source over the latest interval, with its scope (package, "
                   "platform).");
        sample_start(e, "aops_power_watts", KV("source", p[k].source, "scope", p[k].scope));
        val_f(e, p[k].watts);
    }
}

void metrics_render(struct buf *b, const struct metrics_run *run, const struct metrics_labels *l,
                    struct metrics_cache *cache, int openmetrics, int64_t now) {
    struct expo e = {.b = b, .l = l, .om = openmetrics, .cache = cache};
    unsigned entries = run->r->cfg->n * cache_per_worker(&run->r->lay);
    if (cache && cache->n != entries) { /* once per run: n and the layout are fixed */
        metrics_cache_free(cache);
        cache->h = calloc(entries ? entries : 1, sizeof *cache->h);
        cache->n = cache->h ? entries : 0;
        if (!cache->h)
            e.cache = NULL;
    }
    char shard[32];
    snprintf(shard, sizeof shard, "\",shard=\"%u\",host=\"", l->shard);
    e.ncommon = escape_to(e.common, sizeof e.common, 0, "{run_id=\"", 0);
    e.ncommon = escape_to(e.common, sizeof e.common, e.ncommon, l->run_id, 1);
    e.ncommon = escape_to(e.common, sizeof e.common, e.ncommon, shard, 0);
    e.ncommon = escape_to(e.common, sizeof e.common, e.ncommon, l->host, 1);
    e.ncommon = escape_to(e.common, sizeof e.common, e.ncommon, "\"", 0);
    coarse_table(e.last_k);
    buf_reset(b);
    buf_reserve(b, 0); /* "" even when nothing fits */
    render_run(&e, run, now);
    render_ops(&e, run);
    render_workers(&e, run);
    render_telemetry(&e, run);
    if (cache) {
        family(&e, "aops_metrics_renders", F_COUNTER, NULL,
               "Expositions of this endpoint rendered, this one included: a scrape within 100 ms "
               "of the last render of its format is answered from that render.");
        sample_start(&e, "aops_metrics_renders_total", NOKV);
        val_u64(&e, ++cache->renders);
    }
    if (openmetrics)
        buf_puts(b, "# EOF\n");
}
