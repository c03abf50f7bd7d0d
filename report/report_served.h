/* report_served.h -- the bytes the workloads were served in each telemetry
 * interval (objects received from a server, file bytes read from a tree),
 * next to what the disks read: where the two differ, the data came from the
 * page cache. Read from telemetry.series[].workloads.<name>, the
 * per-interval counters the workers keep (throughput.h); the byte counters
 * are found through the workload descriptors (unit WL_BYTES), never by name. */
#ifndef AOPS_REPORT_SERVED_H
#define AOPS_REPORT_SERVED_H

#include <jansson.h>
#include <stddef.h>

#define SERVED_MAX 8
#define SERVED_NAME 96

struct served {
    size_t n;                           /* lines */
    char name[SERVED_MAX][SERVED_NAME]; /* "<workload> <counter title>" */
    double *y;                          /* y[line * npoints + i], in `scale` units; NAN: no value */
};

/* The byte rates of series (npoints points) times scale; 0 lines when the
 * series holds none. Free with served_free. */
void served_series(const json_t *series, size_t npoints, double scale, struct served *s);
void served_free(struct served *s);

#endif
