/* test_hist.c -- the histogram's quantiles stay within 1 % of the exact ones
 * from 1 us to 10 min, merging equals adding, and the edges hold. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"
#include "../../result/hist.h"
#include "unit.h"

static int cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t exact_q(const uint64_t *sorted, size_t n, double q) {
    size_t rank = (size_t)ceil(q * (double)n);
    if (rank < 1)
        rank = 1;
    return sorted[rank - 1];
}

int main(void) {
    /* Every bucket's width is at most 1/64 of its lower bound. */
    int widths_ok = 1;
    for (unsigned i = 128; i < HIST_BUCKETS; i++) {
        uint64_t lo, hi;
        hist_bucket_range(i, &lo, &hi);
        if ((double)(hi - lo) / (double)lo > 1.0 / 64 + 1e-12 || hist_bucket(lo) != i ||
            hist_bucket(hi - 1) != i)
            widths_ok = 0;
    }
    CHECK(widths_ok);

    /* Log-uniform latencies from 1 us to 10 min. */
    static struct hist h, a, b;
    hist_init(&h);
    hist_init(&a);
    hist_init(&b);
    enum { N = 200000 };
    uint64_t *v = malloc(sizeof *v * N);
    struct rng r;
    rng_seed(&r, 42, 0, 0);
    for (int i = 0; i < N; i++) {
        double u = (double)(rng_next(&r) >> 11) / 9007199254740992.0;
        v[i] = (uint64_t)(1e3 * pow(6e5, u)); /* 1e3 ns .. 6e11 ns */
        hist_add(&h, v[i]);
        hist_add(i % 2 ? &a : &b, v[i]);
    }
    qsort(v, N, sizeof *v, cmp);
    double qs[] = {0.001, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999};
    for (unsigned k = 0; k < sizeof qs / sizeof qs[0]; k++) {
        double got = (double)hist_quantile(&h, qs[k]);
        double want = (double)exact_q(v, N, qs[k]);
        CHECKF(fabs(got - want) / want <= 0.01, "q=%g got %.0f want %.0f", qs[k], got, want);
    }
    CHECK(hist_quantile(&h, 1.0) == v[N - 1]);
    CHECK(h.min == v[0]);
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += (double)v[i];
    CHECK(fabs(hist_mean(&h) - sum / N) / (sum / N) < 1e-9);

    /* Merging two halves gives the same histogram. */
    hist_merge(&a, &b);
    CHECK(a.count == h.count && a.sum == h.sum && a.min == h.min && a.max == h.max);
    CHECK(memcmp(a.b, h.b, sizeof a.b) == 0);

    /* Edges: empty, one value, exact small values, huge values. */
    static struct hist e;
    hist_init(&e);
    CHECK(hist_quantile(&e, 0.5) == 0 && hist_mean(&e) == 0);
    hist_add(&e, 5);
    CHECK(hist_quantile(&e, 0.5) == 5 && hist_quantile(&e, 0.99) == 5);
    hist_add(&e, UINT64_MAX / 4);
    CHECK(hist_bucket(UINT64_MAX / 4) == HIST_BUCKETS - 1);
    CHECK(hist_quantile(&e, 1.0) == UINT64_MAX / 4);
    free(v);
    return unit_done("hist");
}
