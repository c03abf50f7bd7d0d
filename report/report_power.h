/* report_power.h -- power on the report page: AOPS per watt of each scope
 * (package, as published, and platform, power at the wall) side by side, a
 * row per power source with its scope, and one chart of every source's
 * series column. Figures of different scopes are shown apart, never as one
 * number. */
#ifndef AOPS_REPORT_POWER_H
#define AOPS_REPORT_POWER_H

#include <jansson.h>
#include <stddef.h>

#include "report_html.h"

/* The headline's two AOPS-per-watt cards. */
void report_power_cards(struct sbuf *b, const json_t *r);

/* Rows of the telemetry table: "<scope> power, <source> (W)", mean, peak. */
void report_power_rows(struct sbuf *b, const json_t *r);

/* The power chart (id "power"), a line per source; without any power, the
 * reason in words (id "power-unavailable"). t: the series' times. */
void report_power_chart(struct sbuf *b, const json_t *r, const double *t, size_t n,
                        const struct chart_span *spans, size_t nspans);

#endif
