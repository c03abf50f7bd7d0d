/* cmdline.h -- the harness's command line: every option of a run or prepare
 * comes from the option tables (struct config's rows in common/config.c and
 * each workload's own), loaded in the order defaults, credentials file,
 * environment, argv. */
#ifndef AOPS_CMDLINE_H
#define AOPS_CMDLINE_H

#include <stdio.h>

#include "../common/config.h"

/* Parse a run or prepare command line into cfg: defaults (the repository is
 * found from the executable's own path, so the credentials file and corpus
 * are found from any working directory), then the credentials file
 * (.local/stack/credentials next to the harness, or $AOPS_CREDENTIALS), then
 * the environment (AWS_ACCESS_KEY_ID, MARIADB_PASSWORD...), then argv from
 * `first` on, which wins; then the workloads are resolved and checked.
 * Returns 0, or -1 with err set to one line (exit 2). "--help" prints the
 * usage and returns 1. Free with options_free(). */
int options_load(struct config *cfg, int argc, char **argv, int first, char *err, size_t errlen);
void options_free(struct config *cfg);

/* For tests and benchmarks: the same without a command line (defaults,
 * credentials file, environment), and one option set by name afterwards. */
int options_load_env(struct config *cfg, char *err, size_t errlen);
int options_set(struct config *cfg, const char *name, const char *value, char *err, size_t errlen);

/* Every command and option, from the tables. */
void options_usage(FILE *f);

#endif
