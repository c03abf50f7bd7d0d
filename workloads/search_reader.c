/* search_reader.c -- the io_uring and pread readers behind search_reader.h.
 *
 * io_uring: reads are prepared into the submission ring and submitted in one
 * io_uring_submit() per batch, so a search keeps several files' reads in
 * flight with one syscall. pread: the same calls, with the read done when it
 * is reaped, oldest first; it is the baseline io_uring is measured against. */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "search_reader.h"

struct pending {
    int fd;
    uint64_t off;
    char *buf;
    size_t len;
    unsigned tag;
};

struct reader {
    enum reader_kind kind;
    unsigned depth, queued, inflight;
    struct io_uring ring;
    struct pending *q; /* pread: FIFO of queued reads */
    unsigned head;
};

struct reader *reader_open(enum reader_kind kind, unsigned depth, char *err, size_t errlen) {
    struct reader *r = calloc(1, sizeof *r);
    if (!r)
        goto oom;
    r->kind = kind;
    r->depth = depth;
    if (kind == READER_URING) {
        int rc = io_uring_queue_init(depth, &r->ring, 0);
        if (rc < 0) {
            snprintf(err, errlen, "io_uring setup failed: %s (try the pread reader)",
                     strerror(-rc));
            free(r);
            return NULL;
        }
    } else {
        r->q = calloc(depth, sizeof *r->q);
        if (!r->q)
            goto oom;
    }
    return r;
oom:
    free(r);
    snprintf(err, errlen, "out of memory setting up the %s reader",
             kind == READER_URING ? "io_uring" : "pread");
    return NULL;
}

void reader_close(struct reader *r) {
    if (!r)
        return;
    if (r->kind == READER_URING)
        io_uring_queue_exit(&r->ring);
    free(r->q);
    free(r);
}

const char *reader_name(const struct reader *r) {
    return r->kind == READER_URING ? "io_uring" : "pread";
}

int reader_queue(struct reader *r, int fd, uint64_t off, char *buf, size_t len, unsigned tag) {
    if (r->queued + r->inflight >= r->depth)
        return -1;
    if (r->kind == READER_URING) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
        if (!sqe)
            return -1;
        io_uring_prep_read(sqe, fd, buf, (unsigned)len, off);
        io_uring_sqe_set_data64(sqe, tag);
    } else {
        r->q[(r->head + r->inflight + r->queued) % r->depth] = (struct pending){fd, off, buf, len, tag};
    }
    r->queued++;
    return 0;
}

int reader_submit(struct reader *r) {
    if (r->kind == READER_URING && r->queued) {
        int rc = io_uring_submit(&r->ring);
        if (rc < 0)
            return rc;
    }
    r->inflight += r->queued;
    r->queued = 0;
    return 0;
}

int reader_reap(struct reader *r, int wait, unsigned *tag, ssize_t *res) {
    if (!r->inflight)
        return -1;
    if (r->kind == READER_URING) {
        struct io_uring_cqe *cqe;
        int rc;
        if (!wait)
            rc = io_uring_peek_cqe(&r->ring, &cqe);
        else
            while ((rc = io_uring_wait_cqe(&r->ring, &cqe)) == -EINTR)
                ;
        if (rc < 0)
            return -1;
        *tag = (unsigned)io_uring_cqe_get_data64(cqe);
        *res = cqe->res;
        io_uring_cqe_seen(&r->ring, cqe);
    } else {
        struct pending *p = &r->q[r->head];
        r->head = (r->head + 1) % r->depth;
        ssize_t n;
        while ((n = pread(p->fd, p->buf, p->len, (off_t)p->off)) < 0 && errno == EINTR)
            ;
        *tag = p->tag;
        *res = n < 0 ? -errno : n;
    }
    r->inflight--;
    return 0;
}
