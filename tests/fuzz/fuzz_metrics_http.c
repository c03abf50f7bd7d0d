/* fuzz_metrics_http.c -- a request to the live /metrics endpoint as
 * metrics/metrics_http.c reads it: at most METRICS_REQ_MAX - 1 bytes
 * from anyone who can connect, up to its first NUL as the server's string
 * search sees it. The parse must route every request somewhere (400 when
 * nothing else fits), never read past it, and agree with a reading of its
 * own on the plain cases. */
#include "../../metrics/metrics.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > METRICS_REQ_MAX - 1)
        size = METRICS_REQ_MAX - 1; /* the server answers 431 before parsing more */
    char *req = fuzz_cstr(data, size);
    struct metrics_request rq;
    metrics_parse_request(req, &rq);
    if (rq.route > METRICS_EXPOSITION || (rq.head != 0 && rq.head != 1) ||
        (rq.openmetrics != 0 && rq.openmetrics != 1))
        abort();
    /* The request line Prometheus sends: the exposition, with its body. */
    if (!strncmp(req, "GET /metrics HTTP/1.1\r\n", 23) &&
        (rq.route != METRICS_EXPOSITION || rq.head))
        abort();
    if (!strncmp(req, "POST ", 5) && rq.route != METRICS_METHOD && rq.route != METRICS_BAD)
        abort();
    if (rq.route != METRICS_EXPOSITION && rq.openmetrics)
        abort(); /* the format is chosen for /metrics only */
    free(req);
    return 0;
}
