/* test_buf.c -- common/buf: the growable buffer every HTTP body, the
 * /metrics exposition and the HTML pages are written into. Growth is checked
 * against a reference array filled here byte by byte and against snprintf;
 * a cap refuses the request that would pass it (and every one after, until
 * a reset) without touching what is held; requests whose size would wrap
 * size_t, or that no allocator can give, are refused; and libcurl itself,
 * reading a file:// URL through buf_curl_write, stops with a write error
 * when the body is larger than the cap. */
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/buf.h"
#include "unit.h"

/* A request the allocator cannot meet must come back as NULL (and so as
 * ENOMEM) rather than abort the test under ASan. */
const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void) {
    return "allocator_may_return_null=1";
}

static void growth(void) {
    struct buf b = {0};
    CHECK(buf_reserve(&b, 0) == 0 && b.p && b.p[0] == 0 && b.len == 0);
    static unsigned char ref[300000];
    size_t n = 0;
    int ok = 1;
    /* chunks of 1 to 997 bytes, every byte value, to well past 64 KiB */
    for (unsigned k = 0; n < sizeof ref - 1000; k++) {
        unsigned char chunk[1000];
        size_t len = 1 + (k * 7919u) % 997;
        for (size_t i = 0; i < len; i++)
            chunk[i] = (unsigned char)(n + i + k);
        memcpy(ref + n, chunk, len);
        n += len;
        ok &= buf_add(&b, chunk, len) == 0;
    }
    CHECK(ok);
    CHECK(b.len == n && b.cap >= n + 1 && b.err == 0);
    CHECK(memcmp(b.p, ref, n) == 0);
    CHECK(b.p[b.len] == 0);
    /* zero bytes from NULL: nothing added, no memcpy from NULL (UBSan) */
    CHECK(buf_add(&b, NULL, 0) == 0 && b.len == n);

    /* printf: short, then longer than the room there is, against snprintf */
    buf_reset(&b);
    CHECK(b.len == 0 && b.p[0] == 0);
    char big[20000], want[20100];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    CHECK(buf_printf(&b, "%d-%s", 42, "x") == 0 && !strcmp(b.p, "42-x"));
    snprintf(want, sizeof want, "42-x[%s]%u", big, 7u);
    CHECK(buf_printf(&b, "[%s]%u", big, 7u) == 0);
    CHECK(b.len == strlen(want) && !strcmp(b.p, want));
    CHECK(buf_puts(&b, "!") == 0 && b.len == strlen(want) + 1 && b.p[b.len - 1] == '!');
    buf_free(&b);
    CHECK(b.p == NULL && b.len == 0 && b.cap == 0);
}

static void cap(void) {
    char x[200];
    memset(x, 'x', sizeof x);
    struct buf b = {.max = 100}; /* 99 bytes and the NUL */
    CHECK(buf_add(&b, x, 99) == 0 && b.len == 99 && b.cap <= 100);
    errno = 0;
    CHECK(buf_add(&b, "y", 1) == -1 && errno == EFBIG && b.err == EFBIG);
    CHECK(b.len == 99 && b.p[99] == 0 && b.cap <= 100); /* what was held stays whole */
    /* refused until a reset: nothing is appended after a gap */
    CHECK(buf_add(&b, NULL, 0) == -1 && buf_puts(&b, "") == -1 && b.len == 99);
    buf_reset(&b);
    CHECK(b.err == 0 && b.len == 0 && b.max == 100);
    CHECK(buf_add(&b, x, 50) == 0 && buf_add(&b, x, 49) == 0 && b.len == 99);
    buf_reset(&b);
    /* one request past the cap at once, from empty */
    CHECK(buf_add(&b, x, 100) == -1 && b.err == EFBIG && b.len == 0 && b.p[0] == 0);
    buf_reset(&b);
    /* a printf past the cap leaves the content as it was */
    CHECK(buf_printf(&b, "%s", "head") == 0);
    CHECK(buf_printf(&b, "%.*s", 150, x) == -1 && b.err == EFBIG);
    CHECK(b.len == 4 && !strcmp(b.p, "head"));
    buf_free(&b);
    CHECK(b.max == 100);

    /* a cap above the first allocation: grown to it, never past it */
    struct buf c = {.max = 10000};
    int ok = 1;
    for (int i = 0; i < 9999; i++)
        ok &= buf_add(&c, "z", 1) == 0;
    CHECK(ok && c.len == 9999 && c.cap == 10000);
    CHECK(buf_add(&c, "z", 1) == -1 && c.err == EFBIG && c.cap == 10000);
    buf_free(&c);
}

static void overflow(void) {
    struct buf b = {0};
    CHECK(buf_add(&b, "0123456789", 10) == 0);
    char *p = b.p;
    size_t capb = b.cap;
    /* len + more + 1 wraps: refused before any arithmetic is trusted */
    errno = 0;
    CHECK(buf_reserve(&b, SIZE_MAX) == -1 && errno == ENOMEM);
    CHECK(b.p == p && b.cap == capb && b.len == 10 && !strcmp(b.p, "0123456789"));
    buf_reset(&b);
    CHECK(buf_add(&b, "0123456789", 10) == 0);
    CHECK(buf_reserve(&b, SIZE_MAX - 10) == -1 && b.len == 10);
    buf_reset(&b);
    CHECK(buf_add(&b, "0123456789", 10) == 0);
    /* no wrap, but no allocator has it: ENOMEM, nothing lost */
    CHECK(buf_reserve(&b, SIZE_MAX - 11) == -1 && b.err == ENOMEM);
    CHECK(b.len == 10 && !strcmp(b.p, "0123456789"));
    buf_reset(&b);
    CHECK(buf_reserve(&b, SIZE_MAX / 2) == -1 && b.err == ENOMEM && b.len == 0);
    buf_free(&b);
    /* with a cap the same requests are EFBIG, and never reach realloc */
    struct buf c = {.max = 1 << 20};
    CHECK(buf_reserve(&c, SIZE_MAX) == -1 && c.err == EFBIG && c.p == NULL);
    buf_reset(&c);
    CHECK(buf_reserve(&c, SIZE_MAX / 2) == -1 && c.err == EFBIG && c.p == NULL);
    buf_free(&c);
}

static void curl_callback(void) {
    /* the callback alone: size * n appended and returned, 0 past the cap */
    struct buf b = {.max = 16};
    char d[32] = "abcdefghijklmnopqrstuvwxyz";
    CHECK(buf_curl_write(d, 1, 10, &b) == 10 && b.len == 10 && !memcmp(b.p, d, 10));
    CHECK(buf_curl_write(d, 5, 1, &b) == 5 && b.len == 15); /* 15 bytes + NUL = 16 */
    CHECK(buf_curl_write(d, 1, 1, &b) == 0 && b.err == EFBIG && b.len == 15);
    buf_reset(&b);
    CHECK(buf_curl_write(d, 1, 0, &b) == 0 && b.err == 0); /* nothing to write is not an error */
    /* size * n wraps: 0, and nothing is read from data */
    CHECK(buf_curl_write(d, 2, SIZE_MAX / 2 + 1, &b) == 0 && b.err == EFBIG && b.len == 0);
    buf_free(&b);

    /* libcurl itself, reading a 200,000-byte file: whole under a cap that
     * holds it, CURLE_WRITE_ERROR under one that does not. */
    char path[] = "/tmp/aops-test-buf-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    static char body[200000];
    for (size_t i = 0; i < sizeof body; i++)
        body[i] = (char)('a' + i % 26);
    CHECK(write(fd, body, sizeof body) == (ssize_t)sizeof body);
    close(fd);
    char url[64];
    snprintf(url, sizeof url, "file://%s", path);
    size_t caps[] = {0, sizeof body + 1, sizeof body, 4096};
    for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
        struct buf c = {.max = caps[i]};
        CURL *h = curl_easy_init();
        CHECK(h != NULL);
        if (!h)
            break;
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, buf_curl_write);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &c);
        CURLcode rc = curl_easy_perform(h);
        curl_easy_cleanup(h);
        if (i < 2) /* no cap, or room for the body and its NUL */
            CHECKF(rc == CURLE_OK && c.len == sizeof body && !memcmp(c.p, body, sizeof body),
                   "cap %zu: %s, %zu bytes", caps[i], curl_easy_strerror(rc), c.len);
        else
            CHECKF(rc == CURLE_WRITE_ERROR && c.err == EFBIG && c.len < caps[i] && c.cap <= caps[i],
                   "cap %zu: %s, %zu bytes", caps[i], curl_easy_strerror(rc), c.len);
        buf_free(&c);
    }
    unlink(path);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    growth();
    cap();
    overflow();
    curl_callback();
    curl_global_cleanup();
    return unit_done("test_buf");
}
