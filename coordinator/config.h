/* config.h -- the run's configuration, filled once by the option parser.
 *
 * One struct that every module reads and none writes after parsing: the
 * coordinator, the workloads, telemetry and the reports all take a
 * `const struct config *`. Secrets (S3 keys, the MariaDB password) live here
 * too, loaded from the environment or the credentials file, never from argv;
 * the result writer skips them. */
#ifndef AOPS_CONFIG_H
#define AOPS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define AOPS_MAX_SWEEP 16

enum profile { PROFILE_FULL = 0, PROFILE_SMALL, PROFILE_TINY };
enum schedule { SCHED_PHASED = 0, SCHED_INTERLEAVED };
enum dataset { DATASET_PER_WORKER = 0, DATASET_SHARED };

struct config {
    /* The run. containers[] holds one entry, or several for a sweep. */
    unsigned containers[AOPS_MAX_SWEEP];
    unsigned ncontainers; /* entries in containers[] */
    unsigned n;           /* containers of the point being run now */
    enum profile profile;
    unsigned cycles;
    uint64_t memory_limit; /* bytes; 0 with no_cgroups */
    double cpus_per_container; /* 0: no CPU limit */
    uint64_t seed;
    enum schedule schedule;
    char workloads[128]; /* comma list, default "s3,db,search" */
    char out[4096];      /* run directory */
    int quiet;
    int no_cgroups;
    int force;
    double stall_timeout;   /* seconds */
    double sample_interval; /* seconds */
    double op_timeout;      /* seconds, per operation */
    char sysroot[1024];     /* root for telemetry readers, "/" by default */
    char csv_dir[4096];     /* --csv DIR, empty when not asked */
    char cmdline[8192];     /* argv joined, for the result (no secrets are on argv) */
    char harness_dir[4096]; /* directory holding the harness executable */

    /* S3 */
    char s3_endpoint[512];
    char s3_region[64];
    char bucket[128];
    enum dataset dataset;
    int s3_insecure;
    char s3_access_key[256]; /* secret: never printed nor written */
    char s3_secret_key[256]; /* secret */

    /* MariaDB */
    char db_host[256];
    unsigned db_port;
    char db_socket[1024];
    char db_user[128];
    char db_name[128];
    char db_password[256]; /* secret */
    int db_tls;

    /* Search */
    char corpus_dir[4096];
    char patterns_file[4096];
};

/* Divisor that scales object and data sizes for a profile: 1, 64, 1024. */
unsigned profile_divisor(enum profile p);
const char *profile_name(enum profile p);
const char *schedule_name(enum schedule s);

#endif
