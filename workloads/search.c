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
#include "../common/util.h"
#include "search.h"
#include "search_engine.h"
#include "search_expect.h"
#include "search_par.h"
#include "search_simd.h"
#include "workload.h"

struct search_state {
    struct psearch *ps;
    struct search_pattern *p;
    unsigned n;
    char roots[2][4300];
    double op_timeout; /* --op-timeout, seconds */
    int verify;        /* the corpus manifest's counts are there to check against */
    struct search_expected want;
};

static int search_prepare(const struct config *cfg, char *err, size_t len) {
    return corpus_check(cfg, search_opts(cfg), err, len);
}

static void search_close(void *st) {
    struct search_state *s = st;
    if (!s)
        return;
    search_patterns_free(s->p, s->n);
    psearch_close(s->ps);
    free(s);
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
    s->op_timeout = cfg->op_timeout;
    if (search_patterns_load(search_opts(cfg)->patterns_file, &s->p, &s->n, err, len) < 0)
        goto fail;
    /* Without recorded counts (a corpus fetched before they were) the run
     * goes on unchecked; the result says so (verification.search). */
    char why[1024];
    s->verify = !cfg->no_verify &&
                search_expect_load(cfg, search_opts(cfg), &s->want, why, sizeof why) == 0;
    /* io_uring where the kernel lets us; pread where a sandbox forbids it.
     * The threads are this worker's: its cpuset and --cpus-per-container
     * are what it may use. */
    unsigned th = search_threads(cfg);
    s->ps = psearch_open(READER_URING, th, &s->p[0].m, err, len);
    if (!s->ps)
        s->ps = psearch_open(READER_PREAD, th, &s->p[0].m, err, len);
    if (!s->ps)
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
    struct engine_totals t = {.deadline_ns = now_ns() + (int64_t)(s->op_timeout * 1e9)};
    for (int k = 0; k < 2; k++)
        if (p->trees & (1 << k) && !t.timed_out)
            psearch_search(s->ps, &p->m, s->roots[k], ENGINE_COUNT, NULL, NULL, &t);
    res->count[SEARCH_COUNT_LINES] = t.lines;
    res->count[SEARCH_COUNT_FILES] = t.files;
    res->count[SEARCH_COUNT_BYTES] = t.bytes;
    if (t.timed_out) {
        snprintf(res->err, sizeof res->err,
                 "search %u ('%.200s') ran past --op-timeout %g s (stopped after %llu files)", op,
                 p->text, s->op_timeout, (unsigned long long)t.files);
        return -1;
    }
    if (t.errors) {
        snprintf(res->err, sizeof res->err, "search %u: %llu error(s), first: %s", op,
                 (unsigned long long)t.errors, t.err);
        return -1;
    }
    if (s->verify && (t.lines != s->want.lines[op] || t.matched != s->want.files[op])) {
        snprintf(res->err, sizeof res->err,
                 "wrong answer from search %u: %llu matching lines in %llu files, the corpus "
                 "manifest expects %llu in %llu (the corpus changed since corpus fetch)",
                 op, (unsigned long long)t.lines, (unsigned long long)t.matched,
                 (unsigned long long)s->want.lines[op], (unsigned long long)s->want.files[op]);
        return -1;
    }
    return 0;
}

unsigned search_threads(const struct config *cfg) {
    unsigned n = search_opts(cfg)->threads;
    return n ? n : search_default_threads(cfg->cpus_per_container);
}

/* The patterns file parses, compiles and holds a cycle's worth: said before
 * anything starts rather than by every worker. */
static int search_check(const struct config *cfg, char *err, size_t len) {
    struct search_pattern *p;
    unsigned n;
    int rc = search_patterns_load(search_opts(cfg)->patterns_file, &p, &n, err, len);
    if (rc == 0)
        search_patterns_free(p, n);
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
    /* The threads: those of this process's CPUs; a worker pinned to fewer
     * (a cpuset) runs on fewer, never more. */
    return json_pack("{s:o, s:o, s:s}", "corpus",
                     selected ? corpus_manifest_json(cfg, search_opts(cfg)) : json_null(),
                     "search_threads", selected ? json_integer(search_threads(cfg)) : json_null(),
                     "search_threads_rule",
                     search_opts(cfg)->threads ? "--search-threads"
                                               : "min(CPUs a worker may use, 12), as ripgrep");
}

/* The trees' bytes, from the corpus manifest; -1 without one. */
static double search_dataset_bytes(const struct config *cfg) {
    json_t *m = corpus_manifest_json(cfg, search_opts(cfg)), *t;
    const char *name;
    double sum = -1;
    json_object_foreach(json_object_get(json_object_get(m, "manifest"), "trees"), name, t) {
        json_t *b = json_object_get(t, "bytes");
        if (json_is_integer(b))
            sum = (sum < 0 ? 0 : sum) + (double)json_integer_value(b);
    }
    json_decref(m);
    return sum;
}

/* For prepare's plan: the corpus is only checked, never written. */
static int search_plan(const struct config *cfg, struct wl_plan *out, char *err, size_t len) {
    (void)err, (void)len;
    char dir[4200];
    memset(out, 0, sizeof *out);
    out->unit = "trees";
    out->items = 2;
    out->bytes = search_dataset_bytes(cfg);
    corpus_profile_dir(cfg, search_opts(cfg), dir, sizeof dir);
    snprintf(out->where, sizeof out->where, "checked in %s (./harness corpus fetch makes it)", dir);
    snprintf(out->detail, sizeof out->detail, "linux and cpython");
    return 0;
}

static json_t *search_provenance(const struct config *cfg) {
    return search_expect_provenance(cfg, search_opts(cfg));
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
    {"search-threads", OPT_UINT, F(threads), 1, SEARCH_MAX_THREADS, NULL, NULL, NULL, 0, NULL,
     "threads per search: a parallel walk and read, as rg -j N (min(CPUs it may use, 12))"},
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
 * and seed), then corpus.c's fetch. The defaults and the option rows are the
 * caller's (env), freed by it. */
static int corpus_main(const struct wl_command_env *env, int argc, char **argv) {
    char err[1024];
    if (argc < 2 || strcmp(argv[1], "fetch"))
        return corpus_usage();
    struct config *cfg = env->cfg;
    /* The same option rows as a run, limited to those that matter here. */
    static const char *const only[] = {"profile", "seed", "dir", "corpus", NULL};
    int k = opt_parse(env->sets, env->nsets, argc, argv, 2, only, err, sizeof err);
    if (k < 0 || k < argc) {
        if (k < 0)
            fprintf(stderr, "harness corpus: %s\n", err);
        else
            fprintf(stderr, "harness corpus: unexpected argument '%s'\n", argv[k]);
        return corpus_usage();
    }
    /* The counts of trees that a fetch leaves as they were are kept. */
    char pdir[4200], mpath[4400], fpath[4400];
    corpus_profile_dir(cfg, search_opts(cfg), pdir, sizeof pdir);
    snprintf(mpath, sizeof mpath, "%s/manifest.json", pdir);
    snprintf(fpath, sizeof fpath, "%s/full/manifest.json", search_opts(cfg)->corpus_dir);
    json_t *before = search_expect_before(mpath), *full = search_expect_before(fpath);
    int rc = corpus_fetch(cfg, search_opts(cfg));
    if (rc == 0 && cfg->profile == PROFILE_SMALL)
        search_expect_restore(fpath, full);
    if (rc == 0 && search_expect_record(cfg, search_opts(cfg), before) != 0)
        rc = 1;
    json_decref(before);
    json_decref(full);
    return rc;
}

/* `harness search`: search_cli.c's, which takes no options of a run. */
static int search_main(const struct wl_command_env *env, int argc, char **argv) {
    (void)env;
    return search_cli_main(argc, argv);
}

static const struct wl_command search_commands[] = {
    {"corpus", "corpus fetch [--profile P] [--dir corpus/data] [--seed S]", corpus_main},
    {"search", "search [--count|--files-with-matches] PATTERN PATH...", search_main},
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
    .plan = search_plan,
    .open = search_open,
    .run = search_run,
    .close = search_close,
    .backend = search_backend,
    .describe = search_describe,
    .provenance = search_provenance,
    .host_keys = (const char *const[]){"corpus.dir", "corpus.patterns", NULL},
    .data_key = "corpus.manifest",
    .compare_keys = (const char *const[]){"search_threads", NULL},
    .data_paths = search_data_paths,
    .dataset_bytes = search_dataset_bytes,
};
