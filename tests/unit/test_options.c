/* test_options.c -- the option tables: values land where they should (the
 * harness's own and each workload's), defaults come from the rows, secrets
 * never come from argv, bad values get one line naming the option and what
 * is accepted, and --workloads resolves once into the mask. */
#include <stdlib.h>
#include <string.h>

#include "../../common/options.h"
#include "../../coordinator/cmdline.h"
#include "../../workloads/db.h"
#include "../../workloads/s3_util.h"
#include "../../workloads/search.h"
#include "../../workloads/workload.h"
#include "unit.h"

static char err[1024];

/* Parse argv as `harness run` would (after "run"). */
static int parse(struct config *cfg, int argc, char **argv) {
    options_free(cfg);
    memset(cfg, 0, sizeof *cfg);
    err[0] = 0;
    return options_load(cfg, argc, argv, 1, err, sizeof err);
}

int main(void) {
    struct config cfg;
    memset(&cfg, 0, sizeof cfg);
    unsetenv("AOPS_CREDENTIALS");
    unsetenv("MARIADB_PORT");

    /* Defaults come from the rows. */
    char *a0[] = {"run"};
    CHECK(parse(&cfg, 1, a0) == 0);
    CHECK(cfg.n == 1 && cfg.profile == PROFILE_FULL && cfg.cycles == 1 && cfg.seed == 1);
    CHECK(cfg.memory_limit == 4ULL << 30 && cfg.stall_timeout == 30 && cfg.op_timeout == 120);
    CHECK(!strcmp(s3_opts(&cfg)->bucket, "aops") && !strcmp(s3_opts(&cfg)->region, "us-east-1"));
    CHECK(strstr(search_opts(&cfg)->patterns_file, "/corpus/patterns") != NULL);
    /* Each workload's inline accessor (by its slot in WORKLOADS) finds the
     * same settings as the registry does by the workload's name. */
    CHECK(s3_opts(&cfg) && (const void *)s3_opts(&cfg) == workload_opts(&cfg, workload_find("s3")));
    CHECK(db_opts(&cfg) && (const void *)db_opts(&cfg) == workload_opts(&cfg, workload_find("db")));
    CHECK(search_opts(&cfg) &&
          (const void *)search_opts(&cfg) == workload_opts(&cfg, workload_find("search")));
    CHECK(workload_opts_at(&cfg, WL_SLOT_tick) == workload_opts(&cfg, workload_find("tick")));
    /* No --workloads: every real workload, no test one. */
    unsigned real = 0;
    for (int i = 0; workload_table[i]; i++)
        if (!workload_table[i]->test_only)
            real |= 1u << i;
    CHECK(cfg.wl_mask == real && real != 0);
    CHECK(workloads_full_cycle() == 1340);

    char *a1[] = {
        "run",  "--containers", "8",           "--profile", "tiny", "--cycles=3", "--memory-limit",
        "512M", "--schedule",   "interleaved", "--seed",    "99",   "--quiet",    "--db-port",
        "3310", "--dataset",    "shared"};
    CHECK(parse(&cfg, 17, a1) == 0);
    CHECK(cfg.n == 8 && cfg.ncontainers == 1 && cfg.profile == PROFILE_TINY && cfg.cycles == 3);
    CHECK(cfg.memory_limit == 512ULL << 20 && cfg.schedule == SCHED_INTERLEAVED);
    CHECK(cfg.seed == 99 && cfg.quiet == 1 && db_opts(&cfg)->port == 3310);
    CHECK(s3_opts(&cfg)->dataset == DATASET_SHARED);
    CHECK(strstr(cfg.cmdline, "--containers 8") != NULL);

    char *a2[] = {"run", "--containers", "1,8,16,32", "--workloads", "sleep,db"};
    CHECK(parse(&cfg, 5, a2) == 0 && cfg.ncontainers == 4 && cfg.containers[3] == 32);
    CHECK(cfg.wl_mask == (1u << workload_index(workload_find("sleep")) |
                          1u << workload_index(workload_find("db"))));

    /* The environment fills env-keyed rows; argv wins over it. */
    setenv("MARIADB_PORT", "3999", 1);
    CHECK(parse(&cfg, 1, a0) == 0 && db_opts(&cfg)->port == 3999);
    CHECK(parse(&cfg, 17, a1) == 0 && db_opts(&cfg)->port == 3310);
    unsetenv("MARIADB_PORT");

    char *bad[][3] = {
        {"run", "--containers", "0"},
        {"run", "--containers", "-1"},
        {"run", "--containers", "99999999"},
        {"run", "--containers", "abc"},
        {"run", "--memory-limit", "1M"},
        {"run", "--memory-limit", "lots"},
        {"run", "--profile", "huge"},
        {"run", "--bogus", "1"},
        {"run", "--workloads", "s3,ftp"},
        {"run", "--cycles", "0"},
        {"run", "--dataset", "mine"},
        {"run", "--s3-secret-key", "x"},
        {"run", "--dir", "/tmp"},
        {"run", "--db-port", "70000"},
    };
    const char *want[] = {"--containers",
                          "--containers",
                          "--containers",
                          "--containers",
                          "--memory-limit",
                          "--memory-limit",
                          "--profile 'huge': expected full, small or tiny",
                          "unknown option",
                          "unknown workload 'ftp'",
                          "--cycles",
                          "--dataset",
                          "never taken from the command line",
                          "unknown option",
                          "--db-port"};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = parse(&cfg, 3, bad[i]);
        CHECKF(rc < 0 && strstr(err, want[i]) && !strchr(err, '\n'), "%s %s -> rc %d '%s'",
               bad[i][1], bad[i][2], rc, err);
    }
    char *a3[] = {"run", "--containers"};
    CHECK(parse(&cfg, 2, a3) < 0 && strstr(err, "needs a value"));

    /* A secret from the environment is taken, and a bad one is not echoed. */
    setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t-value", 1);
    CHECK(parse(&cfg, 1, a0) == 0 && !strcmp(s3_opts(&cfg)->secret_key, "s3cr3t-value"));
    unsetenv("AWS_SECRET_ACCESS_KEY");
    setenv("MARIADB_PORT", "not-a-port", 1);
    CHECK(parse(&cfg, 1, a0) < 0 && strstr(err, "MARIADB_PORT"));
    unsetenv("MARIADB_PORT");

    CHECK(parse_size("4G") == 4LL << 30 && parse_size("512M") == 512LL << 20);
    CHECK(parse_size("1GiB") == 1LL << 30 && parse_size("100") == 100);
    CHECK(parse_size("x") < 0 && parse_size("4Q") < 0 && parse_size("-5") < 0);
    options_free(&cfg);
    return unit_done("options");
}
