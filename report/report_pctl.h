/* report_pctl.h -- latency as distributions: percentile curves drawn from
 * the histograms result.json keeps (histograms.workloads.<name>...), with
 * the same bucket-to-value rule as the figures (hist_quantile), so the
 * curve's p99 point is latency_ms.p99 exactly.
 *
 * report: one chart with a line per workload, and for each workload that
 * declares classes or extra histograms a chart with a line per class (query
 * patterns, object size classes) and per extra histogram (dashed).
 * compare: a chart per workload with a line per run. Generic over the
 * workload descriptors; no workload is named here. */
#ifndef AOPS_REPORT_PCTL_H
#define AOPS_REPORT_PCTL_H

#include <jansson.h>

#include "report_html.h"

/* The report's charts, inside a grid. 0 when drawn; -1 (nothing written)
 * when the result holds no usable histograms (a result of an older build):
 * the caller draws what it has instead. */
int report_latency_curves(struct sbuf *b, const json_t *r);

/* compare: a section with a chart per workload of r[0], a line per run
 * that has its histogram (labels[i] names run i), marked points keyed
 * runs.<i>.workloads.<name>.latency_ms.p50/p95/p99. Runs without
 * histograms are said, by label, under the charts. */
void compare_latency_curves(struct sbuf *b, const json_t *const *r, const char *const *labels,
                            int n);

#endif
