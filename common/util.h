/* util.h -- small inline helpers every module may use: the monotonic clock,
 * and the seeded generator.
 *
 * The generator is splitmix64 (seeding) feeding xoshiro256**: fast, good
 * enough for shuffles and synthetic data, and identical on every machine, so
 * the same --seed gives the same schedule, objects, rows and corpus. */
#ifndef AOPS_UTIL_H
#define AOPS_UTIL_H

#include <stdint.h>
#include <time.h>

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

struct rng {
    uint64_t s[4];
};

/* Seed from a base seed and up to two stream numbers (worker, purpose). */
static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t a, uint64_t b) {
    uint64_t x = seed ^ (a * 0xd1b54a32d192ed03ULL) ^ (b * 0x8cb92ba72f3d8dd7ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rng_next(struct rng *r) {
    uint64_t *s = r->s;
    uint64_t t = s[1] << 17, res = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return res;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; bias < 2^-64 * n). */
static inline uint64_t rng_below(struct rng *r, uint64_t n) {
    return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

#endif
