/* oplog.h -- the per-operation log a run writes beside result.json
 * (RUN_DIR/ops.log), from which `harness check` recomputes the headline.
 *
 * A 512-byte header, then one 40-byte record per operation that ran (an
 * error included), container by container, each container's in the order
 * of its schedule. Little-endian, fixed layout: 256 containers x 1,340
 * operations are 14 MB. Version 2 added each operation's scheduled instant
 * (paced runs, common/pacing.h); a version 1 log (32-byte records without
 * it) is still read, its scheduled instant taken to be the start, which is
 * what it was in the closed loop every version 1 run made. The workers write their records into
 * their own preallocated shared slot (an array store each, no syscall, no allocation); the
 * coordinator writes the file once after the run. The header names the run (run_id, also in
 * result.json), so a log from another run is told apart, and holds the record count, so a truncated
 * log is too. Only the format lives here; what is computed from it is the
 * checker's (check/). */
#ifndef AOPS_OPLOG_H
#define AOPS_OPLOG_H

#include <stddef.h>
#include <stdint.h>

#define OPLOG_MAGIC "AOPSLOG1"
#define OPLOG_VERSION 2
#define OPLOG_V1_RECORD_SIZE 32
#define OPLOG_HEADER_SIZE 512
#define OPLOG_MAX_WL 8
#define OPLOG_NO_CLASS 0x7f
#define OPLOG_ERROR 0x80 /* in flags: the operation failed */
#define OPLOG_FILE "ops.log"

struct oplog_rec {
    int64_t start_ns, end_ns; /* CLOCK_MONOTONIC of the host, as the worker timed it */
    uint64_t count;           /* the workload's first counter for it (s3 bytes, db rows, ...) */
    uint32_t container;       /* global id (shards: from shard x containers) */
    uint16_t op;              /* the operation's index in its workload's cycle */
    uint8_t workload;         /* index into the header's names */
    uint8_t flags;            /* class (low 7 bits, OPLOG_NO_CLASS for none) | OPLOG_ERROR */
    /* When it was due: the paced instant (--arrival), the end of the think
     * time before it (--think-time), else its start (a closed loop). The
     * response time is end_ns - sched_ns, the service time end - start. */
    int64_t sched_ns;
};
_Static_assert(sizeof(struct oplog_rec) == 40, "a log record is 40 bytes");

struct oplog_header {
    char magic[8]; /* OPLOG_MAGIC, not NUL-terminated */
    uint32_t version, header_size, record_size, nwl;
    uint64_t records;
    char run_id[40];          /* as in result.json's run_id */
    int64_t release_ns;       /* the barrier release, CLOCK_MONOTONIC; 0: never released */
    int64_t release_epoch_ns; /* the same instant by the wall clock */
    uint32_t containers, id_base, cycles, ops_per_cycle;
    char workload[OPLOG_MAX_WL][16]; /* names, by the records' workload index */
    char counter[OPLOG_MAX_WL][24];  /* the key of `count` under workloads.<name> */
    char pad[OPLOG_HEADER_SIZE - 8 - 16 - 8 - 40 - 16 - 16 - OPLOG_MAX_WL * 40];
};
_Static_assert(sizeof(struct oplog_header) == OPLOG_HEADER_SIZE, "the header is 512 bytes");

static inline int oplog_class(const struct oplog_rec *r) {
    int k = r->flags & 0x7f;
    return k == OPLOG_NO_CLASS ? -1 : k;
}
static inline int oplog_failed(const struct oplog_rec *r) {
    return (r->flags & OPLOG_ERROR) != 0;
}

/* Write header + records to path (through path.tmp, then renamed). 0, or
 * -1 with err set. The records come in chunks (one per container). */
struct oplog_writer;
struct oplog_writer *oplog_create(const char *path, const struct oplog_header *h, char *err,
                                  size_t errlen);
int oplog_append(struct oplog_writer *w, const struct oplog_rec *recs, size_t n);
/* Finishes the file with the count of records appended; 0 or -1 with err. */
int oplog_close(struct oplog_writer *w, char *err, size_t errlen);

/* Read a whole log: *recs malloc'd. 0, or -1 with err naming what is wrong
 * in one line (missing, not a log, another version, truncated). A version
 * 1 log's records come back with sched_ns = start_ns. */
int oplog_read(const char *path, struct oplog_header *h, struct oplog_rec **recs, char *err,
               size_t errlen);

/* The same from an open descriptor (at offset 0; not closed), path for err:
 * a regular file only. */
int oplog_read_fd(int fd, const char *path, struct oplog_header *h, struct oplog_rec **recs,
                  char *err, size_t errlen);

/* The file's bytes as they are (to copy or upload a log): *data malloc'd.
 * 0, or -1 (errno set). */
int oplog_bytes(const char *path, char **data, size_t *len);

#endif
