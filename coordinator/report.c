/* report.c -- placeholder until `harness report` and `harness compare` land. */
#include <stdio.h>

#include "commands.h"

int report_main(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "harness report: not built yet\n");
    return 2;
}

int compare_main(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "harness compare: not built yet\n");
    return 2;
}
