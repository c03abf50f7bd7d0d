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
 * Patterns in which PCRE2 finds no first code unit to scan for (\w+Error\b)
 * are slow over a whole buffer: PCRE2 tries a match at nearly every byte.
 * For those, literals that every match must contain are extracted from the
 * pattern (matcher_prefilter(), conservative), and only the lines holding
 * one are matched, each alone: ripgrep's own per-line semantics. */
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "search_match.h"

/* PCRE2's own default match limit, which ripgrep keeps: a pathological
 * pattern fails with an error instead of hanging the worker. */
#define MATCH_LIMIT 10000000u
#define DEPTH_LIMIT 100000u
#define HEAP_LIMIT_KIB 65536u /* interpreter fallback: 64 MiB of backtracking at most */
#define JIT_STACK_START (32u << 10)
#define JIT_STACK_MAX (4u << 20)

int matcher_needs_per_line(const char *p) {
    static const char *const tokens[] = {"(?=", "(?!", "(?<=", "(?<!", "(*", "\\A", "\\z",
                                         "\\Z", "\\G", "(?^", NULL};
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

/* ---- required literals (the prefilter) ---- */

static int is_digit(int c) {
    return c >= '0' && c <= '9';
}
static int is_alpha(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Length of the quantifier at p (0: none, -1: something we do not take for
 * one: give up). A quantifier may be followed by '+' (possessive) or '?'
 * (lazy). */
static int quant_len(const char *p) {
    int k;
    if (*p == '*' || *p == '+' || *p == '?')
        k = 1;
    else if (*p == '{') {
        k = 1;
        if (!is_digit(p[k]))
            return -1; /* "{,m}" or a literal '{': version-dependent, give up */
        while (is_digit(p[k]))
            k++;
        if (p[k] == ',')
            for (k++; is_digit(p[k]); k++)
                ;
        if (p[k] != '}')
            return -1;
        k++;
    } else
        return 0;
    if (p[k] == '+' || p[k] == '?')
        k++;
    if (p[k] == '*' || p[k] == '+' || p[k] == '?' || p[k] == '{')
        return -1;
    return k;
}

int matcher_prefilter(const char *pattern, struct prefilter *pf) {
    const unsigned char *p = (const unsigned char *)pattern;
    size_t i = 0, run = 0, best = 0;
    int full = 0;
    char runbuf[PREFILTER_LEN], bestbuf[PREFILTER_LEN];
    int depth = 0;
    memset(pf, 0, sizeof *pf);
    for (;;) {
        unsigned c = p[i];
        if (c == 0 || (c == '|' && depth == 0)) { /* end of a top-level alternative */
            if (best < 2 || pf->n == PREFILTER_MAX)
                goto give_up;
            memcpy(pf->lit[pf->n], bestbuf, best);
            pf->len[pf->n++] = best;
            if (c == 0)
                break;
            i++;
            run = best = 0, full = 0;
            continue;
        }
        /* One atom: [i, i + alen); lit = its bytes when a plain literal. */
        size_t alen;
        int lit = 0, group = 0;
        if (c == '|') { /* inside a group: skipped with it */
            alen = 1;
        } else if (c == '(') {
            if (p[i + 1] == '?' && p[i + 2] == ':')
                alen = 3;
            else if (p[i + 1] == '?' || p[i + 1] == '*')
                goto give_up; /* options, look-around, named groups, verbs... */
            else
                alen = 1;
            depth++;
            group = 1; /* no quantifier right after '(' */
        } else if (c == ')') {
            if (--depth < 0)
                goto give_up;
            alen = 1;
        } else if (c == '\\') {
            unsigned n = p[i + 1];
            if (n > 0x20 && n < 0x7f && !is_alpha((int)n) && !is_digit((int)n)) {
                alen = 2, lit = 1; /* escaped punctuation: that byte */
            } else if (n && strchr("wWdDsShHbB", (int)n)) {
                alen = 2;
            } else if (n == 'p' || n == 'P') {
                if (p[i + 2] == '{') {
                    alen = 3;
                    while (is_alpha(p[i + alen]) || is_digit(p[i + alen]) ||
                           (p[i + alen] && strchr("_^&:= -", p[i + alen])))
                        alen++;
                    if (p[i + alen] != '}')
                        goto give_up;
                    alen++;
                } else if (is_alpha(p[i + 2])) {
                    alen = 3;
                } else
                    goto give_up;
            } else if (n >= '1' && n <= '9' && !is_digit(p[i + 2])) {
                alen = 2; /* a back reference: never part of a literal run */
            } else
                goto give_up;
        } else if (c == '.' || c == '^' || c == '$') {
            alen = 1;
        } else if (c < 0x20 || c == 0x7f || strchr("[]{}*+?", (int)c)) {
            goto give_up;
        } else {
            alen = 1, lit = 1;
            if (c >= 0x80) { /* one whole UTF-8 character (PCRE2 checked the pattern) */
                while ((p[i + alen] & 0xC0) == 0x80)
                    alen++;
            }
        }
        int q = group ? 0 : quant_len((const char *)p + i + alen);
        if (q < 0)
            goto give_up;
        if (lit && q == 0 && depth == 0) {
            const unsigned char *b = p + i + (c == '\\');
            size_t bl = c == '\\' ? 1 : alen;
            if (!full && run + bl <= PREFILTER_LEN) {
                memcpy(runbuf + run, b, bl);
                run += bl;
                if (run > best) {
                    best = run;
                    memcpy(bestbuf, runbuf, run);
                }
            } else {
                full = 1; /* keep the prefix: the run stays contiguous */
            }
        } else {
            run = 0, full = 0; /* anything else ends the run */
        }
        i += alen + (size_t)q;
    }
    if (depth != 0)
        goto give_up;
    /* Bytes of source code from common to rare (roughly); absent ones are
     * rarer still. The scan looks for each literal's two rarest bytes. */
    static const char common[] = " etainorsl_cdu\tpmf()h,;*b=g.>-xyk\"wv:0'1{}/[]#&TSERANIOLC";
    for (int k = 0; k < pf->n; k++) {
        size_t rank[PREFILTER_LEN];
        for (size_t j = 0; j < pf->len[k]; j++) {
            const char *h = pf->lit[k][j] ? strchr(common, pf->lit[k][j]) : NULL;
            rank[j] = h ? (size_t)(h - common) : sizeof common;
        }
        size_t r1 = 0, r2 = 1;
        for (size_t j = 1; j < pf->len[k]; j++)
            if (rank[j] > rank[r1])
                r1 = j;
        r2 = r1 == 0 ? 1 : 0;
        for (size_t j = 0; j < pf->len[k]; j++)
            if (j != r1 && rank[j] > rank[r2])
                r2 = j;
        pf->rare[k][0] = r1, pf->rare[k][1] = r2;
    }
    return pf->n;
give_up:
    memset(pf, 0, sizeof *pf);
    return 0;
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
        snprintf(err, errlen, "invalid pattern '%s': %s at offset %zu", pattern, (char *)msg,
                 off);
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
    /* The prefilter pays where PCRE2 has no first code unit of its own to
     * scan for (\w+Error, (\w+)->\1, a^-anchored line): with one, its
     * whole-buffer scan is already as fast as ours. */
    uint32_t fct = 0;
    if (matcher_prefilter(pattern, &m->pf) > 0 &&
        (pcre2_pattern_info(m->code, PCRE2_INFO_FIRSTCODETYPE, &fct) != 0 || fct == 1))
        memset(&m->pf, 0, sizeof m->pf);
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
    int rc = m->jit ? pcre2_jit_match(m->code, (PCRE2_SPTR)s, len, start, PCRE2_NO_UTF_CHECK,
                                      m->md, m->mctx)
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

/* Match the line buf[ls, le) on its own, as ripgrep does, counting it into
 * *n. Returns -1 on a PCRE2 failure, 1 when stop_first and it matched
 * (*first_end set past its '\n'), else 0. */
static int match_line(struct matcher *m, const char *buf, size_t ls, size_t le, size_t len,
                      int64_t *n, int stop_first, size_t *first_end, char *err, size_t errlen) {
    int r = find(m, buf + ls, le - ls, 0, err, errlen);
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

/* First occurrence of literal k in buf[from..len), or SIZE_MAX. Sixteen
 * candidate starts at a time are tested on the literal's two rarest bytes
 * (SSE2, part of x86-64), the survivors confirmed with memcmp. */
static size_t lit_find(const struct prefilter *pf, int k, const char *buf, size_t from,
                       size_t len) {
    size_t ll = pf->len[k], r1 = pf->rare[k][0], r2 = pf->rare[k][1];
    const char *lit = pf->lit[k];
    if (from + ll > len)
        return SIZE_MAX;
    size_t last = len - ll; /* the last possible start */
    size_t i = from;
#ifdef __SSE2__
    const __m128i a = _mm_set1_epi8(lit[r1]), b = _mm_set1_epi8(lit[r2]);
    /* Starts i..i+15 are all <= last, so the loads end at last + ll - 1 < len. */
    for (; i + 16 <= last + 1; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(buf + i + r1));
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(buf + i + r2));
        unsigned mask = (unsigned)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(x, a), _mm_cmpeq_epi8(y, b)));
        while (mask) {
            size_t at = i + (size_t)__builtin_ctz(mask);
            if (memcmp(buf + at, lit, ll) == 0)
                return at;
            mask &= mask - 1;
        }
    }
#endif
    for (; i <= last; i++)
        if (buf[i + r1] == lit[r1] && memcmp(buf + i, lit, ll) == 0)
            return i;
    return SIZE_MAX;
}

/* With a prefilter: only the lines holding one of the literals are matched,
 * each on its own as ripgrep matches it (so any pattern whose literals are
 * required gets ripgrep's per-line result, look-around or not). buf is what
 * PCRE2 sees (already decoded), so the literals are searched in the same
 * bytes. */
static int64_t count_prefiltered(struct matcher *m, const char *buf, size_t len, int stop_first,
                                 size_t *first_end, char *err, size_t errlen) {
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
        const char *p = at > ls ? memrchr(buf + ls, '\n', at - ls) : NULL;
        if (p)
            ls = (size_t)(p - buf) + 1;
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t le = nl ? (size_t)(nl - buf) : len;
        int r = match_line(m, buf, ls, le, len, &n, stop_first, first_end, err, errlen);
        if (r)
            return r < 0 ? -1 : n;
        ls = le + 1;
    }
    return n;
}

int64_t matcher_count(struct matcher *m, const char *buf, size_t len, unsigned flags,
                      size_t *first_end, char *err, size_t errlen) {
    int stop_first = (flags & MATCH_STOP_FIRST) != 0;
    if (m->pf.n > 0)
        return count_prefiltered(m, buf, len, stop_first, first_end, err, errlen);
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
