/* search_par.h -- one search over several threads, as ripgrep runs one:
 * a parallel walk of the tree (common/walk.h's pwalk), each thread with an
 * engine of its own (reader, buffers) and its own PCRE2 match data, context
 * and JIT stack around the shared compiled pattern.
 *
 * ripgrep's default is min(the CPUs it may use, 12) threads
 * (std::thread::available_parallelism(), which honours the affinity mask and
 * a cgroup CPU quota); search_default_threads() is that rule, with a quota
 * given as --cpus-per-container. One thread is exactly engine_search().
 *
 * The threads are made once (psearch_open, outside any measured
 * operation) and wait between searches; a search allocates nothing in
 * count mode. What a search counts does not depend on the thread count:
 * every file is searched by exactly one thread, and the totals are sums. */
#ifndef AOPS_SEARCH_PAR_H
#define AOPS_SEARCH_PAR_H

#include "search_engine.h"

#define SEARCH_MAX_THREADS 256
#define SEARCH_RG_MAX_THREADS 12 /* ripgrep's cap on its default */

/* min(CPUs in this thread's affinity mask, ceil(cpus_limit) when > 0, 12). */
unsigned search_default_threads(double cpus_limit);

struct psearch;

/* threads >= 1; tmpl: any compiled pattern (its match limits are every
 * pattern's). NULL with err on failure. */
struct psearch *psearch_open(enum reader_kind kind, unsigned threads, const struct matcher *tmpl,
                             char *err, size_t errlen);
void psearch_close(struct psearch *ps);
unsigned psearch_threads(const struct psearch *ps);
const char *psearch_reader_name(const struct psearch *ps);

/* As engine_search(); fn, when set, is called from one thread at a time. */
int psearch_search(struct psearch *ps, struct matcher *m, const char *root, enum engine_mode mode,
                   engine_file_fn fn, void *arg, struct engine_totals *t);

#endif
