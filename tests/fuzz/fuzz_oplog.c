/* fuzz_oplog.c -- ops.log as `harness check` and `harness merge` read it
 * (common/oplog.c): a header and records from a run directory that anyone
 * may have written. The parser must refuse what is not a whole log, with
 * one line, and never read or allocate past what the file holds. */
#include "../../common/oplog.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_write("ops.log", data, size);
    struct oplog_header h;
    struct oplog_rec *recs = NULL;
    char err[512];
    if (oplog_read(path, &h, &recs, err, sizeof err) == 0) {
        /* Every record read must be inside the buffer returned. */
        uint64_t sum = 0;
        for (uint64_t i = 0; i < h.records; i++)
            sum += recs[i].count;
        (void)sum;
    } else if (!err[0] || strchr(err, '\n')) {
        abort(); /* a refusal is one line */
    }
    free(recs);
    return 0;
}
