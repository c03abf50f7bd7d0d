/* buf.h -- the one growable byte buffer of the harness: the body of an HTTP
 * answer (Docker, Redfish, MinIO's metrics, S3), the live /metrics
 * exposition, an HTML page. It doubles as it grows, is always NUL-terminated
 * once it holds memory, and may carry a cap: a request that would take it
 * past the cap, or that no size_t can express, is refused and never
 * reallocated, and so is every request after it until buf_reset (the content
 * is then cut, and a caller must not take it for the whole).
 *
 * buf_curl_write has libcurl's CURLOPT_WRITEFUNCTION signature without
 * needing libcurl's header: it appends to the buf passed as CURLOPT_WRITEDATA
 * and returns 0 past the cap, which makes libcurl abort the transfer with a
 * write error. */
#ifndef AOPS_BUF_H
#define AOPS_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct buf {
    char *p;    /* the bytes; NULL until the first reservation */
    size_t len; /* bytes held, the NUL after them not counted */
    size_t cap; /* bytes allocated */
    size_t max; /* 0: no cap; else the most it may allocate, its NUL included */
    int err;    /* 0, or why a request was refused: ENOMEM, or EFBIG past max */
};

/* Room for `more` bytes after len, and a NUL: 0, or -1 with errno and err
 * (ENOMEM, EFBIG). */
int buf_reserve(struct buf *b, size_t more);
/* Append n bytes (and keep the NUL): 0, or -1 as buf_reserve. */
int buf_add_grow(struct buf *b, const void *s, size_t n);
/* Inline when it fits: a /metrics scrape appends thousands of short pieces,
 * and a call into another file for each one costs it a third more. */
static inline int buf_add(struct buf *b, const void *s, size_t n) {
    if (b->err || n >= b->cap - b->len) /* cap > len whenever p is set */
        return buf_add_grow(b, s, n);
    if (n) /* s may be NULL for nothing: memcpy's arguments never may */
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return 0;
}
static inline int buf_puts(struct buf *b, const char *s) {
    return buf_add(b, s, strlen(s));
}
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Empty it and clear err; the memory and the cap are kept for reuse. */
void buf_reset(struct buf *b);
/* Free the memory; the cap is kept. */
void buf_free(struct buf *b);
/* libcurl's write callback: append size * n bytes to the struct buf *ud;
 * size * n, or 0 when refused (libcurl then stops: CURLE_WRITE_ERROR). */
size_t buf_curl_write(char *data, size_t size, size_t n, void *ud);

#endif
