/* test_merge.c -- `harness merge` on two hand-made shards whose figures are
 * worked out by hand: AOPS over the common release to the last completion,
 * per-core over both hosts' cores, latency from the added histograms (the
 * p95 a max-of-percentiles merge would get wrong), counters and classes
 * summed, windows and per-second completions lined up in absolute time;
 * then the rules: missing and duplicated shards, clock offsets (warn above
 * 100 ms, invalid above 1 s), different configs, versions and start times,
 * an invalid shard, power only when every machine has it; a paced fleet's
 * service times and pacer from the added histograms and counts. Also the
 * histogram JSON round trip and --start-at's time formats. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/json.h"
#include "../../common/walltime.h"
#include "../../fleet/merge.h"
#include "../../placement/shard.h"
#include "../../result/hist.h"
#include "../../result/histjson.h"
#include "unit.h"

#define T0 1000000000000000000LL /* the common --start-at, epoch ns */
#define MS 1000000ULL

static int has(const json_t *arr, const char *needle) {
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) if (strstr(json_string_value(v), needle)) return 1;
    return 0;
}

/* n1 values of v1 ns and n2 of v2 ns. */
static json_t *hist_of(uint64_t n1, uint64_t v1, uint64_t n2, uint64_t v2) {
    struct hist h;
    hist_init(&h);
    for (uint64_t i = 0; i < n1; i++)
        hist_add(&h, v1);
    for (uint64_t i = 0; i < n2; i++)
        hist_add(&h, v2);
    return hist_to_json(&h);
}

struct spec {
    unsigned index;
    const char *host, *boot;
    int64_t rel_ns; /* released at */
    double wall;
    int cores;
    double watts; /* NAN: no power reading */
    double offset;
    uint64_t ops, bytes;
    json_t *lat, *ttfb; /* histograms (taken) */
    double win_start, win_end;
    json_int_t rate_start;
    json_t *rate; /* counts (taken) */
};

/* A shard of 2 with one s3 workload: all its operations of class 1MiB. */
static json_t *shard(const struct spec *s) {
    json_t *empty = hist_of(0, 0, 0, 0);
    json_t *r = json_pack(
        "{s:i, s:b, s:[], s:[], s:{s:i, s:s}, s:{s:s, s:s, s:i, s:i, s:i, s:I, s:s, s:s, s:[]},"
        " s:{s:I, s:i, s:I, s:f, s:f}}",
        "schema_version", 1, "valid", 1, "invalid_reasons", "warnings", "config", "containers", 1,
        "profile", "tiny", "system", "cpu_vendor", "AuthenticAMD", "cpu_model", "EPYC", "sockets",
        1, "physical_cores", s->cores, "logical_cpus", 2 * s->cores, "memory_bytes",
        (json_int_t)1 << 30, "kernel", "6.1", "harness_version", "v1", "disks", "totals", "ops",
        (json_int_t)s->ops, "errors", 0, "expected_ops", (json_int_t)s->ops, "wall_seconds",
        s->wall, "aops", (double)s->ops / s->wall);
    json_object_set_new(
        r, "workloads",
        json_pack(
            "{s:{s:I, s:i, s:I, s:{s:{s:I, s:i, s:I}, s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}}}}",
            "s3", "ops", (json_int_t)s->ops, "errors", 0, "bytes", (json_int_t)s->bytes, "classes",
            "1MiB", "ops", (json_int_t)s->ops, "errors", 0, "bytes", (json_int_t)s->bytes, "10MiB",
            "ops", 0, "errors", 0, "bytes", 0, "50MiB", "ops", 0, "errors", 0, "bytes", 0));
    json_object_set_new(r, "histograms",
                        json_pack("{s:{s:s, s:i, s:i}, s:{s:{s:O, s:o, s:{s:O, s:O, s:O}}}}",
                                  "format", "unit", "ns", "sub_bits", HIST_SUB_BITS, "buckets",
                                  HIST_BUCKETS, "workloads", "s3", "latency_ms", s->lat, "ttfb_ms",
                                  s->ttfb, "classes", "1MiB", s->lat, "10MiB", empty, "50MiB",
                                  empty));
    json_decref(s->lat);
    json_decref(empty);
    json_object_set_new(r, "containers",
                        json_pack("[{s:i, s:I}]", "id", (int)s->index, "ops", (json_int_t)s->ops));
    json_object_set_new(
        r, "windows", json_pack("{s:{s:f, s:f}}", "s3", "start", s->win_start, "end", s->win_end));
    json_object_set_new(
        r, "telemetry",
        json_pack("{s:{s:f, s:f}, s:{s:f}, s:{s:f}, s:o, s:o}", "cpu_util", "mean", 50.0, "peak",
                  90.0, "read_Bps", "mean", 1000.0, "read_iops", "mean", 10.0, "power",
                  json_pack("[{s:s, s:o, s:o}]", "scope", "package", "mean_w",
                            isnan(s->watts) ? json_null() : json_real(s->watts), "reason",
                            isnan(s->watts) ? json_string("no RAPL here") : json_null()),
                  "power_unavailable_reason",
                  isnan(s->watts) ? json_string("no RAPL here") : json_null()));
    json_object_set_new(r, "ops_per_second",
                        json_pack("{s:I, s:o}", "start", s->rate_start, "counts", s->rate));
    json_object_set_new(r, "shard",
                        json_pack("{s:i, s:i, s:i, s:s, s:s, s:s, s:I, s:I, s:{s:f, s:f}, s:s}",
                                  "index", (int)s->index, "count", 2, "containers", 1, "host",
                                  s->host, "boot_id", s->boot, "start_at", "T", "start_at_ns",
                                  (json_int_t)T0, "released_at_ns", (json_int_t)s->rel_ns, "clock",
                                  "offset_s", s->offset, "uncertainty_s", 0.002, "config_hash",
                                  "fnv1a64:1"));
    return r;
}

/* Shard A: 100 GETs, 90 of 1 ms and 10 of 10 ms, released at T, 10 s.
 * Shard B: 150 GETs of 2 ms, released 1 ms after T, 12.5 s. */
static json_t *shard_a(void) {
    struct spec a = {0,
                     "a",
                     "boot-a",
                     T0,
                     10.0,
                     2,
                     50.0,
                     0.010,
                     100,
                     1000,
                     hist_of(90, 1 * MS, 10, 10 * MS),
                     hist_of(100, MS / 2, 0, 0),
                     0.1,
                     10.0,
                     1000000000,
                     json_pack("[i, i]", 40, 60)};
    return shard(&a);
}
static json_t *shard_b(void) {
    struct spec b = {1,
                     "b",
                     "boot-b",
                     T0 + 1000000,
                     12.5,
                     4,
                     NAN,
                     0.060,
                     150,
                     3000,
                     hist_of(150, 2 * MS, 0, 0),
                     hist_of(150, 7 * MS / 10, 0, 0),
                     0.05,
                     12.5,
                     1000000000,
                     json_pack("[i, i, i]", 50, 50, 50)};
    return shard(&b);
}

static json_t *merge2(json_t *a, json_t *b) {
    json_t *in[] = {a, b};
    const char *names[] = {"A", "B"};
    json_t *m = merge_results(in, names, b ? 2 : 1);
    json_decref(a);
    json_decref(b);
    return m;
}

/* The midpoint of the bucket holding v, as a percentile reports it. */
static double bucket_mid_ms(uint64_t v) {
    uint64_t lo, hi;
    hist_bucket_range(hist_bucket(v), &lo, &hi);
    return (double)(lo + (hi - lo) / 2) / 1e6;
}

static int near(double a, double b) {
    return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

static void test_arithmetic(void) {
    json_t *m = merge2(shard_a(), shard_b());
    CHECKF(json_is_true(json_object_get(m, "valid")), "two good shards merge valid: %s",
           jstr(m, "invalid_reasons.0"));
    CHECK(jnum(m, "totals.ops") == 250);
    /* On the common clock (server = local + offset): a is released at
     * T + 10 ms, b at T + 1 ms + 60 ms = T + 61 ms and ends 12.5 s later, at
     * T + 12.561 s; from the earliest release: 12.551 s (by the raw release
     * times it would be 12.501 s). */
    CHECKF(near(jnum(m, "totals.wall_seconds"), 12.551), "wall %.9f",
           jnum(m, "totals.wall_seconds"));
    CHECKF(near(jnum(m, "totals.aops"), 250 / 12.551), "aops %.9f", jnum(m, "totals.aops"));
    CHECKF(near(jnum(m, "totals.aops_per_core"), 250 / 12.551 / 6), "2 + 4 cores");
    CHECK(near(jnum(m, "shards.1.clock_offset_applied_s"), 0.06));
    CHECK(jnum(m, "shards.1.aligned_released_at_ns") == (double)(T0 + 61000000));
    CHECK(jnum(m, "system.physical_cores") == 6);
    CHECK(jnum(m, "system.hosts") == 2);
    /* Power: shard b has none, so no sum, and the reason names it. */
    CHECK(json_is_null(jget(m, "telemetry.power.scope=package.mean_w")));
    CHECK(json_is_null(jget(m, "totals.aops_per_watt")));
    CHECK(json_is_null(jget(m, "totals.aops_per_watt_platform"))); /* neither has a wall meter */
    CHECKF(strstr(jstr(m, "telemetry.power.scope=platform.reason"), "no platform power reading"),
           "%s", jstr(m, "telemetry.power.scope=platform.reason"));
    CHECKF(jstr(m, "telemetry.power_unavailable_reason") &&
               strstr(jstr(m, "telemetry.power_unavailable_reason"), "shard 1 (b): no RAPL here"),
           "reason: %s", jstr(m, "telemetry.power_unavailable_reason"));

    /* Latency from the added histograms: 90 x 1 ms, 150 x 2 ms, 10 x 10 ms.
     * The 238th of 250 values (p95) is 2 ms; a max of the shards' p95s
     * would say 10 ms (shard a's). */
    CHECKF(near(jnum(m, "workloads.s3.latency_ms.mean"), (90 * 1 + 150 * 2 + 10 * 10) / 250.0),
           "mean %.9f", jnum(m, "workloads.s3.latency_ms.mean"));
    CHECKF(near(jnum(m, "workloads.s3.latency_ms.p50"), bucket_mid_ms(2 * MS)), "p50 %.6f",
           jnum(m, "workloads.s3.latency_ms.p50"));
    CHECKF(near(jnum(m, "workloads.s3.latency_ms.p95"), bucket_mid_ms(2 * MS)), "p95 %.6f",
           jnum(m, "workloads.s3.latency_ms.p95"));
    CHECKF(near(jnum(m, "workloads.s3.latency_ms.p99"), 10.0), "p99 %.6f (the max clamps it)",
           jnum(m, "workloads.s3.latency_ms.p99"));
    CHECK(near(jnum(m, "workloads.s3.latency_ms.max"), 10.0));
    /* The declared extra histogram and counter, and the classes. */
    CHECKF(near(jnum(m, "workloads.s3.ttfb_ms.mean"), (100 * 0.5 + 150 * 0.7) / 250),
           "ttfb mean %.9f", jnum(m, "workloads.s3.ttfb_ms.mean"));
    CHECK(jnum(m, "workloads.s3.bytes") == 4000);
    CHECK(jnum(m, "workloads.s3.classes.1MiB.ops") == 250);
    CHECK(jnum(m, "workloads.s3.classes.1MiB.bytes") == 4000);
    CHECK(near(jnum(m, "workloads.s3.classes.1MiB.latency_ms.mean"), 1.96));
    CHECK(json_is_null(jget(m, "workloads.s3.classes.50MiB.latency_ms.p50")));
    CHECK(jnum(m, "histograms.workloads.s3.latency_ms.count") == 250);

    /* Windows on the common clock: a starts at T + 0.010 + 0.1 = T + 0.110,
     * b at T + 0.061 + 0.05 = T + 0.111: 0.100 s after the release (T + 10 ms). */
    CHECKF(near(jnum(m, "windows.s3.start"), 0.100), "window start %.9f",
           jnum(m, "windows.s3.start"));
    CHECKF(near(jnum(m, "windows.s3.end"), 12.551), "window end %.9f", jnum(m, "windows.s3.end"));
    /* Completions per second, lined up: [40, 60] + [50, 50, 50]. */
    CHECK(jnum(m, "ops_per_second.start") == 1000000000);
    CHECK(jnum(m, "ops_per_second.counts.0") == 90 && jnum(m, "ops_per_second.counts.1") == 110 &&
          jnum(m, "ops_per_second.counts.2") == 50);
    /* The per-host table and the fleet's containers. */
    CHECK(json_array_size(json_object_get(m, "shards")) == 2);
    CHECK(!strcmp(jstr(m, "shards.1.host"), "b") && jnum(m, "shards.1.ops") == 150);
    CHECK(near(jnum(m, "shards.1.clock_offset_s"), 0.06));
    CHECK(json_array_size(json_object_get(m, "containers")) == 2 &&
          jnum(m, "containers.1.shard") == 1);
    CHECK(jnum(m, "config.containers") == 2 && jnum(m, "config.shards") == 2);
    CHECK(near(jnum(m, "telemetry.cpu_util.mean"), 50));
    json_decref(m);

    /* Power on both: summed, and AOPS per watt over the sum. */
    json_t *b = shard_b();
    json_object_set_new(json_object_get(b, "telemetry"), "power",
                        json_pack("[{s:s, s:f}, {s:s, s:f}]", "scope", "package", "mean_w", 30.0,
                                  "scope", "platform", "mean_w", 150.0));
    json_t *a = shard_a();
    json_array_append_new(json_object_get(json_object_get(a, "telemetry"), "power"),
                          json_pack("{s:s, s:f}", "scope", "platform", "mean_w", 210.0));
    m = merge2(a, b);
    CHECK(near(jnum(m, "telemetry.power.scope=package.mean_w"), 80));
    CHECK(near(jnum(m, "totals.aops_per_watt"), 250 / 12.551 / 80));
    /* Each scope summed apart, never one into the other. */
    CHECK(near(jnum(m, "telemetry.power.scope=platform.mean_w"), 360));
    CHECK(near(jnum(m, "totals.aops_per_watt_platform"), 250 / 12.551 / 360));
    json_decref(m);

    /* Two shards on one machine (one boot id): its cores count once. */
    b = shard_b();
    json_object_set_new(json_object_get(b, "shard"), "boot_id", json_string("boot-a"));
    m = merge2(shard_a(), b);
    CHECK(jnum(m, "system.hosts") == 1);
    CHECKF(near(jnum(m, "totals.aops_per_core"), 250 / 12.551 / 2), "cores of one machine");
    json_decref(m);
}

/* A point of a shard's series: t, cpu_util, read_Bps, and s3 ops. */
static json_t *pt(double t, double cpu, double rbps, int ops) {
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:n, s:{s:{s:i, s:i}}}", "t", t, "cpu_util",
                     cpu, "read_Bps", rbps, "read_iops", 1.0, "write_Bps", 0.0, "write_iops", 0.0,
                     "power_w", "workloads", "s3", "ops", ops, "bytes", 0);
}

/* The fleet's series, worked out by hand. Shard a: 2 logical CPUs, 100 %
 * busy, its disk reading 1000 B/s during its first half second. Shard b:
 * 126 logical CPUs, idle, the same read at the same real time; its clock is
 * 0.5 s behind (offset +0.5 s), so by its own clock it was released 0.5 s
 * before a. */
static void test_fleet(void) {
    json_t *a = shard_a(), *b = shard_b();
    json_t *ser_a = json_array(), *ser_b = json_array();
    for (int k = 1; k <= 4; k++) {
        json_array_append_new(ser_a, pt(0.5 * k, 100, k == 1 ? 1000 : 0, 25));
        json_array_append_new(ser_b, pt(0.5 * k, 0, k == 1 ? 1000 : 0, 25));
    }
    json_object_set_new(json_object_get(a, "telemetry"), "series", ser_a);
    json_object_set_new(json_object_get(b, "telemetry"), "series", ser_b);
    json_object_set_new(json_object_get(a, "system"), "logical_cpus", json_integer(2));
    json_object_set_new(json_object_get(b, "system"), "logical_cpus", json_integer(126));
    json_object_set_new(json_object_get(a, "shard"), "released_at_ns", json_integer(T0));
    json_object_set_new(json_object_get(b, "shard"), "released_at_ns",
                        json_integer(T0 - 500000000));
    json_object_set_new(jget(a, "shard.clock"), "offset_s", json_real(0));
    json_object_set_new(jget(b, "shard.clock"), "offset_s", json_real(0.5));
    json_object_set_new(json_object_get(a, "totals"), "wall_seconds", json_real(2.0));
    json_object_set_new(json_object_get(b, "totals"), "wall_seconds", json_real(2.0));
    json_object_set_new(a, "windows",
                        json_pack("{s:{s:f, s:f, s:[{s:i, s:f, s:f}]}}", "s3", "start", 0.1, "end",
                                  0.9, "intervals", "cycle", 1, "start", 0.1, "end", 0.9));
    json_object_set_new(b, "windows",
                        json_pack("{s:{s:f, s:f, s:[{s:i, s:f, s:f}]}}", "s3", "start", 0.2, "end",
                                  1.0, "intervals", "cycle", 1, "start", 0.2, "end", 1.0));
    json_object_set_new(a, "containers",
                        json_pack("[{s:i, s:i, s:f}]", "id", 0, "ops", 100, "seconds", 2.0));
    json_object_set_new(b, "containers",
                        json_pack("[{s:i, s:i, s:f}]", "id", 1, "ops", 150, "seconds", 1.5));
    json_t *m = merge2(a, b);
    /* Both released at T on the common clock, both ended at T + 2 s. */
    CHECKF(near(jnum(m, "totals.wall_seconds"), 2.0), "wall %.9f", jnum(m, "totals.wall_seconds"));
    /* CPU weighted by logical CPUs: (100 x 2 + 0 x 126) / 128 = 1.5625 %, not 50 %. */
    CHECKF(fabs(jnum(m, "telemetry.cpu_util.mean") - 1.5625) < 1e-3, "cpu %.6f",
           jnum(m, "telemetry.cpu_util.mean"));
    /* The peak of the summed series: both read 1000 B/s in the same half
     * second, 2000 B/s; the larger host peak says 1000, and the raw release
     * times (b 0.5 s earlier) would never line the two up. */
    CHECKF(near(jnum(m, "telemetry.read_Bps.peak"), 2000), "read peak %.3f",
           jnum(m, "telemetry.read_Bps.peak"));
    CHECKF(near(jnum(m, "telemetry.read_Bps.mean"), 500), "read mean %.3f (2000 x 0.5 / 2)",
           jnum(m, "telemetry.read_Bps.mean"));
    /* The window on the common clock: [0.1, 1.0]; its read mean is 2000 B/s
     * over (0.1, 0.5] and 0 after: 2000 x 0.4 / 0.9. */
    CHECKF(near(jnum(m, "windows.s3.start"), 0.1) && near(jnum(m, "windows.s3.end"), 1.0),
           "window [%.6f, %.6f]", jnum(m, "windows.s3.start"), jnum(m, "windows.s3.end"));
    CHECKF(fabs(jnum(m, "windows.s3.read_Bps.mean") - 2000 * 0.4 / 0.9) < 1e-3, "window read %.6f",
           jnum(m, "windows.s3.read_Bps.mean"));
    CHECKF(fabs(jnum(m, "windows.s3.cpu_util.mean") - 1.5625) < 1e-3, "window cpu %.6f",
           jnum(m, "windows.s3.cpu_util.mean"));
    CHECK(near(jnum(m, "windows.s3.overlap_share"), 0));
    /* Finish times on the common clock: 1.5 and 2.0; median 1.75; the tail
     * (2.0 - 1.75) / 2.0; by 1.75 s: 3.5 of 4 points of 50 operations. */
    CHECK(near(jnum(m, "stragglers.finish.median"), 1.75));
    CHECK(near(jnum(m, "stragglers.tail_share"), 0.125));
    CHECKF(near(jnum(m, "stragglers.ops_at_median"), 175), "ops by the median %.3f",
           jnum(m, "stragglers.ops_at_median"));
    json_decref(m);
}

static void test_rules(void) {
    /* A missing shard. */
    json_t *m = merge2(shard_a(), NULL);
    CHECK(!json_is_true(json_object_get(m, "valid")));
    CHECKF(has(json_object_get(m, "invalid_reasons"), "shard 1 of 2 is missing"), "%s",
           jstr(m, "invalid_reasons.0"));
    json_decref(m);

    /* A duplicated one: counted once, and said. */
    json_t *in[] = {shard_a(), shard_a(), shard_b()};
    const char *names[] = {"A1", "A2", "B"};
    m = merge_results(in, names, 3);
    CHECK(has(json_object_get(m, "invalid_reasons"), "shard 0 of 2 appears 2 times (A1 and A2)"));
    CHECK(jnum(m, "totals.ops") == 250);
    json_decref(m);
    for (int i = 0; i < 3; i++)
        json_decref(in[i]);

    /* Clocks 190 ms apart: a warning; 1.49 s apart: invalid. */
    json_t *b = shard_b();
    json_object_set_new(jget(b, "shard.clock"), "offset_s", json_real(0.2));
    m = merge2(shard_a(), b);
    CHECK(json_is_true(json_object_get(m, "valid")));
    CHECKF(has(json_object_get(m, "warnings"), "clock offsets differ by 0.190 s"), "%s",
           jstr(m, "warnings.0"));
    json_decref(m);
    b = shard_b();
    json_object_set_new(jget(b, "shard.clock"), "offset_s", json_real(1.5));
    m = merge2(shard_a(), b);
    CHECK(!json_is_true(json_object_get(m, "valid")));
    CHECK(has(json_object_get(m, "invalid_reasons"), "clock offsets differ by 1.490 s"));
    json_decref(m);
    /* No offset at all: a warning that the start cannot be checked. */
    b = shard_b();
    json_object_set_new(jget(b, "shard.clock"), "offset_s", json_null());
    m = merge2(shard_a(), b);
    CHECK(has(json_object_get(m, "warnings"), "shard 1 (b) has no clock offset"));
    json_decref(m);

    /* Different configs, versions, start times. */
    b = shard_b();
    json_object_set_new(json_object_get(b, "shard"), "config_hash", json_string("fnv1a64:2"));
    json_object_set_new(json_object_get(b, "system"), "harness_version", json_string("v2"));
    json_object_set_new(json_object_get(b, "shard"), "start_at_ns", json_integer(T0 + 5));
    m = merge2(shard_a(), b);
    CHECK(has(json_object_get(m, "invalid_reasons"), "config differs"));
    CHECK(has(json_object_get(m, "invalid_reasons"), "harness versions differ: shard 1 runs v2"));
    CHECK(has(json_object_get(m, "invalid_reasons"), "different --start-at"));
    json_decref(m);

    /* An invalid shard (one that missed the start) makes the fleet invalid. */
    b = shard_b();
    json_object_set_new(b, "valid", json_false());
    json_array_append_new(json_object_get(b, "invalid_reasons"),
                          json_string("missed start by 2.000 s"));
    m = merge2(shard_a(), b);
    CHECK(has(json_object_get(m, "invalid_reasons"),
              "shard 1 (b) is invalid: missed start by 2.000 s"));
    json_decref(m);

    /* Not a shard; a shard without histograms. */
    json_t *plain = shard_b();
    json_object_del(plain, "shard");
    m = merge2(shard_a(), plain);
    CHECK(has(json_object_get(m, "invalid_reasons"), "B is not a shard's result"));
    json_decref(m);
    b = shard_b();
    json_object_del(b, "histograms");
    m = merge2(shard_a(), b);
    CHECK(has(json_object_get(m, "invalid_reasons"), "carries no usable histogram"));
    CHECK(json_is_null(jget(m, "workloads.s3.latency_ms.p95")));
    json_decref(m);
}

static void test_hist_json(void) {
    struct hist h, back;
    hist_init(&h);
    for (uint64_t v = 1; v < 5000000; v = v * 3 + 7)
        hist_add(&h, v);
    json_t *j = hist_to_json(&h);
    char err[256];
    CHECK(hist_from_json(j, &back, err, sizeof err) == 0);
    CHECK(!memcmp(&h, &back, sizeof h));
    /* Sparse: only the non-empty buckets are written. */
    CHECK(json_array_size(json_object_get(j, "buckets")) < 40);
    json_object_set_new(j, "count", json_integer(999));
    CHECK(hist_from_json(j, &back, err, sizeof err) != 0 && strstr(err, "count says 999"));
    json_decref(j);
}

static void test_times(void) {
    double t;
    CHECK(wall_parse("1767225600", &t) == 0 && t == 1767225600);
    CHECK(wall_parse("1767225600.25", &t) == 0 && t == 1767225600.25);
    CHECK(wall_parse("2026-01-01T00:00:00Z", &t) == 0 && t == 1767225600);
    CHECK(wall_parse("2026-01-01T01:00:00.5+01:00", &t) == 0 && t == 1767225600.5);
    CHECK(wall_parse("2026-01-01 00:00:00z", &t) == 0 && t == 1767225600);
    CHECK(wall_parse("2026-01-01T00:00:00", &t) != 0); /* no offset: not RFC 3339 */
    CHECK(wall_parse("tomorrow", &t) != 0 && wall_parse("", &t) != 0);
    char buf[64];
    wall_format(1767225600.25, buf, sizeof buf);
    CHECK(!strcmp(buf, "2026-01-01T00:00:00.250Z"));
}

/* Shards on different hosts keep their corpus in different places: the
 * host keys the workloads declare stay out of the hash, what was searched
 * does not. */
static void test_config_hash(void) {
    const char *fmt = "{s:i, s:{s:s, s:s, s:{s:i}}, s:{s:s}}";
    json_t *a = json_pack(fmt, "containers", 2, "corpus", "dir", "/a/tiny", "patterns", "/a/p",
                          "manifest", "files", 10, "cgroups", "root", "/x");
    json_t *b = json_pack(fmt, "containers", 2, "corpus", "dir", "/b/tiny", "patterns", "/b/p",
                          "manifest", "files", 10, "cgroups", "root", "/y");
    json_t *c = json_pack(fmt, "containers", 2, "corpus", "dir", "/a/tiny", "patterns", "/a/p",
                          "manifest", "files", 11, "cgroups", "root", "/x");
    char ha[64], hb[64], hc[64];
    config_hash(a, ha, sizeof ha);
    config_hash(b, hb, sizeof hb);
    config_hash(c, hc, sizeof hc);
    CHECK(strcmp(ha, hb) == 0);
    CHECK(strcmp(ha, hc) != 0);
    CHECK(json_object_get(json_object_get(a, "corpus"), "dir") !=
          NULL); /* the caller's config untouched */
    json_decref(a);
    json_decref(b);
    json_decref(c);
}

/* Shard x made paced: service times (n ops of svc ns, all of class 1MiB),
 * the pacer with late1 of its operations more than 1 ms late (lateness
 * n_fast of fast ns and the rest of slow ns), queued of them found every
 * slot busy. */
static json_t *paced(json_t *x, uint64_t n, uint64_t svc, uint64_t late1, uint64_t fast,
                     uint64_t slow, uint64_t queued) {
    json_t *hw = jget(x, "histograms.workloads.s3");
    json_object_set_new(hw, "service_ms", hist_of(n, svc, 0, 0));
    json_object_set_new(hw, "service_classes",
                        json_pack("{s:o, s:o, s:o}", "1MiB", hist_of(n, svc, 0, 0), "10MiB",
                                  hist_of(0, 0, 0, 0), "50MiB", hist_of(0, 0, 0, 0)));
    json_object_set_new(json_object_get(x, "histograms"), "pacer",
                        json_pack("{s:o}", "lateness_ms", hist_of(n - late1, fast, late1, slow)));
    json_object_set_new(x, "pacer",
                        json_pack("{s:s, s:f, s:f, s:i, s:n, s:I, s:f, s:f}", "arrival", "poisson",
                                  "rate_per_s", 10.0, "offered_ops_per_s", 10.0, "concurrency", 4,
                                  "think_time", "operations", (json_int_t)n, "late_over_1ms_share",
                                  (double)late1 / (double)n, "queued_share",
                                  (double)queued / (double)n));
    return x;
}

/* A: 100 operations, 5 of them sent 3 ms late (the rest 0.1 ms), 7 queued,
 * served in 0.5 ms; B: 150 sent 0.2 ms late, none queued, served in 1.5 ms.
 * The fleet: 250 operations, 5 late (2 %: past the 1 % warning, under the
 * 10 % bound), 7 queued (2.8 %); lateness mean (95 x 0.1 + 150 x 0.2 +
 * 5 x 3) / 250 = 0.218 ms and p99 (the 248th value) 3 ms; service mean
 * (100 x 0.5 + 150 x 1.5) / 250 = 1.1 ms and p50 (the 125th) 1.5 ms; offered
 * 10 a second on each of the 2 containers. */
static void test_paced(void) {
    json_t *m = merge2(paced(shard_a(), 100, MS / 2, 5, MS / 10, 3 * MS, 7),
                       paced(shard_b(), 150, 3 * MS / 2, 0, MS / 5, MS, 0));
    CHECKF(json_is_true(json_object_get(m, "valid")), "valid: %s", jstr(m, "invalid_reasons.0"));
    CHECK(jnum(m, "pacer.operations") == 250);
    CHECKF(near(jnum(m, "pacer.late_over_1ms_share"), 0.02), "late share %.9f",
           jnum(m, "pacer.late_over_1ms_share"));
    CHECKF(near(jnum(m, "pacer.queued_share"), 0.028), "queued share %.9f",
           jnum(m, "pacer.queued_share"));
    CHECKF(near(jnum(m, "pacer.lateness_ms.mean"), 0.218), "lateness mean %.9f",
           jnum(m, "pacer.lateness_ms.mean"));
    CHECK(near(jnum(m, "pacer.lateness_ms.p99"), bucket_mid_ms(3 * MS)));
    CHECK(near(jnum(m, "pacer.offered_ops_per_s"), 20));
    CHECK(jnum(m, "pacer.concurrency") == 4);
    CHECK(has(json_object_get(m, "warnings"), "the pacer fell behind: 2.0 %"));
    CHECKF(near(jnum(m, "workloads.s3.service_ms.mean"), 1.1), "service mean %.9f",
           jnum(m, "workloads.s3.service_ms.mean"));
    CHECK(near(jnum(m, "workloads.s3.service_ms.p50"), bucket_mid_ms(3 * MS / 2)));
    CHECK(near(jnum(m, "workloads.s3.classes.1MiB.service_ms.mean"), 1.1));
    CHECK(json_is_null(jget(m, "workloads.s3.classes.10MiB.service_ms.p50"))); /* none ran */
    CHECK(jnum(m, "histograms.pacer.lateness_ms.count") == 250);
    CHECK(jnum(m, "histograms.workloads.s3.service_classes.1MiB.count") == 250);
    json_decref(m);
    /* A shard from a build without the lateness histogram: the rest merges,
     * the lateness figures are null and a warning says why. */
    json_t *b = paced(shard_b(), 150, 3 * MS / 2, 0, MS / 5, MS, 0);
    json_object_del(json_object_get(b, "histograms"), "pacer");
    m = merge2(paced(shard_a(), 100, MS / 2, 5, MS / 10, 3 * MS, 7), b);
    CHECK(json_is_null(jget(m, "pacer.lateness_ms.p99")));
    CHECK(jnum(m, "pacer.operations") == 250 && near(jnum(m, "pacer.late_over_1ms_share"), 0.02));
    CHECK(has(json_object_get(m, "warnings"), "no lateness histogram"));
    CHECK(near(jnum(m, "workloads.s3.service_ms.mean"), 1.1));
    json_decref(m);
    /* A closed-loop fleet has no pacer and no service times. */
    m = merge2(shard_a(), shard_b());
    CHECK(!json_object_get(m, "pacer") && !jget(m, "workloads.s3.service_ms"));
    json_decref(m);
}

/* The sections below the top level carry every key a single run has
 * (issue 37): a value every shard agrees on or that sums honestly, else null
 * with its reason. Worked out by hand from the two shards. */
static void test_sections(void) {
    json_t *a = shard_a(), *b = shard_b();
    json_t *sa = json_object_get(a, "system"), *sb = json_object_get(b, "system");
    json_object_set_new(sa, "smt", json_string("off"));
    json_object_set_new(sb, "smt", json_string("off"));
    json_object_set_new(sa, "l2_bytes", json_integer(1 << 20));
    json_object_set_new(sb, "l2_bytes", json_integer(2 << 20));
    json_object_set_new(sa, "memory_dimms", json_pack("{s:i}", "count", 4));
    json_object_set_new(sa, "memory_dimms_unavailable", json_null());
    json_object_set_new(sb, "memory_dimms", json_pack("{s:i}", "count", 8));
    json_object_set_new(sb, "memory_dimms_unavailable", json_null());
    json_t *ta = json_object_get(a, "telemetry"), *tb = json_object_get(b, "telemetry");
    json_object_set_new(ta, "devices",
                        json_pack("[{s:s, s:i, s:i}]", "name", "vda", "major", 254, "minor", 0));
    json_object_set_new(
        tb, "devices", json_pack("[{s:s, s:i, s:i}]", "name", "nvme0n1", "major", 259, "minor", 0));
    json_object_set_new(ta, "baseline_read_Bps", json_real(1e9));
    json_object_set_new(tb, "baseline_read_Bps", json_real(2e9));
    json_object_set_new(
        a, "config",
        json_pack("{s:i, s:s, s:s}", "containers", 1, "profile", "tiny", "cache", "asis"));
    json_object_set_new(b, "config", json_deep_copy(json_object_get(a, "config")));
    json_t *m = merge2(json_deep_copy(a), json_deep_copy(b));
    /* system: the same on both is kept, a difference is null and named */
    CHECK(jstr(m, "system.smt") && !strcmp(jstr(m, "system.smt"), "off"));
    CHECK(json_is_null(jget(m, "system.l2_bytes")) && json_is_null(jget(m, "system.memory_dimms")));
    json_t *want = json_pack("[s, s]", "l2_bytes", "memory_dimms");
    CHECK(json_equal(jget(m, "system.shards_differ"), want));
    json_decref(want);
    CHECK(jstr(m, "system.memory_dimms_unavailable") != NULL);
    /* telemetry: each machine's devices naming its host; the baselines summed */
    CHECK(json_array_size(jget(m, "telemetry.devices")) == 2);
    CHECK(!strcmp(jstr(m, "telemetry.devices.1.host"), "b") &&
          !strcmp(jstr(m, "telemetry.devices.1.name"), "nvme0n1"));
    CHECK(near(jnum(m, "telemetry.baseline_read_Bps"), 3e9));
    /* storage: the cache and the memory (summed, as system's); the data set
     * is each host's, null with why */
    CHECK(!strcmp(jstr(m, "storage.cache"), "asis"));
    CHECK(jnum(m, "storage.memory_bytes") == 2.0 * (1 << 30));
    CHECK(json_is_null(jget(m, "storage.dataset_bytes")) && jstr(m, "storage.dataset_reason"));
    CHECK(json_is_null(jget(m, "storage.dataset_to_memory")));
    json_decref(m);
    /* a host without a baseline: no sum, and the reason names it */
    json_object_del(tb, "baseline_read_Bps");
    json_object_set_new(tb, "baseline_unavailable_reason", json_string("no fio here"));
    m = merge2(a, b);
    CHECK(json_is_null(jget(m, "telemetry.baseline_read_Bps")) &&
          json_is_null(jget(m, "telemetry.read_pct_of_baseline")));
    CHECKF(jstr(m, "telemetry.baseline_unavailable_reason") &&
               strstr(jstr(m, "telemetry.baseline_unavailable_reason"), "shard 1 (b): no fio here"),
           "%s", jstr(m, "telemetry.baseline_unavailable_reason"));
    json_decref(m);
}

int main(void) {
    test_sections();
    test_fleet();
    test_config_hash();
    test_arithmetic();
    test_paced();
    test_rules();
    test_hist_json();
    test_times();
    return unit_done("test_merge");
}
