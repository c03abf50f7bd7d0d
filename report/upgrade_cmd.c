/* upgrade_cmd.c -- `harness upgrade RESULT.json|RUN_DIR`: a result of any
 * version this build reads, printed on stdout in the shape it writes now
 * (common/upgrade.c, CHANGELOG.md), for a script or a validator that reads
 * only the current shape. It reads the result the way report and compare do
 * (load_run: a regular file or RUN_DIR/result.json, confined), so what it
 * prints is what they see. schema_version stays the one the file was
 * written as. Exit 0, or 2 with one line when the result cannot be read or
 * is a version this build does not know. */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "report_html.h"

int upgrade_main(int argc, char **argv) {
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "harness upgrade: give one result (harness upgrade RESULT.json|RUN_DIR)\n");
        return 2;
    }
    char err[4400] = "";
    json_t *r = load_run(argv[1], err, sizeof err);
    if (!r) {
        fprintf(stderr, "harness upgrade: %s\n", err);
        return 2;
    }
    int rc = json_dumpf(r, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER) || putchar('\n') == EOF ||
                     fflush(stdout)
                 ? 2
                 : 0;
    if (rc)
        fprintf(stderr, "harness upgrade: writing stdout failed\n");
    json_decref(r);
    return rc;
}
