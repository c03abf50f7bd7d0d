/* corpus.c -- placeholder until `harness corpus fetch` lands. */
#include <stdio.h>

#include "../coordinator/commands.h"

int corpus_main(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "harness corpus: not built yet\n");
    return 2;
}
