/* series.h -- figures over exact time spans of a sampled series.
 *
 * A telemetry series is a list of points, each the average of a quantity
 * over its interval (t - dt, t]. A run's or a window's mean covers exactly
 * its span: a point partly inside counts by the share of its interval that
 * lies inside, and the mean is time-weighted. A window made of several
 * intervals (one per cycle) covers their union; the figures of the time
 * when only one workload ran are the window less every other window.
 *
 * Pure arithmetic on arrays of doubles, generic over the columns: the
 * sampler's points (telemetry.c, any column: cpu_util, read_Bps, power of
 * any source, steal...) and a merged fleet's series (merge.c) both read
 * through struct series_col, a strided view that copies nothing. */
#ifndef AOPS_SERIES_H
#define AOPS_SERIES_H

#include <jansson.h>
#include <stddef.h>

/* [a, b] in seconds since the release. */
struct span {
    double a, b;
};

/* Sort spans and merge those that touch or overlap, in place; drops empty
 * ones. Returns the new count. */
size_t spans_union(struct span *s, size_t n);

/* Total length of disjoint sorted spans. */
double spans_length(const struct span *s, size_t n);

/* out = a minus b (both disjoint and sorted); out has room for na + nb.
 * Returns the count. */
size_t spans_subtract(const struct span *a, size_t na, const struct span *b, size_t nb,
                      struct span *out);

/* Length of the intersection of two disjoint sorted lists. */
double spans_overlap(const struct span *a, size_t na, const struct span *b, size_t nb);

/* One column of a series: point i ends at t[i * stride], lasts
 * dt[i * stride] and has the value v[i * stride] (NAN: not measured then). */
struct series_col {
    const double *t, *dt, *v;
    size_t stride, n;
};

/* Mean (time-weighted over the part of each point inside the spans) and
 * peak (the highest point that overlaps them) of c over disjoint sorted
 * spans; *covered gets the seconds of the spans the measured points cover.
 * 0, or -1 when no measured point overlaps (the outputs are then NAN). */
int series_stat(const struct series_col *c, const struct span *s, size_t n, double *mean,
                double *peak, double *covered);

/* The integral of c over the spans (a rate's total: bytes for read_Bps),
 * NAN when no measured point overlaps. */
double series_integral(const struct series_col *c, const struct span *s, size_t n);

/* {mean, peak} of c over the spans, rounded as the series is; null when
 * nothing was measured there. */
json_t *series_stat_json(const struct series_col *c, const struct span *s, size_t n);

/* The reasons beside o's null figures (result.schema.json's x-null-reason):
 * when cpu_util or steal_pct is null, cpu_unavailable_reason = cpu_why;
 * when a disk figure (read_Bps, read_iops, write_Bps, write_iops) is null,
 * disk_unavailable_reason = disk_why. A reason o already has is kept. The
 * sampler's run and windows and a fleet's call it, so that every null
 * figure has its reason one key away. */
void series_figure_reasons(json_t *o, const char *cpu_why, const char *disk_why);

/* An owned series with named columns, for series that come from JSON (a
 * fleet's shards) rather than from a sampler. */
#define SERIES_MAX_COLS 32
struct series {
    size_t n, cap;
    unsigned ncols;
    char names[SERIES_MAX_COLS][64];
    double *rows; /* n rows of 2 + ncols doubles: t, dt, then the columns */
};

void series_init(struct series *s);
void series_free(struct series *s);
/* The column's index, added when absent (-1 when full). */
int series_add_col(struct series *s, const char *name);
int series_find_col(const struct series *s, const char *name);
/* A new point (t, dt), every column NAN; returns its row, NULL without memory. */
double *series_append(struct series *s, double t, double dt);
struct series_col series_column(const struct series *s, int col);

#endif
