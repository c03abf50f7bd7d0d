/* search_expect.h -- the search workload's patterns and the answers they
 * must give: corpus/patterns parsed and compiled, and the expected
 * matched-line and file counts per (pattern, tree) that `corpus fetch`
 * records in the corpus manifest (search_expect.c). */
#ifndef AOPS_SEARCH_EXPECT_H
#define AOPS_SEARCH_EXPECT_H

#include <jansson.h>
#include <stdint.h>

#include "../common/config.h"
#include "search.h"
#include "search_match.h"

#define SEARCH_OPS 100 /* searches per cycle: corpus/patterns holds exactly this many */
#define SEARCH_MAX_PATTERNS 1000

struct search_pattern {
    struct matcher m;
    int trees; /* bit 0 linux, bit 1 cpython */
    char text[1024];
};

/* Read and compile a patterns file (`TREE<TAB>PATTERN` lines): *p malloc'd,
 * *n patterns. 0, or -1 with err naming the file and line. */
int search_patterns_load(const char *file, struct search_pattern **p, unsigned *n, char *err,
                         size_t errlen);
void search_patterns_free(struct search_pattern *p, unsigned n);

/* What op i must find: matching lines and files with matches, over the
 * trees its pattern names. */
struct search_expected {
    uint64_t lines[SEARCH_OPS], files[SEARCH_OPS];
};

/* `corpus fetch`, after the trees are in place: count every pattern over
 * its trees with the harness's engine and store the counts in the
 * profile's manifest ("expected"), unless it already holds them for this
 * patterns file. keep: the manifest as it was before the fetch, whose
 * counts stand when its trees are the same. 0, or -1 after saying why on
 * stderr. */
int search_expect_record(const struct config *cfg, const struct search_opts *o, const json_t *keep);

/* The counts for cfg's corpus and patterns file: 0, or -1 with why = the
 * reason they cannot be checked (none recorded, another patterns file). */
int search_expect_load(const struct config *cfg, const struct search_opts *o,
                       struct search_expected *e, char *why, size_t len);

/* The manifest a fetch is about to rewrite, for search_expect_record's keep
 * (NULL when there is none); and the full profile's, which a small fetch
 * rewrites too, put back with its counts after it. */
json_t *search_expect_before(const char *manifest_path);
void search_expect_restore(const char *manifest_path, const json_t *before);

/* For the workload's provenance hook: PCRE2 and liburing as loaded, the
 * corpus manifest's and patterns file's sha256, and whether counts are
 * checked. */
json_t *search_expect_provenance(const struct config *cfg, const struct search_opts *o);

#endif
