/* minio_metrics.h -- MinIO's own count of the S3 GetObject requests it
 * answered, read from its Prometheus endpoint, so a window's GETs as the
 * workers counted them can be checked against the server's count (a
 * shortfall means requests that never reached MinIO, or a second MinIO).
 *
 * At the pinned MinIO the live counter is v3's
 *   minio_api_requests_total{name="GetObject",type="s3"}  (/minio/metrics/v3/api/requests)
 * and v2's
 *   minio_s3_requests_total{api="getobject"}              (/minio/v2/metrics/node)
 * counts the same requests but MinIO refreshes its v2 groups from a cache
 * (up to 10 s old), so it is only the fall-back. Both count every answered
 * GetObject, errors included; the *_errors_total twins count the 4xx/5xx.
 * Without MINIO_PROMETHEUS_AUTH_TYPE=public (scripts/stack sets it) the
 * endpoints want a bearer token. */
#ifndef AOPS_MINIO_METRICS_H
#define AOPS_MINIO_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct minio_gets {
    uint64_t requests; /* GetObject requests answered, errors included */
    uint64_t errors;   /* of which 4xx or 5xx */
    int cached;        /* 1 when read from v2, whose values may be up to 10 s old */
    int present;       /* 0: MinIO lists no GetObject counter yet (none answered since it
                        * started, or a version that names it otherwise); requests is 0 */
    char url[512];     /* where it was read */
};

/* Read the count from the MinIO at base ("http://127.0.0.1:9000", the S3
 * endpoint). bearer: NULL for a public endpoint, else a Prometheus token.
 * timeout_ms bounds each request. 0, or -1 with err set (unreachable, HTTP
 * 403 without a token, neither endpoint exists). */
int minio_get_count(const char *base, const char *bearer, long timeout_ms, struct minio_gets *out,
                    char *err, size_t errlen);

/* The GetObject counts of one page's text, v3's (v2 0) or v2's, into out
 * (requests, errors, cached, present): 1 when the counter is there, 0 when
 * it is not, -1 with err when its value is no count (negative, fractional,
 * NaN, past 2^64, or fewer requests than errors). */
int minio_counts_parse(const char *text, int v2, struct minio_gets *out, char *err, size_t errlen);

/* Sum the samples of metric (exact name) in Prometheus text whose labels
 * include every key/value pair of labels[0..2*npairs) ({"name", "GetObject",
 * "type", "s3"}). Returns 1 when the metric family appears (a TYPE line or
 * a sample), else 0 with *sum = 0. For tests and for the fall-back logic. */
int prom_sum(const char *text, const char *metric, const char *const *labels, int npairs,
             double *sum);

#endif
