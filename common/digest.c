/* digest.c -- SHA-256 of buffers and files (see digest.h). */
#include "digest.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void hex_lower(const unsigned char *md, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[md[i] >> 4];
        out[2 * i + 1] = digits[md[i] & 15];
    }
    out[2 * n] = 0;
}

void sha256_hex(const void *data, size_t len, char out[SHA256_HEX]) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
    hex_lower(md, n, out);
}

int sha256_fd_hex(int fd, const char *name, char out[SHA256_HEX], char *err, size_t errlen) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 ? 0 : -1;
    unsigned char buf[1 << 15];
    ssize_t k;
    while (rc == 0 && (k = read(fd, buf, sizeof buf)) != 0) {
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            snprintf(err, errlen, "%s: %s", name, strerror(errno));
            rc = -2;
            break;
        }
        rc = EVP_DigestUpdate(ctx, buf, (size_t)k) == 1 ? 0 : -1;
    }
    if (rc == -1)
        snprintf(err, errlen, "%s: libcrypto could not hash it", name);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    if (rc == 0 && EVP_DigestFinal_ex(ctx, md, &n) == 1)
        hex_lower(md, n, out);
    else if (rc == 0) {
        snprintf(err, errlen, "%s: libcrypto could not hash it", name);
        rc = -1;
    }
    EVP_MD_CTX_free(ctx);
    return rc < 0 ? -1 : 0;
}

int sha256_file_hex(const char *path, char out[SHA256_HEX], char *err, size_t errlen) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = sha256_fd_hex(fd, path, out, err, errlen);
    close(fd);
    return rc;
}
