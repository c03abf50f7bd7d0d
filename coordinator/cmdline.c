/* cmdline.c -- the command line of `harness run` and `harness prepare` (see
 * cmdline.h). The rows themselves live with what they set: struct config's
 * in common/config.c, each workload's in its own file. */
#include "cmdline.h"

#include <stdlib.h>
#include <string.h>

#include "../telemetry/power_redfish.h"
#include "../workloads/workload.h"
#include "shard.h"

void options_usage(FILE *f) {
    char schemes[64];
    store_schemes(schemes, sizeof schemes);
    fprintf(
        f,
        "usage: harness [run] --containers N [options]\n"
        "       harness prepare --containers N [options]\n"
        "       harness report RUN_DIR [-o FILE.html]\n"
        "       harness compare RUN_DIR_A RUN_DIR_B [...]\n"
        "       harness merge (RUN_DIR|%s://BUCKET/PREFIX/)... [--out DIR] [--sign KEY.pem]\n"
        "       harness check RUN_DIR                 recompute a result from its operation log\n"
        "       harness verify RUN_DIR --key PUB.pem  check a signed result is unchanged\n"
        "       harness rerun RUN_DIR [options]       the job a result records, again\n"
        "       harness baseline [--baseline-size 512M] [--baseline-seconds 3]\n"
        "       harness plan --containers N --placement P [--sysroot DIR] [--json]\n",
        schemes);
    for (int i = 0; workload_table[i]; i++)
        for (const struct wl_command *c = workload_table[i]->commands; c && c->name; c++)
            fprintf(f, "       harness %s\n", c->usage);
    struct config *cfg = calloc(1, sizeof *cfg); /* large: keep it off the stack */
    char err[256];
    if (cfg && workloads_config_init(cfg, err, sizeof err) == 0) {
        struct opt_set sets[CONFIG_MAX_WL + 1];
        size_t n = workloads_option_sets(cfg, sets, CONFIG_MAX_WL + 1);
        opt_usage(sets, n, f);
        workloads_config_free(cfg);
    }
    free(cfg);
    fprintf(f, "\nSecrets come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,\n"
               "MARIADB_PASSWORD) or .local/stack/credentials, never from the command line.\n");
}

int options_load(struct config *cfg, int argc, char **argv, int first, char *err, size_t errlen) {
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            options_usage(stdout);
            return 1;
        }
    if (workloads_config_init(cfg, err, errlen) != 0)
        return -1;
    /* Keep the command line for the result. No secret is ever on it. */
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof cfg->cmdline; i++)
        used += (size_t)snprintf(cfg->cmdline + used, sizeof cfg->cmdline - used, "%s%s",
                                 i ? " " : "", argv[i]);

    struct opt_set sets[CONFIG_MAX_WL + 1];
    size_t n = workloads_option_sets(cfg, sets, CONFIG_MAX_WL + 1);
    char cred[4200];
    int must;
    config_credentials_path(cfg, cred, sizeof cred, &must);
    if (opt_load_env(sets, n, cred, must, err, errlen) != 0)
        return -1;
    cfg->argc = argc, cfg->argv = argv, cfg->argv_first = first;
    int k = opt_parse(sets, n, argc, argv, first, NULL, err, errlen);
    if (k < 0)
        return -1;
    if (k < argc) {
        snprintf(err, errlen, "unexpected argument '%s' (see harness --help)", argv[k]);
        return -1;
    }
    /* --bmc with a password in it, or credentials over http://: refused
     * here, before the command line is recorded anywhere. */
    if (power_bmc_check(&cfg->power, err, errlen) != 0)
        return -1;
    return workloads_select(cfg, err, errlen);
}

void options_free(struct config *cfg) {
    workloads_config_free(cfg);
}

int options_load_env(struct config *cfg, char *err, size_t errlen) {
    return options_load(cfg, 0, NULL, 0, err, errlen);
}

int options_set(struct config *cfg, const char *name, const char *value, char *err, size_t errlen) {
    struct opt_set sets[CONFIG_MAX_WL + 1];
    size_t n = workloads_option_sets(cfg, sets, CONFIG_MAX_WL + 1);
    return opt_set_value(sets, n, name, value, err, errlen);
}
