/* main.c -- the harness executable: dispatch to a subcommand.
 *
 * `./harness --containers N` is `./harness run --containers N`, the headline
 * command; the harness's own subcommands live in their modules
 * (commands.h), and a workload's in its descriptor (workload.h). */
#include <stdio.h>
#include <string.h>

#include "../workloads/workload.h"
#include "../coordinator/cmdline.h"
#include "../coordinator/commands.h"
#include "../coordinator/runtime.h"

static const struct {
    const char *name;
    int (*main)(int argc, char **argv);
} commands[] = {
    {"run", run_main},
    {"prepare", prepare_main},
    {"report", report_main},
    {"compare", compare_main},
    {"merge", merge_main},
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
        return run_main(argc, argv); /* argv[0] stands in for "run" */
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].main(argc - 1, argv + 1);
    char names[512] = "run, prepare, report, compare, merge";
    size_t o = strlen(names);
    for (int i = 0; workload_table[i]; i++)
        for (const struct wl_command *c = workload_table[i]->commands; c && c->name; c++) {
            if (!strcmp(cmd, c->name))
                return c->main(argc - 1, argv + 1);
            o += (size_t)snprintf(names + o, sizeof names - o, ", %s", c->name);
        }
    fprintf(stderr, "harness: unknown command '%s' (%s; see harness --help)\n", cmd, names);
    return 2;
}
