/* report_attrib.h -- "where the time went" in `harness report` (a stacked
 * bar of CPU seconds by component per window, seconds per operation, share
 * of the machine, IPC where counted, and what the counters said) and the
 * per-component rows `harness compare` sets side by side. Reads only
 * result.json's attribution and counters keys (attrib.h); a result without
 * them gets a line saying so. */
#ifndef AOPS_REPORT_ATTRIB_H
#define AOPS_REPORT_ATTRIB_H

#include <jansson.h>
#include <stddef.h>

#include "report_html.h"

void report_attrib_section(struct sbuf *b, const json_t *r);

/* compare: one row per window and component of r's attribution, named
 * "  <window> <component>", at "attribution.<window>.<component>.cpu_s_per_op".
 * Returns how many. */
#define ATTRIB_ROW_NAME 96
#define ATTRIB_ROW_PATH 160
size_t attrib_compare_rows(const json_t *r, char (*names)[ATTRIB_ROW_NAME],
                           char (*paths)[ATTRIB_ROW_PATH], size_t max);

#endif
