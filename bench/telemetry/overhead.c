/* overhead.c -- what the sampler costs: CPU time of telemetry_sample() on the
 * real machine, reported as a share of one core at a given interval.
 *
 * Runs N samples back to back (the clock argument is advanced by the
 * interval, so the arithmetic is the same as in a run) and divides the
 * process CPU time they took by N: that times samples per second is the
 * sampler's load. Back to back is the worst case for caches, so the figure
 * is an upper bound. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "telemetry.h"
#include "workload.h"

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* overhead [REPO] [SAMPLES] [INTERVAL]: REPO is found from the binary's path. */
int main(int argc, char **argv) {
    int n = argc > 2 ? atoi(argv[2]) : 20000;
    double interval = argc > 3 ? atof(argv[3]) : 1.0;
    /* The defaults of a run (the repository the binary is in, its corpus
     * and stack directories): the sampler follows the same data paths. */
    struct config c;
    char err[256];
    if (workloads_config_init(&c, err, sizeof err) != 0) {
        fprintf(stderr, "overhead: %s\n", err);
        return 2;
    }

    struct telemetry *t = telemetry_new(&c);
    telemetry_begin(t, 0);
    /* Within the preallocated series a sample must not touch the heap. */
    size_t heap0 = mallinfo2().uordblks;
    for (int i = 1; i <= 1000; i++)
        telemetry_sample(t, (int64_t)i * 1000000);
    printf("heap growth over 1000 samples: %zu bytes\n", mallinfo2().uordblks - heap0);
    telemetry_begin(t, 0);
    double c0 = cpu_seconds();
    for (int i = 1; i <= n; i++)
        telemetry_sample(t, (int64_t)((double)i * interval * 1e9));
    double per = (cpu_seconds() - c0) / n;
    json_t *j = telemetry_json(t);
    json_t *devs = json_object_get(j, "devices");
    printf("samples: %d, devices sampled: %zu, power: %s\n", n, json_array_size(devs),
           json_is_null(json_object_get(j, "power")) ? "none" : "yes");
    printf("CPU per sample: %.1f us\n", per * 1e6);
    printf("overhead at %.3g s interval: %.4f %% of one core\n", interval,
           100.0 * per / interval);
    json_decref(j);
    telemetry_free(t);
    workloads_config_free(&c);
    return 0;
}
