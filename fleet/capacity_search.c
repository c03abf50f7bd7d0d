/* capacity_search.c -- the agent counts of `harness capacity` (see
 * capacity_search.h). */
#include "capacity_search.h"

#include <string.h>

void cap_init(struct cap_search *s, unsigned lo, unsigned hi, unsigned repeat) {
    memset(s, 0, sizeof *s);
    s->lo = lo ? lo : 1;
    s->hi = hi < s->lo ? s->lo : hi;
    s->repeat = repeat ? repeat : 1;
}

/* The verdict of count a: its confirmation's when it has one, else its
 * latest run's. -1: not run. */
static int verdict(const struct cap_search *s, unsigned a, int *confirmed) {
    int v = -1;
    *confirmed = 0;
    for (unsigned i = 0; i < s->n; i++)
        if (s->p[i].agents == a && (!*confirmed || s->p[i].repeat > 1)) {
            v = s->p[i].met;
            *confirmed |= s->p[i].repeat > 1;
        }
    return v;
}

static void recompute(struct cap_search *s) {
    s->pass = s->fail = 0;
    int c;
    for (unsigned i = 0; i < s->n; i++) {
        unsigned a = s->p[i].agents;
        if (verdict(s, a, &c) == 0 && (!s->fail || a < s->fail))
            s->fail = a;
    }
    for (unsigned i = 0; i < s->n; i++) {
        unsigned a = s->p[i].agents;
        if (verdict(s, a, &c) == 1 && (!s->fail || a < s->fail) && a > s->pass)
            s->pass = a;
    }
}

void cap_record(struct cap_search *s, unsigned agents, unsigned repeat, int met) {
    if (s->n == CAP_MAX_POINTS)
        return;
    s->p[s->n++] = (struct cap_point){agents, repeat ? repeat : 1, met != 0};
    recompute(s);
}

int cap_next(const struct cap_search *s, unsigned *agents, unsigned *repeat) {
    if (s->n >= CAP_MAX_POINTS)
        return 0;
    *repeat = 1;
    /* Below LO nothing is run: count LO - 1 stands for "passes" there. */
    unsigned low = s->pass ? s->pass : s->lo - 1;
    if (!s->fail && s->pass < s->hi) { /* doubling */
        *agents = !s->pass ? s->lo : s->pass > s->hi / 2 ? s->hi : 2 * s->pass;
        return 1;
    }
    if (s->fail && s->fail - low > 1) { /* bisection */
        *agents = low + (s->fail - low) / 2;
        return 1;
    }
    /* Adjacent (or LO failed, or HI passed): confirm both ends. */
    int c;
    if (s->repeat > 1 && s->pass && (verdict(s, s->pass, &c), !c)) {
        *agents = s->pass, *repeat = s->repeat;
        return 1;
    }
    if (s->repeat > 1 && s->fail && (verdict(s, s->fail, &c), !c)) {
        *agents = s->fail, *repeat = s->repeat;
        return 1;
    }
    return 0;
}
