/* search_lean.c -- `harness search` alone: the same command (search_cli.c
 * and the engine from build/rel/libaops.a), linked with --as-needed against
 * PCRE2 and liburing only. ./harness also loads libcurl, libmariadb and
 * their ~35 dependencies, which costs every process start ~10 ms of CPU
 * (dynamic linking) that a search inside a worker never pays; bench/search
 * --lean measures the search with this binary instead.
 *
 * usage: search_lean search [OPTIONS] PATTERN PATH... (as ./harness) */
#include <stdio.h>
#include <string.h>

int search_cli_main(int argc, char **argv);

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "search")) {
        fprintf(stderr, "usage: search_lean search [OPTIONS] PATTERN PATH...\n");
        return 2;
    }
    return search_cli_main(argc - 1, argv + 1);
}
