/* hist.c -- log-linear histogram (see hist.h for the error bound). */
#include <string.h>

#include "hist.h"

void hist_init(struct hist *h) {
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

unsigned hist_bucket(uint64_t v) {
    if (v < HIST_LINEAR)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= 7 */
    if (e > HIST_MAX_EXP)
        return HIST_BUCKETS - 1;
    unsigned sub = (unsigned)(v >> (e - HIST_SUB_BITS)) & ((1u << HIST_SUB_BITS) - 1);
    return HIST_LINEAR + (e - 7) * (1u << HIST_SUB_BITS) + sub;
}

void hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi) {
    if (idx < HIST_LINEAR) {
        *lo = idx;
        *hi = idx + 1;
        return;
    }
    unsigned k = idx - HIST_LINEAR;
    unsigned e = 7 + k / (1u << HIST_SUB_BITS);
    uint64_t sub = k % (1u << HIST_SUB_BITS);
    uint64_t width = 1ULL << (e - HIST_SUB_BITS);
    *lo = (1ULL << e) + sub * width;
    *hi = *lo + width;
}

void hist_add(struct hist *h, uint64_t ns) {
    h->b[hist_bucket(ns)]++;
    h->count++;
    h->sum += ns;
    if (ns < h->min)
        h->min = ns;
    if (ns > h->max)
        h->max = ns;
}

void hist_merge(struct hist *dst, const struct hist *src) {
    if (!src->count)
        return;
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        dst->b[i] += src->b[i];
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

uint64_t hist_quantile(const struct hist *h, double q) {
    if (!h->count)
        return 0;
    if (q >= 1)
        return h->max;
    /* The smallest value with at least ceil(q * count) values at or below it. */
    uint64_t rank = (uint64_t)(q * (double)h->count);
    if ((double)rank < q * (double)h->count)
        rank++;
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        seen += h->b[i];
        if (seen >= rank) {
            uint64_t lo, hi;
            hist_bucket_range(i, &lo, &hi);
            uint64_t mid = lo + (hi - lo) / 2;
            if (mid < h->min)
                mid = h->min;
            if (mid > h->max)
                mid = h->max;
            return mid;
        }
    }
    return h->max;
}

double hist_mean(const struct hist *h) {
    return h->count ? (double)h->sum / (double)h->count : 0;
}
