/* runlog.h -- RUN_DIR/ops.log, the run's per-operation log (format:
 * common/oplog.h), from the records the workers append in their slots.
 * `harness check` recomputes the headline from it. */
#ifndef AOPS_RUNLOG_H
#define AOPS_RUNLOG_H

#include <jansson.h>
#include <stdint.h>

#include "run.h"

#define RUNLOG_ID_LEN 33 /* 32 hex digits and the NUL */

/* A new run id: 128 random bits as hex. result.json and the log both carry
 * it, so a log is never taken for another run's. */
void runlog_new_id(char out[RUNLOG_ID_LEN]);

/* A result's oplog block {file} or {shards[{result, file}]} (a merge's)
 * with every path in it moved under dir: the result copied or combined
 * into the directory above its own (a --repeat's runs/<i>, a capacity
 * search's points/<N>) still names its own files. */
void runlog_under(json_t *oplog, const char *dir);

/* Write cfg->out/ops.log from the first nworkers slots (t0: the release,
 * CLOCK_MONOTONIC, 0 when never released; t0_wall: the same by the wall
 * clock), and record run_id and an "oplog" block {file, records,
 * record_bytes, format} in res. 0, or -1 with err set (res has run_id but
 * no oplog block then). */
/* oplog{file, records, record_bytes, format}, as a result says it: a single
 * run's (runlog_write) and a merge's (harness merge, whose file is NULL:
 * one log per shard, in oplog.shards[]; record_bytes < 0 and format NULL
 * when the shards' logs differ or none was kept). */
json_t *runlog_json(const char *file, uint64_t records, int record_bytes, const char *format);

int runlog_write(const struct run_ctx *r, unsigned nworkers, int64_t t0, double t0_wall,
                 const char *run_id, json_t *res, char *err, size_t errlen);

#endif
