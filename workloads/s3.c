/* s3.c -- placeholder until the s3 workload lands: it refuses to open, so
 * no run can count an operation it did not do. */
#include <stdio.h>

#include "workload.h"

static int s3_prepare(const struct config *cfg, char *err, size_t len) {
    (void)cfg;
    snprintf(err, len, "the s3 workload is not built yet");
    return -1;
}

static void *s3_open(const struct config *cfg, unsigned worker, char *err, size_t len) {
    (void)cfg, (void)worker;
    snprintf(err, len, "the s3 workload is not built yet");
    return NULL;
}

static int s3_run(void *st, unsigned cycle, unsigned op, struct op_result *res) {
    (void)st, (void)cycle, (void)op;
    snprintf(res->err, sizeof res->err, "not built");
    return -1;
}

static void s3_close(void *st) {
    (void)st;
}

const struct workload s3_workload = {
    .name = "s3",
    .ops_per_cycle = 1190,
    .prepare = s3_prepare,
    .open = s3_open,
    .run = s3_run,
    .close = s3_close,
};
