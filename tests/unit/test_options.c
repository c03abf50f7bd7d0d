/* test_options.c -- the option table: values land where they should, bad
 * values get one line naming the option and what is accepted. */
#include <string.h>

#include "../../coordinator/options.h"
#include "unit.h"

static struct config cfg;
static char err[1024];

static int parse(int argc, char **argv) {
    config_defaults(&cfg);
    err[0] = 0;
    int k = options_parse(&cfg, argc, argv, 1, err, sizeof err);
    if (k >= 0 && config_validate(&cfg, err, sizeof err) != 0)
        return -1;
    return k;
}

int main(void) {
    char *a1[] = {"run", "--containers", "8", "--profile", "tiny", "--cycles=3",
                  "--memory-limit", "512M", "--schedule", "interleaved", "--seed", "99",
                  "--quiet", "--db-port", "3310"};
    CHECK(parse(15, a1) == 15);
    CHECK(cfg.n == 8 && cfg.ncontainers == 1 && cfg.profile == PROFILE_TINY && cfg.cycles == 3);
    CHECK(cfg.memory_limit == 512ULL << 20 && cfg.schedule == SCHED_INTERLEAVED);
    CHECK(cfg.seed == 99 && cfg.quiet == 1 && cfg.db_port == 3310);
    CHECK(strstr(cfg.cmdline, "--containers 8") != NULL);

    char *a2[] = {"run", "--containers", "1,8,16,32"};
    CHECK(parse(3, a2) == 3 && cfg.ncontainers == 4 && cfg.containers[3] == 32);

    char *bad[][3] = {
        {"run", "--containers", "0"},       {"run", "--containers", "-1"},
        {"run", "--containers", "99999999"}, {"run", "--containers", "abc"},
        {"run", "--memory-limit", "1M"},     {"run", "--memory-limit", "lots"},
        {"run", "--profile", "huge"},        {"run", "--bogus", "1"},
        {"run", "--workloads", "s3,ftp"},    {"run", "--cycles", "0"},
    };
    const char *want[] = {"--containers", "--containers", "--containers", "--containers",
                          "--memory-limit", "--memory-limit", "--profile", "unknown option",
                          "unknown workload", "--cycles"};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = parse(3, bad[i]);
        CHECKF(rc < 0 && strstr(err, want[i]) && !strchr(err, '\n'), "%s %s -> rc %d '%s'",
               bad[i][1], bad[i][2], rc, err);
    }
    char *a3[] = {"run", "--containers"};
    CHECK(parse(2, a3) < 0 && strstr(err, "needs a value"));

    CHECK(parse_size("4G") == 4LL << 30 && parse_size("512M") == 512LL << 20);
    CHECK(parse_size("1GiB") == 1LL << 30 && parse_size("100") == 100);
    CHECK(parse_size("x") < 0 && parse_size("4Q") < 0 && parse_size("-5") < 0);
    return unit_done("options");
}
