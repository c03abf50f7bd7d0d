/* crc32c.c -- CRC-32C in hardware where the CPU has it (see crc32c.h).
 *
 * One crc32 instruction has a latency of three cycles and a throughput of
 * one per cycle, so a single dependent chain runs at a third of its speed.
 * The hardware paths therefore run three independent chains over three
 * adjacent blocks and join them: the register after block A then block B
 * is shift_B(register after A) xor (register of B started from zero), where
 * shift_B applies |B| zero bytes -- a linear map over GF(2), tabulated once
 * per block size as four byte-indexed tables (the method of Mark Adler's
 * crc32c.c). Blocks are 8 KiB, then 256 bytes for the rest, then single
 * words. The table path is slice-by-8 over the reflected polynomial
 * 0x82F63B78. All tables are built once, on the first call.
 *
 * Where the CPU has VPCLMULQDQ and AVX-512 (Zen 4, Ice Lake and later),
 * long spans are folded instead, 256 bytes a round in four 512-bit
 * registers: a 16-byte block B at some place is worth B times x^(8D)
 * further on, and two carry-less multiplies by constants x^n mod P turn it
 * into a 96-bit value that is XORed into the block D bytes later (Intel's
 * "Fast CRC Computation Using PCLMULQDQ", 2009). The last 16 bytes left are
 * reduced by two crc32 instructions from zero, and the tail goes to the
 * crc32 path. The crc32 instruction retires 8 bytes a cycle at best; on
 * the 16 KiB pieces libcurl hands the S3 workload, which runs every body
 * through this, the folds did 2.5 times its bytes per second where this
 * was written (bench/crc32c: 57.6 against 22.7 GB/s). */
#include "crc32c.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif

#define POLY 0x82f63b78u /* CRC-32C, reflected */
#define LONG_BLOCK 8192
#define SHORT_BLOCK 256

struct crc_tables {
    uint32_t slice[8][256];
    uint32_t shift_long[4][256], shift_short[4][256];
    int hw;                           /* the CPU runs the hardware path */
    int fold;                         /* ... and the folding one */
    uint64_t k256[2], k64[2], k16[2]; /* fold_constants() for 256, 64 and 16 bytes */
};

static struct crc_tables tables; /* written once under `once`, read-only after */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* GF(2): the 32x32 matrix mat (one column per bit) times vec. */
static uint32_t gf2_times(const uint32_t *mat, uint32_t vec) {
    uint32_t sum = 0;
    for (; vec; vec >>= 1, mat++)
        if (vec & 1)
            sum ^= *mat;
    return sum;
}

static void gf2_square(uint32_t *sq, const uint32_t *mat) {
    for (int n = 0; n < 32; n++)
        sq[n] = gf2_times(mat, mat[n]);
}

/* The operator that feeds len zero bytes (a power of two) into a register. */
static void zeros_op(uint32_t *even, size_t len) {
    uint32_t odd[32];
    odd[0] = POLY; /* one zero bit */
    for (int n = 1; n < 32; n++)
        odd[n] = 1u << (n - 1);
    gf2_square(even, odd); /* two bits */
    gf2_square(odd, even); /* four bits */
    /* Each squaring doubles: the first below gives one byte, then two... */
    for (;;) {
        gf2_square(even, odd);
        len >>= 1;
        if (!len)
            return;
        gf2_square(odd, even);
        len >>= 1;
        if (!len) {
            memcpy(even, odd, sizeof odd);
            return;
        }
    }
}

static void shift_tables(uint32_t t[4][256], size_t len) {
    uint32_t op[32];
    zeros_op(op, len);
    for (uint32_t n = 0; n < 256; n++)
        for (int k = 0; k < 4; k++)
            t[k][n] = gf2_times(op, n << (8 * k));
}

/* x^n mod P in the reflected form (x^d at bit 31 - d), as a 64-bit
 * carry-less operand (x^d at bit 63 - d). */
static uint64_t xpow(unsigned n) {
    uint32_t r = 0x80000000u; /* x^0 */
    while (n--)
        r = r & 1 ? (r >> 1) ^ POLY : r >> 1;
    return (uint64_t)r << 32;
}

/* The constants that move a 16-byte block d bytes on, low lane first. The
 * block's first 8 bytes are the high half of its polynomial (H x^64 + L),
 * and a carry-less product of two reflected operands comes out multiplied
 * by x once more: so H is multiplied by x^(8d+63) mod P, L by x^(8d-1). */
static void fold_constants(uint64_t k[2], unsigned d) {
    k[0] = xpow(8 * d + 63);
    k[1] = xpow(8 * d - 1);
}

static inline uint32_t shift(const uint32_t t[4][256], uint32_t crc) {
    return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
}

static void init(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
        tables.slice[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++)
        for (int k = 1; k < 8; k++)
            tables.slice[k][n] =
                (tables.slice[k - 1][n] >> 8) ^ tables.slice[0][tables.slice[k - 1][n] & 0xff];
    shift_tables(tables.shift_long, LONG_BLOCK);
    shift_tables(tables.shift_short, SHORT_BLOCK);
    fold_constants(tables.k256, 256);
    fold_constants(tables.k64, 64);
    fold_constants(tables.k16, 16);
#if defined(__x86_64__)
    __builtin_cpu_init();
    tables.hw = __builtin_cpu_supports("sse4.2");
    /* libgcc sets avx512f only when the OS saves the 512-bit state (XCR0). */
    tables.fold = tables.hw && __builtin_cpu_supports("avx512f") &&
                  __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("pclmul");
#elif defined(__aarch64__)
    tables.hw = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#endif
}

static inline uint64_t load64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8); /* little-endian on both hardware paths */
    return v;
}

uint32_t crc32c_table(uint32_t crc, const void *buf, size_t len) {
    pthread_once(&once, init);
    const unsigned char *p = buf;
    const uint32_t(*t)[256] = tables.slice;
    uint32_t c = ~crc;
    while (len && ((uintptr_t)p & 7)) {
        c = t[0][(c ^ *p++) & 0xff] ^ (c >> 8);
        len--;
    }
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w = load64(p) ^ c;
        c = t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^ t[5][(w >> 16) & 0xff] ^
            t[4][(w >> 24) & 0xff] ^ t[3][(w >> 32) & 0xff] ^ t[2][(w >> 40) & 0xff] ^
            t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
    }
    while (len--)
        c = t[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

/* The three-stream body, for an instruction pair CRC8(reg, byte) and
 * CRC64(reg, word) on 64-bit registers. */
#define CRC_BODY(CRC8, CRC64)                                                                      \
    const unsigned char *p = buf;                                                                  \
    uint64_t c0 = ~crc & 0xffffffffu, c1, c2;                                                      \
    while (len && ((uintptr_t)p & 7)) {                                                            \
        c0 = CRC8(c0, *p++);                                                                       \
        len--;                                                                                     \
    }                                                                                              \
    while (len >= 3 * LONG_BLOCK) {                                                                \
        c1 = c2 = 0;                                                                               \
        for (const unsigned char *end = p + LONG_BLOCK; p < end; p += 8) {                         \
            c0 = CRC64(c0, load64(p));                                                             \
            c1 = CRC64(c1, load64(p + LONG_BLOCK));                                                \
            c2 = CRC64(c2, load64(p + 2 * LONG_BLOCK));                                            \
        }                                                                                          \
        c0 = shift(tables.shift_long, (uint32_t)c0) ^ c1;                                          \
        c0 = shift(tables.shift_long, (uint32_t)c0) ^ c2;                                          \
        p += 2 * LONG_BLOCK;                                                                       \
        len -= 3 * LONG_BLOCK;                                                                     \
    }                                                                                              \
    while (len >= 3 * SHORT_BLOCK) {                                                               \
        c1 = c2 = 0;                                                                               \
        for (const unsigned char *end = p + SHORT_BLOCK; p < end; p += 8) {                        \
            c0 = CRC64(c0, load64(p));                                                             \
            c1 = CRC64(c1, load64(p + SHORT_BLOCK));                                               \
            c2 = CRC64(c2, load64(p + 2 * SHORT_BLOCK));                                           \
        }                                                                                          \
        c0 = shift(tables.shift_short, (uint32_t)c0) ^ c1;                                         \
        c0 = shift(tables.shift_short, (uint32_t)c0) ^ c2;                                         \
        p += 2 * SHORT_BLOCK;                                                                      \
        len -= 3 * SHORT_BLOCK;                                                                    \
    }                                                                                              \
    for (; len >= 8; p += 8, len -= 8)                                                             \
        c0 = CRC64(c0, load64(p));                                                                 \
    while (len--)                                                                                  \
        c0 = CRC8(c0, *p++);                                                                       \
    return ~(uint32_t)c0;

#if defined(__x86_64__)
#define X86_CRC8(c, b) _mm_crc32_u8((uint32_t)(c), (b))
#define X86_CRC64(c, w) _mm_crc32_u64((c), (w))
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const void *buf,
                                                            size_t len) {
    pthread_once(&once, init);
    CRC_BODY(X86_CRC8, X86_CRC64)
}
uint32_t (*const crc32c_hw)(uint32_t, const void *, size_t) = crc_sse42;
#define HW_NAME "sse4.2"

#define FOLD_K(k) _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(k)))

__attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.2"))) static inline __m512i
fold512(__m512i x, __m512i k, __m512i next) {
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), next, 0x96);
}

__attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.2"))) static inline __m128i
fold128(__m128i x, __m128i k, __m128i next) {
    return _mm_xor_si128(
        _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}

#define FOLD_MIN 512 /* below this the crc32 path is as fast */

__attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.2"))) static uint32_t
crc_vpclmul(uint32_t crc, const void *buf, size_t len) {
    pthread_once(&once, init);
    if (len < FOLD_MIN)
        return crc_sse42(crc, buf, len);
    const unsigned char *p = buf;
    const __m512i k256 = FOLD_K(tables.k256), k64 = FOLD_K(tables.k64);
    const __m128i k16 = _mm_loadu_si128((const __m128i *)tables.k16);
    /* The register's state goes into the first four bytes. */
    __m512i x0 = _mm512_xor_si512(_mm512_loadu_si512(p),
                                  _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)~crc)));
    __m512i x1 = _mm512_loadu_si512(p + 64), x2 = _mm512_loadu_si512(p + 128),
            x3 = _mm512_loadu_si512(p + 192);
    for (p += 256, len -= 256; len >= 256; p += 256, len -= 256) {
        x0 = fold512(x0, k256, _mm512_loadu_si512(p));
        x1 = fold512(x1, k256, _mm512_loadu_si512(p + 64));
        x2 = fold512(x2, k256, _mm512_loadu_si512(p + 128));
        x3 = fold512(x3, k256, _mm512_loadu_si512(p + 192));
    }
    x1 = fold512(x0, k64, x1);
    x2 = fold512(x1, k64, x2);
    x3 = fold512(x2, k64, x3);
    __m128i a = _mm512_extracti32x4_epi32(x3, 0);
    a = fold128(a, k16, _mm512_extracti32x4_epi32(x3, 1));
    a = fold128(a, k16, _mm512_extracti32x4_epi32(x3, 2));
    a = fold128(a, k16, _mm512_extracti32x4_epi32(x3, 3));
    /* a is the message's last 16 bytes as far as the CRC goes: run them
     * through from zero, then the tail. */
    uint64_t c = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(a));
    c = _mm_crc32_u64(c, (uint64_t)_mm_extract_epi64(a, 1));
    return crc_sse42(~(uint32_t)c, p, len);
}
uint32_t (*const crc32c_fold)(uint32_t, const void *, size_t) = crc_vpclmul;
#define FOLD_NAME "vpclmulqdq"
#elif defined(__aarch64__)
#pragma GCC push_options
#pragma GCC target("+crc")
#include <arm_acle.h>
#define ARM_CRC8(c, b) __crc32cb((uint32_t)(c), (b))
#define ARM_CRC64(c, w) __crc32cd((uint32_t)(c), (w))
static uint32_t crc_armv8(uint32_t crc, const void *buf, size_t len) {
    pthread_once(&once, init);
    CRC_BODY(ARM_CRC8, ARM_CRC64)
}
#pragma GCC pop_options
uint32_t (*const crc32c_hw)(uint32_t, const void *, size_t) = crc_armv8;
#define HW_NAME "armv8-crc"
#else
uint32_t (*const crc32c_hw)(uint32_t, const void *, size_t) = NULL;
#define HW_NAME "none"
#endif
#ifndef FOLD_NAME
uint32_t (*const crc32c_fold)(uint32_t, const void *, size_t) = NULL;
#define FOLD_NAME "none"
#endif

int crc32c_hw_usable(void) {
    pthread_once(&once, init);
    return crc32c_hw && tables.hw;
}

int crc32c_fold_usable(void) {
    pthread_once(&once, init);
    return crc32c_fold && tables.fold;
}

uint32_t crc32c(uint32_t crc, const void *buf, size_t len) {
    pthread_once(&once, init);
    if (tables.fold)
        return crc32c_fold(crc, buf, len);
    return tables.hw ? crc32c_hw(crc, buf, len) : crc32c_table(crc, buf, len);
}

const char *crc32c_impl(void) {
    if (crc32c_fold_usable())
        return FOLD_NAME "+" HW_NAME;
    return crc32c_hw_usable() ? HW_NAME : "table";
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void crc32c_base64(uint32_t crc, char out[9]) {
    unsigned char b[4] = {(unsigned char)(crc >> 24), (unsigned char)(crc >> 16),
                          (unsigned char)(crc >> 8), (unsigned char)crc};
    out[0] = b64[b[0] >> 2];
    out[1] = b64[((b[0] & 3) << 4) | (b[1] >> 4)];
    out[2] = b64[((b[1] & 15) << 2) | (b[2] >> 6)];
    out[3] = b64[b[2] & 63];
    out[4] = b64[b[3] >> 2];
    out[5] = b64[(b[3] & 3) << 4];
    out[6] = out[7] = '=';
    out[8] = 0;
}

int crc32c_from_base64(const char *s, size_t len, uint32_t *crc) {
    if (len != 8 || s[6] != '=' || s[7] != '=')
        return -1;
    uint64_t bits = 0;
    for (int i = 0; i < 6; i++) {
        const char *q = s[i] ? memchr(b64, s[i], 64) : NULL;
        if (!q)
            return -1;
        bits = bits << 6 | (uint64_t)(q - b64);
    }
    if (bits & 15) /* the last character's low bits are padding */
        return -1;
    *crc = (uint32_t)(bits >> 4);
    return 0;
}
