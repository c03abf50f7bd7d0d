/* report_served.c -- byte rates per interval from the telemetry series (see
 * report_served.h). */
#include "report_served.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/workload.h"
#include "report_html.h"

void served_series(const json_t *series, size_t npoints, double scale, struct served *s) {
    memset(s, 0, sizeof *s);
    const json_t *first = json_object_get(json_array_get(series, 0), "workloads");
    if (!npoints || !json_is_object(first))
        return;
    s->y = calloc(SERVED_MAX * npoints, sizeof *s->y);
    if (!s->y)
        return;
    const char *WL[SERVED_MAX];
    size_t nw = workload_keys(first, WL, SERVED_MAX);
    for (size_t w = 0; w < nw; w++) {
        const struct workload *d = workload_find(WL[w]);
        for (unsigned c = 0; d && c < d->ncounters && s->n < SERVED_MAX; c++) {
            if (d->counters[c].unit != WL_BYTES)
                continue;
            char key[128];
            snprintf(key, sizeof key, "%s_per_s", d->counters[c].key);
            double *y = s->y + s->n * npoints;
            size_t finite = 0;
            for (size_t i = 0; i < npoints; i++) {
                const json_t *p =
                    json_object_get(json_object_get(json_array_get(series, i), "workloads"), WL[w]);
                y[i] = jnum(p, key) * scale;
                finite += isfinite(y[i]) != 0;
            }
            if (!finite)
                continue;
            snprintf(s->name[s->n++], SERVED_NAME, "%s %s", WL[w], d->counters[c].title);
        }
    }
}

void served_free(struct served *s) {
    free(s->y);
    s->y = NULL;
    s->n = 0;
}
