/* worker_cmd.c -- `harness worker RUN_DIR ID N [options]`: the command a
 * worker container of the docker runtime runs. Its options are read here,
 * with the run's own loader (cmdline.h), and the worker proper is the
 * runtime's (runtime/runtime_docker.c), which sits a layer below the command
 * line and so takes the config it is handed. */
#include <stdio.h>
#include <stdlib.h>

#include "../runtime/runtime.h"
#include "cmdline.h"
#include "commands.h"

int worker_container_main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: harness worker RUN_DIR ID N [options] (the docker runtime's "
                        "worker; not for people)\n");
        return 2;
    }
    const char *dir = argv[1];
    unsigned id = (unsigned)atoi(argv[2]), n = (unsigned)atoi(argv[3]);
    struct config *cfg = calloc(1, sizeof *cfg);
    char err[1024];
    if (!cfg)
        return 3;
    if (options_load(cfg, argc, argv, 4, err, sizeof err) != 0) {
        fprintf(stderr, "harness worker: %s\n", err);
        return 2;
    }
    return worker_container_run(dir, id, n, cfg);
}
