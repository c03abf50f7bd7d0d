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
 * 0x82F63B78. All tables are built once, on the first call. */
#include "crc32c.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
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
    int hw; /* the CPU runs the hardware path */
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
#if defined(__x86_64__)
    __builtin_cpu_init();
    tables.hw = __builtin_cpu_supports("sse4.2");
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

int crc32c_hw_usable(void) {
    pthread_once(&once, init);
    return crc32c_hw && tables.hw;
}

uint32_t crc32c(uint32_t crc, const void *buf, size_t len) {
    pthread_once(&once, init);
    return tables.hw ? crc32c_hw(crc, buf, len) : crc32c_table(crc, buf, len);
}

const char *crc32c_impl(void) {
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
