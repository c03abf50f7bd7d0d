/* options.h -- the option table, defaults and the credentials file. */
#ifndef AOPS_OPTIONS_H
#define AOPS_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* Fill cfg with defaults (no credentials). The repository is found from the
 * executable's own path, so the credentials file and corpus are found from
 * any working directory. */
void config_defaults(struct config *cfg);

/* Load secrets and endpoints: the credentials file first (.local/stack/
 * credentials next to the harness, or $AOPS_CREDENTIALS), then the
 * environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, MARIADB_PASSWORD...),
 * which wins. Options given on the command line win over both: call this
 * before options_parse(). Returns 0, or -1 with err set. */
int config_load_credentials(struct config *cfg, char *err, size_t errlen);

/* Parse argv[first..argc) into cfg. Returns the index of the first operand
 * (argc when none), or -1 with err set to one line (exit 2). */
int options_parse(struct config *cfg, int argc, char **argv, int first, char *err, size_t errlen);

/* Check the parsed values hang together (memory limit above the minimum,
 * workloads known, --out writable). Returns 0 or -1 with err set. */
int config_validate(struct config *cfg, char *err, size_t errlen);

void options_usage(FILE *f);

/* Parse "4G", "512M", "1073741824" into bytes. -1 on a malformed size. */
long long parse_size(const char *s);

#endif
