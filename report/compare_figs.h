/* compare_figs.h -- `harness compare`'s figure set, grouped as the published
 * AMD/Micron comparison is read, platform against platform: total and
 * per-core AOPS (with each run's spread over its --repeat runs as an error
 * bar), mean latency per workload, and for every activity window and the
 * whole run the CPU utilisation, storage read throughput, read IOPS and
 * package power, each mean and peak; AOPS per watt.
 *
 * Rows go side by side with a ratio against the first run; a figure a run
 * could not measure is "–" with the reason (the result's own words, such as
 * telemetry.power_unavailable_reason) as a numbered note. A chart per figure
 * has one bar group per run. Every figure carries its result.json path
 * (runs.<i>.<path>) for the tests. No workload is named here: windows are
 * the result's, in the registry's order. */
#ifndef AOPS_COMPARE_FIGS_H
#define AOPS_COMPARE_FIGS_H

#include <jansson.h>
#include <stdio.h>

#include "report_html.h"

/* Notes saying why a figure is "–": each reason once with the runs it
 * holds for, as <ol id=ID> under a table; a cell links to its item. */
struct fig_notes;
struct fig_notes *fig_notes_new(const char *id);
/* A null figure's cell content: "–" (data-key KEY, data-value null) and the
 * number of the note why, for the run labelled label. */
void fig_null_cell(struct sbuf *b, struct fig_notes *ns, const char *key, const char *label,
                   const char *why);
/* The list, and free ns. */
void fig_notes_end(struct sbuf *b, struct fig_notes *ns);
/* The result's own words for a null at a headline path (AOPS per watt and
 * power: telemetry.power_unavailable_reason...), or NULL. */
const char *compare_null_reason(const json_t *r, const char *path);

/* The per-window rows as text (labels: "A", "B"...). */
void compare_figs_text(const json_t *const *r, const char *const *labels, int n, FILE *f);

/* The per-window table (id compare-windows) with its notes. */
void compare_figs_table(struct sbuf *b, const json_t *const *r, const char *const *labels, int n);

/* Charts, inside a grid: AOPS and per-core AOPS with error bars where a run
 * has repeats, mean latency per workload (compare-aops, compare-aops-per-core,
 * compare-latency-mean). */
void compare_headline_charts(struct sbuf *b, const json_t *const *r, const char *const *labels,
                             int n);

/* Charts, inside a grid: one per window figure (compare-cpu-util,
 * compare-read-bps, compare-read-iops, compare-read-baseline, compare-power,
 * compare-power-platform), a figure no run has said in words instead (id
 * <chart id>-unavailable), but for the optional ones (the drives' baseline,
 * platform power), left out when no run has them. */
void compare_window_charts(struct sbuf *b, const json_t *const *r, const char *const *labels,
                           int n);

/* A figure none of the runs has, in words: "<what>: unavailable. A: why;
 * B: why" from each run's reason at why_path. */
void compare_unavailable(struct sbuf *b, const char *id, const char *what, const json_t *const *r,
                         const char *const *labels, int n, const char *why_path);

#endif
