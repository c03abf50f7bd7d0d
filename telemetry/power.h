/* power.h -- power sources, one table of them as fio has its engines.
 *
 * A source measures one scope: the CPU packages (RAPL, perf's power PMU, the
 * MSRs: telemetry_power.c), a socket (hwmon drivers that say so), or the
 * platform, power at the wall (the ACPI power meter and other hwmon meters,
 * IPMI DCMI in band through /dev/ipmi0 or out of band over RMCP+, Redfish).
 * Each is a row of ops; the set (power_set.c) opens every row, reads the
 * cheap ones inline at each sample and the ones that may block (a BMC over
 * the network, the KCS interface) on a thread of their own, and reports one
 * entry per source. A source that cannot measure says why in its reason;
 * its power is then null, never 0.
 *
 * Sources never call the set or each other: the set calls them through this
 * table, and they use common/ only. */
#ifndef AOPS_POWER_H
#define AOPS_POWER_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/config.h"

enum power_scope { PSCOPE_PACKAGE = 0, PSCOPE_SOCKET, PSCOPE_PLATFORM, PSCOPE_COUNT };

/* "package", "socket", "platform". */
const char *power_scope_name(enum power_scope s);

/* What a source's open() may use. */
struct power_env {
    const char *sysroot;                         /* "/" or a fixture tree */
    const struct power_opts *opts;               /* --bmc and its settings */
    double sample_interval;                      /* seconds */
    int (*open_fn)(const char *path, int flags); /* open(2), or a test's */
    /* ioctl(2) on what open_fn opened, or a test's (NULL: ioctl(2)): how a
     * test plays the kernel's IPMI driver, late answers and all, without
     * /dev/ipmi0. */
    int (*ioctl_fn)(int fd, unsigned long req, void *arg);
};

/* One source: its row, its state, and what it says about itself. Filled by
 * open(); read() runs on one thread at a time (the sampler's or the
 * source's own). */
struct power_src {
    const struct power_src_ops *ops;
    enum power_scope scope;
    char name[32];     /* "rapl", "hwmon", "ipmi", "redfish", ... as in the result */
    char reason[1024]; /* why it measures nothing: "" when it works */
    int asked;         /* named by the user (--bmc): a failure is said at start */
    /* The device's own averaging or update interval where it states one
     * (hwmon power*_average_interval, Redfish PowerMetrics.IntervalInMin,
     * a Sensor's SensingInterval); NAN when it does not. */
    double device_interval_s;
    char device_interval_from[128]; /* which property said so */
    json_t *detail;                 /* source-specific facts for the result, or NULL */
    atomic_int cancel;              /* set when the run ends: a blocked read gives up */
    void *priv;
};

struct power_src_ops {
    const char *name;
    /* A read may block (network, a BMC's KCS interface): it then runs on a
     * thread of its own every --bmc-interval, never in the sampling loop. */
    int polled;
    /* Find the device and take a first reading. 0: it works; -1: it is there
     * but cannot measure (reason set); 1: nothing of the kind on this machine
     * and nothing asked for (no entry in the result). */
    int (*open)(struct power_src *s, const struct power_env *env);
    /* Watts now. dt: seconds since the previous read (energy counters divide
     * by it; the first read after open takes their baseline and may return
     * 1: no figure yet). 0 on success, -1 with err set. No allocation. */
    int (*read)(struct power_src *s, double dt, double *watts, char *err, size_t errlen);
    /* Give back what open took (sessions, fds). Safe after a failed open. */
    void (*close)(struct power_src *s);
};

/* The rows, in order of preference within a scope (power_set.c lists them). */
extern const struct power_src_ops power_src_package; /* telemetry_power.c */
extern const struct power_src_ops power_src_hwmon_platform, power_src_hwmon_socket;
extern const struct power_src_ops power_src_ipmi, power_src_ipmi_lan; /* power_ipmi.c */
extern const struct power_src_ops power_src_redfish;                  /* power_redfish.c */

#endif
