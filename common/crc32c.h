/* crc32c.h -- CRC-32C (Castagnoli), the checksum S3 stores as
 * x-amz-checksum-crc32c, computed at hardware speed.
 *
 * crc32c(0, buf, len) is the checksum of buf; crc32c(crc32c(0, a, n), b, m)
 * is the checksum of a followed by b, so a body can be checked as it
 * streams in. The implementation is chosen once, at the first call, from
 * what the CPU has:
 *   - x86-64 with AVX-512 and VPCLMULQDQ: spans of 512 bytes and more
 *     folded with carry-less multiplies, 256 bytes a round, the rest as
 *     below;
 *   - x86-64 with SSE4.2: the crc32 instruction on three interleaved
 *     streams (its latency is three cycles and its throughput one per
 *     cycle), the streams joined with precomputed shift tables;
 *   - AArch64 with the CRC extension (HWCAP_CRC32): __crc32cd, the same
 *     three streams;
 *   - anything else: a table, slice-by-8.
 * Each compiled path is also callable on its own, for the tests. */
#ifndef AOPS_CRC32C_H
#define AOPS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

/* The implementation crc32c() uses: "vpclmulqdq+sse4.2", "sse4.2",
 * "armv8-crc" or "table". */
const char *crc32c_impl(void);

/* The paths themselves. crc32c_hw is NULL when this build has no hardware
 * path; crc32c_hw_usable() says whether this CPU can run it. */
uint32_t crc32c_table(uint32_t crc, const void *buf, size_t len);
extern uint32_t (*const crc32c_hw)(uint32_t crc, const void *buf, size_t len);
int crc32c_hw_usable(void);
/* The same for the folding path (x86-64 only). */
extern uint32_t (*const crc32c_fold)(uint32_t crc, const void *buf, size_t len);
int crc32c_fold_usable(void);

/* The base64 of the big-endian checksum, as S3 writes it in
 * x-amz-checksum-crc32c ("4waSgw==" for "123456789"). out: 9 bytes. */
void crc32c_base64(uint32_t crc, char out[9]);
/* The inverse: 0, or -1 when s is not such a value. */
int crc32c_from_base64(const char *s, size_t len, uint32_t *crc);

#endif
