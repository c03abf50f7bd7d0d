/* keys.c -- the table of result.json's top-level keys (see keys.h), and
 * the check of a result against it that `harness check` runs.
 *
 * A row names the function that puts the key through result_put() in a
 * single run, in a merge and in a --repeat result; tests/unit/test_keys.c
 * holds the sources to it (each RK_ is put only in the files named here)
 * and the table to result.schema.json and to a real result. */
#include "keys.h"

#include <stdio.h>
#include <string.h>

#define OBJ_OR_NULL (RT_OBJECT | RT_NULL)
#define WHY (RT_STRING | RT_NULL)
#define NOT_MERGED(what)                                                                           \
    "not merged: each host has its own " what ", in its shard's result "                           \
    "(shards/shard-N.result.json)"

#define RUN "results.c:results_build"
#define MERGE "merge.c:merge_results"
#define COORD "coordinator.c:coord_write"
#define BEGIN "result.c:result_begin"
#define VERDICT "result.c:result_verdict"
#define COMPLETE "result.c:result_complete"

const struct result_key result_keys[RK_COUNT] = {
    [RK_SCHEMA_VERSION] = {"schema_version", BEGIN, BEGIN, BEGIN, RK_EVERY, RT_INTEGER, RK_COUNT, 0,
                           NULL},
    [RK_VALID] = {"valid", VERDICT, VERDICT, VERDICT, RK_EVERY, RT_BOOL, RK_COUNT, 0, NULL},
    [RK_INVALID_REASONS] = {"invalid_reasons", VERDICT, VERDICT, VERDICT, RK_EVERY, RT_ARRAY,
                            RK_COUNT, 0, NULL},
    [RK_WARNINGS] = {"warnings", VERDICT, VERDICT, VERDICT, RK_EVERY, RT_ARRAY, RK_COUNT, 0, NULL},
    [RK_CONFIG] = {"config", RUN, MERGE, NULL, RK_EVERY, RT_OBJECT, RK_COUNT, 0, NULL},
    [RK_SYSTEM] = {"system", RUN, MERGE, NULL, RK_EVERY, RT_OBJECT, RK_COUNT, 0, NULL},
    [RK_TOTALS] = {"totals", RUN, MERGE, NULL, RK_EVERY, RT_OBJECT, RK_COUNT, 0, NULL},
    [RK_WORKLOADS] = {"workloads", RUN, "merge.c:merge_workloads", NULL, RK_EVERY, RT_OBJECT,
                      RK_COUNT, 0, NULL},
    [RK_CONTAINERS] = {"containers", RUN, MERGE, NULL, RK_EVERY, RT_ARRAY, RK_COUNT, 0, NULL},
    [RK_WINDOWS] = {"windows", RUN, MERGE, NULL, RK_EVERY, RT_OBJECT, RK_COUNT, 0, NULL},
    [RK_TELEMETRY] = {"telemetry", RUN, MERGE, NULL, RK_EVERY, OBJ_OR_NULL, RK_TELEMETRY_REASON, 0,
                      NULL},
    [RK_TELEMETRY_REASON] = {"telemetry_reason", RUN, MERGE, NULL, RK_EVERY, WHY, RK_COUNT, 0,
                             NULL},
    [RK_STORAGE_BASELINE] = {"storage_baseline", RUN, NULL, NULL, RK_EVERY, OBJ_OR_NULL,
                             RK_STORAGE_BASELINE_REASON, 0, NOT_MERGED("drive baseline")},
    [RK_STORAGE_BASELINE_REASON] = {"storage_baseline_reason", RUN, NULL, NULL, RK_EVERY, WHY,
                                    RK_COUNT, 0, NULL},
    [RK_HISTOGRAMS] = {"histograms", RUN, "merge.c:merge_workloads", NULL, RK_EVERY, RT_OBJECT,
                       RK_COUNT, 0, NULL},
    [RK_PLACEMENT] = {"placement", RUN, NULL, NULL, RK_EVERY, OBJ_OR_NULL, RK_PLACEMENT_REASON, 0,
                      NOT_MERGED("CPU placement")},
    [RK_PLACEMENT_REASON] = {"placement_reason", RUN, NULL, NULL, RK_EVERY, WHY, RK_COUNT, 0, NULL},
    [RK_COORDINATOR] = {"coordinator", RUN, NULL, NULL, RK_EVERY, OBJ_OR_NULL,
                        RK_COORDINATOR_REASON, 0, NOT_MERGED("coordinator's cost")},
    [RK_COORDINATOR_REASON] = {"coordinator_reason", RUN, NULL, NULL, RK_EVERY, WHY, RK_COUNT, 0,
                               NULL},
    [RK_ATTRIBUTION] = {"attribution", RUN, NULL, NULL, RK_EVERY, OBJ_OR_NULL,
                        RK_ATTRIBUTION_UNAVAILABLE, 0, NOT_MERGED("CPU attribution")},
    [RK_ATTRIBUTION_UNAVAILABLE] = {"attribution_unavailable", RUN, NULL, NULL, RK_EVERY, RT_OBJECT,
                                    RK_COUNT, 0, NULL},
    [RK_ATTRIBUTION_SOURCES] = {"attribution_sources", RUN, NULL, NULL, RK_EVERY, RT_OBJECT,
                                RK_COUNT, 0, NULL},
    [RK_COUNTERS] = {"counters", RUN, NULL, NULL, RK_EVERY, OBJ_OR_NULL, RK_COUNTERS_UNAVAILABLE, 0,
                     NOT_MERGED("performance counters")},
    [RK_COUNTERS_UNAVAILABLE] = {"counters_unavailable", RUN, NULL, NULL, RK_EVERY, RT_OBJECT,
                                 RK_COUNT, 0, NULL},
    [RK_SERVER_COUNTS] = {"server_counts", RUN, NULL, NULL, RK_EVERY, OBJ_OR_NULL,
                          RK_SERVER_COUNTS_UNAVAILABLE, 0, NOT_MERGED("servers' count")},
    [RK_SERVER_COUNTS_UNAVAILABLE] = {"server_counts_unavailable", RUN, NULL, NULL, RK_EVERY,
                                      RT_OBJECT, RK_COUNT, 0, NULL},
    [RK_STORAGE] = {"storage", RUN, "merge.c:merge_storage", NULL, RK_EVERY, OBJ_OR_NULL,
                    RK_STORAGE_REASON, 0, NULL},
    [RK_STORAGE_REASON] = {"storage_reason", RUN, "merge.c:merge_storage", NULL, RK_EVERY, WHY,
                           RK_COUNT, 0, NULL},
    [RK_STRAGGLERS] = {"stragglers", RUN, MERGE, NULL, RK_EVERY, OBJ_OR_NULL, RK_STRAGGLERS_REASON,
                       0, NULL},
    [RK_STRAGGLERS_REASON] = {"stragglers_reason", RUN, MERGE, NULL, RK_EVERY, WHY, RK_COUNT, 0,
                              NULL},
    [RK_SLO] = {"slo", RUN, MERGE, NULL, RK_LATER, RT_OBJECT, RK_COUNT, 0, NULL},
    [RK_PROVENANCE] = {"provenance", COORD, "merge.c:merge_provenance", NULL, RK_EVERY, OBJ_OR_NULL,
                       RK_NOT_RECORDED, 0, NULL},
    [RK_OPS_PER_SECOND] = {"ops_per_second", COORD, MERGE, NULL, RK_EVERY, OBJ_OR_NULL,
                           RK_OPS_PER_SECOND_REASON, 0, NULL},
    [RK_OPS_PER_SECOND_REASON] = {"ops_per_second_reason", COORD, MERGE, NULL, RK_EVERY, WHY,
                                  RK_COUNT, 0, NULL},
    [RK_SHARD_INFO] = {"shard", COORD, NULL, NULL, RK_SHARD, RT_OBJECT, RK_COUNT, 0, NULL},
    [RK_VERIFICATION] = {"verification", COORD, "merge.c:merge_provenance", NULL, RK_EVERY,
                         OBJ_OR_NULL, RK_NOT_RECORDED, 0, NULL},
    [RK_RUN_ID] = {"run_id", "runlog.c:runlog_write", NULL, NULL, RK_EVERY, RT_STRING | RT_NULL,
                   RK_RUN_ID_REASON, 0,
                   "a merge is no run of its own: each shard's run_id is in oplog.shards[]"},
    [RK_RUN_ID_REASON] = {"run_id_reason", "runlog.c:runlog_write", NULL, NULL, RK_EVERY, WHY,
                          RK_COUNT, 0, NULL},
    [RK_OPLOG] = {"oplog", "runlog.c:runlog_write", "merge_cmd.c:keep_shards",
                  "repeat.c:repeat_combine", RK_EVERY, OBJ_OR_NULL, RK_OPLOG_REASON, RKF_WRITE,
                  NULL},
    [RK_OPLOG_REASON] = {"oplog_reason", "runlog.c:runlog_write", "merge_cmd.c:keep_shards",
                         "repeat.c:repeat_combine", RK_EVERY, WHY, RK_COUNT, RKF_WRITE, NULL},
    [RK_REPORTABLE] = {"reportable", "result.c:result_reportable", "result.c:result_reportable",
                       "result.c:result_reportable", RK_EVERY, RT_BOOL | RT_NULL, RK_NOT_RECORDED,
                       RKF_WRITE, NULL},
    [RK_NONREPORTABLE_REASONS] = {"nonreportable_reasons", "result.c:result_reportable",
                                  "result.c:result_reportable", "result.c:result_reportable",
                                  RK_EVERY, RT_ARRAY | RT_NULL, RK_NOT_RECORDED, RKF_WRITE, NULL},
    [RK_INTEGRITY] = {"integrity", "integrity.c:integrity_seal", "integrity.c:integrity_seal",
                      "integrity.c:integrity_seal", RK_EVERY, OBJ_OR_NULL, RK_NOT_RECORDED,
                      RKF_WRITE, NULL},
    [RK_REPEATS] = {"repeats", NULL, NULL, "repeat.c:repeat_combine", RK_REPEAT, RT_OBJECT,
                    RK_COUNT, 0, NULL},
    [RK_SHARDS] = {"shards", NULL, MERGE, NULL, RK_MERGED, RT_ARRAY, RK_COUNT, 0, NULL},
    [RK_MERGE] = {"merge", NULL, MERGE, NULL, RK_MERGED, RT_OBJECT, RK_COUNT, 0, NULL},
    [RK_PACER] = {"pacer", RUN, MERGE, NULL, RK_PACED, RT_OBJECT, RK_COUNT, 0, NULL},
    [RK_CAPACITY] = {"capacity", "capacity_result.c:capacity_result_write", NULL, NULL, RK_SEARCHED,
                     RT_OBJECT, RK_COUNT, 0, NULL},
    [RK_NOT_RECORDED] = {"not_recorded", "upgrade.c:result_upgrade", "upgrade.c:result_upgrade",
                         "upgrade.c:result_upgrade", RK_UPGRADED, RT_OBJECT, RK_COUNT, 0, NULL},
};

const struct result_key *result_key_find(const char *name) {
    for (size_t i = 0; name && i < RK_COUNT; i++)
        if (!strcmp(result_keys[i].name, name))
            return &result_keys[i];
    return NULL;
}

/* name is listed in res.not_recorded.keys: an older build did not write it. */
static int not_recorded(const json_t *res, const char *name) {
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(json_object_get(res, "not_recorded"), "keys"), i, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), name))
            return 1;
    }
    return 0;
}

static const char *type_name(const json_t *v) {
    static const char *const names[] = {"an object", "an array", "a string", "an integer",
                                        "a real",    "true",     "false",    "null"};
    return (unsigned)json_typeof(v) < sizeof names / sizeof *names ? names[json_typeof(v)] : "?";
}

#define FIND(...)                                                                                  \
    do {                                                                                           \
        if (n < max)                                                                               \
            snprintf(lines[n], sizeof lines[n], __VA_ARGS__);                                      \
        n++;                                                                                       \
    } while (0)

size_t result_keys_check(const json_t *res, char lines[][256], size_t max) {
    size_t n = 0;
    if (!json_is_object(res)) {
        FIND("result.json: not a JSON object");
        return n;
    }
    /* Which kind of result it is, by the keys only that kind has. */
    unsigned kind = (json_object_get(res, "shards") ? RK_MERGED : 0) |
                    (json_object_get(res, "repeats") ? RK_REPEAT : 0) |
                    (json_object_get(res, "shard") ? RK_SHARD : 0) |
                    (json_object_get(res, "not_recorded") ? RK_UPGRADED : 0) |
                    (json_object_get(res, "pacer") ? RK_PACED : 0) |
                    (json_object_get(res, "capacity") ? RK_SEARCHED : 0);
    for (size_t i = 0; i < RK_COUNT; i++) {
        const struct result_key *k = &result_keys[i];
        const json_t *v = json_object_get(res, k->name);
        int reason_key = k->types == WHY && k->reason == RK_COUNT && strstr(k->name, "_reason");
        if (!v) {
            /* The *_reason keys came with this table: an older result may lack
             * them, and a reader takes their absence for "nothing to say". */
            if (k->in == RK_EVERY && !reason_key && !not_recorded(res, k->name))
                FIND("%s: missing (every result has it)", k->name);
            else if (k->in != RK_EVERY && (k->in & kind) && !(k->in & RK_UPGRADED))
                FIND("%s: missing", k->name);
            continue;
        }
        if (!(k->types & RT(json_typeof(v)))) {
            FIND("%s: %s, where the schema has %s", k->name, type_name(v),
                 k->types & RT_OBJECT   ? "an object"
                 : k->types & RT_ARRAY  ? "an array"
                 : k->types & RT_BOOL   ? "a boolean"
                 : k->types & RT_STRING ? "a string"
                                        : "a number");
            continue;
        }
        if (json_is_null(v) && !reason_key) {
            const json_t *why =
                k->reason < RK_COUNT ? json_object_get(res, result_keys[k->reason].name) : NULL;
            int has_why =
                why && !json_is_null(why) && !(json_is_object(why) && json_object_size(why) == 0);
            if (!has_why && !not_recorded(res, k->name))
                FIND("%s: null without its reason (%s)", k->name,
                     k->reason < RK_COUNT ? result_keys[k->reason].name : "none allowed");
        }
    }
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)res, name, v) {
        if (!result_key_find(name))
            FIND("%s: not a key of result.json (result/keys.c)", name);
    }
    return n;
}
