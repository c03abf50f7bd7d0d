/* runlog.c -- the run's per-operation log: the records the workers left in
 * their slots, written once after the run as RUN_DIR/ops.log (format in
 * common/oplog.h), and what result.json says about it (see runlog.h).
 *
 * The workers append to preallocated arrays in shared memory, so a worker
 * that crashed or was OOM-killed still leaves the records of what it did. */
#include "runlog.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "../common/util.h"
#include "../result/result.h"

void runlog_new_id(char out[RUNLOG_ID_LEN]) {
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) { /* no entropy source: still unique */
        uint64_t x = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL);
        for (int i = 0; i < 16; i += 8) {
            uint64_t v = splitmix64(&x);
            memcpy(b + i, &v, 8);
        }
    }
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int runlog_write(const struct run_ctx *r, unsigned nworkers, int64_t t0, double t0_wall,
                 const char *run_id, json_t *res, char *err, size_t errlen) {
    const struct run_layout *lay = &r->lay;
    struct oplog_header h;
    memset(&h, 0, sizeof h);
    snprintf(h.run_id, sizeof h.run_id, "%s", run_id);
    h.release_ns = t0;
    h.release_epoch_ns =
        t0 && t0_wall > 0 ? llround(t0_wall * 1e9) : 0; /* as shard.released_at_ns */
    h.containers = r->cfg->n;
    h.id_base = r->id_base;
    h.cycles = r->cfg->cycles;
    h.ops_per_cycle = lay->ops_per_cycle;
    h.nwl = lay->nwl < OPLOG_MAX_WL ? lay->nwl : OPLOG_MAX_WL;
    for (unsigned w = 0; w < h.nwl; w++) {
        snprintf(h.workload[w], sizeof h.workload[w], "%s", lay->wl[w]->name);
        snprintf(h.counter[w], sizeof h.counter[w], "%s",
                 lay->wl[w]->ncounters ? lay->wl[w]->counters[0].key : "");
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", r->cfg->out, OPLOG_FILE);
    result_put(res, RK_RUN_ID, json_string(run_id), NULL);
    struct oplog_writer *w = oplog_create(path, &h, err, errlen);
    if (!w)
        return result_put(res, RK_OPLOG, NULL, err), -1;
    uint64_t records = 0;
    for (unsigned i = 0; i < nworkers; i++) {
        struct worker_slot *s = run_slot(r, i);
        uint64_t done = atomic_load(&s->done);
        const struct oplog_rec *log = slot_log(r, s);
        /* The records written, in runs: a closed loop writes slots 0..done-1
         * in order, but paced threads finish out of order, so a worker that
         * died with an operation in flight leaves its slot empty (end 0,
         * never a completion) among written ones. Empty slots are skipped. */
        size_t n = 0, j = 0;
        while (j < lay->log_cap && n < done) {
            size_t k = j;
            while (k < lay->log_cap && log[k].end_ns != 0 && n + (k - j) < done)
                k++;
            oplog_append(w, log + j, k - j);
            n += k - j;
            j = k;
            while (j < lay->log_cap && log[j].end_ns == 0)
                j++;
        }
        records += n;
    }
    if (oplog_close(w, err, errlen) != 0)
        return result_put(res, RK_OPLOG, NULL, err), -1;
    result_put(res, RK_OPLOG,
               runlog_json(OPLOG_FILE, records, (int)sizeof(struct oplog_rec), OPLOG_MAGIC), NULL);
    return 0;
}

json_t *runlog_json(const char *file, uint64_t records, int record_bytes, const char *format) {
    return json_pack("{s:o, s:I, s:o, s:o}", "file", file ? json_string(file) : json_null(),
                     "records",
                     (json_int_t)(records < (uint64_t)INT64_MAX ? records : (uint64_t)INT64_MAX),
                     "record_bytes", record_bytes >= 0 ? json_integer(record_bytes) : json_null(),
                     "format", format ? json_string(format) : json_null());
}

static void under(json_t *o, const char *key, const char *dir) {
    const char *v = json_string_value(json_object_get(o, key));
    if (v)
        json_object_set_new(o, key, json_sprintf("%s/%s", dir, v));
}

void runlog_under(json_t *oplog, const char *dir) {
    size_t i;
    json_t *e;
    under(oplog, "file", dir);
    json_array_foreach(json_object_get(oplog, "shards"), i, e) {
        under(e, "result", dir);
        under(e, "file", dir);
    }
}
