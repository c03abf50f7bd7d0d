/* telemetry_power.h -- CPU package energy from the best source available.
 *
 * Order: powercap RAPL (intel-rapl:N "package-N", Intel and AMD on current
 * kernels), then perf's power PMU (energy-pkg), then the RAPL MSRs through
 * /dev/cpu/N/msr. Sockets are summed. When none works, src is POWER_NONE and
 * reason says why for each source: power is then null, never 0. */
#ifndef AOPS_TELEMETRY_POWER_H
#define AOPS_TELEMETRY_POWER_H

#include <stdint.h>

enum power_kind { POWER_NONE = 0, POWER_RAPL, POWER_PERF, POWER_MSR };

#define POWER_MAX_DOMAINS 64

/* How files are opened: open(2) in the harness; tests pass their own to
 * make a file fail with EACCES even when they run as root. */
typedef int (*power_open_fn)(const char *path, int flags);

struct power {
    enum power_kind src;
    int n; /* package domains */
    int fd[POWER_MAX_DOMAINS];
    uint64_t range[POWER_MAX_DOMAINS]; /* counter wraps after this many raw units */
    uint64_t last[POWER_MAX_DOMAINS];  /* previous raw reading */
    double unit_j[POWER_MAX_DOMAINS];  /* joules per raw unit */
    uint32_t msr_energy;               /* MSR address of the package energy counter */
    int have_last;
    char source[64];   /* "rapl", "perf", "msr" */
    char reason[1536]; /* why there is no power (src NONE) */
};

/* Find and open a source under sysroot. op NULL means open(2). */
void power_open(struct power *p, const char *sysroot, power_open_fn op);

/* Joules used by all packages since the previous call (the first call only
 * takes the baseline and gives 0). Returns 0, or -1 when a reading failed
 * (the interval then has no power figure). No allocation. */
int power_read(struct power *p, double *joules);

void power_close(struct power *p);

/* Raw counter difference with wraparound: a counter that counts up to
 * range inclusive and restarts at 0. RAPL's energy_uj wraps after
 * max_energy_range_uj; 0 for a wrap when the range is unknown (0). */
uint64_t counter_delta(uint64_t prev, uint64_t cur, uint64_t range);

#endif
