/* config.h -- the harness's own settings for one command, filled once by the
 * option parser and read by every module after that.
 *
 * This is the part every workload and the coordinator share (profile,
 * containers, seed, timeouts...). What a workload alone needs -- the S3
 * endpoint, the MariaDB host, the corpus directory -- lives in that
 * workload's own settings struct, which its option rows fill and which
 * cfg->wl_opts holds by registry index (see workloads/workload.h). Secrets
 * live there too, loaded from the environment or the credentials file,
 * never from argv; nothing writes them to output or results. */
#ifndef AOPS_CONFIG_H
#define AOPS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "pacing.h"

#define AOPS_MAX_SWEEP 16
#define CONFIG_MAX_WL 16 /* workloads in the registry, test ones included */

#define AOPS_MAX_SERVER_OVERRIDES 8

/* --server-cgroup NAME=PATH / --server-pid NAME=PID: where to read the CPU
 * time of a server the harness did not start (NAME: a workload's
 * server_name, "minio", "mariadb"). */
struct server_override {
    char name[32];
    char cgroup[1024]; /* a cgroup directory, or a path as /proc/PID/cgroup prints it */
    int pid;           /* 0 unless --server-pid */
};

enum profile { PROFILE_FULL = 0, PROFILE_SMALL, PROFILE_TINY };
enum schedule { SCHED_PHASED = 0, SCHED_INTERLEAVED };
enum runtime_kind { RUNTIME_CGROUP = 0, RUNTIME_DOCKER };
enum cache_policy { CACHE_ASIS = 0, CACHE_COLD };

enum bmc_auth { BMC_AUTH_AUTO = 0, BMC_AUTH_SESSION, BMC_AUTH_BASIC };

/* Power at the wall (telemetry/power.h): the BMC --bmc names and how to
 * reach it. The credentials come from the environment (BMC_USERNAME,
 * BMC_PASSWORD) or the credentials file, the password never from argv. */
struct power_opts {
    char bmc[1024];         /* ipmi://HOST[:PORT] or https://HOST[:PORT][/redfish/v1/Chassis/ID] */
    char bmc_user[256];     /* BMC_USERNAME */
    char bmc_password[256]; /* BMC_PASSWORD (secret) */
    char bmc_cacert[1024];  /* a CA file the BMC's certificate is checked against */
    int bmc_insecure;       /* no TLS certificate check (recorded in the result) */
    int bmc_auth;           /* enum bmc_auth */
    int bmc_privilege;      /* IPMI session: 0 user, 1 operator, 2 administrator */
    double bmc_interval;    /* seconds between two readings of a BMC */
};

/* --placement (placement/placement.h): none, or whole cores packed, spread
 * over L3 domains, or spread over NUMA nodes with their memory. */
enum placement_kind { PLACE_NONE = 0, PLACE_CORES, PLACE_L3, PLACE_NUMA };

struct config {
    /* The run. containers[] holds one entry, or several for a sweep. */
    unsigned containers[AOPS_MAX_SWEEP];
    unsigned ncontainers; /* entries in containers[] */
    unsigned n;           /* containers of the point being run now */
    enum profile profile;
    unsigned cycles;
    uint64_t memory_limit;     /* bytes, per worker; not enforced with no_cgroups */
    double cpus_per_container; /* 0: no CPU limit; with a placement: whole cores each */
    enum placement_kind placement;
    char server_cpus[1024]; /* --server-cpus LIST: the local stack's servers' CPUs, "" none */
    uint64_t seed;
    enum schedule schedule;
    int phase_barrier;       /* every worker ends a phase before any starts the next */
    enum cache_policy cache; /* cold: page cache dropped, servers restarted, before the start */
    char workloads[128];     /* --workloads as given: a comma list of registry names */
    unsigned wl_mask;        /* the same, resolved once: bit i = registry entry i runs */
    char out[4096];          /* run directory */
    int quiet;
    int no_cgroups;
    int force;
    int no_space_check; /* prepare: write even when the plan says it will not fit */
    /* "./harness prepare <this run's options>": what a "not prepared" line
     * tells a person to run (coordinator/cmdline.c fills it). */
    char prepare_hint[1024];
    double stall_timeout;   /* seconds */
    double sample_interval; /* seconds */
    double op_timeout;      /* seconds, per operation */
    unsigned repeat;        /* --repeat K: the same job K times; the headline is the median run */
    unsigned repeat_index;  /* the run being made now, 1..repeat; 0 when not repeating */
    unsigned warmup_cycles; /* cycles each worker runs before the start, not counted */
    double max_cv;          /* percent: with K >= 3 runs, a larger AOPS CV warns "unstable" */
    int no_verify;          /* --no-verify: answers not checked (bench on/off; never reportable) */
    char sign_key[4096];    /* --sign KEY.pem: Ed25519 private key for the result's envelope */
    char sysroot[1024];     /* root for telemetry readers, "/" by default */
    char csv_dir[4096];     /* --csv DIR, empty when not asked */
    char cmdline[8192];     /* argv joined, for the result (no secrets are on argv) */
    char harness_dir[4096]; /* the repository: the directory holding the harness */
    struct server_override server_over[AOPS_MAX_SERVER_OVERRIDES];
    unsigned nserver_over;

    /* One host's share of a run over several (placement/shard.h). */
    unsigned shard, shards; /* --shard I/N; shards is 0 without it */
    double start_at;        /* --start-at, epoch seconds; 0: release when ready */
    char results_url[1024]; /* --results-url s3://BUCKET/PREFIX/ */
    unsigned peers;         /* --peers: names of --rendezvous to wait for */
    char rendezvous[256];   /* --rendezvous NAME-{i}.SUBDOMAIN */
    /* What a worker runs in (runtime/runtime.h). */
    enum runtime_kind runtime;
    char image[256];             /* docker: the harness image */
    char docker_host[512];       /* docker: the engine's socket */
    char container_network[128]; /* docker: host, bridge or a compose network */
    unsigned engine_connections; /* docker: containers created and started at once */
    unsigned prepare_jobs;       /* prepare: upload threads (0: min(CPUs, 32)) */
    struct power_opts power;     /* --bmc and its settings */

    /* --metrics-listen: the live endpoint for Prometheus (metrics/metrics.h). */
    char metrics_listen[256]; /* ADDR:PORT, "" when off */
    double metrics_linger;    /* seconds it stays up after the run */
    /* The drives' own baseline (telemetry/baseline.h): `harness baseline`,
     * `prepare --baseline`; a run reads the file to state its read
     * throughput as a share of it. */
    int baseline;             /* prepare: measure the baseline too */
    char baseline_file[4096]; /* "": <stack dir>/storage_baseline.json */
    uint64_t baseline_size;   /* bytes of the scratch file per drive */
    double baseline_seconds;  /* per fio job */

    /* Paced agents (issue 38, common/pacing.h): closed loop by default. */
    enum arrival arrival;       /* --arrival closed|poisson|fixed */
    double agent_rate;          /* --agent-rate: operations per second per worker */
    unsigned agent_concurrency; /* --agent-concurrency: in-flight operations per worker */
    struct think_time think;    /* --think-time: a closed loop's pause after each completion */

    /* The command line as parsed (argv[argv_first..argc) are the options):
     * the docker runtime hands it to each worker container. */
    int argc, argv_first;
    char **argv;

    /* --slo: the latency bounds the result is judged against (result/slo.h
     * parses them; "default" for its default set). */
    char slo[1024];

    void *wl_opts[CONFIG_MAX_WL]; /* each workload's settings, by registry index */
};

/* The option rows of struct config (--containers, --profile, ...). */
extern const struct opt_row config_rows[];
extern const size_t config_nrows;

/* Zero cfg, find the repository from /proc/self/exe (the harness, or a test
 * or bench binary under build/), apply config_rows' defaults. */
void config_base_defaults(struct config *cfg);

/* The credentials file: $AOPS_CREDENTIALS, else $AOPS_STACK_DIR/credentials
 * (where scripts/stack writes them), else <repository>/.local/stack/
 * credentials. *must_exist: named by the environment, so a missing one is
 * an error (the default one may be absent: no local stack). */
void config_credentials_path(const struct config *cfg, char *out, size_t len, int *must_exist);

/* What a "not prepared" line tells a person to run: "./harness prepare"
 * with the run's own options (cfg->prepare_hint, from its command line);
 * without a command line (tests, benchmarks), "./harness prepare" and
 * `fallback`'s options, written into buf. */
const char *config_prepare_hint(const struct config *cfg, char *buf, size_t len,
                                const char *fallback);

/* Divisor that scales object and data sizes for a profile: 1, 64, 1024. */
unsigned profile_divisor(enum profile p);
unsigned config_prepare_jobs(const struct config *cfg);
const char *profile_name(enum profile p);
const char *schedule_name(enum schedule s);

#endif
