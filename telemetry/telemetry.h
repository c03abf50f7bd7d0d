/* telemetry.h -- the telemetry layer: everything that measures the machine
 * besides the operations themselves. The /proc and sysfs sampler with its
 * power sources (telemetry*.c), perf counters (perfctr.c), where the CPU
 * time went (attrib.c), the system inventory (inventory.c) and the servers'
 * own counts (server_check.c). It may use common/, the cgroup and engine
 * readers of containers/, and the workload descriptors (workload.h) to name
 * what it reads; the run (coordinator/) drives it and puts its figures in
 * the result, and it calls nothing above it.
 *
 * This header: the sampler and the system inventory, as the coordinator
 * sees them.
 *
 * The coordinator owns the clock: it calls telemetry_sample() from its own
 * event loop every --sample-interval (no thread), from barrier release to the
 * end. Every reader goes through cfg->sysroot so tests run on fixture trees. */
#ifndef AOPS_TELEMETRY_H
#define AOPS_TELEMETRY_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/config.h"
#include "series.h"

struct telemetry;

/* Resolve the devices behind the data (MinIO and MariaDB data directories
 * under .local/stack when present, the corpus) and the power source. Never
 * fails for a missing source: that source is reported unavailable. */
struct telemetry *telemetry_new(const struct config *cfg);

/* Counters the sampler reads besides the machine's: cumulative totals the
 * caller sums (the workers' completed operations and bytes per workload).
 * Each point of the series gets each counter's increase over its interval
 * and, when `rate` is set, that increase per second, as
 * series[i].<name>.<group>.<key> and <key>_per_s. read() fills vals[0..n)
 * at telemetry_begin and at every sample; the increases of all points sum
 * to the last reading minus the first. At most TEL_MAX_COUNTERS; more are
 * ignored. */
#define TEL_MAX_COUNTERS 64
struct tel_counter {
    const char *group, *key; /* static strings: a workload's name, a counter's key */
    int rate;
};
void telemetry_counters(struct telemetry *t, const char *name, const struct tel_counter *c,
                        unsigned n, void (*read)(void *ctx, uint64_t *vals), void *ctx);

/* Baseline reading at barrier release (t0, CLOCK_MONOTONIC ns). */
void telemetry_begin(struct telemetry *t, int64_t t0_ns);

/* One sample at now_ns; appends a point to the series (seconds since t0). */
void telemetry_sample(struct telemetry *t, int64_t now_ns);

/* The "telemetry" object of result.json (SPEC.md). */
json_t *telemetry_json(const struct telemetry *t);

/* {cpu_util{mean,peak}, read_Bps{...}, read_iops{...},
 * read_pct_of_baseline{...}} over [start,end] seconds since t0; null members
 * where no sample falls inside (or, for the percentage, no baseline). */
json_t *telemetry_window_json(const struct telemetry *t, double start, double end);

/* result.json's storage_baseline: the fio baseline of each device sampled
 * (telemetry/baseline.h), null when no baseline file exists. */
json_t *telemetry_baseline_json(const struct telemetry *t);
/* read_pct_of_baseline{mean, peak}: o's read_Bps as a percentage of the
 * drives' summed fio sequential-read baseline (baseline_bps; NAN or 0: none,
 * why says why), or null; with run, o (the run's telemetry, a single host's
 * or a fleet's) also gets baseline_read_Bps and, when the percentage is
 * null, baseline_unavailable_reason. */
void telemetry_baseline_figures(json_t *o, double baseline_bps, const char *why, int run);
/* Why there is none (NULL when there is). */
const char *telemetry_baseline_why(const struct telemetry *t);

/* Mean package power in watts over the run's span, or a negative value
 * when there is no power source (AOPS per watt is then null). */
double telemetry_mean_power(const struct telemetry *t);

/* The same for the platform (power at the wall: ACPI power meter, IPMI
 * DCMI, Redfish): AOPS per watt platform. */
double telemetry_mean_platform_power(const struct telemetry *t);

/* After the last sample: the BMCs' readers stop, their sessions end. */
void telemetry_end(struct telemetry *t);

/* At start: one line on f for each power source asked for (--bmc) or found
 * that cannot measure (an unreachable BMC, wrong credentials, a TLS error,
 * a resource without readings). */
void telemetry_say(const struct telemetry *t, FILE *f);

/* A warning for each power source slower than the sample interval. */
void telemetry_power_warnings(const struct telemetry *t, json_t *warnings);

/* The run's span, [release, last completion] in seconds since the release:
 * every run figure (telemetry_json's means and peaks, the mean power) then
 * covers exactly it, a sample partly inside counting by its share. */
void telemetry_set_span(struct telemetry *t, double start, double end);

/* After telemetry_begin, before the first sample: times count from t0_ns
 * (the release, taken after the baselines were read). */
void telemetry_rebase(struct telemetry *t, int64_t t0_ns);
/* When the baselines were read, in seconds since t0 (<= 0), NAN before. */
double telemetry_baseline_s(const struct telemetry *t);

/* Every metric's {mean, peak} over the union of disjoint sorted spans. */
json_t *telemetry_spans_json(const struct telemetry *t, const struct span *s, size_t n);
/* The integral of a metric over the spans ("read_Bps": bytes); NAN unknown. */
double telemetry_metric_integral(const struct telemetry *t, const char *metric,
                                 const struct span *s, size_t n);
/* A telemetry_counters() counter's increase over the spans, each point's
 * increase spread evenly over its interval; NAN when there is no such one. */
double telemetry_counter_sum(const struct telemetry *t, const char *group, const char *key,
                             const struct span *s, size_t n);

/* The latest sample, for live readers (the metrics endpoint): 0 with out
 * filled (NAN where a figure is not measured), or -1 before the first. */
struct tel_latest {
    double t; /* seconds since release */
    double cpu_util, read_Bps, read_iops, write_Bps, write_iops;
};
int telemetry_latest(const struct telemetry *t, struct tel_latest *out);

/* Power at the latest sample, one entry per measuring source with its
 * scope ("package", "platform", "socket"; NAN watts when that interval's
 * reading failed). Writes up to
 * max; returns how many (0: no power source, or no sample yet). */
struct tel_power_latest {
    const char *source, *scope;
    double watts;
};
int telemetry_power_latest(const struct telemetry *t, struct tel_power_latest *out, int max);

void telemetry_free(struct telemetry *t);

/* telemetry_new() with the function that opens energy counters (open(2)
 * when NULL): a test seam so fixture tests can make energy_uj fail with
 * EACCES even as root, which file modes cannot do. */
struct telemetry *telemetry_new_with(const struct config *cfg,
                                     int (*open_fn)(const char *path, int flags));

/* Physical cores of the machine (distinct package/core id pairs from
 * /proc/cpuinfo, else sysfs topology), for per-core AOPS; -1 when the
 * topology is unknown (aops_per_core is then null, not a guess). */
int inventory_physical_cores(const struct config *cfg);

/* The "system" object of result.json. Appends warnings that undermine a
 * comparison (scheduler, governor, swap) to the warnings array. */
json_t *inventory_json(const struct config *cfg, json_t *warnings);

#endif
