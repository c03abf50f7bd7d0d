/* search_engine.c -- walk + reader + matcher: one `rg -P -c` over a tree.
 *
 * The walk feeds the reader a batch of files whenever nothing read is left
 * to search; each file is then searched to its end before the next: a read
 * of READER_CHUNK bytes (the whole of most source files), the whole lines
 * matched at once, the partial last line kept for the next read. So a file
 * of any size is searched in bounded memory, and the bytes matched are the
 * ones the kernel has just copied, still in cache.
 *
 * ripgrep's rules kept here: a NUL byte makes a file binary and stops its
 * search, and `-c` then prints nothing for it; invalid UTF-8 is decoded to
 * U+FFFD before matching; a UTF-8 BOM is dropped; a file that starts with a
 * UTF-16 BOM is transcoded to UTF-8 and its text searched. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/util.h"
#include "../common/walk.h"
#include "search_engine.h"
#include "search_simd.h"

/* ripgrep's line buffer: 64 KiB, grown only for longer lines. */
#define RG_BUFFER (64u << 10)
/* With -P ripgrep transcodes every file (UTF-8 to UTF-8, or UTF-16 after a
 * BOM) through encoding_rs_io, whose input buffer is 8 KiB: its reads,
 * which decide what `rg -l` has searched before it meets a NUL byte, are
 * 8 KiB of input each, after the first 3 bytes (peeked for a BOM) alone. */
#define RG_DECODE_BUFFER (8u << 10)
#define XBUF (3 * (size_t)ENGINE_BUF + 8) /* decoded text: lossy UTF-8 or UTF-16 */

enum enc { ENC_UTF8 = 0, ENC_UTF16LE, ENC_UTF16BE };

/* One file being searched. */
struct file {
    const char *path;
    int64_t count;
    uint64_t bytes;
    int binary, failed;
    enum enc enc;
};

struct engine {
    struct reader *rd;
    char *xbuf; /* decoded text of one buffer */
    struct walk walk;
    struct matcher *m;
    enum engine_mode mode;
    engine_file_fn fn;
    void *arg;
    struct engine_totals *t;
    char paths[READER_SLOTS][WALK_PATH_MAX]; /* of the files in the reader */
    int dirfds[READER_SLOTS];                /* what they are opened relative to */
};

struct engine *engine_open(enum reader_kind kind, char *err, size_t errlen) {
    struct engine *e = calloc(1, sizeof *e);
    if (!e || walk_init(&e->walk) < 0)
        goto oom;
    e->xbuf = malloc(XBUF);
    if (!e->xbuf)
        goto oom;
    e->rd = reader_open(kind, err, errlen);
    if (!e->rd) {
        engine_close(e);
        return NULL;
    }
    return e;
oom:
    engine_close(e);
    snprintf(err, errlen, "out of memory setting up the search buffers");
    return NULL;
}

void engine_close(struct engine *e) {
    if (!e)
        return;
    reader_close(e->rd);
    free(e->xbuf);
    walk_free(&e->walk);
    free(e);
}

const char *engine_reader_name(const struct engine *e) {
    return reader_name(e->rd);
}

/* ---- bytes: NUL and non-ASCII in one pass ---- */

#ifdef SEARCH_AVX2
/* 128 bytes a round where the CPU has AVX2 (checked at run time). */
__attribute__((target("avx2"))) static unsigned text_scan_avx2(const char *s, size_t n,
                                                               size_t *done) {
    const __m256i zero = _mm256_setzero_si256();
    __m256i mn = _mm256_set1_epi8(-1), any = zero;
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 64));
        __m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 96));
        mn = _mm256_min_epu8(mn, _mm256_min_epu8(_mm256_min_epu8(a, b), _mm256_min_epu8(c, d)));
        any = _mm256_or_si256(any, _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d)));
    }
    *done = i;
    unsigned r = 0;
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(mn, zero)))
        r |= TEXT_NUL;
    if (_mm256_movemask_epi8(any))
        r |= TEXT_HIGH;
    return r;
}
#endif

unsigned text_scan(const char *s, size_t n) {
    size_t i = 0;
    unsigned r = 0;
#ifdef SEARCH_AVX2
    if (__builtin_cpu_supports("avx2"))
        r = text_scan_avx2(s, n, &i);
#endif
#ifdef SEARCH_SSE2
    /* 64 bytes a round: the minimum byte is 0 iff there is a NUL, the OR of
     * all has its top bit set iff one is >= 0x80. */
    const __m128i zero = _mm_setzero_si128();
    __m128i mn = _mm_set1_epi8(-1), any = zero;
    for (; i + 64 <= n; i += 64) { /* what AVX2 left, or all of it */
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
        mn = _mm_min_epu8(mn, _mm_min_epu8(_mm_min_epu8(a, b), _mm_min_epu8(c, d)));
        any = _mm_or_si128(any, _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)));
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(mn, zero)))
        r |= TEXT_NUL;
    if (_mm_movemask_epi8(any))
        r |= TEXT_HIGH;
#elif defined(SEARCH_NEON)
    /* The same 64 bytes a round with NEON, reduced across lanes at the end. */
    const uint8_t *u = (const uint8_t *)s;
    uint8x16_t mn = vdupq_n_u8(0xFF), any = vdupq_n_u8(0);
    for (; i + 64 <= n; i += 64) {
        uint8x16x4_t v = vld1q_u8_x4(u + i);
        mn = vminq_u8(mn, vminq_u8(vminq_u8(v.val[0], v.val[1]), vminq_u8(v.val[2], v.val[3])));
        any = vorrq_u8(any, vorrq_u8(vorrq_u8(v.val[0], v.val[1]), vorrq_u8(v.val[2], v.val[3])));
    }
    if (vminvq_u8(mn) == 0)
        r |= TEXT_NUL;
    if (vmaxvq_u8(any) & 0x80)
        r |= TEXT_HIGH;
#endif
    /* The rest, or all of it without vector scans: eight bytes a word (a
     * word has a 0 byte iff (w - 0x01..) & ~w & 0x80.. is not 0). */
    uint64_t wzero = 0, whigh = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        wzero |= (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
        whigh |= w & 0x8080808080808080ull;
    }
    if (wzero)
        r |= TEXT_NUL;
    if (whigh)
        r |= TEXT_HIGH;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!c)
            r |= TEXT_NUL;
        if (c & 0x80)
            r |= TEXT_HIGH;
    }
    return r;
}

/* ---- UTF-16 ---- */

size_t utf16_to_utf8(const char *str, size_t n, int big_endian, int last, char *out, size_t *used) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, o = 0;
    int hi = big_endian ? 0 : 1; /* index of the high byte of a unit */
    while (i + 2 <= n) {
        uint32_t u = (uint32_t)s[i + hi] << 8 | s[i + 1 - hi];
        if (u < 0xD800 || u > 0xDFFF) {
            o += utf8_put(out + o, u);
            i += 2;
        } else if (u >= 0xDC00) { /* a trail surrogate alone */
            o += utf8_put(out + o, 0xFFFD);
            i += 2;
        } else if (i + 4 <= n) {
            uint32_t v = (uint32_t)s[i + 2 + hi] << 8 | s[i + 3 - hi];
            if (v >= 0xDC00 && v <= 0xDFFF) {
                o += utf8_put(out + o, 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00));
                i += 4;
            } else { /* a lead surrogate without its trail; v is decoded next */
                o += utf8_put(out + o, 0xFFFD);
                i += 2;
            }
        } else if (!last) {
            break; /* the trail may come with the next piece */
        } else {
            /* A lead surrogate, then the end (or one odd byte): encoding_rs
             * reports one error for both. */
            o += utf8_put(out + o, 0xFFFD);
            i = n;
        }
    }
    if (i < n && last) { /* an odd last byte */
        o += utf8_put(out + o, 0xFFFD);
        i = n;
    }
    *used = i;
    return o;
}

/* ---- the search ---- */

static void note_error(struct engine *e, const char *path, const char *what) {
    e->t->errors++;
    if (!e->t->err[0])
        snprintf(e->t->err, sizeof e->t->err, "%s: %s", path, what);
    if (e->fn)
        e->fn(e->arg, path, -1, what);
}

/* The caller's deadline has passed (checked between files and reads). */
static int past_deadline(struct engine *e) {
    struct engine_totals *t = e->t;
    if (!t->timed_out && t->deadline_ns && now_ns() > t->deadline_ns)
        t->timed_out = 1;
    return t->timed_out;
}

/* Match the whole lines text[0..len) (the last may lack its '\n' at the
 * end of the file); high: the text may hold non-ASCII bytes. */
static int match_lines(struct engine *e, struct file *f, const char *text, size_t len, int high,
                       int valid_utf8) {
    if (e->mode == ENGINE_LIST && f->count > 0)
        return 0; /* listed already: only a NUL could change that now */
    char err[256];
    size_t fe;
    unsigned flags = (high ? 0 : MATCH_ASCII) | (e->mode == ENGINE_LIST ? MATCH_STOP_FIRST : 0);
    int64_t n;
    if (high && !valid_utf8 && e->m->raw_ok) {
        /* The matcher decodes the lines it matches, in xbuf (free here: the
         * UTF-16 path, which decodes into it, says valid_utf8). */
        n = matcher_count_raw(e->m, text, len, flags, e->xbuf, &fe, err, sizeof err);
    } else {
        if (high && !valid_utf8) {
            size_t v = utf8_valid_upto(text, len);
            if (v < len) { /* the valid start as it is, the rest decoded */
                memcpy(e->xbuf, text, v);
                len = v + utf8_lossy(text + v, len - v, e->xbuf + v);
                text = e->xbuf;
            }
        }
        n = matcher_count(e->m, text, len, flags, &fe, err, sizeof err);
    }
    if (n < 0) {
        f->failed = 1;
        note_error(e, f->path, err);
        return -1;
    }
    f->count += n;
    return 0;
}

/* The rest of a UTF-16 file, its first piece (after the BOM) in rf: decode
 * each piece after the partial line kept from the last, then as UTF-8. */
static void search_utf16(struct engine *e, struct file *f, struct reader_file *rf, size_t skip) {
    size_t tkeep = 0; /* decoded partial line at xbuf[0] */
    int high = 0;
    for (;;) {
        size_t used;
        char *out = e->xbuf + tkeep;
        size_t n = utf16_to_utf8(rf->data + skip, rf->len - skip, f->enc == ENC_UTF16BE, rf->eof,
                                 out, &used);
        unsigned sc = text_scan(out, n);
        if (sc & TEXT_NUL) {
            f->binary = 1;
            return;
        }
        high |= (sc & TEXT_HIGH) != 0;
        size_t tlen = tkeep + n;
        if (rf->eof) {
            if (tlen)
                match_lines(e, f, e->xbuf, tlen, high, 1);
            return;
        }
        const char *nl = memrchr(e->xbuf, '\n', tlen);
        if (nl) {
            size_t whole = (size_t)(nl - e->xbuf) + 1;
            if (match_lines(e, f, e->xbuf, whole, high, 1) < 0)
                return;
            tkeep = tlen - whole;
            memmove(e->xbuf, e->xbuf + whole, tkeep);
            high = (text_scan(e->xbuf, tkeep) & TEXT_HIGH) != 0;
        } else
            tkeep = tlen;
        if (tkeep >= ENGINE_BUF) {
            f->failed = 1;
            note_error(e, f->path, "a line longer than the 1 MiB search buffer");
            return;
        }
        size_t rest = rf->len - skip - used; /* an odd byte, a lead surrogate */
        skip = 0;
        size_t before = rf->off;
        if (past_deadline(e)) {
            f->failed = 1;
            return;
        }
        if (reader_more(e->rd, rf, rest) < 0) {
            f->failed = 1;
            note_error(e, f->path, strerror(rf->err));
            return;
        }
        f->bytes += rf->off - before;
    }
}

/* Search one file whose first piece rf holds. */
static void search_file(struct engine *e, struct file *f, struct reader_file *rf) {
    const unsigned char *d = (const unsigned char *)rf->data;
    size_t skip = 0;
    f->bytes = rf->len;
    if (rf->len >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF) {
        skip = 3; /* ripgrep strips a UTF-8 BOM */
    } else if (rf->len >= 2 && ((d[0] == 0xFF && d[1] == 0xFE) || (d[0] == 0xFE && d[1] == 0xFF))) {
        f->enc = d[0] == 0xFF ? ENC_UTF16LE : ENC_UTF16BE;
        search_utf16(e, f, rf, 2);
        return;
    }
    size_t keep = 0; /* partial line at rf->data[0] */
    int high = 0;
    for (;;) {
        char *text = rf->data + skip;
        size_t tlen = rf->len - skip;
        unsigned sc = text_scan(text + keep, tlen - keep);
        if (sc & TEXT_NUL) { /* binary: ripgrep stops here */
            f->binary = 1;
            return;
        }
        high |= (sc & TEXT_HIGH) != 0;
        if (rf->eof) { /* a short read of a regular file: its end */
            if (tlen)
                match_lines(e, f, text, tlen, high, 0);
            return;
        }
        const char *nl = memrchr(text, '\n', tlen);
        if (nl) {
            size_t whole = (size_t)(nl - text) + 1;
            if (match_lines(e, f, text, whole, high, 0) < 0)
                return;
            keep = tlen - whole;
            high = high && (text_scan(text + whole, keep) & TEXT_HIGH);
        } else
            keep = tlen;
        if (keep >= ENGINE_BUF) {
            f->failed = 1;
            note_error(e, f->path, "a line longer than the 1 MiB search buffer");
            return;
        }
        skip = 0;
        size_t before = rf->off;
        if (past_deadline(e)) {
            f->failed = 1;
            return;
        }
        if (reader_more(e->rd, rf, keep) < 0) {
            f->failed = 1;
            note_error(e, f->path, strerror(rf->err));
            return;
        }
        f->bytes += rf->off - before;
    }
}

/* ripgrep's line buffer, replayed: buf[0..have) holds text not searched
 * yet (a partial line), grown as ripgrep grows it. */
struct rgbuf {
    char *buf;
    size_t cap, have;
};

static int rg_room(struct rgbuf *b, size_t want) {
    if (b->have + want <= b->cap)
        return 0;
    size_t c = b->cap;
    while (c < b->have + want)
        c *= 2;
    char *nb = realloc(b->buf, c);
    if (!nb)
        return -1;
    b->buf = nb, b->cap = c;
    return 0;
}

/* One read of n bytes has landed at b->buf + b->have. As ripgrep: a NUL in
 * it stops the search before anything of it is searched; otherwise the
 * complete lines are searched once a read brought a '\n' (everything at
 * the end). Returns 1 to stop: NUL, a match, or no memory. */
static int rg_took(struct engine *e, struct rgbuf *b, size_t n, int end, int *found) {
    if (memchr(b->buf + b->have, 0, n))
        return 1;
    b->have += n;
    const char *nl = memrchr(b->buf, '\n', b->have);
    size_t upto = end ? b->have : nl ? (size_t)(nl - b->buf) + 1 : 0;
    if (!upto)
        return 0;
    const char *t = b->buf;
    size_t len = upto;
    char *xb = NULL;
    if (!utf8_valid(t, len)) {
        if (!(xb = malloc(3 * len + 4)))
            return 1;
        len = utf8_lossy(t, len, xb);
        t = xb;
    }
    char err[256];
    size_t fe;
    if (len && matcher_count(e->m, t, len, MATCH_STOP_FIRST, &fe, err, sizeof err) > 0)
        *found = 1;
    free(xb);
    memmove(b->buf, b->buf + upto, b->have - upto);
    b->have -= upto;
    return *found;
}

/* `rg -l` on a file with a NUL byte: ripgrep stops at the read that brings
 * the NUL in, without searching it, so the file is listed only when a match
 * lies in what it searched before. Replays ripgrep's reads: the first 3
 * bytes alone (peeked for a BOM; with a UTF-8 BOM, nothing: it is dropped),
 * then 8 KiB of input at a time; for UTF-16, the decoding of the 3rd byte
 * and the next 8 KiB, then 8 KiB at a time. (Decoding UTF-8 changes no
 * read's NUL or '\n': rg_took() decodes the lines it matches.) List mode
 * only, never in a measured operation: it opens the file again by its
 * path. */
static int64_t rg_list_binary(struct engine *e, struct file *f) {
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct rgbuf b = {malloc(RG_BUFFER), RG_BUFFER, 0};
    char *raw = malloc(RG_DECODE_BUFFER + 8);
    int found = 0;
    if (f->enc == ENC_UTF8) {
        unsigned char bom[3];
        int has_bom = pread(fd, bom, 3, 0) == 3 && !memcmp(bom, "\xEF\xBB\xBF", 3);
        uint64_t off = has_bom ? 3 : 0;
        for (int first = !has_bom; b.buf;) {
            size_t want = first ? 3 : RG_DECODE_BUFFER;
            if (rg_room(&b, want) < 0)
                break;
            ssize_t n = pread(fd, b.buf + b.have, want, (off_t)off);
            if (n < 0 || rg_took(e, &b, (size_t)n, n == 0, &found) || n == 0)
                break;
            off += (uint64_t)n;
            first = 0;
        }
    } else {
        uint64_t off = 2;
        size_t pend = 0;
        for (int first = 1; b.buf && raw;) {
            size_t want = first ? RG_DECODE_BUFFER + 1 : RG_DECODE_BUFFER;
            ssize_t n = pread(fd, raw + pend, want, (off_t)off);
            if (n < 0)
                break;
            off += (uint64_t)n;
            first = 0;
            size_t used, m, in = pend + (size_t)n;
            if (rg_room(&b, 3 * in / 2 + 8) < 0)
                break;
            m = utf16_to_utf8(raw, in, f->enc == ENC_UTF16BE, n == 0, b.buf + b.have, &used);
            pend = in - used;
            memmove(raw, raw + used, pend);
            if ((m || n == 0) && rg_took(e, &b, m, n == 0, &found))
                break;
            if (n == 0)
                break;
        }
    }
    free(b.buf);
    free(raw);
    close(fd);
    return found;
}

static void finish_file(struct engine *e, struct file *f) {
    if (f->failed)
        return;
    int64_t shown;
    if (e->mode == ENGINE_LIST)
        shown = f->binary ? rg_list_binary(e, f) : f->count > 0;
    else
        shown = f->binary ? 0 : f->count;
    e->t->files++;
    e->t->bytes += f->bytes;
    if (!f->binary)
        e->t->lines += (uint64_t)f->count;
    if (shown)
        e->t->matched++;
    if (e->fn)
        e->fn(e->arg, f->path, shown, NULL);
}

/* The sequential walk as a file source. */
static int walk_src_next(void *ctx, int wait, int *dirfd, const char **name, const char **path) {
    struct walk *w = ctx;
    (void)wait;
    if (!walk_next(w, dirfd, name))
        return 0;
    *path = w->path;
    return 1;
}

static void walk_src_release(void *ctx, const int *keep, int nkeep) {
    walk_release(ctx, keep, nkeep);
}

int engine_run(struct engine *e, struct matcher *m, const char *root, enum engine_mode mode,
               engine_file_fn fn, void *arg, struct engine_totals *t,
               const struct engine_src *src) {
    e->m = m, e->mode = mode, e->fn = fn, e->arg = arg, e->t = t;
    if (reader_failed(e->rd)) {
        t->errors++;
        if (!t->err[0])
            snprintf(t->err, sizeof t->err, "the io_uring reader failed earlier: %s",
                     strerror(reader_failed(e->rd)));
        return -1;
    }
    int more = 1, slot;
    unsigned inflight = 0;
    for (;;) {
        /* A new batch only once everything read is searched: io_uring then
         * opens and reads the whole batch in one syscall. A shared walk
         * with nothing ready now is waited for only with nothing in flight. */
        more = more && !past_deadline(e); /* what is read already is let go unsearched */
        while (more && !reader_ready(e->rd) && (slot = reader_room(e->rd)) >= 0) {
            int dfd;
            const char *name, *path;
            int got = src->next(src->ctx, inflight == 0, &dfd, &name, &path);
            if (got <= 0) {
                more = got < 0;
                break;
            }
            /* The reader may open it after the walk has moved on: a copy. */
            char *p = e->paths[slot];
            size_t pl = strlen(path), nl = strlen(name);
            memcpy(p, path, pl + 1);
            reader_add(e->rd, dfd, p + pl - nl);
            e->dirfds[slot] = dfd;
            inflight++;
        }
        struct reader_file *rf = reader_next(e->rd);
        /* Directories the walk has finished can be closed, but for those
         * opens in flight are relative to. */
        int keep[READER_SLOTS], nkeep = 0;
        for (unsigned i = 0; i < READER_SLOTS; i++)
            if (reader_opening(e->rd, i))
                keep[nkeep++] = e->dirfds[i];
        src->release(src->ctx, keep, nkeep);
        if (!rf) {
            if (reader_failed(e->rd)) /* the rest of the tree is not searched */
                note_error(e, root, "the io_uring reader failed: search stopped");
            if (more && !reader_failed(e->rd))
                continue; /* nothing was ready: wait for the walk */
            break;
        }
        struct file f = {.path = e->paths[rf->slot]};
        if (rf->err) {
            note_error(e, f.path, strerror(rf->err));
        } else if (!e->t->timed_out) {
            search_file(e, &f, rf);
            finish_file(e, &f);
        }
        reader_done(e->rd, rf);
        inflight--;
    }
    return 0;
}

int engine_search(struct engine *e, struct matcher *m, const char *root, enum engine_mode mode,
                  engine_file_fn fn, void *arg, struct engine_totals *t) {
    if (reader_failed(e->rd))
        return engine_run(e, m, root, mode, fn, arg, t, NULL);
    if (walk_start(&e->walk, root) < 0) {
        t->errors++;
        if (!t->err[0])
            snprintf(t->err, sizeof t->err, "%.500s", e->walk.err);
        return -1;
    }
    struct engine_src src = {walk_src_next, walk_src_release, &e->walk};
    engine_run(e, m, root, mode, fn, arg, t, &src);
    if (e->walk.errors) {
        t->errors += e->walk.errors;
        if (!t->err[0])
            snprintf(t->err, sizeof t->err, "%.500s", e->walk.err);
        if (fn)
            fn(arg, "", -1, e->walk.err);
    }
    return 0;
}
