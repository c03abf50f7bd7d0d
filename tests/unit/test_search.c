/* test_search.c -- the search engine's parts against what ripgrep does:
 * whole-buffer matching agrees with line-by-line matching, limits turn a
 * pathological pattern into an error, invalid UTF-8 is decoded as ripgrep
 * decodes it, and the io_uring and pread readers count the same lines over
 * a tree with the awkward files (hidden, symlinks, NUL, a file larger than
 * the buffer with lines across read boundaries). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../coordinator/util.h"
#include "../../workloads/search_engine.h"
#include "unit.h"

static int64_t count(const char *pat, const char *buf, int force_per_line) {
    struct matcher m;
    char err[512];
    if (matcher_compile(&m, pat, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return -2;
    }
    if (force_per_line)
        m.per_line = 1;
    size_t fe;
    int64_t n = matcher_count(&m, buf, strlen(buf), 1, 0, &fe, err, sizeof err);
    matcher_free(&m);
    return n;
}

static void test_whole_buffer_equals_per_line(void) {
    const char *buf = "foo bar\n  \n\nbaz foo\t\nqux\r\nend foo";
    const char *pats[] = {"foo", "^foo", "foo$", "\\s+$", "^$", "^", "$", "o\\s+b", "[^x]+",
                          "(?s)o.b", "\\bba", "qux\\r$", "foo\\s*$", "\\Rqux", "(\\w)\\1", NULL};
    for (int i = 0; pats[i]; i++) {
        int64_t whole = count(pats[i], buf, 0), line = count(pats[i], buf, 1);
        CHECKF(whole == line, "'%s': whole buffer %lld, per line %lld", pats[i], (long long)whole,
               (long long)line);
    }
    CHECK(count("foo", buf, 0) == 3);
    CHECK(count("^$", buf, 0) == 1);      /* the empty line, not a phantom after the last */
    CHECK(count("\\n", buf, 0) == 0);     /* lines are matched without their '\n' */
    CHECK(count("qux$", buf, 0) == 0);    /* '\r' is part of the line */
    CHECK(count("\\s+$", buf, 0) == 3);   /* "  ", "baz foo\t", "qux\r" */
    CHECK(count("", "", 0) == 0);         /* an empty file has no lines */
}

static void test_per_line_detection(void) {
    CHECK(matcher_needs_per_line("(?<=x)y"));
    CHECK(matcher_needs_per_line("a(?!b)"));
    CHECK(matcher_needs_per_line("\\Afoo"));
    CHECK(matcher_needs_per_line("(?-m)^x"));
    CHECK(matcher_needs_per_line("(*SKIP)x"));
    CHECK(!matcher_needs_per_line("(?i)foo(?:bar)"));
    CHECK(!matcher_needs_per_line("(?<name>x)"));
    /* Look-behind across a line start: per line it sees the line start. */
    CHECK(count("(?<!a)b", "a\nb\n", 0) == 1);
}

static void test_errors(void) {
    struct matcher m;
    char err[512];
    CHECK(matcher_compile(&m, "foo(bar", err, sizeof err) == -1);
    CHECKF(strstr(err, "'foo(bar'") && strstr(err, "missing closing parenthesis") &&
               strstr(err, "offset 7"),
           "%s", err);
    /* Exponential backtracking: an error within the match limit, not a hang. */
    CHECK(matcher_compile(&m, "^(a|aa)+$", err, sizeof err) == 0);
    char buf[100];
    memset(buf, 'a', 60);
    strcpy(buf + 60, "b\n");
    size_t fe;
    int64_t t0 = now_ns();
    int64_t n = matcher_count(&m, buf, strlen(buf), 1, 0, &fe, err, sizeof err);
    CHECKF(n == -1 && strstr(err, "limit"), "n=%lld err=%s", (long long)n, err);
    CHECK(now_ns() - t0 < 30LL * 1000000000);
    matcher_free(&m);
}

static void test_utf8(void) {
    char out[64];
    CHECK(utf8_valid("Straße 日本語", strlen("Straße 日本語")));
    CHECK(!utf8_valid("caf\xe9", 4));
    CHECK(!utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
    /* WHATWG: one U+FFFD per maximal invalid subpart. */
    size_t n = utf8_lossy("a\xe6\x97z", 4, out);
    CHECK(n == 5 && memcmp(out, "a\xef\xbf\xbdz", 5) == 0);
    n = utf8_lossy("\xc0\xaf", 2, out);
    CHECK(n == 6); /* two replacements: C0 is never valid */
    n = utf8_lossy("\xf0\x9f\x98", 3, out);
    CHECK(n == 3); /* a truncated 4-byte sequence is one replacement */
}

static void put(const char *dir, const char *rel, const char *data, size_t len) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
}

static void count_file(void *arg, const char *path, int64_t n, const char *err) {
    (void)path;
    if (!err && n > 0)
        (*(int64_t *)arg)++;
}

static void test_engine(void) {
    char dir[] = "/tmp/test_search.XXXXXX", p[4200];
    CHECK(mkdtemp(dir) != NULL);
    put(dir, "a.c", "foo\nbar foo\n", 12);
    put(dir, ".hidden.c", "foo\n", 4);
    snprintf(p, sizeof p, "%s/sub", dir);
    mkdir(p, 0755);
    put(dir, "sub/b.c", "\xef\xbb\xbf" "foo first\nno\n", 16);
    put(dir, "sub/bin.o", "foo\n\0foo\n", 9);
    snprintf(p, sizeof p, "%s/link.c", dir);
    CHECK(symlink("a.c", p) == 0);
    snprintf(p, sizeof p, "%s/linkdir", dir);
    CHECK(symlink("sub", p) == 0);
    /* 3 MiB of lines of 1000 bytes: reads end mid-line; every line matches once. */
    size_t big = 3u << 20, lines = 0;
    char *b = malloc(big);
    for (size_t i = 0; i < big; i++)
        b[i] = (i % 1000 == 999) ? '\n' : (i % 1000 == 500) ? 'Q' : 'x';
    for (size_t i = 0; i < big; i++)
        lines += b[i] == 'Q';
    put(dir, "big.txt", b, big);
    free(b);

    struct matcher m;
    char err[512];
    CHECK(matcher_compile(&m, "foo|xQx", err, sizeof err) == 0);
    for (int k = 0; k < 2; k++) {
        struct engine *e = engine_open(k ? READER_PREAD : READER_URING, err, sizeof err);
        CHECKF(e != NULL, "%s", err);
        if (!e)
            continue;
        struct engine_totals t = {0};
        int64_t shown = 0;
        CHECK(engine_search(e, &m, dir, ENGINE_COUNT, count_file, &shown, &t) == 0);
        CHECKF(t.lines == 3 + lines, "%s: %llu lines", engine_reader_name(e),
               (unsigned long long)t.lines);
        CHECKF(t.files == 4, "%s: %llu files", engine_reader_name(e), (unsigned long long)t.files);
        CHECK(shown == 3); /* a.c, sub/b.c, big.txt; not the binary one */
        CHECK(t.errors == 0);
        memset(&t, 0, sizeof t);
        snprintf(p, sizeof p, "%s/missing", dir);
        CHECK(engine_search(e, &m, p, ENGINE_COUNT, NULL, NULL, &t) == -1);
        CHECK(t.errors == 1 && strstr(t.err, "No such file"));
        engine_close(e);
    }
    matcher_free(&m);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

int main(void) {
    test_whole_buffer_equals_per_line();
    test_per_line_detection();
    test_errors();
    test_utf8();
    test_engine();
    return unit_done("test_search");
}
