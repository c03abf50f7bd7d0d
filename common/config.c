/* config.c -- struct config's option rows and defaults (see config.h). The
 * rows carry each option's default and allowed values; the help text is
 * made from them, so nothing here is typed twice. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "walltime.h"

#define MAX_CONTAINERS 65536

const char *config_prepare_hint(const struct config *cfg, char *buf, size_t len,
                                const char *fallback) {
    if (cfg->prepare_hint[0])
        return cfg->prepare_hint;
    snprintf(buf, len, "./harness prepare%s%s", fallback && *fallback ? " " : "",
             fallback ? fallback : "");
    return buf;
}

/* prepare's threads (S3 uploads, MariaDB connections): --prepare-jobs, or
 * min(CPUs, 32) when it is 0. */
unsigned config_prepare_jobs(const struct config *cfg) {
    if (cfg->prepare_jobs)
        return cfg->prepare_jobs;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus > 32 ? 32 : (unsigned)cpus;
}

unsigned profile_divisor(enum profile p) {
    return p == PROFILE_FULL ? 1 : p == PROFILE_SMALL ? 64 : 1024;
}

const char *profile_name(enum profile p) {
    return p == PROFILE_FULL ? "full" : p == PROFILE_SMALL ? "small" : "tiny";
}

const char *schedule_name(enum schedule s) {
    return s == SCHED_PHASED ? "phased" : "interleaved";
}

/* "8" or a sweep "1,8,16,32". */
static int parse_containers(const struct opt_row *o, void *base, const char *v, char *err,
                            size_t errlen) {
    (void)o;
    struct config *cfg = base;
    unsigned n = 0, vals[AOPS_MAX_SWEEP];
    const char *p = v;
    while (*p) {
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)*p))
            goto bad;
        unsigned long x = strtoul(p, &end, 10);
        if (errno || x < 1 || x > MAX_CONTAINERS || n == AOPS_MAX_SWEEP)
            goto bad;
        vals[n++] = (unsigned)x;
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            goto bad;
        p = end;
    }
    if (n == 0)
        goto bad;
    memcpy(cfg->containers, vals, n * sizeof vals[0]);
    cfg->ncontainers = n;
    cfg->n = cfg->containers[0];
    return 0;
bad:
    snprintf(err, errlen,
             "--containers '%s': expected a whole number from 1 to %d, or up to %d of them "
             "separated by commas",
             v, MAX_CONTAINERS, AOPS_MAX_SWEEP);
    return -1;
}

/* NAME=VALUE of --server-cgroup and --server-pid; a name given twice takes
 * the last value of each option. */
static int parse_server(const struct opt_row *o, void *base, const char *v, char *err,
                        size_t errlen) {
    struct config *cfg = base;
    const char *eq = strchr(v, '=');
    size_t nl = eq ? (size_t)(eq - v) : 0;
    int is_pid = !strcmp(o->name, "server-pid");
    int ok = eq && nl > 0 && nl < sizeof cfg->server_over[0].name && eq[1];
    for (size_t i = 0; ok && i < nl; i++)
        ok = isalnum((unsigned char)v[i]) || v[i] == '-' || v[i] == '_';
    char *end = NULL;
    long pid = 0;
    if (ok && is_pid) {
        errno = 0;
        pid = strtol(eq + 1, &end, 10);
        ok = !errno && *end == 0 && pid > 0 && pid <= 0x7fffffff;
    } else if (ok)
        ok = strlen(eq + 1) < sizeof cfg->server_over[0].cgroup;
    if (!ok) {
        snprintf(err, errlen, "--%s '%s': expected NAME=%s, NAME a server such as minio or mariadb",
                 o->name, v,
                 is_pid ? "PID with a positive process id" : "PATH with a cgroup directory");
        return -1;
    }
    struct server_override *s = NULL;
    for (unsigned i = 0; i < cfg->nserver_over && !s; i++)
        if (strlen(cfg->server_over[i].name) == nl && !strncmp(cfg->server_over[i].name, v, nl))
            s = &cfg->server_over[i];
    if (!s) {
        if (cfg->nserver_over == AOPS_MAX_SERVER_OVERRIDES) {
            snprintf(err, errlen, "--%s: at most %d servers", o->name, AOPS_MAX_SERVER_OVERRIDES);
            return -1;
        }
        s = &cfg->server_over[cfg->nserver_over++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%.*s", (int)nl, v);
    }
    if (is_pid)
        s->pid = (int)pid;
    else
        snprintf(s->cgroup, sizeof s->cgroup, "%s", eq + 1);
    return 0;
}

/* "I/N": this host runs share I (from 0) of N. */
static int parse_shard(const struct opt_row *o, void *base, const char *v, char *err,
                       size_t errlen) {
    (void)o;
    struct config *cfg = base;
    unsigned i, n;
    char tail;
    if (sscanf(v, "%u/%u%c", &i, &n, &tail) != 2 || !isdigit((unsigned char)*v) || n < 1 ||
        n > MAX_CONTAINERS || i >= n) {
        snprintf(err, errlen,
                 "--shard '%s': expected I/N, this host's index from 0 to N-1 and the number of "
                 "hosts (0/3, 1/3, 2/3)",
                 v);
        return -1;
    }
    cfg->shard = i;
    cfg->shards = n;
    return 0;
}

/* RFC 3339 or epoch seconds; a time before 2001 is a mistake (a duration?). */
static int parse_start_at(const struct opt_row *o, void *base, const char *v, char *err,
                          size_t errlen) {
    (void)o;
    double t;
    if (wall_parse(v, &t) != 0 || t < 1e9) {
        snprintf(err, errlen,
                 "--start-at '%s': expected a time, RFC 3339 (2026-12-01T10:00:00Z) or epoch "
                 "seconds (date +%%s)",
                 v);
        return -1;
    }
    ((struct config *)base)->start_at = t;
    return 0;
}

/* --bmc: a scheme the power sources read, and a host. */
static int parse_bmc(const struct opt_row *o, void *base, const char *v, char *err, size_t errlen) {
    (void)o;
    struct config *cfg = base;
    static const char *const schemes[] = {"ipmi://", "https://", "http://"};
    size_t k = 0;
    while (k < 3 && strncmp(v, schemes[k], strlen(schemes[k])))
        k++;
    const char *host = k < 3 ? v + strlen(schemes[k]) : "";
    if (k == 3 || !*host || *host == '/' || *host == ':' || strlen(v) >= sizeof cfg->power.bmc) {
        snprintf(err, errlen,
                 "--bmc '%s': expected ipmi://HOST[:PORT] (IPMI DCMI over RMCP+) or "
                 "https://HOST[:PORT][/redfish/v1/Chassis/ID] (Redfish)",
                 v);
        return -1;
    }
    snprintf(cfg->power.bmc, sizeof cfg->power.bmc, "%s", v);
    return 0;
}

/* --think-time DIST (pacing.h). */
static int parse_think(const struct opt_row *o, void *base, const char *v, char *err,
                       size_t errlen) {
    (void)o;
    return think_parse(v, &((struct config *)base)->think, err, errlen);
}

#define F(field) offsetof(struct config, field), sizeof(((struct config *)0)->field)

const struct opt_row config_rows[] = {
    {"containers", OPT_CUSTOM, 0, 0, 1, MAX_CONTAINERS, "1", NULL, NULL, 0, parse_containers,
     "workers, or a sweep N1,N2,..."},
    {"profile", OPT_CHOICE, F(profile), 0, 0, "full", "full|small|tiny", NULL, 0, NULL,
     "data sizes and corpus"},
    {"cycles", OPT_UINT, F(cycles), 1, 1000000, "1", NULL, NULL, 0, NULL,
     "cycles of the workloads' operations per worker"},
    /* Below 64M a worker cannot hold its buffers, connections and JIT stacks. */
    {"memory-limit", OPT_SIZE, F(memory_limit), 64ULL << 20, 1e18, "4G", NULL, NULL, 0, NULL,
     "per-container memory limit (at least 64M)"},
    {"cpus-per-container", OPT_DOUBLE, F(cpus_per_container), 0.01, 4096, NULL, NULL, NULL, 0, NULL,
     "per-container CPU limit (none); with --placement, whole cores per container (an equal "
     "share)"},
    {"placement", OPT_CHOICE, F(placement), 0, 0, "none", "none|cores|l3|numa", NULL, 0, NULL,
     "give each container whole cores of its own: packed (cores), spread over L3 domains (l3) or "
     "over NUMA nodes with their memory (numa)"},
    {"server-cpus", OPT_STR, F(server_cpus), 0, 0, NULL, NULL, NULL, 0, NULL,
     "pin the local stack's servers (MinIO, MariaDB) to these CPUs, e.g. 0-3; workers never get "
     "their cores"},
    {"seed", OPT_U64, F(seed), 0, 0, "1", NULL, NULL, 0, NULL, "seed for schedules and data"},
    {"schedule", OPT_CHOICE, F(schedule), 0, 0, "phased", "phased|interleaved", NULL, 0, NULL,
     "each worker's workloads one after the other, or shuffled together"},
    {"phase-barrier", OPT_FLAG, F(phase_barrier), 0, 0, NULL, NULL, NULL, 0, NULL,
     "phased: every worker ends a phase before any starts the next (clean windows; AOPS "
     "includes the waits)"},
    {"cache", OPT_CHOICE, F(cache), 0, 0, "asis", "asis|cold", NULL, 0, NULL,
     "cold: drop the page cache and restart a local MariaDB before the start (needs root)"},
    {"workloads", OPT_STR, F(workloads), 0, 0, NULL, NULL, NULL, 0, NULL,
     "comma list of workloads to run (all real ones)"},
    {"out", OPT_STR, F(out), 0, 0, NULL, NULL, NULL, 0, NULL,
     "run directory (results/<timestamp>, made unique)"},
    {"quiet", OPT_FLAG, F(quiet), 0, 0, NULL, NULL, NULL, 0, NULL, "no progress line"},
    {"no-cgroups", OPT_FLAG, F(no_cgroups), 0, 0, NULL, NULL, NULL, 0, NULL,
     "run workers without cgroups (recorded in the result)"},
    {"force", OPT_FLAG, F(force), 0, 0, NULL, NULL, NULL, 0, NULL,
     "prepare: rebuild data that is already there; run: replace a result in --out"},
    {"no-space-check", OPT_FLAG, F(no_space_check), 0, 0, NULL, NULL, NULL, 0, NULL,
     "prepare: write even when the data will not fit the drives' free space (recorded)"},
    {"stall-timeout", OPT_DOUBLE, F(stall_timeout), 0.1, 86400, "30", NULL, NULL, 0, NULL,
     "seconds without progress before a run is stopped"},
    {"sample-interval", OPT_DOUBLE, F(sample_interval), 0.05, 3600, "1", NULL, NULL, 0, NULL,
     "telemetry interval, seconds"},
    {"op-timeout", OPT_DOUBLE, F(op_timeout), 0.01, 86400, "120", NULL, NULL, 0, NULL,
     "seconds one operation (a GET, a query, a search) may take; past it, an error"},
    {"repeat", OPT_UINT, F(repeat), 1, 1000, "1", NULL, NULL, 0, NULL,
     "run the same job K times; the headline is the median run's (never the best)"},
    {"warmup-cycles", OPT_UINT, F(warmup_cycles), 0, 1000000, "0", NULL, NULL, 0, NULL,
     "cycles each worker runs before the start, not counted (warms caches)"},
    {"max-cv", OPT_DOUBLE, F(max_cv), 0, 1000, "5", NULL, NULL, 0, NULL,
     "with --repeat 3 or more: AOPS CV in percent above which the result is called unstable"},
    {"no-verify", OPT_FLAG, F(no_verify), 0, 0, NULL, NULL, NULL, 0, NULL,
     "do not check the answers (S3 checksums, query results, search counts): never reportable"},
    {"sign", OPT_STR, F(sign_key), 0, 0, NULL, NULL, NULL, 0, NULL,
     "sign result.json with this Ed25519 private key (PEM): a DSSE envelope beside it"},
    {"sysroot", OPT_STR, F(sysroot), 0, 0, "/", NULL, NULL, 0, NULL,
     "root for the /proc and /sys readers"},
    {"csv", OPT_STR, F(csv_dir), 0, 0, NULL, NULL, NULL, 0, NULL, "also export CSV files into DIR"},
    {"server-cgroup", OPT_CUSTOM, 0, 0, 0, 0, NULL, NULL, NULL, 0, parse_server,
     "NAME=PATH: read server NAME's CPU time from this cgroup (else the local stack's)"},
    {"server-pid", OPT_CUSTOM, 0, 0, 0, 0, NULL, NULL, NULL, 0, parse_server,
     "NAME=PID: read server NAME's CPU time from this process tree"},
    {"shard", OPT_CUSTOM, 0, 0, 0, 0, NULL, NULL, NULL, 0, parse_shard,
     "run share I/N of a run over N hosts (worker ids from I x --containers)"},
    {"start-at", OPT_CUSTOM, 0, 0, 0, 0, NULL, NULL, NULL, 0, parse_start_at,
     "release the workers at this wall-clock time (RFC 3339 or epoch seconds)"},
    {"results-url", OPT_STR, F(results_url), 0, 0, NULL, NULL, NULL, 0, NULL,
     "also put result.json under s3://BUCKET/PREFIX/"},
    {"peers", OPT_UINT, F(peers), 1, MAX_CONTAINERS, NULL, NULL, NULL, 0, NULL,
     "how many --rendezvous names must resolve (the shard count)"},
    {"rendezvous", OPT_STR, F(rendezvous), 0, 0, NULL, NULL, NULL, 0, NULL,
     "DNS names of the shards, {i} for the index: wait until all resolve"},
    {"metrics-listen", OPT_STR, F(metrics_listen), 0, 0, NULL, NULL, "AOPS_METRICS_LISTEN", 0, NULL,
     "ADDR:PORT: serve live figures for Prometheus at /metrics during the run (off)"},
    {"metrics-linger", OPT_DOUBLE, F(metrics_linger), 0, 3600, "5", NULL, "AOPS_METRICS_LINGER", 0,
     NULL, "seconds /metrics stays up after the run, for the last scrape"},
    {"runtime", OPT_CHOICE, F(runtime), 0, 0, "cgroup", "cgroup|docker", NULL, 0, NULL,
     "workers as forked processes in cgroups, or as containers through the Docker Engine API"},
    {"image", OPT_STR, F(image), 0, 0, "aops-harness:local", NULL, NULL, 0, NULL,
     "docker runtime: the image workers run in (scripts/docker images builds it)"},
    {"docker-host", OPT_STR, F(docker_host), 0, 0, "/var/run/docker.sock", NULL, "DOCKER_HOST", 0,
     NULL, "docker runtime: the engine's Unix socket (or unix:///path)"},
    {"container-network", OPT_STR, F(container_network), 0, 0, "host", NULL, NULL, 0, NULL,
     "docker runtime: the workers' network (host, bridge, or a compose network's name)"},
    {"prepare-jobs", OPT_UINT, F(prepare_jobs), 0, 1024, "0", NULL, NULL, 0, NULL,
     "prepare: threads: S3 uploaders of 16 connections each, MariaDB loaders (0: min(CPUs, 32))"},
    {"engine-connections", OPT_UINT, F(engine_connections), 1, 256, "16", NULL, NULL, 0, NULL,
     "docker runtime: containers created and started at once, one engine connection each"},
    {"baseline", OPT_FLAG, F(baseline), 0, 0, NULL, NULL, NULL, 0, NULL,
     "prepare: also measure each data drive with fio (as harness baseline does)"},
    {"baseline-file", OPT_STR, F(baseline_file), 0, 0, NULL, NULL, NULL, 0, NULL,
     "where the drives' fio baseline is kept and read from (<stack dir>/storage_baseline.json)"},
    {"baseline-size", OPT_SIZE, F(baseline_size), 4ULL << 20, 1e15, "512M", NULL, NULL, 0, NULL,
     "baseline: scratch file per drive (needs twice that free)"},
    {"baseline-seconds", OPT_DOUBLE, F(baseline_seconds), 0.5, 3600, "3", NULL, NULL, 0, NULL,
     "baseline: seconds of each fio job (sequential 1 MiB, random 4 KiB reads)"},
    /* Paced agents (issue 38; common/pacing.h). */
    {"arrival", OPT_CHOICE, F(arrival), 0, 0, "closed", "closed|poisson|fixed", NULL, 0, NULL,
     "when each worker sends: back to back (closed), or at the instants of a seeded Poisson "
     "process or evenly spaced at --agent-rate, whether or not the last call returned"},
    {"agent-rate", OPT_DOUBLE, F(agent_rate), 0.001, 1e6, NULL, NULL, NULL, 0, NULL,
     "with --arrival: operations per second per worker"},
    {"agent-concurrency", OPT_UINT, F(agent_concurrency), 1, 1024, "16", NULL, NULL, 0, NULL,
     "with --arrival: operations one worker may have in flight (threads of its own)"},
    {"think-time", OPT_CUSTOM, 0, 0, 0, 0, NULL, NULL, NULL, 0, parse_think,
     "closed loop with a seeded pause after each completion: fixed:S, exp:MEAN or uniform:A-B "
     "(seconds)"},
    {"bmc", OPT_CUSTOM, 0, 0, 0, 0, NULL, NULL, NULL, 0, parse_bmc,
     "platform power from a BMC: ipmi://HOST[:PORT] (DCMI over RMCP+) or https://HOST[:PORT] "
     "(Redfish; a path names the chassis)"},
    {"bmc-user", OPT_STR, F(power.bmc_user), 0, 0, NULL, NULL, "BMC_USERNAME", 0, NULL,
     "the BMC's user name (its password comes from BMC_PASSWORD)"},
    {"bmc-password", OPT_STR, F(power.bmc_password), 0, 0, NULL, NULL, "BMC_PASSWORD", OPT_SECRET,
     NULL, "the BMC's password"},
    {"bmc-cacert", OPT_STR, F(power.bmc_cacert), 0, 0, NULL, NULL, NULL, 0, NULL,
     "Redfish: check the BMC's certificate against this CA file (else the system's CAs)"},
    {"bmc-insecure", OPT_FLAG, F(power.bmc_insecure), 0, 0, NULL, NULL, NULL, 0, NULL,
     "Redfish: do not check the BMC's certificate (recorded in the result)"},
    {"bmc-auth", OPT_CHOICE, F(power.bmc_auth), 0, 0, "auto", "auto|session|basic", NULL, 0, NULL,
     "Redfish: a session (X-Auth-Token) where the BMC offers one, else basic; or either alone"},
    {"bmc-privilege", OPT_CHOICE, F(power.bmc_privilege), 0, 0, "user", "user|operator|admin", NULL,
     0, NULL, "IPMI: the session's privilege (DCMI asks user; some BMCs want more for it)"},
    {"bmc-interval", OPT_DOUBLE, F(power.bmc_interval), 0.05, 3600, "1", NULL, NULL, 0, NULL,
     "seconds between two readings of a BMC (read on a thread of its own)"},
    /* The SLO the result is judged against (result/slo.h checks it). */
    {"slo", OPT_STR, F(slo), 0, 0, "default", NULL, NULL, 0, NULL,
     "latency bounds the result is judged against, e.g. 's3.p99<=250ms,db.p99<=50ms'; 'default' is "
     "s3.p99<=250ms,db.p99<=50ms,search.p99<=3s (README, \"Service level\")"},
};
const size_t config_nrows = sizeof config_rows / sizeof config_rows[0];

/* The repository: the directory holding the harness executable, or for the
 * ASan build and the test and bench binaries under build/ (build/arm64/asan/
 * tests/ is four levels down), the nearest directory up that holds the
 * sources. */
static void find_repository(char *out, size_t len) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(out, len, ".");
        return;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    char up[4096];
    snprintf(up, sizeof up, "%s", exe);
    for (int level = 0; level < 6; level++) {
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/cmd/main.c", up);
        if (access(probe, F_OK) == 0) {
            snprintf(exe, sizeof exe, "%s", up);
            break;
        }
        char *s = strrchr(up, '/');
        if (!s || s == up)
            break;
        *s = 0;
    }
    snprintf(out, len, "%s", exe);
}

void config_base_defaults(struct config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    find_repository(cfg->harness_dir, sizeof cfg->harness_dir);
    struct opt_set set = {"run", config_rows, config_nrows, cfg};
    char err[512];
    if (opt_defaults(&set, 1, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        abort();
    }
}

void config_credentials_path(const struct config *cfg, char *out, size_t len, int *must_exist) {
    const char *env = getenv("AOPS_CREDENTIALS");
    *must_exist = env && *env;
    /* scripts/stack writes its credentials into $AOPS_STACK_DIR: a stack moved
     * there must be the one a run finds, not the default one beside it. */
    const char *dir = getenv("AOPS_STACK_DIR");
    if (*must_exist)
        snprintf(out, len, "%s", env);
    else if (dir && *dir)
        snprintf(out, len, "%s/credentials", dir);
    else
        snprintf(out, len, "%s/.local/stack/credentials", cfg->harness_dir);
}
