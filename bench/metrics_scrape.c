/* metrics_scrape.c -- what one /metrics scrape costs the coordinator: the
 * exposition rendered from N workers' slots (all three workloads, each
 * worker's latency histogram spread over three decades like a real run's),
 * back to back, CPU time per scrape, the bytes it makes, and that as a share
 * of one core at a scrape interval; then whole scrapes over loopback HTTP
 * (accept, read, render, write, close) against the same slots. With
 * `paced`, the layout of an --arrival fixed run: each worker's service-time
 * histograms (the latencies less 0-1 ms) and its lateness histogram (1 us to
 * 10 ms) filled too, as the paced families read them.
 *
 *   build/bench/metrics_scrape [WORKERS] [SCRAPES] [INTERVAL] [paced]   (256, 2000, 1 s)
 *
 * The share of the coordinator's own CPU a run's scrapes add is measured
 * with a real Prometheus by bench/metrics (with and without the endpoint). */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "metrics.h"
#include "util.h"

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

int main(int argc, char **argv) {
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 256;
    int scrapes = argc > 2 ? atoi(argv[2]) : 2000;
    double interval = argc > 3 ? atof(argv[3]) : 1.0;
    int paced = argc > 4 && !strcmp(argv[4], "paced");
    static struct config cfg;
    char err[512], cont[16];
    snprintf(cont, sizeof cont, "%u", n);
    char *av[] = {"run",       "--containers", cont,           "--out", "/tmp/bench-metrics",
                  "--arrival", "fixed",        "--agent-rate", "100"};
    if (options_load(&cfg, paced ? 9 : 5, av, 1, err, sizeof err) != 0) {
        fprintf(stderr, "metrics_scrape: %s\n", err);
        return 2;
    }
    cfg.n = n;
    struct run_ctx r = {.cfg = &cfg};
    if (layout_build(&cfg, &r.lay, err, sizeof err) != 0) {
        fprintf(stderr, "metrics_scrape: %s\n", err);
        return 2;
    }
    r.shm = calloc(n, r.lay.slot_size);
    struct worker_end *we = calloc(n, sizeof *we);
    if (!r.shm || !we)
        return 1;
    struct rng g;
    rng_seed(&g, 1, 2, 3);
    for (unsigned i = 0; i < n; i++) {
        struct worker_slot *s = run_slot(&r, i);
        for (unsigned h = 0; h < r.lay.nhist; h++)
            hist_init(slot_hist(&r, s, h));
        for (unsigned w = 0; w < r.lay.nwl; w++) {
            unsigned ops = r.lay.wl[w]->ops_per_cycle;
            s->wl[w].ops = ops;
            for (unsigned k = 0; k < ops; k++) { /* 0.1 ms to 100 ms, log-uniform */
                uint64_t v = (uint64_t)(1e5 * pow(10.0, (double)rng_below(&g, 3000) / 1000));
                hist_add(slot_hist(&r, s, lay_hist_lat(&r.lay, w)), v);
                if (!r.lay.paced)
                    continue;
                uint64_t late = (uint64_t)(1e3 * pow(10.0, (double)rng_below(&g, 4000) / 1000));
                hist_add(slot_hist(&r, s, lay_hist_svc(&r.lay, w)), v > late ? v - late : 0);
                hist_add(slot_hist(&r, s, r.lay.hist_late), late);
            }
        }
        atomic_store(&s->done, 700);
        atomic_store(&s->phase, PH_RUNNING);
    }
    struct metrics_run run = {&r, we, n, 1, 1, 0, -1, NULL};
    struct metrics_labels lab;
    metrics_labels_init(&lab, &cfg);
    struct buf b = {0};
    /* Without the cache every histogram is walked: every worker adding to
     * every histogram between two scrapes, the worst case. With it, as here
     * between scrapes of a finished run, none is. */
    for (int om = 0; om < 2; om++)
        for (int cached = 0; cached < 2; cached++) {
            struct metrics_cache cache = {0};
            struct metrics_cache *cp = cached ? &cache : NULL;
            metrics_render(&b, &run, &lab, cp, om, 2000000000LL); /* warm: buffers grow once */
            double c0 = cpu_seconds();
            for (int k = 0; k < scrapes; k++)
                metrics_render(&b, &run, &lab, cp, om, 2000000000LL + k);
            double per = (cpu_seconds() - c0) / scrapes;
            printf("%u workers%s, %s, %s: %zu bytes, render %.1f us CPU per scrape, %.4f %% of one "
                   "core at a %.3g s scrape interval\n",
                   n, r.lay.paced ? " (paced)" : "", om ? "OpenMetrics" : "text 0.0.4",
                   cached ? "histograms unchanged since the last scrape"
                          : "every histogram changed",
                   b.len, per * 1e6, 100 * per / interval, interval);
            metrics_cache_free(&cache);
        }

    /* Whole scrapes over loopback: the server's side as the coordinator runs it. */
    int port = free_port();
    snprintf(cfg.metrics_listen, sizeof cfg.metrics_listen, "127.0.0.1:%d", port);
    struct metrics *m = metrics_open(&cfg, err, sizeof err);
    if (!m) {
        fprintf(stderr, "metrics_scrape: %s\n", err);
        return 1;
    }
    static char resp[1 << 22];
    double server = 0;
    int ok = 0, http = scrapes / 10 ? scrapes / 10 : 1;
    for (int k = 0; k < http; k++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
            break;
        static const char req[] = "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;"
                                  "version=1.0.0\r\n\r\n";
        if (write(fd, req, sizeof req - 1) < 0)
            break;
        size_t got = 0;
        for (int spin = 0; spin < 1000; spin++) {
            double c0 = cpu_seconds();
            metrics_serve(m, &run); /* the client's reads below are not the server's */
            server += cpu_seconds() - c0;
            struct pollfd p = {fd, POLLIN, 0};
            if (poll(&p, 1, 5) > 0) {
                ssize_t z = read(fd, resp + got, sizeof resp - 1 - got);
                if (z <= 0)
                    break;
                got += (size_t)z;
            }
        }
        close(fd);
        ok += got > 0;
    }
    printf("%d HTTP scrapes over loopback: %.1f us of server CPU per scrape (accept to close), "
           "%.4f %% of one core at a %.3g s interval\n",
           ok, server / (ok ? ok : 1) * 1e6, 100 * server / (ok ? ok : 1) / interval, interval);
    metrics_close(m);
    buf_free(&b);
    free(r.shm);
    free(we);
    options_free(&cfg);
    return 0;
}
