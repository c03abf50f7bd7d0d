/* compare.c -- placeholder for `harness compare` (being written). */
#include <stdio.h>

#include "commands.h"

int compare_main(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "harness compare: not built yet\n");
    return 2;
}
