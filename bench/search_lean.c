/* search_lean.c -- `harness search` alone: the same command (search_cli.c
 * and the engine from build/rel/libaops.a), linked with --as-needed against
 * PCRE2 and liburing only. ./harness also loads jansson and libcgroup,
 * about 0.5 ms of CPU per process start (dynamic linking; libcurl,
 * libmariadb and libcrypto with their ~35 dependencies, 4.5 ms more, only
 * on first use: common/dl_lazy.h), which a search inside a worker never
 * pays; bench/search --lean measures the search with this binary instead.
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
