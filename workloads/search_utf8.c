/* search_utf8.c -- UTF-8 validation and lossy decoding (search_utf8.h).
 *
 * Source code is nearly all ASCII, so both skip ASCII a vector at a time
 * and look at a sequence only where a byte >= 0x80 is; the lossy decoder
 * copies each valid run with one memcpy (a call per character cost more
 * than the search of the file: CPython's Lib/test has Latin-1 files). */
#include <stdint.h>
#include <string.h>

#include "search_simd.h"
#include "search_utf8.h"

/* Length of the valid sequence at s (1..4), or 0 with *bad = bytes of the
 * maximal invalid prefix to replace with one U+FFFD. */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad) {
    unsigned c = s[0];
    size_t need;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else {
        *bad = 1;
        return 0;
    }
    for (size_t i = 1; i <= need; i++) {
        if (i >= n || s[i] < lo || s[i] > hi) {
            *bad = i;
            return 0;
        }
        lo = 0x80, hi = 0xBF;
    }
    return need + 1;
}

#ifdef SEARCH_AVX2
/* ASCII 64 bytes a round where the CPU has AVX2: the first i from which
 * fewer than 64 bytes are left or a byte >= 0x80 is near. */
__attribute__((target("avx2"))) static size_t ascii_skip_avx2(const unsigned char *s, size_t i,
                                                              size_t n) {
    for (; i + 64 <= n; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
        if (_mm256_movemask_epi8(_mm256_or_si256(a, b)))
            break;
    }
    return i;
}
#endif

/* The first i from which s[i..n) does not start with 16 (8) ASCII bytes. */
static size_t ascii_skip(const unsigned char *s, size_t i, size_t n) {
#ifdef SEARCH_AVX2
    if (__builtin_cpu_supports("avx2"))
        i = ascii_skip_avx2(s, i, n);
#endif
#if defined(SEARCH_SSE2)
    while (i + 16 <= n &&
           !_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i))))
        i += 16;
#elif defined(SEARCH_NEON)
    while (i + 16 <= n && vmaxvq_u8(vld1q_u8(s + i)) < 0x80)
        i += 16;
#else
    for (uint64_t w; i + 8 <= n && (memcpy(&w, s + i, 8), !(w & 0x8080808080808080ull));)
        i += 8;
#endif
    return i;
}

size_t utf8_valid_upto(const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        i = ascii_skip(s, i, n);
        if (i >= n)
            break;
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t bad, k = utf8_seq(s + i, n - i, &bad);
        if (!k)
            return i;
        i += k;
    }
    return n;
}

int utf8_valid(const char *s, size_t n) {
    return utf8_valid_upto(s, n) == n;
}

size_t utf8_lossy(const char *str, size_t n, char *out) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, o = 0;
    while (i < n) {
        size_t v = i + utf8_valid_upto(str + i, n - i); /* s[i..v) is valid */
        memcpy(out + o, s + i, v - i);
        o += v - i;
        if (v == n)
            break;
        size_t bad;
        utf8_seq(s + v, n - v, &bad);
        memcpy(out + o, "\xEF\xBF\xBD", 3);
        o += 3;
        i = v + bad;
    }
    return o;
}
