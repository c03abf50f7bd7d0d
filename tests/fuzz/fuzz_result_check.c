/* fuzz_result_check.c -- a run directory as `harness check` reads it
 * (check/): result.json, its ops.log and one more file it may name, split
 * at FUZZ_SPLIT into a directory of this process's own. check_main is the
 * library function the command runs (it returns, never exits); its exit
 * status must be 0, 1 or 2, and nothing may read past a buffer, overflow,
 * leak or hang (a path leaving the directory is refused, not followed). */
#include <jansson.h>

#include "../../check/check.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_quiet();
    const uint8_t *part[3];
    size_t len[3];
    fuzz_split(data, size, 3, part, len);
    fuzz_write("result.json", part[0], len[0]);
    fuzz_write("ops.log", part[1], len[1]);
    fuzz_write("other", part[2], len[2]);
    char dir[128];
    snprintf(dir, sizeof dir, "%s", fuzz_dir());
    char *argv[] = {"check", dir, "--quiet", NULL};
    int rc = check_main(3, argv);
    if (rc < 0 || rc > 2)
        abort();
    return 0;
}
