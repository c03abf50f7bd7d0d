/* search.h -- what the search workload's parts share: its settings, the
 * corpus layout and manifest, and its two subcommands. */
#ifndef AOPS_SEARCH_H
#define AOPS_SEARCH_H

#include <jansson.h>
#include <stddef.h>

#include "../common/config.h"
#include "workload.h"

/* The search workload's settings (its option rows in search.c fill them). */
struct search_opts {
    char corpus_dir[4096];    /* --corpus (corpus fetch: --dir), default <repo>/corpus/data */
    char patterns_file[4096]; /* --patterns, default <repo>/corpus/patterns */
    unsigned threads;         /* --search-threads per search; 0: ripgrep's default */
};

/* The threads a worker's search runs on: --search-threads, else ripgrep's
 * min(the CPUs it may use, 12) (search_par.h). */
unsigned search_threads(const struct config *cfg);

/* cfg's search settings. Inline, by the workload's slot: search.c reaches
 * them without calling registry.c, which refers to search_workload. */
static inline const struct search_opts *search_opts(const struct config *cfg) {
    return workload_opts_at(cfg, WL_SLOT_search);
}
extern const struct workload search_workload;

/* The figures an operation reports (op_result.count[]). */
enum { SEARCH_COUNT_LINES = 0, SEARCH_COUNT_FILES, SEARCH_COUNT_BYTES };

/* corpus.c, the trees themselves: it takes the workload's settings from its
 * callers (search.c) and calls nothing of the workload's.
 *
 * config.corpus for result.json: {"dir", "profile", "patterns", "manifest"}
 * where manifest is DIR/<profile>/manifest.json as `corpus fetch` wrote it
 * (package versions, file counts, bytes, digests), or null when the corpus
 * is missing. Never NULL. */
json_t *corpus_manifest_json(const struct config *cfg, const struct search_opts *o);

/* DIR/<profile>: the directory holding the profile's trees. */
void corpus_profile_dir(const struct config *cfg, const struct search_opts *o, char *out,
                        size_t len);

/* 0 when the profile's corpus is there, else -1 with err = "corpus missing at
 * DIR: run `./harness corpus fetch --profile P`". */
int corpus_check(const struct config *cfg, const struct search_opts *o, char *err, size_t errlen);

/* `harness corpus fetch` once its options are parsed (search.c parses
 * them): fetch or generate cfg->profile's trees into o->corpus_dir and
 * write their manifest. 0, or 1 after saying why on stderr. */
int corpus_fetch(const struct config *cfg, const struct search_opts *o);

/* `harness search` (search_cli.c). */
int search_cli_main(int argc, char **argv);

#endif
