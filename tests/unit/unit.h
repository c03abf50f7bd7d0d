/* unit.h -- a dozen lines of test harness: CHECK counts, the main prints
 * "N passed, N failed" and exits non-zero on any failure, and on a test
 * binary that made no check at all (a test that tested nothing). */
#ifndef AOPS_UNIT_H
#define AOPS_UNIT_H

#include <stdio.h>

static int unit_passed, unit_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond)                                                                                  \
            unit_passed++;                                                                         \
        else {                                                                                     \
            unit_failed++;                                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECKF(cond, ...)                                                                          \
    do {                                                                                           \
        if (cond)                                                                                  \
            unit_passed++;                                                                         \
        else {                                                                                     \
            unit_failed++;                                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static inline int unit_done(const char *name) {
    printf("%s: %d checks passed, %d failed\n", name, unit_passed, unit_failed);
    if (unit_passed + unit_failed == 0) {
        printf("%s: made no check: a test that tests nothing fails\n", name);
        return 1;
    }
    return unit_failed ? 1 : 0;
}

#endif
