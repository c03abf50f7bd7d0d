/* test_slo.c -- result/slo.c: the SLO parser on good and hostile specs, the
 * names against this build's workloads, and the verdict on histograms
 * filled by hand, whose percentiles are worked out here by hand:
 *
 *   100 values of 1, 2, ..., 100 ms. By nearest rank p99 is the 99th, 99 ms,
 *   and p50 the 50th, 50 ms. The histogram (hist.h) reports the midpoint of
 *   the bucket holding it: 99 ms = 99,000,000 ns lies in [2^26, 2^27), whose
 *   64 buckets are 2^20 ns wide; (99,000,000 - 2^26) / 2^20 = 30.4, so the
 *   bucket is [2^26 + 30 x 2^20, + 2^20) = [98,566,144, 99,614,720) and its
 *   midpoint 99,090,432 ns = 99.090432 ms. 50 ms lies in [2^25, 2^26),
 *   buckets 2^19 wide; (50,000,000 - 2^25) / 2^19 = 31.4: [49,807,360,
 *   50,331,648), midpoint 50,069,504 ns = 50.069504 ms. p100 is the maximum,
 *   100 ms exactly. */
#include <math.h>
#include <string.h>

#include "../../result/hist.h"
#include "../../result/histjson.h"
#include "../../result/slo.h"
#include "../../workloads/workload.h"
#include "unit.h"

static void good(void) {
    struct slo s;
    char err[256] = "";
    CHECKF(slo_parse("s3.p99<=250ms", &s, err, sizeof err) == 0, "%s", err);
    CHECK(s.n == 1 && !strcmp(s.t[0].workload, "s3") && !s.t[0].klass[0]);
    CHECK(s.t[0].q == 0.99 && !strcmp(s.t[0].pct, "p99") && s.t[0].bound_ns == 250000000ULL);
    CHECK(!s.is_default && !strcmp(s.spec, "s3.p99<=250ms"));

    CHECKF(slo_parse(" s3.1MiB.p99.9 <= 1.5s , db.p050<=800us,search.p100<=3s ", &s, err,
                     sizeof err) == 0,
           "%s", err);
    CHECK(s.n == 3);
    CHECK(!strcmp(s.t[0].klass, "1MiB") && fabs(s.t[0].q - 0.999) < 1e-12);
    CHECK(!strcmp(s.t[0].pct, "p99.9") && s.t[0].bound_ns == 1500000000ULL);
    CHECK(!strcmp(s.t[1].pct, "p50") && s.t[1].q == 0.5 && s.t[1].bound_ns == 800000ULL);
    CHECK(s.t[2].q == 1 && !strcmp(s.t[2].pct, "p100"));
    /* spelled out again, it parses to the same terms */
    CHECKF(!strcmp(s.spec, "s3.1MiB.p99.9<=1500ms,db.p50<=800us,search.p100<=3s"), "%s", s.spec);
    struct slo again;
    CHECK(slo_parse(s.spec, &again, err, sizeof err) == 0 && again.n == 3 &&
          !memcmp(again.t, s.t, sizeof s.t[0] * 3));
    CHECKF(slo_parse("s3.p99.990<=2.5us", &s, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(s.t[0].pct, "p99.99") && s.t[0].bound_ns == 2500);

    /* the default: nothing, "", "default" */
    CHECK(slo_parse(NULL, &s, err, sizeof err) == 0 && s.is_default && s.n == 3);
    CHECK(slo_parse("default", &s, err, sizeof err) == 0 && s.is_default);
    CHECK(!strcmp(s.spec, SLO_DEFAULT_SPEC));
    CHECK(slo_check_names(&s, err, sizeof err) == 0);
}

/* spec must be refused with an error holding each of the two strings. */
static void bad1(const char *spec, const char *want, const char *want2) {
    struct slo s;
    char err[256] = "";
    int rc = slo_parse(spec, &s, err, sizeof err);
    CHECKF(rc == -1 && strstr(err, want) && (!want2 || strstr(err, want2)),
           "'%.60s': rc %d, err '%s' (wanted '%s')", spec, rc, err, want);
    CHECK(rc != -1 || s.n == 0);
    for (const char *p = err; *p; p++) /* one line, printable */
        CHECK(*p >= 0x20 && *p < 0x7f);
}

static void hostile(void) {
    bad1("s3.p99<250ms", "term 1 's3.p99<250ms'", "'<='");
    bad1("s3.p99>=250ms", "operator", NULL);
    bad1("s3.p99=250ms", "operator", NULL);
    bad1("s3.p99 250ms", "no '<='", NULL);
    bad1("s3.p99<=250", "no unit", NULL);
    bad1("s3.p99<=250 ms", "unit is not", NULL);
    bad1("s3.p99<=2d", "unit is not", NULL);
    bad1("s3.p99<=1e3ms", "unit is not", NULL);
    bad1("s3.p99<=-1ms", "no bound", NULL);
    bad1("s3.p99<=.5ms", "no bound", NULL);
    bad1("s3.p99<=1.ms", "no digit after the decimal point", NULL);
    bad1("s3.p99<=0ms", "above 0", NULL);
    bad1("s3.p99<=0.0001us", "above 0", NULL);
    bad1("s3.p99<=86401s", "at most a day", NULL);
    bad1("s3.p99<=1234567890123ms", "too many digits", NULL);
    bad1("s3.p99<=1.1234567891s", "too many decimals", NULL);
    bad1("s3.p0<=1ms", "above 0", NULL);
    bad1("s3.p100.1<=1ms", "at most 100", NULL);
    bad1("s3.p1000<=1ms", "too many digits", NULL);
    bad1("s3.p99.1234567<=1ms", "too many decimals", NULL);
    bad1("s3.p99x<=1ms", "not of the form", NULL);
    bad1("s3.p<=1ms", "no percentile after the class", NULL);
    bad1("s3<=1ms", "no percentile", NULL);
    bad1(".p99<=1ms", "no workload name", NULL);
    bad1("s$3.p99<=1ms", "workload name holds", NULL);
    bad1("s3..p99<=1ms", "empty class", NULL);
    bad1("s3.1MiB<=1ms", "no percentile after the class", NULL);
    bad1("s3.1M%B.p99<=1ms", "class name holds", NULL);
    bad1("s3.p99<=1ms<=2ms", "two '<='", NULL);
    bad1("s3.p99<=1ms,,db.p99<=1ms", "term 2", "empty term");
    bad1("s3.p99<=1ms,", "term 2", "empty term");
    bad1(",s3.p99<=1ms", "term 1", "empty term");
    bad1("s3.p99<=1ms,db.p99<=x", "term 2 'db.p99<=x'", "no bound");
    bad1("s3.p99<=1ms,s3.p99.0<=2ms", "term 2", "same percentile");
    bad1("s3.p99<=1ms\x01", "printable", NULL);
    bad1("s3.p99<=1ms\n,db.p99<=1ms", "printable", NULL);
    bad1("s3.p99<=\xc2\xb5s", "printable", NULL);
    bad1("defaults", "no '<='", NULL);
    char many[1024] = "";
    for (int i = 0; i < 17; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%ss3.p%d<=1ms", i ? "," : "",
                 i + 1);
    bad1(many, "term 17", "more than 16");
    static char longer[4096];
    memset(longer, 'a', sizeof longer - 1);
    bad1(longer, "longer than 1023", NULL);
    char name[80];
    memset(name, 'w', 60);
    snprintf(name + 60, sizeof name - 60, ".p99<=1ms");
    bad1(name, "too long", "...");
}

static void names(void) {
    struct slo s;
    char err[256] = "";
    CHECK(slo_parse("nosuch.p99<=1ms", &s, err, sizeof err) == 0);
    CHECK(slo_check_names(&s, err, sizeof err) == -1 && strstr(err, "no workload 'nosuch'") &&
          strstr(err, "s3, db, search"));
    CHECK(slo_parse("s3.p99<=1ms,s3.2MiB.p99<=1ms", &s, err, sizeof err) == 0);
    CHECK(slo_check_names(&s, err, sizeof err) == -1 && strstr(err, "term 2") &&
          strstr(err, "no class '2MiB'") && strstr(err, "1MiB, 10MiB, 50MiB"));
    CHECK(slo_parse("search.fast.p99<=1ms", &s, err, sizeof err) == 0);
    CHECK(slo_check_names(&s, err, sizeof err) == -1 && strstr(err, "it has none"));

    /* a run of --workloads s3: the default keeps its S3 term, an explicit
     * bound on db is refused before anything runs */
    struct config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.wl_mask = 1u << WL_SLOT_s3;
    snprintf(cfg.workloads, sizeof cfg.workloads, "s3");
    snprintf(cfg.slo, sizeof cfg.slo, "default");
    CHECK(slo_from_config(&cfg, &s, err, sizeof err) == 0 && s.n == 1 && s.is_default);
    CHECK(!strcmp(s.spec, "s3.p99<=250ms"));
    snprintf(cfg.slo, sizeof cfg.slo, "s3.p50<=1ms,db.p99<=50ms");
    CHECK(slo_from_config(&cfg, &s, err, sizeof err) == -1 && strstr(err, "term 2") &&
          strstr(err, "does not run workload db"));
    cfg.wl_mask = 1u << WL_SLOT_sleep; /* a test workload: no default bound on it */
    snprintf(cfg.slo, sizeof cfg.slo, "default");
    CHECK(slo_from_config(&cfg, &s, err, sizeof err) == 0 && s.n == 0);
}

/* A result with the histograms and error counts the verdict reads: s3's
 * latency and its 1MiB class, both 1..100 ms, and errors as given. */
static json_t *hand_result(long long errors, long long class_errors) {
    struct hist h;
    hist_init(&h);
    for (int i = 1; i <= 100; i++)
        hist_add(&h, (uint64_t)i * 1000000);
    json_t *hs = json_pack("{s:{s:s, s:i, s:i}, s:{s:{s:o, s:{s:o}}}}", "format", "unit", "ns",
                           "sub_bits", HIST_SUB_BITS, "buckets", HIST_BUCKETS, "workloads", "s3",
                           "latency_ms", hist_to_json(&h), "classes", "1MiB", hist_to_json(&h));
    return json_pack("{s:o, s:{s:{s:I, s:{s:{s:I}}}}}", "histograms", hs, "workloads", "s3",
                     "errors", (json_int_t)errors, "classes", "1MiB", "errors",
                     (json_int_t)class_errors);
}

static const json_t *check_of(const json_t *v, size_t i) {
    return json_array_get(json_object_get(v, "checks"), i);
}

static void verdict(void) {
    struct slo s;
    char err[256] = "";
    json_t *res = hand_result(0, 0);
    CHECKF(slo_parse("s3.p99<=99.1ms,s3.p50<=50.07ms,s3.1MiB.p100<=100ms", &s, err, sizeof err) ==
               0,
           "%s", err);
    json_t *v = slo_verdict(&s, res);
    CHECK(json_is_true(json_object_get(v, "met")));
    CHECK(json_array_size(json_object_get(v, "checks")) == 3);
    CHECKF(fabs(json_number_value(json_object_get(check_of(v, 0), "measured_ms")) - 99.090432) <
               1e-9,
           "p99 %.9f", json_number_value(json_object_get(check_of(v, 0), "measured_ms")));
    CHECK(fabs(json_number_value(json_object_get(check_of(v, 1), "measured_ms")) - 50.069504) <
          1e-9);
    CHECK(json_number_value(json_object_get(check_of(v, 2), "measured_ms")) == 100.0);
    CHECK(!strcmp(json_string_value(json_object_get(check_of(v, 2), "class")), "1MiB"));
    CHECK(json_is_null(json_object_get(check_of(v, 0), "reason")));
    CHECK(!strcmp(json_string_value(json_object_get(v, "source")), "given"));
    json_decref(v);

    /* just below each reported figure: not met, and the verdict says which */
    CHECK(slo_parse("s3.p99<=99.09ms,s3.p50<=50.07ms,s3.1MiB.p100<=99999us", &s, err, sizeof err) ==
          0);
    v = slo_verdict(&s, res);
    CHECK(json_is_false(json_object_get(v, "met")));
    CHECK(json_is_false(json_object_get(check_of(v, 0), "met")));
    CHECK(json_is_true(json_object_get(check_of(v, 1), "met")));
    CHECK(json_is_false(json_object_get(check_of(v, 2), "met")));
    json_decref(v);

    /* far on either side, as the integration test does: 1 us and 1 h */
    CHECK(slo_parse("s3.p50<=1us", &s, err, sizeof err) == 0);
    v = slo_verdict(&s, res);
    CHECK(json_is_false(json_object_get(v, "met")));
    json_decref(v);
    CHECK(slo_parse("s3.p99<=3600s", &s, err, sizeof err) == 0);
    v = slo_verdict(&s, res);
    CHECK(json_is_true(json_object_get(v, "met")));
    json_decref(v);
    json_decref(res);

    /* an error fails the workload's checks, and the class's own errors its check */
    res = hand_result(1, 0);
    CHECK(slo_parse("s3.p99<=3600s,s3.1MiB.p99<=3600s", &s, err, sizeof err) == 0);
    v = slo_verdict(&s, res);
    CHECK(json_is_false(json_object_get(v, "met")));
    CHECK(json_is_false(json_object_get(check_of(v, 0), "met")));
    CHECK(strstr(json_string_value(json_object_get(check_of(v, 0), "reason")), "1 operation "));
    CHECK(json_integer_value(json_object_get(check_of(v, 0), "errors")) == 1);
    CHECK(json_is_true(json_object_get(check_of(v, 1), "met")));
    json_decref(v);
    json_decref(res);
    res = hand_result(3, 3);
    v = slo_verdict(&s, res);
    CHECK(json_is_false(json_object_get(check_of(v, 1), "met")));
    CHECK(strstr(json_string_value(json_object_get(check_of(v, 1), "reason")), "3 operations"));
    json_decref(v);

    /* what the result does not hold is not met, with why; no term: null */
    CHECK(slo_parse("db.p99<=3600s,s3.10MiB.p99<=3600s", &s, err, sizeof err) == 0);
    v = slo_verdict(&s, res);
    CHECK(json_is_false(json_object_get(v, "met")));
    CHECK(strstr(json_string_value(json_object_get(check_of(v, 0), "reason")), "no workload db"));
    CHECK(json_is_null(json_object_get(check_of(v, 0), "measured_ms")));
    CHECK(strstr(json_string_value(json_object_get(check_of(v, 1), "reason")), "no class 10MiB"));
    json_decref(v);
    s.n = 0;
    v = slo_verdict(&s, res);
    CHECK(json_is_null(json_object_get(v, "met")) && json_is_string(json_object_get(v, "reason")));
    json_decref(v);
    /* a histogram whose buckets do not add up to its count */
    json_object_set_new(
        json_object_get(json_object_get(json_object_get(res, "histograms"), "workloads"), "s3"),
        "latency_ms",
        json_pack("{s:i,s:i,s:i,s:i,s:[[i,i]]}", "count", 5, "sum_ns", 10, "min_ns", 1, "max_ns", 3,
                  "buckets", 1, 2));
    json_object_set_new(json_object_get(json_object_get(res, "workloads"), "s3"), "errors",
                        json_integer(0));
    CHECK(slo_parse("s3.p99<=3600s", &s, err, sizeof err) == 0);
    v = slo_verdict(&s, res);
    CHECK(json_is_false(json_object_get(v, "met")));
    CHECK(strstr(json_string_value(json_object_get(check_of(v, 0), "reason")), "its histogram"));
    json_decref(v);
    json_decref(res);
    v = slo_unjudged("s3.p99<=\x01", "it does not parse");
    CHECK(json_is_null(json_object_get(v, "met")) &&
          !strcmp(json_string_value(json_object_get(v, "spec")), "s3.p99<=?"));
    json_decref(v);
}

int main(void) {
    good();
    hostile();
    names();
    verdict();
    return unit_done("test_slo");
}
