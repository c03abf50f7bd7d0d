/* hist.h -- log-linear latency histogram with at most 0.8 % relative error.
 *
 * Values are nanoseconds. Below 128 ns every value has its own bucket; above,
 * each power of two is split into 64 equal buckets, so a bucket is at most
 * 1/64 of its lower bound wide and reporting its midpoint is off by at most
 * 1/128 (0.78 %). That covers 1 us to over an hour in 2,432 buckets of 32
 * bits (9.5 KiB), small enough to keep one per workload per worker in shared
 * memory. Count, sum, min and max are exact, so mean and max are exact. */
#ifndef AOPS_HIST_H
#define AOPS_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_LINEAR 128 /* 2 << HIST_SUB_BITS: values below are exact */
#define HIST_MAX_EXP 42 /* 2^43 ns = 2.4 h: larger values land in the last bucket */
#define HIST_BUCKETS (HIST_LINEAR + (HIST_MAX_EXP - 6) * (1 << HIST_SUB_BITS))

struct hist {
    uint64_t count;
    uint64_t sum; /* ns; overflows only past 584 years of latency */
    uint64_t min, max;
    uint32_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
void hist_merge(struct hist *dst, const struct hist *src);
/* q in [0,1]; 0 when empty. Exact at q = 1 (the max). */
uint64_t hist_quantile(const struct hist *h, double q);
double hist_mean(const struct hist *h);

/* Exposed for tests: bucket of a value and a bucket's [lo, hi) range. */
unsigned hist_bucket(uint64_t ns);
void hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi);

#endif
