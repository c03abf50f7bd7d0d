/* digest.c -- SHA-256 of buffers and files (see digest.h). */
#include "digest.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

static void hex(const unsigned char *md, unsigned n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < n; i++) {
        out[2 * i] = digits[md[i] >> 4];
        out[2 * i + 1] = digits[md[i] & 15];
    }
    out[2 * n] = 0;
}

void sha256_hex(const void *data, size_t len, char out[SHA256_HEX]) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
    hex(md, n, out);
}

int sha256_file_hex(const char *path, char out[SHA256_HEX], char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 ? 0 : -1;
    unsigned char buf[1 << 15];
    size_t k;
    while (rc == 0 && (k = fread(buf, 1, sizeof buf, f)) > 0)
        rc = EVP_DigestUpdate(ctx, buf, k) == 1 ? 0 : -1;
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    } else if (rc != 0)
        snprintf(err, errlen, "%s: libcrypto could not hash it", path);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    if (rc == 0 && EVP_DigestFinal_ex(ctx, md, &n) == 1)
        hex(md, n, out);
    else if (rc == 0) {
        snprintf(err, errlen, "%s: libcrypto could not hash it", path);
        rc = -1;
    }
    EVP_MD_CTX_free(ctx);
    fclose(f);
    return rc;
}
