/* s3_store.c -- what a sharded run needs from the S3 server besides GETs:
 * a place for result files (PUT, GET and LIST of small objects in any
 * bucket) and a common clock to check the shards' clocks against.
 *
 * Both use the s3 workload's own signed libcurl handle (s3_util.c), so the
 * harness speaks to the store with the endpoint and credentials the run
 * already has; the coordinator reaches them through the descriptor's store
 * and clock_offset hooks without knowing it is S3.
 *
 * The clock: every S3 response carries a Date header, server time truncated
 * to the second. One request bounds the offset to a second; requests a few
 * milliseconds apart until the Date ticks over catch the server's second
 * boundary between two of them, which bounds the offset to the gap plus the
 * round trips (htpdate's trick). About a second of HEAD requests, once per
 * run, before the workers start. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/buf.h"
#include "../common/walltime.h"
#include "s3_util.h"
#include "workload.h"

#define STORE_MAX_BODY (256u << 20) /* a result file is KBs; a listing page ~300 KB */
#define CLOCK_GAP_NS 5000000L       /* between probes: 5 ms */
#define CLOCK_BUDGET_S 2.5          /* a second boundary is always inside this */

struct xfer {
    CURL *h;
    struct buf body;         /* the answer, at most STORE_MAX_BODY */
    const unsigned char *up; /* PUT body */
    size_t uplen, upoff;
    char date[64]; /* the Date header */
    char curlerr[CURL_ERROR_SIZE];
    long status;
};

static size_t on_header(char *p, size_t sz, size_t n, void *ud) {
    struct xfer *x = ud;
    size_t len = sz * n;
    if (len > 6 && !strncasecmp(p, "Date: ", 6)) {
        snprintf(x->date, sizeof x->date, "%.*s", (int)(len - 6), p + 6);
        x->date[strcspn(x->date, "\r\n")] = 0;
    }
    return len;
}

static size_t on_read(char *buf, size_t sz, size_t n, void *ud) {
    struct xfer *x = ud;
    size_t k = sz * n, left = x->uplen - x->upoff;
    if (k > left)
        k = left;
    memcpy(buf, x->up + x->upoff, k);
    x->upoff += k;
    return k;
}

static int xfer_open(const struct config *cfg, struct xfer *x, char *err, size_t errlen) {
    memset(x, 0, sizeof *x);
    x->body.max = STORE_MAX_BODY; /* past it the transfer is aborted */
    if (s3_check_config(cfg, err, errlen) < 0)
        return -1;
    if (!(x->h = curl_easy_init())) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

static void xfer_close(struct xfer *x) {
    if (x->h)
        curl_easy_cleanup(x->h);
    buf_free(&x->body);
    x->h = NULL;
}

/* "<endpoint>/<bucket>[/<key>][?query]"; query already encoded. */
static int store_url(char *buf, size_t len, const struct config *cfg, const char *bucket,
                     const char *key, const char *query) {
    const char *ep = s3_opts(cfg)->endpoint;
    size_t elen = strlen(ep);
    while (elen > 0 && ep[elen - 1] == '/')
        elen--;
    char b[256], k[S3_URLLEN];
    if (s3_uri_encode(b, sizeof b, bucket, 0) < 0 ||
        (key && s3_uri_encode(k, sizeof k, key, 1) < 0))
        return -1;
    int n = snprintf(buf, len, "%.*s/%s%s%s%s%s", (int)elen, ep, b, key ? "/" : "", key ? k : "",
                     query ? "?" : "", query ? query : "");
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* One request: method "GET", "HEAD" or "PUT" (with body). Returns the curl
 * code; x->status and x->body hold the answer. */
static CURLcode perform(const struct config *cfg, struct xfer *x, const char *method,
                        const char *url, const void *body, size_t blen) {
    CURL *h = x->h;
    struct curl_slist *hdr = !strcmp(method, "PUT") ? s3_put_headers() : s3_get_headers();
    curl_easy_reset(h);
    s3_easy_setup(h, cfg);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, buf_curl_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x->body);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->curlerr);
    if (!strcmp(method, "PUT")) {
        x->up = body;
        x->uplen = blen;
        x->upoff = 0;
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(h, CURLOPT_READDATA, x);
        curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)blen);
    } else if (!strcmp(method, "HEAD")) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    }
    buf_reset(&x->body);
    x->date[0] = 0;
    x->curlerr[0] = 0;
    x->status = 0;
    CURLcode cc = curl_easy_perform(h);
    if (cc == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &x->status);
    curl_slist_free_all(hdr);
    return cc;
}

/* One line for a request that failed; `what` names it ("PUT s3://b/k"). */
static void failure(char *err, size_t errlen, const struct config *cfg, struct xfer *x, CURLcode cc,
                    const char *what, const char *bucket) {
    if (cc != CURLE_OK) {
        int fatal;
        s3_describe_failure(err, errlen, cfg, x->h, cc, x->curlerr, 0, "", what, NULL, &fatal);
        return;
    }
    char code[64];
    s3_error_code(x->body.p ? x->body.p : "", x->body.len, code, sizeof code);
    if (x->status == 403 &&
        (!*code || !strcmp(code, "InvalidAccessKeyId") || !strcmp(code, "SignatureDoesNotMatch")))
        snprintf(err, errlen, "%s: S3 rejected the credentials (403%s%s)", what, *code ? " " : "",
                 code);
    else if (x->status == 404 && !strcmp(code, "NoSuchBucket"))
        snprintf(err, errlen, "%s: S3 bucket '%s' does not exist at %s", what, bucket,
                 s3_opts(cfg)->endpoint);
    else if (x->status == 404)
        snprintf(err, errlen, "%s: no such object", what);
    else
        snprintf(err, errlen, "%s: HTTP %ld%s%s", what, x->status, *code ? " " : "", code);
}

static int is_no_bucket(struct xfer *x) {
    char code[64];
    s3_error_code(x->body.p ? x->body.p : "", x->body.len, code, sizeof code);
    return x->status == 404 && !strcmp(code, "NoSuchBucket");
}

static int s3_store_put(const struct config *cfg, const char *bucket, const char *key,
                        const void *data, size_t len, char *err, size_t errlen) {
    struct xfer x;
    char url[S3_URLLEN + 256], burl[S3_URLLEN], what[S3_URLLEN];
    snprintf(what, sizeof what, "PUT s3://%s/%s", bucket, key);
    if (xfer_open(cfg, &x, err, errlen) < 0)
        return -1;
    int rc = -1;
    if (store_url(url, sizeof url, cfg, bucket, key, NULL) < 0 ||
        store_url(burl, sizeof burl, cfg, bucket, NULL, NULL) < 0) {
        snprintf(err, errlen, "%s: URL too long", what);
        goto out;
    }
    CURLcode cc = perform(cfg, &x, "PUT", url, data, len);
    if (cc == CURLE_OK && is_no_bucket(&x)) {
        /* A fresh store: make the bucket (an answer that it exists is fine). */
        cc = perform(cfg, &x, "PUT", burl, "", 0);
        if (cc == CURLE_OK && x.status >= 300 &&
            !strstr(x.body.p ? x.body.p : "", "BucketAlready")) {
            char bwhat[512];
            snprintf(bwhat, sizeof bwhat, "creating bucket '%s'", bucket);
            failure(err, errlen, cfg, &x, cc, bwhat, bucket);
            goto out;
        }
        cc = perform(cfg, &x, "PUT", url, data, len);
    }
    if (cc != CURLE_OK || x.status >= 300)
        failure(err, errlen, cfg, &x, cc, what, bucket);
    else
        rc = 0;
out:
    xfer_close(&x);
    return rc;
}

static int s3_store_get(const struct config *cfg, const char *bucket, const char *key, char **data,
                        size_t *len, char *err, size_t errlen) {
    struct xfer x;
    char url[S3_URLLEN + 256], what[S3_URLLEN];
    snprintf(what, sizeof what, "GET s3://%s/%s", bucket, key);
    *data = NULL;
    *len = 0;
    if (xfer_open(cfg, &x, err, errlen) < 0)
        return -1;
    if (store_url(url, sizeof url, cfg, bucket, key, NULL) < 0) {
        snprintf(err, errlen, "%s: URL too long", what);
        xfer_close(&x);
        return -1;
    }
    CURLcode cc = perform(cfg, &x, "GET", url, NULL, 0);
    if (cc != CURLE_OK || x.status >= 300) {
        failure(err, errlen, cfg, &x, cc, what, bucket);
        xfer_close(&x);
        return -1;
    }
    if (buf_reserve(&x.body, 0) != 0) { /* an empty object: "" */
        snprintf(err, errlen, "out of memory");
        xfer_close(&x);
        return -1;
    }
    *data = x.body.p;
    *len = x.body.len;
    x.body.p = NULL;
    xfer_close(&x);
    return 0;
}

/* Text between <tag> and </tag> from *pos on, XML entities decoded, into
 * out; advances *pos. 0, or -1 when there is none. */
static int xml_next(const char **pos, const char *tag, char *out, size_t len) {
    char open[64], close[64];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    const char *a = strstr(*pos, open);
    if (!a)
        return -1;
    a += strlen(open);
    const char *b = strstr(a, close);
    if (!b)
        return -1;
    *pos = b + strlen(close);
    size_t o = 0;
    for (const char *p = a; p < b && o + 1 < len;) {
        static const struct {
            const char *ent;
            char c;
        } ents[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        int done = 0;
        for (size_t e = 0; e < sizeof ents / sizeof ents[0] && !done; e++)
            if (!strncmp(p, ents[e].ent, strlen(ents[e].ent))) {
                out[o++] = ents[e].c;
                p += strlen(ents[e].ent);
                done = 1;
            }
        if (!done && p[0] == '&' && p[1] == '#') { /* &#34; */
            char *end;
            long c = strtol(p + 2, &end, 10);
            if (*end == ';' && c > 0 && c < 128) {
                out[o++] = (char)c;
                p = end + 1;
                done = 1;
            }
        }
        if (!done)
            out[o++] = *p++;
    }
    out[o] = 0;
    return 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int s3_store_list(const struct config *cfg, const char *bucket, const char *prefix,
                         char ***keys, size_t *n, char *err, size_t errlen) {
    struct xfer x;
    char what[S3_URLLEN], token[1024] = "", etok[3200], epre[3 * S3_KEYLEN + 1];
    char query[4096], url[S3_URLLEN + 4096];
    size_t cap = 0;
    *keys = NULL;
    *n = 0;
    snprintf(what, sizeof what, "LIST s3://%s/%s", bucket, prefix);
    if (xfer_open(cfg, &x, err, errlen) < 0)
        return -1;
    if (s3_uri_encode(epre, sizeof epre, prefix, 0) < 0) {
        snprintf(err, errlen, "%s: prefix too long", what);
        goto fail;
    }
    for (int page = 0;; page++) {
        /* Query parameters in the sorted order SigV4's canonical request wants. */
        if (token[0] && s3_uri_encode(etok, sizeof etok, token, 0) < 0) {
            snprintf(err, errlen, "%s: continuation token too long", what);
            goto fail;
        }
        snprintf(query, sizeof query, "%s%s%sdelimiter=%%2F&list-type=2&prefix=%s",
                 token[0] ? "continuation-token=" : "", token[0] ? etok : "", token[0] ? "&" : "",
                 epre);
        if (store_url(url, sizeof url, cfg, bucket, NULL, query) < 0) {
            snprintf(err, errlen, "%s: URL too long", what);
            goto fail;
        }
        CURLcode cc = perform(cfg, &x, "GET", url, NULL, 0);
        if (cc != CURLE_OK || x.status >= 300) {
            failure(err, errlen, cfg, &x, cc, what, bucket);
            goto fail;
        }
        const char *pos = x.body.p ? x.body.p : "";
        char key[2048];
        while (xml_next(&pos, "Key", key, sizeof key) == 0) {
            if (*n == cap) {
                cap = cap ? cap * 2 : 64;
                char **k = realloc(*keys, cap * sizeof *k);
                if (!k)
                    goto oom;
                *keys = k;
            }
            if (!((*keys)[*n] = strdup(key)))
                goto oom;
            (*n)++;
        }
        pos = x.body.p ? x.body.p : "";
        char trunc[16] = "";
        xml_next(&pos, "IsTruncated", trunc, sizeof trunc);
        pos = x.body.p ? x.body.p : "";
        if (strcmp(trunc, "true") || xml_next(&pos, "NextContinuationToken", token, sizeof token))
            break;
        if (page > 100000) {
            snprintf(err, errlen, "%s: the listing does not end", what);
            goto fail;
        }
    }
    if (*n)
        qsort(*keys, *n, sizeof **keys, cmp_str);
    xfer_close(&x);
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    for (size_t i = 0; i < *n; i++)
        free((*keys)[i]);
    free(*keys);
    *keys = NULL;
    *n = 0;
    xfer_close(&x);
    return -1;
}

const struct wl_store s3_store = {
    .scheme = "s3",
    .put = s3_store_put,
    .get = s3_store_get,
    .list = s3_store_list,
};

/* "Tue, 01 Dec 2026 10:33:17 GMT" (RFC 7231's IMF-fixdate) to epoch seconds. */
static int parse_http_date(const char *s, double *t) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(s, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (!end || *end)
        return -1;
    time_t x = timegm(&tm);
    if (x == (time_t)-1)
        return -1;
    *t = (double)x;
    return 0;
}

int s3_clock_offset(const struct config *cfg, struct wl_clock *out, char *err, size_t errlen) {
    struct xfer x;
    char url[S3_URLLEN];
    if (xfer_open(cfg, &x, err, errlen) < 0)
        return -1;
    if (store_url(url, sizeof url, cfg, s3_opts(cfg)->bucket, NULL, NULL) < 0) {
        snprintf(err, errlen, "S3 endpoint or bucket name too long");
        xfer_close(&x);
        return -1;
    }
    /* Server time = local + offset. A response dated D was made at a server
     * time in [D, D+1) at some local time in [a, b], so the offset lies in
     * (D - b, D + 1 - a); each probe narrows the interval. */
    double lo = -1e18, hi = 1e18, first_date = -1, t_begin = wall_now();
    unsigned probes = 0;
    int rc = -1, flipped = 0;
    while (!flipped && wall_now() - t_begin < CLOCK_BUDGET_S) {
        double a = wall_now();
        CURLcode cc = perform(cfg, &x, "HEAD", url, NULL, 0);
        double b = wall_now(), d;
        if (cc != CURLE_OK) {
            failure(err, errlen, cfg, &x, cc, "HEAD (clock)", s3_opts(cfg)->bucket);
            goto out;
        }
        if (parse_http_date(x.date, &d) != 0) {
            snprintf(err, errlen, "S3 endpoint %s sent no readable Date header ('%s')",
                     s3_opts(cfg)->endpoint, x.date);
            goto out;
        }
        probes++;
        if (d - b > lo)
            lo = d - b;
        if (d + 1 - a < hi)
            hi = d + 1 - a;
        if (first_date < 0)
            first_date = d;
        else if (d != first_date)
            flipped = 1;
        if (!flipped) {
            struct timespec gap = {0, CLOCK_GAP_NS};
            nanosleep(&gap, NULL);
        }
    }
    if (hi < lo) {
        snprintf(err, errlen, "the clock moved while it was measured against %s (stepped?)",
                 s3_opts(cfg)->endpoint);
        goto out;
    }
    out->offset_s = (lo + hi) / 2;
    out->uncertainty_s = (hi - lo) / 2;
    snprintf(out->reference, sizeof out->reference, "Date header of S3 endpoint %s (%u requests)",
             s3_opts(cfg)->endpoint, probes);
    rc = 0;
out:
    xfer_close(&x);
    return rc;
}
