/* minio_metrics.c -- MinIO's GetObject count from its Prometheus text:
 * one libcurl GET per reading (at window edges, never in the measured loop)
 * and a small parser for the exposition format's sample lines. */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "minio_metrics.h"

#define BODY_MAX (8u << 20) /* a node's whole v2 page is ~100 KB */

/* ---- the parser --------------------------------------------------------------------------- */

/* Does the label set {k="v",...} starting at p (just past '{') hold key=val?
 * Sets *end past the closing '}'. Values may carry \" \\ \n escapes. */
static int labels_have(const char *p, const char *key, const char *val, const char **end) {
    int found = 0;
    size_t kl = strlen(key);
    while (*p && *p != '}') {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == '}')
            break;
        const char *k = p;
        while (*p && *p != '=' && *p != '}')
            p++;
        size_t klen = (size_t)(p - k);
        if (*p != '=' || p[1] != '"')
            return *end = NULL, 0;
        p += 2;
        /* compare the unescaped value with val as we go */
        const char *v = val;
        int same = 1;
        while (*p && *p != '"') {
            char c = *p;
            if (c == '\\' && p[1]) {
                p++;
                c = *p == 'n' ? '\n' : *p;
            }
            if (same && *v == c)
                v++;
            else
                same = 0;
            p++;
        }
        if (*p != '"')
            return *end = NULL, 0;
        p++;
        if (klen == kl && strncmp(k, key, kl) == 0 && same && *v == '\0')
            found = 1;
    }
    *end = *p == '}' ? p + 1 : NULL;
    return found;
}

int prom_sum(const char *text, const char *metric, const char *const *labels, int npairs,
             double *sum) {
    size_t ml = strlen(metric);
    int present = 0;
    *sum = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (l[0] == '#') {
            /* "# TYPE name counter": the family exists even with no sample yet */
            if (strncmp(l, "# TYPE ", 7) == 0 && strncmp(l + 7, metric, ml) == 0 &&
                l[7 + ml] == ' ')
                present = 1;
            continue;
        }
        if (strncmp(l, metric, ml) != 0 || (l[ml] != '{' && l[ml] != ' '))
            continue;
        present = 1;
        const char *p = l + ml;
        int match = 1;
        if (*p == '{') {
            const char *end = NULL;
            for (int i = 0; i < npairs && match; i++)
                match = labels_have(p + 1, labels[2 * i], labels[2 * i + 1], &end);
            if (npairs == 0)
                labels_have(p + 1, "", "", &end);
            if (!end)
                continue; /* malformed: skip the line */
            p = end;
        } else if (npairs > 0) {
            match = 0;
        }
        if (!match)
            continue;
        char *e;
        double v = strtod(p, &e);
        if (e != p)
            *sum += v;
    }
    return present;
}

/* ---- fetching ----------------------------------------------------------------------------- */

/* GET url into *text (caller frees). 0, 1 for HTTP 404, -1 with err. */
static int fetch(const char *url, const char *bearer, long timeout_ms, char **text, char *err,
                 size_t errlen) {
    struct buf b = {.max = BODY_MAX};
    char cerr[CURL_ERROR_SIZE] = "", auth[1024];
    struct curl_slist *hdr = NULL;
    CURL *h = curl_easy_init();
    if (!h)
        return snprintf(err, errlen, "curl_easy_init failed"), -1;
    if (bearer) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", bearer);
        hdr = curl_slist_append(NULL, auth);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, buf_curl_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 5000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(h);
    curl_slist_free_all(hdr);
    int ret = -1;
    if (b.err == EFBIG)
        snprintf(err, errlen, "%s: answer larger than %u bytes", url, BODY_MAX);
    else if (rc != CURLE_OK)
        snprintf(err, errlen, "%s: %s", url, cerr[0] ? cerr : curl_easy_strerror(rc));
    else if (code == 404)
        ret = 1;
    else if (code == 401 || code == 403)
        snprintf(err, errlen,
                 "%s: HTTP %ld: MinIO wants a bearer token for its metrics (start it with "
                 "MINIO_PROMETHEUS_AUTH_TYPE=public, as scripts/stack up does, or pass one)",
                 url, code);
    else if (code != 200)
        snprintf(err, errlen, "%s: HTTP %ld", url, code);
    else
        ret = 0;
    if (ret == 0)
        *text = b.p ? b.p : strdup("");
    else
        free(b.p);
    return ret;
}

/* Where the count is, v3 first (see minio_metrics.h). */
static const struct {
    const char *path, *total, *errors;
    const char *labels[4];
    int npairs, cached;
} src[] = {
    {"/minio/metrics/v3/api/requests",
     "minio_api_requests_total",
     "minio_api_requests_errors_total",
     {"name", "GetObject", "type", "s3"},
     2,
     0},
    {"/minio/v2/metrics/node",
     "minio_s3_requests_total",
     "minio_s3_requests_errors_total",
     {"api", "getobject", NULL, NULL},
     1,
     1},
};

/* A sum of samples as a count: a whole number from 0 to 2^64 - 1 (a NaN,
 * an infinity, a negative or a fraction is no count of requests, and
 * converting one past that range is undefined). */
static int as_count(double v, uint64_t *out) {
    if (!(v >= 0 && v < 18446744073709551616.0) || v != (double)(uint64_t)v)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int minio_counts_parse(const char *text, int v2, struct minio_gets *out, char *err, size_t errlen) {
    int i = v2 ? 1 : 0;
    double total = 0, errors = 0;
    if (!prom_sum(text, src[i].total, src[i].labels, src[i].npairs, &total))
        return 0;
    prom_sum(text, src[i].errors, src[i].labels, src[i].npairs, &errors);
    uint64_t t, e;
    if (as_count(total, &t) != 0 || as_count(errors, &e) != 0 || e > t) {
        snprintf(err, errlen, "MinIO's %s (%g) and %s (%g) are not a count of requests",
                 src[i].total, total, src[i].errors, errors);
        return -1;
    }
    out->requests = t;
    out->errors = e;
    out->cached = src[i].cached;
    out->present = 1;
    return 1;
}

int minio_get_count(const char *base, const char *bearer, long timeout_ms, struct minio_gets *out,
                    char *err, size_t errlen) {
    size_t bl = strlen(base);
    while (bl > 0 && base[bl - 1] == '/')
        bl--;
    memset(out, 0, sizeof *out);
    int answered = 0; /* an endpoint said 200 */
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
        char url[512], *text = NULL;
        snprintf(url, sizeof url, "%.*s%s", (int)bl, base, src[i].path);
        int r = fetch(url, bearer, timeout_ms, &text, err, errlen);
        if (r < 0)
            return -1; /* unreachable or refused: the other path would be too */
        if (r == 1)
            continue; /* 404: a MinIO without v3 */
        if (!answered)
            snprintf(out->url, sizeof out->url, "%s", url);
        answered = 1;
        int have = minio_counts_parse(text, i == 1, out, err, errlen);
        free(text);
        if (have < 0)
            return -1; /* fail closed: a count that is none checks nothing */
        if (have) {
            snprintf(out->url, sizeof out->url, "%s", url);
            return 0;
        }
    }
    if (!answered) {
        snprintf(err, errlen, "MinIO at %.*s has neither %s nor %s (HTTP 404)", (int)bl, base,
                 src[0].path, src[1].path);
        return -1;
    }
    return 0; /* no GetObject answered since MinIO started: the counter does not exist yet */
}
