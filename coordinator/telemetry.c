/* telemetry.c -- placeholder sampler until the telemetry module lands: it
 * measures nothing and says so (null, never a made-up zero). */
#include <stdlib.h>

#include "telemetry.h"

struct telemetry {
    int unused;
};

struct telemetry *telemetry_new(const struct config *cfg) {
    (void)cfg;
    return calloc(1, sizeof(struct telemetry));
}

void telemetry_begin(struct telemetry *t, int64_t t0_ns) {
    (void)t, (void)t0_ns;
}

void telemetry_sample(struct telemetry *t, int64_t now_ns) {
    (void)t, (void)now_ns;
}

json_t *telemetry_json(const struct telemetry *t) {
    (void)t;
    return json_pack("{s:n, s:n, s:n, s:n, s:s, s:[]}", "cpu_util", "read_Bps", "read_iops",
                     "power", "power_unavailable_reason", "telemetry not built yet", "series");
}

json_t *telemetry_window_json(const struct telemetry *t, double start, double end) {
    (void)t, (void)start, (void)end;
    return json_pack("{s:n, s:n, s:n}", "cpu_util", "read_Bps", "read_iops");
}

double telemetry_mean_power(const struct telemetry *t) {
    (void)t;
    return -1;
}

void telemetry_free(struct telemetry *t) {
    free(t);
}

json_t *inventory_json(const struct config *cfg, json_t *warnings) {
    (void)cfg, (void)warnings;
    return json_object();
}
