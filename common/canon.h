/* canon.h -- the canonical form of a result, which integrity.result_sha256
 * names: result.json as loaded, its "integrity" member left out, dumped by
 * jansson with keys sorted, no whitespace and reals at 17 significant
 * digits (JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17)). Any key
 * order or indentation of the same values has the same digest; a changed
 * value does not. The DSSE pieces (pre-authentication encoding, base64)
 * that the signer and `harness verify` share are here too. */
#ifndef AOPS_CANON_H
#define AOPS_CANON_H

#include <jansson.h>
#include <stddef.h>

#include "digest.h"

/* 0, or -1 when the result cannot be serialised. */
int canon_sha256(const json_t *result, char out[SHA256_HEX]);

#define DSSE_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define INTOTO_STATEMENT "https://in-toto.io/Statement/v1"
#define AOPS_PREDICATE "https://github.com/aops-harness/aops-harness/blob/main/SPEC.md#result-v1"
#define DSSE_FILE "result.dsse.json"

/* PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body,
 * malloc'd into *out; NULL on no memory. */
unsigned char *dsse_pae(const char *type, const void *body, size_t blen, size_t *outlen);

/* Base64 (standard alphabet, padded): malloc'd, NUL-terminated. Decode
 * returns NULL on malformed input. */
char *b64_encode(const void *data, size_t len);
unsigned char *b64_decode(const char *s, size_t *outlen);

#endif
