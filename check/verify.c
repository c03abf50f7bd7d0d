/* verify.c -- `harness verify RUN_DIR --key PUB.pem`: is the result the one
 * that was signed? (see result/integrity.c for what --sign writes.)
 *
 * The DSSE envelope's signature is checked over the pre-authentication
 * encoding of its payload type and payload with the Ed25519 public key
 * given; then every subject of the in-toto Statement inside (result.json
 * and the files beside it) is hashed as it is now and compared with its
 * signed digest, and result.json's own integrity digest with its content.
 * Every subject's name is a path from the statement: opened inside RUN_DIR
 * only (common/safepath.h). The signer is named by the key file given and
 * its fingerprint, never by the envelope's unsigned keyid.
 * One line either way; exit 0 verified, 1 not, 2 nothing to verify. */
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/canon.h"
#include "../common/digest.h"
#include "../common/json.h"
#include "../common/safepath.h"
#include "check.h"

static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("harness verify: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

static EVP_PKEY *read_pub(const char *path, char *err, size_t len) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "--key %s: %s", path, strerror(errno));
        return NULL;
    }
    EVP_PKEY *k = PEM_read_PUBKEY(f, NULL, NULL, NULL);
    fclose(f);
    if (!k || EVP_PKEY_id(k) != EVP_PKEY_ED25519) {
        snprintf(err, len,
                 "--key %s: not an Ed25519 public key in PEM (openssl pkey -in KEY.pem -pubout)",
                 path);
        EVP_PKEY_free(k);
        return NULL;
    }
    return k;
}

/* The key's fingerprint: sha256 of its DER SubjectPublicKeyInfo (what
 * `openssl pkey -pubin -in PUB.pem -outform DER | sha256sum` prints). */
static void key_fingerprint(EVP_PKEY *k, char out[SHA256_HEX]) {
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(k, &der);
    if (n > 0)
        sha256_hex(der, (size_t)n, out);
    else
        snprintf(out, SHA256_HEX, "?");
    OPENSSL_free(der);
}

#define VFAIL(c, ...) (snprintf(msg, len, __VA_ARGS__), code = (c))

int verify_run(const char *dir, const char *key, char *msg, size_t len) {
    char path[8192], err[1400];
    int missing = 0;
    json_t *env = safepath_load_json(dir, DSSE_FILE, &missing, err, sizeof err);
    if (!env) {
        snprintf(msg, len, "%s has no signature (%s): the run was not made with --sign", dir,
                 missing ? DSSE_FILE " missing" : err);
        return 2;
    }
    snprintf(path, sizeof path, "%s/%s", dir, DSSE_FILE);
    EVP_PKEY *k = read_pub(key, err, sizeof err);
    int code = 1;
    unsigned char *payload = NULL, *pae = NULL, *sig = NULL;
    json_t *st = NULL, *res = NULL;
    if (!k) {
        VFAIL(2, "%s", err);
        goto out;
    }
    const char *type = jstr(env, "payloadType"), *p64 = jstr(env, "payload");
    const char *s64 = jstr(env, "signatures.0.sig");
    size_t plen = 0, slen = 0, mlen = 0;
    if (!type || !p64 || !s64 || strcmp(type, DSSE_PAYLOAD_TYPE) ||
        !(payload = b64_decode(p64, &plen)) || !(sig = b64_decode(s64, &slen))) {
        VFAIL(1, "%s is not a DSSE envelope of an in-toto statement", path);
        goto out;
    }
    pae = dsse_pae(type, payload, plen, &mlen);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = pae && ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k) == 1 &&
             EVP_DigestVerify(ctx, sig, slen, pae, mlen) == 1;
    EVP_MD_CTX_free(ctx);
    if (!ok) {
        VFAIL(1,
              "the signature in %s does not verify with %s: signed with another key, or the "
              "envelope was changed",
              path, key);
        goto out;
    }
    json_error_t je;
    st = json_loadb((const char *)payload, plen, 0, &je);
    if (!st || !jstr(st, "_type") || strcmp(jstr(st, "_type"), INTOTO_STATEMENT)) {
        VFAIL(1, "the signed payload is not an in-toto Statement v1");
        goto out;
    }
    size_t i, nsub = 0;
    int has_result = 0;
    json_t *s;
    json_array_foreach(json_object_get(st, "subject"), i, s) {
        const char *name = jstr(s, "name"), *want = jstr(s, "digest.sha256");
        char sha[SHA256_HEX];
        if (!name || !want) {
            VFAIL(1, "subject %zu of the statement has no name or sha256", i);
            goto out;
        }
        int rc = safepath_sha256(dir, name, sha, err, sizeof err);
        if (rc != 0) {
            VFAIL(rc == SAFEPATH_MISSING ? 1 : 2, "subject %zu %s: %s", i,
                  rc == SAFEPATH_MISSING ? "was signed but is gone" : "refused", err);
            goto out;
        }
        if (strcmp(sha, want)) {
            VFAIL(1, "%.200s changed after it was signed (sha256 %.16s..., signed %.16s...)", name,
                  sha, want);
            goto out;
        }
        has_result |= !strcmp(name, "result.json");
        nsub++;
    }
    /* A statement with no subject, or none for result.json, signs nothing
     * this checks: refused, not counted (nsub - 1 would underflow). */
    if (!has_result) {
        VFAIL(1, "the signed statement %s: nothing of this result was signed",
              nsub ? "does not name result.json" : "names no subject");
        goto out;
    }
    res = safepath_load_json(dir, "result.json", NULL, err, sizeof err);
    char canon[SHA256_HEX];
    const char *rs = jstr(res, "integrity.result_sha256");
    if (!res || canon_sha256(res, canon) != 0 || !rs || strcmp(rs, canon) ||
        !jstr(st, "predicate.canonical_sha256") ||
        strcmp(jstr(st, "predicate.canonical_sha256"), canon)) {
        VFAIL(1, "result.json's content does not match its signed integrity digest");
        goto out;
    }
    /* The signer is the key that verified, named by its file and its
     * fingerprint: the envelope's keyid is not signed and names nothing. */
    char fp[SHA256_HEX];
    key_fingerprint(k, fp);
    snprintf(msg, len,
             "%s: signature verified with the public key %s (sha256 of its DER %.16s...); "
             "result.json and %zu file(s) unchanged since signing",
             dir, key, fp, nsub - 1);
    code = 0;
out:
    EVP_PKEY_free(k);
    free(payload);
    free(pae);
    free(sig);
    json_decref(st);
    json_decref(res);
    json_decref(env);
    return code;
}

int verify_main(int argc, char **argv) {
    const char *dir = NULL, *key = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: harness verify RUN_DIR --key PUB.pem\n"
                   "  Checks the signature a run made with --sign KEY.pem (RUN_DIR/%s) with\n"
                   "  the Ed25519 public key, and that result.json and every file it signed\n"
                   "  are unchanged. exit status: 0 verified, 1 not, 2 nothing to verify.\n",
                   DSSE_FILE);
            return 0;
        } else if (!strcmp(argv[i], "--key") && i + 1 < argc)
            key = argv[++i];
        else if (argv[i][0] == '-' || dir)
            return fail(2, "unexpected argument '%s' (harness verify RUN_DIR --key PUB.pem)",
                        argv[i]);
        else
            dir = argv[i];
    }
    if (!dir || !key)
        return fail(2, "give a run directory and the public key: harness verify RUN_DIR --key "
                       "PUB.pem");
    char msg[4096];
    int code = verify_run(dir, key, msg, sizeof msg);
    if (code == 0)
        printf("harness verify: %s\n", msg);
    else
        fail(code, "%s", msg);
    return code;
}
