/* pacing.c -- paced agents' settings and seeded draws (see pacing.h). */
#include "pacing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THINK_MAX_S 3600.0

const char *arrival_name(enum arrival a) {
    return a == ARRIVAL_POISSON ? "poisson" : a == ARRIVAL_FIXED ? "fixed" : "closed";
}

/* A number of seconds at v, up to its end or `stop`: 0, or -1. */
static int seconds(const char *v, char stop, double *out, const char **end) {
    char *e;
    if (!*v || *v == '+' || *v == '-' || *v == ' ')
        return -1;
    double x = strtod(v, &e);
    if (e == v || !isfinite(x) || x < 0 || x > THINK_MAX_S || (*e && *e != stop))
        return -1;
    *out = x;
    *end = e;
    return 0;
}

int think_parse(const char *v, struct think_time *t, char *err, size_t errlen) {
    struct think_time r = {THINK_NONE, 0, 0};
    const char *e = NULL;
    int ok = 0;
    if (!strncmp(v, "fixed:", 6))
        r.kind = THINK_FIXED, ok = seconds(v + 6, 0, &r.a, &e) == 0 && !*e;
    else if (!strncmp(v, "exp:", 4))
        r.kind = THINK_EXP, ok = seconds(v + 4, 0, &r.a, &e) == 0 && !*e && r.a > 0;
    else if (!strncmp(v, "uniform:", 8))
        r.kind = THINK_UNIFORM, ok = seconds(v + 8, '-', &r.a, &e) == 0 && *e == '-' &&
                                     seconds(e + 1, 0, &r.b, &e) == 0 && !*e && r.a <= r.b;
    if (!ok) {
        snprintf(err, errlen,
                 "--think-time '%s': expected fixed:S, exp:MEAN or uniform:A-B in seconds "
                 "(0 to %.0f, MEAN above 0, A <= B), e.g. exp:0.5",
                 v, THINK_MAX_S);
        return -1;
    }
    *t = r;
    return 0;
}

void think_format(const struct think_time *t, char *out, size_t len) {
    switch (t->kind) {
    case THINK_FIXED:
        snprintf(out, len, "fixed:%g", t->a);
        break;
    case THINK_EXP:
        snprintf(out, len, "exp:%g", t->a);
        break;
    case THINK_UNIFORM:
        snprintf(out, len, "uniform:%g-%g", t->a, t->b);
        break;
    default:
        snprintf(out, len, "none");
    }
}

double think_mean(const struct think_time *t) {
    return t->kind == THINK_UNIFORM ? (t->a + t->b) / 2 : t->kind == THINK_NONE ? 0 : t->a;
}

double think_bound(const struct think_time *t) {
    return t->kind == THINK_UNIFORM ? t->b : t->kind == THINK_EXP ? t->a * 20.7 : t->a;
}

int pacing_check(enum arrival a, double rate, const struct think_time *t, double stall_timeout,
                 int phase_barrier, char *err, size_t errlen) {
    if (a == ARRIVAL_CLOSED && rate > 0) {
        snprintf(err, errlen, "--agent-rate needs --arrival poisson or --arrival fixed");
        return -1;
    }
    if (a != ARRIVAL_CLOSED && !(rate > 0)) {
        snprintf(err, errlen,
                 "--arrival %s needs --agent-rate R (operations per second per "
                 "worker)",
                 arrival_name(a));
        return -1;
    }
    if (a != ARRIVAL_CLOSED && t->kind != THINK_NONE) {
        snprintf(err, errlen,
                 "--think-time is a closed loop's pause; --arrival %s sets the "
                 "instants itself: give one of them",
                 arrival_name(a));
        return -1;
    }
    if ((a != ARRIVAL_CLOSED || t->kind != THINK_NONE) && phase_barrier) {
        snprintf(err, errlen,
                 "--phase-barrier cannot be paced (--arrival, --think-time): a "
                 "barrier's wait would be counted as the pacer's lateness");
        return -1;
    }
    /* A gap near --stall-timeout would stop a healthy paced run as stalled:
     * a Poisson gap exceeds 20/R with probability e^-20 (2e-9). */
    if (a != ARRIVAL_CLOSED && 20.0 / rate >= stall_timeout) {
        snprintf(err, errlen,
                 "--agent-rate %g: gaps of up to 20/R = %.3g s would reach "
                 "--stall-timeout %g s; raise the rate or the timeout",
                 rate, 20.0 / rate, stall_timeout);
        return -1;
    }
    if (t->kind != THINK_NONE && think_bound(t) >= stall_timeout) {
        snprintf(err, errlen,
                 "--think-time: pauses of up to %.3g s would reach --stall-timeout "
                 "%g s; raise the timeout",
                 think_bound(t), stall_timeout);
        return -1;
    }
    return 0;
}

void pacing_seed(struct rng *r, uint64_t seed, unsigned worker) {
    rng_seed(r, seed, worker, 3);
}

double pacing_unit(struct rng *r) {
    /* 53 random bits, shifted by one step: (0, 1]. */
    return (double)((rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

void arrival_offsets(enum arrival a, double rate, struct rng *r, int64_t *out, size_t n) {
    double t = 0, gap = 1e9 / rate;
    for (size_t k = 0; k < n; k++) {
        if (a == ARRIVAL_POISSON)
            t += -log(pacing_unit(r)) * gap;
        else
            t = (double)(k + 1) * gap; /* from k, not summed: no drift over a long run */
        out[k] = (int64_t)llround(t);
    }
}

int64_t think_draw(const struct think_time *t, struct rng *r) {
    double s = 0;
    if (t->kind == THINK_FIXED)
        s = t->a;
    else if (t->kind == THINK_EXP)
        s = -log(pacing_unit(r)) * t->a;
    else if (t->kind == THINK_UNIFORM)
        s = t->a + (t->b - t->a) * (pacing_unit(r) - 0x1.0p-53);
    return (int64_t)llround(s * 1e9);
}
