/* crypto_dl.c -- OpenSSL's libcrypto, loaded on its first use rather than
 * at every start (dl_lazy.h says why and how): its ~5,000 relocations and
 * initialisation cost each start of ./harness about 1 ms of CPU and 120
 * page faults, and only digests (manifests, results), S3's signing and
 * check/sign need it. A harness whose libcrypto cannot be loaded says so
 * once, and every call fails as libcrypto's own does (NULL, 0, -1).
 */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <pthread.h>

#include "dl_lazy.h"

#define CRYPTO_SONAME "libcrypto.so.3"

/* X(name, return type, parameters) for each function the harness calls
 * (OPENSSL_free is CRYPTO_free, EVP_PKEY_id EVP_PKEY_get_id). */
#define CRYPTO_FUNCS(X)                                                                            \
    X(OpenSSL_version, const char *, (int))                                                        \
    X(CRYPTO_free, void, (void *, const char *, int))                                              \
    X(EVP_sha256, const EVP_MD *, (void))                                                          \
    X(EVP_MD_CTX_new, EVP_MD_CTX *, (void))                                                        \
    X(EVP_MD_CTX_free, void, (EVP_MD_CTX *))                                                       \
    X(EVP_Digest, int,                                                                             \
      (const void *, size_t, unsigned char *, unsigned int *, const EVP_MD *, ENGINE *))           \
    X(EVP_DigestInit_ex, int, (EVP_MD_CTX *, const EVP_MD *, ENGINE *))                            \
    X(EVP_DigestUpdate, int, (EVP_MD_CTX *, const void *, size_t))                                 \
    X(EVP_DigestFinal_ex, int, (EVP_MD_CTX *, unsigned char *, unsigned int *))                    \
    X(EVP_DigestSignInit, int,                                                                     \
      (EVP_MD_CTX *, EVP_PKEY_CTX **, const EVP_MD *, ENGINE *, EVP_PKEY *))                       \
    X(EVP_DigestSign, int,                                                                         \
      (EVP_MD_CTX *, unsigned char *, size_t *, const unsigned char *, size_t))                    \
    X(EVP_DigestVerifyInit, int,                                                                   \
      (EVP_MD_CTX *, EVP_PKEY_CTX **, const EVP_MD *, ENGINE *, EVP_PKEY *))                       \
    X(EVP_DigestVerify, int,                                                                       \
      (EVP_MD_CTX *, const unsigned char *, size_t, const unsigned char *, size_t))                \
    X(EVP_EncodeBlock, int, (unsigned char *, const unsigned char *, int))                         \
    X(EVP_DecodeBlock, int, (unsigned char *, const unsigned char *, int))                         \
    X(EVP_PKEY_free, void, (EVP_PKEY *))                                                           \
    X(EVP_PKEY_get_id, int, (const EVP_PKEY *))                                                    \
    X(PEM_read_PrivateKey, EVP_PKEY *, (FILE *, EVP_PKEY **, pem_password_cb *, void *))           \
    X(PEM_read_PUBKEY, EVP_PKEY *, (FILE *, EVP_PKEY **, pem_password_cb *, void *))               \
    X(i2d_PUBKEY, int, (const EVP_PKEY *, unsigned char **))                                       \
    X(HMAC, unsigned char *,                                                                       \
      (const EVP_MD *, const void *, int, const unsigned char *, size_t, unsigned char *,          \
       unsigned int *))

DL_LAZY_LIBRARY(CRYPTO_FUNCS, CRYPTO_SONAME, "digests, S3 signing and check")

#define FORWARD DL_LAZY_FORWARD

const char *OpenSSL_version(int t) {
    FORWARD("libcrypto could not be loaded", OpenSSL_version, t);
}
void CRYPTO_free(void *p, const char *file, int line) {
    if (loaded())
        DL_LAZY_FN(fn, CRYPTO_free)(p, file, line);
}
const EVP_MD *EVP_sha256(void) {
    FORWARD(NULL, EVP_sha256);
}
EVP_MD_CTX *EVP_MD_CTX_new(void) {
    FORWARD(NULL, EVP_MD_CTX_new);
}
void EVP_MD_CTX_free(EVP_MD_CTX *c) {
    if (loaded())
        DL_LAZY_FN(fn, EVP_MD_CTX_free)(c);
}
int EVP_Digest(const void *d, size_t n, unsigned char *md, unsigned int *len, const EVP_MD *t,
               ENGINE *e) {
    FORWARD(0, EVP_Digest, d, n, md, len, t, e);
}
int EVP_DigestInit_ex(EVP_MD_CTX *c, const EVP_MD *t, ENGINE *e) {
    FORWARD(0, EVP_DigestInit_ex, c, t, e);
}
int EVP_DigestUpdate(EVP_MD_CTX *c, const void *d, size_t n) {
    FORWARD(0, EVP_DigestUpdate, c, d, n);
}
int EVP_DigestFinal_ex(EVP_MD_CTX *c, unsigned char *md, unsigned int *len) {
    FORWARD(0, EVP_DigestFinal_ex, c, md, len);
}
int EVP_DigestSignInit(EVP_MD_CTX *c, EVP_PKEY_CTX **pc, const EVP_MD *t, ENGINE *e, EVP_PKEY *k) {
    FORWARD(0, EVP_DigestSignInit, c, pc, t, e, k);
}
int EVP_DigestSign(EVP_MD_CTX *c, unsigned char *sig, size_t *siglen, const unsigned char *tbs,
                   size_t tbslen) {
    FORWARD(0, EVP_DigestSign, c, sig, siglen, tbs, tbslen);
}
int EVP_DigestVerifyInit(EVP_MD_CTX *c, EVP_PKEY_CTX **pc, const EVP_MD *t, ENGINE *e,
                         EVP_PKEY *k) {
    FORWARD(0, EVP_DigestVerifyInit, c, pc, t, e, k);
}
int EVP_DigestVerify(EVP_MD_CTX *c, const unsigned char *sig, size_t siglen,
                     const unsigned char *tbs, size_t tbslen) {
    FORWARD(0, EVP_DigestVerify, c, sig, siglen, tbs, tbslen);
}
int EVP_EncodeBlock(unsigned char *t, const unsigned char *f, int n) {
    FORWARD(0, EVP_EncodeBlock, t, f, n);
}
int EVP_DecodeBlock(unsigned char *t, const unsigned char *f, int n) {
    FORWARD(-1, EVP_DecodeBlock, t, f, n);
}
void EVP_PKEY_free(EVP_PKEY *k) {
    if (loaded())
        DL_LAZY_FN(fn, EVP_PKEY_free)(k);
}
int EVP_PKEY_get_id(const EVP_PKEY *k) {
    FORWARD(0, EVP_PKEY_get_id, k);
}
EVP_PKEY *PEM_read_PrivateKey(FILE *f, EVP_PKEY **x, pem_password_cb *cb, void *u) {
    FORWARD(NULL, PEM_read_PrivateKey, f, x, cb, u);
}
EVP_PKEY *PEM_read_PUBKEY(FILE *f, EVP_PKEY **x, pem_password_cb *cb, void *u) {
    FORWARD(NULL, PEM_read_PUBKEY, f, x, cb, u);
}
int i2d_PUBKEY(const EVP_PKEY *k, unsigned char **out) {
    FORWARD(-1, i2d_PUBKEY, k, out);
}
unsigned char *HMAC(const EVP_MD *t, const void *key, int klen, const unsigned char *d, size_t n,
                    unsigned char *md, unsigned int *mdlen) {
    FORWARD(NULL, HMAC, t, key, klen, d, n, md, mdlen);
}
