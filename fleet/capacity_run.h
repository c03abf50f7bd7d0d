/* capacity_run.h -- one run of `harness capacity`: `harness run` made by
 * run_main with the command line given and only the point's options put
 * in, its output in a log of its own, so the terminal shows one line per
 * point. Used by capacity.c (one host) and capacity_fleet.c (a shard of a
 * fleet). */
#ifndef AOPS_CAPACITY_RUN_H
#define AOPS_CAPACITY_RUN_H

#include <jansson.h>

struct result_exports;

struct cap_runner {
    const char *out; /* the capacity directory */
    char **fwd;      /* the run options, as given, less capacity's own */
    int nfwd;
    const struct result_exports *ex;
};

/* mkdir -p dir (what exists already is left as it is). */
void cap_mkdirs(const char *dir);

/* stdout and stderr into a log file until cap_log_end (a run's or a
 * merge's own lines). */
struct cap_log {
    int fd, so, se;
};
void cap_log_begin(struct cap_log *l, const char *path);
void cap_log_end(struct cap_log *l);

/* `harness run` with n containers (and --repeat k when k > 1) into
 * out/<rel>, its output into out/<rel>.log, extra[0..nextra) (--start-at,
 * --results-url of this run) put in too. run_main's exit code. */
int cap_run(const struct cap_runner *r, unsigned n, unsigned k, const char *rel,
            const char *const *extra, int nextra);

/* Whether a run's (or a merged fleet run's) result stops the search: the
 * reason it is invalid, unless every reason is the configuration's own (a
 * test-only workload, a partial cycle: the same at every point, and no
 * fault of this one, in a merge as each shard's); NULL when it does not. */
const char *cap_broken(const json_t *res);

#endif
