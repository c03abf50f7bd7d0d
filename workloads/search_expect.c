/* search_expect.c -- the search workload's patterns, and the answer each
 * search must give (see search_expect.h).
 *
 * `corpus fetch` counts every pattern of corpus/patterns over the trees it
 * names with the harness's own engine and records, in the profile's
 * manifest.json, "expected": {"patterns_sha256", "patterns": [{"tree",
 * "pattern", "<tree>": {"lines", "files"}}...]} in the patterns file's
 * order (operation i runs pattern i). `make test` checks those counts
 * against `rg -P` (tests/integration/test_search_rg.sh), so they are not
 * the engine's word for itself. A worker compares each search's matched
 * lines and files with matches with them: a difference is an error. The
 * counts are recomputed only when the trees or the patterns file change
 * (a full fetch rewrites its manifest; the counts of the same trees stand). */
#include "search_expect.h"

#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/digest.h"
#include "../common/json.h"
#include "../common/libpath.h"
#include "../common/util.h"
#include "search_engine.h"

static const char *const tree_names[2] = {"linux", "cpython"};

void search_patterns_free(struct search_pattern *p, unsigned n) {
    for (unsigned i = 0; p && i < n; i++)
        matcher_free(&p[i].m);
    free(p);
}

int search_patterns_load(const char *file, struct search_pattern **out, unsigned *nout, char *err,
                         size_t len) {
    *out = NULL;
    *nout = 0;
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, len, "cannot read the search patterns %s: %s", file, strerror(errno));
        return -1;
    }
    struct search_pattern *p = calloc(SEARCH_MAX_PATTERNS, sizeof *p);
    char line[8192];
    unsigned lineno = 0, n = 0;
    int rc = p ? 0 : -1;
    if (!p)
        snprintf(err, len, "out of memory reading %s", file);
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#' || line[0] == 0)
            continue;
        char *tab = strchr(line, '\t');
        int trees = 0;
        if (tab) {
            *tab = 0;
            trees = !strcmp(line, "linux")     ? 1
                    : !strcmp(line, "cpython") ? 2
                    : !strcmp(line, "any")     ? 3
                                               : 0;
        }
        if (!trees) {
            snprintf(err, len,
                     "%s line %u: expected linux, cpython or any, a tab, then the pattern", file,
                     lineno);
            rc = -1;
        } else if (n == SEARCH_MAX_PATTERNS) {
            snprintf(err, len, "%s: more than %d patterns", file, SEARCH_MAX_PATTERNS);
            rc = -1;
        } else if (strlen(tab + 1) >= sizeof p[n].text) {
            snprintf(err, len, "%s line %u: pattern longer than %zu bytes", file, lineno,
                     sizeof p[n].text - 1);
            rc = -1;
        } else {
            char e[1024];
            if (matcher_compile(&p[n].m, tab + 1, e, sizeof e) < 0) {
                snprintf(err, len, "%s line %u: %s", file, lineno, e);
                rc = -1;
            } else {
                p[n].trees = trees;
                snprintf(p[n].text, sizeof p[n].text, "%s", tab + 1);
                n++;
            }
        }
    }
    fclose(f);
    /* Operation i runs pattern i: a file with another count would repeat or
     * drop patterns and change what a cycle is. */
    if (rc == 0 && n != SEARCH_OPS) {
        snprintf(err, len,
                 "%s holds %u patterns; a cycle runs exactly %d searches, one per pattern", file, n,
                 SEARCH_OPS);
        rc = -1;
    }
    if (rc) {
        search_patterns_free(p, n);
        return -1;
    }
    *out = p;
    *nout = n;
    return 0;
}

static void manifest_path(const struct config *cfg, const struct search_opts *o, char *out,
                          size_t len) {
    char dir[4200];
    corpus_profile_dir(cfg, o, dir, sizeof dir);
    snprintf(out, len, "%s/manifest.json", dir);
}

static int write_json(const char *path, json_t *m) {
    if (json_write_atomic(path, m, JSON_INDENT(2) | JSON_SORT_KEYS) == 0)
        return 0;
    fprintf(stderr, "harness corpus: cannot write %s: %s\n", path, strerror(errno));
    return -1;
}

/* The expected block of m when it was made for this patterns file. */
static json_t *expected_for(const json_t *m, const char *sha) {
    json_t *e = json_object_get(m, "expected");
    const char *s = json_string_value(json_object_get(e, "patterns_sha256"));
    return s && !strcmp(s, sha) ? e : NULL;
}

json_t *search_expect_before(const char *path) {
    return json_load_file(path, 0, NULL);
}

void search_expect_restore(const char *path, const json_t *before) {
    json_t *m = json_load_file(path, 0, NULL), *e = json_object_get(before, "expected");
    if (m && e && !json_object_get(m, "expected") &&
        json_equal(json_object_get(m, "trees"), json_object_get(before, "trees"))) {
        json_object_set(m, "expected", e);
        write_json(path, m);
    }
    json_decref(m);
}

int search_expect_record(const struct config *cfg, const struct search_opts *o,
                         const json_t *keep) {
    char path[4400], dir[4200], sha[SHA256_HEX], err[1024];
    manifest_path(cfg, o, path, sizeof path);
    corpus_profile_dir(cfg, o, dir, sizeof dir);
    if (sha256_file_hex(o->patterns_file, sha, err, sizeof err) != 0) {
        fprintf(stderr, "harness corpus: %s\n", err);
        return -1;
    }
    json_t *m = json_load_file(path, 0, NULL);
    if (!m) {
        fprintf(stderr, "harness corpus: no manifest at %s\n", path);
        return -1;
    }
    if (expected_for(m, sha)) {
        json_decref(m);
        return 0;
    }
    if (keep && expected_for(keep, sha) &&
        json_equal(json_object_get(keep, "trees"), json_object_get(m, "trees"))) {
        json_object_set(m, "expected", expected_for(keep, sha));
        int rc = write_json(path, m);
        json_decref(m);
        return rc;
    }
    struct search_pattern *p;
    unsigned n;
    if (search_patterns_load(o->patterns_file, &p, &n, err, sizeof err) != 0) {
        fprintf(stderr, "harness corpus: %s\n", err);
        json_decref(m);
        return -1;
    }
    struct engine *e = engine_open(READER_URING, err, sizeof err);
    if (!e)
        e = engine_open(READER_PREAD, err, sizeof err);
    if (!e) {
        fprintf(stderr, "harness corpus: %s\n", err);
        search_patterns_free(p, n);
        json_decref(m);
        return -1;
    }
    int64_t t0 = now_ns();
    json_t *list = json_array();
    int rc = 0;
    for (unsigned i = 0; i < n; i++) {
        static const char *const tags[4] = {"", "linux", "cpython", "any"};
        json_t *row = json_pack("{s:s, s:s}", "tree", tags[p[i].trees], "pattern", p[i].text);
        for (int k = 0; k < 2; k++) {
            if (!(p[i].trees & (1 << k)))
                continue;
            char root[4300];
            struct engine_totals t = {0};
            snprintf(root, sizeof root, "%s/%s", dir, tree_names[k]);
            engine_search(e, &p[i].m, root, ENGINE_COUNT, NULL, NULL, &t);
            if (t.errors) {
                fprintf(stderr, "harness corpus: pattern %u over %s: %llu error(s), first: %s\n",
                        i + 1, root, (unsigned long long)t.errors, t.err);
                rc = -1;
            }
            json_object_set_new(row, tree_names[k],
                                json_pack("{s:I, s:I}", "lines", (json_int_t)t.lines, "files",
                                          (json_int_t)t.matched));
        }
        json_array_append_new(list, row);
    }
    engine_close(e);
    search_patterns_free(p, n);
    if (rc == 0) {
        json_object_set_new(m, "expected",
                            json_pack("{s:s, s:s, s:o}", "patterns_sha256", sha, "counted_by",
                                      "harness search engine (rg -P semantics; checked against "
                                      "rg -P by make test)",
                                      "patterns", list));
        rc = write_json(path, m);
        if (rc == 0)
            printf("corpus %s: expected counts of %u patterns recorded in %s (%.1f s)\n",
                   profile_name(cfg->profile), n, path, (double)(now_ns() - t0) / 1e9);
    } else
        json_decref(list);
    json_decref(m);
    return rc;
}

int search_expect_load(const struct config *cfg, const struct search_opts *o,
                       struct search_expected *x, char *why, size_t len) {
    char path[4400], sha[SHA256_HEX], err[1024];
    manifest_path(cfg, o, path, sizeof path);
    if (sha256_file_hex(o->patterns_file, sha, err, sizeof err) != 0) {
        snprintf(why, len, "%s", err);
        return -1;
    }
    json_t *m = json_load_file(path, 0, NULL), *e = expected_for(m, sha);
    json_t *list = json_object_get(e, "patterns");
    int rc = -1;
    if (!m)
        snprintf(why, len, "no corpus manifest at %s", path);
    else if (!json_object_get(m, "expected"))
        snprintf(why, len,
                 "the corpus manifest %s records no expected counts (made before they were): run "
                 "./harness corpus fetch --profile %s",
                 path, profile_name(cfg->profile));
    else if (!e)
        snprintf(why, len,
                 "the corpus manifest's expected counts are for another patterns file than %s: run "
                 "./harness corpus fetch --profile %s",
                 o->patterns_file, profile_name(cfg->profile));
    else if (json_array_size(list) != SEARCH_OPS)
        snprintf(why, len, "the corpus manifest's expected counts list %zu patterns, not %d",
                 json_array_size(list), SEARCH_OPS);
    else {
        rc = 0;
        for (unsigned i = 0; rc == 0 && i < SEARCH_OPS; i++) {
            json_t *row = json_array_get(list, i);
            x->lines[i] = x->files[i] = 0;
            for (int k = 0; k < 2; k++) {
                json_t *c = json_object_get(row, tree_names[k]);
                json_t *l = json_object_get(c, "lines"), *f = json_object_get(c, "files");
                /* Fail closed: a count that is none (a string, -1) would
                 * check the search against a number nobody counted. */
                if ((l && (!json_is_integer(l) || json_integer_value(l) < 0)) ||
                    (f && (!json_is_integer(f) || json_integer_value(f) < 0))) {
                    snprintf(why, len,
                             "the corpus manifest's expected counts for pattern %u (%s) are not "
                             "counts: run ./harness corpus fetch --profile %s",
                             i + 1, tree_names[k], profile_name(cfg->profile));
                    rc = -1;
                    break;
                }
                x->lines[i] += (uint64_t)json_integer_value(l);
                x->files[i] += (uint64_t)json_integer_value(f);
            }
        }
    }
    json_decref(m);
    return rc;
}

static json_t *file_digest(const char *path) {
    char sha[SHA256_HEX], err[1024];
    if (sha256_file_hex(path, sha, err, sizeof err) != 0)
        return json_pack("{s:s, s:s}", "path", path, "error", err);
    return json_pack("{s:s, s:s}", "path", path, "sha256", sha);
}

/* The io_uring features this kernel offers (IORING_FEAT_*), by name. */
static json_t *uring_features(void) {
    static const char *const names[] = {
        "single_mmap", "nodrop",      "submit_stable",   "rw_cur_pos", "cur_personality",
        "fast_poll",   "poll_32bits", "sqpoll_nonfixed", "ext_arg",    "native_workers",
        "rsrc_tags",   "cqe_skip",    "linked_file"};
    struct io_uring ring;
    struct io_uring_params prm;
    memset(&prm, 0, sizeof prm);
    int rc = io_uring_queue_init_params(2, &ring, &prm);
    if (rc < 0)
        return json_sprintf("unavailable: %s", strerror(-rc));
    io_uring_queue_exit(&ring);
    json_t *a = json_array();
    for (unsigned b = 0; b < sizeof names / sizeof names[0]; b++)
        if (prm.features & (1u << b))
            json_array_append_new(a, json_string(names[b]));
    return a;
}

json_t *search_expect_provenance(const struct config *cfg, const struct search_opts *o) {
    char ver[64] = "", lib[4096];
    int jit = 0;
    pcre2_config(PCRE2_CONFIG_VERSION, ver);
    pcre2_config(PCRE2_CONFIG_JIT, &jit);
    json_t *libs = json_pack("{s:s, s:b}", "pcre2", ver, "pcre2_jit", jit);
    json_object_set_new(libs, "liburing",
                        libpath_loaded("liburing.so", lib, sizeof lib) == 0 ? json_string(lib)
                                                                            : json_null());
    json_object_set_new(libs, "io_uring_features", uring_features());
    char path[4400], why[1024];
    manifest_path(cfg, o, path, sizeof path);
    struct search_expected *x = malloc(sizeof *x);
    int ok = x && search_expect_load(cfg, o, x, why, sizeof why) == 0;
    free(x);
    json_t *ver_j =
        cfg->no_verify ? json_pack("{s:b, s:s}", "verified", 0, "why", "--no-verify")
        : ok           ? json_pack("{s:b, s:s}", "verified", 1, "how",
                                   "each search's matching lines and files with matches against the "
                                             "corpus manifest's expected counts (checked against rg -P)")
                       : json_pack("{s:b, s:s}", "verified", 0, "why", x ? why : "out of memory");
    return json_pack("{s:o, s:{s:o, s:o}, s:o}", "libraries", libs, "data", "corpus_manifest",
                     file_digest(path), "patterns", file_digest(o->patterns_file), "verification",
                     ver_j);
}
