/* test_minio_metrics.c -- MinIO's GetObject count from Prometheus text.
 *
 * Pure part: the parser on pages captured from the pinned MinIO
 * (tests/fixtures/minio-metrics: v3 api/requests and v2 node after 11
 * GetObjects, 3 of them errors) and on lines that must not count (another
 * API whose name starts alike, a metric whose name extends ours, malformed
 * labels); then minio_get_count against a one-connection-at-a-time HTTP
 * responder of our own: v3 preferred, v2 when v3 is 404 or lacks the
 * counter, 403 explained, an unreachable port, a counter not there yet.
 *
 * "count URL" prints what the live MinIO at URL says, for
 * tests/integration/test_minio_metrics.sh:
 *   requests=N errors=N present=0|1 cached=0|1 url=... */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "minio_metrics.h"
#include "unit.h"

static char *slurp(const char *rel) {
    char p[1024];
    const char *root = getenv("AOPS_ROOT") ? getenv("AOPS_ROOT") : ".";
    snprintf(p, sizeof p, "%s/tests/fixtures/minio-metrics/%s", root, rel);
    FILE *f = fopen(p, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s (run from the repository root)\n", p);
        exit(1);
    }
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static const char *V3[] = {"name", "GetObject", "type", "s3"};
static const char *V2[] = {"api", "getobject"};

static void test_parser(void) {
    double s;
    char *v3 = slurp("v3-api-requests.prom"), *v2 = slurp("v2-node.prom");
    CHECK(prom_sum(v3, "minio_api_requests_total", V3, 2, &s) == 1 && s == 11);
    CHECK(prom_sum(v3, "minio_api_requests_errors_total", V3, 2, &s) == 1 && s == 3);
    CHECK(prom_sum(v2, "minio_s3_requests_total", V2, 1, &s) == 1 && s == 11);
    CHECK(prom_sum(v2, "minio_s3_requests_errors_total", V2, 1, &s) == 1 && s == 3);
    /* putobject is there too, and must not be added in */
    CHECK(prom_sum(v2, "minio_s3_requests_total", NULL, 0, &s) == 1 && s == 13);
    CHECK(prom_sum(v2, "minio_no_such_metric", V2, 1, &s) == 0 && s == 0);
    free(v3);
    free(v2);

    const char *t = "# HELP minio_api_requests_total Total number of requests\n"
                    "# TYPE minio_api_requests_total counter\n"
                    "minio_api_requests_total{name=\"GetObject\",server=\"a:9000\",type=\"s3\"} 5\n"
                    "minio_api_requests_total{type=\"s3\",server=\"b:9000\",name=\"GetObject\"} "
                    "1.5e+03\n"
                    "minio_api_requests_total{name=\"GetObjectAttributes\",type=\"s3\"} 100\n"
                    "minio_api_requests_total{name=\"GetObject\",type=\"admin\"} 1000\n"
                    "minio_api_requests_total_extra{name=\"GetObject\",type=\"s3\"} 7\n"
                    "minio_api_requests_total{name=\"Get\\\"Object\",type=\"s3\"} 9\n"
                    "minio_api_requests_total{name=GetObject,type=\"s3\"} 11\n"
                    "minio_api_requests_total{name=\"GetObject\",type=\"s3\" 13\n";
    CHECKF(prom_sum(t, "minio_api_requests_total", V3, 2, &s) == 1 && s == 1505, "%f", s);
    const char *esc[] = {"name", "Get\"Object"};
    CHECK(prom_sum(t, "minio_api_requests_total", esc, 1, &s) == 1 && s == 9);
    /* a family with no sample yet */
    CHECK(prom_sum("# TYPE minio_api_requests_total counter\n", "minio_api_requests_total", V3, 2,
                   &s) == 1 &&
          s == 0);
    CHECK(prom_sum("# TYPE minio_api_requests_total_x counter\n", "minio_api_requests_total", V3, 2,
                   &s) == 0);
    CHECK(prom_sum("", "minio_api_requests_total", V3, 2, &s) == 0);
}

/* ---- a tiny HTTP responder: path -> canned answer ---- */

struct route {
    const char *path;
    int code;
    const char *body;
};

static pid_t serve(const struct route *r, int n, int *port) {
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 8) ||
        getsockname(s, (struct sockaddr *)&a, &al))
        return -1;
    *port = ntohs(a.sin_port);
    pid_t pid = fork();
    if (pid != 0) {
        close(s);
        return pid;
    }
    for (;;) {
        int c = accept(s, NULL, NULL);
        char req[4096] = "", path[1024] = "", out[8192];
        ssize_t got = c >= 0 ? read(c, req, sizeof req - 1) : -1;
        if (got <= 0 || sscanf(req, "GET %1023s", path) != 1) {
            close(c);
            continue;
        }
        int code = 404;
        const char *body = "not found\n";
        for (int i = 0; i < n; i++)
            if (!strcmp(path, r[i].path))
                code = r[i].code, body = r[i].body;
        int len = snprintf(out, sizeof out,
                           "HTTP/1.1 %d X\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                           code, strlen(body), body);
        if (write(c, out, (size_t)len) < 0)
            _exit(1);
        close(c);
    }
}

static void stop(pid_t p) {
    kill(p, SIGKILL);
    waitpid(p, NULL, 0);
}

#define V3P "/minio/metrics/v3/api/requests"
#define V2P "/minio/v2/metrics/node"
#define V3T                                                                                        \
    "# TYPE minio_api_requests_total counter\n"                                                    \
    "minio_api_requests_total{name=\"GetObject\",server=\"x\",type=\"s3\"} 42\n"                   \
    "minio_api_requests_errors_total{name=\"GetObject\",server=\"x\",type=\"s3\"} 2\n"
#define V2T                                                                                        \
    "minio_s3_requests_total{api=\"getobject\",server=\"x\"} 40\n"                                 \
    "minio_s3_requests_errors_total{api=\"getobject\",server=\"x\"} 1\n"

static void test_fetch(void) {
    char base[64], err[512];
    int port;
    struct minio_gets g;

    struct route both[] = {{V3P, 200, V3T}, {V2P, 200, V2T}};
    pid_t p = serve(both, 2, &port);
    snprintf(base, sizeof base, "http://127.0.0.1:%d/", port); /* a trailing slash is fine */
    CHECKF(minio_get_count(base, NULL, 2000, &g, err, sizeof err) == 0, "%s", err);
    CHECK(g.requests == 42 && g.errors == 2 && g.present && !g.cached);
    CHECKF(strstr(g.url, V3P) && !strstr(g.url, "//minio"), "%s", g.url);
    stop(p);

    /* an older MinIO: no v3, v2 counts (and says its figures may lag) */
    struct route v2only[] = {{V2P, 200, V2T}};
    p = serve(v2only, 1, &port);
    snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
    CHECKF(minio_get_count(base, NULL, 2000, &g, err, sizeof err) == 0, "%s", err);
    CHECK(g.requests == 40 && g.errors == 1 && g.present && g.cached);
    CHECK(strstr(g.url, V2P) != NULL);
    stop(p);

    /* v3 there but without the counter yet: v2's */
    struct route v3empty[] = {{V3P, 200, "# nothing yet\n"}, {V2P, 200, V2T}};
    p = serve(v3empty, 2, &port);
    snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
    CHECK(minio_get_count(base, NULL, 2000, &g, err, sizeof err) == 0 && g.requests == 40);
    stop(p);

    /* a fresh server that answered no GetObject yet: 0, not an error */
    struct route fresh[] = {{V3P, 200, "# nothing yet\n"}, {V2P, 200, "go_threads 9\n"}};
    p = serve(fresh, 2, &port);
    snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
    CHECKF(minio_get_count(base, NULL, 2000, &g, err, sizeof err) == 0, "%s", err);
    CHECK(g.requests == 0 && !g.present && strstr(g.url, V3P));
    stop(p);

    /* A counter that is no count (found by tests/fuzz/fuzz_minio_metrics.c:
     * NaN, a negative value or one past 2^64 was converted to uint64_t,
     * which is undefined): refused in one line, never a figure. */
    static const char *const hostile[] = {
        "minio_api_requests_total{name=\"GetObject\",type=\"s3\"} NaN\n",
        "minio_api_requests_total{name=\"GetObject\",type=\"s3\"} -1\n",
        "minio_api_requests_total{name=\"GetObject\",type=\"s3\"} 1e30\n",
        "minio_api_requests_total{name=\"GetObject\",type=\"s3\"} 2.5\n",
        "minio_api_requests_total{name=\"GetObject\",type=\"s3\"} 3\n"
        "minio_api_requests_errors_total{name=\"GetObject\",type=\"s3\"} 4\n",
    };
    for (size_t k = 0; k < sizeof hostile / sizeof hostile[0]; k++) {
        struct route bad[] = {{V3P, 200, hostile[k]}, {V2P, 200, V2T}};
        p = serve(bad, 2, &port);
        snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
        err[0] = 0;
        CHECKF(minio_get_count(base, NULL, 2000, &g, err, sizeof err) == -1, "%s: %llu", hostile[k],
               (unsigned long long)g.requests);
        CHECKF(strstr(err, "not a count") && !strchr(err, '\n'), "%s", err);
        stop(p);
    }

    /* no public metrics: 403, said how to fix */
    struct route denied[] = {{V3P, 403, "<Error>AccessDenied</Error>"},
                             {V2P, 403, "<Error>AccessDenied</Error>"}};
    p = serve(denied, 2, &port);
    snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
    CHECK(minio_get_count(base, NULL, 2000, &g, err, sizeof err) == -1);
    CHECKF(strstr(err, "HTTP 403") && strstr(err, "MINIO_PROMETHEUS_AUTH_TYPE=public"), "%s", err);
    stop(p);

    /* nothing at either path */
    p = serve(NULL, 0, &port);
    snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
    CHECK(minio_get_count(base, NULL, 2000, &g, err, sizeof err) == -1);
    CHECKF(strstr(err, "HTTP 404"), "%s", err);
    stop(p);

    /* nobody listening (the port we just freed) */
    CHECK(minio_get_count(base, NULL, 2000, &g, err, sizeof err) == -1);
    CHECKF(strstr(err, base) && (strstr(err, "onnect") || strstr(err, "refused")), "%s", err);
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "count")) {
        struct minio_gets g;
        char err[512];
        if (minio_get_count(argv[2], NULL, 5000, &g, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        printf("requests=%llu errors=%llu present=%d cached=%d url=%s\n",
               (unsigned long long)g.requests, (unsigned long long)g.errors, g.present, g.cached,
               g.url);
        return 0;
    }
    test_parser();
    test_fetch();
    return unit_done("minio_metrics");
}
