/* merge_table.h -- the per-host table of a merged result in the HTML report. */
#ifndef AOPS_MERGE_TABLE_H
#define AOPS_MERGE_TABLE_H

#include <jansson.h>

#include "report_html.h"

/* "Hosts": one row per shard; nothing for a single-host result. */
void shards_html(struct sbuf *b, const json_t *res);

#endif
