/* capacity_fleet.c -- a point of `harness capacity --shard I/N`: fleet
 * runs, their merge, the next start (see capacity_fleet.h). */
#include "capacity_fleet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/config.h"
#include "../common/json.h"
#include "../common/walltime.h"
#include "../coordinator/commands.h"
#include "../result/integrity.h"
#include "../result/repeat.h"
#include "../result/result.h"
#include "../result/results.h"
#include "../workloads/workload.h"

#define EXIT_USAGE 2
#define EXIT_SIGNAL 130
#define POLL_NS 500000000L

/* Which shards of this fleet have put both their result and its log under
 * prefix ("shard-I-of-N-<host>-<pid>.json" and ".ops.log"): 0 when all of
 * them, 1 with the first missing in *first, -1 with err. */
static int present(const struct cap_fleet *fl, const struct wl_store *st, const char *bucket,
                   const char *prefix, unsigned *first, char *err, size_t len) {
    char **keys = NULL;
    size_t n = 0;
    if (st->list(fl->cfg, bucket, prefix, &keys, &n, err, len) != 0)
        return -1;
    unsigned char *got = calloc(fl->shards, 1);
    for (size_t i = 0; i < n; i++) {
        const char *k = keys[i] + (strncmp(keys[i], prefix, strlen(prefix)) ? 0 : strlen(prefix));
        unsigned s, of;
        int at = 0;
        if (got && sscanf(k, "shard-%u-of-%u-%n", &s, &of, &at) == 2 && at && of == fl->shards &&
            s < of) {
            size_t l = strlen(k);
            got[s] |= l > 8 && !strcmp(k + l - 8, ".ops.log") ? 2
                      : l > 5 && !strcmp(k + l - 5, ".json")  ? 1
                                                              : 0;
        }
        free(keys[i]);
    }
    free(keys);
    if (!got) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    unsigned i = 0;
    while (i < fl->shards && got[i] == 3)
        i++;
    free(got);
    *first = i;
    return i < fl->shards;
}

/* Wait until every shard's result of this run is under url, or the
 * deadline (epoch seconds) passes: the merge then says which is missing. */
static int wait_all(const struct cap_fleet *fl, const char *url, double deadline, char *err,
                    size_t len) {
    char bucket[256], prefix[1100];
    const struct wl_store *st =
        store_for_url(url, bucket, sizeof bucket, prefix, sizeof prefix, NULL, err, len);
    if (!st)
        return -1;
    for (;;) {
        unsigned first;
        int rc = present(fl, st, bucket, prefix, &first, err, len);
        if (rc <= 0)
            return rc;
        if (wall_now() > deadline) {
            fprintf(stderr,
                    "harness capacity: shard %u of %u has not put its result under %s by the "
                    "deadline; merging what is there\n",
                    first, fl->shards, url);
            return 1;
        }
        struct timespec ts = {0, POLL_NS};
        nanosleep(&ts, NULL);
    }
}

/* The next start: the merged run's last completion on the common clock
 * plus the lead, up to a whole second. Every host reads the same merged
 * figures, so every host takes the same instant. NAN: nothing released. */
static double next_start(const json_t *merged, double lead) {
    const json_t *rel = jget(merged, "merge.released_at_ns");
    double wall = jnum(merged, "totals.wall_seconds");
    if (!json_is_integer(rel) || !isfinite(wall))
        return NAN;
    return ceil((double)json_integer_value(rel) / 1e9 + wall + lead);
}

/* The K merged runs under dir/runs/<i> as one --repeat result in dir. */
static int combine(const char *dir, unsigned made, unsigned asked, double max_cv, char *err,
                   size_t len) {
    json_t *runs[64] = {0};
    char names[64][16];
    const char *dirs[64];
    if (made > 64)
        made = 64;
    for (unsigned i = 0; i < made; i++) {
        char path[4300], why[256];
        snprintf(names[i], sizeof names[i], "runs/%u", i + 1);
        dirs[i] = names[i];
        snprintf(path, sizeof path, "%s/%s/result.json", dir, names[i]);
        runs[i] = json_load_bounded(path, 256u << 20, 0, why, sizeof why);
    }
    json_t *res = repeat_combine(runs, dirs, made, asked, max_cv);
    int rc = -1;
    if (!res)
        snprintf(err, len, "%s: none of the %u merged runs left a result", dir, made);
    else {
        result_reportable(res);
        rc = results_write(res, dir, err, len) == 0 && integrity_seal(dir, NULL, res, err, len) == 0
                 ? 0
                 : -1;
    }
    json_decref(res);
    for (unsigned i = 0; i < made; i++)
        json_decref(runs[i]);
    return rc;
}

int fleet_point(struct cap_fleet *fl, const struct cap_runner *r, unsigned n, unsigned k,
                const char *rel, char *why, size_t len) {
    int worst = 0;
    unsigned made = 0;
    why[0] = 0;
    for (unsigned i = 1; i <= k; i++) {
        char run[300], hostrel[320], url[1500], at[40], dir[4400], log[4500];
        if (k > 1)
            snprintf(run, sizeof run, "%s/runs/%u", rel, i);
        else
            snprintf(run, sizeof run, "%s", rel);
        snprintf(hostrel, sizeof hostrel, "host/%s", run);
        size_t ul = strlen(fl->url);
        snprintf(url, sizeof url, "%s%s%s/", fl->url, ul && fl->url[ul - 1] == '/' ? "" : "/", run);
        snprintf(at, sizeof at, "%.6f", fl->start_at);
        const char *extra[] = {"--start-at", at, "--results-url", url};
        int rc = cap_run(r, n, 1, hostrel, extra, 4);
        worst = rc > worst ? rc : worst;
        if (rc == EXIT_SIGNAL || rc == EXIT_USAGE)
            break;
        /* Every shard's result of this run, then their merge as harness
         * merge makes it (its log beside it). A slower host may take up to
         * twice this one's time: the wait is at least this run's wall. */
        char own[4500], err[256];
        snprintf(own, sizeof own, "%s/%s/result.json", r->out, hostrel);
        json_t *mine = json_load_bounded(own, 256u << 20, 0, err, sizeof err);
        double wall = jnum(mine, "totals.wall_seconds");
        json_decref(mine);
        double wait = fl->lead > CAP_FLEET_WAIT_S ? fl->lead : CAP_FLEET_WAIT_S;
        if (isfinite(wall) && wall > wait)
            wait = wall;
        if (wait_all(fl, url, wall_now() + wait, why, len) < 0)
            break;
        snprintf(dir, sizeof dir, "%s/%s", r->out, run);
        snprintf(log, sizeof log, "%s.merge.log", dir);
        char *av[] = {"merge", url, "--out", dir, "--quiet", NULL};
        struct cap_log l;
        cap_log_begin(&l, log);
        int mrc = merge_main(5, av);
        cap_log_end(&l);
        if (mrc == EXIT_USAGE) {
            snprintf(why, len, "harness merge of %s failed (%s)", url, log);
            worst = worst > 1 ? worst : 1;
            break;
        }
        made = i;
        char path[4500];
        snprintf(path, sizeof path, "%s/result.json", dir);
        json_t *m = json_load_bounded(path, 256u << 20, 0, err, sizeof err);
        double next = next_start(m, fl->lead);
        int stop = !m || cap_broken(m);
        json_decref(m);
        if (isfinite(next))
            fl->start_at = next;
        if (stop) /* the point is invalid: the search stops on every host */
            break;
    }
    if (k > 1 && made) {
        char dir[4400], err[4500];
        snprintf(dir, sizeof dir, "%s/%s", r->out, rel);
        if (combine(dir, made, k, fl->max_cv, err, sizeof err) != 0)
            snprintf(why, len, "%s", err);
    }
    return worst;
}
