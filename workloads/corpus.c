/* corpus.c -- placeholder until `harness corpus fetch` and `harness search` land. */
#include <stdio.h>

#include "../coordinator/commands.h"

int corpus_main(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "harness corpus: not built yet\n");
    return 2;
}

int search_cli_main(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "harness search: not built yet\n");
    return 2;
}
