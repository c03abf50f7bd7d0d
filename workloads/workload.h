/* workload.h -- the one small interface every workload implements.
 *
 * Like fio's ioengines: a workload is a struct of function pointers, and the
 * coordinator walks one table of them (workloads/registry.c). A worker calls
 * open() before the start barrier (connect, compile, load), run() once per
 * operation inside the measured loop, and close() at the end. prepare() runs
 * in `harness prepare` only, never in a measured run.
 *
 * run() must not allocate, print or write to disk: it reports what it did in
 * the caller's op_result and the worker turns that into counters and
 * histograms. An operation that fails returns -1 with res->err set to one
 * line a person understands; it counts as an error, never as a completion. */
#ifndef AOPS_WORKLOAD_H
#define AOPS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "../coordinator/config.h"

#define WL_MAX_CLASSES 8
#define WL_ERRLEN 256

struct op_result {
    uint64_t bytes;   /* s3: body bytes received; search: bytes searched */
    uint64_t rows;    /* db: rows fetched; search: matched lines */
    uint64_t files;   /* search: files searched */
    int64_t ttfb_ns;  /* s3: time to first byte; -1 when not applicable */
    int klass;        /* index into class_names (s3 size class, db pattern), -1 none */
    int fatal;        /* set with an error when the worker cannot go on (server gone) */
    char err[WL_ERRLEN];
};

struct workload {
    const char *name;          /* "s3", "db", "search", test ones "sleep", "memhog" */
    unsigned ops_per_cycle;    /* 1190, 50, 100 */
    int test_only;             /* never part of a real run's AOPS */
    unsigned nclasses;         /* sub-classes reported separately, 0 for none */
    const char *class_names[WL_MAX_CLASSES];

    /* `harness prepare`: load the data this workload needs for cfg->n workers.
     * Idempotent. Returns 0, or -1 with err set. May print progress. */
    int (*prepare)(const struct config *cfg, char *err, size_t errlen);

    /* Before the barrier, in the worker: connect, compile, check the data is
     * there. Returns state, or NULL with err set (one line). */
    void *(*open)(const struct config *cfg, unsigned worker, char *err, size_t errlen);

    /* One operation. op is in [0, ops_per_cycle) and names which operation
     * of the cycle this is (s3: which object; db: pattern op/10; search: which
     * pattern); cycle counts from 0. Returns 0 on success, -1 on error. */
    int (*run)(void *state, unsigned cycle, unsigned op, struct op_result *res);

    void (*close)(void *state);

    /* Optional: what serves this workload, for the inventory (the server's
     * product and version; search: the file reader in use), asked once by
     * the coordinator before the run. 0, or -1 with out = the reason. */
    int (*backend)(const struct config *cfg, char *out, size_t len);
};

/* The table, in the order of a phased cycle. */
extern const struct workload *const workload_table[];
const struct workload *workload_find(const char *name);

#endif
