/* s3_presign.h -- AWS Signature Version 4 in the query string ("presigned
 * URLs") for the workload's GETs, signed once per object when a worker
 * opens, before the barrier, so that no request of the measured run signs
 * anything. Pure: the time and the keys are arguments. */
#ifndef AOPS_S3_PRESIGN_H
#define AOPS_S3_PRESIGN_H

#include <stddef.h>

/* The longest validity SigV4 allows, in seconds (7 days). */
#define S3_PRESIGN_MAX_EXPIRES 604800u

/* The SigV4 signing key of secret for the day of amzdate ("YYYYMMDDTHHMMSSZ"),
 * region and service "s3": four HMACs, made once for all of a worker's
 * URLs. 0, or -1 when the date or the secret will not do. */
int s3_presign_key(unsigned char key[32], const char *secret, const char *amzdate,
                   const char *region);

/* Writes url with its SigV4 query string into out (len bytes): a GET of
 * url (scheme://host[:port]/path, the path already URI-encoded as S3 wants
 * it) signed for access with key (s3_presign_key of the same amzdate and
 * region), valid for expires seconds, signing the host header and, when
 * header_name is not NULL, that header too (lower case, sent by the caller
 * with exactly header_value). 0, or -1 when url has no host or out is too
 * small. */
int s3_presign_get(char *out, size_t len, const char *url, const char *access,
                   const unsigned char key[32], const char *region, const char *amzdate,
                   unsigned expires, const char *header_name, const char *header_value);

#endif
