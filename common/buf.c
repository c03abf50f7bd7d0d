/* buf.c -- see buf.h. Every size is checked before it is added or doubled,
 * so a request near SIZE_MAX is refused instead of wrapping round to a small
 * allocation that memcpy would then overrun. */
#include "buf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first allocation: most bodies and pages fit in a few of these. */
#define BUF_FIRST 4096

static int refuse(struct buf *b, int e) {
    b->err = e;
    errno = e;
    return -1;
}

int buf_reserve(struct buf *b, size_t more) {
    if (b->err)
        return errno = b->err, -1;
    if (more > SIZE_MAX - 1 - b->len) /* len + more + 1 would wrap */
        return refuse(b, b->max ? EFBIG : ENOMEM);
    size_t need = b->len + more + 1;
    if (need <= b->cap)
        return 0;
    if (b->max && need > b->max)
        return refuse(b, EFBIG);
    size_t cap = b->cap ? b->cap : BUF_FIRST;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    if (b->max && cap > b->max)
        cap = b->max;
    char *p = realloc(b->p, cap);
    if (!p)
        return refuse(b, ENOMEM);
    p[b->len] = 0; /* a first allocation reads as "" too */
    b->p = p;
    b->cap = cap;
    return 0;
}

int buf_add_grow(struct buf *b, const void *s, size_t n) {
    if (buf_reserve(b, n) != 0)
        return -1;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return 0;
}

/* Straight into the room there is, and only when that is too small a second
 * time into room made for it: one pass for nearly every line. */
int buf_vprintf(struct buf *b, const char *fmt, va_list ap) {
    if (buf_reserve(b, 0) != 0)
        return -1;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    if (n >= 0 && (size_t)n >= b->cap - b->len) {
        if (buf_reserve(b, (size_t)n) == 0)
            vsnprintf(b->p + b->len, (size_t)n + 1, fmt, again);
        else
            n = -2;
    }
    va_end(again);
    if (n < 0) {
        if (b->p) /* a failed format leaves the content as it was */
            b->p[b->len] = 0;
        return -1;
    }
    b->len += (size_t)n;
    return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

void buf_reset(struct buf *b) {
    b->len = 0;
    b->err = 0;
    if (b->p)
        b->p[0] = 0;
}

void buf_free(struct buf *b) {
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->err = 0;
}

size_t buf_curl_write(char *data, size_t size, size_t n, void *ud) {
    struct buf *b = ud;
    if (size && n > SIZE_MAX / size) {
        refuse(b, b->max ? EFBIG : ENOMEM);
        return 0;
    }
    return buf_add(b, data, size * n) == 0 ? size * n : 0;
}
