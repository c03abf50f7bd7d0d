/* test_capacity_search.c -- the agent counts `harness capacity` runs
 * (fleet/capacity_search.c), against a machine of known knee: the
 * SLO is met at n agents exactly when n <= K. The sequences below are
 * worked out by hand from the rule (double from LO, bisect, confirm both
 * ends with --repeat); the sweep over K checks that the search always ends
 * on K and K + 1, both confirmed, within 2 log2(HI) + 3 points. */
#include <string.h>

#include "../../fleet/capacity_search.h"
#include "unit.h"

struct machine {
    unsigned knee;        /* met when agents <= knee (repeated runs) */
    unsigned single_knee; /* the same for single runs (noise: differs) */
};

/* Run the search to its end; the points into seq (agents, negative for a
 * repeated one), their count returned. */
static unsigned run(struct cap_search *s, const struct machine *m, int *seq, unsigned max) {
    unsigned a, r, k = 0;
    while (cap_next(s, &a, &r) && k < max) {
        seq[k++] = r > 1 ? -(int)a : (int)a;
        cap_record(s, a, r, a <= (r > 1 ? m->knee : m->single_knee));
    }
    return k;
}

static void same(const int *got, unsigned n, const int *want, unsigned wn, const char *what) {
    int ok = n == wn && !memcmp(got, want, n * sizeof *got);
    char g[256] = "";
    for (unsigned i = 0; i < n && strlen(g) < 200; i++)
        snprintf(g + strlen(g), sizeof g - strlen(g), "%d ", got[i]);
    CHECKF(ok, "%s: ran %s", what, g);
}

static void by_hand(void) {
    struct cap_search s;
    int seq[CAP_MAX_POINTS];
    struct machine m = {5, 5};
    /* 1 2 4 pass, 8 fails; bisect 4..8: 6 fails, 5 passes; confirm 5, then 6 */
    cap_init(&s, 1, 64, 3);
    unsigned n = run(&s, &m, seq, CAP_MAX_POINTS);
    same(seq, n, (int[]){1, 2, 4, 8, 6, 5, -5, -6}, 8, "knee 5 in 1..64");
    CHECK(s.pass == 5 && s.fail == 6);

    /* no repeat: no confirmation */
    cap_init(&s, 1, 64, 1);
    n = run(&s, &m, seq, CAP_MAX_POINTS);
    same(seq, n, (int[]){1, 2, 4, 8, 6, 5}, 6, "knee 5, --repeat 1");

    /* LO fails: nothing below LO is run */
    cap_init(&s, 8, 64, 3);
    n = run(&s, &m, seq, CAP_MAX_POINTS);
    same(seq, n, (int[]){8, -8}, 2, "LO 8 above knee 5");
    CHECK(s.pass == 0 && s.fail == 8);

    /* HI passes: the doubling stops at HI */
    cap_init(&s, 3, 5, 3);
    n = run(&s, &m, seq, CAP_MAX_POINTS);
    same(seq, n, (int[]){3, 5, -5}, 3, "HI 5 at knee 5");
    CHECK(s.pass == 5 && s.fail == 0);

    /* noise: single runs pass one count more than repeated ones do. 6 passes alone, 8
     * fails; bisect 6..8: 7 fails; confirm 6: fails, so 5 (passed alone) is the last
     * pass below the first failure, 6; confirm 5 (met), 6 is confirmed already */
    m = (struct machine){5, 6};
    cap_init(&s, 1, 64, 3);
    n = run(&s, &m, seq, CAP_MAX_POINTS);
    same(seq, n, (int[]){1, 2, 4, 8, 6, 7, -6, 5, -5}, 9, "single runs one too optimistic");
    CHECK(s.pass == 5 && s.fail == 6);

    /* the other way: single runs fail one count early. 4 fails alone after 1 2; bisect
     * 2..4: 3 passes; confirm 3 (met), confirm 4: met, so the search goes on above 4
     * (8 fails alone, 6 fails alone, 5 fails alone); confirm 5: met, confirm 6: not */
    m = (struct machine){5, 3};
    cap_init(&s, 1, 64, 3);
    n = run(&s, &m, seq, CAP_MAX_POINTS);
    same(seq, n, (int[]){1, 2, 4, 3, -3, -4, 8, 6, 5, -5, -6}, 11, "single runs too pessimistic");
    CHECK(s.pass == 5 && s.fail == 6);
}

static void sweep(void) {
    int seq[CAP_MAX_POINTS];
    for (unsigned hi = 1; hi <= 200; hi += 7)
        for (unsigned knee = 0; knee <= hi + 2; knee++) {
            struct cap_search s;
            struct machine m = {knee, knee};
            cap_init(&s, 1, hi, 3);
            unsigned n = run(&s, &m, seq, CAP_MAX_POINTS);
            unsigned want_pass = knee < hi ? knee : hi, want_fail = knee < hi ? knee + 1 : 0;
            unsigned bound = 3, l = 1;
            while ((1u << l) < hi)
                l++;
            bound += 2 * l;
            CHECKF(s.pass == want_pass && s.fail == want_fail && n <= bound,
                   "1..%u, knee %u: pass %u fail %u after %u points", hi, knee, s.pass, s.fail, n);
            /* both ends confirmed: the last two points are their repeats */
            int ends = 0;
            for (unsigned i = 0; i < n; i++)
                ends += seq[i] < 0 && ((unsigned)-seq[i] == s.pass || (unsigned)-seq[i] == s.fail);
            CHECKF(ends == (s.pass != 0) + (s.fail != 0), "1..%u, knee %u: %d confirmations", hi,
                   knee, ends);
        }
}

int main(void) {
    by_hand();
    sweep();
    return unit_done("test_capacity_search");
}
