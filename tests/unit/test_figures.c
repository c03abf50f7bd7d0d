/* test_figures.c -- the figures that explain the headline, on values worked
 * out by hand: span arithmetic, a mean over a span that cuts samples (each
 * counts by its share), the windows' union, overlap and exclusive time, the
 * stragglers' median and tail, and the phase barrier across real forked
 * processes timed by the clock (no worker starts phase 2 before the last
 * one ended phase 1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/json.h"
#include "../../common/util.h"
#include "../../result/figures.h"
#include "../../result/stragglers.h"
#include "../../result/windows.h"
#include "../../runtime/phasebar.h"
#include "../../telemetry/series.h"
#include "unit.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void test_spans(void) {
    struct span s[] = {{3, 4}, {0, 1}, {0.5, 2}, {5, 5}, {4, 4.5}};
    size_t n = spans_union(s, 5);
    CHECKF(n == 2 && NEAR(s[0].a, 0) && NEAR(s[0].b, 2) && NEAR(s[1].a, 3) && NEAR(s[1].b, 4.5),
           "%zu: [%g %g] [%g %g]", n, s[0].a, s[0].b, s[1].a, s[1].b);
    CHECK(NEAR(spans_length(s, n), 3.5));
    struct span b[] = {{1, 3.5}, {4, 10}}, out[8];
    /* [0,2] u [3,4.5] less [1,3.5] u [4,10] = [0,1] u [3.5,4] */
    size_t k = spans_subtract(s, n, b, 2, out);
    CHECKF(k == 2 && NEAR(out[0].a, 0) && NEAR(out[0].b, 1) && NEAR(out[1].a, 3.5) &&
               NEAR(out[1].b, 4),
           "%zu", k);
    CHECK(NEAR(spans_overlap(s, n, b, 2), 1 + 0.5 + 0.5));
}

static void test_series(void) {
    /* Points (t - dt, t]: 10 over (0,1], 20 over (1,2], 40 over (2,3], NAN
     * (not measured) over (3,4]. */
    double rows[][3] = {{1, 1, 10}, {2, 1, 20}, {3, 1, 40}, {4, 1, NAN}};
    struct series_col c = {&rows[0][0], &rows[0][1], &rows[0][2], 3, 4};
    double mean, peak, cov;
    /* [0.5, 2.25]: 10 x 0.5 + 20 x 1 + 40 x 0.25 = 35 over 1.75 s = 20 */
    struct span sp = {0.5, 2.25};
    CHECK(series_stat(&c, &sp, 1, &mean, &peak, &cov) == 0);
    CHECKF(NEAR(mean, 20) && NEAR(peak, 40) && NEAR(cov, 1.75), "%g %g %g", mean, peak, cov);
    CHECK(NEAR(series_integral(&c, &sp, 1), 35));
    /* Two spans, one over the unmeasured point: [0, 0.5] u [2.5, 3.5]:
     * 10 x 0.5 + 40 x 0.5 over the 1 s measured = 25. */
    struct span two[] = {{0, 0.5}, {2.5, 3.5}};
    CHECK(series_stat(&c, two, 2, &mean, &peak, &cov) == 0);
    CHECKF(NEAR(mean, 25) && NEAR(peak, 40) && NEAR(cov, 1), "%g %g %g", mean, peak, cov);
    struct span none = {3.2, 3.8};
    CHECK(series_stat(&c, &none, 1, &mean, &peak, &cov) == -1 && isnan(mean));
    CHECK(json_is_null(series_stat_json(&c, &none, 1)));
    struct series s;
    series_init(&s);
    int k = series_add_col(&s, "x");
    double *r = series_append(&s, 1, 1);
    r[2 + k] = 7;
    struct series_col sc = series_column(&s, k);
    CHECK(series_stat(&sc, &sp, 1, &mean, &peak, &cov) == 0 && NEAR(mean, 7) && NEAR(cov, 0.5));
    CHECK(series_add_col(&s, "y") == -1); /* columns are fixed once rows exist */
    series_free(&s);
}

/* A source whose "cpu_util" mean is the seconds it was asked about, and
 * whose bytes are 1000/s on the disk and 2000/s for the workloads. */
static json_t *fake_stats(void *ctx, const struct span *s, size_t n) {
    (void)ctx;
    return json_pack("{s:{s:f}}", "cpu_util", "mean", spans_length(s, n));
}
static double fake_disk(void *ctx, const struct span *s, size_t n) {
    (void)ctx;
    return 1000 * spans_length(s, n);
}
static double fake_wl(void *ctx, const struct span *s, size_t n) {
    (void)ctx;
    return 2000 * spans_length(s, n);
}

static void test_windows(void) {
    /* s3 in cycles 1 and 2: [0, 1] and [2, 3]; db: [0.8, 1.5] and [3.5, 4].
     * s3's union 2 s, shared with db over [0.8, 1]: 0.2 s, a share of 0.1;
     * alone [0, 0.8] u [2, 3]: 1.8 s. db: 1.2 s, 0.2 shared (1/6), alone 1 s. */
    struct span s3[] = {{0, 1}, {2, 3}}, db[] = {{0.8, 1.5}, {3.5, 4}};
    json_t *w3 = json_object(), *wd = json_object();
    struct win_in in[] = {{"s3", w3, s3, 2}, {"db", wd, db, 2}};
    struct win_src src = {fake_stats, fake_disk, fake_wl, NULL, NULL};
    windows_figures(in, 2, &src);
    CHECKF(NEAR(jnum(w3, "seconds"), 2) && NEAR(jnum(w3, "overlap_share"), 0.1), "%g %g",
           jnum(w3, "seconds"), jnum(w3, "overlap_share"));
    CHECK(NEAR(jnum(w3, "exclusive.seconds"), 1.8));
    CHECK(NEAR(jnum(w3, "cpu_util.mean"), 2) && NEAR(jnum(w3, "exclusive.cpu_util.mean"), 1.8));
    CHECK(NEAR(jnum(w3, "served_from_disk"), 0.5) &&
          NEAR(jnum(w3, "disk_bytes_per_workload_byte"), 0.5));
    CHECKF(fabs(jnum(wd, "overlap_share") - 0.2 / 1.2) < 1e-9, "%g", jnum(wd, "overlap_share"));
    CHECK(NEAR(jnum(wd, "exclusive.seconds"), 1.0) && NEAR(jnum(wd, "seconds"), 1.2));
    json_decref(w3);
    json_decref(wd);
}

/* The disks read 2,840 bytes/s while the workloads were served 2,000
 * (readahead, metadata): over s3's 2 s window 5,680 against 4,000 bytes,
 * 1.42 bytes a byte, and a share served from disk of 1, not 142 %. */
static double disk_2840_per_s(void *ctx, const struct span *s, size_t n) {
    (void)ctx;
    return 2840 * spans_length(s, n);
}

static void test_disk_share_capped(void) {
    struct span s3[] = {{0, 1}, {2, 3}};
    json_t *w = json_object();
    struct win_in in[] = {{"s3", w, s3, 2}};
    struct win_src src = {NULL, disk_2840_per_s, fake_wl, NULL, NULL};
    windows_figures(in, 1, &src);
    CHECK(NEAR(jnum(w, "disk_read_bytes"), 5680) && NEAR(jnum(w, "workload_read_bytes"), 4000));
    CHECKF(NEAR(jnum(w, "served_from_disk"), 1), "%g", jnum(w, "served_from_disk"));
    CHECKF(NEAR(jnum(w, "disk_bytes_per_workload_byte"), 1.42), "%g",
           jnum(w, "disk_bytes_per_workload_byte"));
    CHECK(NEAR(jnum(w, "exclusive.served_from_disk"), 1) &&
          NEAR(jnum(w, "exclusive.disk_bytes_per_workload_byte"), 1.42));
    json_decref(w);
    /* Under 1 both are the same quotient; unknown or nothing read is NAN. */
    CHECK(NEAR(windows_served(1, 4), 0.25) && NEAR(windows_disk_per_wl(1, 4), 0.25));
    CHECK(isnan(windows_served(NAN, 4)) && isnan(windows_served(1, 0)) &&
          isnan(windows_disk_per_wl(1, NAN)));
}

static double ops_100_per_s(void *ctx, double t) {
    (void)ctx;
    return 100 * t;
}

static void test_stragglers(void) {
    /* Finishes 4, 1, 2 s (one never finished): median 2, tail (4 - 2) / 4,
     * 200 operations by the median, 100 per second. */
    json_t *c = json_pack("[{s:f}, {s:f}, {s:n}, {s:f}]", "seconds", 4.0, "seconds", 1.0, "seconds",
                          "seconds", 2.0);
    json_t *s = stragglers_json(c, ops_100_per_s, NULL);
    CHECK(NEAR(jnum(s, "finish.first"), 1) && NEAR(jnum(s, "finish.median"), 2) &&
          NEAR(jnum(s, "finish.last"), 4));
    CHECK(NEAR(jnum(s, "tail_share"), 0.5) && NEAR(jnum(s, "aops_at_median"), 100));
    CHECK(jnum(s, "containers") == 3);
    json_decref(s);
    json_array_append_new(c, json_pack("{s:f}", "seconds", 3.0)); /* even: between 2 and 3 */
    s = stragglers_json(c, NULL, NULL);
    CHECK(NEAR(jnum(s, "finish.median"), 2.5) && json_is_null(jget(s, "aops_at_median")));
    json_decref(s);
    json_decref(c);
}

static double clock_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Three forked "workers" each end phase 1 after 0.05, 0.15 and 0.30 s and
 * stamp when they start phase 2; the coordinator side releases the barrier.
 * No one may start phase 2 before the last ended phase 1 (the clock says). */
static void test_phasebar(void) {
    enum { N = 3 };
    struct run_ctx r;
    memset(&r, 0, sizeof r);
    r.lay.slot_size = 4096;
    r.shm = mmap(NULL, N * 4096 + 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(r.shm != MAP_FAILED);
    double *stamp = (double *)(void *)(r.shm + N * 4096); /* [i]: phase 1 end, [N + i]: phase 2 */
    int p[2];
    CHECK(pipe(p) == 0);
    r.ready_fd = p[1];
    struct worker_end we[N];
    memset(we, 0, sizeof we);
    double t0 = clock_s();
    for (int i = 0; i < N; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            struct worker_slot *s = run_slot(&r, (unsigned)i);
            atomic_store(&s->phase, PH_RUNNING);
            const double end1[N] = {0.05, 0.15, 0.30};
            while (clock_s() - t0 < end1[i])
                ;
            stamp[i] = clock_s();
            phasebar_wait(&r, s, 1);
            stamp[N + i] = clock_s();
            atomic_store(&s->phase, PH_DONE);
            _exit(0);
        }
        we[i].pid = pid;
    }
    uint32_t next = 1;
    while (next == 1 && clock_s() - t0 < 5) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        phasebar_poll(&r, we, N, &next);
    }
    for (int i = 0; i < N; i++)
        waitpid(we[i].pid, NULL, 0);
    double last1 = fmax(stamp[0], fmax(stamp[1], stamp[2]));
    CHECKF(next == 2, "barrier 1 released (next %u)", next);
    for (int i = 0; i < N; i++)
        CHECKF(stamp[N + i] >= last1,
               "worker %d started phase 2 %.4f s before the last ended phase 1", i,
               last1 - stamp[N + i]);
    CHECKF(last1 - t0 >= 0.29, "the slowest ended phase 1 at %.3f s", last1 - t0);
    /* A dead worker does not hold the others: worker 0 "reaped", 1 and 2 at barrier 2. */
    atomic_store(&run_slot(&r, 1)->bar_arrived, 2);
    atomic_store(&run_slot(&r, 2)->bar_arrived, 2);
    atomic_store(&run_slot(&r, 1)->phase, PH_RUNNING);
    atomic_store(&run_slot(&r, 2)->phase, PH_RUNNING);
    we[0].reaped = 1;
    CHECK(phasebar_poll(&r, we, N, &next) == 1 && next == 3);
    CHECK(atomic_load(&run_slot(&r, 1)->bar_go) == 2);
    close(p[0]);
    close(p[1]);
    munmap(r.shm, N * 4096 + 4096);
}

/* A null figure has its reason beside it (result.schema.json's
 * x-null-reason): a window without a disk source says the source's reason;
 * storage{} says why its data set and its disk bytes are null. */
static void test_null_reasons(void) {
    struct span s3[] = {{0, 1}};
    json_t *w = json_object();
    struct win_in in[] = {{"s3", w, s3, 1}};
    struct win_src src = {NULL, NULL, fake_wl, NULL, "no sampler here"};
    windows_figures(in, 1, &src);
    CHECK(json_is_null(json_object_get(w, "disk_read_bytes")) &&
          json_is_null(json_object_get(w, "served_from_disk")));
    CHECKF(jstr(w, "disk_unavailable_reason") &&
               !strcmp(jstr(w, "disk_unavailable_reason"), "no sampler here"),
           "%s", jstr(w, "disk_unavailable_reason"));
    json_decref(w);
    struct storage_in st = {"asis", NAN, "search: no manifest", 1000, NAN, "no disks", 50};
    json_t *o = figures_storage(&st);
    CHECK(json_is_null(json_object_get(o, "dataset_bytes")) &&
          !strcmp(jstr(o, "dataset_reason"), "search: no manifest"));
    CHECK(json_is_null(json_object_get(o, "disk_read_bytes")) &&
          !strcmp(jstr(o, "disk_unavailable_reason"), "no disks"));
    CHECK(json_is_null(json_object_get(o, "dataset_to_memory")) && jnum(o, "memory_bytes") == 1000);
    json_decref(o);
    /* figures: no reason keys, and the quotients worked out by hand */
    st = (struct storage_in){"cold", 500, "", 1000, 25, "", 50};
    o = figures_storage(&st);
    CHECK(!json_object_get(o, "dataset_reason") && !json_object_get(o, "disk_unavailable_reason"));
    CHECK(NEAR(jnum(o, "dataset_to_memory"), 0.5) && NEAR(jnum(o, "served_from_disk"), 0.5));
    CHECK(!strcmp(jstr(o, "cache"), "cold"));
    json_decref(o);
}

int main(void) {
    test_null_reasons();
    test_spans();
    test_series();
    test_windows();
    test_disk_share_capped();
    test_stragglers();
    test_phasebar();
    return unit_done("test_figures");
}
