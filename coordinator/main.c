/* main.c -- the harness executable: dispatch to a subcommand.
 *
 * `./harness --containers N` is `./harness run --containers N`, the headline
 * command; every other subcommand lives in its own module (commands.h). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"

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
    if (!strcmp(cmd, "run"))
        return run_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "prepare"))
        return prepare_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "corpus"))
        return corpus_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "search"))
        return search_cli_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "report"))
        return report_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return compare_main(argc - 1, argv + 1);
    if (cmd[0] == '-')
        return run_main(argc, argv); /* argv[0] stands in for "run" */
    fprintf(stderr, "harness: unknown command '%s' (run, prepare, corpus, search, report, "
                    "compare; see harness --help)\n",
            cmd);
    return 2;
}
