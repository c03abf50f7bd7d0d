/* main.c -- the harness executable: the command table, dispatching to a
 * subcommand.
 *
 * `./harness --containers N` is `./harness run --containers N`, the headline
 * command. The run's and the result model's subcommands live in
 * coordinator/ (commands.h), the renderers' in report/ (report.h), and a
 * workload's in its descriptor (workload.h). This is the one file that
 * reaches every layer: it plugs report/'s CSV export into the run, so the
 * run never calls up into report/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check/check.h"
#include "../coordinator/cmdline.h"
#include "../coordinator/commands.h"
#include "../report/csv.h"
#include "../report/report.h"
#include "../telemetry/baseline.h"
#include "../workloads/workload.h"

static const struct result_exports exports = {.csv = csv_export};

static int run_cmd(int argc, char **argv) {
    return run_main(argc, argv, &exports);
}

static int rerun_cmd(int argc, char **argv) {
    return rerun_main(argc, argv, &exports);
}

static int capacity_cmd(int argc, char **argv) {
    return capacity_main(argc, argv, &exports);
}

/* `harness baseline`: the data drives' own read figures with fio
 * (telemetry/baseline.h), with the run's options (paths, --baseline-*). */
static int baseline_cmd(int argc, char **argv) {
    struct config *cfg = calloc(1, sizeof *cfg);
    char err[1024];
    int rc = 2;
    if (!cfg) {
        fprintf(stderr, "harness baseline: out of memory\n");
        return 1;
    }
    int p = options_load(cfg, argc, argv, 1, err, sizeof err);
    if (p == 1)
        rc = 0;
    else if (p != 0)
        fprintf(stderr, "harness baseline: %s\n", err);
    else
        rc = baseline_run(cfg, stdout) > 0 ? 0 : 1;
    options_free(cfg);
    free(cfg);
    return rc;
}

/* A workload's subcommand, handed every workload's defaults and option rows
 * (struct wl_command_env), so that the workload need not call the registry
 * that lists it. */
static int wl_command_run(const struct wl_command *c, int argc, char **argv) {
    char err[1024];
    struct config *cfg = calloc(1, sizeof *cfg); /* large: keep it off the stack */
    if (!cfg || workloads_config_init(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "harness %s: %s\n", c->name, cfg ? err : "out of memory");
        free(cfg);
        return 2;
    }
    struct opt_set sets[CONFIG_MAX_WL + 1];
    struct wl_command_env env = {cfg, sets, workloads_option_sets(cfg, sets, CONFIG_MAX_WL + 1)};
    int rc = c->main(&env, argc, argv);
    workloads_config_free(cfg);
    free(cfg);
    return rc;
}

static const struct {
    const char *name;
    int (*main)(int argc, char **argv);
} commands[] = {
    {"run", run_cmd},
    {"prepare", prepare_main},
    {"report", report_main},
    {"compare", compare_main},
    {"upgrade", upgrade_main}, /* report/: a result in the current shape */
    {"merge", merge_main},
    {"rerun", rerun_cmd},
    {"check", check_main},   /* check/: recompute a result from its log */
    {"verify", verify_main}, /* check/: a signed result unchanged */
    {"baseline", baseline_cmd},
    {"plan", plan_main},
    {"capacity", capacity_cmd},        /* fleet/capacity.c: the most agents within the SLO */
    {"worker", worker_container_main}, /* the docker runtime's, inside a container */
};

int main(int argc, char **argv) {
    if (argc < 2) {
        options_usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        options_usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("aops-harness %s\n", AOPS_GIT);
        return 0;
    }
    if (cmd[0] == '-')
        return run_cmd(argc, argv); /* argv[0] stands in for "run" */
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].main(argc - 1, argv + 1);
    char names[512] =
        "run, prepare, report, compare, upgrade, merge, rerun, check, verify, baseline, plan, "
        "capacity";
    size_t o = strlen(names);
    for (int i = 0; workload_table[i]; i++)
        for (const struct wl_command *c = workload_table[i]->commands; c && c->name; c++) {
            if (!strcmp(cmd, c->name))
                return wl_command_run(c, argc - 1, argv + 1);
            o += (size_t)snprintf(names + o, sizeof names - o, ", %s", c->name);
        }
    fprintf(stderr, "harness: unknown command '%s' (%s; see harness --help)\n", cmd, names);
    return 2;
}
