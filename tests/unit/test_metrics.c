/* test_metrics.c -- the /metrics exposition on slots filled by hand (values
 * and bucket counts worked out here, not by the exporter's code), a paced
 * run's service-time and lateness histograms beside the response time (and
 * a closed loop without them), the run id taken from the run directory, and
 * the HTTP side over real sockets on loopback: content negotiation,
 * 404/405/HEAD, a port in use and a malformed address refused in one line.
 * The limits: ":PORT" listening on 127.0.0.1
 * as the kernel's /proc/net/tcp shows it, at most one render per 100 ms
 * however many scrapes (the counter the endpoint exposes, against the
 * test's own clock), the final figures never held back, and eight idle
 * connections delaying a ninth by about 2 s, not 10, with the loop woken
 * by the endpoint's own timer. Prometheus itself and promtool check the
 * format in tests/integration/test_metrics.sh. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../coordinator/cmdline.h"
#include "../../metrics/metrics.h"
#include "../../workloads/db.h"
#include "../../workloads/s3_util.h"
#include "unit.h"

/* The value of the sample line starting with `prefix` (labels included up
 * to where the caller stops), or -1 when there is none. */
static double value_of(const char *text, const char *prefix) {
    for (const char *p = text; (p = strstr(p, prefix)); p++) {
        if (p != text && p[-1] != '\n')
            continue;
        const char *sp = strstr(p, "} ");
        const char *nl = strchr(p, '\n');
        if (!sp || (nl && sp > nl))
            continue;
        return strtod(sp + 2, NULL);
    }
    return -1;
}

static int has_line(const char *text, const char *line) {
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p++)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0))
            return 1;
    return 0;
}

#define L "{run_id=\"r\\\"1\\\\\",shard=\"0\",host=\"h\""

static void test_exposition(void) {
    static struct config cfg;
    char err[512];
    char *argv[] = {"run", "--workloads", "s3,db", "--containers", "2"};
    CHECKF(options_load(&cfg, 5, argv, 1, err, sizeof err) == 0, "%s", err);
    cfg.n = 2;
    struct run_ctx r = {.cfg = &cfg};
    CHECK(layout_build(&cfg, &r.lay, err, sizeof err) == 0);
    r.shm = calloc(2, r.lay.slot_size);
    for (unsigned i = 0; i < 2; i++)
        for (unsigned h = 0; h < r.lay.nhist; h++)
            hist_init(slot_hist(&r, run_slot(&r, i), h));
    struct worker_slot *a = run_slot(&r, 0), *b = run_slot(&r, 1);
    /* Worker 0 is in its queries (1,200 of a cycle's 1,240 done: 1,190 GETs
     * first); worker 1 is done. */
    a->wl[0].ops = 1190, a->wl[0].class_ops[2] = 190;
    a->wl[1].ops = 9, a->wl[1].errors = 1, a->wl[1].class_errors[DB_POINT] = 1;
    atomic_store(&a->done, 1200);
    atomic_store(&a->phase, PH_RUNNING);
    b->wl[0].ops = 1188, b->wl[0].errors = 2;
    b->wl[1].ops = 50;
    atomic_store(&b->done, 1240);
    atomic_store(&b->phase, PH_DONE);
    /* s3 latencies: 0.3 ms, 2 ms, 2 ms, 7 s in worker 0, 40 ms in worker 1;
     * 999 us (below the 1 ms bound) and exactly 1 ms (the fine bucket that
     * holds it reaches past 1 ms, so it counts in the next bound). */
    const uint64_t lat0[] = {300000, 2000000, 2000000, 7000000000ULL, 999000, 1000000};
    for (size_t k = 0; k < sizeof lat0 / sizeof lat0[0]; k++)
        hist_add(slot_hist(&r, a, lay_hist_lat(&r.lay, 0)), lat0[k]);
    hist_add(slot_hist(&r, b, lay_hist_lat(&r.lay, 0)), 40000000);
    a->end_ns = 2500000000LL, b->end_ns = 3000000000LL;

    struct worker_end we[2] = {{.pid = 1}, {.pid = 2, .reaped = 1}};
    struct metrics_run run = {&r, we, 2, 1, 1000000000LL, 0, -1, NULL};
    struct metrics_labels lab = {.run_id = "r\"1\\", .host = "h", .shard = 0, .shards = 1};
    struct buf m = {0};

    metrics_render(&m, &run, &lab, NULL, 0, 2000000000LL);
    const char *t = m.p;
    CHECK(t && !m.err);
    CHECK(has_line(t, "# TYPE aops_operations_total counter"));
    CHECK(value_of(t, "aops_operations_total" L ",workload=\"s3\"}") == 2378);
    CHECK(value_of(t, "aops_operations_total" L ",workload=\"db\"}") == 59);
    CHECK(value_of(t, "aops_errors_total" L ",workload=\"s3\"}") == 2);
    CHECK(value_of(t, "aops_class_operations_total" L ",workload=\"s3\",class=\"50MiB\"}") == 190);
    CHECK(value_of(t, "aops_class_errors_total" L ",workload=\"db\",class=\"point\"}") == 1);
    /* 2,437 completions in the 1 s since the release (now - t0). */
    CHECK(value_of(t, "aops_run_elapsed_seconds" L "}") == 1.0);
    CHECK(value_of(t, "aops_run_aops" L "}") == 2437.0);
    CHECK(value_of(t, "aops_run_expected_operations" L "}") == 2 * 1240);
    CHECK(strstr(t, "aops_run_valid") == NULL); /* not written yet */
#define BUCKET(le) "aops_operation_duration_seconds_bucket" L ",workload=\"s3\",le=\"" le "\"}"
    CHECK(value_of(t, BUCKET("0.00025")) == 0);
    CHECK(value_of(t, BUCKET("0.0005")) == 1);
    CHECK(value_of(t, BUCKET("0.001")) == 2);  /* 0.3 ms, 999 us */
    CHECK(value_of(t, BUCKET("0.0025")) == 5); /* + 1 ms, 2 ms, 2 ms */
    CHECK(value_of(t, BUCKET("0.025")) == 5);
    CHECK(value_of(t, BUCKET("0.05")) == 6); /* + 40 ms */
    CHECK(value_of(t, BUCKET("5.0")) == 6);
    CHECK(value_of(t, BUCKET("10.0")) == 7); /* + 7 s */
    CHECK(value_of(t, BUCKET("+Inf")) == 7);
    CHECK(value_of(t, "aops_operation_duration_seconds_count" L ",workload=\"s3\"}") == 7);
    /* The sum exactly: 7.046299 s. */
    CHECK(has_line(t, "aops_operation_duration_seconds_sum" L ",workload=\"s3\"} 7.046299000"));
    CHECK(value_of(t, "aops_operation_duration_seconds_count" L ",workload=\"db\"}") == 0);
    /* A closed loop: neither paced family, not even empty. */
    CHECK(strstr(t, "aops_operation_service_seconds") == NULL);
    CHECK(strstr(t, "aops_pacer_lateness_seconds") == NULL);
    CHECK(value_of(t, "aops_containers" L ",state=\"running\"}") == 1);
    CHECK(value_of(t, "aops_containers" L ",state=\"done\"}") == 1);
    CHECK(value_of(t, "aops_containers" L ",state=\"failed\"}") == 0);
    CHECK(value_of(t, "aops_worker_phase" L ",container=\"0\",phase=\"db\"}") == 1);
    CHECK(value_of(t, "aops_worker_phase" L ",container=\"1\",phase=\"done\"}") == 1);
    /* No telemetry sample yet: the gauges are absent, never 0. */
    CHECK(strstr(t, "aops_cpu_utilization_ratio") == NULL);
    CHECK(strstr(t, "aops_power_watts") == NULL);
    CHECK(strstr(t, "# EOF") == NULL);

    /* With the cache: the same figures; a histogram that moved is read again,
     * one that did not is taken from the cache. */
    struct metrics_cache cache = {0};
    metrics_render(&m, &run, &lab, &cache, 0, 2000000000LL);
    CHECK(value_of(m.p, BUCKET("10.0")) == 7 && value_of(m.p, BUCKET("+Inf")) == 7);
    hist_add(slot_hist(&r, b, lay_hist_lat(&r.lay, 0)), 20000000000ULL); /* 20 s */
    metrics_render(&m, &run, &lab, &cache, 0, 2000000000LL);
    CHECK(value_of(m.p, BUCKET("10.0")) == 7 && value_of(m.p, BUCKET("25.0")) == 8);
    CHECK(has_line(m.p, "aops_operation_duration_seconds_sum" L ",workload=\"s3\"} 27.046299000"));

    /* Worker 0 crashed (reaped, its slot still says running); all ended, the
     * result written and invalid: AOPS up to the last completion (2 s). */
    we[0].reaped = 1;
    run.ended = 1, run.verdict = 0;
    metrics_render(&m, &run, &lab, &cache, 1, 9000000000LL);
    t = m.p;
    CHECK(value_of(t, "aops_containers" L ",state=\"failed\"}") == 1);
    CHECK(value_of(t, "aops_worker_phase" L ",container=\"0\",phase=\"failed\"}") == 1);
    CHECK(value_of(t, "aops_run_elapsed_seconds" L "}") == 2.0);
    CHECK(value_of(t, "aops_run_aops" L "}") == 2437.0 / 2);
    CHECK(value_of(t, "aops_run_valid" L "}") == 0);
    /* OpenMetrics: families without _total, UNIT, info, and # EOF last. */
    CHECK(has_line(t, "# TYPE aops_operations counter"));
    CHECK(has_line(t, "# TYPE aops_run info"));
    CHECK(has_line(t, "# UNIT aops_operation_duration_seconds seconds"));
    CHECK(value_of(t, "aops_run_info" L ",containers=\"2\",shards=\"1\"") == 1);
    CHECK(m.len >= 6 && !strcmp(m.p + m.len - 6, "# EOF\n"));

    /* Not released: no AOPS, no elapsed time. */
    run.released = 0, run.verdict = -1;
    metrics_render(&m, &run, &lab, &cache, 0, 9000000000LL);
    CHECK(strstr(m.p, "aops_run_aops") == NULL && strstr(m.p, "aops_run_elapsed") == NULL);

    buf_free(&m);
    metrics_cache_free(&cache);
    free(r.shm);
    options_free(&cfg);
}

/* A paced run (--arrival fixed): the service-time family per workload and
 * the pacer's lateness (no workload label) beside the response time, each
 * from its own slot histograms; the bucket counts and sums worked out here
 * from the values put in (a fine bucket goes to the first bound its last
 * value is at or below). */
static void test_paced(void) {
    static struct config cfg;
    char err[512];
    char *argv[] = {"run",       "--workloads", "s3,db",        "--containers", "2",
                    "--arrival", "fixed",       "--agent-rate", "100"};
    CHECKF(options_load(&cfg, 9, argv, 1, err, sizeof err) == 0, "%s", err);
    cfg.n = 2;
    struct run_ctx r = {.cfg = &cfg};
    CHECK(layout_build(&cfg, &r.lay, err, sizeof err) == 0);
    CHECK(r.lay.paced);
    r.shm = calloc(2, r.lay.slot_size);
    for (unsigned i = 0; i < 2; i++)
        for (unsigned h = 0; h < r.lay.nhist; h++)
            hist_init(slot_hist(&r, run_slot(&r, i), h));
    struct worker_slot *a = run_slot(&r, 0), *b = run_slot(&r, 1);
    atomic_store(&a->phase, PH_RUNNING);
    atomic_store(&b->phase, PH_RUNNING);
    /* s3 response times: 5 ms in worker 0 (one value: the response time's
     * own slot, not the service time's). */
    hist_add(slot_hist(&r, a, lay_hist_lat(&r.lay, 0)), 5000000);
    /* s3 service times: 0.2 ms ([198656, 200704) ns: le 0.00025) and 3 ms
     * ([2981888, 3014656): le 0.005) in worker 0, 30 ms ([29884416,
     * 30146560): le 0.05) in worker 1. Sum 33.2 ms. */
    hist_add(slot_hist(&r, a, lay_hist_svc(&r.lay, 0)), 200000);
    hist_add(slot_hist(&r, a, lay_hist_svc(&r.lay, 0)), 3000000);
    hist_add(slot_hist(&r, b, lay_hist_svc(&r.lay, 0)), 30000000);
    /* db service time: exactly 1 ms in worker 1, whose fine bucket reaches
     * past 1 ms: le 0.0025. */
    hist_add(slot_hist(&r, b, lay_hist_svc(&r.lay, 1)), 1000000);
    /* Lateness: 0, 20 us ([19968, 20224)) and 60 us ([59904, 60416)) in
     * worker 0, 2 ms ([1998848, 2015232)) in worker 1. Sum 2.08 ms. */
    const uint64_t late0[] = {0, 20000, 60000};
    for (size_t k = 0; k < sizeof late0 / sizeof late0[0]; k++)
        hist_add(slot_hist(&r, a, r.lay.hist_late), late0[k]);
    hist_add(slot_hist(&r, b, r.lay.hist_late), 2000000);

    struct worker_end we[2] = {{.pid = 1}, {.pid = 2}};
    struct metrics_run run = {&r, we, 2, 1, 1000000000LL, 0, -1, NULL};
    struct metrics_labels lab = {.run_id = "r\"1\\", .host = "h", .shard = 0, .shards = 1};
    struct buf m = {0};
    struct metrics_cache cache = {0};
#define SVC(le) "aops_operation_service_seconds_bucket" L ",workload=\"s3\",le=\"" le "\"} "
#define LATE(le) "aops_pacer_lateness_seconds_bucket" L ",le=\"" le "\"} "
    /* Without a cache, then twice with one (the second from it). */
    for (int pass = 0; pass < 3; pass++) {
        metrics_render(&m, &run, &lab, pass ? &cache : NULL, 0, 2000000000LL);
        const char *t = m.p;
        CHECK(t && !m.err);
        CHECK(has_line(t, "# TYPE aops_operation_service_seconds histogram"));
        CHECK(has_line(t, "# TYPE aops_pacer_lateness_seconds histogram"));
        CHECK(strstr(t, "# HELP aops_operation_duration_seconds ") &&
              strstr(t, "in a paced run (--arrival, --think-time) the response time"));
        CHECK(has_line(t, "aops_operation_duration_seconds_count" L ",workload=\"s3\"} 1"));
        CHECK(has_line(t, SVC("0.0001") "0"));
        CHECK(has_line(t, SVC("0.00025") "1"));
        CHECK(has_line(t, SVC("0.0025") "1"));
        CHECK(has_line(t, SVC("0.005") "2"));
        CHECK(has_line(t, SVC("0.025") "2"));
        CHECK(has_line(t, SVC("0.05") "3"));
        CHECK(has_line(t, SVC("+Inf") "3"));
        CHECK(has_line(t, "aops_operation_service_seconds_count" L ",workload=\"s3\"} 3"));
        CHECK(has_line(t, "aops_operation_service_seconds_sum" L ",workload=\"s3\"} 0.033200000"));
        CHECK(has_line(t, "aops_operation_service_seconds_bucket" L
                          ",workload=\"db\",le=\"0.001\"} 0"));
        CHECK(has_line(t, "aops_operation_service_seconds_bucket" L
                          ",workload=\"db\",le=\"0.0025\"} 1"));
        CHECK(has_line(t, "aops_operation_service_seconds_sum" L ",workload=\"db\"} 0.001000000"));
        CHECK(has_line(t, LATE("5e-05") "2"));
        CHECK(has_line(t, LATE("0.0001") "3"));
        CHECK(has_line(t, LATE("0.001") "3"));
        CHECK(has_line(t, LATE("0.0025") "4"));
        CHECK(has_line(t, LATE("+Inf") "4"));
        CHECK(has_line(t, "aops_pacer_lateness_seconds_count" L "} 4"));
        CHECK(has_line(t, "aops_pacer_lateness_seconds_sum" L "} 0.002080000"));
        CHECK(strstr(t, "aops_pacer_lateness_seconds_bucket" L ",workload=") == NULL);
    }
    /* Worker 1 sends one 7 s late: the cached render walks its lateness
     * again, and only that (its service time and the response time stay). */
    hist_add(slot_hist(&r, b, r.lay.hist_late), 7000000000ULL);
    metrics_render(&m, &run, &lab, &cache, 1, 2000000000LL);
    const char *t = m.p;
    CHECK(has_line(t, LATE("5.0") "4"));
    CHECK(has_line(t, LATE("10.0") "5"));
    CHECK(has_line(t, "aops_pacer_lateness_seconds_count" L "} 5"));
    CHECK(has_line(t, "aops_pacer_lateness_seconds_sum" L "} 7.002080000"));
    CHECK(has_line(t, "aops_operation_service_seconds_count" L ",workload=\"s3\"} 3"));
    CHECK(has_line(t, "aops_operation_duration_seconds_count" L ",workload=\"s3\"} 1"));
    /* OpenMetrics: the unit of each. */
    CHECK(has_line(t, "# UNIT aops_operation_service_seconds seconds"));
    CHECK(has_line(t, "# UNIT aops_pacer_lateness_seconds seconds"));
#undef SVC
#undef LATE
    buf_free(&m);
    metrics_cache_free(&cache);
    free(r.shm);
    options_free(&cfg);
}

static void test_run_id(void) {
    static struct config cfg;
    struct metrics_labels l;
    const char *cases[][2] = {
        {"/x/results/20260101-101010", "20260101-101010"},
        {"/x/results/20260101-101010/", "20260101-101010"},
        {"/x/results/sweep/points/4", "sweep"},
        {"/x/results/rep/runs/2", "rep"},
        {"/x/results/both/points/16/runs/3", "both"},
        {"/x/results/runs", "runs"},
        {"/x/results/7", "7"},
        {"k8s-run-1", "k8s-run-1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(cfg.out, sizeof cfg.out, "%s", cases[i][0]);
        metrics_labels_init(&l, &cfg);
        CHECKF(!strcmp(l.run_id, cases[i][1]), "%s -> %s, not %s", cases[i][0], l.run_id,
               cases[i][1]);
    }
    cfg.shard = 2, cfg.shards = 3;
    metrics_labels_init(&l, &cfg);
    CHECK(l.shard == 2 && l.shards == 3 && l.host[0]);
}

/* A free loopback port: bind port 0, read it, close. */
static int free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    close(fd);
    return ntohs(a.sin_port);
}

/* Send req to port and serve until the server closes: the whole response. */
static void exchange(struct metrics *m, const struct metrics_run *run, int port, const char *req,
                     char *resp, size_t len) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    size_t got = 0;
    resp[0] = 0;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return;
    }
    if (write(fd, req, strlen(req)) < 0) {
        close(fd);
        return;
    }
    for (int i = 0; i < 2000; i++) {
        struct pollfd p[1 + METRICS_MAX_FDS];
        int n = metrics_pollfds(m, p, METRICS_MAX_FDS);
        p[n] = (struct pollfd){fd, POLLIN, 0};
        poll(p, (nfds_t)n + 1, 10);
        metrics_serve(m, run);
        if (p[n].revents & (POLLIN | POLLHUP)) {
            ssize_t k = read(fd, resp + got, len - 1 - got);
            if (k <= 0)
                break;
            got += (size_t)k;
        }
    }
    resp[got] = 0;
    close(fd);
}

static void test_http(void) {
    static struct config cfg;
    char err[512];
    char *argv[] = {"run", "--workloads", "sleep", "--containers", "1"};
    CHECKF(options_load(&cfg, 5, argv, 1, err, sizeof err) == 0, "%s", err);
    cfg.n = 1;
    struct run_ctx r = {.cfg = &cfg};
    CHECK(layout_build(&cfg, &r.lay, err, sizeof err) == 0);
    r.shm = calloc(1, r.lay.slot_size);
    struct worker_end we[1] = {{0}};
    struct metrics_run run = {&r, we, 0, 0, 0, 0, -1, NULL};

    snprintf(cfg.metrics_listen, sizeof cfg.metrics_listen, "localhost");
    CHECK(metrics_open(&cfg, err, sizeof err) == NULL && strstr(err, "expected ADDR:PORT"));
    snprintf(cfg.metrics_listen, sizeof cfg.metrics_listen, "::1:9464"); /* needs brackets */
    CHECK(metrics_open(&cfg, err, sizeof err) == NULL && strstr(err, "expected ADDR:PORT"));
    snprintf(cfg.metrics_listen, sizeof cfg.metrics_listen, "127.0.0.1:70000");
    CHECK(metrics_open(&cfg, err, sizeof err) == NULL && strstr(err, "1 to 65535"));
    snprintf(cfg.metrics_listen, sizeof cfg.metrics_listen, "192.0.2.1:9464"); /* not ours */
    CHECK(metrics_open(&cfg, err, sizeof err) == NULL &&
          strstr(err, "Cannot assign requested address"));

    int port = free_port();
    CHECK(port > 0);
    snprintf(cfg.metrics_listen, sizeof cfg.metrics_listen, "127.0.0.1:%d", port);
    struct metrics *m = metrics_open(&cfg, err, sizeof err);
    CHECKF(m != NULL, "%s", err);
    if (!m)
        return;
    /* The same port again: in use, one line. */
    struct metrics *m2 = metrics_open(&cfg, err, sizeof err);
    CHECK(m2 == NULL && strstr(err, "Address already in use") && !strchr(err, '\n'));

    static char resp[1 << 16];
    exchange(m, &run, port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", resp, sizeof resp);
    CHECK(!strncmp(resp, "HTTP/1.1 200 OK\r\n", 17));
    CHECK(strstr(resp, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
    CHECK(strstr(resp, "aops_containers{") && !strstr(resp, "# EOF"));
    /* Content-Length is the body's length. */
    const char *body = strstr(resp, "\r\n\r\n");
    const char *cl = strstr(resp, "Content-Length: ");
    CHECK(body && cl && strtoul(cl + 16, NULL, 10) == strlen(body + 4));

    exchange(m, &run, port,
             "GET /metrics?x=1 HTTP/1.1\r\naccept: application/openmetrics-text;version=1.0.0,"
             "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,"
             "*/*;q=0.1\r\n\r\n",
             resp, sizeof resp);
    CHECK(strstr(resp, "Content-Type: application/openmetrics-text; version=1.0.0; "
                       "charset=utf-8\r\n"));
    CHECK(strlen(resp) > 6 && !strcmp(resp + strlen(resp) - 6, "# EOF\n"));
    exchange(m, &run, port,
             "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;q=0,text/plain\r\n\r\n",
             resp, sizeof resp);
    CHECK(strstr(resp, "version=0.0.4"));

    exchange(m, &run, port, "HEAD /metrics HTTP/1.1\r\n\r\n", resp, sizeof resp);
    body = strstr(resp, "\r\n\r\n");
    CHECK(!strncmp(resp, "HTTP/1.1 200", 12) && body && body[4] == 0);
    exchange(m, &run, port, "GET /nope HTTP/1.1\r\n\r\n", resp, sizeof resp);
    CHECK(!strncmp(resp, "HTTP/1.1 404", 12));
    exchange(m, &run, port, "POST /metrics HTTP/1.1\r\n\r\n", resp, sizeof resp);
    CHECK(!strncmp(resp, "HTTP/1.1 405", 12) && strstr(resp, "Allow: GET, HEAD\r\n"));
    exchange(m, &run, port, "garbage\r\n\r\n", resp, sizeof resp);
    CHECK(!strncmp(resp, "HTTP/1.1 400", 12));

    metrics_close(m);
    free(r.shm);
    options_free(&cfg);
}

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Whether /proc/net/tcp lists a listening socket on port at the address
 * (hex, as the kernel writes it: 0100007F is 127.0.0.1). */
static int kernel_listens(int port, const char *hexaddr) {
    FILE *f = fopen("/proc/net/tcp", "r");
    char line[512], want[32];
    int found = 0;
    snprintf(want, sizeof want, "%s:%04X", hexaddr, port);
    while (f && fgets(line, sizeof line, f)) {
        char local[64], remote[64], st[8];
        if (sscanf(line, "%*s %63s %63s %7s", local, remote, st) == 3 && !strcmp(st, "0A") &&
            !strcmp(local, want))
            found = 1;
    }
    if (f)
        fclose(f);
    return found;
}

static void test_limits(void) {
    static struct config cfg;
    char err[512];
    char *argv[] = {"run", "--workloads", "sleep", "--containers", "1"};
    CHECKF(options_load(&cfg, 5, argv, 1, err, sizeof err) == 0, "%s", err);
    cfg.n = 1;
    struct run_ctx r = {.cfg = &cfg};
    CHECK(layout_build(&cfg, &r.lay, err, sizeof err) == 0);
    r.shm = calloc(1, r.lay.slot_size);
    struct worker_end we[1] = {{0}};
    struct metrics_run run = {&r, we, 0, 0, 0, 0, -1, NULL};

    /* ":PORT": this host only. */
    int port = free_port();
    snprintf(cfg.metrics_listen, sizeof cfg.metrics_listen, ":%d", port);
    struct metrics *m = metrics_open(&cfg, err, sizeof err);
    CHECKF(m != NULL, "%s", err);
    if (!m)
        return;
    CHECK(kernel_listens(port, "0100007F"));
    CHECK(!kernel_listens(port, "00000000"));

    /* Scrapes one after another: renders at most one per 100 ms of the
     * test's own clock (+1 for the first), whatever the scrapes' count. */
    static char resp[1 << 16];
    double first = -1, last = -1;
    int scrapes = 0;
    int64_t t0 = mono_ns();
    while (scrapes < 40 || mono_ns() - t0 < 300000000LL) {
        exchange(m, &run, port, "GET /metrics HTTP/1.1\r\n\r\n", resp, sizeof resp);
        const char *body = strstr(resp, "\r\n\r\n");
        double v = body ? value_of(body, "aops_metrics_renders_total{") : -1;
        CHECK(v >= 1);
        if (first < 0)
            first = v;
        last = v;
        scrapes++;
    }
    double el_ms = (double)(mono_ns() - t0) / 1e6;
    CHECKF(last - first + 1 <= el_ms / 100 + 1, "%.0f renders for %d scrapes in %.0f ms",
           last - first + 1, scrapes, el_ms);
    CHECK(last > first); /* and it does render again */

    /* The verdict written: the next scrape shows it, at once. */
    run.released = 1, run.t0 = mono_ns() - 1000000000LL, run.ended = 1;
    exchange(m, &run, port, "GET /metrics HTTP/1.1\r\n\r\n", resp, sizeof resp);
    run.verdict = 1;
    exchange(m, &run, port, "GET /metrics HTTP/1.1\r\n\r\n", resp, sizeof resp);
    CHECK(strstr(resp, "aops_run_valid{") != NULL);

    /* Eight connections that send nothing take every slot; a ninth with a
     * request is answered once the oldest has had its 2 s. The loop polls
     * the endpoint's fds with no timeout of its own: its timer wakes it. */
    int idle[METRICS_MAX_CONNS];
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (int i = 0; i < METRICS_MAX_CONNS; i++) {
        idle[i] = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(connect(idle[i], (struct sockaddr *)&a, sizeof a) == 0);
    }
    metrics_serve(m, &run); /* all eight accepted */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    const char req[] = "GET /metrics HTTP/1.1\r\n\r\n";
    CHECK(write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1));
    t0 = mono_ns();
    int answered = 0;
    for (int wakes = 0; wakes < 10000 && !answered && mono_ns() - t0 < 12000000000LL; wakes++) {
        struct pollfd p[1 + METRICS_MAX_FDS];
        int n = metrics_pollfds(m, p, METRICS_MAX_FDS);
        p[n] = (struct pollfd){fd, POLLIN, 0};
        poll(p, (nfds_t)n + 1, 12000);
        metrics_serve(m, &run);
        char b[64];
        answered =
            (p[n].revents & POLLIN) && read(fd, b, sizeof b) > 0 && !strncmp(b, "HTTP/1.1 200", 12);
    }
    double waited = (double)(mono_ns() - t0) / 1e9;
    CHECKF(answered && waited >= 1.5 && waited < 3.0, "answered %d after %.2f s", answered, waited);
    close(fd);
    for (int i = 0; i < METRICS_MAX_CONNS; i++)
        close(idle[i]);

    metrics_close(m);
    free(r.shm);
    options_free(&cfg);
}

int main(void) {
    test_exposition();
    test_paced();
    test_run_id();
    test_http();
    test_limits();
    return unit_done("metrics");
}
