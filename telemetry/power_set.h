/* power_set.h -- every power source of the machine, as the sampler sees them.
 *
 * The set opens each row of the source table (power.h), gives every source
 * that measures a column of the telemetry series -- "power_w" for the
 * package as always, "power_platform_w" and "power_socket_w" for the first
 * source of those scopes, "power_<source>_w" for more of one scope -- and
 * reports one entry per source. Sources whose reads may block run on a
 * thread of their own from power_set_begin() to power_set_end(); the
 * sampler only takes what they read, under a mutex held for a copy.
 *
 * A source that updates slower than the sample interval (a BMC's sensor
 * refreshes every few seconds) says so, and its mean is over its readings
 * inside the span asked for. */
#ifndef AOPS_POWER_SET_H
#define AOPS_POWER_SET_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "power.h"

#define POWER_MAX_COLS 8

struct power_set;

/* Open every source. Never fails for a source: it is then reported with its
 * reason. NULL only when out of memory. */
struct power_set *power_set_open(const struct power_env *env);

/* Columns of the series: power_set_col(ps, 0) is always "power_w". */
unsigned power_set_ncols(const struct power_set *ps);
const char *power_set_col(const struct power_set *ps, unsigned k);
/* The source behind column k and its scope's name ("package", "platform",
 * "socket"): 0, or -1 when the column has none (power_w without a package
 * source). For live readers of the latest sample. */
int power_set_col_source(const struct power_set *ps, unsigned k, const char **source,
                         const char **scope);

/* Release (t0, CLOCK_MONOTONIC ns): the energy counters' baseline, and the
 * threads of the sources that have one start reading. */
void power_set_begin(struct power_set *ps, int64_t t0_ns);

/* The release came later than power_set_begin's t0 (the other baselines
 * were read meanwhile): times count from t0_ns from now on, readings so
 * far moved with them. Before the first sample. */
void power_set_rebase(struct power_set *ps, int64_t t0_ns);

/* A sample at now_ns, dt seconds after the previous: cols[0..ncols) get
 * each column's watts (NAN where there is no figure). No allocation, no
 * blocking: a thread's readings since the last sample are averaged, the
 * last one held when none arrived. */
void power_set_sample(struct power_set *ps, int64_t now_ns, double dt, double *cols);

/* Stop the threads and close what the sources hold (a BMC session). After
 * the run's last sample; safe to call twice. */
void power_set_end(struct power_set *ps);

/* The series' mean and peak of column col over [a, b] seconds since t0, as
 * the sampler computes them (a point partly inside counts by its share).
 * Returns 0, or -1 when no point with a value falls inside. */
typedef int (*power_colstat_fn)(const void *ctx, unsigned col, double a, double b, double *mean,
                                double *peak);

/* Mean watts of the first measuring source of a scope over [a, b], or NAN. */
double power_set_mean(const struct power_set *ps, enum power_scope scope, double a, double b,
                      power_colstat_fn stat, const void *ctx);

/* The array telemetry.power: one entry per source, the package's first,
 * then each scope's source that the per-watt figures use, then the rest. */
json_t *power_set_json(const struct power_set *ps, double a, double b, power_colstat_fn stat,
                       const void *ctx);

/* Why there is no package power ("" when there is). */
const char *power_set_reason(const struct power_set *ps, enum power_scope scope);

/* One line per source the user asked for or the machine has that cannot
 * measure, for stderr at start: "harness: warning: ...". */
void power_set_say(const struct power_set *ps, FILE *f);

/* A warning per source slower than the sample interval, for result.json. */
void power_set_warnings(const struct power_set *ps, double a, double b, json_t *warnings);

void power_set_free(struct power_set *ps);

/* Pure helpers, exposed for the tests. */

/* Mean and peak of the readings w[i] taken at t[i] inside [a, b] (NAN
 * readings skipped). Returns how many there were. */
size_t power_readings_stat(const double *t, const double *w, size_t n, double a, double b,
                           double *mean, double *peak);

/* Seconds between value changes of a reading sequence: (time of the last
 * change - time of the first) / (changes - 1); NAN with fewer than two. */
double power_update_interval(const double *t, const double *w, size_t n);

#endif
