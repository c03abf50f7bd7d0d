/* s3_util.c -- object naming, content, URI encoding, the signed libcurl
 * handle and error messages for the s3 workload (see s3_util.h).
 *
 * Signing is libcurl's own (CURLOPT_AWS_SIGV4). Debian's 7.88.1 needs help:
 * it does not add x-amz-content-sha256, it derives region and service from
 * the host name unless the provider string is given in full, and it signs
 * the path exactly as written, so keys are percent-encoded here the way the
 * server will canonicalise them. */
#include "s3_util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../common/util.h"
#include "workload.h"

static const uint64_t class_full_size[S3_NCLASSES] = {1ULL << 20, 10ULL << 20, 50ULL << 20};
static const unsigned class_count[S3_NCLASSES] = {500, 500, 190};
const char *const s3_class_names[S3_NCLASSES] = {"1MiB", "10MiB", "50MiB"};
_Static_assert(500 + 500 + 190 == S3_OPS, "the classes' counts make a cycle's GETs");

int s3_op_class(unsigned op) {
    int c = 0;
    while (c < S3_NCLASSES - 1 && op >= s3_class_first_op(c) + class_count[c])
        c++;
    return c;
}

unsigned s3_op_index(unsigned op) {
    return op - s3_class_first_op(s3_op_class(op));
}

unsigned s3_class_first_op(int klass) {
    unsigned first = 0;
    for (int c = 0; c < klass; c++)
        first += class_count[c];
    return first;
}

unsigned s3_class_count(int klass) {
    return class_count[klass];
}

uint64_t s3_class_size(enum profile p, int klass) {
    return class_full_size[klass] / profile_divisor(p);
}

uint64_t s3_worker_bytes(enum profile p) {
    uint64_t sum = 0;
    for (int c = 0; c < S3_NCLASSES; c++)
        sum += class_count[c] * s3_class_size(p, c);
    return sum;
}

double s3_dataset_bytes(const struct config *cfg) {
    unsigned sets = s3_opts(cfg)->dataset == DATASET_SHARED ? 1 : cfg->n;
    return (double)s3_worker_bytes(cfg->profile) * sets;
}

unsigned s3_data_worker(const struct config *cfg, unsigned worker) {
    return s3_opts(cfg)->dataset == DATASET_SHARED ? 0 : worker;
}

void s3_key(char *buf, size_t len, enum profile p, unsigned dw, unsigned op) {
    int c = s3_op_class(op);
    snprintf(buf, len, "%s/w%u/%s/%u", profile_name(p), dw, s3_class_names[c], s3_op_index(op));
}

int s3_uri_encode(char *dst, size_t len, const char *src, int keep_slash) {
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *s = (const unsigned char *)src; *s; s++) {
        int plain = (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
                    (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' || *s == '_' || *s == '~' ||
                    (keep_slash && *s == '/');
        if (o + (plain ? 1 : 3) >= len)
            return -1;
        if (plain) {
            dst[o++] = (char)*s;
        } else {
            dst[o++] = '%';
            dst[o++] = hex[*s >> 4];
            dst[o++] = hex[*s & 15];
        }
    }
    if (o >= len)
        return -1;
    dst[o] = 0;
    return (int)o;
}

int s3_url(char *buf, size_t len, const struct config *cfg, const char *key) {
    size_t elen = strlen(s3_opts(cfg)->endpoint);
    while (elen > 0 && s3_opts(cfg)->endpoint[elen - 1] == '/')
        elen--;
    char bucket[256], ekey[S3_URLLEN];
    if (s3_uri_encode(bucket, sizeof bucket, s3_opts(cfg)->bucket, 0) < 0)
        return -1;
    if (key && s3_uri_encode(ekey, sizeof ekey, key, 1) < 0)
        return -1;
    int n = key ? snprintf(buf, len, "%.*s/%s/%s", (int)elen, s3_opts(cfg)->endpoint, bucket, ekey)
                : snprintf(buf, len, "%.*s/%s", (int)elen, s3_opts(cfg)->endpoint, bucket);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

uint64_t s3_content_seed(uint64_t seed, const char *key) {
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a of the key, then mixed with the seed */
    for (const unsigned char *s = (const unsigned char *)key; *s; s++)
        h = (h ^ *s) * 0x100000001b3ULL;
    uint64_t x = seed ^ h;
    return splitmix64(&x);
}

/* Word w of an object is splitmix64's output for state base + (w+1)*gamma:
 * the same sequence splitmix64 would produce, but reachable at any w. */
static inline uint64_t content_word(uint64_t base, uint64_t w) {
    uint64_t x = base + w * 0x9e3779b97f4a7c15ULL;
    return splitmix64(&x);
}

void s3_fill(void *buf, size_t len, uint64_t cs, uint64_t offset) {
    unsigned char *p = buf;
    while (len > 0 && (offset & 7)) { /* head: up to the next word boundary */
        uint64_t v = content_word(cs, offset >> 3);
        *p++ = (unsigned char)(v >> (8 * (offset & 7)));
        offset++, len--;
    }
    for (uint64_t w = offset >> 3; len >= 8; w++, p += 8, len -= 8, offset += 8) {
        uint64_t v = content_word(cs, w);
        memcpy(p, &v, 8); /* little-endian machines: byte i is v >> 8i, as above */
    }
    for (uint64_t v = content_word(cs, offset >> 3); len > 0; len--, offset++)
        *p++ = (unsigned char)(v >> (8 * (offset & 7)));
}

int s3_no_room(long status, const char *code, const char *body, size_t blen) {
    static const char enospc[] = "no space left on device";
    return status == 507 || !strcmp(code, "XMinioStorageFull") ||
           (status >= 500 && body && memmem(body, blen, enospc, sizeof enospc - 1));
}

void s3_error_code(const char *body, size_t blen, char *code, size_t clen) {
    code[0] = 0;
    const char *open = memmem(body, blen, "<Code>", 6);
    if (!open)
        return;
    open += 6;
    const char *close = memmem(open, blen - (size_t)(open - body), "</Code>", 7);
    if (!close)
        return;
    size_t n = (size_t)(close - open);
    if (n >= clen)
        n = clen - 1;
    memcpy(code, open, n);
    code[n] = 0;
}

struct curl_slist *s3_get_headers(void) {
    return curl_slist_append(NULL, "x-amz-content-sha256: " S3_EMPTY_SHA256);
}

struct curl_slist *s3_put_headers(void) {
    /* No "Expect:" here to turn 100-continue off: libcurl 7.88 signs every
     * header on this list, even one it then leaves out, and MinIO rejects
     * the signature. */
    return curl_slist_append(NULL, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
}

void s3_easy_setup(CURL *h, const struct config *cfg) {
    char provider[128];
    snprintf(provider, sizeof provider, "aws:amz:%s:s3", s3_opts(cfg)->region);
    curl_easy_setopt(h, CURLOPT_AWS_SIGV4, provider);
    curl_easy_setopt(h, CURLOPT_USERNAME, s3_opts(cfg)->access_key);
    curl_easy_setopt(h, CURLOPT_PASSWORD, s3_opts(cfg)->secret_key);
    s3_easy_transport(h, cfg);
}

void s3_easy_transport(CURL *h, const struct config *cfg) {
    long ms = (long)(cfg->op_timeout * 1000);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms < 10000 ? ms : 10000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 256L * 1024);
    if (s3_opts(cfg)->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
}

static int is_tls_error(CURLcode cc) {
    return cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_SSL_CACERT_BADFILE ||
           cc == CURLE_SSL_CERTPROBLEM;
}

void s3_describe_failure(char *err, size_t len, const struct config *cfg, CURL *h, CURLcode cc,
                         const char *curlerr, long status, const char *code, const char *what,
                         const char *key, int *fatal) {
    const char *ep = s3_opts(cfg)->endpoint;
    const char *detail = curlerr && *curlerr ? curlerr : curl_easy_strerror(cc);
    *fatal = 0;
    if (cc == CURLE_COULDNT_CONNECT) {
        long oserr = 0;
        curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);
        *fatal = 1;
        if (oserr == ECONNREFUSED || oserr == 0)
            snprintf(err, len, "cannot connect to S3 endpoint %s: connection refused", ep);
        else
            snprintf(err, len, "cannot connect to S3 endpoint %s: %s", ep, strerror((int)oserr));
    } else if (cc == CURLE_COULDNT_RESOLVE_HOST) {
        *fatal = 1;
        snprintf(err, len, "cannot resolve the host of S3 endpoint %s", ep);
    } else if (cc == CURLE_OPERATION_TIMEDOUT) {
        snprintf(err, len, "%s: no answer within %g s (--op-timeout)", what, cfg->op_timeout);
    } else if (cc == CURLE_SSL_CONNECT_ERROR) {
        *fatal = 1;
        snprintf(err, len, "S3 endpoint %s: TLS handshake failed (%s): does it speak https?", ep,
                 detail);
    } else if (is_tls_error(cc)) {
        *fatal = 1;
        snprintf(err, len,
                 "S3 endpoint %s: TLS certificate not accepted (%s); --s3-insecure skips the check",
                 ep, detail);
    } else if (cc == CURLE_RECV_ERROR || cc == CURLE_SEND_ERROR || cc == CURLE_GOT_NOTHING ||
               cc == CURLE_PARTIAL_FILE) {
        snprintf(err, len, "%s: connection to S3 endpoint %s lost (%s)", what, ep, detail);
    } else if (cc != CURLE_OK) {
        snprintf(err, len, "%s: %s", what, detail);
    } else if (status == 403 && (!*code || !strcmp(code, "InvalidAccessKeyId") ||
                                 !strcmp(code, "SignatureDoesNotMatch"))) {
        *fatal = 1;
        snprintf(err, len, "S3 rejected the credentials (403%s%s)", *code ? " " : "", code);
    } else if (status == 404 && key) {
        char opts[600], buf[1100];
        *fatal = !strcmp(code, "NoSuchBucket");
        snprintf(opts, sizeof opts, "--profile %s --containers %u%s%s%s",
                 profile_name(cfg->profile),
                 cfg->n * (cfg->shards ? cfg->shards : 1), /* every shard's workers */
                 s3_opts(cfg)->dataset == DATASET_SHARED ? " --dataset shared" : "",
                 strcmp(s3_opts(cfg)->bucket, "aops") ? " --bucket " : "",
                 strcmp(s3_opts(cfg)->bucket, "aops") ? s3_opts(cfg)->bucket : "");
        snprintf(err, len, "S3 object '%s' is missing from bucket '%s'%s: run %s", key,
                 s3_opts(cfg)->bucket, *fatal ? " (no such bucket)" : "",
                 config_prepare_hint(cfg, buf, sizeof buf, opts));
    } else if (status == 404 && !strcmp(code, "NoSuchBucket")) {
        char buf[1100];
        *fatal = 1;
        snprintf(err, len, "S3 bucket '%s' does not exist at %s: run %s", s3_opts(cfg)->bucket, ep,
                 config_prepare_hint(cfg, buf, sizeof buf, NULL));
    } else if (status == 507 || !strcmp(code, "XMinioStorageFull")) {
        /* The drives are full: the first such answer ends a prepare. */
        *fatal = 1;
        snprintf(err, len,
                 "%s: S3 endpoint %s has no room left (HTTP %ld%s%s): its drives are full; free "
                 "space or prepare less (--profile small, --dataset shared)",
                 what, ep, status, *code ? " " : "", code);
    } else {
        snprintf(err, len, "%s: HTTP %ld%s%s", what, status, *code ? " " : "", code);
    }
}

int s3_check_config(const struct config *cfg, char *err, size_t len) {
    if (!s3_opts(cfg)->access_key[0] || !s3_opts(cfg)->secret_key[0]) {
        snprintf(err, len,
                 "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                 "(scripts/stack up writes them to .local/stack/credentials)");
        return -1;
    }
    if (strncmp(s3_opts(cfg)->endpoint, "http://", 7) &&
        strncmp(s3_opts(cfg)->endpoint, "https://", 8)) {
        snprintf(err, len, "S3 endpoint '%s' is not an http:// or https:// URL",
                 s3_opts(cfg)->endpoint);
        return -1;
    }
    return 0;
}
