/* search.h -- what the search workload offers the rest of the harness: the
 * corpus manifest for result.json, and the corpus layout. */
#ifndef AOPS_SEARCH_H
#define AOPS_SEARCH_H

#include <jansson.h>
#include <stddef.h>

#include "../coordinator/config.h"

/* config.corpus for result.json: {"dir", "profile", "patterns", "manifest"}
 * where manifest is DIR/<profile>/manifest.json as `corpus fetch` wrote it
 * (package versions, file counts, bytes, digests), or null when the corpus
 * is missing. Never NULL. */
json_t *corpus_manifest_json(const struct config *cfg);

/* DIR/<profile>: the directory holding the profile's trees. */
void corpus_profile_dir(const struct config *cfg, char *out, size_t len);

/* 0 when the profile's corpus is there, else -1 with err = "corpus missing at
 * DIR: run `./harness corpus fetch --profile P`". */
int corpus_check(const struct config *cfg, char *err, size_t errlen);

#endif
