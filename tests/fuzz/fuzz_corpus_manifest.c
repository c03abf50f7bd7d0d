/* fuzz_corpus_manifest.c -- the corpus manifest (DIR/<profile>/manifest.json,
 * written by `corpus fetch`) as a run reads it: the expected matching-line
 * and file counts every search is checked against (search_expect_load), and
 * the trees' bytes and digest for result.json (corpus_manifest_json). A
 * corpus directory may come from anywhere (a shared volume, a copy): the
 * reader must refuse with one line what is not a manifest of counts, and
 * never take a negative or non-integer count as one. */
#include <jansson.h>

#include "../../coordinator/cmdline.h"
#include "../../workloads/search.h"
#include "../../workloads/search_expect.h"
#include "fuzz.h"

static struct config cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    char err[512], dir[128];
    snprintf(dir, sizeof dir, "%s/corpus", fuzz_dir());
    /* The repository's own patterns file (found from the binary's place):
     * the seeds' patterns_sha256 is its digest. */
    char *av[] = {"run", "--workloads", "search", "--profile", "tiny", "--corpus", dir};
    if (options_load(&cfg, 7, av, 1, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_corpus_manifest: %s\n", err);
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_mkdirs("corpus/tiny");
    fuzz_write("corpus/tiny/manifest.json", data, size);
    const struct search_opts *o = search_opts(&cfg);
    struct search_expected *x = malloc(sizeof *x);
    char why[1024] = "";
    if (!x)
        abort();
    if (search_expect_load(&cfg, o, x, why, sizeof why) != 0) {
        if (!why[0] || strchr(why, '\n'))
            abort(); /* a refusal is one line */
    } else {
        /* Accepted: the manifest, read here with jansson alone, lists 100
         * rows whose counts are non-negative integers adding up to what the
         * reader took. */
        json_t *j = json_loadb((const char *)data, size, 0, NULL);
        json_t *list = json_object_get(json_object_get(j, "expected"), "patterns");
        if (json_array_size(list) != SEARCH_OPS)
            abort();
        for (unsigned i = 0; i < SEARCH_OPS; i++) {
            uint64_t lines = 0, files = 0;
            static const char *const trees[] = {"linux", "cpython"};
            for (int k = 0; k < 2; k++) {
                json_t *c = json_object_get(json_array_get(list, i), trees[k]);
                json_t *l = json_object_get(c, "lines"), *f = json_object_get(c, "files");
                if ((l && (!json_is_integer(l) || json_integer_value(l) < 0)) ||
                    (f && (!json_is_integer(f) || json_integer_value(f) < 0)))
                    abort(); /* no count, taken as one */
                lines += (uint64_t)json_integer_value(l);
                files += (uint64_t)json_integer_value(f);
            }
            if (lines != x->lines[i] || files != x->files[i])
                abort();
        }
        json_decref(j);
    }
    free(x);
    json_t *m = corpus_manifest_json(&cfg, o);
    json_decref(m);
    return 0;
}
