/* db.c -- placeholder until the db workload lands: it refuses to open, so
 * no run can count an operation it did not do. */
#include <stdio.h>

#include "workload.h"

static int db_prepare(const struct config *cfg, char *err, size_t len) {
    (void)cfg;
    snprintf(err, len, "the db workload is not built yet");
    return -1;
}

static void *db_open(const struct config *cfg, unsigned worker, char *err, size_t len) {
    (void)cfg, (void)worker;
    snprintf(err, len, "the db workload is not built yet");
    return NULL;
}

static int db_run(void *st, unsigned cycle, unsigned op, struct op_result *res) {
    (void)st, (void)cycle, (void)op;
    snprintf(res->err, sizeof res->err, "not built");
    return -1;
}

static void db_close(void *st) {
    (void)st;
}

const struct workload db_workload = {
    .name = "db",
    .ops_per_cycle = 50,
    .prepare = db_prepare,
    .open = db_open,
    .run = db_run,
    .close = db_close,
};
