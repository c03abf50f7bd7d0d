/* report_capacity.h -- `harness report` of a `harness capacity` directory
 * (DIR/capacity.json): the capacity curve, each bound's percentile against
 * the agents with the bound as a line, AOPS against the agents, and the
 * points. */
#ifndef AOPS_REPORT_CAPACITY_H
#define AOPS_REPORT_CAPACITY_H

#include <jansson.h>
#include <stddef.h>

#include "report_html.h"

/* DIR/capacity.json, read as a file from anyone: a regular file (no
 * symbolic link, no FIFO) of at most 64 MiB. NULL with err set. */
json_t *capacity_load(const char *path, char *err, size_t errlen);

/* The document whose "capacity" the page draws, into *doc: DIR/result.json
 * when it holds capacity{} (this build), else DIR/capacity.json (a
 * directory of an earlier build). 1 with *doc, 0 when DIR is no capacity
 * directory, -1 with err (capacity.json unreadable). */
int capacity_doc(const char *dir, json_t **doc, char *err, size_t errlen);

/* DIR as `harness compare` reads it: a run directory as load_run does; a
 * capacity directory as the run its agents at SLO came from (the point of
 * that many agents, its repeated run where there is one), the capacity
 * object into *cap (a new reference; NULL for a run). NULL with err. */
json_t *capacity_or_run(const char *dir, json_t **cap, char *err, size_t errlen);

/* The page's body from capacity.json (doc); 0, or -1 with err. */
int render_capacity(struct sbuf *b, const json_t *doc, const char *name, char *err, size_t errlen);

#endif
