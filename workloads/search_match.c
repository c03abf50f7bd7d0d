/* search_match.c -- ripgrep `-P` line matching with PCRE2's JIT.
 *
 * ripgrep hands PCRE2 one line at a time (without its '\n'), which costs a
 * JIT call per line. For a pattern that cannot see outside the line it
 * matches in, "this line matches" is the same as "a match of the whole
 * buffer (MULTILINE) starts in this line and stays in it", so we search the
 * whole buffer once and only re-check a line in isolation when a match runs
 * over its '\n' (\s, [^x], (?s). can do that). Patterns with look-around,
 * \A \z \Z \G, verbs or inline options switched off keep the line by line
 * path, where the equivalence does not hold. */
#include <stdio.h>
#include <string.h>

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

static int64_t count_per_line(struct matcher *m, const char *buf, size_t len, int stop_first,
                              size_t *first_end, char *err, size_t errlen) {
    int64_t n = 0;
    size_t ls = 0;
    while (ls < len) {
        const char *nl = memchr(buf + ls, '\n', len - ls);
        size_t le = nl ? (size_t)(nl - buf) : len;
        int r = find(m, buf + ls, le - ls, 0, err, errlen);
        if (r < 0)
            return -1;
        if (r) {
            n++;
            if (stop_first) {
                *first_end = nl ? le + 1 : le;
                return n;
            }
        }
        ls = le + 1;
    }
    return n;
}

int64_t matcher_count(struct matcher *m, const char *buf, size_t len, int last_partial,
                      int stop_first, size_t *first_end, char *err, size_t errlen) {
    (void)last_partial; /* a partial last line simply has no '\n' after it */
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
