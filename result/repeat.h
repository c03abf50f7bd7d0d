/* repeat.h -- `--repeat K`: the same job K times, and how much its number
 * moves between runs.
 *
 * The coordinator makes the runs (RUN_DIR/runs/<i>/result.json, i = 1..K)
 * and writes the top-level result; this module computes it: the median run's whole
 * result (every figure from one real run, so they stay consistent; never a
 * mix, never the best) plus
 *   repeats{n, aops[], aops_median, aops_min, aops_max, aops_cv, ...}
 * The median run is the run with the median AOPS; for an even count it is
 * the lower of the two middle runs (the conservative one), so the headline
 * is always a run that happened, and aops_median is that run's AOPS. CV is
 * the sample standard deviation (n - 1) over the mean, in percent. With 3
 * or more runs a CV above --max-cv adds the warning "unstable: AOPS CV X %
 * over K runs". repeats.trend{direction, change_pct, runs, reason} says
 * whether the runs rise or fall run after run (the rule is in repeat.c), and
 * a trend adds a warning that names it and its likely cause. The summary
 * says "AOPS 212.0 (median of 3; min 199.5, max 230.4, CV 7.2 %)".
 *
 * compare reads the spread back: two results whose AOPS ranges (min to max
 * of their runs; a single run is a range of one value) overlap differ by
 * less than their combined spread, and their ratio is "within noise". */
#ifndef AOPS_REPEAT_H
#define AOPS_REPEAT_H

#include <jansson.h>
#include <stdio.h>

struct repeat_stats {
    unsigned n;      /* finite values */
    unsigned median; /* index into the input of the median run (lower median) */
    double median_v, min, max, mean;
    double cv; /* percent; NAN with fewer than 2 values or a zero mean */
};

/* Over the finite values of v[0..n); 0, or -1 when none is finite. */
int repeat_stats(const double *v, unsigned n, struct repeat_stats *st);

/* The top-level result from runs[0..made) (NULL for a run that left no
 * result), asked = K. dirs[i] is run i's directory relative to the result
 * ("runs/1"). NULL when no run left a result. */
json_t *repeat_combine(json_t *const *runs, const char *const *dirs, unsigned made, unsigned asked,
                       double max_cv);

/* "AOPS 212.0 (median of 3; min 199.5, max 230.4, CV 7.2 %)" into buf;
 * 0, or -1 (buf empty) when res holds no repeats. */
int repeat_headline(const json_t *res, char *buf, size_t len);

/* One line for a run of a repeat: "run 2 of 3: AOPS 212.0, valid". */
void repeat_print_run(const json_t *res, unsigned index, unsigned of, FILE *f);

/* The range of a headline figure over a result's runs: 1 with [lo, hi]
 * from repeats (totals.aops, totals.aops_per_core), 0 with lo = hi = the
 * figure for a single run or any other figure, -1 when it is missing. */
int repeat_range(const json_t *res, const char *path, double *lo, double *hi);

/* Do a's and b's ranges of the figure at path overlap (the ratio is then
 * within their combined spread)? 1 yes, 0 no, -1 unknown: neither result
 * has repeats, or a figure is missing. */
int repeat_within_noise(const json_t *a, const json_t *b, const char *path);

#endif
