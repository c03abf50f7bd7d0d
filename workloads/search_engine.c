/* search_engine.c -- walk + reader + matcher: one `rg -P -c` over a tree.
 *
 * Up to ENGINE_SLOTS files are in flight; each has a buffer of ENGINE_BUF
 * bytes. A read fills the buffer after the carried-over partial line; the
 * whole lines are matched at once and the rest is carried to the next read,
 * so a file of any size is searched in bounded memory. Completions are
 * reaped as they come and new reads go to the kernel in one batch.
 *
 * ripgrep's rules kept here: a NUL byte makes a file binary and stops its
 * search, and `-c` then prints nothing for it; invalid UTF-8 is decoded to
 * U+FFFD before matching; a UTF-8 BOM is dropped. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "search_engine.h"
#include "search_walk.h"

/* ripgrep's line buffer: 64 KiB, grown only for longer lines. It decides
 * which lines `rg -l` has searched before it meets a NUL byte. */
#define RG_BUFFER (64u << 10)

struct slot {
    int fd; /* -1: free */
    uint64_t off;   /* file offset of the next read */
    size_t carry;   /* bytes of a partial line at buf[0] */
    int64_t count;
    uint64_t bytes;
    int binary, failed;
    char *buf;
    char path[WALK_PATH_MAX];
};

struct engine {
    struct reader *rd;
    struct slot slots[ENGINE_SLOTS];
    char *xbuf; /* lossy UTF-8 decoding of one buffer */
    struct walk walk;
    struct matcher *m;
    enum engine_mode mode;
    engine_file_fn fn;
    void *arg;
    struct engine_totals *t;
};

struct engine *engine_open(enum reader_kind kind, char *err, size_t errlen) {
    struct engine *e = calloc(1, sizeof *e);
    if (!e || walk_init(&e->walk) < 0)
        goto oom;
    e->xbuf = malloc(3 * (size_t)ENGINE_BUF + 4);
    if (!e->xbuf)
        goto oom;
    for (int i = 0; i < ENGINE_SLOTS; i++) {
        e->slots[i].fd = -1;
        if (!(e->slots[i].buf = malloc(ENGINE_BUF)))
            goto oom;
    }
    e->rd = reader_open(kind, ENGINE_SLOTS, err, errlen);
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
    for (int i = 0; i < ENGINE_SLOTS; i++)
        free(e->slots[i].buf);
    free(e->xbuf);
    walk_free(&e->walk);
    free(e);
}

const char *engine_reader_name(const struct engine *e) {
    return reader_name(e->rd);
}

/* ---- UTF-8: validation and ripgrep's (WHATWG) lossy decoding ---- */

/* Length of the valid sequence at s (1..4), or 0 with *bad = bytes of the
 * maximal invalid prefix to replace with one U+FFFD. */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad) {
    unsigned c = s[0];
    size_t need;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else {
        *bad = 1;
        return 0;
    }
    for (size_t i = 1; i <= need; i++) {
        if (i >= n || s[i] < lo || s[i] > hi) {
            *bad = i;
            return 0;
        }
        lo = 0x80, hi = 0xBF;
    }
    return need + 1;
}

int utf8_valid(const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        /* ASCII eight bytes at a time: source code is nearly all ASCII. */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t bad, k = utf8_seq(s + i, n - i, &bad);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

size_t utf8_lossy(const char *str, size_t n, char *out) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, o = 0;
    while (i < n) {
        size_t bad, k = utf8_seq(s + i, n - i, &bad);
        if (k) {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i += bad;
        }
    }
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

/* Match whole lines buf[0..len); last says the final line may lack '\n'. */
static int match_lines(struct engine *e, struct slot *s, const char *buf, size_t len,
                       int first) {
    if (first && len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        buf += 3, len -= 3; /* ripgrep strips a UTF-8 BOM */
    if (!utf8_valid(buf, len)) {
        len = utf8_lossy(buf, len, e->xbuf);
        buf = e->xbuf;
    }
    char err[256];
    size_t fe;
    int64_t n = matcher_count(e->m, buf, len, 1, 0, &fe, err, sizeof err);
    if (n < 0) {
        s->failed = 1;
        note_error(e, s->path, err);
        return -1;
    }
    s->count += n;
    return 0;
}

/* `rg -l` on a file with a NUL byte: ripgrep stops at the 64 KiB read that
 * brings the NUL in, without searching it, so the file is listed only when
 * a match lies in what it searched before. Replays ripgrep's reads with
 * pread (list mode only, never in a measured operation). */
static int64_t rg_list_binary(struct engine *e, struct slot *s) {
    size_t cap = RG_BUFFER, start = 0, end = 0; /* buffer holds file [start, end) */
    char *buf = malloc(cap), *xb = NULL;
    int64_t found = 0;
    for (;;) {
        if (!buf)
            break;
        ssize_t n = pread(s->fd, buf + (end - start), start + cap - end, (off_t)end);
        if (n < 0)
            break;
        if (memchr(buf + (end - start), 0, (size_t)n))
            break;
        end += (size_t)n;
        const char *nl = memrchr(buf, '\n', end - start);
        size_t upto = n == 0 ? end - start : nl ? (size_t)(nl - buf) + 1 : 0;
        if (upto) {
            const char *b = buf;
            size_t len = upto;
            if (start == 0 && len >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0)
                b += 3, len -= 3;
            if (!utf8_valid(b, len)) {
                free(xb);
                if (!(xb = malloc(3 * len + 4)))
                    break;
                len = utf8_lossy(b, len, xb);
                b = xb;
            }
            char err[256];
            size_t fe;
            if (matcher_count(e->m, b, len, 1, 1, &fe, err, sizeof err) > 0) {
                found = 1;
                break;
            }
        }
        if (n == 0)
            break;
        if (!upto) { /* a line longer than the buffer: ripgrep grows it */
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
            continue;
        }
        memmove(buf, buf + upto, end - start - upto);
        start += upto;
    }
    free(buf);
    free(xb);
    return found;
}

static void finish_file(struct engine *e, struct slot *s) {
    int64_t shown = 0;
    if (!s->failed) {
        if (e->mode == ENGINE_LIST)
            shown = s->binary ? rg_list_binary(e, s) : s->count > 0;
        else
            shown = s->binary ? 0 : s->count;
        e->t->files++;
        e->t->bytes += s->bytes;
        if (!s->binary)
            e->t->lines += (uint64_t)s->count;
        if (shown)
            e->t->matched++;
        if (e->fn)
            e->fn(e->arg, s->path, shown, NULL);
    }
    close(s->fd);
    s->fd = -1;
}

static void queue_read(struct engine *e, struct slot *s) {
    /* Cannot fail: a slot has at most one read queued and there are as many
     * reader entries as slots. */
    reader_queue(e->rd, s->fd, s->off, s->buf + s->carry, ENGINE_BUF - s->carry,
                 (unsigned)(s - e->slots));
}

/* A read finished: match its whole lines, carry the rest, read on. */
static void on_read(struct engine *e, struct slot *s, ssize_t n) {
    if (n < 0) {
        s->failed = 1;
        note_error(e, s->path, strerror((int)-n));
        finish_file(e, s);
        return;
    }
    size_t want = ENGINE_BUF - s->carry;
    char *fresh = s->buf + s->carry;
    int first = s->off == 0;
    s->bytes += (uint64_t)n;
    s->off += (uint64_t)n;
    if (memchr(fresh, 0, (size_t)n)) { /* binary: ripgrep stops here */
        s->binary = 1;
        finish_file(e, s);
        return;
    }
    size_t have = s->carry + (size_t)n;
    if ((size_t)n < want) { /* a short read of a regular file: its end */
        if (have)
            match_lines(e, s, s->buf, have, first && s->carry == 0);
        finish_file(e, s);
        return;
    }
    char *nl = memrchr(s->buf, '\n', have);
    if (!nl) {
        s->failed = 1;
        note_error(e, s->path, "a line longer than the 1 MiB search buffer");
        finish_file(e, s);
        return;
    }
    size_t whole = (size_t)(nl - s->buf) + 1;
    if (match_lines(e, s, s->buf, whole, first && s->carry == 0) < 0) {
        finish_file(e, s);
        return;
    }
    s->carry = have - whole;
    memmove(s->buf, s->buf + whole, s->carry);
    queue_read(e, s);
}

int engine_search(struct engine *e, struct matcher *m, const char *root, enum engine_mode mode,
                  engine_file_fn fn, void *arg, struct engine_totals *t) {
    e->m = m, e->mode = mode, e->fn = fn, e->arg = arg, e->t = t;
    if (walk_start(&e->walk, root) < 0) {
        t->errors++;
        if (!t->err[0])
            snprintf(t->err, sizeof t->err, "%.500s", e->walk.err);
        return -1;
    }
    int more = 1, busy = 0;
    for (;;) {
        for (int i = 0; more && i < ENGINE_SLOTS; i++) {
            struct slot *s = &e->slots[i];
            if (s->fd >= 0)
                continue;
            int dfd;
            const char *name;
            if (!walk_next(&e->walk, &dfd, &name)) {
                more = 0;
                break;
            }
            snprintf(s->path, sizeof s->path, "%s", e->walk.path);
            s->fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
            if (s->fd < 0) {
                note_error(e, s->path, strerror(errno));
                continue;
            }
            s->off = s->carry = s->bytes = 0;
            s->count = 0;
            s->binary = s->failed = 0;
            queue_read(e, s);
            busy++;
        }
        reader_submit(e->rd);
        if (!busy)
            break;
        unsigned tag;
        ssize_t res;
        int wait = 1;
        while (reader_reap(e->rd, wait, &tag, &res) == 0) {
            struct slot *s = &e->slots[tag];
            on_read(e, s, res);
            if (s->fd < 0)
                busy--;
            wait = 0;
        }
    }
    if (e->walk.errors) {
        t->errors += e->walk.errors;
        if (!t->err[0])
            snprintf(t->err, sizeof t->err, "%.500s", e->walk.err);
        if (fn)
            fn(arg, "", -1, e->walk.err);
    }
    return 0;
}
