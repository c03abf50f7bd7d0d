/* capacity_result.c -- a `harness capacity` directory's result.json: the
 * whole result of the run its headline comes from, with capacity{} beside
 * it (see capacity_result.h).
 *
 * The headline is one real run, never a mix: the point of agents_at_slo
 * (its confirmation where it was repeated: that --repeat result, whose own
 * headline is its median run, as for any --repeat), else what was measured
 * (capacity.headline says which). Its result.json is copied as written,
 * with the paths in it that name the run's files (oplog.file, repeats.runs,
 * a merge's oplog.shards) moved under the point's directory so they stay
 * inside DIR, and sealed again over DIR: `harness check DIR` recomputes the
 * headline from its log as for that point, and the capacity verdict from
 * the points' own results. */
#include "capacity_result.h"

#include <stdio.h>
#include <string.h>

#include "../common/json.h"
#include "../result/integrity.h"
#include "../result/keys.h"
#include "../result/result.h"
#include "../result/results.h"
#include "../result/runlog.h"

/* The paths res names its files by, made relative to DIR. */
static void rebase(json_t *res, const char *rel) {
    json_t *runs = jget(res, "repeats.runs"), *v;
    size_t i;
    runlog_under(json_object_get(res, "oplog"), rel);
    json_array_foreach(runs, i, v) {
        if (json_is_string(v))
            json_array_set_new(runs, i, json_sprintf("%s/%s", rel, json_string_value(v)));
    }
}

int capacity_result_write(const char *dir, const json_t *cap, char *err, size_t errlen) {
    const char *rel = jstr(cap, "headline.dir");
    if (!rel) {
        snprintf(err, errlen,
                 "no point left a result, so there is no run to write as %s/result.json", dir);
        return -1;
    }
    char pdir[4200];
    snprintf(pdir, sizeof pdir, "%s/%s/result.json", dir, rel);
    json_t *res = json_load_bounded(pdir, 256u << 20, 0, err, errlen);
    if (!res)
        return -1;
    rebase(res, rel);
    json_object_del(res, "integrity"); /* sealed again below, over DIR */
    /* The verdict: the run's, and the search's (a test workload said
     * once; a search that found no count within the SLO is not valid). */
    json_t *reasons = json_deep_copy(json_object_get(res, "invalid_reasons")), *r;
    size_t i;
    if (!json_is_array(reasons))
        json_decref(reasons), reasons = json_array();
    json_array_foreach(json_object_get(cap, "invalid_reasons"), i, r) {
        int seen = 0;
        size_t j;
        json_t *q;
        json_array_foreach(reasons, j, q) seen |= json_equal(q, r);
        if (!seen)
            json_array_append(reasons, r);
    }
    json_t *warnings = json_deep_copy(json_object_get(res, "warnings"));
    if (!json_is_array(warnings))
        json_decref(warnings), warnings = json_array();
    result_verdict(res, reasons, warnings,
                   json_is_true(json_object_get(res, "valid")) &&
                       json_is_true(json_object_get(cap, "valid")));
    json_decref(reasons);
    json_decref(warnings);
    int rc = -1;
    if (result_put(res, RK_CAPACITY, json_deep_copy(cap), NULL) != 0)
        snprintf(err, errlen, "%s already holds a capacity object: not a run's result", pdir);
    else {
        result_reportable(res);
        rc = results_write(res, dir, err, errlen) == 0 &&
                     integrity_seal(dir, NULL, NULL, err, errlen) == 0
                 ? 0
                 : -1;
    }
    json_decref(res);
    return rc;
}
