/* search_match.h -- one compiled pattern and the line counter built on it.
 *
 * The matcher answers the only question the search asks: which lines of a
 * buffer of whole lines match, with ripgrep's `-P` semantics (each line
 * matched without its `\n`, PCRE2 in UTF + UCP mode, MULTILINE). It knows
 * nothing about files or reading. */
#ifndef AOPS_SEARCH_MATCH_H
#define AOPS_SEARCH_MATCH_H

#include <stddef.h>
#include <stdint.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* Literals of which every match contains at least one (see
 * matcher_analyze()). n == 0: no prefilter. */
#define PREFILTER_MAX 8  /* literals: one per top-level alternative */
#define PREFILTER_LEN 64 /* bytes kept of each (a prefix of a required literal is required) */
struct prefilter {
    int n;
    int icase; /* (?i): the literals are ASCII, lower case, found ignoring ASCII case */
    int pure;  /* the pattern is just these literals: a line matches iff it holds one */
    size_t len[PREFILTER_MAX];
    size_t rare[PREFILTER_MAX][2]; /* offsets of the two rarest bytes: those scanned for */
    char lit[PREFILTER_MAX][PREFILTER_LEN];
};

/* A one-alternative pattern's literal runs, in order: a matching line
 * holds them all, one after the other, not overlapping. */
#define RUNS_MAX 8
struct runs {
    int n;
    int icase;
    size_t len[RUNS_MAX];
    char lit[RUNS_MAX][PREFILTER_LEN]; /* (?i): lower case, found ignoring ASCII case */
};

/* A one-alternative pattern's longest chain of one-character atoms that a
 * match holds side by side (\d+\.\d+: a digit, '.', a digit), as byte
 * sets: a multi-byte character can only be at either end, its bytes all
 * in the set's upper half. */
#define CHAIN_MAX 8
struct chain {
    int n;
    int end;                    /* X$'s chain: the end set, then '\n' */
    uint8_t set[CHAIN_MAX][32]; /* all 256 bytes, one bit each */
    uint8_t lo[CHAIN_MAX][16];  /* ASCII part by low nibble: bit h for byte h*16+lo */
};

/* What a pattern's text says about the lines it can match. */
struct analysis {
    struct prefilter pf;
    struct runs runs;
    struct chain chain;
    int nonascii;       /* every match holds a character outside ASCII */
    int endf;           /* a matching line's last byte is in endset, or >= 0x80 */
    uint8_t endset[16]; /* ASCII bytes, one bit each */
};

struct matcher {
    pcre2_code *code;
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    pcre2_jit_stack *jstack;
    int per_line;        /* the pattern can see past its line: match line by line */
    int jit;             /* JIT compiled */
    struct prefilter pf; /* pf.n > 0: only lines holding a literal are matched */
    struct runs runs;    /* runs.n > 1: only lines holding them all in order */
    struct chain chain;  /* chain.n > 0 (and no literals): only lines holding it */
    int nonascii;        /* an all-ASCII buffer has no match */
    int endf;            /* only lines whose last byte is in endset can match */
    uint8_t endset[32];  /* all 256 bytes, one bit each */
    size_t minlen;       /* a shorter line (in bytes) cannot match */
    int raw_ok;          /* matcher_count_raw may be given undecoded text */
};

/* Compile pattern once (JIT, explicit JIT stack, match and depth limits).
 * Returns 0, or -1 with err = "pattern 'P': PCRE2 message at offset N". */
int matcher_compile(struct matcher *m, const char *pattern, char *err, size_t errlen);
void matcher_free(struct matcher *m);

/* Count the lines of buf[0..len) that match. buf holds whole lines: every
 * line ends in '\n' except perhaps the last (a file's last line without
 * one); it is valid UTF-8 (the engine decodes what is not). flags:
 * MATCH_ASCII: buf is all ASCII (lets a pattern that needs a non-ASCII
 * character skip it); MATCH_STOP_FIRST: stop at the first matching line,
 * *first_end getting its end offset (past the '\n'). Returns the count, or
 * -1 when PCRE2 gave up (match limit: a pathological pattern) with err set.
 * Never allocates. */
#define MATCH_STOP_FIRST 1u
#define MATCH_ASCII 2u
int64_t matcher_count(struct matcher *m, const char *buf, size_t len, unsigned flags,
                      size_t *first_end, char *err, size_t errlen);

/* The same on text that may hold invalid UTF-8, not decoded yet, when
 * m->raw_ok: the pattern is found through its literals, and a literal
 * without U+FFFD is in a line of the raw text exactly when it is in the
 * decoded line (decoding copies valid characters and never joins two
 * across a replaced sequence). So only the lines PCRE2 is asked about are
 * decoded, into scratch (room for 3 * the longest line + 4), and a file of
 * source code is never decoded whole. */
int64_t matcher_count_raw(struct matcher *m, const char *buf, size_t len, unsigned flags,
                          char *scratch, size_t *first_end, char *err, size_t errlen);

/* 1 when the pattern can look outside the line it matches in (look-around,
 * \A \z \Z \G, verbs, options switched off inline): those are matched line
 * by line; everything else searches the whole buffer at once. */
int matcher_needs_per_line(const char *pattern);

/* Read the pattern as ripgrep hands it to PCRE2 and fill a (see the
 * comment in search_match.c for what is understood and what gives up).
 * Never wrong, sometimes silent: every field is a necessary condition for a
 * match or empty. Returns 0, or -1 when the pattern was not understood (a
 * is then all zero). */
int matcher_analyze(const char *pattern, struct analysis *a);

/* The literals alone: fills pf, returns pf->n. */
int matcher_prefilter(const char *pattern, struct prefilter *pf);

/* Code point c as UTF-8 into out (room for 4); returns its length. Inline:
 * the UTF-16 transcoder calls it per code unit. */
static inline size_t utf8_put(char *out, uint32_t c) {
    unsigned char *o = (unsigned char *)out;
    if (c < 0x80) {
        o[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (unsigned char)(0xC0 | c >> 6);
        o[1] = (unsigned char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (unsigned char)(0xE0 | c >> 12);
        o[1] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
        o[2] = (unsigned char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | c >> 18);
    o[1] = (unsigned char)(0x80 | (c >> 12 & 0x3F));
    o[2] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
    o[3] = (unsigned char)(0x80 | (c & 0x3F));
    return 4;
}

#endif
