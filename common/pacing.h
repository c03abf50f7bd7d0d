/* pacing.h -- when a worker sends each operation: paced agents and think
 * times (issue 38), the pure part.
 *
 * A closed loop (the default) sends an operation the moment the last one
 * returned: it measures a box at saturation. A real agent does not: its
 * model generates for a while between tool calls, so calls arrive at a
 * pace. --arrival poisson|fixed --agent-rate R gives each operation of a
 * worker a scheduled instant (an open loop: sent whether or not the last
 * one returned, as MLPerf's Server scenario and wrk2 do); --think-time
 * pauses a closed loop after each completion (TPC-C's terminals). This file
 * holds the settings, their parsers and checks, and the seeded draws;
 * runtime/ sends at the instants and result/ reports how late it was. */
#ifndef AOPS_PACING_H
#define AOPS_PACING_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum arrival { ARRIVAL_CLOSED = 0, ARRIVAL_POISSON, ARRIVAL_FIXED };
enum think_kind { THINK_NONE = 0, THINK_FIXED, THINK_EXP, THINK_UNIFORM };

/* --think-time: fixed:S (a = S), exp:MEAN (a = MEAN), uniform:A-B (a, b),
 * seconds. */
struct think_time {
    enum think_kind kind;
    double a, b;
};

/* Parse "fixed:S", "exp:MEAN", "uniform:A-B" (seconds, finite, 0 <= S <=
 * 3600, A <= B). 0, or -1 with err set to one line. */
int think_parse(const char *v, struct think_time *t, char *err, size_t errlen);
/* "fixed:0.5", "exp:2", "uniform:0.1-0.3", "none". */
void think_format(const struct think_time *t, char *out, size_t len);
/* The mean pause, seconds. */
double think_mean(const struct think_time *t);
/* The largest pause a draw can give (exp: its 1 - 1e-9 quantile, 20.7 x
 * the mean), seconds: what the stall timeout must exceed. */
double think_bound(const struct think_time *t);

/* The settings hang together: --agent-rate with --arrival and only then,
 * not both --arrival and --think-time, gaps well below --stall-timeout.
 * 0, or -1 with err set to one line. */
int pacing_check(enum arrival a, double rate, const struct think_time *t, double stall_timeout,
                 int phase_barrier, char *err, size_t errlen);

const char *arrival_name(enum arrival a);

/* The draws of one worker: seeded by the run's seed and the worker's global
 * id, stream 3 (the schedule has 1, workloads their own), so the same seed
 * gives the same instants on every host. */
void pacing_seed(struct rng *r, uint64_t seed, unsigned worker);
/* Uniform in (0, 1]: never 0, so -log() of it is finite. */
double pacing_unit(struct rng *r);

/* Offsets from the release of n operations at rate per second, ns: Poisson
 * (exponential gaps of mean 1/rate, the first after one gap) or fixed
 * (k/rate for the k-th, from 1). Offsets grow; out[n-1] is about n/rate s. */
void arrival_offsets(enum arrival a, double rate, struct rng *r, int64_t *out, size_t n);

/* One think-time pause, ns. */
int64_t think_draw(const struct think_time *t, struct rng *r);

#endif
