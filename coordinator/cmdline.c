/* cmdline.c -- the command line of `harness run` and `harness prepare` (see
 * cmdline.h). The rows themselves live with what they set: struct config's
 * in common/config.c, each workload's in its own file. */
#include "cmdline.h"

#include <stdlib.h>
#include <string.h>

#include "../telemetry/power_redfish.h"
#include "../workloads/workload.h"

void options_usage(FILE *f) {
    char schemes[64];
    store_schemes(schemes, sizeof schemes);
    fprintf(
        f,
        "usage: harness [run] --containers N [options]\n"
        "       harness prepare --containers N [options]\n"
        "       harness report RUN_DIR [-o FILE.html]\n"
        "       harness compare RUN_DIR_A RUN_DIR_B [...]\n"
        "       harness upgrade RESULT.json|RUN_DIR   an older result in the current shape\n"
        "       harness merge (RUN_DIR|%s://BUCKET/PREFIX/)... [--out DIR] [--sign KEY.pem]\n"
        "       harness check RUN_DIR                 recompute a result from its operation log\n"
        "       harness verify RUN_DIR --key PUB.pem  check a signed result is unchanged\n"
        "       harness rerun RUN_DIR [options]       the job a result records, again\n"
        "       harness baseline [--baseline-size 512M] [--baseline-seconds 3]\n"
        "       harness plan --containers N --placement P [--sysroot DIR] [--json]\n"
        "       harness capacity [--slo SPEC] [--containers LO..HI] [run options]\n",
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

/* The row named `name` (len bytes of it), or NULL. */
static const struct opt_row *find_row(const struct opt_set *sets, size_t n, const char *name,
                                      size_t len) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < sets[i].nrows; j++)
            if (strlen(sets[i].rows[j].name) == len && !strncmp(sets[i].rows[j].name, name, len))
                return &sets[i].rows[j];
    return NULL;
}

/* Append one word, in single quotes when the shell would split or expand it. */
static void append_word(char *buf, size_t len, const char *w) {
    size_t used = strlen(buf);
    int plain = *w != 0;
    for (const char *p = w; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,:/@%+", *p))
            plain = 0;
    if (plain || used + 1 >= len) {
        snprintf(buf + used, len - used, " %s", w);
        return;
    }
    size_t o = used;
    buf[o++] = ' ', buf[o++] = '\'';
    for (const char *p = w; *p && o + 6 < len; p++) {
        if (*p == '\'')
            memcpy(buf + o, "'\\''", 4), o += 4;
        else
            buf[o++] = *p;
    }
    buf[o++] = '\'';
    buf[o] = 0;
}

/* "./harness prepare" with the run's own options, for the "not prepared"
 * lines of every workload: what is prepared is what the run will read.
 * Left out: what prepare refuses or reads otherwise (--shard: prepare
 * covers every shard, so --containers is their total; --force, which is
 * "rebuild" there) and what is the run's alone (--out, --start-at, the
 * rendezvous). */
static void make_prepare_hint(struct config *cfg, const struct opt_set *sets, size_t n, int argc,
                              char **argv, int first) {
    static const char *const drop[] = {"force", "out",        "shard",       "start-at",
                                       "peers", "rendezvous", "results-url", "repeat",
                                       "csv",   "sign",       NULL};
    char *h = cfg->prepare_hint;
    size_t len = sizeof cfg->prepare_hint;
    h[0] = 0;
    if (!argv) /* no command line (options_load_env): each line's own fallback */
        return;
    snprintf(h, len, "./harness prepare");
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) || !a[2]) {
            append_word(h, len, a);
            continue;
        }
        const char *eq = strchr(a + 2, '=');
        size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        const struct opt_row *row = find_row(sets, n, a + 2, nl);
        int value = row && row->type != OPT_FLAG && !eq && i + 1 < argc;
        int skip = 0;
        for (int k = 0; drop[k]; k++)
            skip |= strlen(drop[k]) == nl && !strncmp(drop[k], a + 2, nl);
        if (!skip && cfg->shards && nl == 10 && !strncmp(a + 2, "containers", 10)) {
            char total[32];
            unsigned most = 0;
            for (unsigned c = 0; c < cfg->ncontainers; c++)
                most = cfg->containers[c] > most ? cfg->containers[c] : most;
            snprintf(total, sizeof total, "%u", most * cfg->shards);
            append_word(h, len, "--containers");
            append_word(h, len, total);
            skip = 1;
        }
        if (!skip) {
            append_word(h, len, a);
            if (value)
                append_word(h, len, argv[i + 1]);
        }
        i += value;
    }
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
    /* Paced agents (issue 38): the options hang together. */
    if (pacing_check(cfg->arrival, cfg->agent_rate, &cfg->think, cfg->stall_timeout,
                     cfg->phase_barrier, err, errlen) != 0)
        return -1;
    make_prepare_hint(cfg, sets, n, argc, argv, first);
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
