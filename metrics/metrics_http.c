/* metrics_http.c -- the listening socket and a small HTTP/1.1 server for
 * /metrics (see metrics.h): one request per connection, answered with a
 * Content-Length and closed, every read and write non-blocking so the
 * coordinator's loop never waits on a client. GET and HEAD of /metrics (the
 * exposition, its format chosen by the Accept header) and of / (a pointer
 * to it); 404, 405, 400 and 431 otherwise (a request is at most 8 KiB).
 *
 * Its limits, so that no client costs the measured run or shuts out the
 * scraper: a connection that has not sent its request and taken its answer
 * within 10 s is closed, and one that has had 2 s is closed at once when all
 * METRICS_MAX_CONNS slots are taken and another connection waits (eight idle
 * sockets delay a real scrape by 2 s at most, never 10). The exposition is
 * rendered at most once per 100 ms per format: a scrape within that of the
 * last render gets the same bytes, so a client reconnecting in a loop costs
 * a copy per request, not a render (aops_metrics_renders_total counts them).
 * A timerfd among the fds to poll wakes the loop for those deadlines.
 *
 * ":PORT" binds 127.0.0.1: the endpoint is exposed only when told
 * (0.0.0.0:PORT, [::]:PORT, an address of the host). */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "../common/util.h"
#include "metrics.h"

#define REQ_MAX METRICS_REQ_MAX
#define CONN_TIMEOUT_NS 10000000000LL /* a request must arrive and be sent within 10 s */
#define CONN_YIELD_NS 2000000000LL    /* ... and within 2 s when another connection waits */
#define RENDER_REUSE_NS 100000000LL   /* a render answers the scrapes of the next 100 ms */

enum conn_state { C_FREE = 0, C_READ, C_WRITE };

struct conn {
    int fd;
    enum conn_state st;
    int64_t opened, deadline; /* accepted; closed past deadline */
    char req[REQ_MAX];
    size_t rlen;
    struct buf out; /* the whole response; kept (its capacity) for the next connection */
    size_t off;
};

/* The last render of one format, and the state it showed: a scrape within
 * RENDER_REUSE_NS of it is answered from it unless the run has ended or its
 * verdict been written since (the final figures are never held back). */
struct rendered {
    struct buf body;
    int64_t at;
    int valid, ended, verdict;
};

struct metrics {
    int lfd, tfd; /* the listener; the timer for the connections' deadlines */
    struct metrics_labels labels;
    struct metrics_cache cache;
    struct rendered last[2]; /* [0] classic text, [1] OpenMetrics */
    struct conn conns[METRICS_MAX_CONNS];
};

/* ---- listening ------------------------------------------------------------------------------ */

/* "HOST:PORT", "[V6]:PORT", ":PORT" into host ("" for none given) and port. */
static int split_addr(const char *a, char *host, size_t hlen, char *port, size_t plen) {
    const char *colon;
    if (a[0] == '[') {
        const char *close = strchr(a, ']');
        if (!close || close[1] != ':')
            return -1;
        snprintf(host, hlen, "%.*s", (int)(close - a - 1), a + 1);
        colon = close + 1;
    } else {
        colon = strrchr(a, ':');
        if (!colon || memchr(a, ':', (size_t)(colon - a)))
            return -1; /* none, or an IPv6 address without brackets */
        snprintf(host, hlen, "%.*s", (int)(colon - a), a);
    }
    snprintf(port, plen, "%s", colon + 1);
    char *end;
    long p = strtol(port, &end, 10);
    return *port && !*end && p >= 1 && p <= 65535 ? 0 : -1;
}

static int listen_on(const struct sockaddr *sa, socklen_t len, int v6only) {
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (sa->sa_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    if (bind(fd, sa, len) != 0 || listen(fd, 64) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

struct metrics *metrics_open(const struct config *cfg, char *err, size_t errlen) {
    const char *a = cfg->metrics_listen;
    char host[256], port[16];
    if (split_addr(a, host, sizeof host, port, sizeof port) != 0) {
        snprintf(err, errlen,
                 "--metrics-listen '%s': expected ADDR:PORT (127.0.0.1:9464, :9464 for "
                 "127.0.0.1, 0.0.0.0:9464 for every address, [::1]:9464), a port from 1 to 65535",
                 a);
        return NULL;
    }
    struct metrics *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "--metrics-listen: out of memory");
        return NULL;
    }
    m->lfd = m->tfd = -1;
    /* No address: this host only. The run's figures (its host name, its
     * shape) go to another machine only when the address says so. */
    if (!host[0])
        snprintf(host, sizeof host, "127.0.0.1");
    {
        struct addrinfo hints = {.ai_family = AF_UNSPEC,
                                 .ai_socktype = SOCK_STREAM,
                                 .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
        struct addrinfo *res = NULL;
        int rc = getaddrinfo(host, port, &hints, &res);
        if (rc != 0) {
            snprintf(err, errlen, "--metrics-listen '%s': cannot resolve '%s': %s", a, host,
                     gai_strerror(rc));
            free(m);
            return NULL;
        }
        errno = EADDRNOTAVAIL;
        for (struct addrinfo *p = res; p && m->lfd < 0; p = p->ai_next)
            m->lfd = listen_on(p->ai_addr, p->ai_addrlen, 1);
        freeaddrinfo(res);
    }
    if (m->lfd < 0) {
        snprintf(err, errlen, "--metrics-listen '%s': cannot listen there: %s", a, strerror(errno));
        free(m);
        return NULL;
    }
    m->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (m->tfd < 0) {
        snprintf(err, errlen, "--metrics-listen: cannot make a timer: %s", strerror(errno));
        close(m->lfd);
        free(m);
        return NULL;
    }
    metrics_labels_init(&m->labels, cfg);
    for (int i = 0; i < METRICS_MAX_CONNS; i++)
        m->conns[i].fd = -1;
    return m;
}

/* ---- serving -------------------------------------------------------------------------------- */

static void conn_close(struct conn *c) {
    if (c->fd >= 0) {
        /* shutdown first: a worker forked while this connection was open
         * holds a copy of the fd, which close() alone would leave open. */
        shutdown(c->fd, SHUT_RDWR);
        close(c->fd);
    }
    c->fd = -1;
    c->st = C_FREE;
    c->rlen = c->off = 0;
    c->out.len = 0;
}

/* The connection to close for one that waits: the oldest that has had
 * CONN_YIELD_NS, or NULL. */
static struct conn *yielding(struct metrics *m, int64_t now) {
    struct conn *old = NULL;
    for (int i = 0; i < METRICS_MAX_CONNS; i++) {
        struct conn *c = &m->conns[i];
        if (c->st != C_FREE && now - c->opened >= CONN_YIELD_NS &&
            (!old || c->opened < old->opened))
            old = c;
    }
    return old;
}

static int slots_full(const struct metrics *m) {
    for (int i = 0; i < METRICS_MAX_CONNS; i++)
        if (m->conns[i].st == C_FREE)
            return 0;
    return 1;
}

/* Arm the timer for the next moment something is due without any fd
 * becoming ready: a connection's deadline and, with every slot taken, the
 * moment the oldest may yield to one that waits. Disarmed when none. */
static void arm_timer(const struct metrics *m) {
    int64_t due = 0, now = now_ns();
    int full = slots_full(m);
    for (int i = 0; i < METRICS_MAX_CONNS; i++) {
        const struct conn *c = &m->conns[i];
        if (c->st == C_FREE)
            continue;
        int64_t d = c->deadline, y = c->opened + CONN_YIELD_NS;
        /* A moment already past is the listener's to wake for (pollfds). */
        if (full && y > now && y < d)
            d = y;
        if (!due || d < due)
            due = d;
    }
    struct itimerspec its = {{0, 0}, {0, 0}};
    if (due) {
        due += 1000000; /* past the deadline, not on it */
        its.it_value.tv_sec = (time_t)(due / 1000000000LL);
        its.it_value.tv_nsec = (long)(due % 1000000000LL);
    }
    timerfd_settime(m->tfd, due ? TFD_TIMER_ABSTIME : 0, &its, NULL);
}

int metrics_pollfds(const struct metrics *m, struct pollfd *p, int max) {
    int n = 0;
    if (!m)
        return 0;
    for (int i = 0; i < METRICS_MAX_CONNS && n < max; i++) {
        const struct conn *c = &m->conns[i];
        if (c->st != C_FREE)
            p[n++] = (struct pollfd){c->fd, c->st == C_READ ? POLLIN : POLLOUT, 0};
    }
    /* With every slot busy the listener waits (the kernel's backlog holds
     * new connections) until one is free or one has had its 2 s: then a
     * connection waiting wakes the loop, which closes that one for it. */
    int64_t now = now_ns();
    if (n < max && (!slots_full(m) || yielding((struct metrics *)m, now)))
        p[n++] = (struct pollfd){m->lfd, POLLIN, 0};
    if (n < max)
        p[n++] = (struct pollfd){m->tfd, POLLIN, 0};
    return n;
}

/* Whether the Accept header asks for OpenMetrics (with a q above 0), as
 * Prometheus does first: "application/openmetrics-text;version=1.0.0,...". */
static int wants_openmetrics(const char *headers) {
    for (const char *h = headers; *h;) {
        const char *eol = strchr(h, '\n');
        size_t len = eol ? (size_t)(eol - h) : strlen(h);
        if (len > 7 && strncasecmp(h, "Accept:", 7) == 0) {
            char v[REQ_MAX], *save = NULL;
            snprintf(v, sizeof v, "%.*s", (int)(len - 7), h + 7);
            for (char *tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                tok += strspn(tok, " \t");
                if (strncasecmp(tok, "application/openmetrics-text", 28) != 0)
                    continue;
                const char *q = strstr(tok, "q=");
                if (!q || strtod(q + 2, NULL) > 0)
                    return 1;
            }
        }
        if (!eol)
            break;
        h = eol + 1;
    }
    return 0;
}

static void respond(struct conn *c, const char *status, const char *ctype, const char *body,
                    size_t blen, int head) {
    char h[512];
    int n =
        snprintf(h, sizeof h,
                 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                 "Connection: close\r\n%s\r\n",
                 status, ctype, blen, strncmp(status, "405", 3) == 0 ? "Allow: GET, HEAD\r\n" : "");
    /* The body is already in c->out when it is the exposition: put the head
     * in front of it. */
    if (body == c->out.p) {
        if (buf_reserve(&c->out, (size_t)n) == 0) {
            memmove(c->out.p + n, c->out.p, c->out.len + 1);
            memcpy(c->out.p, h, (size_t)n);
            c->out.len += (size_t)n;
            if (head)
                c->out.len = (size_t)n;
        }
    } else {
        buf_reset(&c->out);
        buf_add(&c->out, h, (size_t)n);
        if (!head)
            buf_add(&c->out, body, blen);
    }
    if (c->out.err) {
        c->out.err = 0;
        conn_close(c); /* no memory for even the answer: the client sees the connection end */
        return;
    }
    c->st = C_WRITE;
    c->off = 0;
}

void metrics_parse_request(const char *req, struct metrics_request *out) {
    char method[16], target[1024], version[16];
    memset(out, 0, sizeof *out);
    if (sscanf(req, "%15s %1023s %15s", method, target, version) != 3 ||
        strncmp(version, "HTTP/1.", 7) != 0) {
        out->route = METRICS_BAD;
        return;
    }
    out->head = !strcmp(method, "HEAD");
    if (!out->head && strcmp(method, "GET") != 0) {
        out->route = METRICS_METHOD;
        return;
    }
    char *q = strchr(target, '?');
    if (q)
        *q = 0;
    if (!strcmp(target, "/"))
        out->route = METRICS_ROOT;
    else if (strcmp(target, "/metrics") != 0)
        out->route = METRICS_NOTFOUND;
    else {
        const char *hdrs = strstr(req, "\r\n");
        out->route = METRICS_EXPOSITION;
        out->openmetrics = wants_openmetrics(hdrs ? hdrs + 2 : "");
    }
}

static void handle_request(struct metrics *m, struct conn *c, const struct metrics_run *run) {
    static const char text[] = "text/plain; charset=utf-8";
    struct metrics_request rq;
    metrics_parse_request(c->req, &rq);
    int head = rq.head, om = rq.openmetrics;
    if (rq.route == METRICS_BAD) {
        static const char b[] = "bad request\n";
        respond(c, "400 Bad Request", text, b, sizeof b - 1, 0);
        return;
    }
    if (rq.route == METRICS_METHOD) {
        static const char b[] = "only GET and HEAD\n";
        respond(c, "405 Method Not Allowed", text, b, sizeof b - 1, 0);
        return;
    }
    if (rq.route == METRICS_ROOT) {
        static const char b[] = "aops-harness: the run's metrics are at /metrics\n";
        respond(c, "200 OK", text, b, sizeof b - 1, head);
        return;
    }
    if (rq.route == METRICS_NOTFOUND) {
        static const char b[] = "not found: the metrics are at /metrics\n";
        respond(c, "404 Not Found", text, b, sizeof b - 1, head);
        return;
    }
    struct rendered *last = &m->last[om];
    int64_t now = now_ns();
    if (!last->valid || now - last->at >= RENDER_REUSE_NS || last->ended != run->ended ||
        last->verdict != run->verdict) {
        metrics_render(&last->body, run, &m->labels, &m->cache, om, now);
        last->valid = !last->body.err;
        last->body.err = 0;
        last->at = now;
        last->ended = run->ended;
        last->verdict = run->verdict;
    }
    buf_reset(&c->out);
    if (last->valid)
        buf_add(&c->out, last->body.p, last->body.len);
    if (!last->valid || c->out.err) {
        static const char b[] = "out of memory\n";
        c->out.err = 0;
        respond(c, "503 Service Unavailable", text, b, sizeof b - 1, head);
        return;
    }
    respond(c, "200 OK",
            om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
               : "text/plain; version=0.0.4; charset=utf-8",
            c->out.p, c->out.len, head);
}

static void conn_read(struct metrics *m, struct conn *c, const struct metrics_run *run) {
    for (;;) {
        if (c->rlen >= REQ_MAX - 1) {
            static const char b[] = "request header too large\n";
            respond(c, "431 Request Header Fields Too Large", "text/plain; charset=utf-8", b,
                    sizeof b - 1, 0);
            return;
        }
        ssize_t k = recv(c->fd, c->req + c->rlen, REQ_MAX - 1 - c->rlen, 0);
        if (k > 0) {
            c->rlen += (size_t)k;
            c->req[c->rlen] = 0;
            if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
                handle_request(m, c, run);
                return;
            }
            continue;
        }
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        conn_close(c); /* the client went away before a whole request */
        return;
    }
}

static void conn_write(struct conn *c) {
    while (c->off < c->out.len) {
        ssize_t k = send(c->fd, c->out.p + c->off, c->out.len - c->off, MSG_NOSIGNAL);
        if (k > 0) {
            c->off += (size_t)k;
            continue;
        }
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        break; /* the client went away */
    }
    conn_close(c);
}

void metrics_serve(struct metrics *m, const struct metrics_run *run) {
    if (!m)
        return;
    uint64_t ticks;
    while (read(m->tfd, &ticks, sizeof ticks) > 0)
        ; /* drained: it is armed again below */
    int64_t now = now_ns();
    for (int i = 0; i < METRICS_MAX_CONNS; i++) {
        struct conn *c = &m->conns[i];
        if (c->st != C_FREE && now > c->deadline) {
            conn_close(c);
            continue;
        }
        if (c->st == C_READ)
            conn_read(m, c, run);
        if (c->st == C_WRITE)
            conn_write(c);
    }
    for (;;) {
        struct conn *c = NULL;
        for (int i = 0; i < METRICS_MAX_CONNS && !c; i++)
            if (m->conns[i].st == C_FREE)
                c = &m->conns[i];
        if (!c) {
            /* Every slot taken: one that has had its 2 s gives way, but
             * only to a connection that is there. */
            struct conn *y = yielding(m, now);
            struct pollfd lp = {m->lfd, POLLIN, 0};
            if (!y || poll(&lp, 1, 0) != 1)
                break;
            conn_close(y);
            c = y;
        }
        int fd = accept4(m->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            break; /* nothing waiting (or a transient error: the next wake tries again) */
        c->fd = fd;
        c->st = C_READ;
        c->opened = now;
        c->deadline = now + CONN_TIMEOUT_NS;
        c->rlen = 0;
        conn_read(m, c, run); /* the request is often there already */
        if (c->st == C_WRITE)
            conn_write(c);
    }
    arm_timer(m);
}

void metrics_close(struct metrics *m) {
    if (!m)
        return;
    for (int i = 0; i < METRICS_MAX_CONNS; i++) {
        conn_close(&m->conns[i]);
        buf_free(&m->conns[i].out);
    }
    if (m->lfd >= 0)
        close(m->lfd);
    if (m->tfd >= 0)
        close(m->tfd);
    for (int k = 0; k < 2; k++)
        buf_free(&m->last[k].body);
    metrics_cache_free(&m->cache);
    free(m);
}
