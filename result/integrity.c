/* integrity.c -- sealing a run directory (see integrity.h): the digests of
 * result.json and of every file written beside it, and with --sign an
 * Ed25519 signature over them.
 *
 * The result is read back from the file just written, so its digest is of
 * the values as anyone will load them (reals as printed), never of the
 * in-memory ones. The envelope is DSSE (the pre-authentication encoding of
 * the payload type and payload is what is signed) around an in-toto v1
 * Statement whose subjects are result.json (the sha256 of its bytes, as
 * `sha256sum` gives it) and each file beside it; the predicate names the
 * run and its canonical digest. `harness verify` (check/) checks it. */
#include "integrity.h"

#include <dirent.h>
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/canon.h"
#include "../common/digest.h"
#include "../common/json.h"
#include "../result/result.h"

/* Add every regular file below dir/rel to files{rel path: sha256}, but
 * result.json and the envelope at the top and what is being written. */
static int hash_tree(const char *dir, const char *rel, json_t *files, char *err, size_t errlen) {
    char path[8192];
    snprintf(path, sizeof path, "%s%s%s", dir, rel[0] ? "/" : "", rel);
    struct dirent **ents;
    int n = scandir(path, &ents, NULL, alphasort);
    if (n < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *e = ents[i]->d_name;
        char sub[4096], full[8192];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        size_t l = strlen(e);
        struct stat st;
        int skip = !strcmp(e, ".") || !strcmp(e, "..") || (l > 4 && !strcmp(e + l - 4, ".tmp")) ||
                   (!rel[0] && (!strcmp(e, "result.json") || !strcmp(e, DSSE_FILE)));
        if (rc == 0 && !skip && lstat(full, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                rc = hash_tree(dir, sub, files, err, errlen);
            else if (S_ISREG(st.st_mode)) {
                char sha[SHA256_HEX];
                rc = sha256_file_hex(full, sha, err, errlen);
                if (rc == 0)
                    json_object_set_new(files, sub, json_string(sha));
            }
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

static int write_result(const json_t *res, const char *path, char *err, size_t errlen) {
    if (json_write_atomic(path, res, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Sign PAE(type, payload) with the Ed25519 key in key_path; the signature
 * and the key's id (sha256 of its public key, DER) as base64 and hex. */
static int ed25519_sign(const char *key_path, const unsigned char *msg, size_t len, char **sig_b64,
                        char keyid[SHA256_HEX], char *err, size_t errlen) {
    FILE *f = fopen(key_path, "r");
    if (!f) {
        snprintf(err, errlen, "--sign %s: %s", key_path, strerror(errno));
        return -1;
    }
    EVP_PKEY *k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    if (!k || EVP_PKEY_id(k) != EVP_PKEY_ED25519) {
        snprintf(err, errlen,
                 "--sign %s: not an Ed25519 private key in PEM (make one: openssl genpkey "
                 "-algorithm ed25519 -out KEY.pem)",
                 key_path);
        EVP_PKEY_free(k);
        return -1;
    }
    unsigned char sig[64], *der = NULL;
    size_t slen = sizeof sig;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k) == 1 &&
             EVP_DigestSign(ctx, sig, &slen, msg, len) == 1;
    int dlen = ok ? i2d_PUBKEY(k, &der) : -1;
    if (ok && dlen > 0) {
        sha256_hex(der, (size_t)dlen, keyid);
        *sig_b64 = b64_encode(sig, slen);
    }
    OPENSSL_free(der);
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(k);
    if (!ok || dlen <= 0 || !*sig_b64) {
        snprintf(err, errlen, "--sign %s: libcrypto could not sign", key_path);
        return -1;
    }
    return 0;
}

static int sign_dir(const char *dir, const json_t *res, const char *result_sha,
                    const char *key_path, char *err, size_t errlen) {
    json_t *subjects =
        json_pack("[{s:s, s:{s:s}}]", "name", "result.json", "digest", "sha256", result_sha);
    const char *name;
    json_t *v;
    json_object_foreach(jget(res, "integrity.files"), name, v) {
        json_array_append_new(subjects,
                              json_pack("{s:s, s:{s:O}}", "name", name, "digest", "sha256", v));
    }
    json_t *st = json_pack(
        "{s:s, s:o, s:s, s:{s:O, s:O, s:O, s:O, s:O, s:O}}", "_type", INTOTO_STATEMENT, "subject",
        subjects, "predicateType", AOPS_PREDICATE, "predicate", "run_id",
        json_object_get(res, "run_id") ? json_object_get(res, "run_id") : json_null(),
        "canonical_sha256", jget(res, "integrity.result_sha256"), "valid",
        json_object_get(res, "valid"), "reportable",
        json_object_get(res, "reportable") ? json_object_get(res, "reportable") : json_null(),
        "aops", jget(res, "totals.aops") ? jget(res, "totals.aops") : json_null(), "harness",
        jget(res, "provenance.build.commit") ? jget(res, "provenance.build.commit") : json_null());
    char *payload = st ? json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(st);
    size_t plen = payload ? strlen(payload) : 0, mlen = 0;
    unsigned char *msg = payload ? dsse_pae(DSSE_PAYLOAD_TYPE, payload, plen, &mlen) : NULL;
    char *sig = NULL, keyid[SHA256_HEX], *p64 = payload ? b64_encode(payload, plen) : NULL;
    int rc = -1;
    if (!msg || !p64)
        snprintf(err, errlen, "out of memory signing the result");
    else if (ed25519_sign(key_path, msg, mlen, &sig, keyid, err, errlen) == 0) {
        json_t *env = json_pack("{s:s, s:s, s:[{s:s, s:s}]}", "payloadType", DSSE_PAYLOAD_TYPE,
                                "payload", p64, "signatures", "keyid", keyid, "sig", sig);
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, DSSE_FILE);
        rc = write_result(env, path, err, errlen);
        json_decref(env);
    }
    free(sig);
    free(p64);
    free(msg);
    free(payload);
    return rc;
}

int integrity_seal(const char *dir, const char *sign_key, json_t *mem, char *err, size_t errlen) {
    char path[4200], canon[SHA256_HEX], sha[SHA256_HEX];
    snprintf(path, sizeof path, "%s/result.json", dir);
    json_error_t je;
    json_t *res = json_load_file(path, 0, &je), *files = json_object();
    int rc = -1;
    if (!res) {
        snprintf(err, errlen, "%s: %s", path, je.text);
        goto out;
    }
    if (hash_tree(dir, "", files, err, errlen) != 0 || canon_sha256(res, canon) != 0)
        goto out;
    json_t *integ = json_pack(
        "{s:s, s:s, s:O}", "result_sha256", canon, "canonical",
        "result.json without \"integrity\", keys sorted, no whitespace, reals at 17 digits "
        "(jansson JSON_SORT_KEYS|JSON_COMPACT|JSON_REAL_PRECISION(17))",
        "files", files);
    /* Both the file's copy and the caller's, in one place (a seal made
     * again replaces the old one, which the digest leaves out anyway). */
    json_object_del(res, "integrity");
    result_put(res, RK_INTEGRITY, json_incref(integ), NULL);
    if (mem) {
        json_object_del(mem, "integrity");
        result_put(mem, RK_INTEGRITY, json_incref(integ), NULL);
    }
    json_decref(integ);
    if (write_result(res, path, err, errlen) != 0)
        goto out;
    if (sign_key && sign_key[0]) {
        if (sha256_file_hex(path, sha, err, errlen) != 0 ||
            sign_dir(dir, res, sha, sign_key, err, errlen) != 0)
            goto out;
    }
    rc = 0;
out:
    json_decref(files);
    json_decref(res);
    return rc;
}
