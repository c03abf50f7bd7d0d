/* check_capacity.c -- `harness check` of a `harness capacity` directory:
 * capacity{} against the points' own results, by rules of its own (none of
 * fleet/capacity*.c). check.c has checked every point as a run directory
 * of its own and the headline from its log; this says whether the search's
 * figures are what those results make of them:
 *   - each points[] entry is its result's (agents, AOPS, the SLO verdict,
 *     validity, each workload's response p50 and p99);
 *   - a count's verdict is its confirmation's (a --repeat point) where it
 *     has one, else its latest run's; agents_at_slo A is a count whose
 *     verdict is met, the next count A + 1 (A + N in a fleet of N shards,
 *     whose points are N x a host's count) was run and failed, and no count
 *     below failed (or, with no failure, A is the top of the range and
 *     at_least says so); with --repeat K, both ends were confirmed;
 *   - aops_at_slo is A's run's AOPS, the headline is that run (its run id
 *     and totals), offered_ops_per_s is A x config.agent_rate in a paced
 *     run, and limiting is the bound of A + 1's verdict furthest over (an
 *     error first);
 *   - a null agents_at_slo has its reason and is one: no count met the
 *     SLO, or the search is not valid. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "check.h"

#define REL 1e-8 /* figures copied from a result printed to 10 digits */

/* The point whose verdict count a has (its confirmation, else its latest
 * run), or -1: not run. */
static long verdict_of(const json_t *points, double a) {
    long at = -1;
    int confirmed = 0;
    size_t i;
    const json_t *p;
    json_array_foreach(points, i, p) {
        if (jnum(p, "agents") != a)
            continue;
        int rep = jnum(p, "repeat") > 1;
        if (rep || !confirmed)
            at = (long)i, confirmed |= rep;
    }
    return at;
}

static int met_in(json_t *const *pts, long i) {
    return i >= 0 && pts[i] && json_is_true(jget(pts[i], "slo.met"));
}

static int failed_in(json_t *const *pts, long i) {
    return i >= 0 && pts[i] && json_is_false(jget(pts[i], "slo.met"));
}

/* A point's entry against its result. */
static void point_figures(struct findings *f, const json_t *res, size_t i, const json_t *r) {
    const json_t *p = json_array_get(jget(res, "capacity.points"), i);
    char path[256];
    f->compared += 4;
    if (!json_equal(json_object_get(p, "met"), jget(r, "slo.met")))
        finding(f, "capacity.points.%zu.met: result.json differs from its run's slo.met", i);
    if (!json_equal(json_object_get(p, "valid"), json_object_get(r, "valid")))
        finding(f, "capacity.points.%zu.valid: result.json differs from its run's", i);
    if (jnum(p, "agents") != jnum(r, "config.containers"))
        finding(f, "capacity.points.%zu.agents: result.json %g, its run ran %g containers", i,
                jnum(p, "agents"), jnum(r, "config.containers"));
    double k = jnum(r, "repeats.n");
    if (jnum(p, "repeat") != (isfinite(k) ? k : 1))
        finding(f, "capacity.points.%zu.repeat: result.json %g, its result holds %g run(s)", i,
                jnum(p, "repeat"), isfinite(k) ? k : 1);
    snprintf(path, sizeof path, "capacity.points.%zu.aops", i);
    if (json_is_number(jget(r, "totals.aops")))
        compare_num(f, res, path, jnum(r, "totals.aops"), REL, 1e-9);
    const char *w;
    const json_t *wv;
    json_object_foreach(json_object_get(r, "workloads"), w, wv) {
        static const char *const q[] = {"p50", "p99"};
        for (int j = 0; j < 2; j++) {
            char from[200];
            snprintf(from, sizeof from, "latency_ms.%s", q[j]);
            snprintf(path, sizeof path, "capacity.points.%zu.workloads.%s.%s_ms", i, w, q[j]);
            if (json_is_number(jget(wv, from)))
                compare_num(f, res, path, jnum(wv, from), REL, 1e-9);
        }
    }
}

/* The failed bound of r's verdict that limits: an error first (no latency
 * excuses it), else the check furthest over its bound. The rule README
 * states, written again here on purpose (fleet/capacity.c's limiting() is
 * the writer's): check shares no code with what it checks. */
static const json_t *limit_of(const json_t *r) {
    const json_t *pick = NULL, *c;
    double worst = -1;
    size_t i;
    json_array_foreach(jget(r, "slo.checks"), i, c) {
        if (json_is_true(json_object_get(c, "met")))
            continue;
        double x = json_is_string(json_object_get(c, "reason"))
                       ? INFINITY
                       : jnum(c, "measured_ms") / jnum(c, "bound_ms");
        if (!pick || x > worst)
            pick = c, worst = x;
    }
    return pick;
}

/* a.key and b.key are equal, or both absent. */
static int same(const json_t *a, const json_t *b, const char *key) {
    const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);
    return x || y ? x && y && json_equal(x, y) : 1;
}

static void knee(struct findings *f, const json_t *res, json_t *const *pts) {
    const json_t *cap = json_object_get(res, "capacity"), *points = json_object_get(cap, "points");
    double a = jnum(cap, "agents_at_slo"), hi = jnum(cap, "containers.hi");
    double k = jnum(cap, "repeat"), step = jnum(cap, "shards");
    if (!(step >= 1)) /* one host: counts 1 apart; a fleet of N: N apart */
        step = 1;
    hi *= step;
    /* The first failure, by the verdicts. */
    double fail = NAN, lowest_met = NAN;
    size_t i;
    const json_t *p;
    json_array_foreach(points, i, p) {
        double n = jnum(p, "agents");
        long v = verdict_of(points, n);
        if (failed_in(pts, v) && !(n >= fail))
            fail = n;
        if (met_in(pts, v) && !(n >= lowest_met))
            lowest_met = n;
    }
    f->compared++;
    if (!isfinite(a)) {
        if (!jstr(cap, "agents_at_slo_reason"))
            finding(f, "capacity.agents_at_slo: null without agents_at_slo_reason");
        else if (json_is_true(json_object_get(cap, "valid")) && lowest_met < fail)
            finding(f,
                    "capacity.agents_at_slo: null in a valid search, but %g agents met the SLO "
                    "below the first failure at %g",
                    lowest_met, fail);
        return;
    }
    long av = verdict_of(points, a), fv = isfinite(fail) ? verdict_of(points, fail) : -1;
    if (!met_in(pts, av))
        finding(f, "capacity.agents_at_slo: %g, but the verdict of %g agents is not met", a, a);
    else if (isfinite(fail) && fail != a + step)
        finding(f, "capacity.agents_at_slo: %g, but the first count that failed is %g, not %g", a,
                fail, a + step);
    else if (!isfinite(fail) && (a != hi || !json_is_true(json_object_get(cap, "at_least"))))
        finding(f,
                "capacity.agents_at_slo: %g with no count failing, so it must be the top of "
                "the range (%g) and at_least true",
                a, hi);
    f->compared++;
    if (k > 1 && (jnum(json_array_get(points, (size_t)av), "repeat") != k ||
                  (fv >= 0 && jnum(json_array_get(points, (size_t)fv), "repeat") != k)))
        finding(f,
                "capacity.points: %g and %g agents, the two ends of the knee, were not both "
                "confirmed with --repeat %g",
                a, fail, k);
    if (av < 0 || !pts[av])
        return;
    const json_t *r = pts[av];
    compare_num(f, res, "capacity.aops_at_slo", jnum(r, "totals.aops"), REL, 1e-9);
    f->compared++;
    if (!json_equal(json_object_get(res, "totals"), json_object_get(r, "totals")) ||
        !json_equal(json_object_get(res, "run_id"), json_object_get(r, "run_id")))
        finding(f, "the headline is not the run of %g agents (%s): its run id or totals differ", a,
                jstr(json_array_get(points, (size_t)av), "dir"));
    double rate = jnum(r, "config.agent_rate");
    f->compared++;
    if (isfinite(rate) && rate > 0)
        compare_num(f, res, "capacity.offered_ops_per_s", a * rate, 1e-9, 1e-9);
    else if (!json_is_null(jget(res, "capacity.offered_ops_per_s")))
        finding(f, "capacity.offered_ops_per_s: a figure, but the run offers no rate (a closed "
                   "loop)");
    const json_t *lim = fv >= 0 && pts[fv] ? limit_of(pts[fv]) : NULL;
    if (lim) {
        const json_t *l = json_object_get(cap, "limiting");
        f->compared++;
        if (!same(l, lim, "workload") || !same(l, lim, "percentile") || !same(l, lim, "class"))
            finding(f,
                    "capacity.limiting: %s %s, but the bound furthest over at %g agents is "
                    "%s %s",
                    jstr(l, "workload") ? jstr(l, "workload") : "(none)",
                    jstr(l, "percentile") ? jstr(l, "percentile") : "", fail, jstr(lim, "workload"),
                    jstr(lim, "percentile"));
    }
}

void capacity_check(struct findings *f, const json_t *res, json_t *const *pts, size_t n) {
    const json_t *cap = json_object_get(res, "capacity");
    for (size_t i = 0; i < n; i++)
        if (pts[i])
            point_figures(f, res, i, pts[i]);
    knee(f, res, pts);
    /* The headline names a point, and is that point's run. */
    const char *h = jstr(cap, "headline.dir");
    f->compared++;
    if (!h)
        finding(f, "capacity.headline: names no point, but result.json is a run's");
    else {
        size_t i = 0;
        while (i < n &&
               !(jstr(json_array_get(json_object_get(cap, "points"), i), "dir") &&
                 !strcmp(jstr(json_array_get(json_object_get(cap, "points"), i), "dir"), h)))
            i++;
        if (i == n)
            finding(f, "capacity.headline.dir: %.200s is none of capacity.points'", h);
        else if (pts[i] &&
                 !json_equal(json_object_get(res, "totals"), json_object_get(pts[i], "totals")))
            finding(f, "capacity.headline: result.json's totals are not those of %.200s", h);
    }
}
