/* check.h -- `harness check RUN_DIR` and `harness verify RUN_DIR --key
 * PUB.pem`: an independent verifier of results.
 *
 * A layer above coordinator/ (like report/), sharing none of the run's
 * aggregation: it reads result.json and the per-operation log
 * (common/oplog.h) as files and recomputes every headline figure from the
 * raw records by its own rules (check/recompute.c), the integrity digests
 * (common/canon.h) and the reportable rules (common/reportable.h), and
 * verifies signatures (check/verify.c). It uses the workload descriptors
 * only for names and for what an answer must be (object sizes). */
#ifndef AOPS_CHECK_H
#define AOPS_CHECK_H

#include <jansson.h>

#include "../common/oplog.h"

int check_main(int argc, char **argv);  /* check.c */
int verify_main(int argc, char **argv); /* verify.c */
/* verify.c: the signature of RUN_DIR's result with the public key at key:
 * 0 verified (msg says by which key), 1 not, 2 nothing to verify; msg one
 * line either way. */
int verify_run(const char *dir, const char *key, char *msg, size_t len);

/* What a check found (findings.c): each figure that differs, as one line
 * naming it with both values. */
struct findings {
    json_t *diffs;     /* strings */
    unsigned compared; /* figures compared */
    const char *label; /* prefix of each line ("runs/2: "), "" for none */
};
void finding(struct findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Compare the number at path in res with the recomputed value: equal
 * within max(rel * |want|, abs). A missing or null figure differs. */
void compare_num(struct findings *f, const json_t *res, const char *path, double want, double rel,
                 double abs);

/* One or more logs (a merged result: one per shard) and their records. */
struct logset {
    unsigned n;
    struct oplog_header *h;
    struct oplog_rec **recs;
    /* A merge: each shard's measured clock offset (its result's
     * shard.clock.offset_s, in ns), which `harness merge` adds to its
     * instants before lining the shards up; NULL: none. */
    const int64_t *offset_ns;
};

/* recompute.c: every figure of res the logs determine -- totals, per
 * workload and class ops, errors, counters and latency, windows,
 * containers -- and the invariants. merged: the logs are shards of one run
 * on different clocks, lined up by their release's wall-clock time (as
 * `harness merge` does). */
void recompute_check(struct findings *f, const json_t *res, const struct logset *ls, int merged);

/* check_capacity.c: a `harness capacity` result's capacity{} against its
 * points' results, pts[i] the result of capacity.points[i].dir (NULL where
 * it could not be read: a finding already), by rules of its own. */
void capacity_check(struct findings *f, const json_t *res, json_t *const *pts, size_t n);

#endif
