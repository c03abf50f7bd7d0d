/* search_simd.h -- which vector instructions the search's byte scans use.
 *
 * The scans (text_scan and utf8_valid in search_engine.c, the literal and
 * chain prefilters in search_match.c) each have a portable scalar loop and,
 * where the ISA has them, vector versions:
 *   x86-64  SSE2 (the baseline: compile time) and AVX2 (chosen at run time
 *           with __builtin_cpu_supports: the build targets baseline x86-64);
 *   aarch64 NEON (Advanced SIMD is part of the arm64 baseline: compile time).
 * `make SIMD=off` (-DAOPS_SCALAR) compiles every vector path out, so the
 * scalar code can be measured on its own (bench/search_simd) and is what any
 * other ISA runs. search_simd_path() names what this build and CPU use, for
 * system.backends. */
#ifndef AOPS_SEARCH_SIMD_H
#define AOPS_SEARCH_SIMD_H

#include <stdint.h>

#if !defined(AOPS_SCALAR) && defined(__x86_64__) && defined(__SSE2__)
#define SEARCH_SSE2 1
#define SEARCH_AVX2 1 /* compiled in; used where the CPU has it */
#include <immintrin.h>
#elif !defined(AOPS_SCALAR) && defined(__aarch64__) && defined(__ARM_NEON)
#define SEARCH_NEON 1
#include <arm_neon.h>
#endif

#ifdef SEARCH_NEON
/* NEON has no movemask: narrowing each 16-bit lane by 4 bits packs a byte
 * compare (0x00/0xFF per byte) into 64 bits, four per byte, so byte k is
 * bits 4k..4k+3 and the first set byte is ctz / 4. */
static inline uint64_t neon_mask4(uint8x16_t eq) {
    return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(eq), 4)), 0);
}
#endif

/* "avx2", "sse2", "neon" or "scalar": the widest path the prefilters take
 * on this CPU with this build. */
const char *search_simd_path(void);

#endif
