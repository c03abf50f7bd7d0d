/* fuzz_result_report.c -- a run directory as `harness report` reads it
 * (report/): result.json, and a sweep.json naming point directories when
 * the input has a second part, split at FUZZ_SPLIT. report_main renders
 * the page to a file of this process's own and returns its exit status;
 * a point naming a path out of the directory is refused (load_run_at). */
#include <jansson.h>

#include "../../report/report.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_quiet();
    const uint8_t *part[2];
    size_t len[2];
    fuzz_split(data, size, 2, part, len);
    char dir[128], html[160], p1[160];
    snprintf(dir, sizeof dir, "%s/run", fuzz_dir());
    snprintf(p1, sizeof p1, "%s/run/p1", fuzz_dir());
    snprintf(html, sizeof html, "%s/report.html", fuzz_dir());
    if ((mkdir(dir, 0700) != 0 && errno != EEXIST) || (mkdir(p1, 0700) != 0 && errno != EEXIST))
        abort();
    fuzz_write("run/result.json", part[0], len[0]);
    fuzz_write("run/p1/result.json", part[0], len[0]);
    char sweep[160];
    snprintf(sweep, sizeof sweep, "%s/run/sweep.json", fuzz_dir());
    if (len[1])
        fuzz_write("run/sweep.json", part[1], len[1]);
    else
        unlink(sweep);
    char *argv[] = {"report", dir, "-o", html, NULL};
    int rc = report_main(4, argv);
    if (rc < 0 || rc > 2)
        abort();
    return 0;
}
