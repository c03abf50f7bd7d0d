/* options.c -- the command line as one table, as fio does it.
 *
 * Each row names an option, how its value is parsed and where it lands in
 * struct config. Parsing, defaults and the credentials file live here so that
 * no other module touches argv or the environment. Errors are one line that
 * says what was wrong and what is accepted. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../workloads/workload.h"
#include "options.h"

/* Below this a worker cannot hold its buffers, connections and JIT stacks. */
#define MIN_MEMORY_LIMIT (64ULL << 20)
#define MAX_CONTAINERS 65536

unsigned profile_divisor(enum profile p) {
    return p == PROFILE_FULL ? 1 : p == PROFILE_SMALL ? 64 : 1024;
}

const char *profile_name(enum profile p) {
    return p == PROFILE_FULL ? "full" : p == PROFILE_SMALL ? "small" : "tiny";
}

const char *schedule_name(enum schedule s) {
    return s == SCHED_PHASED ? "phased" : "interleaved";
}

enum opt_type { O_FLAG, O_UINT, O_U64, O_DOUBLE, O_STR, O_SPECIAL };

struct option_row {
    const char *name;
    enum opt_type type;
    size_t off;  /* offsetof in struct config */
    size_t size; /* for O_STR: buffer size */
    double min, max;
    const char *help;
};

#define F(field) offsetof(struct config, field), sizeof(((struct config *)0)->field)

static const struct option_row option_table[] = {
    {"containers", O_SPECIAL, 0, 0, 1, MAX_CONTAINERS, "N or a sweep N1,N2,... (workers)"},
    {"profile", O_SPECIAL, 0, 0, 0, 0, "full|small|tiny (default full)"},
    {"cycles", O_UINT, F(cycles), 1, 1000000, "cycles of 1,340 operations per worker (1)"},
    {"memory-limit", O_SPECIAL, 0, 0, 0, 0, "per-container memory limit (4G)"},
    {"cpus-per-container", O_DOUBLE, F(cpus_per_container), 0.01, 4096, "CPU limit (none)"},
    {"seed", O_U64, F(seed), 0, 0, "seed for schedules and data (1)"},
    {"schedule", O_SPECIAL, 0, 0, 0, 0, "phased|interleaved (phased)"},
    {"workloads", O_STR, F(workloads), 0, 0, "comma list of s3,db,search (all three)"},
    {"out", O_STR, F(out), 0, 0, "run directory (results/<timestamp>)"},
    {"quiet", O_FLAG, F(quiet), 0, 0, "no progress line"},
    {"no-cgroups", O_FLAG, F(no_cgroups), 0, 0, "run workers without cgroups (recorded)"},
    {"force", O_FLAG, F(force), 0, 0, "prepare: rebuild data that is already there"},
    {"stall-timeout", O_DOUBLE, F(stall_timeout), 0.1, 86400, "seconds without progress (30)"},
    {"sample-interval", O_DOUBLE, F(sample_interval), 0.05, 3600, "telemetry interval (1)"},
    {"op-timeout", O_DOUBLE, F(op_timeout), 0.01, 86400, "seconds per operation (120)"},
    {"sysroot", O_STR, F(sysroot), 0, 0, "root for /proc and /sys readers (/)"},
    {"csv", O_STR, F(csv_dir), 0, 0, "also export CSV files into DIR"},
    {"s3-endpoint", O_STR, F(s3_endpoint), 0, 0, "S3 endpoint URL"},
    {"s3-region", O_STR, F(s3_region), 0, 0, "S3 region for signing (us-east-1)"},
    {"bucket", O_STR, F(bucket), 0, 0, "S3 bucket (aops)"},
    {"dataset", O_SPECIAL, 0, 0, 0, 0, "per-worker|shared object sets (per-worker)"},
    {"s3-insecure", O_FLAG, F(s3_insecure), 0, 0, "do not verify TLS certificates"},
    {"db-host", O_STR, F(db_host), 0, 0, "MariaDB host (127.0.0.1)"},
    {"db-port", O_UINT, F(db_port), 1, 65535, "MariaDB port (3307)"},
    {"db-socket", O_STR, F(db_socket), 0, 0, "MariaDB socket (overrides host/port)"},
    {"db-user", O_STR, F(db_user), 0, 0, "MariaDB user (harness)"},
    {"db-name", O_STR, F(db_name), 0, 0, "MariaDB database (aops)"},
    {"db-tls", O_FLAG, F(db_tls), 0, 0, "connect to MariaDB over TLS"},
    {"corpus", O_STR, F(corpus_dir), 0, 0, "corpus directory (corpus/data)"},
    {"patterns", O_STR, F(patterns_file), 0, 0, "search patterns file (corpus/patterns)"},
};

#define NOPTIONS (sizeof option_table / sizeof option_table[0])

void options_usage(FILE *f) {
    fprintf(f, "usage: harness [run] --containers N [options]\n"
               "       harness prepare --containers N [options]\n"
               "       harness corpus fetch [--profile P] [--dir DIR]\n"
               "       harness search [--count|--files-with-matches] PATTERN PATH...\n"
               "       harness report RUN_DIR [-o FILE.html]\n"
               "       harness compare RUN_DIR_A RUN_DIR_B [...]\n\noptions:\n");
    for (size_t i = 0; i < NOPTIONS; i++)
        fprintf(f, "  --%-20s %s\n", option_table[i].name, option_table[i].help);
    fprintf(f, "\nSecrets come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,\n"
               "MARIADB_PASSWORD) or .local/stack/credentials, never from the command line.\n");
}

static void copy(char *dst, size_t size, const char *src) {
    snprintf(dst, size, "%s", src);
}

void config_defaults(struct config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->containers[0] = 1;
    cfg->ncontainers = 1;
    cfg->n = 1;
    cfg->profile = PROFILE_FULL;
    cfg->cycles = 1;
    cfg->memory_limit = 4ULL << 30;
    cfg->seed = 1;
    cfg->schedule = SCHED_PHASED;
    copy(cfg->workloads, sizeof cfg->workloads, "s3,db,search");
    cfg->stall_timeout = 30;
    cfg->sample_interval = 1;
    cfg->op_timeout = 120;
    copy(cfg->sysroot, sizeof cfg->sysroot, "/");
    copy(cfg->s3_endpoint, sizeof cfg->s3_endpoint, "http://127.0.0.1:9000");
    copy(cfg->s3_region, sizeof cfg->s3_region, "us-east-1");
    copy(cfg->bucket, sizeof cfg->bucket, "aops");
    copy(cfg->db_host, sizeof cfg->db_host, "127.0.0.1");
    cfg->db_port = 3307;
    copy(cfg->db_user, sizeof cfg->db_user, "harness");
    copy(cfg->db_name, sizeof cfg->db_name, "aops");

    /* The repository is the directory holding the harness executable. */
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        /* The ASan build and the test and bench binaries live under build/:
         * their repository is the nearest directory up that holds the sources. */
        char up[4096];
        snprintf(up, sizeof up, "%s", exe);
        for (int level = 0; level < 4; level++) {
            char probe[4200];
            snprintf(probe, sizeof probe, "%s/coordinator/main.c", up);
            if (access(probe, F_OK) == 0) {
                snprintf(exe, sizeof exe, "%s", up);
                break;
            }
            char *s = strrchr(up, '/');
            if (!s || s == up)
                break;
            *s = 0;
        }
        copy(cfg->harness_dir, sizeof cfg->harness_dir, exe);
    } else {
        copy(cfg->harness_dir, sizeof cfg->harness_dir, ".");
    }
    snprintf(cfg->corpus_dir, sizeof cfg->corpus_dir, "%s/corpus/data", cfg->harness_dir);
    snprintf(cfg->patterns_file, sizeof cfg->patterns_file, "%s/corpus/patterns",
             cfg->harness_dir);
}

static void set_kv(struct config *cfg, const char *k, const char *v) {
    if (!strcmp(k, "AWS_ACCESS_KEY_ID"))
        copy(cfg->s3_access_key, sizeof cfg->s3_access_key, v);
    else if (!strcmp(k, "AWS_SECRET_ACCESS_KEY"))
        copy(cfg->s3_secret_key, sizeof cfg->s3_secret_key, v);
    else if (!strcmp(k, "S3_ENDPOINT"))
        copy(cfg->s3_endpoint, sizeof cfg->s3_endpoint, v);
    else if (!strcmp(k, "MARIADB_HOST"))
        copy(cfg->db_host, sizeof cfg->db_host, v);
    else if (!strcmp(k, "MARIADB_PORT"))
        cfg->db_port = (unsigned)atoi(v);
    else if (!strcmp(k, "MARIADB_SOCKET"))
        copy(cfg->db_socket, sizeof cfg->db_socket, v);
    else if (!strcmp(k, "MARIADB_USER"))
        copy(cfg->db_user, sizeof cfg->db_user, v);
    else if (!strcmp(k, "MARIADB_PASSWORD"))
        copy(cfg->db_password, sizeof cfg->db_password, v);
    else if (!strcmp(k, "MARIADB_DATABASE"))
        copy(cfg->db_name, sizeof cfg->db_name, v);
}

static const char *const cred_keys[] = {
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "S3_ENDPOINT",      "MARIADB_HOST",
    "MARIADB_PORT",      "MARIADB_SOCKET",        "MARIADB_USER",     "MARIADB_PASSWORD",
    "MARIADB_DATABASE",  NULL,
};

int config_load_credentials(struct config *cfg, char *err, size_t errlen) {
    char path[4200];
    const char *env = getenv("AOPS_CREDENTIALS");
    if (env && *env)
        copy(path, sizeof path, env);
    else
        snprintf(path, sizeof path, "%s/.local/stack/credentials", cfg->harness_dir);
    FILE *f = fopen(path, "r");
    if (f) {
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = 0;
            char *eq = strchr(line, '=');
            if (line[0] == '#' || !eq)
                continue;
            *eq = 0;
            set_kv(cfg, line, eq + 1);
        }
        fclose(f);
    } else if (env && *env) {
        snprintf(err, errlen, "cannot read credentials file %s: %s", path, strerror(errno));
        return -1;
    }
    for (int i = 0; cred_keys[i]; i++) {
        const char *v = getenv(cred_keys[i]);
        if (v && *v)
            set_kv(cfg, cred_keys[i], v);
    }
    return 0;
}

/* "8" or "1,8,16,32" */
static int parse_containers(struct config *cfg, const char *v, char *err, size_t errlen) {
    unsigned n = 0;
    const char *p = v;
    while (*p) {
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)*p))
            goto bad;
        unsigned long x = strtoul(p, &end, 10);
        if (errno || x < 1 || x > MAX_CONTAINERS || n == AOPS_MAX_SWEEP)
            goto bad;
        cfg->containers[n++] = (unsigned)x;
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            goto bad;
        p = end;
    }
    if (n == 0)
        goto bad;
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

long long parse_size(const char *s) {
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    double x = strtod(s, &end);
    if (errno || end == s)
        return -1;
    double mult = 1;
    switch (toupper((unsigned char)*end)) {
    case 0: break;
    case 'K': mult = 1024.0; break;
    case 'M': mult = 1024.0 * 1024; break;
    case 'G': mult = 1024.0 * 1024 * 1024; break;
    case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
    default: return -1;
    }
    if (*end && end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]) &&
        !(toupper((unsigned char)end[1]) == 'I' && toupper((unsigned char)end[2]) == 'B' &&
          !end[3]))
        return -1;
    x *= mult;
    if (x > 9e18)
        return -1;
    return (long long)x;
}

static int parse_special(struct config *cfg, const char *name, const char *v, char *err,
                         size_t errlen) {
    if (!strcmp(name, "containers"))
        return parse_containers(cfg, v, err, errlen);
    if (!strcmp(name, "profile")) {
        if (!strcmp(v, "full"))
            cfg->profile = PROFILE_FULL;
        else if (!strcmp(v, "small"))
            cfg->profile = PROFILE_SMALL;
        else if (!strcmp(v, "tiny"))
            cfg->profile = PROFILE_TINY;
        else {
            snprintf(err, errlen, "--profile '%s': expected full, small or tiny", v);
            return -1;
        }
        return 0;
    }
    if (!strcmp(name, "schedule")) {
        if (!strcmp(v, "phased"))
            cfg->schedule = SCHED_PHASED;
        else if (!strcmp(v, "interleaved"))
            cfg->schedule = SCHED_INTERLEAVED;
        else {
            snprintf(err, errlen, "--schedule '%s': expected phased or interleaved", v);
            return -1;
        }
        return 0;
    }
    if (!strcmp(name, "dataset")) {
        if (!strcmp(v, "per-worker"))
            cfg->dataset = DATASET_PER_WORKER;
        else if (!strcmp(v, "shared"))
            cfg->dataset = DATASET_SHARED;
        else {
            snprintf(err, errlen, "--dataset '%s': expected per-worker or shared", v);
            return -1;
        }
        return 0;
    }
    if (!strcmp(name, "memory-limit")) {
        long long x = parse_size(v);
        if (x < 0) {
            snprintf(err, errlen, "--memory-limit '%s': expected a size such as 4G or 512M", v);
            return -1;
        }
        cfg->memory_limit = (uint64_t)x;
        return 0;
    }
    snprintf(err, errlen, "internal: no parser for --%s", name);
    return -1;
}

static int parse_number(const struct option_row *o, struct config *cfg, const char *v, char *err,
                        size_t errlen) {
    char *end;
    errno = 0;
    char *field = (char *)cfg + o->off;
    if (o->type == O_DOUBLE) {
        double x = strtod(v, &end);
        if (errno || end == v || *end || x < o->min || x > o->max) {
            snprintf(err, errlen, "--%s '%s': expected a number from %g to %g", o->name, v,
                     o->min, o->max);
            return -1;
        }
        *(double *)field = x;
        return 0;
    }
    if (!isdigit((unsigned char)*v)) {
        snprintf(err, errlen, "--%s '%s': expected a whole number", o->name, v);
        return -1;
    }
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end) {
        snprintf(err, errlen, "--%s '%s': expected a whole number", o->name, v);
        return -1;
    }
    if (o->type == O_U64) {
        *(uint64_t *)field = x;
        return 0;
    }
    if (x < o->min || x > o->max) {
        snprintf(err, errlen, "--%s '%s': expected a whole number from %.0f to %.0f", o->name, v,
                 o->min, o->max);
        return -1;
    }
    *(unsigned *)field = (unsigned)x;
    return 0;
}

int options_parse(struct config *cfg, int argc, char **argv, int first, char *err,
                  size_t errlen) {
    /* Keep the command line for the result. No secret is ever on it. */
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof cfg->cmdline; i++)
        used += (size_t)snprintf(cfg->cmdline + used, sizeof cfg->cmdline - used, "%s%s",
                                 i ? " " : "", argv[i]);

    int i = first;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            return i + 1;
        if (strncmp(a, "--", 2) != 0)
            break; /* operand */
        const char *name = a + 2;
        const char *val = NULL;
        char buf[64];
        const char *eq = strchr(name, '=');
        if (eq) {
            size_t l = (size_t)(eq - name);
            if (l >= sizeof buf)
                l = sizeof buf - 1;
            memcpy(buf, name, l);
            buf[l] = 0;
            name = buf;
            val = eq + 1;
        }
        const struct option_row *o = NULL;
        for (size_t k = 0; k < NOPTIONS; k++)
            if (!strcmp(option_table[k].name, name))
                o = &option_table[k];
        if (!o) {
            snprintf(err, errlen, "unknown option '%s' (see harness --help)", a);
            return -1;
        }
        if (o->type == O_FLAG) {
            if (val) {
                snprintf(err, errlen, "--%s takes no value", o->name);
                return -1;
            }
            *(int *)((char *)cfg + o->off) = 1;
            continue;
        }
        if (!val) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "--%s needs a value: %s", o->name, o->help);
                return -1;
            }
            val = argv[++i];
        }
        int rc;
        if (o->type == O_SPECIAL)
            rc = parse_special(cfg, o->name, val, err, errlen);
        else if (o->type == O_STR) {
            if (strlen(val) >= o->size) {
                snprintf(err, errlen, "--%s: value too long (at most %zu characters)", o->name,
                         o->size - 1);
                return -1;
            }
            copy((char *)cfg + o->off, o->size, val);
            rc = 0;
        } else
            rc = parse_number(o, cfg, val, err, errlen);
        if (rc)
            return -1;
    }
    return i;
}

int config_validate(struct config *cfg, char *err, size_t errlen) {
    if (cfg->no_cgroups == 0 && cfg->memory_limit < MIN_MEMORY_LIMIT) {
        snprintf(err, errlen,
                 "--memory-limit %llu bytes is below the %lluM a worker needs; give at least 64M",
                 (unsigned long long)cfg->memory_limit,
                 (unsigned long long)(MIN_MEMORY_LIMIT >> 20));
        return -1;
    }
    /* Each listed workload must exist. */
    char list[sizeof cfg->workloads], *save = NULL;
    copy(list, sizeof list, cfg->workloads);
    int count = 0;
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!workload_find(t)) {
            snprintf(err, errlen, "--workloads: unknown workload '%s' (expected s3, db, search)",
                     t);
            return -1;
        }
        count++;
    }
    if (count == 0) {
        snprintf(err, errlen, "--workloads is empty: expected s3, db, search");
        return -1;
    }
    return 0;
}
