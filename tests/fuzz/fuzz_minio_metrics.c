/* fuzz_minio_metrics.c -- MinIO's Prometheus text (/minio/metrics/v3 and
 * /minio/v2/metrics/node) as workloads/minio_metrics.c reads it to check a
 * window's GETs against the server's own count: whatever answers on the S3
 * endpoint's port writes it. The sum must never read past the text, and a
 * value that is no count (NaN, negative, past 2^64) must be refused with one
 * line, never converted. */
#include <math.h>

#include "../../workloads/minio_metrics.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_cstr(data, size);
    for (int v2 = 0; v2 < 2; v2++) {
        struct minio_gets g;
        char err[512] = "";
        memset(&g, 0, sizeof g);
        int rc = minio_counts_parse(text, v2, &g, err, sizeof err);
        if (rc < 0 && (!err[0] || strchr(err, '\n')))
            abort(); /* a refusal is one line */
        if (rc == 1 && (!g.present || g.errors > g.requests))
            abort();
        if (rc == 0 && g.present)
            abort();
    }
    /* The sum with no label to match: every sample of the family. */
    double s;
    static const char *const none[] = {NULL};
    prom_sum(text, "minio_s3_requests_total", none, 0, &s);
    free(text);
    return 0;
}
