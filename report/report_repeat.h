/* report_repeat.h -- the parts of `harness report` that say how much a
 * number moves: a repeated run's spread and stability next to the headline,
 * the AOPS of each of its runs, and throughput over time (operations and
 * bytes per second per workload, the windows shaded). */
#ifndef AOPS_REPORT_REPEAT_H
#define AOPS_REPORT_REPEAT_H

#include <jansson.h>

#include "report_html.h"

/* Inside the AOPS card: "median of 3 runs; min, max, CV", and the unstable
 * mark when the result carries the warning. Nothing without repeats. */
void report_repeats_note(struct sbuf *b, const json_t *r);

/* A section with a bar per run (the median run marked) and a link to each
 * run's result. Nothing without repeats. */
void report_repeats_section(struct sbuf *b, const json_t *r);

/* Line charts of telemetry.series[].workloads: a chart of operations per
 * second for each workload ("throughput-<name>"), and one of the byte
 * counters per second ("throughput-bytes") when a workload has some.
 * Inside a grid. */
void report_throughput_charts(struct sbuf *b, const json_t *r, const struct chart_span *spans,
                              size_t nspans);

#endif
