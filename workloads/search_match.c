/* search_match.c -- ripgrep `-P` line matching with PCRE2's JIT.
 *
 * ripgrep hands PCRE2 one line at a time (without its '\n'), which costs a
 * JIT call per line. For a pattern that cannot see outside the line it
 * matches in, "this line matches" is the same as "a match of the whole
 * buffer (MULTILINE) starts in this line and stays in it", so we search the
 * whole buffer once and only re-check a line in isolation when a match runs
 * over its '\n' (\s, [^x], (?s). can do that). Patterns with look-around,
 * \A \z \Z \G, verbs or inline options switched off keep the line by line
 * path, where the equivalence does not hold.
 *
 * Most lines match nothing, and PCRE2 is slow to say so where it has no
 * first code unit to scan for (\w+Error\b tries a match at nearly every
 * byte). So before PCRE2 the lines that cannot match are skipped, by what
 * the pattern's text says every match holds (matcher_analyze(): literals,
 * their order, a chain of byte classes, a non-ASCII character, the line's
 * last character, its length); the lines left are matched each alone,
 * ripgrep's own per-line semantics, and a pattern that is only literals
 * needs no PCRE2 at all. */
#include <stdio.h>
#include <string.h>

#include "search_match.h"
#include "search_simd.h"
#include "search_utf8.h"

/* PCRE2's own default match limit, which ripgrep keeps: a pathological
 * pattern fails with an error instead of hanging the worker. */
#define MATCH_LIMIT 10000000u
#define DEPTH_LIMIT 100000u
#define HEAP_LIMIT_KIB 65536u /* interpreter fallback: 64 MiB of backtracking at most */
#define JIT_STACK_START (32u << 10)
#define JIT_STACK_MAX (4u << 20)
/* Lines shorter than a pattern's minimum length are skipped without PCRE2
 * (when nothing better applies) from this length on: below it PCRE2's own
 * whole-buffer scan is as quick. ("[^"]{40,}": a match that can run over
 * '\n' makes the whole-buffer scan cross lines; 45M -> 29M instructions
 * over CPython's Objects/.) */
#define LINE_FILTER_MINLEN 32

const char *search_simd_path(void) {
#if defined(SEARCH_AVX2)
    return __builtin_cpu_supports("avx2") ? "avx2" : "sse2";
#elif defined(SEARCH_NEON)
    return "neon";
#else
    return "scalar";
#endif
}

int matcher_needs_per_line(const char *p) {
    static const char *const tokens[] = {"(?=", "(?!", "(?<=", "(?<!", "(*", "\\A",
                                         "\\z", "\\Z", "\\G",  "(?^",  NULL};
    for (int i = 0; tokens[i]; i++)
        if (strstr(p, tokens[i]))
            return 1;
    /* (?-m), (?i-s): an option switched off could be MULTILINE. */
    for (const char *q = strstr(p, "(?"); q; q = strstr(q + 2, "(?")) {
        const char *r = q + 2;
        while ((*r >= 'a' && *r <= 'z') || (*r >= 'A' && *r <= 'Z') || *r == '-') {
            if (*r == '-')
                return 1;
            r++;
        }
    }
    return 0;
}

/* ---- what the pattern says (matcher_analyze) ----
 *
 * The pattern is read atom by atom at the top level of each top-level
 * alternative; groups (?:..) (..) (?>..) (?|..) named groups and
 * look-around are opaque atoms (their contents parsed only to find their
 * end). Understood atoms: literal characters (plain, UTF-8, escaped
 * punctuation, \t \r \f \e \a, \xHH, \x{H..}), one-character classes ([..],
 * \w \W \d \D \s \S \h \H \v \V \N, \p{..} \P{..}, `.`), assertions
 * (^ $ \b \B \A \z \Z \G), back references \1..\9, and quantifiers
 * (* + ? {n} {n,} {n,m}, lazy or possessive). A leading (?i) makes the whole
 * pattern caseless. Anything else gives up: inline options elsewhere,
 * (?x), comments, verbs (*..), conditionals, recursion, \Q..\E, \K, \R, \X,
 * \C, octal and control escapes, a '{' that is not a quantifier.
 *
 * From that, three necessary conditions for a line to match:
 * - literals: per alternative the longest run of unquantified literal
 *   characters (caseless: ASCII ones only, and not k or s, which also match
 *   U+212A and U+017F); 2 bytes at least, or one punctuation byte;
 * - nonascii: every alternative has a required atom (at least once) that
 *   matches no ASCII character: then an all-ASCII buffer has no match;
 * - end set: a one-alternative pattern ending in X$ (X a literal or a class,
 *   at least once): a matching line ends in a character X matches.
 * Which ASCII characters a class (or a caseless literal) matches is asked of
 * PCRE2 itself, one character at a time. */

static int is_digit(int c) {
    return c >= '0' && c <= '9';
}
static int is_alpha(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_hex(int c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static int hexval(int c) {
    return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Length of the quantifier at p (0: none, -1: something we do not take for
 * one: give up); *qmin its minimum. A quantifier may be followed by '+'
 * (possessive) or '?' (lazy). */
static int quant_len(const char *p, unsigned *qmin) {
    int k;
    *qmin = 1;
    if (*p == '*' || *p == '+' || *p == '?') {
        k = 1;
        *qmin = *p == '+';
    } else if (*p == '{') {
        k = 1;
        if (!is_digit(p[k]))
            return -1; /* "{,m}" or a literal '{': version-dependent, give up */
        unsigned n = 0;
        while (is_digit(p[k]) && n < 100000)
            n = n * 10 + (unsigned)(p[k++] - '0');
        if (p[k] == ',')
            for (k++; is_digit(p[k]); k++)
                ;
        if (p[k] != '}')
            return -1;
        k++;
        *qmin = n;
    } else
        return 0;
    if (p[k] == '+' || p[k] == '?')
        k++;
    if (p[k] == '*' || p[k] == '+' || p[k] == '?' || p[k] == '{')
        return -1;
    return k;
}

enum atom_kind { A_LIT, A_CLASS, A_ASSERT, A_DOLLAR, A_GROUP, A_LOOK, A_BACKREF };

struct atom {
    enum atom_kind kind;
    size_t at, len; /* its text in the pattern, quantifier excluded */
    uint32_t cp;    /* A_LIT: the character */
};

/* [..] at p[i]: its length, 0 to give up. */
static size_t class_len(const unsigned char *p, size_t i) {
    size_t j = i + 1;
    if (p[j] == '^')
        j++;
    if (p[j] == ']')
        j++; /* a ']' first is a literal */
    for (;;) {
        unsigned c = p[j];
        if (!c)
            return 0;
        if (c == '\\') {
            if (!p[j + 1] || p[j + 1] == 'Q' || p[j + 1] == 'E')
                return 0;
            j += 2;
        } else if (c == '[' && (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
            unsigned d = p[j + 1];
            size_t k = j + 2;
            while (p[k] && !(p[k] == d && p[k + 1] == ']'))
                k++;
            if (!p[k])
                return 0;
            j = k + 2;
        } else if (c == ']') {
            return j + 1 - i;
        } else
            j++;
    }
}

static size_t parse_atom(const unsigned char *p, size_t i, struct atom *a, int depth);

/* A group at p[i] == '(': its length including ')', 0 to give up. */
static size_t group_len(const unsigned char *p, size_t i, struct atom *a, int depth) {
    size_t j = i + 1;
    a->kind = A_GROUP;
    if (depth > 32)
        return 0;
    if (p[j] == '*')
        return 0; /* verbs */
    if (p[j] == '?') {
        unsigned c = p[j + 1];
        if (c == ':' || c == '>' || c == '|') {
            j += 2;
        } else if (c == '=' || c == '!') {
            a->kind = A_LOOK, j += 2;
        } else if (c == '<' && (p[j + 2] == '=' || p[j + 2] == '!')) {
            a->kind = A_LOOK, j += 3;
        } else if (c == '<' || c == '\'' || (c == 'P' && p[j + 2] == '<')) {
            j += c == 'P' ? 3 : 2;
            while (is_alpha(p[j]) || is_digit(p[j]) || p[j] == '_')
                j++;
            if (p[j] != (c == '\'' ? '\'' : '>'))
                return 0;
            j++;
        } else
            return 0; /* options, comments, conditionals, recursion */
    }
    while (p[j] != ')') {
        if (!p[j])
            return 0;
        if (p[j] == '|') {
            j++;
            continue;
        }
        struct atom in;
        size_t l = parse_atom(p, j, &in, depth + 1);
        if (!l)
            return 0;
        j += l;
        unsigned qmin;
        int q = quant_len((const char *)p + j, &qmin);
        if (q < 0 || (q && (in.kind == A_ASSERT || in.kind == A_DOLLAR || in.kind == A_LOOK)))
            return 0;
        j += (size_t)q;
    }
    return j + 1 - i;
}

/* The atom at p[i] (not '|' or ')'): its length, 0 to give up. */
static size_t parse_atom(const unsigned char *p, size_t i, struct atom *a, int depth) {
    unsigned c = p[i];
    a->at = i;
    a->cp = 0;
    size_t l;
    if (c == '(') {
        l = group_len(p, i, a, depth);
    } else if (c == '[') {
        a->kind = A_CLASS;
        l = class_len(p, i);
    } else if (c == '.') {
        a->kind = A_CLASS, l = 1;
    } else if (c == '^') {
        a->kind = A_ASSERT, l = 1;
    } else if (c == '$') {
        a->kind = A_DOLLAR, l = 1;
    } else if (c == '\\') {
        unsigned n = p[i + 1];
        a->kind = A_LIT, l = 2;
        if (n > 0x20 && n < 0x7f && !is_alpha((int)n) && !is_digit((int)n)) {
            a->cp = n; /* escaped punctuation: that character */
        } else if (n && strchr("wWdDsShHvV", (int)n)) {
            a->kind = A_CLASS;
        } else if (n == 'N' && p[i + 2] != '{') {
            a->kind = A_CLASS;
        } else if (n == 'p' || n == 'P') {
            a->kind = A_CLASS;
            if (p[i + 2] == '{') {
                l = 3;
                while (p[i + l] && p[i + l] != '}' && l < 64)
                    l++;
                if (p[i + l] != '}')
                    return 0;
                l++;
            } else if (is_alpha(p[i + 2])) {
                l = 3;
            } else
                return 0;
        } else if (n && strchr("bBAzZG", (int)n)) {
            a->kind = A_ASSERT;
        } else if (n == 't' || n == 'r' || n == 'f' || n == 'e' || n == 'a') {
            a->cp = n == 't' ? 9 : n == 'r' ? 13 : n == 'f' ? 12 : n == 'e' ? 27 : 7;
        } else if (n == 'x') {
            uint32_t v = 0;
            if (p[i + 2] == '{') {
                l = 3;
                while (is_hex(p[i + l]) && l < 10)
                    v = v * 16 + (uint32_t)hexval(p[i + l++]);
                if (l == 3 || p[i + l] != '}')
                    return 0;
                l++;
            } else {
                while (l < 4 && is_hex(p[i + l]))
                    v = v * 16 + (uint32_t)hexval(p[i + l++]);
                if (l == 2)
                    return 0;
            }
            if (v == 0 || v == '\n' || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
                return 0;
            a->cp = v;
        } else if (n >= '1' && n <= '9' && !is_digit(p[i + 2])) {
            a->kind = A_BACKREF;
        } else
            return 0;
    } else if (c == '\t' || (c >= 0x20 && c < 0x7f && !strchr("*+?{}])|", (int)c))) {
        a->kind = A_LIT, a->cp = c, l = 1;
    } else if (c >= 0xC2 && c <= 0xF4) { /* one UTF-8 character (PCRE2 checked the pattern) */
        a->kind = A_LIT;
        l = 1;
        while ((p[i + l] & 0xC0) == 0x80 && l < 4)
            l++;
        uint32_t v = c & (l == 2 ? 0x1F : l == 3 ? 0x0F : 0x07);
        for (size_t k = 1; k < l; k++)
            v = v << 6 | (p[i + k] & 0x3F);
        a->cp = v;
    } else
        return 0;
    a->len = l;
    return l;
}

/* Which ASCII characters (1..127, '\n' aside) the atom matches on its own,
 * asked of PCRE2 with the search's own options. 0 on success. */
static int ascii_set(const char *text, size_t len, int icase, uint8_t set[16]) {
    char pat[256];
    int n = snprintf(pat, sizeof pat, "%s\\A(?:%.*s)\\z", icase ? "(?i)" : "", (int)len, text);
    if (n < 0 || (size_t)n >= sizeof pat)
        return -1;
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)pat, (PCRE2_SIZE)n,
                                     PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE, &ec, &eo, NULL);
    pcre2_match_data *md = code ? pcre2_match_data_create_from_pattern(code, NULL) : NULL;
    memset(set, 0, 16);
    int rc = -1;
    if (md) {
        rc = 0;
        for (int c = 1; c < 128; c++) {
            PCRE2_UCHAR s = (PCRE2_UCHAR)c;
            if (c != '\n' && pcre2_match(code, &s, 1, 0, 0, md, NULL) >= 0)
                set[c >> 3] |= (uint8_t)(1u << (c & 7));
        }
    }
    pcre2_match_data_free(md);
    pcre2_code_free(code);
    return rc;
}

static int set_empty(const uint8_t set[16]) {
    for (int k = 0; k < 16; k++)
        if (set[k])
            return 0;
    return 1;
}

/* Bytes of source code from common to rare (roughly); absent ones are
 * rarer still. */
static const char common_bytes[] = " etainorsl_cdu\tpmf()h,;*b=g.>-xyk\"wv:0'1{}/[]#&TSERANIOLC";

/* A byte worth a prefilter on its own: punctuation that is not among the
 * common bytes of source code. */
static int rare_byte(unsigned c) {
    const char *h = strchr(common_bytes, (int)c);
    return c > 0x20 && c < 0x7f && !is_alpha((int)c) && !is_digit((int)c) &&
           (!h || h - common_bytes >= 42); /* from '/' on */
}

/* A literal worth searching for: 2 bytes at least, or one rare byte. */
static int lit_ok(const char *s, size_t n) {
    return n >= 2 || (n == 1 && rare_byte((unsigned char)s[0]));
}

/* The literal a positive look-around atom asserts, when its whole content
 * is unquantified literal characters (caseless: the safe ones): its length
 * in out, 0 when it is anything else. */
static size_t look_literal(const unsigned char *p, const struct atom *look, int icase,
                           char out[PREFILTER_LEN]) {
    size_t i = look->at + 2, end = look->at + look->len - 1, n = 0; /* skip "(?", ")" */
    if (p[i] == '<')
        i++;
    if (p[i] != '=')
        return 0; /* negative: says nothing is there */
    for (i++; i < end;) {
        struct atom in;
        size_t l = parse_atom(p, i, &in, 1);
        unsigned qmin;
        if (!l || in.kind != A_LIT || quant_len((const char *)p + i + l, &qmin) != 0 ||
            (icase && (in.cp >= 0x80 || strchr("kKsS", (int)in.cp))))
            return 0;
        char b[4];
        size_t bl = utf8_put(b, in.cp);
        if (n + bl > PREFILTER_LEN)
            return 0;
        for (size_t k = 0; k < bl; k++)
            out[n++] = icase && is_alpha(b[k]) ? (char)(b[k] | 0x20) : b[k];
        i += l;
    }
    return n;
}

/* A literal run has ended: keep it in order (the first RUNS_MAX). */
static void end_run(struct runs *r, const char *run, size_t len) {
    if (len && r->n < RUNS_MAX) {
        memcpy(r->lit[r->n], run, len);
        r->len[r->n++] = len;
    }
}

static void chain_add(struct chain *c, const uint8_t ascii[16], int high) {
    memcpy(c->set[c->n], ascii, 16);
    memset(c->set[c->n] + 16, high ? 0xFF : 0, 16);
    c->set[c->n][0] &= 0xFE; /* NUL: never in searched text */
    memset(c->lo[c->n], 0, 16);
    for (unsigned b = 1; b < 128; b++)
        if (ascii[b >> 3] >> (b & 7) & 1)
            c->lo[c->n][b & 15] |= (uint8_t)(1u << (b >> 4));
    c->n++;
}

/* The chain being built ends: keep it if longer than the best, and start
 * afresh. */
static void end_chain(struct chain *best, struct chain *c) {
    if (c->n > best->n)
        *best = *c;
    c->n = 0;
}

int matcher_analyze(const char *pattern, struct analysis *a) {
    const unsigned char *p = (const unsigned char *)pattern;
    struct prefilter *pf = &a->pf;
    memset(a, 0, sizeof *a);
    size_t i = 0;
    int icase = 0;
    if (!strncmp(pattern, "(?i)", 4))
        icase = 1, i = 4;
    /* Per alternative: the literal run being built and the best so far. */
    char run[PREFILTER_LEN], best[PREFILTER_LEN];
    size_t runlen = 0, bestlen = 0;
    /* The chain being built, and the longest (first alternative only). */
    struct chain ch = {0}, *bestch = &a->chain;
    int full = 0, pure = 1, natoms = 0, alt_nonascii = 0, nalt = 0;
    int all_lit = 1, all_pure = 1, all_nonascii = 1;
    struct atom last = {.kind = A_GROUP}, prev = {.kind = A_GROUP};
    unsigned last_qmin = 0, prev_qmin = 0;
    for (;;) {
        unsigned c = p[i];
        if (c == 0 || c == '|') { /* the end of a top-level alternative */
            if (nalt == 0) {
                end_run(&a->runs, run, runlen);
                end_chain(bestch, &ch);
            }
            if (lit_ok(best, bestlen) && nalt < PREFILTER_MAX) {
                memcpy(pf->lit[nalt], best, bestlen);
                pf->len[nalt] = bestlen;
            } else
                all_lit = 0;
            all_pure &= pure && natoms > 0 && !full && runlen == bestlen;
            all_nonascii &= alt_nonascii;
            nalt++;
            if (c == 0)
                break;
            i++;
            runlen = bestlen = 0, full = 0, pure = 1, natoms = 0, alt_nonascii = 0;
            continue;
        }
        struct atom at;
        size_t l = parse_atom(p, i, &at, 0);
        if (!l)
            goto give_up;
        i += l;
        unsigned qmin;
        int q = quant_len((const char *)p + i, &qmin);
        if (q < 0 || (q && (at.kind == A_ASSERT || at.kind == A_DOLLAR || at.kind == A_LOOK)))
            goto give_up;
        i += (size_t)q;
        natoms++;
        int joined = 0;
        if (at.kind == A_LIT) {
            char b[4];
            size_t bl = utf8_put(b, at.cp);
            int safe = !icase || (at.cp < 0x80 && !strchr("kKsS", (int)at.cp));
            if (q == 0 && safe) {
                if (!full && runlen + bl <= PREFILTER_LEN) {
                    for (size_t k = 0; k < bl; k++)
                        run[runlen++] = icase && is_alpha(b[k]) ? (char)(b[k] | 0x20) : b[k];
                    if (lit_ok(run, runlen) > lit_ok(best, bestlen) ||
                        (lit_ok(run, runlen) == lit_ok(best, bestlen) && runlen > bestlen))
                        memcpy(best, run, bestlen = runlen);
                } else
                    full = 1; /* keep the prefix: the run stays contiguous */
                joined = 1;
            }
            if (qmin >= 1 && at.cp >= 0x80) {
                uint8_t set[16];
                if (!icase || (ascii_set(pattern + at.at, at.len, 1, set) == 0 && set_empty(set)))
                    alt_nonascii = 1;
            }
        } else if (at.kind == A_CLASS && qmin >= 1) {
            uint8_t set[16];
            if (ascii_set(pattern + at.at, at.len, icase, set) == 0 && set_empty(set))
                alt_nonascii = 1;
        } else if (at.kind == A_LOOK) {
            /* (?=lit) or (?<=lit): the line holds lit too. A candidate for
             * the best literal, but not a run in order (it overlaps what
             * follows or precedes it). */
            char lb[PREFILTER_LEN];
            size_t ln = look_literal(p, &at, icase, lb);
            if (lit_ok(lb, ln) > lit_ok(best, bestlen) ||
                (lit_ok(lb, ln) == lit_ok(best, bestlen) && ln > bestlen))
                memcpy(best, lb, bestlen = ln);
        }
        if (!joined) {
            if (nalt == 0)
                end_run(&a->runs, run, runlen);
            runlen = 0, full = 0; /* anything else ends the run */
            pure = 0;
        }
        if (nalt == 0) { /* the chain: one-character atoms side by side */
            uint8_t set[16];
            int high = 0, ok = qmin >= 1;
            if (ok && at.kind == A_LIT && at.cp < 0x80 &&
                (!icase || !is_alpha((int)at.cp) || !strchr("kKsS", (int)at.cp))) {
                memset(set, 0, sizeof set);
                set[at.cp >> 3] |= (uint8_t)(1u << (at.cp & 7));
                if (icase && is_alpha((int)at.cp))
                    set[(at.cp ^ 0x20) >> 3] |= (uint8_t)(1u << ((at.cp ^ 0x20) & 7));
            } else if (ok && at.kind == A_CLASS) {
                ok = ascii_set(pattern + at.at, at.len, icase, set) == 0;
                high = 1; /* it may match a multi-byte character */
            } else
                ok = 0;
            /* A chain grows while its last atom is its first or is exactly
             * one ASCII character; an atom repeated or possibly multi-byte
             * ends it, and may start the next one. */
            if (!ok) {
                end_chain(bestch, &ch);
            } else {
                if (ch.n == CHAIN_MAX)
                    end_chain(bestch, &ch);
                chain_add(&ch, set, high);
                if ((q != 0 || high) && ch.n > 1) {
                    end_chain(bestch, &ch);
                    chain_add(&ch, set, high);
                }
            }
        }
        prev = last, prev_qmin = last_qmin;
        last = at, last_qmin = qmin;
    }
    if (all_lit && nalt <= PREFILTER_MAX) {
        pf->n = nalt;
        pf->icase = icase;
        pf->pure = all_pure;
    } else
        memset(pf, 0, sizeof *pf);
    a->runs.icase = icase;
    if (nalt != 1) { /* runs and chains are the first alternative's */
        memset(&a->runs, 0, sizeof a->runs);
        memset(&a->chain, 0, sizeof a->chain);
    }
    if (a->chain.n < 3)
        memset(&a->chain, 0, sizeof a->chain);
    a->nonascii = all_nonascii;
    /* X$: the line's last character is one X matches. */
    if (nalt == 1 && last.kind == A_DOLLAR && prev_qmin >= 1 &&
        (prev.kind == A_LIT || prev.kind == A_CLASS)) {
        if (prev.kind == A_LIT && prev.cp < 0x80 && !icase) {
            a->endset[prev.cp >> 3] |= (uint8_t)(1u << (prev.cp & 7));
            a->endf = 1;
        } else
            a->endf = ascii_set(pattern + prev.at, prev.len, icase, a->endset) == 0;
    }
    /* The scan looks for each literal's two rarest bytes. */
    for (int k = 0; k < pf->n; k++) {
        size_t rank[PREFILTER_LEN];
        for (size_t j = 0; j < pf->len[k]; j++) {
            const char *h = pf->lit[k][j] ? strchr(common_bytes, pf->lit[k][j]) : NULL;
            rank[j] = h ? (size_t)(h - common_bytes) : sizeof common_bytes;
        }
        size_t r1 = 0, r2 = 0;
        for (size_t j = 1; j < pf->len[k]; j++)
            if (rank[j] > rank[r1])
                r1 = j;
        if (pf->len[k] > 1) {
            r2 = r1 == 0 ? 1 : 0;
            for (size_t j = 0; j < pf->len[k]; j++)
                if (j != r1 && rank[j] > rank[r2])
                    r2 = j;
        }
        pf->rare[k][0] = r1, pf->rare[k][1] = r2;
    }
    return 0;
give_up:
    memset(a, 0, sizeof *a);
    return -1;
}

int matcher_prefilter(const char *pattern, struct prefilter *pf) {
    struct analysis a;
    matcher_analyze(pattern, &a);
    *pf = a.pf;
    return pf->n;
}

int matcher_compile(struct matcher *m, const char *pattern, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    /* ripgrep wraps every pattern in a group (and ends an (?x) one with a
     * newline so a trailing comment cannot eat the ')'). */
    char wrapped[8192];
    int x = strstr(pattern, "(?x") != NULL;
    int n = snprintf(wrapped, sizeof wrapped, "(?:%s%s)", pattern, x ? "\n" : "");
    if (n < 0 || (size_t)n >= sizeof wrapped) {
        snprintf(err, errlen, "pattern '%.60s...' is longer than %zu bytes", pattern,
                 sizeof wrapped - 8);
        return -1;
    }
    int ec;
    PCRE2_SIZE eo;
    m->code = pcre2_compile((PCRE2_SPTR)wrapped, (PCRE2_SIZE)n,
                            PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE, &ec, &eo, NULL);
    if (!m->code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        size_t off = eo >= 3 ? eo - 3 : 0;
        if (off > strlen(pattern))
            off = strlen(pattern);
        snprintf(err, errlen, "invalid pattern '%s': %s at offset %zu", pattern, (char *)msg, off);
        return -1;
    }
    m->jit = pcre2_jit_compile(m->code, PCRE2_JIT_COMPLETE) == 0;
    m->md = pcre2_match_data_create_from_pattern(m->code, NULL);
    m->mctx = pcre2_match_context_create(NULL);
    if (!m->md || !m->mctx)
        goto oom;
    pcre2_set_match_limit(m->mctx, MATCH_LIMIT);
    pcre2_set_depth_limit(m->mctx, DEPTH_LIMIT);
    pcre2_set_heap_limit(m->mctx, HEAP_LIMIT_KIB);
    if (m->jit) {
        /* The default JIT stack is 32 KiB on the machine stack; size it
         * ourselves so deep patterns fail with an error, not a crash. */
        m->jstack = pcre2_jit_stack_create(JIT_STACK_START, JIT_STACK_MAX, NULL);
        if (!m->jstack)
            goto oom;
        pcre2_jit_stack_assign(m->mctx, NULL, m->jstack);
    }
    m->per_line = matcher_needs_per_line(pattern);
    struct analysis a;
    matcher_analyze(pattern, &a);
    uint32_t fct = 0, fcu = 0, lct = 0, lcu = 0, minlen = 0;
    const uint8_t *bitmap = NULL;
    pcre2_pattern_info(m->code, PCRE2_INFO_FIRSTCODETYPE, &fct);
    pcre2_pattern_info(m->code, PCRE2_INFO_FIRSTCODEUNIT, &fcu);
    pcre2_pattern_info(m->code, PCRE2_INFO_LASTCODETYPE, &lct);
    pcre2_pattern_info(m->code, PCRE2_INFO_LASTCODEUNIT, &lcu);
    pcre2_pattern_info(m->code, PCRE2_INFO_MINLENGTH, &minlen);
    pcre2_pattern_info(m->code, PCRE2_INFO_FIRSTBITMAP, &bitmap);
    /* With AVX2 the literal scan is at least as quick as PCRE2's own scan
     * for a first code unit (callgrind, CPython's Lib/test and Linux's
     * kernel/: equal within 5%, often well below), and it spares a JIT call
     * where a line only starts like a match (ret = vs return); literals
     * alone need no PCRE2 at all. So literals, when there are any. */
    m->pf = a.pf;
    m->runs = a.runs;
    /* Undecoded text is searched for the literals only when none holds
     * U+FFFD, which decoding writes where the raw text has none. */
    m->raw_ok = m->pf.n > 0;
    for (int k = 0; k < m->pf.n; k++)
        if (memmem(m->pf.lit[k], m->pf.len[k], "\xEF\xBF\xBD", 3))
            m->raw_ok = 0;
    if (!m->pf.n)
        m->chain = a.chain;
    /* A match needs a byte >= 0x80 when PCRE2 says its first or a required
     * code unit is one, or its first byte can only be one, or the analysis
     * found a non-ASCII atom in every alternative. */
    int high_start = bitmap != NULL;
    for (int b = 0; bitmap && b < 128; b++)
        if (bitmap[b >> 3] & (1u << (b & 7)))
            high_start = 0;
    m->nonascii =
        a.nonascii || (fct == 1 && fcu >= 0x80) || (lct == 1 && lcu >= 0x80) || high_start;
    m->minlen = minlen;
    if (a.endf) {
        m->endf = 1;
        memcpy(m->endset, a.endset, 16);
        memset(m->endset + 16, 0xFF, 16); /* a line ending in a non-ASCII character */
        if (!m->pf.n && !m->chain.n) {
            /* Found by the chain scan: a byte of the end set, then '\n' (and
             * the buffer's last line on its own). */
            uint8_t nl[16] = {0};
            nl['\n' >> 3] = 1u << ('\n' & 7);
            chain_add(&m->chain, a.endset, 1);
            chain_add(&m->chain, nl, 0);
            m->chain.end = 1;
        }
    }
    return 0;
oom:
    matcher_free(m);
    snprintf(err, errlen, "pattern '%s': out of memory setting up the matcher", pattern);
    return -1;
}

void matcher_free(struct matcher *m) {
    if (m->jstack)
        pcre2_jit_stack_free(m->jstack);
    pcre2_match_context_free(m->mctx);
    pcre2_match_data_free(m->md);
    pcre2_code_free(m->code);
    memset(m, 0, sizeof *m);
}

/* 1 match, 0 none, -1 error. The subject is valid UTF-8: the reader
 * transcodes what is not, as ripgrep does. */
static int find(struct matcher *m, const char *s, size_t len, size_t start, char *err,
                size_t errlen) {
    int rc = m->jit ? pcre2_jit_match(m->code, (PCRE2_SPTR)s, len, start, PCRE2_NO_UTF_CHECK, m->md,
                                      m->mctx)
                    : pcre2_match(m->code, (PCRE2_SPTR)s, len, start, PCRE2_NO_UTF_CHECK, m->md,
                                  m->mctx);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    PCRE2_UCHAR msg[160];
    pcre2_get_error_message(rc, msg, sizeof msg);
    snprintf(err, errlen, "PCRE2 gave up: %s", (char *)msg);
    return -1;
}

/* Match one line's text[0..tlen) on its own, as ripgrep does, counting it
 * into *n; the line ends at le of a buffer of len bytes. Returns -1 on a
 * PCRE2 failure, 1 when stop_first and it matched (*first_end set past its
 * '\n'), else 0. */
static int match_text(struct matcher *m, const char *text, size_t tlen, size_t le, size_t len,
                      int64_t *n, int stop_first, size_t *first_end, char *err, size_t errlen) {
    int r = find(m, text, tlen, 0, err, errlen);
    if (r < 0)
        return -1;
    if (r) {
        (*n)++;
        if (stop_first) {
            *first_end = le < len ? le + 1 : le;
            return 1;
        }
    }
    return 0;
}

/* The line buf[ls, le). */
static int match_line(struct matcher *m, const char *buf, size_t ls, size_t le, size_t len,
                      int64_t *n, int stop_first, size_t *first_end, char *err, size_t errlen) {
    return match_text(m, buf + ls, le - ls, le, len, n, stop_first, first_end, err, errlen);
}

static int64_t count_per_line(struct matcher *m, const char *buf, size_t len, int stop_first,
                              size_t *first_end, char *err, size_t errlen) {
    int64_t n = 0;
    size_t ls = 0;
    while (ls < len) {
        const char *nl = memchr(buf + ls, '\n', len - ls);
        size_t le = nl ? (size_t)(nl - buf) : len;
        int r = match_line(m, buf, ls, le, len, &n, stop_first, first_end, err, errlen);
        if (r)
            return r < 0 ? -1 : n;
        ls = le + 1;
    }
    return n;
}

static int lit_eq(const char *s, const char *lit, size_t n, int icase) {
    if (!icase)
        return memcmp(s, lit, n) == 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i], l = (unsigned char)lit[i];
        if (c != l && !(is_alpha(l) && (c | 0x20) == l))
            return 0;
    }
    return 1;
}

#ifdef SEARCH_AVX2
/* 32 candidate starts at p: where the two rare bytes are (caseless: a
 * letter compared with its 0x20 bit set), one byte of 0xFF each. */
__attribute__((target("avx2"))) static inline __m256i pair_avx2(const char *p, size_t r1, size_t r2,
                                                                __m256i a, __m256i b, __m256i fa,
                                                                __m256i fb, int icase) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + r1));
    __m256i y = _mm256_loadu_si256((const __m256i *)(const void *)(p + r2));
    if (icase)
        x = _mm256_or_si256(x, fa), y = _mm256_or_si256(y, fb);
    return _mm256_and_si256(_mm256_cmpeq_epi8(x, a), _mm256_cmpeq_epi8(y, b));
}

/* The candidates of mask (bit k: the start at + k) confirmed in full, in
 * order: the first that holds the literal, or SIZE_MAX. */
static inline size_t confirm(const char *buf, size_t at, unsigned mask, const char *lit, size_t ll,
                             int icase) {
    for (; mask; mask &= mask - 1) {
        size_t c = at + (size_t)__builtin_ctz(mask);
        if (lit_eq(buf + c, lit, ll, icase))
            return c;
    }
    return SIZE_MAX;
}

/* The same scan, 128 candidate starts a round (four compares of 32 ORed and
 * tested at once: most rounds find nothing), then 32 at a time: where the
 * CPU has AVX2 (checked at run time; the build targets baseline x86-64).
 * icase is a constant in each caller's copy, so the case-sensitive scan
 * does no OR. Returns the first candidate confirmed, or where the scalar
 * tail must go on. */
__attribute__((target("avx2"))) static inline size_t
lit_scan_avx2_body(const char *buf, size_t i, size_t last, const char *lit, size_t ll, size_t r1,
                   size_t r2, int icase, int *found) {
    const __m256i a = _mm256_set1_epi8(lit[r1]), b = _mm256_set1_epi8(lit[r2]);
    const __m256i fa = _mm256_set1_epi8(icase && is_alpha(lit[r1]) ? 0x20 : 0);
    const __m256i fb = _mm256_set1_epi8(icase && is_alpha(lit[r2]) ? 0x20 : 0);
    size_t c;
    for (; i + 128 <= last + 1; i += 128) {
        __m256i m0 = pair_avx2(buf + i, r1, r2, a, b, fa, fb, icase);
        __m256i m1 = pair_avx2(buf + i + 32, r1, r2, a, b, fa, fb, icase);
        __m256i m2 = pair_avx2(buf + i + 64, r1, r2, a, b, fa, fb, icase);
        __m256i m3 = pair_avx2(buf + i + 96, r1, r2, a, b, fa, fb, icase);
        __m256i any = _mm256_or_si256(_mm256_or_si256(m0, m1), _mm256_or_si256(m2, m3));
        if (_mm256_testz_si256(any, any))
            continue;
        const __m256i m[4] = {m0, m1, m2, m3};
        for (int k = 0; k < 4; k++) {
            c = confirm(buf, i + 32 * (size_t)k, (unsigned)_mm256_movemask_epi8(m[k]), lit, ll,
                        icase);
            if (c != SIZE_MAX) {
                *found = 1;
                return c;
            }
        }
    }
    for (; i + 32 <= last + 1; i += 32) {
        c = confirm(buf, i,
                    (unsigned)_mm256_movemask_epi8(pair_avx2(buf + i, r1, r2, a, b, fa, fb, icase)),
                    lit, ll, icase);
        if (c != SIZE_MAX) {
            *found = 1;
            return c;
        }
    }
    *found = 0;
    return i;
}

__attribute__((target("avx2"))) static size_t lit_scan_avx2(const char *buf, size_t i, size_t last,
                                                            const char *lit, size_t ll, size_t r1,
                                                            size_t r2, int icase, int *found) {
    return icase ? lit_scan_avx2_body(buf, i, last, lit, ll, r1, r2, 1, found)
                 : lit_scan_avx2_body(buf, i, last, lit, ll, r1, r2, 0, found);
}
#endif

/* First occurrence of literal k in buf[from..len), or SIZE_MAX. Sixteen
 * (AVX2: 32) candidate starts at a time are tested on the literal's two
 * rarest bytes (caseless: a letter compared with its 0x20 bit set), the
 * survivors confirmed in full. */
static size_t lit_find(const struct prefilter *pf, int k, const char *buf, size_t from,
                       size_t len) {
    size_t ll = pf->len[k];
    const char *lit = pf->lit[k];
    int icase = pf->icase;
    if (from + ll > len)
        return SIZE_MAX;
    size_t last = len - ll; /* the last possible start */
    size_t i = from;
    if (ll == 1 && !icase) {
        const char *p = memchr(buf + from, lit[0], len - from);
        return p ? (size_t)(p - buf) : SIZE_MAX;
    }
    /* Starts i..i+15 (31) are all <= last, so loads end at last + ll - 1 < len. */
    size_t r1 = pf->rare[k][0], r2 = pf->rare[k][1];
    const unsigned char ca = (unsigned char)lit[r1], cb = (unsigned char)lit[r2];
    const unsigned char fa = icase && is_alpha(lit[r1]) ? 0x20 : 0;
    const unsigned char fb = icase && is_alpha(lit[r2]) ? 0x20 : 0;
#ifdef SEARCH_AVX2
    if (__builtin_cpu_supports("avx2")) {
        int found;
        i = lit_scan_avx2(buf, i, last, lit, ll, r1, r2, icase, &found);
        if (found)
            return i;
    }
#endif
#if defined(SEARCH_SSE2)
    const __m128i a = _mm_set1_epi8((char)ca), b = _mm_set1_epi8((char)cb);
    const __m128i va = _mm_set1_epi8((char)fa), vb = _mm_set1_epi8((char)fb);
    for (; i + 16 <= last + 1; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(buf + i + r1));
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(buf + i + r2));
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(
            _mm_cmpeq_epi8(_mm_or_si128(x, va), a), _mm_cmpeq_epi8(_mm_or_si128(y, vb), b)));
        while (mask) {
            size_t at = i + (size_t)__builtin_ctz(mask);
            if (lit_eq(buf + at, lit, ll, icase))
                return at;
            mask &= mask - 1;
        }
    }
#elif defined(SEARCH_NEON)
    const uint8x16_t a = vdupq_n_u8(ca), b = vdupq_n_u8(cb);
    const uint8x16_t va = vdupq_n_u8(fa), vb = vdupq_n_u8(fb);
    const uint8_t *u = (const uint8_t *)buf;
    for (; i + 16 <= last + 1; i += 16) {
        uint8x16_t x = vld1q_u8(u + i + r1), y = vld1q_u8(u + i + r2);
        uint8x16_t eq = vandq_u8(vceqq_u8(vorrq_u8(x, va), a), vceqq_u8(vorrq_u8(y, vb), b));
        uint64_t mask = neon_mask4(eq) & 0x8888888888888888ull; /* one bit per byte */
        while (mask) {
            size_t at = i + (size_t)(__builtin_ctzll(mask) >> 2);
            if (lit_eq(buf + at, lit, ll, icase))
                return at;
            mask &= mask - 1;
        }
    }
#endif
    /* The rest, or all of it without vector scans: where the rarer byte's
     * case does not matter, libc's memchr (fast on every ISA) jumps to it;
     * else each start is tested on the two rare bytes inline before the full
     * compare (a memcmp call per byte was 10x slower). */
    if (!fa) {
        while (i <= last) {
            const char *p = memchr(buf + i + r1, ca, last - i + 1);
            if (!p)
                return SIZE_MAX;
            i = (size_t)(p - buf) - r1;
            if (((unsigned char)buf[i + r2] | fb) == cb && lit_eq(buf + i, lit, ll, icase))
                return i;
            i++;
        }
        return SIZE_MAX;
    }
    for (; i <= last; i++)
        if (((unsigned char)buf[i + r1] | fa) == ca && ((unsigned char)buf[i + r2] | fb) == cb &&
            lit_eq(buf + i, lit, ll, icase))
            return i;
    return SIZE_MAX;
}

/* Where literal r of the runs next occurs in buf[from, to), or NULL. */
static const char *run_find(const struct runs *rs, int r, const char *buf, size_t from, size_t to) {
    size_t ll = rs->len[r];
    const char *lit = rs->lit[r];
    if (!rs->icase) /* glibc's memmem makes a one-byte needle cost twice memchr */
        return ll == 1 ? memchr(buf + from, lit[0], to - from)
                       : memmem(buf + from, to - from, lit, ll);
    for (size_t i = from; i + ll <= to; i++)
        if (lit_eq(buf + i, lit, ll, 1))
            return buf + i;
    return NULL;
}

/* Whether the line buf[ls, le) can match at all: by its length, its last
 * byte, and the pattern's literal runs in order. */
static int line_ok(const struct matcher *m, const char *buf, size_t ls, size_t le) {
    if (le - ls < m->minlen)
        return 0;
    if (m->endf) {
        if (le == ls)
            return 0;
        unsigned char c = (unsigned char)buf[le - 1];
        if (!(m->endset[c >> 3] >> (c & 7) & 1))
            return 0;
    }
    if (m->runs.n > 1) {
        size_t at = ls;
        for (int r = 0; r < m->runs.n; r++) {
            const char *p = run_find(&m->runs, r, buf, at, le);
            if (!p)
                return 0;
            at = (size_t)(p - buf) + m->runs.len[r];
        }
    }
    return 1;
}

#ifdef SEARCH_AVX2
/* The chain's scan, 32 starts at a time: each position's byte looked up in
 * its set by nibbles (vpshufb): bit h of lo[b & 15] says whether byte
 * h*16 + (b & 15) is in the set, for the ASCII half; a byte >= 0x80 is in
 * when the set's upper half is. */
__attribute__((target("avx2"))) static size_t
chain_scan_avx2(const struct chain *c, const char *buf, size_t i, size_t last, int *found) {
    const __m256i nib = _mm256_set1_epi8(0x0F), zero = _mm256_setzero_si256();
    const __m256i hibit =
        _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, (char)128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16,
                         32, 64, (char)128, 0, 0, 0, 0, 0, 0, 0, 0);
    __m256i lo[CHAIN_MAX];
    int high[CHAIN_MAX];
    for (int j = 0; j < c->n; j++) {
        lo[j] =
            _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)c->lo[j]));
        high[j] = c->set[j][16] != 0;
    }
    for (; i + 32 <= last + 1; i += 32) {
        __m256i acc = _mm256_set1_epi8(-1);
        for (int j = 0; j < c->n; j++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(buf + i + j));
            __m256i t = _mm256_and_si256(
                _mm256_shuffle_epi8(lo[j], _mm256_and_si256(x, nib)),
                _mm256_shuffle_epi8(hibit, _mm256_and_si256(_mm256_srli_epi16(x, 4), nib)));
            __m256i in = _mm256_xor_si256(_mm256_cmpeq_epi8(t, zero), _mm256_set1_epi8(-1));
            if (high[j])
                in = _mm256_or_si256(in, x); /* the top bit of x: a byte >= 0x80 */
            acc = _mm256_and_si256(acc, in);
        }
        unsigned mask = (unsigned)_mm256_movemask_epi8(acc);
        if (mask) {
            *found = 1;
            return i + (size_t)__builtin_ctz(mask);
        }
    }
    *found = 0;
    return i;
}
#endif

#ifdef SEARCH_NEON
/* The same, 16 starts at a time with NEON's table lookup (TBL), which reads
 * a 16-byte table as vpshufb does one lane. */
static size_t chain_scan_neon(const struct chain *c, const char *buf, size_t i, size_t last,
                              int *found) {
    static const uint8_t hb[16] = {1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t nib = vdupq_n_u8(0x0F), hibit = vld1q_u8(hb), top = vdupq_n_u8(0x80);
    const uint8_t *u = (const uint8_t *)buf;
    uint8x16_t lo[CHAIN_MAX];
    int high[CHAIN_MAX];
    for (int j = 0; j < c->n; j++) {
        lo[j] = vld1q_u8(c->lo[j]);
        high[j] = c->set[j][16] != 0;
    }
    for (; i + 16 <= last + 1; i += 16) {
        uint8x16_t acc = vdupq_n_u8(0xFF);
        for (int j = 0; j < c->n; j++) {
            uint8x16_t x = vld1q_u8(u + i + (size_t)j);
            uint8x16_t t =
                vandq_u8(vqtbl1q_u8(lo[j], vandq_u8(x, nib)), vqtbl1q_u8(hibit, vshrq_n_u8(x, 4)));
            uint8x16_t in = vtstq_u8(t, t);
            if (high[j])
                in = vorrq_u8(in, vcgeq_u8(x, top)); /* a byte >= 0x80 */
            acc = vandq_u8(acc, in);
        }
        uint64_t mask = neon_mask4(acc);
        if (mask) {
            *found = 1;
            return i + (size_t)(__builtin_ctzll(mask) >> 2);
        }
    }
    *found = 0;
    return i;
}
#endif

/* The next start of the chain in buf[from, len), or SIZE_MAX. */
static size_t chain_find(const struct chain *c, const char *buf, size_t from, size_t len) {
    if (from + (size_t)c->n > len)
        return SIZE_MAX;
    size_t last = len - (size_t)c->n, i = from;
#ifdef SEARCH_AVX2
    if (__builtin_cpu_supports("avx2")) {
        int found;
        i = chain_scan_avx2(c, buf, i, last, &found);
        if (found)
            return i;
    }
#elif defined(SEARCH_NEON)
    int found;
    i = chain_scan_neon(c, buf, i, last, &found);
    if (found)
        return i;
#endif
    for (; i <= last; i++) {
        int j = 0;
        while (j < c->n && (c->set[j][(unsigned char)buf[i + j] >> 3] >> (buf[i + j] & 7) & 1))
            j++;
        if (j == c->n)
            return i;
    }
    return SIZE_MAX;
}

/* With a chain (no literals): only the lines holding it are matched, each
 * on its own. */
static int64_t count_chained(struct matcher *m, const char *buf, size_t len, int stop_first,
                             size_t *first_end, char *err, size_t errlen) {
    int64_t n = 0;
    size_t ls = 0;
    while (ls < len) {
        size_t at = chain_find(&m->chain, buf, ls, len);
        if (at == SIZE_MAX)
            break;
        const char *p = at > ls ? memrchr(buf + ls, '\n', at - ls) : NULL;
        if (p)
            ls = (size_t)(p - buf) + 1;
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t le = nl ? (size_t)(nl - buf) : len;
        if (line_ok(m, buf, ls, le)) {
            int r = match_line(m, buf, ls, le, len, &n, stop_first, first_end, err, errlen);
            if (r)
                return r < 0 ? -1 : n;
        }
        ls = le + 1;
    }
    /* An end chain ends in '\n': the last line, when it has none, is
     * checked on its own. */
    if (m->chain.end && len && buf[len - 1] != '\n') {
        const char *p = memrchr(buf, '\n', len);
        size_t last = p ? (size_t)(p - buf) + 1 : 0;
        if (last >= ls && line_ok(m, buf, last, len)) {
            int r = match_line(m, buf, last, len, len, &n, stop_first, first_end, err, errlen);
            if (r)
                return r < 0 ? -1 : n;
        }
    }
    return n;
}

/* The line buf[ls, le) of undecoded text, which holds invalid UTF-8:
 * decoded into scratch, then checked and matched as match_line does. */
static int match_decoded_line(struct matcher *m, const char *buf, size_t ls, size_t le, size_t len,
                              char *scratch, int64_t *n, int stop_first, size_t *first_end,
                              char *err, size_t errlen) {
    size_t dl = utf8_lossy(buf + ls, le - ls, scratch);
    if (!line_ok(m, scratch, 0, dl))
        return 0;
    return match_text(m, scratch, dl, le, len, n, stop_first, first_end, err, errlen);
}

/* With a prefilter: only the lines holding one of the literals are matched,
 * each on its own as ripgrep matches it (so any pattern whose literals are
 * required gets ripgrep's per-line result, look-around or not); when the
 * pattern is nothing but its literals, holding one is matching. The
 * literals are searched in buf as it is: decoded already (scratch NULL), or
 * undecoded (matcher_count_raw), when a line holding one is decoded before
 * PCRE2 sees it if it is not valid UTF-8 (ascii: buf is all ASCII, so
 * valid). */
static int64_t count_prefiltered(struct matcher *m, const char *buf, size_t len, int stop_first,
                                 char *scratch, int ascii, size_t *first_end, char *err,
                                 size_t errlen) {
    const struct prefilter *pf = &m->pf;
    size_t next[PREFILTER_MAX]; /* next occurrence of each literal, SIZE_MAX: none */
    int64_t n = 0;
    size_t ls = 0; /* always a line start */
    for (int k = 0; k < pf->n; k++)
        next[k] = lit_find(pf, k, buf, 0, len);
    while (ls < len) {
        size_t at = SIZE_MAX;
        for (int k = 0; k < pf->n; k++) {
            if (next[k] < ls)
                next[k] = lit_find(pf, k, buf, ls, len);
            if (next[k] < at)
                at = next[k];
        }
        if (at == SIZE_MAX)
            break;
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t le = nl ? (size_t)(nl - buf) : len;
        if (pf->pure) {
            n++;
            if (stop_first) {
                *first_end = le < len ? le + 1 : le;
                return n;
            }
        } else {
            const char *p = at > ls ? memrchr(buf + ls, '\n', at - ls) : NULL;
            if (p)
                ls = (size_t)(p - buf) + 1;
            int r = 0;
            if (scratch && !ascii && utf8_valid_upto(buf + ls, le - ls) < le - ls)
                r = match_decoded_line(m, buf, ls, le, len, scratch, &n, stop_first, first_end, err,
                                       errlen);
            else if (line_ok(m, buf, ls, le))
                r = match_line(m, buf, ls, le, len, &n, stop_first, first_end, err, errlen);
            if (r)
                return r < 0 ? -1 : n;
        }
        ls = le + 1;
    }
    return n;
}

#if defined(SEARCH_SSE2) || defined(SEARCH_NEON)
/* Bit k set when p[k] is '\n', for the 64 bytes at p. */
static inline uint64_t newlines64(const char *p) {
#if defined(SEARCH_SSE2)
    const __m128i nl = _mm_set1_epi8('\n');
    uint64_t m = 0;
    for (int k = 0; k < 4; k++)
        m |= (uint64_t)(unsigned)_mm_movemask_epi8(
                 _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k)), nl))
             << (16 * k);
    return m;
#else
    /* neon_mask4 gives four bits a byte: keep one of each four, then pack
     * the 16 bits of each block (bit 4j+3 -> bit j). */
    const uint8x16_t nl = vdupq_n_u8('\n');
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
        uint64_t b =
            neon_mask4(vceqq_u8(vld1q_u8((const uint8_t *)p + 16 * k), nl)) & 0x8888888888888888ull;
        for (uint64_t x = b; x; x &= x - 1)
            m |= 1ull << (16 * k + (__builtin_ctzll(x) >> 2));
    }
    return m;
#endif
}
#endif

/* Without literals but with a condition on a line's length or last byte
 * (X$, ^.{200,}): every line is checked on its own, and only those that
 * pass it are matched. Most lines fail, so the lines are found 64 bytes a
 * step from a bitmap of their '\n's (a memchr call per line cost more than
 * the rest of the search: "[^"]{40,}" over CPython, 96 M instructions of
 * 346 M), their length and last byte tested inline. */
static int64_t count_line_filtered(struct matcher *m, const char *buf, size_t len, int stop_first,
                                   size_t *first_end, char *err, size_t errlen) {
    int64_t n = 0;
    size_t ls = 0, at = 0;
#if defined(SEARCH_SSE2) || defined(SEARCH_NEON)
    for (; at + 64 <= len; at += 64) {
        for (uint64_t nls = newlines64(buf + at); nls; nls &= nls - 1) {
            size_t le = at + (size_t)__builtin_ctzll(nls);
            if (le - ls >= m->minlen && line_ok(m, buf, ls, le)) {
                int r = match_line(m, buf, ls, le, len, &n, stop_first, first_end, err, errlen);
                if (r)
                    return r < 0 ? -1 : n;
            }
            ls = le + 1;
        }
    }
#endif
    (void)at;
    while (ls < len) {
        const char *nl = memchr(buf + ls, '\n', len - ls);
        size_t le = nl ? (size_t)(nl - buf) : len;
        if (line_ok(m, buf, ls, le)) {
            int r = match_line(m, buf, ls, le, len, &n, stop_first, first_end, err, errlen);
            if (r)
                return r < 0 ? -1 : n;
        }
        ls = le + 1;
    }
    return n;
}

int64_t matcher_count(struct matcher *m, const char *buf, size_t len, unsigned flags,
                      size_t *first_end, char *err, size_t errlen) {
    int stop_first = (flags & MATCH_STOP_FIRST) != 0;
    if ((flags & MATCH_ASCII) && m->nonascii)
        return 0;
    if (m->pf.n > 0)
        return count_prefiltered(m, buf, len, stop_first, NULL, 1, first_end, err, errlen);
    if (m->chain.n > 0)
        return count_chained(m, buf, len, stop_first, first_end, err, errlen);
    if (m->endf || m->minlen >= LINE_FILTER_MINLEN)
        return count_line_filtered(m, buf, len, stop_first, first_end, err, errlen);
    if (m->per_line)
        return count_per_line(m, buf, len, stop_first, first_end, err, errlen);
    int64_t n = 0;
    size_t start = 0;
    while (start < len) {
        int r = find(m, buf, len, start, err, errlen);
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
        size_t s = ov[0], e = ov[1];
        if (s >= len && buf[len - 1] == '\n') /* after the last '\n' there is no line */
            break;
        const char *p = s > start ? memrchr(buf + start, '\n', s - start) : NULL;
        size_t ls = p ? (size_t)(p - buf) + 1 : start;
        const char *nl = memchr(buf + s, '\n', len - s);
        size_t le = nl ? (size_t)(nl - buf) : len;
        int hit = 1;
        if (e > le) { /* ran over the '\n': decide this line on its own */
            hit = find(m, buf + ls, le - ls, 0, err, errlen);
            if (hit < 0)
                return -1;
        }
        if (hit) {
            n++;
            if (stop_first) {
                *first_end = nl ? le + 1 : le;
                return n;
            }
        }
        start = le + 1;
    }
    return n;
}

int64_t matcher_count_raw(struct matcher *m, const char *buf, size_t len, unsigned flags,
                          char *scratch, size_t *first_end, char *err, size_t errlen) {
    if (!m->raw_ok || !m->pf.n) { /* a caller's mistake: never count undecoded text otherwise */
        snprintf(err, errlen, "undecoded text given to a matcher that needs it decoded");
        return -1;
    }
    if ((flags & MATCH_ASCII) && m->nonascii)
        return 0;
    return count_prefiltered(m, buf, len, (flags & MATCH_STOP_FIRST) != 0, scratch,
                             (flags & MATCH_ASCII) != 0, first_end, err, errlen);
}
