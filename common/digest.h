/* digest.h -- SHA-256 through OpenSSL's libcrypto, as lowercase hex: what
 * the result's provenance, integrity and the data manifests are named by. */
#ifndef AOPS_DIGEST_H
#define AOPS_DIGEST_H

#include <stddef.h>

#define SHA256_HEX 65 /* 64 hex digits and the NUL */

/* n bytes as 2n lowercase hex digits and a NUL (out holds 2n + 1). */
void hex_lower(const unsigned char *b, size_t n, char *out);

void sha256_hex(const void *data, size_t len, char out[SHA256_HEX]);

/* The file's digest; 0, or -1 with err = "PATH: reason". */
int sha256_file_hex(const char *path, char out[SHA256_HEX], char *err, size_t errlen);
/* The same of what is left to read on fd (not closed); name for err. */
int sha256_fd_hex(int fd, const char *name, char out[SHA256_HEX], char *err, size_t errlen);

#endif
