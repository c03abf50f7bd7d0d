/* crc32c.c -- bench/crc32c: the CRC-32C paths side by side, on a span as
 * libcurl hands the S3 workload's write callback (16 KiB, its
 * CURL_MAX_WRITE_SIZE, warm in the cache), on one buffer of libcurl's as
 * the workload sets it (256 KiB, CURLOPT_BUFFERSIZE) and on one 10 MiB
 * object. Each
 * path runs in turn, ROUNDS times, and the median GB/s is printed with the
 * ratio to the crc32-instruction path, the one the harness used before the
 * folding path.
 *
 *   build/bench/crc32c [ROUNDS]
 *
 * The paths are checked against each other before any clock starts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/crc32c.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* GB/s of f over buf[0..span) repeated to about 1 GB of bytes. */
static double rate(crc_fn f, const unsigned char *buf, size_t span, uint32_t *sink) {
    size_t reps = (1u << 30) / span;
    double t = now();
    uint32_t c = 0;
    for (size_t r = 0; r < reps; r++)
        c = f(c, buf, span);
    t = now() - t;
    *sink ^= c;
    return (double)(reps * span) / t / 1e9;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 100) {
        fprintf(stderr, "usage: crc32c [ROUNDS 1-100]\n");
        return 2;
    }
    size_t big = 10u << 20;
    unsigned char *buf = malloc(big);
    if (!buf)
        return 1;
    srand(1);
    for (size_t i = 0; i < big; i++)
        buf[i] = (unsigned char)rand();
    struct {
        const char *name;
        crc_fn f;
        int usable;
    } paths[] = {
        {"table", crc32c_table, 1},
        {"crc32 instruction", crc32c_hw, crc32c_hw_usable()},
        {"folding", crc32c_fold, crc32c_fold_usable()},
    };
    int n = sizeof paths / sizeof paths[0];
    uint32_t want = crc32c_table(0, buf, big), sink = 0;
    for (int i = 0; i < n; i++)
        if (paths[i].usable && paths[i].f(0, buf, big) != want) {
            fprintf(stderr, "crc32c: the %s path differs from the table's\n", paths[i].name);
            return 1;
        }
    printf("CRC-32C, %d rounds of ~1 GB each, median GB/s (crc32c() uses %s)\n", rounds,
           crc32c_impl());
    size_t spans[] = {16u << 10, 256u << 10, big};
    const char *span_name[] = {"16 KiB", "256 KiB", "10 MiB"};
    for (size_t s = 0; s < 3; s++) {
        double med[3] = {0};
        for (int i = 0; i < n; i++) {
            if (!paths[i].usable)
                continue;
            double v[100];
            for (int r = 0; r < rounds; r++)
                v[r] = rate(paths[i].f, buf, spans[s], &sink);
            qsort(v, (size_t)rounds, sizeof v[0], cmp);
            med[i] = v[rounds / 2];
        }
        for (int i = 0; i < n; i++) {
            if (!paths[i].usable)
                printf("  %-18s %7s: not usable on this CPU\n", paths[i].name, span_name[s]);
            else
                printf("  %-18s %7s: %6.1f GB/s, %.2fx the crc32 instruction's\n", paths[i].name,
                       span_name[s], med[i], med[1] > 0 ? med[i] / med[1] : 0);
        }
    }
    return sink == 0x12345678u; /* keeps the calls; never true in practice */
}
