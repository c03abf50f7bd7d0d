/* fuzz_prepare_plan.c -- MinIO's admin info as prepare's plan reads it
 * (workloads/s3_space.c: the erasure layout and the drives' free space)
 * from an endpoint that may be anything, then the plan's arithmetic and
 * words over it (coordinator/prepare_plan.c). What it reads must be a
 * layout MinIO could have (at least one data shard, parity no more than
 * data), the totals must hang together, and the refusal stays one line. */
#include <jansson.h>
#include <math.h>

#include "../../coordinator/prepare_plan.h"
#include "../../workloads/s3_util.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    json_t *info = json_loadb((const char *)data, size, 0, NULL);
    unsigned d = 0, p = 0, n = 0;
    double fr = 0;
    if (s3_admin_space(info, &d, &p, &n, &fr) == 0) {
        if (d < 1 || p > d || n < 1 || (fr < 0 && fr != -1))
            abort();
        struct wl_plan pl = {.items = 1190,
                             .unit = "objects",
                             .bytes = 245760000,
                             .writes = 1,
                             .space_known = fr >= 0,
                             .data_shards = d,
                             .parity_shards = p,
                             .free_bytes = fr};
        struct plan_totals t;
        plan_totals(&pl, &t);
        if (!(t.need >= t.write + t.parity) || t.parity < 0 || isnan(t.need))
            abort();
        if (t.verdict == PLAN_TOO_BIG && !(t.shortfall > 0))
            abort();
        char line[1024];
        plan_refusal(line, sizeof line, "s3", &pl, &t);
        if (strchr(line, '\n'))
            abort();
        const char *names[] = {"s3"};
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            plan_print(f, names, &pl, &t, 1, fr > 0 ? fr : 0, "fuzz", 0);
            fclose(f);
        }
    }
    json_decref(info);
    return 0;
}
