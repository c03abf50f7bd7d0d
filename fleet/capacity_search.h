/* capacity_search.h -- which agent count `harness capacity` runs next, as a
 * pure function of the verdicts so far (capacity.c runs the points).
 *
 * Doubling from LO while the SLO is met, then bisection between the last
 * passing and the first failing counts; once they are adjacent, each is run
 * again with --repeat K (the median run decides) before the verdict, and a
 * repeat that overturns a single run's verdict reopens the search from the
 * counts already run. The knee is the first failure: a count whose verdict
 * is not met bounds the search from above, and a count above it that passed
 * (noise) does not count. Every count is run at most once alone and once
 * repeated, so the search ends; CAP_MAX_POINTS bounds it besides. */
#ifndef AOPS_CAPACITY_SEARCH_H
#define AOPS_CAPACITY_SEARCH_H

#define CAP_MAX_POINTS 64

struct cap_point {
    unsigned agents;
    unsigned repeat; /* 1: a single run; K > 1: a confirmation */
    int met;
};

struct cap_search {
    unsigned lo, hi; /* --containers LO..HI */
    unsigned repeat; /* K for the confirmations; 1: none */
    struct cap_point p[CAP_MAX_POINTS];
    unsigned n;
    /* From the verdicts (cap_record keeps them): the smallest count whose
     * verdict is not met (0: none yet), and the largest below it that is
     * met (0: none). A confirmation's verdict replaces its count's. */
    unsigned pass, fail;
};

void cap_init(struct cap_search *s, unsigned lo, unsigned hi, unsigned repeat);
/* The next point: 1 with *agents and *repeat, or 0 when the search is over
 * (or CAP_MAX_POINTS were run). */
int cap_next(const struct cap_search *s, unsigned *agents, unsigned *repeat);
void cap_record(struct cap_search *s, unsigned agents, unsigned repeat, int met);

#endif
