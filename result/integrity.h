/* integrity.h -- result.json's integrity{result_sha256, canonical, files}
 * and, with --sign KEY.pem, RUN_DIR/result.dsse.json: a DSSE envelope of an
 * in-toto Statement over result.json and the files beside it, signed with
 * Ed25519 through libcrypto. The last step of writing a run directory. */
#ifndef AOPS_INTEGRITY_H
#define AOPS_INTEGRITY_H

#include <jansson.h>
#include <stddef.h>

/* Read dir/result.json back, add integrity (its canonical digest, common/
 * canon.h, and every other file's sha256), write it again, and sign when
 * sign_key is set. mem, when not NULL, gets the same integrity member (the
 * in-memory result the caller goes on with). 0, or -1 with err. */
int integrity_seal(const char *dir, const char *sign_key, json_t *mem, char *err, size_t errlen);

#endif
