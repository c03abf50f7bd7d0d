/* db_point.c -- point lookups per second through the harness's own db
 * workload (the same open() and run() a worker uses), for bench/db to set
 * beside `sysbench oltp_point_select` on the same server.
 *
 * usage: db_point THREADS SECONDS [PROFILE]
 * Each thread opens one connection as a worker would and runs the point
 * pattern (operations 0..9 of successive cycles, so parameters keep
 * changing) until the time is up. Prints one line: "<queries per second>". */
#include <mysql.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../coordinator/cmdline.h"
#include "../common/util.h"
#include "../workloads/workload.h"

extern const struct workload db_workload;

struct job {
    const struct config *cfg;
    unsigned id;
    int64_t until;
    uint64_t ops;
    void *st;
    char err[512];
};

static void *loop(void *arg) {
    struct job *j = arg;
    struct op_result res;
    for (unsigned cycle = 0; now_ns() < j->until; cycle++)
        for (unsigned op = 0; op < 10; op++) {
            memset(&res, 0, sizeof res);
            if (db_workload.run(j->st, cycle, op, &res) < 0) {
                snprintf(j->err, sizeof j->err, "%s", res.err);
                return NULL;
            }
            j->ops++;
        }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: db_point THREADS SECONDS [tiny|small|full]\n");
        return 2;
    }
    unsigned n = (unsigned)atoi(argv[1]);
    double secs = atof(argv[2]);
    struct config cfg;
    char err[512];
    if (options_load_env(&cfg, err, sizeof err) < 0) {
        fprintf(stderr, "db_point: %s\n", err);
        return 1;
    }
    cfg.profile = argc > 3 && !strcmp(argv[3], "full")    ? PROFILE_FULL
                  : argc > 3 && !strcmp(argv[3], "small") ? PROFILE_SMALL
                                                          : PROFILE_TINY;
    if (n < 1 || n > 256 || secs <= 0) {
        fprintf(stderr, "db_point: THREADS in 1..256, SECONDS > 0\n");
        return 2;
    }
    mysql_library_init(0, NULL, NULL);
    struct job *jobs = calloc(n, sizeof *jobs);
    pthread_t *tids = calloc(n, sizeof *tids);
    for (unsigned i = 0; i < n; i++) {
        jobs[i].cfg = &cfg;
        jobs[i].id = i;
        jobs[i].st = db_workload.open(&cfg, i, err, sizeof err);
        if (!jobs[i].st) {
            fprintf(stderr, "db_point: %s\n", err);
            return 1;
        }
    }
    int64_t t0 = now_ns(), until = t0 + (int64_t)(secs * 1e9);
    for (unsigned i = 0; i < n; i++) {
        jobs[i].until = until;
        pthread_create(&tids[i], NULL, loop, &jobs[i]);
    }
    uint64_t total = 0;
    int failed = 0;
    for (unsigned i = 0; i < n; i++) {
        pthread_join(tids[i], NULL);
        total += jobs[i].ops;
        if (jobs[i].err[0])
            fprintf(stderr, "db_point: %s\n", jobs[i].err), failed = 1;
    }
    double took = (double)(now_ns() - t0) / 1e9;
    for (unsigned i = 0; i < n; i++)
        db_workload.close(jobs[i].st);
    printf("%.1f\n", (double)total / took);
    free(jobs);
    free(tids);
    mysql_library_end();
    return failed;
}
