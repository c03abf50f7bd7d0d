/* keys.h -- the top-level keys of result.json, as one table: for each key
 * the one function that writes it, in which kinds of result it is present,
 * the JSON types it may have, and the key that says why when it is null.
 *
 * result.json is a contract with every reader (compare, report, merge, check,
 * a vendor's scripts), and its keys were written from a dozen files that each
 * reached into the root object. Now a key is placed only through
 * result_put() (result.h), by the function this table names, so that a
 * key's shape has one owner; a merged or repeated result is built through
 * the same table and so has every key a single run has, null with its
 * reason where it cannot be merged. `harness check` validates a result
 * against the table, and tests/unit/test_keys.c checks the table against a
 * real result and result.schema.json. */
#ifndef AOPS_RESULT_KEYS_H
#define AOPS_RESULT_KEYS_H

#include <jansson.h>
#include <stddef.h>

/* In which results a key is present. RK_EVERY: all of them (a single run,
 * a shard's, a --repeat's combined result, a merge); the others only there. */
#define RK_EVERY 0u
#define RK_SHARD 1u    /* a --shard I/N run */
#define RK_REPEAT 2u   /* a --repeat K combined result */
#define RK_MERGED 4u   /* harness merge */
#define RK_UPGRADED 8u /* an older result read through result_upgrade() */
#define RK_PACED 16u   /* a paced run: --arrival or --think-time */
/* Added during the current schema version: every result of a build that
 * writes it has it; one of an earlier build of the same version may not
 * (a reader takes its absence for "not judged"). */
#define RK_LATER 32u
/* A `harness capacity` result (DIR/result.json): its headline run's result
 * with the search's verdict beside it (fleet/capacity_result.c). */
#define RK_SEARCHED 64u

/* The JSON types a key may hold, as a mask of 1 << json_type. */
#define RT(t) (1u << (t))
#define RT_OBJECT RT(JSON_OBJECT)
#define RT_ARRAY RT(JSON_ARRAY)
#define RT_STRING RT(JSON_STRING)
#define RT_INTEGER RT(JSON_INTEGER)
#define RT_NUMBER (RT(JSON_INTEGER) | RT(JSON_REAL))
#define RT_BOOL (RT(JSON_TRUE) | RT(JSON_FALSE))
#define RT_NULL RT(JSON_NULL)

/* Every top-level key, in the order a single run writes them. A *_REASON
 * key holds why the key before it is null (null itself when it is not). */
enum rkey {
    RK_SCHEMA_VERSION,
    RK_VALID,
    RK_INVALID_REASONS,
    RK_WARNINGS,
    RK_CONFIG,
    RK_SYSTEM,
    RK_TOTALS,
    RK_WORKLOADS,
    RK_CONTAINERS,
    RK_WINDOWS,
    RK_TELEMETRY,
    RK_TELEMETRY_REASON,
    RK_STORAGE_BASELINE,
    RK_STORAGE_BASELINE_REASON,
    RK_HISTOGRAMS,
    RK_PLACEMENT,
    RK_PLACEMENT_REASON,
    RK_COORDINATOR,
    RK_COORDINATOR_REASON,
    RK_ATTRIBUTION,
    RK_ATTRIBUTION_UNAVAILABLE,
    RK_ATTRIBUTION_SOURCES,
    RK_COUNTERS,
    RK_COUNTERS_UNAVAILABLE,
    RK_SERVER_COUNTS,
    RK_SERVER_COUNTS_UNAVAILABLE,
    RK_STORAGE,
    RK_STORAGE_REASON,
    RK_STRAGGLERS,
    RK_STRAGGLERS_REASON,
    RK_SLO, /* the SLO verdict (result/slo.h) */
    RK_PROVENANCE,
    RK_OPS_PER_SECOND,
    RK_OPS_PER_SECOND_REASON,
    RK_SHARD_INFO, /* "shard" */
    RK_VERIFICATION,
    RK_RUN_ID,
    RK_RUN_ID_REASON,
    RK_OPLOG,
    RK_OPLOG_REASON,
    RK_REPORTABLE,
    RK_NONREPORTABLE_REASONS,
    RK_INTEGRITY,
    RK_REPEATS,
    RK_SHARDS,
    RK_MERGE,
    RK_PACER,        /* paced agents (issue 38) */
    RK_CAPACITY,     /* harness capacity: agents at SLO (issue 38) */
    RK_NOT_RECORDED, /* only in an older result read through result_upgrade() */
    RK_COUNT
};

struct result_key {
    const char *name;
    const char *owner;  /* the function that sets it in a run (file.c:function) */
    const char *merge;  /* ... in a merge; NULL: null there, for the reason merged */
    const char *repeat; /* ... in a --repeat result; NULL: the median run's, copied */
    unsigned in;        /* RK_EVERY, or where it is present */
    unsigned types;     /* RT_* mask */
    enum rkey reason;   /* the key saying why it is null; RK_COUNT: never null */
    unsigned flags;     /* RKF_* */
    const char *merged; /* a merged result's reason for its null (merge NULL) */
};

/* Put as the result is written, after it is built (the verdict's second
 * call, reportable, integrity, the per-operation log): result_complete()
 * leaves it to its owner. */
#define RKF_WRITE 1u

extern const struct result_key result_keys[RK_COUNT];

/* The row of name, or NULL: not a top-level key of result.json. */
const struct result_key *result_key_find(const char *name);

/* Every finding of res against the table, one line each (at most max,
 * counted past that): a key it must have and lacks, a key of the wrong
 * type, a null without its reason, a key the table does not know. A
 * result read through result_upgrade() may also have a null named in its
 * not_recorded.keys. Returns how many; 0 when res fits the table. */
size_t result_keys_check(const json_t *res, char lines[][256], size_t max);

#endif
