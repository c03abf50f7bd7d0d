/* search.c -- placeholder until the search workload lands: it refuses to open, so
 * no run can count an operation it did not do. */
#include <stdio.h>

#include "workload.h"

static int search_prepare(const struct config *cfg, char *err, size_t len) {
    (void)cfg;
    snprintf(err, len, "the search workload is not built yet");
    return -1;
}

static void *search_open(const struct config *cfg, unsigned worker, char *err, size_t len) {
    (void)cfg, (void)worker;
    snprintf(err, len, "the search workload is not built yet");
    return NULL;
}

static int search_run(void *st, unsigned cycle, unsigned op, struct op_result *res) {
    (void)st, (void)cycle, (void)op;
    snprintf(res->err, sizeof res->err, "not built");
    return -1;
}

static void search_close(void *st) {
    (void)st;
}

const struct workload search_workload = {
    .name = "search",
    .ops_per_cycle = 100,
    .prepare = search_prepare,
    .open = search_open,
    .run = search_run,
    .close = search_close,
};
