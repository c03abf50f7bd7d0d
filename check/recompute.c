/* recompute.c -- a result's figures again, from its raw per-operation
 * records (see check.h), by rules of its own:
 *
 *   ops, errors, counters  sums over the records (an error is never a
 *                          completion; counters over completions);
 *   wall seconds           from the release to the latest end of any record;
 *   AOPS                   completions / wall; per core / system.physical_cores;
 *   latency                every completion's end - its scheduled instant (the
 *                          response time; a closed loop's instant is its start),
 *                          sorted: mean (exact),
 *                          max (exact), pN = the ceil(N/100 x n)-th smallest (nearest
 *                          rank). The run reports the midpoint of the histogram bucket
 *                          holding that rank, within 1/128 (0.78 %) of it by the
 *                          bucket widths (result/hist.h): allowed 1 %;
 *   service time           a paced run's service_ms the same from end - start;
 *   pacer                  a paced run's lateness, start - scheduled instant of
 *                          every record (errors too): the same percentiles, and
 *                          the share more than 1 ms late, exact;
 *   windows                per workload, its first start and last end of any record;
 *   containers             per container the same sums, its last end, its mean;
 *   invariants             with no error, every operation of every cycle ran, each
 *                          GET brought its object's size, each point lookup one row,
 *                          each range scan 100, each search the manifest's count.
 *   slo                    each check's percentile as above, its errors, its verdict
 *                          (where the bound is not within the 1 % of the figure);
 * Everything else in the result is not recomputed from the log (telemetry,
 * power, attribution: they are samples, not operations). Reals in
 * result.json carry 10 significant digits, hence the relative tolerances. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "../workloads/db.h"
#include "../workloads/s3_util.h"
#include "../workloads/workload.h"
#include "check.h"

#define REL 1e-8        /* what 10 printed digits and float sums leave */
#define PCTL_REL 0.01   /* histogram percentiles, see above */
#define MERGED_REL 1e-6 /* a merge lines shards up from printed seconds */

struct series {
    uint64_t *v;
    size_t n, cap;
    uint64_t sum;
};

static int push(struct series *s, uint64_t x) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        uint64_t *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = x;
    s->sum += x;
    return 0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank: the ceil(q n)-th smallest. */
static double rank_value(const struct series *s, double q) {
    size_t r = (size_t)ceil(q * (double)s->n);
    if (r < 1)
        r = 1;
    if (r > s->n)
        r = s->n;
    return (double)s->v[r - 1];
}

/* latency_ms{mean, p50, p95, p99, max} at base against the series. */
static void check_latency(struct findings *f, const json_t *res, const char *base,
                          struct series *s) {
    char p[512];
    if (!s->n) {
        snprintf(p, sizeof p, "%s.mean", base);
        if (!json_is_null(jget(res, p)))
            finding(f, "%s: result.json %g, but the log holds no completion", p, jnum(res, p));
        f->compared++;
        return;
    }
    qsort(s->v, s->n, sizeof *s->v, cmp_u64);
    static const struct {
        const char *key;
        double q;
    } pc[] = {{"p50", 0.50}, {"p95", 0.95}, {"p99", 0.99}};
    snprintf(p, sizeof p, "%s.mean", base);
    compare_num(f, res, p, (double)s->sum / (double)s->n / 1e6, REL, 1e-9);
    snprintf(p, sizeof p, "%s.max", base);
    compare_num(f, res, p, (double)s->v[s->n - 1] / 1e6, REL, 1e-9);
    for (size_t k = 0; k < sizeof pc / sizeof pc[0]; k++) {
        snprintf(p, sizeof p, "%s.%s", base, pc[k].key);
        compare_num(f, res, p, rank_value(s, pc[k].q) / 1e6, PCTL_REL, 2e-6);
    }
}

/* pacer{operations, late_over_1ms_share, lateness_ms{mean, p50, p99, max}}
 * against every record's start - scheduled instant. */
static void check_pacer(struct findings *f, const json_t *res, struct series *s,
                        uint64_t late_1ms) {
    compare_num(f, res, "pacer.operations", (double)s->n, 0, 0);
    if (!s->n) {
        f->compared++;
        if (!json_is_null(jget(res, "pacer.lateness_ms.p99")))
            finding(f, "pacer.lateness_ms.p99: result.json %g, but the log holds no operation",
                    jnum(res, "pacer.lateness_ms.p99"));
        return;
    }
    compare_num(f, res, "pacer.late_over_1ms_share", (double)late_1ms / (double)s->n, REL, 1e-12);
    qsort(s->v, s->n, sizeof *s->v, cmp_u64);
    compare_num(f, res, "pacer.lateness_ms.mean", (double)s->sum / (double)s->n / 1e6, REL, 1e-9);
    compare_num(f, res, "pacer.lateness_ms.max", (double)s->v[s->n - 1] / 1e6, REL, 1e-9);
    compare_num(f, res, "pacer.lateness_ms.p50", rank_value(s, 0.50) / 1e6, PCTL_REL, 2e-6);
    compare_num(f, res, "pacer.lateness_ms.p99", rank_value(s, 0.99) / 1e6, PCTL_REL, 2e-6);
}

struct wl_acc;
static void check_slo(struct findings *f, const json_t *res, const char *const *names, unsigned nw,
                      struct wl_acc *acc);

struct wl_acc {
    uint64_t ops, errors, count;
    int64_t first, last; /* relative to the release, ns */
    struct series lat;   /* response time: end - scheduled instant */
    struct series svc;   /* service time: end - start */
    struct series csvc[16];
    uint64_t cops[OPLOG_NO_CLASS + 1], cerr[OPLOG_NO_CLASS + 1], ccount[OPLOG_NO_CLASS + 1];
    struct series clat[16];
};

struct cont {
    uint32_t id;
    uint64_t ops, errors;
    int64_t last;
    uint64_t lat_sum[OPLOG_MAX_WL], lat_n[OPLOG_MAX_WL];
    int seen;
};

static int cont_cmp(const void *a, const void *b) {
    uint32_t x = ((const struct cont *)a)->id, y = ((const struct cont *)b)->id;
    return x < y ? -1 : x > y;
}

/* The expected matching lines of search op i, from the manifest recorded in
 * the result (config.corpus.manifest.expected), or -1. */
static int64_t search_expected(const json_t *res, unsigned op) {
    json_t *row = json_array_get(jget(res, "config.corpus.manifest.expected.patterns"), op);
    if (!row)
        return -1;
    int64_t n = 0;
    static const char *const trees[2] = {"linux", "cpython"};
    for (int k = 0; k < 2; k++)
        n += json_integer_value(json_object_get(json_object_get(row, trees[k]), "lines"));
    return n;
}

static enum profile profile_of(const json_t *res) {
    const char *p = jstr(res, "config.profile");
    return p && !strcmp(p, "tiny")    ? PROFILE_TINY
           : p && !strcmp(p, "small") ? PROFILE_SMALL
                                      : PROFILE_FULL;
}

void recompute_check(struct findings *f, const json_t *res, const struct logset *ls, int merged) {
    /* Workloads by name across the logs (their headers may differ in order). */
    const char *names[OPLOG_MAX_WL];
    const char *counters[OPLOG_MAX_WL];
    unsigned nw = 0;
    struct wl_acc *acc = calloc(OPLOG_MAX_WL, sizeof *acc);
    size_t total = 0;
    for (unsigned i = 0; i < ls->n; i++)
        total += ls->h[i].records;
    struct cont *cs = calloc(total ? total : 1, sizeof *cs);
    if (!acc || !cs) {
        finding(f, "out of memory recomputing %zu records", total);
        free(acc);
        free(cs);
        return;
    }
    /* Wall time, AOPS, windows and container seconds are measured from the
     * release: a log without one (0, negative) cannot give them, and that is
     * a finding (a forged headline over a log "never released" must not pass
     * as "not recomputed"). A merge needs every shard's release. */
    int64_t origin = INT64_MAX;
    int released = ls->n > 0;
    for (unsigned i = 0; i < ls->n; i++) {
        int64_t off = merged && ls->offset_ns ? ls->offset_ns[i] : 0, at;
        f->compared++;
        if (ls->h[i].release_ns <= 0 || (merged && ls->h[i].release_epoch_ns <= 0)) {
            finding(f,
                    "ops.log%s: release_ns %" PRId64 ", release_epoch_ns %" PRId64
                    ": the log holds no release, so totals.wall_seconds, totals.aops, the "
                    "windows and the containers' seconds cannot be recomputed",
                    ls->n > 1 ? " of a shard" : "", ls->h[i].release_ns, ls->h[i].release_epoch_ns);
            released = 0;
        } else if (merged && __builtin_add_overflow(ls->h[i].release_epoch_ns, off, &at)) {
            finding(f, "ops.log of a shard: its release and clock offset overflow");
            released = 0;
        } else if (merged && at < origin)
            origin = at;
    }
    uint64_t ops = 0, errors = 0;
    int64_t end = 0;
    size_t ncs = 0;
    enum profile prof = profile_of(res);
    uint64_t bad_answer = 0, late_1ms = 0;
    char first_bad[256] = "";
    struct series lateness = {0};
    for (unsigned i = 0; i < ls->n; i++) {
        const struct oplog_header *h = &ls->h[i];
        /* names[] and acc[] hold OPLOG_MAX_WL workloads: the logs of a
         * merge may name more between them, which no run makes -- a finding,
         * and their records are left out (never an index past the arrays). */
        unsigned map[OPLOG_MAX_WL];
        for (unsigned w = 0; w < h->nwl && w < OPLOG_MAX_WL; w++) {
            unsigned k = 0;
            while (k < nw && strncmp(names[k], h->workload[w], sizeof h->workload[w]))
                k++;
            if (k == nw && nw == OPLOG_MAX_WL) {
                finding(f, "ops.log: the logs name more than %d workloads between them (%.16s)",
                        OPLOG_MAX_WL, h->workload[w]);
                k = OPLOG_MAX_WL;
            } else if (k == nw) {
                names[nw] = h->workload[w];
                counters[nw++] = h->counter[w];
            }
            map[w] = k;
        }
        /* A merge lines the shards up by their release's wall-clock time,
         * each moved by its clock's measured offset (as harness merge). Any
         * instant that overflows is a finding and the log is left out. */
        int64_t off = merged && ls->offset_ns ? ls->offset_ns[i] : 0, shift = 0;
        if (!released)
            shift = 0;
        else if (merged ? __builtin_add_overflow(h->release_epoch_ns, off, &shift) ||
                              __builtin_sub_overflow(shift, origin, &shift) ||
                              __builtin_sub_overflow(shift, h->release_ns, &shift)
                        : __builtin_sub_overflow((int64_t)0, h->release_ns, &shift)) {
            finding(f, "ops.log of a shard: its release instants overflow");
            continue;
        }
        uint64_t bad_rec = 0;
        for (uint64_t j = 0; j < h->records; j++) {
            const struct oplog_rec *r = &ls->recs[i][j];
            if (r->workload >= h->nwl || map[r->workload] >= OPLOG_MAX_WL) {
                if (bad_rec++ == 0)
                    finding(f, "ops.log record %" PRIu64 " names workload %u of %u", j, r->workload,
                            h->nwl);
                continue;
            }
            int64_t s, e, d, dr;
            /* Due after it was sent, or a response time that does not fit: a
             * record no worker writes (its instant is taken before the send). */
            if (r->sched_ns > r->start_ns || __builtin_sub_overflow(r->end_ns, r->sched_ns, &dr)) {
                if (bad_rec++ == 0)
                    finding(f,
                            "ops.log record %" PRIu64 " is due after it was sent or out of range "
                            "(due %" PRId64 ", sent %" PRId64 " ns)",
                            j, r->sched_ns, r->start_ns);
                continue;
            }
            if (r->end_ns < r->start_ns || __builtin_sub_overflow(r->end_ns, r->start_ns, &d) ||
                __builtin_add_overflow(r->start_ns, shift, &s) ||
                __builtin_add_overflow(r->end_ns, shift, &e)) {
                if (bad_rec++ == 0)
                    finding(f,
                            "ops.log record %" PRIu64 " ends before it starts or out of range "
                            "(%" PRId64 " to %" PRId64 " ns)",
                            j, r->start_ns, r->end_ns);
                continue;
            }
            unsigned w = map[r->workload];
            struct wl_acc *a = &acc[w];
            int k = oplog_class(r);
            if (!a->ops && !a->errors)
                a->first = s;
            if (s < a->first)
                a->first = s;
            if (e > a->last)
                a->last = e;
            if (e > end)
                end = e;
            if (ncs == 0 || cs[ncs - 1].id != r->container) {
                cs[ncs++] = (struct cont){.id = r->container};
            }
            struct cont *c = &cs[ncs - 1];
            if (e > c->last)
                c->last = e;
            /* Lateness: every operation that was sent, an error too. */
            uint64_t late = (uint64_t)(r->start_ns - r->sched_ns); /* >= 0, checked above */
            push(&lateness, late);
            late_1ms += late > 1000000;
            if (oplog_failed(r)) {
                a->errors++, errors++, c->errors++;
                if (k >= 0)
                    a->cerr[k]++;
                continue;
            }
            a->ops++, ops++, c->ops++;
            if (__builtin_add_overflow(a->count, r->count, &a->count) && bad_rec++ == 0)
                finding(f, "ops.log: workload %s's counter overflows 64 bits", names[w]);
            uint64_t lat = (uint64_t)dr, svc = (uint64_t)d;
            push(&a->lat, lat);
            push(&a->svc, svc);
            c->lat_sum[w] += lat, c->lat_n[w]++;
            if (k >= 0 && k < 16) {
                a->cops[k]++;
                a->ccount[k] += r->count; /* <= a->count, checked above */
                push(&a->clat[k], lat);
                push(&a->csvc[k], svc);
            }
            /* The answer the operation had to bring. */
            int64_t want = -1;
            if (!strcmp(names[w], "s3"))
                want = (int64_t)s3_class_size(prof, s3_op_class(r->op));
            else if (!strcmp(names[w], "db") && r->op / DB_OPS_PER_PATTERN == DB_POINT)
                want = 1;
            else if (!strcmp(names[w], "db") && r->op / DB_OPS_PER_PATTERN == DB_RANGE)
                want = DB_RANGE_ROWS;
            else if (!strcmp(names[w], "search") && (want = search_expected(res, r->op)) < 0) {
                /* No expected count for it: the answer cannot be checked, and
                 * that is a finding (fail closed), never a pass. */
                if (bad_answer++ == 0)
                    snprintf(first_bad, sizeof first_bad,
                             "container %u, search op %u: the result records no expected count "
                             "for it (config.corpus.manifest.expected.patterns.%u)",
                             r->container, r->op, r->op);
                want = -1;
            }
            if (want >= 0 && (int64_t)r->count != want && bad_answer++ == 0)
                snprintf(first_bad, sizeof first_bad,
                         "container %u, %s op %u: %" PRIu64 " where the answer is %" PRId64,
                         r->container, names[w], r->op, r->count, want);
        }
    }
    if (bad_answer)
        finding(f,
                "%" PRIu64 " completed operation(s) brought a wrong answer or one that cannot be "
                "checked, first: %s",
                bad_answer, first_bad);
    f->compared++;

    double rel = merged ? MERGED_REL : REL;
    compare_num(f, res, "totals.ops", (double)ops, 0, 0);
    compare_num(f, res, "totals.errors", (double)errors, 0, 0);
    if (released && end > 0) {
        double wall = (double)end / 1e9;
        compare_num(f, res, "totals.wall_seconds", wall, rel, 1e-9);
        compare_num(f, res, "totals.aops", (double)ops / wall, rel, 1e-9);
        double cores = jnum(res, "system.physical_cores");
        if (cores > 0)
            compare_num(f, res, "totals.aops_per_core", (double)ops / wall / cores, rel, 1e-9);
        else if (json_is_number(jget(res, "totals.aops_per_core"))) {
            f->compared++;
            finding(f,
                    "totals.aops_per_core: result.json %.10g, but system.physical_cores is "
                    "%g: it cannot be recomputed",
                    jnum(res, "totals.aops_per_core"), cores);
        }
    } else if (released) {
        /* Released, but no record ends after the release: no wall time. */
        f->compared++;
        if (!json_is_null(jget(res, "totals.aops")) || ops)
            finding(f,
                    "totals.aops: result.json %s, but no operation in the log ends after the "
                    "release: there is no wall time to divide by",
                    json_is_number(jget(res, "totals.aops")) ? "a number" : "none");
    }
    /* Invariant: a clean run ran every operation of every cycle. */
    double n = jnum(res, "config.containers"), cycles = jnum(res, "config.cycles");
    unsigned full = workloads_full_cycle();
    if (errors == 0 && json_is_true(json_object_get(res, "valid"))) {
        f->compared++;
        if ((double)ops != n * cycles * full)
            finding(f,
                    "invariant: a valid run without errors ran %" PRIu64
                    " operations, not containers x cycles x %u = %.0f",
                    ops, full, n * cycles * full);
    }

    /* A paced run (a pacer object): its service times and lateness too. */
    int paced = json_is_object(json_object_get(res, "pacer"));
    if (paced)
        check_pacer(f, res, &lateness, late_1ms);
    for (unsigned w = 0; w < nw; w++) {
        struct wl_acc *a = &acc[w];
        char p[512];
        snprintf(p, sizeof p, "workloads.%s.ops", names[w]);
        compare_num(f, res, p, (double)a->ops, 0, 0);
        snprintf(p, sizeof p, "workloads.%s.errors", names[w]);
        compare_num(f, res, p, (double)a->errors, 0, 0);
        if (counters[w][0]) {
            snprintf(p, sizeof p, "workloads.%s.%.24s", names[w], counters[w]);
            compare_num(f, res, p, (double)a->count, 0, 0);
        }
        snprintf(p, sizeof p, "workloads.%s.latency_ms", names[w]);
        check_latency(f, res, p, &a->lat);
        snprintf(p, sizeof p, "workloads.%s.service_ms", names[w]);
        if (paced)
            check_latency(f, res, p, &a->svc);
        const struct workload *wl = workload_find(names[w]);
        for (unsigned k = 0; wl && k < wl->nclasses && k < 16; k++) {
            const char *ck = wl->classes_key ? wl->classes_key : "classes";
            snprintf(p, sizeof p, "workloads.%s.%s.%s.ops", names[w], ck, wl->class_names[k]);
            compare_num(f, res, p, (double)a->cops[k], 0, 0);
            snprintf(p, sizeof p, "workloads.%s.%s.%s.errors", names[w], ck, wl->class_names[k]);
            compare_num(f, res, p, (double)a->cerr[k], 0, 0);
            if (counters[w][0]) {
                snprintf(p, sizeof p, "workloads.%s.%s.%s.%.24s", names[w], ck, wl->class_names[k],
                         counters[w]);
                compare_num(f, res, p, (double)a->ccount[k], 0, 0);
            }
            snprintf(p, sizeof p, "workloads.%s.%s.%s.latency_ms", names[w], ck,
                     wl->class_names[k]);
            check_latency(f, res, p, &a->clat[k]);
            snprintf(p, sizeof p, "workloads.%s.%s.%s.service_ms", names[w], ck,
                     wl->class_names[k]);
            if (paced)
                check_latency(f, res, p, &a->csvc[k]);
        }
        if (released && (a->ops || a->errors)) {
            snprintf(p, sizeof p, "windows.%s.start", names[w]);
            compare_num(f, res, p, (double)a->first / 1e9, rel, 1e-6);
            snprintf(p, sizeof p, "windows.%s.end", names[w]);
            compare_num(f, res, p, (double)a->last / 1e9, rel, 1e-6);
        }
    }

    check_slo(f, res, names, nw, acc);

    /* containers[]: matched by id (and shard, in a merged result). */
    qsort(cs, ncs, sizeof *cs, cont_cmp);
    const json_t *arr = json_object_get(res, "containers");
    size_t i;
    const json_t *c;
    f->compared++;
    if (json_array_size(arr) != ncs)
        finding(f, "containers: result.json lists %zu, the log holds operations of %zu",
                json_array_size(arr), ncs);
    json_array_foreach(arr, i, c) {
        uint32_t id = (uint32_t)json_integer_value(json_object_get(c, "id"));
        struct cont key = {.id = id}, *m = bsearch(&key, cs, ncs, sizeof *cs, cont_cmp);
        char p[512];
        if (!m) {
            double ops_c = jnum(c, "ops") + jnum(c, "errors");
            f->compared++;
            if (ops_c > 0)
                finding(f, "containers.%zu (id %u): result.json %.0f operations, none in the log",
                        i, id, ops_c);
            continue;
        }
        snprintf(p, sizeof p, "containers.%zu.ops", i);
        compare_num(f, res, p, (double)m->ops, 0, 0);
        snprintf(p, sizeof p, "containers.%zu.errors", i);
        compare_num(f, res, p, (double)m->errors, 0, 0);
        if (released && !merged) {
            snprintf(p, sizeof p, "containers.%zu.seconds", i);
            compare_num(f, res, p, (double)m->last / 1e9, REL, 1e-9);
        }
        for (unsigned w = 0; w < nw; w++) {
            snprintf(p, sizeof p, "containers.%zu.latency_ms_mean.%s", i, names[w]);
            if (m->lat_n[w])
                compare_num(f, res, p, (double)m->lat_sum[w] / (double)m->lat_n[w] / 1e6, REL,
                            1e-9);
        }
    }

    for (unsigned w = 0; w < OPLOG_MAX_WL; w++) {
        free(acc[w].lat.v);
        free(acc[w].svc.v);
        for (int k = 0; k < 16; k++)
            free(acc[w].clat[k].v), free(acc[w].csvc[k].v);
    }
    free(lateness.v);
    free(acc);
    free(cs);
}

/* slo.checks[] against the log: each figure is the percentile it names of
 * the raw latencies by nearest rank (within PCTL_REL: the run reports a
 * bucket midpoint), its errors the log's, and its verdict what the figure
 * and the errors give -- where the exact value is more than PCTL_REL away
 * from the bound; nearer, the midpoint may fall on either side of it, and
 * the log cannot say which verdict the run had to give. slo.met is every
 * check's. A result without slo (an earlier build) has nothing to check. */
static void check_slo(struct findings *f, const json_t *res, const char *const *names, unsigned nw,
                      struct wl_acc *acc) {
    const json_t *slo = json_object_get(res, "slo");
    if (!json_is_object(slo))
        return;
    size_t i;
    const json_t *c;
    int all = 1;
    json_array_foreach(json_object_get(slo, "checks"), i, c) {
        const char *wn = jstr(c, "workload"), *cls = jstr(c, "class"), *pct = jstr(c, "percentile");
        double bound = jnum(c, "bound_ms");
        all &= json_is_true(json_object_get(c, "met"));
        unsigned w = 0;
        while (wn && w < nw && strcmp(names[w], wn))
            w++;
        const struct workload *wl = wn ? workload_find(wn) : NULL;
        unsigned k = 0;
        while (cls && wl && k < wl->nclasses && strcmp(wl->class_names[k], cls))
            k++;
        char *end = NULL;
        double q = pct && pct[0] == 'p' ? strtod(pct + 1, &end) / 100 : NAN;
        f->compared++;
        if (!wn || w == nw || (cls && (!wl || k >= wl->nclasses || k >= 16)) || !end || *end ||
            !(q > 0 && q <= 1) || !isfinite(bound)) {
            if (json_is_true(json_object_get(c, "met")))
                finding(f, "slo.checks.%zu: met, but the log holds no %s%s%s to judge (%s)", i,
                        wn ? wn : "?", cls ? "." : "", cls ? cls : "", pct ? pct : "?");
            continue;
        }
        struct series *s = cls ? &acc[w].clat[k] : &acc[w].lat; /* sorted by check_latency */
        uint64_t errs = cls ? acc[w].cerr[k] : acc[w].errors;
        char p[64];
        snprintf(p, sizeof p, "slo.checks.%zu.errors", i);
        compare_num(f, res, p, (double)errs, 0, 0);
        if (!s->n) {
            if (json_is_true(json_object_get(c, "met")))
                finding(f, "slo.checks.%zu: met, but the log holds no completion of it", i);
            continue;
        }
        double exact = rank_value(s, q) / 1e6;
        snprintf(p, sizeof p, "slo.checks.%zu.measured_ms", i);
        compare_num(f, res, p, exact, PCTL_REL, 2e-6);
        if (fabs(exact - bound) > PCTL_REL * bound) {
            int want = errs == 0 && exact <= bound;
            f->compared++;
            if (want != json_is_true(json_object_get(c, "met")))
                finding(f,
                        "slo.checks.%zu.met: result.json %s, but the log's %s of %s%s%s is %.6g "
                        "ms against a bound of %g ms, with %" PRIu64 " errors",
                        i, json_is_true(json_object_get(c, "met")) ? "true" : "false", pct, wn,
                        cls ? "." : "", cls ? cls : "", exact, bound, errs);
        }
    }
    f->compared++;
    if (json_array_size(json_object_get(slo, "checks")) &&
        json_is_true(json_object_get(slo, "met")) != all)
        finding(f, "slo.met: result.json %s, but its checks say %s",
                json_is_true(json_object_get(slo, "met")) ? "true" : "false",
                all ? "every bound is met" : "a bound is not met");
}
