/* test_search.c -- the search engine's parts against what ripgrep does:
 * whole-buffer matching, the prefilters (literals, caseless literals, pure
 * literals, line ends, line length, all-ASCII buffers) all agree with
 * line-by-line matching; limits turn a pathological pattern into an error;
 * invalid UTF-8 is decoded and UTF-16 transcoded as ripgrep does; and the
 * io_uring and pread readers count the same lines over a tree with the
 * awkward files (hidden, symlinks, NUL, UTF-16, a file larger than the
 * buffer with lines across read boundaries). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/util.h"
#include "../../workloads/search_engine.h"
#include "unit.h"

enum how { AS_COMPILED = 0, PER_LINE, WHOLE_BUFFER, PREFILTER, ASCII_HINT };

/* Count the matching lines of buf; with stop_first the first matching
 * line's end goes to *fe. how forces one path: the line by line one or the
 * whole-buffer one (no filter of any kind), or the prefilter whenever
 * literals can be extracted (even where matcher_compile judges it does not
 * pay); AS_COMPILED is what the search does, ASCII_HINT the same telling
 * the matcher the buffer is all ASCII when it is. */
static int64_t count_how(const char *pat, const char *buf, enum how how, int stop_first,
                         size_t *fe) {
    struct matcher m;
    char err[512];
    if (matcher_compile(&m, pat, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return -2;
    }
    if (how == PER_LINE)
        m.per_line = 1;
    if (how == PER_LINE || how == WHOLE_BUFFER) {
        m.pf.n = 0;
        m.endf = 0, m.minlen = 0, m.nonascii = 0;
    }
    if (how == PREFILTER)
        matcher_prefilter(pat, &m.pf);
    unsigned flags = stop_first ? MATCH_STOP_FIRST : 0;
    if (how == ASCII_HINT && !(text_scan(buf, strlen(buf)) & TEXT_HIGH))
        flags |= MATCH_ASCII;
    int64_t n = matcher_count(&m, buf, strlen(buf), flags, fe, err, sizeof err);
    matcher_free(&m);
    return n;
}

static int64_t count(const char *pat, const char *buf, int force_per_line) {
    size_t fe;
    return count_how(pat, buf, force_per_line ? PER_LINE : WHOLE_BUFFER, 0, &fe);
}

static void test_whole_buffer_equals_per_line(void) {
    const char *buf = "foo bar\n  \n\nbaz foo\t\nqux\r\nend foo";
    const char *pats[] = {"foo",      "^foo",   "foo$",     "\\s+$",   "^$",    "^",
                          "$",        "o\\s+b", "[^x]+",    "(?s)o.b", "\\bba", "qux\\r$",
                          "foo\\s*$", "\\Rqux", "(\\w)\\1", NULL};
    for (int i = 0; pats[i]; i++) {
        int64_t whole = count(pats[i], buf, 0), line = count(pats[i], buf, 1);
        CHECKF(whole == line, "'%s': whole buffer %lld, per line %lld", pats[i], (long long)whole,
               (long long)line);
    }
    CHECK(count("foo", buf, 0) == 3);
    CHECK(count("^$", buf, 0) == 1);    /* the empty line, not a phantom after the last */
    CHECK(count("\\n", buf, 0) == 0);   /* lines are matched without their '\n' */
    CHECK(count("qux$", buf, 0) == 0);  /* '\r' is part of the line */
    CHECK(count("\\s+$", buf, 0) == 3); /* "  ", "baz foo\t", "qux\r" */
    CHECK(count("", "", 0) == 0);       /* an empty file has no lines */
}

/* The literals extracted, joined with '|' ("" when the pattern gets none),
 * "i:" ahead when caseless, "=" ahead when the pattern is just them. */
static const char *literals(const char *pat) {
    static char out[8 * 70];
    struct prefilter pf;
    int n = matcher_prefilter(pat, &pf);
    size_t o = (size_t)snprintf(out, sizeof out, "%s%s", n && pf.icase ? "i:" : "",
                                n && pf.pure ? "=" : "");
    for (int k = 0; k < n; k++)
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s", k ? "|" : "", (int)pf.len[k],
                              pf.lit[k]);
    return out;
}

static void test_prefilter_extraction(void) {
    static const char *const cases[][2] = {
        /* what gives a prefilter: the longest unquantified literal run */
        {"foo", "=foo"},
        {"\\w+Error\\b", "Error"},
        {"\\w+_suspend|\\w+_resume", "_suspend|_resume"},
        {"(\\w+)->\\1", "->"},
        {"\\p{Lu}\\p{Ll}+ße", "ße"},
        {"\\pL\\P{Greek}ab", "ab"},
        {"^\\s*goto \\w+;$", "goto "},
        {"a\\.b\\(", "=a.b("},
        {"abc+d", "ab"}, /* 'c' is quantified: not in the run */
        {"foo?", "fo"},
        {"é+ab", "ab"}, /* the quantifier takes the whole character */
        {"x\\.?ßé", "ßé"},
        {"(foo)*bar", "bar"}, /* groups are opaque */
        {"(?:a|b)cd|ef(gh)+", "cd|ef"},
        {"a{2}bc{1,}de{3,5}?fg", "fg"},
        {"a{2}bc{1,}de{3,5}?", ""}, /* "b" and "d" are not one run */
        {"^ \\* .*memory", "memory"},
        {"ab\\bcd", "ab"}, /* an assertion ends a run */
        {"[a]bc", "bc"},   /* classes are one character, opaque */
        {"bc[]a]", "bc"},
        {"[[:alpha:]]bc", "bc"},
        {"\\x41bc", "=Abc"},
        {"\\x{e9}t\\x{e9}", "=été"},
        {"ab\\tcd", "=ab\tcd"},
        {"a\tbc", "=a\tbc"},
        {"(?=x)foo", "foo"}, /* look-around is opaque */
        {"(?<=x)foo", "foo"},
        {"(?<=def )\\w+(?=\\(self)", "(self"}, /* what look-ahead asserts is there */
        {"(?<=struct )\\w+", "struct "},
        {"(?!struct )\\w+", ""},
        {"(?=ab|cd)\\w+", ""},
        {"(?=a+b)\\w+", ""},
        {"(?<n>x)foo", "foo"},
        {"Py_INCREF|Py_XDECREF", "=Py_INCREF|Py_XDECREF"},
        {"^\\s*#", "#"}, /* one byte, rare enough */
        {"^\\s*@\\w+", "@"},
        /* caseless: ASCII only, never k or s (U+212A, U+017F match them) */
        {"(?i)fixme", "i:=fixme"},
        {"(?i)FixMe|TODO", "i:=fixme|todo"},
        {"(?i)kfree", "i:free"},
        {"(?i)straße|naïve|café", "i:tra|na|caf"},
        {"(?i)ünïcödé", ""},
        {"(?i)^\\s*#\\s*include", "i:include"},
        /* what gives up */
        {"\\w+", ""},
        {"ab+", ""}, /* a single common byte is not worth it */
        {"\\b(?:ext4|xfs)_\\w+\\(", ""},
        {"foo|b", ""}, /* every alternative needs a literal */
        {"foo|", ""},
        {"foo(?i)bar", ""},
        {"(?:(?i)x)foo", ""},
        {"(?x)foo bar", ""},
        {"(?is)foo", ""},
        {"\\Qfoo\\E", ""},
        {"[\\Qa\\E]bc", ""},
        {"(*UTF)foo", ""},
        {"(?#c)foo", ""},
        {"(?:foo)?", ""},
        {"x{,3}yz", ""}, /* "{,3}": a quantifier in newer PCRE2 only */
        {"ab{x}", ""},
        {"foo)|(bar", ""}, /* escapes ripgrep's wrapping group */
        {"(foo", ""},
        {"[foo", ""},
        {"\\10ab", ""},
        {"foo\\", ""},
        {"ab\\Kcd", ""},
        {"ab\\ncd", ""},
        {"\\x{}ab", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = literals(cases[i][0]);
        CHECKF(strcmp(got, cases[i][1]) == 0, "'%s': literals '%s', want '%s'", cases[i][0], got,
               cases[i][1]);
    }
    /* A run longer than a literal's room keeps a prefix. */
    char longpat[200];
    memset(longpat, 'a', 100);
    strcpy(longpat + 100, "\\w");
    struct prefilter pf;
    CHECK(matcher_prefilter(longpat, &pf) == 1 && pf.len[0] == PREFILTER_LEN);
    /* Eight alternatives at most. */
    CHECK(matcher_prefilter("aa|bb|cc|dd|ee|ff|gg|hh", &pf) == 8);
    CHECK(matcher_prefilter("aa|bb|cc|dd|ee|ff|gg|hh|ii", &pf) == 0);
    /* matcher_compile uses the literals whenever there are some; alone,
     * they are the whole match. */
    struct matcher m;
    char err[512];
    CHECK(matcher_compile(&m, "\\w+Error\\b", err, sizeof err) == 0 && m.pf.n == 1);
    matcher_free(&m);
    CHECK(matcher_compile(&m, "return", err, sizeof err) == 0 && m.pf.n == 1 && m.pf.pure);
    matcher_free(&m);
    CHECK(matcher_compile(&m, "return \\w+", err, sizeof err) == 0 && m.pf.n == 1 && !m.pf.pure);
    matcher_free(&m);
}

static void test_prefilter_counts(void) {
    /* Literals at the buffer's start and end, twice in a line, in a line
     * that does not match, next to U+FFFD (what PCRE2 sees of invalid
     * UTF-8), across CRLF, in a last line without '\n'. */
    const char *bufs[] = {
        "fooError\nError\n\nx Error y\r\nIOError IOError\nError\n",
        "->\na->a\nb->c\n\nab->ab->ab\r\nfoo->foo",
        "dev_suspend\n_resume\n\xef\xbf\xbd_suspend\nx_resume x_suspend\r\n a_resume",
        "Straße\nStraßen\nstraße\n\xef\xbf\xbdße Xße\nAaße",
        "goto out;\n  goto out;\r\n\tgoto x; \ngoto ;\n goto y;",
        " * memory\n * no\n  * memory\n * memorymemory\n",
        "",
        "\n\n\n",
        "x",
    };
    const char *pats[] = {"\\w+Error\\b",
                          "(\\w+)->\\1",
                          "\\w+_suspend|\\w+_resume",
                          "\\p{Lu}\\p{Ll}+ße",
                          "^\\s*goto \\w+;$",
                          "^ \\* .*memory",
                          "Error$",
                          "^->",
                          "\\bError\\b|_resume$",
                          NULL};
    for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++)
        for (int i = 0; pats[i]; i++) {
            size_t fe1 = 0, fe2 = 0, fe3 = 0;
            int64_t pf = count_how(pats[i], bufs[b], PREFILTER, 0, &fe1);
            int64_t line = count_how(pats[i], bufs[b], PER_LINE, 0, &fe1);
            int64_t whole = count_how(pats[i], bufs[b], WHOLE_BUFFER, 0, &fe1);
            CHECKF(pf == line && pf == whole,
                   "'%s' on buffer %zu: prefilter %lld, per line %lld, "
                   "whole buffer %lld",
                   pats[i], b, (long long)pf, (long long)line, (long long)whole);
            int64_t f1 = count_how(pats[i], bufs[b], PREFILTER, 1, &fe2);
            int64_t f2 = count_how(pats[i], bufs[b], PER_LINE, 1, &fe3);
            CHECKF(f1 == f2 && (f1 == 0 || fe2 == fe3),
                   "'%s' on buffer %zu: first match ends "
                   "%zu (prefilter), %zu (per line)",
                   pats[i], b, fe2, fe3);
        }
    /* The literal at every offset of a buffer longer than the 16-byte scan
     * blocks, up to its very end, next to near misses. */
    for (int pos = 0; pos + 5 <= 64; pos++) {
        char b[65];
        memset(b, 'a', 64);
        b[64] = 0;
        b[20] = b[41] = '\n';
        memcpy(b + 9, "Errox", 5);
        memcpy(b + 30, "rror", 4);
        memcpy(b + pos, "Error", 5);
        size_t fe1;
        const char *pp[] = {"\\w+Error", "\\w*Error\\b|x\\w+", "a\\w*rro(?:x|r)", NULL};
        for (int i = 0; pp[i]; i++) {
            int64_t pf = count_how(pp[i], b, PREFILTER, 0, &fe1);
            int64_t line = count_how(pp[i], b, PER_LINE, 0, &fe1);
            CHECKF(pf == line, "'%s', literal at %d: prefilter %lld, per line %lld", pp[i], pos,
                   (long long)pf, (long long)line);
        }
    }
    size_t fe;
    CHECK(count_how("\\w+Error\\b", bufs[0], PREFILTER, 0, &fe) == 2);
    CHECK(count_how("(\\w+)->\\1", bufs[1], PREFILTER, 0, &fe) == 3);
    CHECK(count_how("\\w+_suspend|\\w+_resume", bufs[2], PREFILTER, 0, &fe) == 3);
}

/* What the analysis says beyond literals: a needed non-ASCII character, the
 * set of bytes a matching line ends in. */
static void test_analysis(void) {
    static const char *const nonascii[] = {"[\\p{Greek}\\p{Cyrillic}]+",
                                           "\\p{L}+\\x{FFFD}",
                                           "(?i)ünïcödé",
                                           "Straße",
                                           "[^\\x00-\\x7F]",
                                           "(?i)straße|naïve|café",
                                           "[\\x{4e00}-\\x{9fff}]+",
                                           "a|é",
                                           NULL};
    static const char *const ascii_ok[] = {"\\w+",  "(?i)ſ",    "(?i)\\x{212A}", "(?i)é|x", "a|é",
                                           "[é]?x", "(?:é|a)x", ".é?",           "\\W",     NULL};
    for (int i = 0; nonascii[i]; i++) {
        struct matcher m;
        char err[512];
        CHECK(matcher_compile(&m, nonascii[i], err, sizeof err) == 0);
        CHECKF(m.nonascii || !strcmp(nonascii[i], "a|é"), "'%s' should need non-ASCII",
               nonascii[i]);
        matcher_free(&m);
    }
    for (int i = 0; ascii_ok[i]; i++) {
        struct matcher m;
        char err[512];
        CHECK(matcher_compile(&m, ascii_ok[i], err, sizeof err) == 0);
        CHECKF(!m.nonascii, "'%s' can match ASCII text", ascii_ok[i]);
        matcher_free(&m);
    }
    /* End sets. */
    static const struct {
        const char *pat;
        const char *ends; /* the ASCII bytes, NULL: no end filter */
    } ends[] = {
        {"\\s+$", "\t\v\f\r "}, {"if \\(!\\w+\\)$", ")"}, {"\\r$", "\r"},
        {"(?i)ax$", "Xx"},      {"^(?!.*;).*\\)$", ")"},  {"[ab]{2,}$", "ab"},
        {"\\s*$", NULL},        {"a$|b", NULL},           {"(?:a)$", NULL},
        {"^$", NULL},           {"a\\$", NULL},           {"é$", ""},
    };
    /* Chains and runs. */
    struct analysis ca;
    matcher_analyze("\\d+\\.\\d+\\.\\d+", &ca);
    CHECK(ca.pf.n == 0 && ca.chain.n == 3 && (ca.chain.set[1]['.' >> 3] >> ('.' & 7) & 1) &&
          ca.chain.set[0][16] == 0xFF && ca.chain.set[1][16] == 0);
    matcher_analyze("a\\w+b", &ca); /* the class may be multi-byte: a, \\w | \\w, b */
    CHECK(ca.chain.n == 0);
    matcher_analyze("[ab]xy+", &ca);
    CHECK(ca.chain.n == 3);
    matcher_analyze("\\d\\.\\d|x", &ca); /* one alternative only */
    CHECK(ca.chain.n == 0);
    matcher_analyze("\\bself\\b.*\\bself\\b.*\\bself\\b", &ca);
    CHECK(ca.runs.n == 3 && ca.runs.len[2] == 4);
    matcher_analyze("(?i)def x\\(Self\\):", &ca); /* 's' ends a caseless run */
    CHECK(ca.runs.n == 2 && ca.runs.icase && !memcmp(ca.runs.lit[1], "elf):", 5));
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        struct analysis a;
        matcher_analyze(ends[i].pat, &a);
        char got[130] = "";
        size_t o = 0;
        for (int c = 1; c < 128; c++)
            if (a.endset[c >> 3] >> (c & 7) & 1)
                got[o++] = (char)c;
        got[o] = 0;
        if (!ends[i].ends)
            CHECKF(!a.endf, "'%s': no end filter expected", ends[i].pat);
        else
            CHECKF(a.endf && !strcmp(got, ends[i].ends), "'%s': ends in '%s'", ends[i].pat, got);
    }
}

/* The caseless prefilter takes every ASCII letter but k and s to match
 * only itself and its other case. Checked against this PCRE2: no character
 * outside ASCII matches (?i)L but for k and s. */
static void test_caseless_ascii(void) {
    size_t cap = 0x110000 * 4, n = 0;
    char *all = malloc(cap);
    for (uint32_t c = 0x80; c < 0x110000; c++) {
        if (c >= 0xD800 && c <= 0xDFFF)
            continue;
        unsigned char *o = (unsigned char *)all + n;
        if (c < 0x800)
            o[0] = (unsigned char)(0xC0 | c >> 6), o[1] = (unsigned char)(0x80 | (c & 0x3F)),
            n += 2;
        else if (c < 0x10000)
            o[0] = (unsigned char)(0xE0 | c >> 12), o[1] = (unsigned char)(0x80 | (c >> 6 & 0x3F)),
            o[2] = (unsigned char)(0x80 | (c & 0x3F)), n += 3;
        else
            o[0] = (unsigned char)(0xF0 | c >> 18), o[1] = (unsigned char)(0x80 | (c >> 12 & 0x3F)),
            o[2] = (unsigned char)(0x80 | (c >> 6 & 0x3F)),
            o[3] = (unsigned char)(0x80 | (c & 0x3F)), n += 4;
    }
    for (int c = 'a'; c <= 'z'; c++) {
        char pat[8];
        snprintf(pat, sizeof pat, "(?i)%c", c);
        struct matcher m;
        char err[512];
        size_t fe;
        CHECK(matcher_compile(&m, pat, err, sizeof err) == 0);
        m.pf.n = 0, m.per_line = 0; /* the plain whole-buffer search */
        int64_t hits = matcher_count(&m, all, n, 0, &fe, err, sizeof err);
        int special = c == 'k' || c == 's';
        CHECKF(special ? hits > 0 : hits == 0, "(?i)%c matches %lld non-ASCII characters", c,
               (long long)hits);
        matcher_free(&m);
    }
    free(all);
}

/* Every path the search can take gives the line by line count. */
static void test_filtered_counts(void) {
    const char *bufs[] = {
        "x  \n\t\n\nfoo\r\nbar )\nif (!x)\n  if (!y) \nFIXME todo\nFixMe\n",
        "TODO: x\n\xef\xbf\xbd\n  # include <x>\n#INCLUDE\n  #  Include y\nno\n# z\n",
        "straße\nSTRASSE\nnaïve\nNAÏVE\ncafé\nCAFÉ\nstra\xc3\x9f"
        "e\nKelvin \xe2\x84\xaa\n",
        "\xc5\xbftra\xc3\x9f"
        "e\nfree kfree \xe2\x84\xaa"
        "free\nline\xc2\xa0\n\xe3\x80\x80\n",
        "import os\nimport os.path\nfrom a import b\n  import x\nimport y \n",
        "short\n"
        "0123456789012345678901234567890123456789012345678901234567890123456789\n"
        "0123456789012345678901234567890123456789012345678901234567890123456789x",
        "",
        "\n\n",
        "a",
        "Ωμέγα Привет ελληνικά\nascii only\n日本語\n",
        "v1.2.3\n1.2\nv\xd9\xa3.\xd9\xa4.\xd9\xa5 arabic digits\n10.20.30.40\na.b.c\n1..2.3\n",
        "self.x = self.y + self.z\nself.a = self.b\nselfself self\n  def test_a_b(self):\n"
        "def test_ab(self):\ndef test_a_b(self): x\n",
    };
    const char *pats[] = {"(?<=def )\\w+(?=\\(self)",
                          "(?<=self)\\.\\w+",
                          "(?=self)self\\.a",
                          "\\s+$",
                          "if \\(!\\w+\\)$",
                          "\\r$",
                          "(?i)todo|fixme|xxx",
                          "(?i)fixme",
                          "(?i)^\\s*#\\s*include",
                          "^\\s*#",
                          "(?i)straße|naïve|café",
                          "(?i)kfree",
                          "(?i)ſtraße",
                          "(?i)\\x{212A}elvin",
                          "FIXME",
                          "todo",
                          "^import \\w+$",
                          "^.{70,}",
                          "^.{65,}x$",
                          "[\\p{Greek}\\p{Cyrillic}]+",
                          "\\p{L}+\\x{FFFD}",
                          "[^\\x00-\\x7F]",
                          "[\\x{4e00}-\\x{9fff}]+",
                          "(?i)ünïcödé",
                          "Py_INCREF|Py_XDECREF",
                          "\\s$",
                          "x$",
                          "é",
                          NULL};
    for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++)
        for (int i = 0; pats[i]; i++) {
            size_t fe1 = 0, fe2 = 0;
            int64_t line = count_how(pats[i], bufs[b], PER_LINE, 0, &fe1);
            int64_t comp = count_how(pats[i], bufs[b], AS_COMPILED, 0, &fe1);
            int64_t hint = count_how(pats[i], bufs[b], ASCII_HINT, 0, &fe1);
            CHECKF(comp == line && hint == line,
                   "'%s' on buffer %zu: search %lld, with the "
                   "ASCII hint %lld, per line %lld",
                   pats[i], b, (long long)comp, (long long)hint, (long long)line);
            int64_t f1 = count_how(pats[i], bufs[b], AS_COMPILED, 1, &fe1);
            int64_t f2 = count_how(pats[i], bufs[b], PER_LINE, 1, &fe2);
            CHECKF(f1 == f2 && (f1 == 0 || fe1 == fe2),
                   "'%s' on buffer %zu: first match ends "
                   "%zu, per line %zu",
                   pats[i], b, fe1, fe2);
        }
    /* The paths are really taken. */
    CHECK(count_how("(?i)todo|fixme|xxx", bufs[0], AS_COMPILED, 0, &(size_t){0}) == 2);
    CHECK(count_how("\\s+$", bufs[0], AS_COMPILED, 0, &(size_t){0}) == 4);
    CHECK(count_how("(?i)straße|naïve|café", bufs[2], AS_COMPILED, 0, &(size_t){0}) == 6);
    CHECK(count_how("(?i)kfree", bufs[3], AS_COMPILED, 0, &(size_t){0}) == 1);
    CHECK(count_how("(?i)ſtraße", bufs[3], AS_COMPILED, 0, &(size_t){0}) == 1);
    CHECK(count_how("^.{70,}", bufs[5], AS_COMPILED, 0, &(size_t){0}) == 2);
    CHECK(count_how("\\d+\\.\\d+\\.\\d+", bufs[10], AS_COMPILED, 0, &(size_t){0}) == 3);
    CHECK(count_how("\\bself\\b.*\\bself\\b.*\\bself\\b", bufs[11], AS_COMPILED, 0, &(size_t){0}) ==
          1);
    /* The line filter's lines, found 64 bytes a step: lines of every length
     * from 0 to 90 one after another (so '\n's fall on every offset of the
     * 64-byte blocks, the first and the last), with and without a last
     * '\n', each the same as line by line. */
    static char big[5000];
    size_t bl = 0;
    for (int l = 0; l <= 90; l++) {
        for (int k = 0; k < l; k++)
            big[bl++] = k == 0       ? '"'
                        : k == l - 1 ? (l % 7 == 0 ? ' '
                                        : l % 3    ? '"'
                                                   : 'x')
                                     : (l % 5 ? 'a' : ' ');
        big[bl++] = '\n';
    }
    const char *lp[] = {"^.{70,}", "\\s+$", "x$", "^.{65,}x$", "\"[^\"]{40,}\"", "^.{33}$", NULL};
    for (int cut = 0; cut < 2; cut++) {
        big[bl - cut] = 0; /* cut 1: the last line has no '\n' */
        for (int i = 0; lp[i]; i++) {
            size_t fe1 = 0, fe2 = 0;
            int64_t comp = count_how(lp[i], big, AS_COMPILED, 0, &fe1);
            int64_t line = count_how(lp[i], big, PER_LINE, 0, &fe2);
            CHECKF(comp == line && comp > 0,
                   "'%s' over lines of 0..90 bytes%s: search %lld, per line %lld", lp[i],
                   cut ? ", no last '\\n'" : "", (long long)comp, (long long)line);
        }
    }
    CHECK(count_how("^.{70,}", big, AS_COMPILED, 0, &(size_t){0}) == 21); /* 70..90 */
}

static void test_text_scan(void) {
    char b[300];
    memset(b, 'a', sizeof b);
    CHECK(text_scan(b, sizeof b) == 0);
    CHECK(text_scan(b, 0) == 0);
    for (size_t at = 0; at < sizeof b; at += 7) {
        b[at] = 0;
        CHECKF(text_scan(b, sizeof b) == TEXT_NUL, "NUL at %zu", at);
        b[at] = (char)0x80;
        CHECKF(text_scan(b, sizeof b) == TEXT_HIGH, "0x80 at %zu", at);
        CHECK(text_scan(b, at) == 0); /* not past its end */
        b[at] = 'a';
    }
    /* Every position, for the word-at-a-time tail as much as the vector
     * loops: 0x01 (a borrow in w - 0x01..) and 0x7F are neither; 0xFF is high. */
    for (size_t at = 0; at < sizeof b; at++) {
        b[at] = 1;
        CHECKF(text_scan(b, sizeof b) == 0, "0x01 at %zu", at);
        b[at] = 0x7F;
        CHECKF(text_scan(b, sizeof b) == 0, "0x7F at %zu", at);
        b[at] = (char)0xFF;
        CHECKF(text_scan(b, sizeof b) == TEXT_HIGH, "0xFF at %zu", at);
        CHECKF(utf8_valid(b, sizeof b) == 0, "0xFF at %zu is invalid UTF-8", at);
        b[at] = 0;
        CHECKF(text_scan(b + 1, sizeof b - 1) == (at ? TEXT_NUL : 0u), "NUL at %zu", at);
        b[at] = 'a';
    }
    CHECK(utf8_valid(b, sizeof b));
}

static void test_utf16(void) {
    char out[64];
    size_t used, n;
    /* LE and BE, BMP and a surrogate pair (U+1F600). */
    n = utf16_to_utf8("a\0\xe9\0\x3d\xd8\x00\xde", 8, 0, 1, out, &used);
    CHECK(n == 7 && used == 8 && !memcmp(out, "a\xc3\xa9\xf0\x9f\x98\x80", 7));
    n = utf16_to_utf8("\0a\0\xe9\xd8\x3d\xde\x00", 8, 1, 1, out, &used);
    CHECK(n == 7 && used == 8 && !memcmp(out, "a\xc3\xa9\xf0\x9f\x98\x80", 7));
    /* Unpaired surrogates become U+FFFD; the unit after a lone lead is kept. */
    n = utf16_to_utf8("\x00\xdc"
                      "b\0",
                      4, 0, 1, out, &used);
    CHECK(n == 4 && !memcmp(out,
                            "\xef\xbf\xbd"
                            "b",
                            4));
    n = utf16_to_utf8("\x3d\xd8"
                      "b\0",
                      4, 0, 1, out, &used);
    CHECK(n == 4 && !memcmp(out,
                            "\xef\xbf\xbd"
                            "b",
                            4));
    /* At the end of the input: a lead surrogate or an odd byte waits for
     * more, unless it is the last piece (one U+FFFD for both). */
    n = utf16_to_utf8("a\0\x3d\xd8", 4, 0, 0, out, &used);
    CHECK(n == 1 && used == 2);
    n = utf16_to_utf8("a\0b", 3, 0, 0, out, &used);
    CHECK(n == 1 && used == 2);
    n = utf16_to_utf8("a\0\x3d\xd8x", 5, 0, 1, out, &used);
    CHECK(n == 4 && used == 5 && !memcmp(out, "a\xef\xbf\xbd", 4));
    n = utf16_to_utf8("a\0b", 3, 0, 1, out, &used);
    CHECK(n == 4 && used == 3 && !memcmp(out, "a\xef\xbf\xbd", 4));
    /* U+0000 stays a NUL: the text is then binary. */
    n = utf16_to_utf8("\0\0", 2, 0, 1, out, &used);
    CHECK(n == 1 && out[0] == 0);
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
    int64_t n = matcher_count(&m, buf, strlen(buf), 0, &fe, err, sizeof err);
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

/* The WHATWG decoder as its specification writes it (a state machine of
 * bytes needed and the next byte's bounds), the reference for the engine's
 * vector-skipping decoder. */
static size_t whatwg_decode(const unsigned char *s, size_t n, char *out) {
    size_t o = 0, needed = 0, seen = 0, start = 0;
    unsigned lo = 0x80, hi = 0xBF;
    for (size_t i = 0; i <= n;) {
        if (i == n) {
            if (needed)
                memcpy(out + o, "\xEF\xBF\xBD", 3), o += 3;
            break;
        }
        unsigned c = s[i];
        if (!needed) {
            start = i;
            if (c < 0x80) {
                out[o++] = (char)c;
            } else if (c >= 0xC2 && c <= 0xDF) {
                needed = 1;
            } else if (c >= 0xE0 && c <= 0xEF) {
                lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF, needed = 2;
            } else if (c >= 0xF0 && c <= 0xF4) {
                lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF, needed = 3;
            } else {
                memcpy(out + o, "\xEF\xBF\xBD", 3), o += 3;
            }
            i++;
            continue;
        }
        if (c < lo || c > hi) { /* the byte is decoded again, from the start state */
            needed = seen = 0, lo = 0x80, hi = 0xBF;
            memcpy(out + o, "\xEF\xBF\xBD", 3), o += 3;
            continue;
        }
        lo = 0x80, hi = 0xBF, i++;
        if (++seen == needed) {
            memcpy(out + o, s + start, i - start), o += i - start;
            needed = seen = 0;
        }
    }
    return o;
}

/* Invalid UTF-8 at every offset of a buffer longer than the vector blocks,
 * and random bytes: the decoder agrees with the reference, and the valid
 * prefix it reports ends where the reference first writes U+FFFD. */
static void test_utf8_lossy_reference(void) {
    static const char *bad[] = {"\xff",         "\xc3",         "\xe2\x82",
                                "\xf0\x9f\x98", "\xed\xa0\x80", "\xc0\xaf"};
    unsigned char buf[200];
    char got[700], want[700];
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        for (size_t at = 0; at + strlen(bad[k]) <= 150; at++) {
            memset(buf, 'a', 150);
            memcpy(buf + 70, "\xc3\xa9\xe6\x97\xa5", 5); /* valid: é 日 */
            memcpy(buf + at, bad[k], strlen(bad[k]));
            size_t g = utf8_lossy((const char *)buf, 150, got);
            size_t w = whatwg_decode(buf, 150, want);
            CHECKF(g == w && !memcmp(got, want, w), "'%s' at %zu: %zu bytes, reference %zu", bad[k],
                   at, g, w);
            if (at + strlen(bad[k]) <= 70 || at >= 75) /* apart from the valid characters */
                CHECKF(utf8_valid_upto((const char *)buf, 150) == at,
                       "'%s' at %zu: valid up to %zu", bad[k], at,
                       utf8_valid_upto((const char *)buf, 150));
        }
    unsigned seed = 12345;
    for (int round = 0; round < 2000; round++) {
        size_t n = (size_t)(round % 200);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = seed >> 16;
            /* mostly ASCII, some lead and continuation bytes */
            buf[i] = (unsigned char)(r % 4 ? 'a' + r % 26 : 0x80 + (r >> 4) % 0x80);
        }
        size_t g = utf8_lossy((const char *)buf, n, got), w = whatwg_decode(buf, n, want);
        CHECKF(g == w && !memcmp(got, want, w), "random round %d: %zu bytes, reference %zu", round,
               g, w);
        size_t v = utf8_valid_upto((const char *)buf, n);
        CHECKF(v == n ? w == n && !memcmp(want, buf, n)
                      : !memcmp(want, buf, v) && !memcmp(want + v, "\xEF\xBF\xBD", 3),
               "random round %d: valid up to %zu", round, v);
    }
}

/* A matcher that finds its literals in undecoded text (matcher_count_raw)
 * counts what it counts in the decoded text, invalid UTF-8 around, inside
 * and next to the literals; a literal holding U+FFFD is never searched in
 * undecoded text. */
static void test_raw_equals_decoded(void) {
    const char *bufs[] = {
        "fooError\xff\nError\xc3\n\n\xe2\x82 Error y\r\nIO\xff"
        "Error IOError\nError",
        "Stra\xc3\x9f"
        "e\nStra\xc3\xc3\x9f"
        "e\nStra\xff\x9f"
        "e\n\xed\xa0\x80Stra\xc3\x9f"
        "e\n",
        "\xff\xfe TODO\n todo \xc0\xaf\nxx\xc3\n \xf0\x9f\x98TODO\xf0\x9f\x98\x80\n",
        "def test_a_b(self):\xff\ndef test_\xe9_b(self):\ndef test_a_\xc3\xa9(self):\n",
        "ab\xff\xff"
        "cd\nabxxxxcd\nab\xff"
        "cd\n",
    };
    const char *pats[] = {"\\w+Error\\b",
                          "Error",
                          "Stra\xc3\x9f"
                          "e",
                          "\\p{Lu}\\p{Ll}+\xc3\x9f"
                          "e",
                          "(?i)todo|xx",
                          "TODO\\W",
                          "def test_\\w+_\\w+\\(self\\):",
                          "ab.{4}cd",
                          "ab.{2}cd",
                          "ab\\W+cd",
                          NULL};
    char dec[600], scratch[600], err[256];
    for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++)
        for (int i = 0; pats[i]; i++) {
            struct matcher m;
            if (matcher_compile(&m, pats[i], err, sizeof err) < 0) {
                CHECKF(0, "%s", err);
                continue;
            }
            if (!m.raw_ok) { /* no literals: decoded first, always */
                CHECKF(m.pf.n == 0, "'%s' has literals but is not searched raw", pats[i]);
                matcher_free(&m);
                continue;
            }
            size_t len = strlen(bufs[b]), dl = utf8_lossy(bufs[b], len, dec), fe;
            for (unsigned f = 0; f <= MATCH_STOP_FIRST; f += MATCH_STOP_FIRST) {
                int64_t want = matcher_count(&m, dec, dl, f, &fe, err, sizeof err);
                int64_t got = matcher_count_raw(&m, bufs[b], len, f, scratch, &fe, err, sizeof err);
                CHECKF(got == want, "'%s' on buffer %zu (flags %u): raw %lld, decoded %lld",
                       pats[i], b, f, (long long)got, (long long)want);
            }
            matcher_free(&m);
        }
    struct matcher m;
    CHECK(matcher_compile(&m, "\\x{FFFD}x", err, sizeof err) == 0);
    CHECK(m.pf.n == 1 && !m.raw_ok); /* "\xEF\xBF\xBDx" is in no raw text that decodes to it */
    size_t fe;
    CHECK(matcher_count_raw(&m, "\xffx\n", 3, 0, err, &fe, err, sizeof err) == -1);
    matcher_free(&m);
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
    put(dir, "sub/b.c",
        "\xef\xbb\xbf"
        "foo first\nno\n",
        16);
    put(dir, "sub/bin.o", "foo\n\0foo\n", 9);
    /* UTF-16 with a BOM: its text is searched, not its bytes. */
    put(dir, "u16le.txt",
        "\xff\xfe"
        "f\0o\0o\0 \0b\0\n\0n\0o\0\n\0f\0o\0o\0\n\0",
        28);
    put(dir, "u16be.txt",
        "\xfe\xff"
        "\0f\0o\0o\0\n",
        10);
    put(dir, "u16bin.txt",
        "\xff\xfe"
        "f\0o\0o\0\n\0\0\0\n\0",
        14); /* U+0000: binary */
    put(dir, "u16odd.txt",
        "\xff\xfe"
        "f\0o\0o\0",
        9); /* an odd byte at the end */
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
        /* qemu-user does not emulate io_uring: tests/arm64/run says so, and
         * only the pread half is checked there. */
        if (!e && !k && getenv("AOPS_QEMU_USER")) {
            printf("io_uring reader not checked (qemu-user has no io_uring): %s\n", err);
            continue;
        }
        CHECKF(e != NULL, "%s", err);
        if (!e)
            continue;
        struct engine_totals t = {0};
        int64_t shown = 0;
        CHECK(engine_search(e, &m, dir, ENGINE_COUNT, count_file, &shown, &t) == 0);
        CHECKF(t.lines == 3 + lines + 4, "%s: %llu lines", engine_reader_name(e),
               (unsigned long long)t.lines);
        CHECKF(t.files == 8, "%s: %llu files", engine_reader_name(e), (unsigned long long)t.files);
        /* a.c, sub/b.c, big.txt, u16le/be/odd; not the binary ones */
        CHECKF(shown == 6, "%s: %lld files shown", engine_reader_name(e), (long long)shown);
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
    test_prefilter_extraction();
    test_prefilter_counts();
    test_analysis();
    test_caseless_ascii();
    test_filtered_counts();
    test_errors();
    test_utf8();
    test_utf8_lossy_reference();
    test_raw_equals_decoded();
    test_text_scan();
    test_utf16();
    test_engine();
    return unit_done("test_search");
}
