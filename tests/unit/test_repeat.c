/* test_repeat.c -- the numbers of a repeated job without running one: the
 * median run (the lower one for an even count, ties to the earlier run),
 * min, max and CV against values worked out by hand; the combined result
 * is the median run's whole result plus repeats{}, with the other runs'
 * reasons and the unstable warning only from 3 runs up; the trend rule (a
 * steady rise, a one-step drop, a small change, a gap) and its warning on
 * stdout; the "within noise"
 * rule of compare; the summary line; and the sampler's per-interval
 * counters summing exactly to the last reading. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/json.h"
#include "../../coordinator/cmdline.h"
#include "../../result/repeat.h"
#include "../../result/summary.h"
#include "../../telemetry/telemetry.h"
#include "unit.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) < (eps))

static void test_stats(void) {
    struct repeat_stats st;
    /* The small runs: 230, 212, 199. Mean 213.667, sample SD
     * sqrt(((16.333)^2 + (1.667)^2 + (14.667)^2) / 2) = 15.567, CV 7.286 %. */
    double a[] = {230, 212, 199};
    CHECK(repeat_stats(a, 3, &st) == 0);
    CHECK(st.n == 3 && st.median == 1 && st.median_v == 212 && st.min == 199 && st.max == 230);
    CHECKF(NEAR(st.cv, 7.2857, 1e-3), "cv %g", st.cv);

    /* Even count: the lower of the two middle runs, a run that happened. */
    double b[] = {10, 40, 20, 30};
    CHECK(repeat_stats(b, 4, &st) == 0 && st.median == 2 && st.median_v == 20);

    /* Ties go to the earlier run; a run without AOPS is left out. */
    double c[] = {NAN, 6, 5, 6, 9}; /* sorted 5, 6 (run 2), 6 (run 4), 9 */
    CHECK(repeat_stats(c, 5, &st) == 0 && st.n == 4 && st.median == 1 && st.min == 5 &&
          st.max == 9);

    double one[] = {3};
    CHECK(repeat_stats(one, 1, &st) == 0 && st.median == 0 && isnan(st.cv));
    double none[] = {NAN, NAN};
    CHECK(repeat_stats(none, 2, &st) == -1);
    double eq[] = {4, 4, 4};
    CHECK(repeat_stats(eq, 3, &st) == 0 && st.cv == 0);
}

static json_t *run(double aops, const char *reason, const char *warning) {
    json_t *r = json_pack("{s:b, s:[], s:[], s:{s:f, s:f}, s:{s:i}}", "valid", reason == NULL,
                          "invalid_reasons", "warnings", "totals", "aops", aops, "aops_per_core",
                          aops / 4, "config", "containers", 2);
    if (reason)
        json_array_append_new(json_object_get(r, "invalid_reasons"), json_string(reason));
    if (warning)
        json_array_append_new(json_object_get(r, "warnings"), json_string(warning));
    return r;
}

static const char *const dirs[] = {"runs/1", "runs/2", "runs/3", "runs/4", "runs/5", "runs/6"};

static int has(const json_t *arr, const char *needle) {
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        if (strstr(json_string_value(v), needle))
            return 1;
    }
    return 0;
}

static void test_combine(void) {
    json_t *runs[3] = {run(230, NULL, "w"), run(199.5, NULL, "w"), run(212, NULL, "w")};
    json_t *res = repeat_combine(runs, dirs, 3, 3, 5);
    CHECK(res != NULL);
    CHECK(jnum(res, "totals.aops") == 212 && jnum(res, "totals.aops_per_core") == 53);
    CHECK(jnum(res, "repeats.n") == 3 && jnum(res, "repeats.median_run") == 3);
    CHECK(jnum(res, "repeats.aops_median") == 212 && jnum(res, "repeats.aops_min") == 199.5 &&
          jnum(res, "repeats.aops_max") == 230);
    CHECK(jnum(res, "repeats.aops.1") == 199.5 && !strcmp(jstr(res, "repeats.runs.2"), "runs/3"));
    CHECK(json_is_true(json_object_get(res, "valid")));
    /* The same warning in every run is said once, not as "run i: w". */
    CHECK(json_array_size(json_object_get(res, "warnings")) == 2);
    CHECK(has(json_object_get(res, "warnings"), "unstable: AOPS CV 7.2 % over 3 runs"));
    char line[160];
    CHECK(repeat_headline(res, line, sizeof line) == 0);
    CHECKF(!strcmp(line, "AOPS 212.0 (median of 3; min 199.5, max 230.0, CV 7.2 %)"), "%s", line);
    json_decref(res);

    /* --max-cv above the spread: no warning. Two runs: never unstable. */
    res = repeat_combine(runs, dirs, 3, 3, 8);
    CHECK(!has(json_object_get(res, "warnings"), "unstable"));
    json_decref(res);
    res = repeat_combine(runs, dirs, 2, 2, 1);
    CHECK(!has(json_object_get(res, "warnings"), "unstable"));
    CHECK(jnum(res, "repeats.median_run") == 2); /* lower of 230 and 199.5 */
    json_decref(res);

    /* Another run's reason makes the whole invalid, named by its run; a
     * run that left nothing, and runs never made, are reasons too. */
    json_decref(runs[0]);
    runs[0] = run(230, "3 operations failed", NULL);
    json_t *four[4] = {runs[0], runs[1], runs[2], NULL};
    res = repeat_combine(four, dirs, 4, 5, 5);
    CHECK(!json_is_true(json_object_get(res, "valid")));
    CHECK(has(json_object_get(res, "invalid_reasons"), "run 1: 3 operations failed"));
    CHECK(has(json_object_get(res, "invalid_reasons"), "run 4 of 5 left no result"));
    CHECK(has(json_object_get(res, "invalid_reasons"), "only 4 of 5 runs were made"));
    CHECK(jnum(res, "repeats.n") == 4 && json_is_null(jget(res, "repeats.aops.3")));
    json_decref(res);
    json_t *empty[2] = {NULL, NULL};
    CHECK(repeat_combine(empty, dirs, 2, 2, 5) == NULL);
    for (int i = 0; i < 3; i++)
        json_decref(runs[i]);
}

/* repeats.trend for the AOPS in a[0..n) (NAN: a run with no AOPS), with
 * --max-cv 5; the combined result, freed by the caller. */
static json_t *trend_of(const double *a, unsigned n) {
    json_t *runs[6];
    for (unsigned i = 0; i < n; i++) {
        runs[i] = run(isfinite(a[i]) ? a[i] : 0, NULL, NULL);
        if (!isfinite(a[i]))
            json_object_set_new(json_object_get(runs[i], "totals"), "aops", json_null());
    }
    json_t *res = repeat_combine(runs, dirs, n, n, 5);
    for (unsigned i = 0; i < n; i++)
        json_decref(runs[i]);
    return res;
}

/* The trend rule of repeat.c, each case worked by hand. */
static void test_trend(void) {
    /* The full-profile runs of issue 40: steps +5.2, +8.0, both up; the line
     * through 26.2 and 39.4 gives 32.8 for run 2, 31.4 is 1.4 from it, under
     * a quarter of the change (13.2 / 4 = 3.3); (39.4 - 26.2) / 26.2 * 100 =
     * 50.38 % > 5. */
    double warm[] = {26.2, 31.4, 39.4};
    json_t *res = trend_of(warm, 3);
    CHECKF(!strcmp(jstr(res, "repeats.trend.direction") ?: "", "rising"), "%s",
           jstr(res, "repeats.trend.reason") ?: "-");
    CHECKF(NEAR(jnum(res, "repeats.trend.change_pct"), 50.38, 0.01), "%g",
           jnum(res, "repeats.trend.change_pct"));
    CHECK(jnum(res, "repeats.trend.runs") == 3 && json_is_null(jget(res, "repeats.trend.reason")));
    const json_t *w = json_object_get(res, "warnings");
    CHECK(has(w, "the runs rise monotonically (26.2 -> 31.4 -> 39.4 AOPS, +50.4 % over 3 runs)"));
    CHECK(has(w, "add --warmup-cycles 1 (or more)"));
    CHECK(has(w, "unstable: AOPS CV")); /* the CV bound still says its own: 20.6 % */
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    results_print_summary(res, "dir", f);
    fclose(f);
    CHECKF(strstr(out, "  warning: the runs rise monotonically") != NULL, "%s", out);
    free(out);
    json_decref(res);

    /* Down each time, but mostly in one step: the line gives 40.05 for run
     * 2, 41.2 is 1.15 from it, more than 4.1 / 4 = 1.025: no trend. */
    double step[] = {42.1, 41.2, 38.0};
    res = trend_of(step, 3);
    CHECK(json_is_null(jget(res, "repeats.trend.direction")));
    CHECKF(strstr(jstr(res, "repeats.trend.reason") ?: "", "not steady: run 2") != NULL, "%s",
           jstr(res, "repeats.trend.reason") ?: "-");
    CHECKF(NEAR(jnum(res, "repeats.trend.change_pct"), -9.74, 0.01), "%g", /* -4.1 / 42.1 */
           jnum(res, "repeats.trend.change_pct"));
    CHECK(!has(json_object_get(res, "warnings"), "monotonically"));
    json_decref(res);

    /* Down steadily: 40.0 is 0.05 from 40.05; -9.74 %. */
    double hot[] = {42.1, 40.0, 38.0};
    res = trend_of(hot, 3);
    CHECK(!strcmp(jstr(res, "repeats.trend.direction") ?: "", "falling"));
    w = json_object_get(res, "warnings");
    CHECK(has(w, "the runs fall monotonically (42.1 -> 40.0 -> 38.0 AOPS, -9.7 % over 3 runs)"));
    CHECK(has(w, "thermal") && !has(w, "--warmup-cycles"));
    json_decref(res);

    /* Up, then down: not monotonic. */
    double flat[] = {40, 42, 41};
    res = trend_of(flat, 3);
    CHECK(json_is_null(jget(res, "repeats.trend.direction")));
    CHECK(strstr(jstr(res, "repeats.trend.reason") ?: "", "not strictly monotonic: run 2 42.0, "
                                                          "run 3 41.0") != NULL);
    CHECK(!has(json_object_get(res, "warnings"), "monotonically"));
    json_decref(res);

    /* Steady but small: +2 % is within --max-cv 5 %. */
    double small[] = {200, 202, 204};
    res = trend_of(small, 3);
    CHECK(json_is_null(jget(res, "repeats.trend.direction")));
    CHECK(strstr(jstr(res, "repeats.trend.reason") ?: "", "within --max-cv 5 %") != NULL);
    json_decref(res);

    /* Four runs: the line through 10 and 14 gives 11.33 and 12.67; 11.0 is
     * 1.67 from the second, not under 4 / 4 = 1. With 13 instead: 0.33 from
     * each, a trend of +40 %. */
    double four[] = {10, 10.5, 11, 14}, four2[] = {10, 11, 13, 14};
    res = trend_of(four, 4);
    CHECKF(strstr(jstr(res, "repeats.trend.reason") ?: "", "not steady: run 3") != NULL, "%s",
           jstr(res, "repeats.trend.reason") ?: "-");
    json_decref(res);
    res = trend_of(four2, 4);
    CHECK(!strcmp(jstr(res, "repeats.trend.direction") ?: "", "rising") &&
          NEAR(jnum(res, "repeats.trend.change_pct"), 40, 1e-9));
    json_decref(res);

    /* Six runs, one AOPS more each: on the line; +50 %; the warning names
     * the first two and the last. */
    double six[] = {10, 11, 12, 13, 14, 15};
    res = trend_of(six, 6);
    CHECK(has(json_object_get(res, "warnings"),
              "(10.0 -> 11.0 -> ... -> 15.0 AOPS, +50.0 % over 6 runs)"));
    json_decref(res);

    /* Two runs: no trend, and why; the change is still given. */
    res = trend_of(warm, 2);
    CHECK(json_is_null(jget(res, "repeats.trend.direction")) &&
          jnum(res, "repeats.trend.runs") == 2);
    CHECK(strstr(jstr(res, "repeats.trend.reason") ?: "", "a trend needs 3") != NULL);
    CHECK(NEAR(jnum(res, "repeats.trend.change_pct"), 19.85, 0.01)); /* 5.2 / 26.2 */
    json_decref(res);

    /* A run with no AOPS is left out: the other three still rise. With two
     * left, none; with none left, no change either. */
    double gap[] = {26.2, NAN, 31.4, 39.4}, gap2[] = {26.2, NAN, 39.4}, gone[] = {NAN, NAN, NAN};
    res = trend_of(gap, 4);
    CHECK(!strcmp(jstr(res, "repeats.trend.direction") ?: "", "rising") &&
          jnum(res, "repeats.trend.runs") == 3);
    json_decref(res);
    res = trend_of(gap2, 3);
    CHECK(json_is_null(jget(res, "repeats.trend.direction")) &&
          strstr(jstr(res, "repeats.trend.reason") ?: "", "2 run(s) with an AOPS") != NULL);
    json_decref(res);
    res = trend_of(gone, 3);
    CHECK(json_is_null(jget(res, "repeats.trend.direction")) &&
          json_is_null(jget(res, "repeats.trend.change_pct")) &&
          jnum(res, "repeats.trend.runs") == 0);
    json_decref(res);
}

/* A result with AOPS v and, when lo < hi, repeats over [lo, hi]. */
static json_t *spread(double v, double lo, double hi) {
    json_t *r = json_pack("{s:{s:f, s:f}}", "totals", "aops", v, "aops_per_core", v / 8);
    if (lo < hi)
        json_object_set_new(r, "repeats",
                            json_pack("{s:i, s:f, s:f, s:f}", "n", 3, "aops_median", v, "aops_min",
                                      lo, "aops_max", hi));
    return r;
}

static void test_noise(void) {
    json_t *a = spread(200, 190, 215), *b = spread(210, 205, 220), *c = spread(260, 250, 270),
           *one = spread(212, 0, 0), *far = spread(300, 0, 0), *one2 = spread(205, 0, 0);
    CHECK(repeat_within_noise(a, b, "totals.aops") == 1);   /* 205 <= 215: overlap */
    CHECK(repeat_within_noise(a, c, "totals.aops") == 0);   /* 250 > 215 */
    CHECK(repeat_within_noise(a, one, "totals.aops") == 1); /* a single run inside a's range */
    CHECK(repeat_within_noise(a, far, "totals.aops") == 0);
    CHECK(repeat_within_noise(one, one2, "totals.aops") == -1); /* no spread known */
    CHECK(repeat_within_noise(a, b, "totals.aops_per_core") == 1);
    CHECK(repeat_within_noise(a, b, "totals.aops_per_watt") == -1);
    double lo, hi;
    CHECK(repeat_range(a, "totals.aops_per_core", &lo, &hi) == 1 && lo == 190.0 / 8 &&
          hi == 215.0 / 8);
    CHECK(repeat_range(one, "totals.aops", &lo, &hi) == 0 && lo == 212 && hi == 212);
    CHECK(repeat_range(one, "totals.nothing", &lo, &hi) == -1);
    json_decref(a), json_decref(b), json_decref(c), json_decref(one), json_decref(far),
        json_decref(one2);
}

/* The sampler's counters: each point holds the increase over its interval,
 * the rate divides by the interval, and the increases sum to the total. */
static uint64_t fake[3];
static void read_fake(void *ctx, uint64_t *vals) {
    (void)ctx;
    memcpy(vals, fake, sizeof fake);
}

static void test_counters(void) {
    struct config c;
    memset(&c, 0, sizeof c);
    char err[256];
    CHECKF(options_load_env(&c, err, sizeof err) == 0, "%s", err);
    snprintf(c.sysroot, sizeof c.sysroot, "/");
    struct telemetry *t = telemetry_new(&c);
    const struct tel_counter cols[3] = {{"w1", "ops", 1}, {"w1", "errors", 0}, {"w2", "bytes", 1}};
    telemetry_counters(t, "workloads", cols, 3, read_fake, NULL);
    const int64_t S = 1000000000LL;
    fake[0] = 7; /* what was there at release is not an increase */
    telemetry_begin(t, 10 * S);
    uint64_t step[4][3] = {{10, 0, 1000}, {25, 1, 3000}, {25, 1, 3000}, {40, 2, 9000}};
    const int64_t at[4] = {11 * S, 12 * S, 13 * S, 14 * S + S / 2}; /* the last 1.5 s */
    for (int i = 0; i < 4; i++) {
        fake[0] = 7 + step[i][0], fake[1] = step[i][1], fake[2] = step[i][2];
        telemetry_sample(t, at[i]);
    }
    json_t *j = telemetry_json(t);
    json_t *s = json_object_get(j, "series");
    CHECK(json_array_size(s) == 4);
    CHECK(jnum(s, "0.workloads.w1.ops") == 10 && jnum(s, "0.workloads.w1.ops_per_s") == 10);
    CHECK(jnum(s, "1.workloads.w1.ops") == 15 && jnum(s, "1.workloads.w2.bytes_per_s") == 2000);
    CHECK(jnum(s, "2.workloads.w1.ops") == 0 && jnum(s, "2.workloads.w1.errors") == 0);
    CHECK(jnum(s, "3.workloads.w1.ops") == 15 && jnum(s, "3.workloads.w1.ops_per_s") == 10);
    CHECK(jget(s, "0.workloads.w1.errors_per_s") == NULL); /* no rate where none was asked */
    double ops = 0, bytes = 0;
    for (int i = 0; i < 4; i++) {
        char k[64];
        snprintf(k, sizeof k, "%d.workloads.w1.ops", i);
        ops += jnum(s, k);
        snprintf(k, sizeof k, "%d.workloads.w2.bytes", i);
        bytes += jnum(s, k);
    }
    CHECK(ops == 40 && bytes == 9000);
    json_decref(j);
    telemetry_free(t);
    options_free(&c);
}

/* The line each run of a repeat prints: an invalid run with no AOPS says so,
 * never "AOPS -0.0". */
static void test_run_line(void) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_t *bad = json_pack("{s:b, s:{s:n}, s:[s]}", "valid", 0, "totals", "aops",
                            "invalid_reasons", "stall: no operation completed");
    json_t *good =
        json_pack("{s:b, s:{s:f}, s:[]}", "valid", 1, "totals", "aops", 812.345, "invalid_reasons");
    repeat_print_run(bad, 2, 3, f);
    repeat_print_run(good, 3, 3, f);
    fclose(f);
    CHECKF(strstr(buf, "run 2 of 3: AOPS - (not measured), not valid: stall") != NULL, "%s", buf);
    CHECKF(strstr(buf, "-0.0") == NULL, "%s", buf);
    CHECKF(strstr(buf, "run 3 of 3: AOPS 812.3, valid\n") != NULL, "%s", buf);
    free(buf);
    json_decref(bad);
    json_decref(good);
}

/* A cold first run and level later ones (the full-profile --repeat 3 of
 * issue 40 from dropped caches): 24.6, 37.4, 37.8 AOPS, disks serving 17.3 %
 * of run 1's bytes and none of the later runs'. By hand: the later runs'
 * mean 37.6, their range 0.4 = 1.06 % of it (within --max-cv 5), run 1 12.8
 * under the lowest (more than 5 % of 37.6 = 1.88) and (37.6 - 24.6) / 37.6
 * = 34.57 % below their mean. No trend (run 2 is 6.18 from the line), so
 * the warning names the cold first run. Not when the later runs scatter
 * (38.7, 42.7, 39.3: a range of 10.1 %), nor for the step of 42.1, 41.2,
 * 38.0 (run 1 is the highest). */
/* Three runs of the given AOPS and shares served from disk, warmed up with
 * warmup cycles each (-1: a result without the key), combined: whether the
 * warnings hold want. */
static int cold_warning(const double a[3], const double disk[3], int warmup, const char *want) {
    json_t *runs[3];
    for (int i = 0; i < 3; i++) {
        runs[i] = run(a[i], NULL, NULL);
        json_object_set_new(runs[i], "storage", json_pack("{s:f}", "served_from_disk", disk[i]));
        if (warmup >= 0)
            json_object_set_new(json_object_get(runs[i], "config"), "warmup_cycles",
                                json_integer(warmup));
    }
    json_t *res = repeat_combine(runs, dirs, 3, 3, 5);
    int found = json_is_null(jget(res, "repeats.trend.direction")) &&
                has(json_object_get(res, "warnings"), want);
    json_decref(res);
    for (int i = 0; i < 3; i++)
        json_decref(runs[i]);
    return found;
}

static void test_first_run_cold(void) {
    const double a[3] = {24.6, 37.4, 37.8}, disk[3] = {0.173, 0, 0};
    CHECK(cold_warning(a, disk, -1,
                       "run 1 (24.6 AOPS) is 34.6 % below the later runs (37.4 to 37.8 AOPS), "
                       "which agree within --max-cv 5 %: the first run met cold caches (page "
                       "cache, MariaDB's buffer pool); the disks served 17.3 % of its bytes and at "
                       "most 0.0 % of a later run's; add --warmup-cycles 1 (or more)"));
    /* The same shape with a warm-up already given (--warmup-cycles 1, this
     * machine's full-profile --repeat 3 of 2026-12-06: 38.6, 43.4, 41.5
     * AOPS, the disks serving 0.66 %, 0.01 % and 0 %): the remedy is more
     * warm-up, not the option it had. By hand: the later runs' mean 42.45,
     * their range 1.9 = 4.48 % of it; 41.5 - 38.6 = 2.9 > 2.12; (42.45 -
     * 38.6) / 42.45 = 9.07 % below. */
    const double b[3] = {38.6, 43.4, 41.5}, bdisk[3] = {0.0066, 0.0001, 0};
    CHECK(cold_warning(b, bdisk, 1,
                       "run 1 (38.6 AOPS) is 9.1 % below the later runs (41.5 to 43.4 AOPS), "
                       "which agree within --max-cv 5 %: the first run met cold caches (page "
                       "cache, MariaDB's buffer pool); the disks served 0.7 % of its bytes and at "
                       "most 0.0 % of a later run's; raise --warmup-cycles above 1 (each run "
                       "warmed up with 1)"));
    CHECK(!cold_warning(b, bdisk, 1, "add --warmup-cycles 1"));
    json_t *res;
    const double scatter[3] = {38.7, 42.7, 39.3}, step[3] = {42.1, 41.2, 38.0};
    res = trend_of(scatter, 3);
    CHECK(!has(json_object_get(res, "warnings"), "met cold caches"));
    json_decref(res);
    res = trend_of(step, 3);
    CHECK(!has(json_object_get(res, "warnings"), "met cold caches"));
    json_decref(res);
}

int main(void) {
    test_stats();
    test_run_line();
    test_combine();
    test_first_run_cold();
    test_trend();
    test_noise();
    test_counters();
    return unit_done("test_repeat");
}
