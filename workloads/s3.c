/* s3.c -- the s3 workload: 1,190 GETs per cycle, each object of the worker's
 * set read once (500 of class 1MiB, 500 of 10MiB, 190 of 50MiB at full
 * size; smaller profiles divide the sizes).
 *
 * A worker keeps one libcurl easy handle for the whole run, so the
 * connection stays open between GETs as an application server's client
 * would keep it. open() builds every URL up front and checks, with real
 * requests, that the endpoint answers, the credentials are accepted and the
 * data set is there, so a run never starts against a store that will fail
 * it. run() only performs: the body is counted in the write callback and
 * dropped, never copied.
 *
 * Every answer is verified (unless --no-verify): open() reads the worker's
 * section of the objects manifest prepare wrote (s3_manifest.c), each GET
 * asks for the stored checksum (x-amz-checksum-mode: ENABLED), the write
 * callback runs CRC-32C over the body as it streams in (hardware CRC,
 * common/crc32c.c), and a body whose CRC differs from the manifest's, or
 * from the server's own header, is an error. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../common/crc32c.h"
#include "minio_metrics.h"
#include "s3_presign.h"
#include "s3_util.h"
#include "stack_state.h"
#include "workload.h"

struct s3_state {
    const struct config *cfg;
    CURL *h;
    struct curl_slist *headers;
    char (*url)[S3_URLLEN];      /* one per op */
    char **purl;                 /* the same, presigned: what the run GETs (NULL before) */
    struct curl_slist *pheaders; /* the headers the presigned GETs send (and signed) */
    uint64_t size[S3_NCLASSES];
    unsigned dw;          /* data worker: whose object set we read */
    int verify;           /* check every body's CRC-32C */
    int sums;             /* the server keeps checksums: a GET must bring its own */
    unsigned nknown;      /* objects the manifest lists (all S3_OPS in a run) */
    uint32_t crc[S3_OPS]; /* each object's CRC-32C, from the manifest */

    /* The connection's SO_RCVLOWAT as last set (see on_progress): 1, the
     * kernel's default, between answers. */
    int lowat;
    int lowat_ok;       /* plain HTTP: the mark is used */
    curl_socket_t sock; /* the connection's, CURL_SOCKET_BAD when none */

    /* Per request, reset by perform(). */
    uint64_t got;
    uint32_t body_crc;
    long status;
    size_t errlen;
    char errbody[1024]; /* the start of an error response, for its <Code> */
    char curlerr[CURL_ERROR_SIZE];
};

/* While a body streams in, the worker sleeps in poll() until the kernel
 * holds min(what the body still owes, S3_LOWAT_MAX) bytes of it, rather
 * than until any byte comes: SO_RCVLOWAT, which poll() and the socket's
 * wake-ups obey. On a loaded machine a worker was woken for each burst the
 * server wrote, and those wake-ups were a quarter of the client's CPU in a
 * 1 MiB GET at concurrency 8 (bench/s3: perf, 7.5 voluntary context
 * switches per GET). The mark is set from libcurl's progress callback,
 * which libcurl calls after handing on all it read and before it waits on
 * the socket again: what the socket still owes is then exactly the answer's
 * Content-Length less the body received, so the mark never asks for a byte
 * the server did not promise, and a server that closes early still wakes
 * the poll (end of stream is always readable). It is back at 1 once the
 * body is in, for the next answer's headers. Plain HTTP only: over TLS,
 * OpenSSL may hold part of a record it read, and the bytes the socket owes
 * are no longer the body's.
 *
 * 1 MiB, so that the rest of a 1 MiB object is one wake-up: against 256 KiB
 * (libcurl's buffer) it took a GET's client CPU per GB from 0.28 to 0.19 s
 * at concurrency 2 and 0.31 to 0.22 at 8, and GET/s did not fall (1, 2 and
 * 8 streams); at 10 MiB 256 KiB, 1 MiB and 4 MiB were alike. The kernel
 * grows the socket's receive buffer to hold the mark (tcp_set_rcvlowat). */
#define S3_LOWAT_MAX (1024 * 1024)

static void set_lowat(struct s3_state *st, int v) {
    if (st->sock != CURL_SOCKET_BAD &&
        setsockopt(st->sock, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof v) == 0)
        st->lowat = v;
}

/* libcurl's progress callback, which it calls once it has handed the
 * callback all it read and before it waits on the socket again: what the
 * socket still owes is then exactly the body's length less what arrived.
 * Only inside a body (a HEAD's Content-Length promises nothing). */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow) {
    struct s3_state *st = ud;
    (void)ultotal, (void)ulnow;
    if (!st->lowat_ok || st->status >= 300 || st->got == 0 || dltotal <= 0 || dlnow > dltotal)
        return 0;
    curl_off_t left = dltotal - dlnow;
    int want = left == 0 ? 1 : left < S3_LOWAT_MAX ? (int)left : S3_LOWAT_MAX;
    if (want != st->lowat)
        set_lowat(st, want);
    return 0;
}

/* The connection's descriptor: libcurl names it once a transfer is over
 * (CURLINFO_ACTIVESOCKET answers nothing during one), and says when it
 * closes it. A new connection starts at the kernel's default mark. */
static void learn_socket(struct s3_state *st) {
    curl_socket_t fd = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(st->h, CURLINFO_ACTIVESOCKET, &fd) == CURLE_OK && fd != CURL_SOCKET_BAD &&
        fd != st->sock) {
        st->sock = fd;
        st->lowat = 1;
    }
    if (st->lowat != 1) /* a body that did not end: an error, a timeout */
        set_lowat(st, 1);
}

static int on_close(void *ud, curl_socket_t fd) {
    struct s3_state *st = ud;
    if (fd == st->sock) {
        st->sock = CURL_SOCKET_BAD;
        st->lowat = 1;
    }
    return close(fd);
}

static void track_socket(struct s3_state *st) {
    curl_easy_setopt(st->h, CURLOPT_CLOSESOCKETFUNCTION, on_close);
    curl_easy_setopt(st->h, CURLOPT_CLOSESOCKETDATA, st);
    curl_easy_setopt(st->h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(st->h, CURLOPT_XFERINFODATA, st);
    curl_easy_setopt(st->h, CURLOPT_NOPROGRESS, 0L);
}

static size_t on_body(char *p, size_t sz, size_t n, void *ud) {
    struct s3_state *st = ud;
    size_t len = sz * n;
    if (!st->status)
        curl_easy_getinfo(st->h, CURLINFO_RESPONSE_CODE, &st->status);
    if (st->status >= 300 && st->errlen < sizeof st->errbody - 1) {
        size_t k =
            len < sizeof st->errbody - 1 - st->errlen ? len : sizeof st->errbody - 1 - st->errlen;
        memcpy(st->errbody + st->errlen, p, k);
        st->errlen += k;
    }
    st->got += len;
    if (st->verify)
        st->body_crc = crc32c(st->body_crc, p, len);
    return len;
}

/* Perform the request set up on st->h; on failure write the message. */
static int perform(struct s3_state *st, const char *what, const char *key, char *err, size_t len,
                   int *fatal) {
    st->got = 0;
    st->status = 0;
    st->errlen = 0;
    st->curlerr[0] = 0;
    CURLcode cc = curl_easy_perform(st->h);
    learn_socket(st);
    if (cc == CURLE_OK)
        curl_easy_getinfo(st->h, CURLINFO_RESPONSE_CODE, &st->status);
    if (cc == CURLE_OK && st->status < 300)
        return 0;
    char code[64];
    s3_error_code(st->errbody, st->errlen, code, sizeof code);
    s3_describe_failure(err, len, st->cfg, st->h, cc, st->curlerr, st->status, code, what, key,
                        fatal);
    return -1;
}

static void s3_close(void *p) {
    struct s3_state *st = p;
    if (!st)
        return;
    if (st->h)
        curl_easy_cleanup(st->h);
    curl_slist_free_all(st->headers);
    curl_slist_free_all(st->pheaders);
    for (unsigned op = 0; st->purl && op < S3_OPS; op++)
        free(st->purl[op]);
    free(st->purl);
    free(st->url);
    free(st);
}

/* HEAD an object and check its size: catches a partial prepare or one made
 * with another profile before the run rather than in the middle of it. */
static int check_object(struct s3_state *st, unsigned op, char *err, size_t len) {
    char key[S3_KEYLEN], what[S3_KEYLEN + 8];
    int fatal;
    s3_key(key, sizeof key, st->cfg->profile, st->dw, op);
    snprintf(what, sizeof what, "HEAD %s", key);
    curl_easy_setopt(st->h, CURLOPT_URL, st->url[op]);
    if (perform(st, what, key, err, len, &fatal) < 0)
        return -1;
    curl_off_t cl = -1;
    curl_easy_getinfo(st->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
    uint64_t want = st->size[s3_op_class(op)];
    if (cl != (curl_off_t)want) {
        char opts[64], buf[1100];
        snprintf(opts, sizeof opts, "--profile %s", profile_name(st->cfg->profile));
        snprintf(err, len, "S3 object '%s' has %lld bytes, expected %llu: run %s", key,
                 (long long)cl, (unsigned long long)want,
                 config_prepare_hint(st->cfg, buf, sizeof buf, opts));
        return -1;
    }
    return 0;
}

static struct s3_state *client_base(const struct config *cfg, unsigned worker, char *err,
                                    size_t len) {
    if (s3_check_config(cfg, err, len) < 0)
        return NULL;
    struct s3_state *st = calloc(1, sizeof *st);
    if (!st || !(st->url = calloc(S3_OPS, sizeof *st->url)) || !(st->h = curl_easy_init()) ||
        !(st->headers = s3_get_headers())) {
        snprintf(err, len, "s3: out of memory");
        s3_close(st);
        return NULL;
    }
    st->cfg = cfg;
    st->lowat = 1;
    st->lowat_ok = strncasecmp(s3_opts(cfg)->endpoint, "http://", 7) == 0;
    st->sock = CURL_SOCKET_BAD;
    st->dw = s3_data_worker(cfg, worker);
    for (int c = 0; c < S3_NCLASSES; c++)
        st->size[c] = s3_class_size(cfg->profile, c);
    for (unsigned op = 0; op < S3_OPS; op++) {
        char key[S3_KEYLEN];
        s3_key(key, sizeof key, cfg->profile, st->dw, op);
        if (s3_url(st->url[op], S3_URLLEN, cfg, key) < 0) {
            snprintf(err, len, "S3 endpoint or bucket name too long");
            s3_close(st);
            return NULL;
        }
    }
    s3_easy_setup(st->h, cfg);
    track_socket(st);
    curl_easy_setopt(st->h, CURLOPT_HTTPHEADER, st->headers);
    curl_easy_setopt(st->h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(st->h, CURLOPT_WRITEDATA, st);
    curl_easy_setopt(st->h, CURLOPT_ERRORBUFFER, st->curlerr);
    return st;
}

/* Verification on: the worker's CRCs from the objects manifest, and every
 * GET asking for the stored checksum. bench/s3 prepares fewer objects than
 * a cycle reads: what is listed is taken. 0, or -1 with err. */
static int load_manifest(struct s3_state *st, char *err, size_t len) {
    st->verify = !st->cfg->no_verify;
    if (!st->verify)
        return 0;
    struct s3_manifest_info mi;
    if (s3_manifest_load_worker(st->cfg, st->dw, S3_OPS, st->crc, &mi, err, len) < 0)
        return -1;
    st->nknown = mi.ops < S3_OPS ? mi.ops : S3_OPS;
    st->sums = mi.sums;
    struct curl_slist *h = curl_slist_append(st->headers, "x-amz-checksum-mode: ENABLED");
    if (!h) {
        snprintf(err, len, "s3: out of memory");
        return -1;
    }
    st->headers = h;
    curl_easy_setopt(st->h, CURLOPT_HTTPHEADER, st->headers);
    return 0;
}

/* After the open's checks, which libcurl signs in the headers (their error
 * bodies name what is wrong), the run's GETs go presigned: every object's
 * URL signed once here, before the barrier, so that no GET of the run signs
 * anything (s3_presign.c says why). The handle is reset, which keeps its
 * connection, and set up without credentials; the stored-checksum header is
 * signed with the URL. A one-byte GET of the first object checks that the
 * server takes the form, here rather than in the run. 0, or -1 with err. */
static int go_presigned(struct s3_state *st, char *err, size_t len) {
    const struct s3_opts *o = s3_opts(st->cfg);
    time_t now = time(NULL);
    struct tm tm;
    char amzdate[17];
    if (!gmtime_r(&now, &tm) || strftime(amzdate, sizeof amzdate, "%Y%m%dT%H%M%SZ", &tm) != 16) {
        snprintf(err, len, "s3: cannot read the clock to sign the GETs");
        return -1;
    }
    if (!(st->purl = calloc(S3_OPS, sizeof *st->purl)) ||
        (st->verify && !(st->pheaders = curl_slist_append(NULL, "x-amz-checksum-mode: ENABLED")))) {
        snprintf(err, len, "s3: out of memory");
        return -1;
    }
    char buf[S3_URLLEN + 2048];
    unsigned char skey[32];
    if (s3_presign_key(skey, o->secret_key, amzdate, o->region) < 0) {
        snprintf(err, len, "s3: cannot sign the GETs (secret key too long)");
        return -1;
    }
    for (unsigned op = 0; op < S3_OPS; op++) {
        if (s3_presign_get(buf, sizeof buf, st->url[op], o->access_key, skey, o->region, amzdate,
                           S3_PRESIGN_MAX_EXPIRES, st->verify ? "x-amz-checksum-mode" : NULL,
                           "ENABLED") < 0) {
            snprintf(err, len, "s3: cannot sign the GET of %s (endpoint, key or region too long)",
                     st->url[op]);
            return -1;
        }
        if (!(st->purl[op] = strdup(buf))) {
            snprintf(err, len, "s3: out of memory");
            return -1;
        }
    }
    curl_easy_reset(st->h);
    s3_easy_transport(st->h, st->cfg);
    track_socket(st);
    curl_easy_setopt(st->h, CURLOPT_HTTPHEADER, st->pheaders);
    curl_easy_setopt(st->h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(st->h, CURLOPT_WRITEDATA, st);
    curl_easy_setopt(st->h, CURLOPT_ERRORBUFFER, st->curlerr);
    char key[S3_KEYLEN], what[S3_KEYLEN + 32];
    int fatal;
    s3_key(key, sizeof key, st->cfg->profile, st->dw, 0);
    snprintf(what, sizeof what, "presigned GET %s", key);
    curl_easy_setopt(st->h, CURLOPT_URL, st->purl[0]);
    curl_easy_setopt(st->h, CURLOPT_RANGE, "0-0");
    int rc = perform(st, what, key, err, len, &fatal);
    curl_easy_setopt(st->h, CURLOPT_RANGE, NULL);
    return rc;
}

void *s3_client_open(const struct config *cfg, unsigned worker, char *err, size_t len) {
    struct s3_state *st = client_base(cfg, worker, err, len);
    if (st && (load_manifest(st, err, len) < 0 || go_presigned(st, err, len) < 0)) {
        s3_close(st);
        return NULL;
    }
    return st;
}

static void *s3_open(const struct config *cfg, unsigned worker, char *err, size_t len) {
    struct s3_state *st = client_base(cfg, worker, err, len);
    if (!st)
        return NULL;

    /* A one-byte GET first: unlike HEAD it brings back an error body whose
     * <Code> tells wrong keys from a missing bucket from a missing object. */
    char key[S3_KEYLEN], what[S3_KEYLEN + 8];
    int fatal;
    s3_key(key, sizeof key, cfg->profile, st->dw, 0);
    snprintf(what, sizeof what, "GET %s", key);
    curl_easy_setopt(st->h, CURLOPT_URL, st->url[0]);
    curl_easy_setopt(st->h, CURLOPT_RANGE, "0-0");
    int rc = perform(st, what, key, err, len, &fatal);
    curl_easy_setopt(st->h, CURLOPT_RANGE, NULL);
    if (rc < 0) {
        s3_close(st);
        return NULL;
    }
    curl_easy_setopt(st->h, CURLOPT_NOBODY, 1L);
    /* The first and last object of each size class. */
    for (int c = 0; c < S3_NCLASSES; c++) {
        unsigned first = s3_class_first_op(c), last = first + s3_class_count(c) - 1;
        if (check_object(st, first, err, len) < 0 || check_object(st, last, err, len) < 0) {
            s3_close(st);
            return NULL;
        }
    }
    curl_easy_setopt(st->h, CURLOPT_HTTPGET, 1L);
    /* After the checks above, whose messages name what is missing. */
    char opts[64], buf[1100];
    snprintf(opts, sizeof opts, "--profile %s", profile_name(cfg->profile));
    if (load_manifest(st, err, len) < 0 ||
        (st->verify && st->nknown < S3_OPS &&
         snprintf(err, len, "the objects manifest lists %u of the %d objects a cycle reads: run %s",
                  st->nknown, S3_OPS, config_prepare_hint(cfg, buf, sizeof buf, opts))) ||
        go_presigned(st, err, len) < 0) {
        s3_close(st);
        return NULL;
    }
    return st;
}

/* The body's CRC-32C against the manifest's, and the server's checksum of
 * the object (x-amz-checksum-crc32c; for a multipart object, whose header
 * is a composite "...-N", the whole object's from x-amz-meta-aops-crc32c)
 * against both. */
static int verify_body(struct s3_state *st, unsigned op, struct op_result *res) {
    char key[S3_KEYLEN];
    if (op >= st->nknown || st->body_crc != st->crc[op]) {
        s3_key(key, sizeof key, st->cfg->profile, st->dw, op);
        snprintf(res->err, sizeof res->err,
                 op >= st->nknown ? "GET %s: not in the objects manifest (run ./harness prepare)"
                                  : "GET %s: checksum error: the body's CRC-32C is %08x, the "
                                    "objects manifest says %08x (the object changed since "
                                    "prepare)",
                 key, st->body_crc, op < st->nknown ? st->crc[op] : 0);
        return -1;
    }
    struct curl_header *hh;
    uint32_t server;
    const char *why = NULL;
    if (curl_easy_header(st->h, "x-amz-checksum-crc32c", 0, CURLH_HEADER, -1, &hh) != CURLHE_OK) {
        if (st->sums)
            why = "no x-amz-checksum-crc32c in the answer, though the object was stored with one";
    } else if (strchr(hh->value, '-')) {
        if (curl_easy_header(st->h, "x-amz-meta-aops-crc32c", 0, CURLH_HEADER, -1, &hh) !=
                CURLHE_OK ||
            sscanf(hh->value, "%8x", &server) != 1)
            why = "a multipart object without x-amz-meta-aops-crc32c";
        else if (server != st->body_crc)
            why = "x-amz-meta-aops-crc32c differs from the body's CRC-32C";
    } else if (crc32c_from_base64(hh->value, strlen(hh->value), &server) != 0)
        why = "an x-amz-checksum-crc32c that is not a CRC-32C";
    else if (server != st->body_crc)
        why = "the server's x-amz-checksum-crc32c differs from the body's CRC-32C";
    if (!why)
        return 0;
    s3_key(key, sizeof key, st->cfg->profile, st->dw, op);
    snprintf(res->err, sizeof res->err, "GET %s: checksum error: %s", key, why);
    return -1;
}

int s3_run(void *p, unsigned cycle, unsigned op, struct op_result *res) {
    struct s3_state *st = p;
    (void)cycle;
    int c = s3_op_class(op);
    res->klass = c;
    curl_easy_setopt(st->h, CURLOPT_URL, st->purl[op]);

    st->got = 0;
    st->body_crc = 0;
    st->status = 0;
    st->errlen = 0;
    st->curlerr[0] = 0;
    CURLcode cc = curl_easy_perform(st->h);
    learn_socket(st);
    long status = 0;
    curl_off_t cl = -1, ttfb_us = -1;
    curl_easy_getinfo(st->h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(st->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
    curl_easy_getinfo(st->h, CURLINFO_STARTTRANSFER_TIME_T, &ttfb_us);
    res->hist_ns[S3_HIST_TTFB] = ttfb_us >= 0 ? (int64_t)ttfb_us * 1000 : -1;

    if (cc != CURLE_OK || status >= 300) {
        char key[S3_KEYLEN], what[S3_KEYLEN + 8], code[64];
        s3_key(key, sizeof key, st->cfg->profile, st->dw, op);
        snprintf(what, sizeof what, "GET %s", key);
        s3_error_code(st->errbody, st->errlen, code, sizeof code);
        s3_describe_failure(res->err, sizeof res->err, st->cfg, st->h, cc, st->curlerr, status,
                            code, what, key, &res->fatal);
        return -1;
    }
    if ((cl >= 0 && (uint64_t)cl != st->got) || st->got != st->size[c]) {
        char key[S3_KEYLEN];
        s3_key(key, sizeof key, st->cfg->profile, st->dw, op);
        snprintf(res->err, sizeof res->err,
                 "GET %s: received %llu bytes, Content-Length %lld, expected %llu", key,
                 (unsigned long long)st->got, (long long)cl, (unsigned long long)st->size[c]);
        return -1;
    }
    if (st->verify && verify_body(st, op, res) < 0)
        return -1;
    res->count[S3_COUNT_BYTES] = st->got;
    return 0;
}

/* result.json's config.s3 and config.dataset; the keys stay out. */
static json_t *s3_describe(const struct config *cfg, int selected, json_t *warnings) {
    (void)selected;
    const struct s3_opts *o = s3_opts(cfg);
    if (o->insecure && selected)
        json_array_append_new(warnings,
                              json_string("S3 TLS certificates not verified (--s3-insecure)"));
    return json_pack("{s:{s:s, s:s, s:s, s:b}, s:s}", "s3", "endpoint", o->endpoint, "bucket",
                     o->bucket, "region", o->region, "insecure", o->insecure, "dataset",
                     o->dataset == DATASET_SHARED ? "shared" : "per-worker");
}

/* MinIO's own count of the GetObject requests it answered (its Prometheus
 * endpoint, public on the local stack). Another store has none: -1. */
static int s3_server_count(const struct config *cfg, struct wl_server_count *out, int max,
                           char *err, size_t errlen) {
    struct minio_gets g;
    if (max < 2)
        return 0;
    if (minio_get_count(s3_opts(cfg)->endpoint, NULL, 5000, &g, err, errlen) != 0)
        return -1;
    if (g.cached) {
        snprintf(err, errlen,
                 "%s: only MinIO's cached v2 metrics answer (up to 10 s old), too stale to "
                 "compare",
                 g.url);
        return -1;
    }
    out[0] = (struct wl_server_count){"GetObject", g.requests, 1};
    out[1] = (struct wl_server_count){"GetObject errors", g.errors, 0};
    return 2;
}

/* provenance: libcurl as loaded, the objects manifest's digests, and how
 * the bodies are checked. */
static json_t *s3_provenance(const struct config *cfg) {
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    json_t *lib = json_pack("{s:s?}", "libcurl", v ? v->version : NULL); /* NULL: not loadable */
    if (v && v->ssl_version)
        json_object_set_new(lib, "libcurl_tls", json_string(v->ssl_version));
    char err[512];
    json_t *man = s3_manifest_provenance(cfg, err, sizeof err), *ver;
    if (cfg->no_verify)
        ver = json_pack("{s:b, s:s}", "verified", 0, "why", "--no-verify");
    else if (!man)
        ver = json_pack("{s:b, s:s}", "verified", 0, "why", err);
    else
        ver = json_pack("{s:b, s:o}", "verified", 1, "how",
                        json_sprintf("CRC-32C (%s) of every body against the objects manifest%s",
                                     crc32c_impl(),
                                     json_is_true(json_object_get(man, "server_checksums"))
                                         ? " and the server's x-amz-checksum-crc32c"
                                         : " (the server keeps no S3 checksums)"));
    return json_pack("{s:o, s:{s:o}, s:o}", "libraries", lib, "data", "objects_manifest",
                     man ? man : json_pack("{s:s}", "error", err), "verification", ver);
}

/* `harness objects-manifest`: s3_manifest.c's, which takes no options of a
 * run. */
static int objects_manifest_main(const struct wl_command_env *env, int argc, char **argv) {
    (void)env;
    return s3_manifest_main(argc, argv);
}

static const struct wl_command s3_commands[] = {
    {"objects-manifest", "objects-manifest [--profile P] [--seed S] [--worker W]",
     objects_manifest_main},
    {NULL, NULL, NULL},
};

#define F(field) offsetof(struct s3_opts, field), sizeof(((struct s3_opts *)0)->field)
static const struct opt_row s3_rows[] = {
    {"s3-endpoint", OPT_STR, F(endpoint), 0, 0, "http://127.0.0.1:9000", NULL, "S3_ENDPOINT", 0,
     NULL, "S3 endpoint URL"},
    {"s3-region", OPT_STR, F(region), 0, 0, "us-east-1", NULL, NULL, 0, NULL,
     "S3 region for signing"},
    {"bucket", OPT_STR, F(bucket), 0, 0, "aops", NULL, NULL, 0, NULL, "S3 bucket"},
    {"dataset", OPT_CHOICE, F(dataset), 0, 0, "per-worker", "per-worker|shared", NULL, 0, NULL,
     "an object set per worker, or one set every worker reads"},
    {"s3-insecure", OPT_FLAG, F(insecure), 0, 0, NULL, NULL, NULL, 0, NULL,
     "do not verify TLS certificates"},
    {"s3-access-key", OPT_STR, F(access_key), 0, 0, NULL, NULL, "AWS_ACCESS_KEY_ID", OPT_SECRET,
     NULL, "S3 access key"},
    {"s3-secret-key", OPT_STR, F(secret_key), 0, 0, NULL, NULL, "AWS_SECRET_ACCESS_KEY", OPT_SECRET,
     NULL, "S3 secret key"},
};

static const struct wl_counter s3_counters[] = {
    [S3_COUNT_BYTES] = {"bytes", "bytes received", WL_BYTES},
};
static const struct wl_hist s3_hists[] = {
    [S3_HIST_TTFB] = {"ttfb_ms", "time to first byte"},
};

const struct workload s3_workload = {
    .name = "s3",
    .title = "S3 GET",
    .ops_per_cycle = S3_OPS,
    .options = s3_rows,
    .noptions = sizeof s3_rows / sizeof s3_rows[0],
    .opts_size = sizeof(struct s3_opts),
    .counters = s3_counters,
    .ncounters = 1,
    .hists = s3_hists,
    .nhists = 1,
    .classes_key = "classes",
    .nclasses = S3_NCLASSES,
    .class_names = s3_class_names,
    .commands = s3_commands,
    .prepare = s3_prepare,
    .plan = s3_plan,
    .open = s3_open,
    .run = s3_run,
    .close = s3_close,
    .backend = s3_server_version,
    .server_info = s3_server_info,
    .describe = s3_describe,
    .dataset_bytes = s3_dataset_bytes,
    .data_paths = s3_data_paths,
    .server_name = "minio",
    .server_locate = s3_server_locate,
    .server_count = s3_server_count,
    .provenance = s3_provenance,
    .store = &s3_store,
    .clock_offset = s3_clock_offset,
};
