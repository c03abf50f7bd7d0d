/* test_results.c -- the result without forking a worker: the validity rules
 * (results_judge), the merge of worker slots, and result.json's per-workload
 * figures as the workloads declare them (counters, extra histograms,
 * classes), on slots filled by hand. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../../common/json.h"
#include "../../coordinator/cmdline.h"
#include "../../result/results.h"
#include "../../workloads/db.h"
#include "../../workloads/s3_util.h"
#include "unit.h"

static int has_reason(const json_t *reasons, const char *needle) {
    size_t i;
    json_t *v;
    json_array_foreach(reasons, i, v) if (strstr(json_string_value(v), needle)) return 1;
    return 0;
}

static void test_judge(void) {
    struct verdict_in ok = {2680, 0, 2680, 1, 0, 1340, 1340, "all"};
    json_t *r = json_array();
    results_judge(&ok, r);
    CHECKF(json_array_size(r) == 0, "a complete run of every workload is valid");

    struct verdict_in v = ok;
    v.ops = 2670, v.errors = 10;
    results_judge(&v, r);
    CHECK(json_array_size(r) == 1 && has_reason(r, "10 operations failed"));
    json_array_clear(r);

    v = ok;
    v.ops = 2000;
    results_judge(&v, r);
    CHECK(json_array_size(r) == 1 && has_reason(r, "680 of 2680 operations never ran"));
    json_array_clear(r);

    v.released = 0; /* never started: nothing "never ran", the coordinator says why */
    results_judge(&v, r);
    CHECK(json_array_size(r) == 0);

    v = ok;
    v.ops_per_cycle = v.expected = 1190, v.ops = 1190, v.workloads = "s3";
    results_judge(&v, r);
    CHECK(has_reason(r, "partial cycle (1190 of 1340 operations per cycle, workloads: s3)"));
    json_array_clear(r);

    v.test_only = 1; /* test-only says it all; no partial-cycle reason on top */
    results_judge(&v, r);
    CHECK(json_array_size(r) == 1 && has_reason(r, "test-only"));
    json_decref(r);
}

/* Two workers of s3 + db with hand-made figures. */
static void test_merge_and_json(void) {
    struct config cfg;
    memset(&cfg, 0, sizeof cfg);
    char err[512];
    char *argv[] = {"run", "--workloads", "s3,db", "--containers", "2"};
    CHECKF(options_load(&cfg, 5, argv, 1, err, sizeof err) == 0, "%s", err);
    struct run_ctx r = {.cfg = &cfg};
    CHECK(layout_build(&cfg, &r.lay, err, sizeof err) == 0);
    CHECK(r.lay.nwl == 2 && r.lay.ops_per_cycle == 1240);
    /* s3: latency, TTFB, 3 classes; db: latency, 5 patterns. */
    CHECK(r.lay.nhist == (1 + 1 + 3) + (1 + 5));
    r.shm = calloc(2, r.lay.slot_size);
    for (unsigned i = 0; i < 2; i++) {
        struct worker_slot *s = run_slot(&r, i);
        for (unsigned h = 0; h < r.lay.nhist; h++)
            hist_init(slot_hist(&r, s, h));
        struct wl_stats *s3 = &s->wl[0], *db = &s->wl[1];
        s3->ops = 1190, s3->count[S3_COUNT_BYTES] = 1000 * (i + 1);
        s3->class_ops[2] = 190, s3->class_count[2][S3_COUNT_BYTES] = 700 * (i + 1);
        s3->first_start = 100 + i, s3->last_end = 200 + i;
        db->ops = 49, db->errors = 1, db->count[DB_COUNT_ROWS] = 5000;
        db->class_ops[DB_POINT] = 10, db->class_count[DB_POINT][DB_COUNT_ROWS] = 10;
        hist_add(slot_hist(&r, s, lay_hist_lat(&r.lay, 0)), 2000000);                /* 2 ms */
        hist_add(slot_hist(&r, s, lay_hist_extra(&r.lay, 0, S3_HIST_TTFB)), 500000); /* 0.5 */
        hist_add(slot_hist(&r, s, lay_hist_class(&r.lay, 1, DB_POINT)), 1000000);
        s->end_ns = 1000 + i;
    }
    struct run_totals t;
    CHECK(results_merge(&r, 50, &t) == 0);
    CHECK(t.ops == 2 * 1190 + 2 * 49 && t.errors == 2 && t.t_end == 1001);
    CHECK(t.wl[0].count[S3_COUNT_BYTES] == 3000 && t.wl[0].class_count[2][S3_COUNT_BYTES] == 2100);
    CHECK(t.wl[0].first_start == 100 && t.wl[0].last_end == 201);
    CHECK(t.hists[lay_hist_extra(&r.lay, 0, S3_HIST_TTFB)].count == 2);
    results_totals_free(&t);

    struct worker_end we[2] = {{.pid = 1, .reaped = 1}, {.pid = 2, .reaped = 1}};
    json_t *reasons = json_array(), *warnings = json_array();
    struct run_report rep = {
        .r = &r, .workers = we, .t0 = 50, .released = 1, .reasons = reasons, .warnings = warnings};
    json_t *res = results_build(&rep);
    CHECK(res != NULL);
    CHECK(jnum(res, "workloads.s3.bytes") == 3000);
    CHECK(jnum(res, "workloads.s3.classes.50MiB.bytes") == 2100);
    CHECK(jnum(res, "workloads.s3.classes.50MiB.ops") == 380);
    CHECK(jnum(res, "workloads.s3.ttfb_ms.p50") > 0.49 &&
          jnum(res, "workloads.s3.ttfb_ms.p50") < 0.51);
    CHECK(jnum(res, "workloads.db.rows") == 10000 && jnum(res, "workloads.db.errors") == 2);
    CHECK(jnum(res, "workloads.db.patterns.point.rows") == 20);
    CHECK(jnum(res, "workloads.db.patterns.point.latency_ms.max") > 0.99);
    CHECK(jget(res, "workloads.db.ttfb_ms") == NULL); /* db declares no such histogram */
    CHECK(jnum(res, "totals.expected_ops") == 2 * 1240);
    CHECK(json_is_false(json_object_get(res, "valid")));
    CHECK(has_reason(reasons, "2 operations failed") && has_reason(reasons, "partial cycle"));
    /* Each workload's part of the config, no secret in it. */
    CHECK(jstr(res, "config.s3.endpoint") && jstr(res, "config.dataset"));
    CHECK(jstr(res, "config.db.user") && !jget(res, "config.db.password"));
    CHECK(json_is_null(jget(res, "config.corpus"))); /* search did not run */
    json_decref(res);
    json_decref(reasons);
    json_decref(warnings);
    free(r.shm);
    options_free(&cfg);
}

int main(void) {
    test_judge();
    test_merge_and_json();
    return unit_done("results");
}
