/* canon.c -- a result's canonical digest and DSSE's encoding (see canon.h). */
#include "canon.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int canon_sha256(const json_t *result, char out[SHA256_HEX]) {
    json_t *c = json_copy((json_t *)result); /* shallow: only the top level changes */
    if (!c)
        return -1;
    json_object_del(c, "integrity");
    char *s = json_dumps(c, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(c);
    if (!s)
        return -1;
    sha256_hex(s, strlen(s), out);
    free(s);
    return 0;
}

unsigned char *dsse_pae(const char *type, const void *body, size_t blen, size_t *outlen) {
    size_t tlen = strlen(type);
    char head[128];
    int h = snprintf(head, sizeof head, "DSSEv1 %zu ", tlen);
    char mid[64];
    int m = snprintf(mid, sizeof mid, " %zu ", blen);
    unsigned char *p = malloc((size_t)h + tlen + (size_t)m + blen + 1);
    if (!p)
        return NULL;
    memcpy(p, head, (size_t)h);
    memcpy(p + h, type, tlen);
    memcpy(p + h + tlen, mid, (size_t)m);
    memcpy(p + h + tlen + m, body, blen);
    *outlen = (size_t)h + tlen + (size_t)m + blen;
    return p;
}

char *b64_encode(const void *data, size_t len) {
    char *s = malloc(4 * ((len + 2) / 3) + 1);
    if (s)
        EVP_EncodeBlock((unsigned char *)s, data, (int)len);
    return s;
}

unsigned char *b64_decode(const char *s, size_t *outlen) {
    size_t n = strlen(s);
    if (n % 4)
        return NULL;
    unsigned char *p = malloc(n / 4 * 3 + 1);
    if (!p)
        return NULL;
    int k = EVP_DecodeBlock(p, (const unsigned char *)s, (int)n);
    if (k < 0) {
        free(p);
        return NULL;
    }
    /* EVP_DecodeBlock counts the padding as data. */
    size_t pad = n >= 2 && s[n - 1] == '=' ? (s[n - 2] == '=' ? 2 : 1) : 0;
    *outlen = (size_t)k - pad;
    return p;
}
