/* histjson.h -- histograms in result.json, exactly, so that results from
 * several hosts can be merged by adding buckets (never by combining
 * percentiles, which cannot be done right).
 *
 * A histogram is {"count", "sum_ns", "min_ns", "max_ns", "buckets":
 * [[index, count], ...]} with only the non-empty buckets, in index order:
 * a tiny run's dozen histograms take a few KB. result.json's "histograms"
 * holds one per figure the workloads report with latency_ms-like objects,
 * keyed as in "workloads": histograms.workloads.<name>.latency_ms, .<extra
 * histogram key> (time to first byte), .<classes key>.<class>; a paced run
 * also .service_ms and .service_<classes key>.<class> (the service times
 * beside those response times) and histograms.pacer.lateness_ms. */
#ifndef AOPS_HISTJSON_H
#define AOPS_HISTJSON_H

#include <jansson.h>
#include <stddef.h>

#include "hist.h"
#include "run.h"

json_t *hist_to_json(const struct hist *h);
/* Parse what hist_to_json wrote into h (initialised here). 0, or -1 with
 * err when it is not such a histogram or its buckets do not add up. */
int hist_from_json(const json_t *j, struct hist *h, char *err, size_t errlen);

/* The "histograms" object of a run from its merged histograms. */
json_t *results_hists_json(const struct run_layout *lay, const struct hist *hists);
/* Where histogram h of the layout goes below "histograms" (as above:
 * "workloads.s3.classes.1MiB", "pacer.lateness_ms"): the one map of slots to
 * keys, which results_hists_json writes by and a merge reads back by. 0, or
 * -1 when h is no slot of lay or path is too short. */
int results_hist_path(const struct run_layout *lay, unsigned h, char *path, size_t len);

/* Whether a "histograms" object uses this build's bucket layout. */
int hists_format_ok(const json_t *histograms);

#endif
