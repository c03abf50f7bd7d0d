/* metrics.h -- `--metrics-listen ADDR:PORT`: the run's figures, live, for
 * Prometheus at GET /metrics, in the OpenMetrics text format when the
 * scraper asks for it (Accept: application/openmetrics-text) and in the
 * classic Prometheus text format (0.0.4) otherwise.
 *
 * Served by the coordinator alone, from its own event loop: the listening
 * socket and up to METRICS_MAX_CONNS connections are more fds in the poll()
 * it already makes, and every read and write is non-blocking, so a slow or
 * stuck client never holds the loop. A scrape reads the same shared slots the
 * progress line reads, with relaxed atomic loads, and merges the workers'
 * log-linear histograms into classic buckets at that moment; the workers do
 * nothing more per operation. No thread, no allocation per scrape once a
 * connection's buffer has grown to fit.
 *
 * The families (every sample also has run_id, shard and host labels):
 *   aops_run_info{containers,shards,profile,schedule,runtime,version}  info
 *   aops_run_expected_operations, aops_run_elapsed_seconds, aops_run_aops,
 *   aops_run_valid (once the result is written)                       gauges
 *   aops_operations_total{workload}, aops_errors_total{workload}      counters
 *   aops_class_operations_total{workload,class}, aops_class_errors_total
 *   aops_operation_duration_seconds{workload}: latency (in a paced run the
 *     response time, from the scheduled instant)                      histogram
 *   aops_operation_service_seconds{workload}, aops_pacer_lateness_seconds:
 *     a paced run's service time (from the send) and send minus scheduled
 *     instant; a closed-loop run has neither                          histograms
 *   aops_containers{state}: starting, running, done, failed           gauge
 *   aops_worker_phase{container,phase}: 1 for the phase it is in      gauge
 *   aops_cpu_utilization_ratio, aops_storage_read_bytes_per_second,
 *   aops_storage_read_operations_per_second, aops_power_watts{source,scope}
 *     the telemetry sampler's latest interval; absent until measured   gauges
 *   aops_metrics_renders_total: expositions rendered (a scrape within 100 ms
 *     of the last render of its format is answered from it)          counter
 *
 * run_id is the name of the run directory (results/<timestamp>, --out),
 * the same for every point of a sweep and every run of a --repeat. */
#ifndef AOPS_METRICS_H
#define AOPS_METRICS_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/buf.h"
#include "../result/run.h"
#include "../telemetry/telemetry.h"

struct metrics;

/* The coordinator's state as of the call: what a scrape reads. */
struct metrics_run {
    const struct run_ctx *r;
    const struct worker_end *we; /* cfg->n entries; those >= forked not started */
    unsigned forked;
    int released;
    int64_t t0;  /* barrier release, CLOCK_MONOTONIC ns */
    int ended;   /* every worker is gone: AOPS up to the last completion */
    int verdict; /* -1 until the result is written; then 1 valid, 0 not */
    const struct telemetry *tel;
};

/* Listen on cfg->metrics_listen. NULL with err set to one line when the
 * address is malformed or cannot be bound (a port in use). */
struct metrics *metrics_open(const struct config *cfg, char *err, size_t errlen);

#define METRICS_MAX_CONNS 8
#define METRICS_MAX_FDS (2 + METRICS_MAX_CONNS) /* the listener, a timer, the connections */

/* The fds to poll and for what, into p[0..max). Returns how many (0 for a
 * NULL m, so the caller needs no check). One is a timer: the loop wakes when
 * a connection's deadline is due, whatever its own timeout. */
int metrics_pollfds(const struct metrics *m, struct pollfd *p, int max);

/* Accept what is waiting, read requests, answer them: never blocks. */
void metrics_serve(struct metrics *m, const struct metrics_run *run);

void metrics_close(struct metrics *m);

/* Where a request goes, from its head as the server read it (NUL-terminated;
 * the server answers 431 to one of 8 KiB or more before it gets here): its
 * request line and, for /metrics, the format its Accept header asks for.
 * Pure, for the server and its fuzz target (tests/fuzz/fuzz_metrics_http.c). */
enum metrics_route {
    METRICS_BAD,        /* 400: no "METHOD TARGET HTTP/1.x" */
    METRICS_METHOD,     /* 405: neither GET nor HEAD */
    METRICS_ROOT,       /* 200: "/", a pointer to /metrics */
    METRICS_NOTFOUND,   /* 404 */
    METRICS_EXPOSITION, /* 200: /metrics */
};
struct metrics_request {
    enum metrics_route route;
    int head;        /* HEAD: the answer without its body */
    int openmetrics; /* Accept asks for application/openmetrics-text (q > 0) */
};
void metrics_parse_request(const char *req, struct metrics_request *out);
#define METRICS_REQ_MAX 8192

/* --- the exposition (metrics.c); the server above is metrics_http.c ---- */

struct metrics_labels {
    char run_id[256], host[256];
    unsigned shard, shards;
};
/* From the config and this host. */
void metrics_labels_init(struct metrics_labels *l, const struct config *cfg);

/* The histogram's bucket bounds in seconds, as the le labels print them. */
#define METRICS_NBOUNDS 21
extern const char *const metrics_bounds[METRICS_NBOUNDS];

/* What the last scrape took from each worker's histograms (latency per
 * workload; in a paced run service time per workload and lateness too): one
 * whose count has not moved since is not walked again (a phased worker
 * fills one histogram at a time, a finished one none), which makes a scrape
 * of many workers cheap. Zero it before the first use; free with
 * metrics_cache_free(). */
struct metrics_cache {
    unsigned n; /* entries: workers x (workloads, or 2 x workloads + 1 when paced) */
    struct metrics_hcache *h;
    uint64_t renders; /* metrics_render calls with this cache: aops_metrics_renders_total */
};
void metrics_cache_free(struct metrics_cache *c);

/* The whole exposition of run at now (CLOCK_MONOTONIC ns) into b (emptied
 * first): OpenMetrics 1.0.0 when openmetrics, else text format 0.0.4.
 * cache may be NULL (every histogram is walked). b->err set: an allocation
 * failed and the text is cut. */
void metrics_render(struct buf *b, const struct metrics_run *run, const struct metrics_labels *l,
                    struct metrics_cache *cache, int openmetrics, int64_t now);

#endif
