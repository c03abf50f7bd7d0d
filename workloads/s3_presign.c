/* s3_presign.c -- SigV4 query-string signing of a GET, as AWS documents it
 * ("Authenticating Requests: Using Query Parameters").
 *
 * Why the workload presigns instead of letting libcurl sign: with
 * CURLOPT_AWS_SIGV4 libcurl signs every request anew, deriving the signing
 * key through four HMACs and hashing a canonical request built with its own
 * printf, each digest through OpenSSL 3's EVP fetches. callgrind counts that
 * as a quarter of the client's user-space instructions per 1 MiB GET (see
 * bench/s3). A presigned URL carries its signature in the query string: the
 * request itself costs the client nothing to sign, as for wrk, bench/s3's
 * leanest peer, and MinIO verifies the same HMAC chain either way, so the
 * server's work per GET is unchanged. The URLs are made once per worker,
 * before the barrier, valid for the longest time SigV4 allows, from one
 * signing key per worker: a hash and one HMAC per URL. */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>

#include "../common/digest.h"
#include "s3_presign.h"
#include "s3_util.h"

static void hmac(const void *key, size_t klen, const char *msg, unsigned char out[32]) {
    unsigned int n = 32;
    HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, strlen(msg), out, &n);
}

/* The Host header libcurl sends for url (no port when it is the scheme's
 * default), and where the path starts. */
static int split_url(const char *url, char *host, size_t hlen, const char **path) {
    const char *p = strstr(url, "://");
    if (!p)
        return -1;
    int https = p - url == 5 && !strncmp(url, "https", 5);
    p += 3;
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (!n || n >= hlen)
        return -1;
    memcpy(host, p, n);
    host[n] = 0;
    const char *dflt = https ? ":443" : ":80";
    size_t dl = strlen(dflt);
    if (n > dl && !strcmp(host + n - dl, dflt) && host[n - dl - 1] != ':')
        host[n - dl] = 0;
    *path = slash ? slash : "/";
    return 0;
}

int s3_presign_key(unsigned char key[32], const char *secret, const char *amzdate,
                   const char *region) {
    char k0[4 + 256 + 1], date[9];
    int n = snprintf(k0, sizeof k0, "AWS4%s", secret);
    if (n < 0 || (size_t)n >= sizeof k0 || strlen(amzdate) != 16)
        return -1;
    memcpy(date, amzdate, 8);
    date[8] = 0;
    hmac(k0, strlen(k0), date, key);
    hmac(key, 32, region, key);
    hmac(key, 32, "s3", key);
    hmac(key, 32, "aws4_request", key);
    return 0;
}

int s3_presign_get(char *out, size_t len, const char *url, const char *access,
                   const unsigned char key[32], const char *region, const char *amzdate,
                   unsigned expires, const char *header_name, const char *header_value) {
    char host[512], date[9], scope[128], eaccess[3 * 256 + 1], escope[3 * 128 + 1];
    const char *path;
    if (split_url(url, host, sizeof host, &path) < 0 || strlen(amzdate) != 16 ||
        strlen(access) > 256 || expires == 0 || expires > S3_PRESIGN_MAX_EXPIRES)
        return -1;
    memcpy(date, amzdate, 8);
    date[8] = 0;
    int n = snprintf(scope, sizeof scope, "%s/%s/s3/aws4_request", date, region);
    if (n < 0 || (size_t)n >= sizeof scope ||
        s3_uri_encode(eaccess, sizeof eaccess, access, 0) < 0 ||
        s3_uri_encode(escope, sizeof escope, scope, 0) < 0)
        return -1;
    /* The query parameters in their sorted order, values URI-encoded. */
    char query[2048];
    n = snprintf(query, sizeof query,
                 "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=%s%%2F%s&X-Amz-Date=%s"
                 "&X-Amz-Expires=%u&X-Amz-SignedHeaders=host%s%s",
                 eaccess, escope, amzdate, expires, header_name ? "%3B" : "",
                 header_name ? header_name : "");
    if (n < 0 || (size_t)n >= sizeof query)
        return -1;
    /* The canonical headers (name:value lines, host first: sorted), a blank
     * line, the signed headers' names, and the payload's hash, which a
     * presigned GET leaves unsigned. */
    char extra[512] = "";
    if (header_name) {
        n = snprintf(extra, sizeof extra, "%s:%s\n", header_name, header_value);
        if (n < 0 || (size_t)n >= sizeof extra)
            return -1;
    }
    char canon[4096];
    n = snprintf(canon, sizeof canon, "GET\n%s\n%s\nhost:%s\n%s\nhost%s%s\nUNSIGNED-PAYLOAD", path,
                 query, host, extra, header_name ? ";" : "", header_name ? header_name : "");
    if (n < 0 || (size_t)n >= sizeof canon)
        return -1;
    char creq[SHA256_HEX], sts[512];
    sha256_hex(canon, strlen(canon), creq);
    n = snprintf(sts, sizeof sts, "AWS4-HMAC-SHA256\n%s\n%s\n%s", amzdate, scope, creq);
    if (n < 0 || (size_t)n >= sizeof sts)
        return -1;
    unsigned char sig[32];
    hmac(key, 32, sts, sig);
    char sighex[65];
    hex_lower(sig, 32, sighex);
    n = snprintf(out, len, "%s?%s&X-Amz-Signature=%s", url, query, sighex);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}
