/* test_report_figs.c -- unit checks of the figure set and distributions:
 * a percentile curve's marked p99 is hist_quantile's value exactly (the
 * figure result.json holds), paths are shortened in the middle and only
 * paths, nested configuration becomes rows, compare's window table says
 * why a figure is missing, and grouped bars skip a null rather than draw 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_figs.h"
#include "hist.h"
#include "histjson.h"
#include "report_charts.h"
#include "report_kv.h"
#include "report_pctl.h"
#include "unit.h"

/* The data-value written for data-key KEY in s, or NULL. */
static const char *value_of(const char *s, const char *key, char *out, size_t len) {
    char pat[256];
    snprintf(pat, sizeof pat, "data-key=\"%s\" data-value=\"", key);
    const char *p = s ? strstr(s, pat) : NULL;
    if (!p)
        return NULL;
    p += strlen(pat);
    size_t n = strcspn(p, "\"");
    snprintf(out, len, "%.*s", (int)n, p);
    return out;
}

static size_t count(const char *s, const char *needle) {
    size_t n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* Every lead byte followed by as many continuation bytes as it says. */
static int utf8_ok(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = *p < 0x80             ? 0
                : (*p & 0xE0) == 0xC0 ? 1
                : (*p & 0xF0) == 0xE0 ? 2
                : (*p & 0xF8) == 0xF0 ? 3
                                      : -1;
        if (n < 0)
            return 0;
        for (p++; n > 0; n--, p++)
            if ((*p & 0xC0) != 0x80)
                return 0;
    }
    return 1;
}

static void test_curves(void) {
    struct hist *h = malloc(sizeof *h);
    hist_init(h);
    /* A long tail: 990 fast values, 10 slow ones. */
    for (int i = 0; i < 990; i++)
        hist_add(h, 1000000 + (uint64_t)i * 997);
    for (int i = 0; i < 10; i++)
        hist_add(h, 80000000 + (uint64_t)i * 1000003);
    json_t *r = json_pack("{s:{s:{s:s, s:i, s:i}, s:{s:{s:o}}}}", "histograms", "format", "unit",
                          "ns", "sub_bits", HIST_SUB_BITS, "buckets", HIST_BUCKETS, "workloads",
                          "x", "latency_ms", hist_to_json(h));
    struct sbuf b = {0};
    CHECK(report_latency_curves(&b, r) == 0);
    char got[64], want[40];
    CHECK(value_of(b.b.p, "workloads.x.latency_ms.p99", got, sizeof got) != NULL);
    fmt_exact(want, sizeof want, (double)hist_quantile(h, 0.99) / 1e6);
    CHECKF(!strcmp(got, want), "p99 point %s, hist_quantile %s", got, want);
    CHECK(value_of(b.b.p, "workloads.x.latency_ms.p50", got, sizeof got) != NULL);
    fmt_exact(want, sizeof want, (double)hist_quantile(h, 0.5) / 1e6);
    CHECKF(!strcmp(got, want), "p50 point %s, hist_quantile %s", got, want);
    CHECK(strstr(b.b.p, "data-chart=\"pctl-workloads\"") != NULL);
    CHECK(strstr(b.b.p, "data-marks=\"0\"") == NULL);
    sb_free(&b);

    /* compare: a line per run, keyed by run. */
    const json_t *runs[2] = {r, r};
    const char *labels[2] = {"A one", "B two"};
    json_object_set_new(r, "workloads", json_pack("{s:{}}", "x"));
    compare_latency_curves(&b, runs, labels, 2);
    CHECK(value_of(b.b.p, "runs.1.workloads.x.latency_ms.p99", got, sizeof got) != NULL);
    fmt_exact(want, sizeof want, (double)hist_quantile(h, 0.99) / 1e6);
    CHECK(!strcmp(got, want));
    CHECK(count(b.b.p, "<polyline") == 2);
    sb_free(&b);

    /* No histograms (an older build): nothing drawn, the caller says so. */
    json_t *old = json_pack("{s:{}}", "workloads");
    CHECK(report_latency_curves(&b, old) == -1 && b.b.len == 0);
    /* Another bucket layout is not read as this one. */
    json_object_set_new(json_object_get(json_object_get(r, "histograms"), "format"), "sub_bits",
                        json_integer(HIST_SUB_BITS + 1));
    CHECK(report_latency_curves(&b, r) == -1 && b.b.len == 0);
    json_decref(old);
    json_decref(r);
    free(h);
}

static void test_paths(void) {
    char out[128];
    const char *p = "/work/wt-report/.local/stack/mariadb/some/deeper/dir/mysqld.sock";
    CHECK(path_shorten(p, out, sizeof out, 40) == 1);
    CHECKF(strstr(out, "…") && strlen(out) < strlen(p), "%s", out);
    CHECKF(!strncmp(out, "/work/", 6), "keeps the root: %s", out);
    CHECKF(strlen(out) >= 11 && !strcmp(out + strlen(out) - 11, "mysqld.sock"),
           "keeps the file: %s", out);
    CHECK(path_shorten("/short/path", out, sizeof out, 40) == 0 && !strcmp(out, "/short/path"));
    /* Words are wrapped by the page, never cut. */
    const char *words = "cgroup v1 under /sys/fs/cgroup/memory/process_api/726a186137032733eb4df";
    CHECK(path_shorten(words, out, sizeof out, 40) == 0 && !strcmp(out, words));
    /* One very long last component: cut by characters, whole UTF-8 kept. */
    const char *lng = "/a/ééééééééééééééééééééééééééééééééééééééééé.txt";
    CHECK(path_shorten(lng, out, sizeof out, 20) == 1);
    CHECKF(utf8_ok(out), "%s", out);
}

static void test_kv(void) {
    json_t *cfg = json_pack("{s:i, s:{s:{s:I, s:s}}, s:[s,s], s:n, s:s}", "containers", 2, "corpus",
                            "manifest", "bytes", (json_int_t)3390195, "digest", "fnv1a64:98",
                            "workloads", "a", "b", "cpus", "empty", "");
    struct sbuf b = {0};
    kv_table_nested(&b, cfg, "config", "config", NULL);
    char got[64];
    CHECK(value_of(b.b.p, "config.corpus.manifest.bytes", got, sizeof got) &&
          !strcmp(got, "3390195"));
    CHECKF(strstr(b.b.p, "{\"") == NULL && strstr(b.b.p, "{&quot;") == NULL, "raw JSON: %s", b.b.p);
    CHECK(strstr(b.b.p, "class=\"grp\"") != NULL && strstr(b.b.p, "class=\"d2\"") != NULL);
    CHECK(strstr(b.b.p, "a, b") != NULL && strstr(b.b.p, "(empty)") != NULL);
    sb_free(&b);
    json_decref(cfg);
}

static void test_compare_table(void) {
    json_t *a = json_pack("{s:{s:{s:{s:f,s:f}, s:n}}, s:{s:n, s:s}}", "windows", "w", "cpu_util",
                          "mean", 50.0, "peak", 90.0, "power_w", "telemetry", "power",
                          "power_unavailable_reason", "no RAPL <here>");
    json_t *b2 = json_pack("{s:{s:{s:{s:f,s:f}, s:n}}, s:{s:n, s:s}}", "windows", "w", "cpu_util",
                           "mean", 25.0, "peak", 45.0, "power_w", "telemetry", "power",
                           "power_unavailable_reason", "no RAPL <here>");
    const json_t *runs[2] = {a, b2};
    const char *labels[2] = {"A", "B"};
    struct sbuf b = {0};
    compare_figs_table(&b, runs, labels, 2);
    char got[64];
    CHECK(value_of(b.b.p, "ratio.1.windows.w.cpu_util.mean", got, sizeof got) &&
          !strcmp(got, "0.5"));
    CHECK(value_of(b.b.p, "runs.0.windows.w.power_w.mean", got, sizeof got) &&
          !strcmp(got, "null"));
    /* Each reason once, for both runs, escaped; a missing key is said as such. */
    CHECKF(count(b.b.p, "A, B: no RAPL &lt;here&gt;</li>") == 1, "%s", b.b.p);
    CHECK(strstr(b.b.p, "no read_Bps per window (written by an older build)</li>") != NULL);
    sb_free(&b);
    compare_window_charts(&b, runs, labels, 2);
    CHECK(strstr(b.b.p, "id=\"compare-power-unavailable\"") != NULL);
    CHECK(strstr(b.b.p, "data-chart=\"compare-cpu-util\"") != NULL);
    sb_free(&b);
    json_decref(a);
    json_decref(b2);
}

static void test_bars(void) {
    const char *groups[] = {"A", "B"}, *series[] = {"s", "t"};
    double v[] = {1, NAN, 2, 3}, pk[] = {2, NAN, 4, 3};
    struct bar_groups g = {groups, 2, series, 2, v, pk, NULL, NULL, NULL, NULL};
    struct sbuf b = {0};
    svg_group_bars(&b, "x", "t", "u", &g);
    CHECK(count(b.b.p, "<rect class=\"bar") == 3);
    CHECK(count(b.b.p, "class=\"peak") == 3);
    CHECK(strstr(b.b.p, "data-marks=\"3\"") != NULL);
    sb_free(&b);
}

int main(void) {
    test_curves();
    test_paths();
    test_kv();
    test_compare_table();
    test_bars();
    return unit_done("test_report_figs");
}
