/* search_cli.c -- `./harness search`: one search, printed as `rg -P -c` or
 * `rg -P -l` prints it, so anyone can diff the two.
 *
 * Output is sorted the way `rg --sort path` sorts (by path component), one
 * PATH argument after the other. --stats adds totals; --pread swaps the
 * io_uring reader for pread (which is also taken, with one line on stderr,
 * where io_uring is refused); -j/--threads N searches on N threads (default
 * ripgrep's, min(CPUs, 12)), which changes no count. Exit status as ripgrep: 0 when something
 * matched, 1 when nothing did, 2 on an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/util.h"
#include "search.h"
#include "search_engine.h"
#include "search_par.h"
#include "search_simd.h"

struct hit {
    char *path;
    int64_t count;
};

struct hits {
    struct hit *v;
    size_t n, cap;
    int oom;
};

static void on_file(void *arg, const char *path, int64_t count, const char *err) {
    struct hits *h = arg;
    if (err) {
        fprintf(stderr, "harness search: %s%s%s\n", path, *path ? ": " : "", err);
        return;
    }
    if (count <= 0)
        return;
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 256;
        struct hit *v = realloc(h->v, cap * sizeof *v);
        if (!v) {
            h->oom = 1;
            return;
        }
        h->v = v, h->cap = cap;
    }
    h->v[h->n].path = strdup(path);
    h->v[h->n++].count = count;
}

/* ripgrep sorts each directory's entries by name, i.e. paths component by
 * component: the same as comparing bytes with '/' below every other byte. */
static int path_cmp(const void *a, const void *b) {
    const unsigned char *p = (const unsigned char *)((const struct hit *)a)->path;
    const unsigned char *q = (const unsigned char *)((const struct hit *)b)->path;
    for (; *p && *p == *q; p++, q++)
        ;
    unsigned x = *p == '/' ? 1 : *p ? *p + 1u : 0, y = *q == '/' ? 1 : *q ? *q + 1u : 0;
    return (int)x - (int)y;
}

static int usage(void) {
    fprintf(stderr, "usage: harness search [--count|--files-with-matches] [--stats] [--pread] "
                    "[-j N] PATTERN PATH...\n");
    return 2;
}

int search_cli_main(int argc, char **argv) {
    enum engine_mode mode = ENGINE_COUNT;
    int stats = 0, i = 1;
    enum reader_kind kind = READER_URING;
    unsigned threads = search_default_threads(0);
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "--count") || !strcmp(a, "-c"))
            mode = ENGINE_COUNT;
        else if (!strcmp(a, "--files-with-matches") || !strcmp(a, "-l"))
            mode = ENGINE_LIST;
        else if (!strcmp(a, "--stats"))
            stats = 1;
        else if (!strcmp(a, "--pread"))
            kind = READER_PREAD;
        else if ((!strcmp(a, "-j") || !strcmp(a, "--threads")) && i + 1 < argc) {
            char *end;
            unsigned long n = strtoul(argv[++i], &end, 10);
            if (*end || n < 1 || n > SEARCH_MAX_THREADS) {
                fprintf(stderr, "harness search: %s '%s': expected 1 to %d threads\n", a, argv[i],
                        SEARCH_MAX_THREADS);
                return 2;
            }
            threads = (unsigned)n;
        } else {
            fprintf(stderr, "harness search: unknown option '%s'\n", a);
            return usage();
        }
    }
    if (argc - i < 2)
        return usage();
    const char *pattern = argv[i++];
    char err[1024];
    struct matcher m;
    if (matcher_compile(&m, pattern, err, sizeof err) < 0) {
        fprintf(stderr, "harness search: %s\n", err);
        return 2;
    }
    struct psearch *e = psearch_open(kind, threads, &m, err, sizeof err);
    if (!e && kind == READER_URING) {
        /* Refused by a hardened kernel (io_uring_disabled), a seccomp profile
         * (Docker's default) or qemu-user: said once, then pread, as a run does. */
        fprintf(stderr, "harness search: %s; searching with the pread reader\n", err);
        e = psearch_open(READER_PREAD, threads, &m, err, sizeof err);
    }
    if (!e) {
        fprintf(stderr, "harness search: %s\n", err);
        matcher_free(&m);
        return 2;
    }
    struct engine_totals t = {0};
    struct hits h = {0};
    int status = 0;
    int64_t t0 = now_ns();
    /* As ripgrep: one file argument alone prints counts without its name. */
    struct stat st;
    int bare = argc - i == 1 && stat(argv[i], &st) == 0 && !S_ISDIR(st.st_mode);
    for (; i < argc; i++) {
        h.n = 0;
        if (psearch_search(e, &m, argv[i], mode, on_file, &h, &t) < 0)
            fprintf(stderr, "harness search: %s\n", t.err), t.err[0] = 0, status = 2;
        qsort(h.v, h.n, sizeof *h.v, path_cmp);
        for (size_t k = 0; k < h.n; k++) {
            if (mode == ENGINE_LIST)
                printf("%s\n", h.v[k].path);
            else if (bare)
                printf("%lld\n", (long long)h.v[k].count);
            else
                printf("%s:%lld\n", h.v[k].path, (long long)h.v[k].count);
            free(h.v[k].path);
        }
    }
    double secs = (double)(now_ns() - t0) / 1e9;
    if (h.oom)
        fprintf(stderr, "harness search: out of memory: output incomplete\n"), status = 2;
    if (stats)
        printf("\n%llu matched lines\n%llu files contained matches\n%llu files searched\n"
               "%llu bytes searched\n%llu errors\n%.6f seconds (%s reader, %u threads, %s scans)\n",
               (unsigned long long)t.lines, (unsigned long long)t.matched,
               (unsigned long long)t.files, (unsigned long long)t.bytes,
               (unsigned long long)t.errors, secs, psearch_reader_name(e), psearch_threads(e),
               search_simd_path());
    free(h.v);
    psearch_close(e);
    matcher_free(&m);
    if (status || t.errors)
        return 2;
    return t.matched ? 0 : 1;
}
