/* fuzz_result_merge.c -- the shards' result.json files as `harness merge`
 * reads them (fleet/merge.c's merge_results, the merge proper): up to
 * four documents split at FUZZ_SPLIT, each parsed by jansson as merge_cmd.c
 * does. Bad content must become invalid_reasons, never a crash, an
 * overflow (UBSan) or a leak. */
#include <jansson.h>

#include "../../fleet/merge.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *part[4];
    size_t len[4];
    fuzz_split(data, size, 4, part, len);
    json_t *in[4];
    const char *names[4] = {"s0.json", "s1.json", "s2.json", "s3.json"};
    size_t n = 0;
    for (size_t i = 0; i < 4; i++) {
        json_t *r = json_loadb((const char *)part[i], len[i], 0, NULL);
        if (r)
            in[n++] = r;
    }
    if (n) {
        json_t *m = merge_results(in, names, n);
        if (!m)
            abort(); /* NULL only when out of memory */
        json_decref(m);
    }
    for (size_t i = 0; i < n; i++)
        json_decref(in[i]);
    return 0;
}
