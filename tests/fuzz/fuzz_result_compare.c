/* fuzz_result_compare.c -- two run directories as `harness compare` reads
 * them (report/compare.c's compare_main over report_html.c's load_run):
 * two result.json files split at FUZZ_SPLIT, compared to text and to an
 * HTML page of this process's own. compare_main returns its exit status
 * (0, 1 refusing, 2 unreadable); nothing may crash, overflow or leak. */
#include <jansson.h>

#include "../../report/report.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_quiet();
    const uint8_t *part[2];
    size_t len[2];
    fuzz_split(data, size, 2, part, len);
    char a[160], b[160], html[160];
    snprintf(a, sizeof a, "%s/a", fuzz_dir());
    snprintf(b, sizeof b, "%s/b", fuzz_dir());
    snprintf(html, sizeof html, "%s/compare.html", fuzz_dir());
    if ((mkdir(a, 0700) != 0 && errno != EEXIST) || (mkdir(b, 0700) != 0 && errno != EEXIST))
        abort();
    fuzz_write("a/result.json", part[0], len[0]);
    fuzz_write("b/result.json", part[1], len[1]);
    char *argv[] = {"compare", a, b, "--force", "--html", html, NULL};
    int rc = compare_main(6, argv);
    if (rc < 0 || rc > 2)
        abort();
    return 0;
}
