/* search.c -- the search workload: 100 PCRE2 searches per cycle over the
 * profile's Linux and CPython trees, as coding agents run them.
 *
 * Operation i runs pattern i of corpus/patterns (`TREE<TAB>PATTERN`) over
 * its tree, or both trees for `any`, counting matching lines the way
 * `rg -P -c` does. open() compiles every pattern once (JIT) and sets up the
 * engine (io_uring ring, bounded buffers), so run() only walks, reads and
 * matches: rows = matching lines, files = files searched, bytes = bytes
 * read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/options.h"
#include "search.h"
#include "search_engine.h"
#include "search_simd.h"
#include "workload.h"

#define MAX_PATTERNS 1000
#define SEARCH_OPS 100 /* searches per cycle: corpus/patterns holds exactly this many */

struct search_pattern {
    struct matcher m;
    int trees; /* bit 0 linux, bit 1 cpython */
};

struct search_state {
    struct engine *e;
    struct search_pattern *p;
    unsigned n;
    char roots[2][4300];
};

static int search_prepare(const struct config *cfg, char *err, size_t len) {
    return corpus_check(cfg, search_opts(cfg), err, len);
}

static void search_close(void *st) {
    struct search_state *s = st;
    if (!s)
        return;
    for (unsigned i = 0; i < s->n; i++)
        matcher_free(&s->p[i].m);
    free(s->p);
    engine_close(s->e);
    free(s);
}

/* Read and compile corpus/patterns. */
static int load_patterns(struct search_state *s, const char *file, char *err, size_t len) {
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, len, "cannot read the search patterns %s: %s", file, strerror(errno));
        return -1;
    }
    s->p = calloc(MAX_PATTERNS, sizeof *s->p);
    char line[8192];
    unsigned lineno = 0;
    int rc = s->p ? 0 : -1;
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
        } else if (s->n == MAX_PATTERNS) {
            snprintf(err, len, "%s: more than %d patterns", file, MAX_PATTERNS);
            rc = -1;
        } else {
            char e[1024];
            if (matcher_compile(&s->p[s->n].m, tab + 1, e, sizeof e) < 0) {
                snprintf(err, len, "%s line %u: %s", file, lineno, e);
                rc = -1;
            } else
                s->p[s->n++].trees = trees;
        }
    }
    fclose(f);
    /* Operation i runs pattern i: a file with another count would repeat or
     * drop patterns and change what a cycle is. */
    if (rc == 0 && s->n != SEARCH_OPS) {
        snprintf(err, len,
                 "%s holds %u patterns; a cycle runs exactly %d searches, one per pattern", file,
                 s->n, SEARCH_OPS);
        rc = -1;
    }
    return rc;
}

/* For the inventory: the file reader the workers will use, then how they
 * match. io_uring unless the kernel or a sandbox (seccomp, qemu-user)
 * refuses it; then open() falls back to pread, and the result says so
 * rather than hiding it. The byte scans' instruction set (search_simd.h)
 * and whether PCRE2 has its JIT follow: "io_uring; avx2 scans; PCRE2 JIT". */
static int search_backend(const struct config *cfg, char *out, size_t len) {
    (void)cfg;
    char err[256], reader[400];
    uint32_t jit = 0;
    struct engine *e = engine_open(READER_URING, err, sizeof err);
    if (e) {
        engine_close(e);
        snprintf(reader, sizeof reader, "io_uring");
    } else
        snprintf(reader, sizeof reader, "pread (io_uring unavailable: %s)", err);
    if (pcre2_config(PCRE2_CONFIG_JIT, &jit) < 0)
        jit = 0;
    snprintf(out, len, "%s; %s scans; PCRE2 %s", reader, search_simd_path(),
             jit ? "JIT" : "interpreter (no JIT)");
    return 0;
}

static void *search_open(const struct config *cfg, unsigned worker, char *err, size_t len) {
    (void)worker;
    if (corpus_check(cfg, search_opts(cfg), err, len) < 0)
        return NULL;
    struct search_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, len, "out of memory opening the search workload");
        return NULL;
    }
    char dir[4200];
    corpus_profile_dir(cfg, search_opts(cfg), dir, sizeof dir);
    snprintf(s->roots[0], sizeof s->roots[0], "%s/linux", dir);
    snprintf(s->roots[1], sizeof s->roots[1], "%s/cpython", dir);
    if (load_patterns(s, search_opts(cfg)->patterns_file, err, len) < 0)
        goto fail;
    /* io_uring where the kernel lets us; pread where a sandbox forbids it. */
    s->e = engine_open(READER_URING, err, len);
    if (!s->e)
        s->e = engine_open(READER_PREAD, err, len);
    if (!s->e)
        goto fail;
    return s;
fail:
    search_close(s);
    return NULL;
}

static int search_run(void *st, unsigned cycle, unsigned op, struct op_result *res) {
    (void)cycle;
    struct search_state *s = st;
    struct search_pattern *p = &s->p[op];
    struct engine_totals t = {0};
    for (int k = 0; k < 2; k++)
        if (p->trees & (1 << k))
            engine_search(s->e, &p->m, s->roots[k], ENGINE_COUNT, NULL, NULL, &t);
    res->count[SEARCH_COUNT_LINES] = t.lines;
    res->count[SEARCH_COUNT_FILES] = t.files;
    res->count[SEARCH_COUNT_BYTES] = t.bytes;
    if (t.errors) {
        snprintf(res->err, sizeof res->err, "search %u: %llu error(s), first: %s", op,
                 (unsigned long long)t.errors, t.err);
        return -1;
    }
    return 0;
}

const struct search_opts *search_opts(const struct config *cfg) {
    return workload_opts(cfg, &search_workload);
}

/* The patterns file parses, compiles and holds a cycle's worth: said before
 * anything starts rather than by every worker. */
static int search_check(const struct config *cfg, char *err, size_t len) {
    struct search_state s = {0};
    int rc = load_patterns(&s, search_opts(cfg)->patterns_file, err, len);
    for (unsigned i = 0; i < s.n; i++)
        matcher_free(&s.p[i].m);
    free(s.p);
    return rc;
}

static void search_init_opts(const struct config *cfg, void *opts) {
    struct search_opts *o = opts;
    snprintf(o->corpus_dir, sizeof o->corpus_dir, "%s/corpus/data", cfg->harness_dir);
    snprintf(o->patterns_file, sizeof o->patterns_file, "%s/corpus/patterns", cfg->harness_dir);
}

/* result.json's config.corpus: what was searched, so two runs can be shown
 * to have searched the same. */
static json_t *search_describe(const struct config *cfg, int selected, json_t *warnings) {
    (void)warnings;
    return json_pack("{s:o}", "corpus",
                     selected ? corpus_manifest_json(cfg, search_opts(cfg)) : json_null());
}

static int search_data_paths(const struct config *cfg, const char *names[], char paths[][4096],
                             int max) {
    if (max < 1)
        return 0;
    names[0] = "corpus";
    snprintf(paths[0], 4096, "%s", search_opts(cfg)->corpus_dir);
    return 1;
}

#define F(field) offsetof(struct search_opts, field), sizeof(((struct search_opts *)0)->field)
static const struct opt_row search_rows[] = {
    {"corpus", OPT_STR, F(corpus_dir), 0, 0, NULL, NULL, NULL, 0, NULL,
     "corpus directory (corpus/data)"},
    {"dir", OPT_STR, F(corpus_dir), 0, 0, NULL, NULL, NULL, OPT_CMD_ONLY, NULL,
     "corpus directory (corpus/data)"},
    {"patterns", OPT_STR, F(patterns_file), 0, 0, NULL, NULL, NULL, 0, NULL,
     "search patterns file, 100 patterns (corpus/patterns)"},
};

static const struct wl_counter search_counters[] = {
    [SEARCH_COUNT_LINES] = {"matched_lines", "matching lines", WL_COUNT},
    [SEARCH_COUNT_FILES] = {"files_searched", "files searched", WL_COUNT},
    [SEARCH_COUNT_BYTES] = {"bytes_searched", "bytes searched", WL_BYTES},
};

static int corpus_usage(void) {
    fprintf(stderr,
            "usage: harness corpus fetch [--profile full|small|tiny] [--dir DIR] [--seed S]\n");
    return 2;
}

/* `harness corpus fetch`: this workload's options (and the run's profile
 * and seed), then corpus.c's fetch. */
static int corpus_main(int argc, char **argv) {
    char err[1024];
    if (argc < 2 || strcmp(argv[1], "fetch"))
        return corpus_usage();
    struct config *cfg = calloc(1, sizeof *cfg); /* large: keep it off the stack */
    if (!cfg || workloads_config_init(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "harness corpus: %s\n", cfg ? err : "out of memory");
        free(cfg);
        return 2;
    }
    /* The same option rows as a run, limited to those that matter here. */
    static const char *const only[] = {"profile", "seed", "dir", "corpus", NULL};
    struct opt_set sets[CONFIG_MAX_WL + 1];
    size_t nsets = workloads_option_sets(cfg, sets, CONFIG_MAX_WL + 1);
    int k = opt_parse(sets, nsets, argc, argv, 2, only, err, sizeof err);
    if (k < 0 || k < argc) {
        if (k < 0)
            fprintf(stderr, "harness corpus: %s\n", err);
        else
            fprintf(stderr, "harness corpus: unexpected argument '%s'\n", argv[k]);
        workloads_config_free(cfg);
        free(cfg);
        return corpus_usage();
    }
    int rc = corpus_fetch(cfg, search_opts(cfg));
    workloads_config_free(cfg);
    free(cfg);
    return rc;
}

static const struct wl_command search_commands[] = {
    {"corpus", "corpus fetch [--profile P] [--dir corpus/data] [--seed S]", corpus_main},
    {"search", "search [--count|--files-with-matches] PATTERN PATH...", search_cli_main},
    {NULL, NULL, NULL},
};

const struct workload search_workload = {
    .name = "search",
    .title = "code search",
    .ops_per_cycle = SEARCH_OPS,
    .options = search_rows,
    .noptions = sizeof search_rows / sizeof search_rows[0],
    .opts_size = sizeof(struct search_opts),
    .init_opts = search_init_opts,
    .counters = search_counters,
    .ncounters = 3,
    .commands = search_commands,
    .check = search_check,
    .prepare = search_prepare,
    .open = search_open,
    .run = search_run,
    .close = search_close,
    .backend = search_backend,
    .describe = search_describe,
    .host_keys = (const char *const[]){"corpus.dir", "corpus.patterns", NULL},
    .data_key = "corpus.manifest",
    .data_paths = search_data_paths,
};
