/* test_schedule.c -- schedules are deterministic per seed, contain each
 * operation exactly once per cycle, keep phased blocks in order, and differ
 * between workers, cycles and seeds. */
#include <string.h>

#include "../../runtime/schedule.h"
#include "unit.h"

enum { S3 = 1190, DB = 50, SEARCH = 100, TOTAL = 1340 };

static int each_once(const uint32_t *o, unsigned n, const unsigned *ops) {
    static unsigned char seen[3][2000];
    memset(seen, 0, sizeof seen);
    for (unsigned i = 0; i < n; i++) {
        unsigned w = SCHED_WL(o[i]), op = SCHED_OP(o[i]);
        if (w > 2 || op >= ops[w] || seen[w][op]++)
            return 0;
    }
    return 1;
}

int main(void) {
    const unsigned ops[3] = {S3, DB, SEARCH};
    static uint32_t a[TOTAL], b[TOTAL], c[TOTAL];

    CHECK(schedule_cycle(a, ops, 3, SCHED_PHASED, 7, 3, 0) == TOTAL);
    CHECK(each_once(a, TOTAL, ops));
    schedule_cycle(b, ops, 3, SCHED_PHASED, 7, 3, 0);
    CHECK(memcmp(a, b, sizeof a) == 0); /* same seed, same order */

    /* Phased: all GETs, then all queries, then all searches. */
    int phased = 1;
    for (unsigned i = 0; i < TOTAL; i++) {
        unsigned want = i < S3 ? 0 : i < S3 + DB ? 1 : 2;
        if (SCHED_WL(a[i]) != want)
            phased = 0;
    }
    CHECK(phased);
    /* ...each block shuffled (not in index order). */
    int sorted = 1;
    for (unsigned i = 1; i < S3; i++)
        if (SCHED_OP(a[i]) < SCHED_OP(a[i - 1]))
            sorted = 0;
    CHECK(!sorted);

    schedule_cycle(c, ops, 3, SCHED_PHASED, 7, 4, 0);
    CHECK(memcmp(a, c, sizeof a) != 0); /* another worker */
    schedule_cycle(c, ops, 3, SCHED_PHASED, 7, 3, 1);
    CHECK(memcmp(a, c, sizeof a) != 0); /* another cycle */
    schedule_cycle(c, ops, 3, SCHED_PHASED, 8, 3, 0);
    CHECK(memcmp(a, c, sizeof a) != 0); /* another seed */

    /* Interleaved: the three mixed, each op once, deterministic. */
    CHECK(schedule_cycle(a, ops, 3, SCHED_INTERLEAVED, 7, 3, 0) == TOTAL);
    schedule_cycle(b, ops, 3, SCHED_INTERLEAVED, 7, 3, 0);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(each_once(a, TOTAL, ops));
    unsigned db_in_first_half = 0, search_in_first_half = 0;
    for (unsigned i = 0; i < TOTAL / 2; i++) {
        db_in_first_half += SCHED_WL(a[i]) == 1;
        search_in_first_half += SCHED_WL(a[i]) == 2;
    }
    CHECKF(db_in_first_half > 10 && db_in_first_half < 40, "%u", db_in_first_half);
    CHECKF(search_in_first_half > 25 && search_in_first_half < 75, "%u", search_in_first_half);
    return unit_done("schedule");
}
