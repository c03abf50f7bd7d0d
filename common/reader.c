/* reader.c -- the io_uring and pread readers behind reader.h.
 *
 * Most source files are small, so the cost of a search over a warm page
 * cache is per file: an open, a read, a close, and the copy into a buffer
 * that should still be in cache when it is matched. Both readers therefore
 * ask for READER_CHUNK bytes per read (a short read is the end of a regular
 * file: one read per small file, where ripgrep needs two), into buffers of
 * which only that much is touched.
 *
 * Reads land at a page-aligned address: the page cache's pages are page
 * aligned, and the kernel's copy (rep movsb) runs at less than half speed
 * on AMD Zen 3 when destination and source sit a few bytes apart modulo
 * 4 KiB, as they do in a buffer straight from malloc (page + 16). A kept
 * partial line is moved to end just before such an address.
 *
 * pread: openat, pread, close, one file at a time, into one buffer reused
 * for every file (hot in L1/L2).
 *
 * io_uring: for each file an IORING_OP_OPENAT onto a direct descriptor (a
 * slot of the ring's registered file table, no fd table entry) linked to
 * its first read, and the previous file's close on that slot, all of a
 * batch in one io_uring_enter. On a warm cache the kernel completes them
 * inline; a lookup that misses the dentry cache goes to io-wq. */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"

enum { OP_OPEN = 0, OP_READ = 1, OP_CLOSE = 2 };
#define PAGE 4096u
#define SLOT_BYTES (READER_BUF + PAGE) /* room to align a kept line's end */
enum { FREE = 0, QUEUED, INFLIGHT, READY, HELD };

struct slot {
    int state;
    int opening;  /* io_uring: the open's completion has not come yet */
    int opened;   /* io_uring: the direct descriptor is installed */
    int cqes;     /* io_uring: completions still to come */
    int fd;       /* pread: the open file, -1 */
    size_t asked; /* bytes the read in flight asked for */
    int dirfd;    /* pread: what reader_next opens */
    const char *name;
};

struct reader {
    enum reader_kind kind;
    unsigned nslots;
    struct reader_file f[READER_SLOTS];
    struct slot s[READER_SLOTS];
    unsigned ready[READER_SLOTS], rhead, rn; /* FIFO of READY slots */
    unsigned unsubmitted;                    /* io_uring: SQEs prepared, not submitted */
    unsigned skip_flag;                      /* IOSQE_CQE_SKIP_SUCCESS when supported */
    int ring_up;
    int failed; /* io_uring_enter failed (errno): files may still be in flight */
    struct io_uring ring;
    char *bufs;
};

static char *slot_buf(const struct reader *r, unsigned i) {
    return r->bufs + (size_t)i * SLOT_BYTES;
}

static void setup_err(char *err, size_t errlen, const char *what, int e) {
    snprintf(err, errlen, "io_uring setup failed: %s: %s (the pread reader still works)", what,
             strerror(e));
}

struct reader *reader_open(enum reader_kind kind, char *err, size_t errlen) {
    struct reader *r = calloc(1, sizeof *r);
    if (!r)
        goto oom;
    r->kind = kind;
    r->nslots = kind == READER_URING ? READER_SLOTS : 1;
    if (posix_memalign((void **)&r->bufs, PAGE, (size_t)r->nslots * SLOT_BYTES)) {
        r->bufs = NULL;
        goto oom;
    }
    for (unsigned i = 0; i < r->nslots; i++) {
        r->f[i] = (struct reader_file){.data = slot_buf(r, i), .slot = i};
        r->s[i].fd = -1;
    }
    if (kind == READER_URING) {
        /* open + read + close per file, a batch of READER_SLOTS files. */
        struct io_uring_params p = {0};
        int rc = io_uring_queue_init_params(4 * READER_SLOTS, &r->ring, &p);
        if (rc < 0) {
            setup_err(err, errlen, "io_uring_queue_init", -rc);
            goto fail;
        }
        r->ring_up = 1;
        if ((rc = io_uring_register_files_sparse(&r->ring, READER_SLOTS)) < 0) {
            setup_err(err, errlen, "registering direct descriptors", -rc);
            goto fail;
        }
        if (p.features & IORING_FEAT_CQE_SKIP)
            r->skip_flag = IOSQE_CQE_SKIP_SUCCESS;
    }
    return r;
oom:
    snprintf(err, errlen, "out of memory setting up the %s reader",
             kind == READER_URING ? "io_uring" : "pread");
fail:
    reader_close(r);
    return NULL;
}

void reader_close(struct reader *r) {
    if (!r)
        return;
    for (unsigned i = 0; i < r->nslots; i++)
        if (r->s[i].fd >= 0)
            close(r->s[i].fd);
    if (r->ring_up)
        io_uring_queue_exit(&r->ring); /* closes the direct descriptors */
    free(r->bufs);
    free(r);
}

const char *reader_name(const struct reader *r) {
    return r->kind == READER_URING ? "io_uring" : "pread";
}

int reader_room(const struct reader *r) {
    for (unsigned i = 0; i < r->nslots; i++)
        if (r->s[i].state == FREE)
            return (int)i;
    return -1;
}

int reader_failed(const struct reader *r) {
    return r->failed;
}

int reader_opening(const struct reader *r, unsigned slot) {
    return r->kind == READER_URING && r->s[slot].opening;
}

unsigned reader_ready(const struct reader *r) {
    return r->rn;
}

static size_t ask(const struct reader_file *f) {
    size_t room = READER_BUF - f->len;
    return room < READER_CHUNK ? room : READER_CHUNK;
}

/* Keep the last keep bytes, so that the next read lands page aligned
 * (unless nothing was consumed: then append, rather than move it all). */
static void keep_tail(const struct reader *r, struct reader_file *f, size_t keep) {
    if (keep == f->len)
        return;
    char *base = slot_buf(r, f->slot);
    char *to = base + (PAGE - keep % PAGE) % PAGE;
    memmove(to, f->data + f->len - keep, keep);
    f->data = to;
    f->len = keep;
}

/* The ring has 4 * READER_SLOTS entries and at most 3 per slot are ever
 * prepared between submissions (close, open, read), so this cannot fail;
 * submit first anyway rather than trust that. */
static struct io_uring_sqe *sqe_get(struct reader *r) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
    if (!sqe) {
        io_uring_submit(&r->ring);
        r->unsubmitted = 0;
        sqe = io_uring_get_sqe(&r->ring);
    }
    r->unsubmitted++;
    return sqe;
}

static void prep_read(struct reader *r, struct reader_file *f) {
    struct slot *s = &r->s[f->slot];
    struct io_uring_sqe *sqe = sqe_get(r);
    s->asked = ask(f);
    io_uring_prep_read(sqe, (int)f->slot, f->data + f->len, (unsigned)s->asked, f->off);
    sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data64(sqe, (uint64_t)f->slot << 2 | OP_READ);
    s->cqes++;
}

unsigned reader_add(struct reader *r, int dirfd, const char *name) {
    unsigned i = (unsigned)reader_room(r);
    struct reader_file *f = &r->f[i];
    struct slot *s = &r->s[i];
    f->data = slot_buf(r, i), f->len = 0, f->off = 0, f->err = 0, f->eof = 0;
    if (r->kind == READER_PREAD) {
        s->state = QUEUED, s->dirfd = dirfd, s->name = name;
        return i;
    }
    struct io_uring_sqe *sqe = sqe_get(r);
    io_uring_prep_openat_direct(sqe, dirfd, name, O_RDONLY, 0,
                                i); /* no O_CLOEXEC: EINVAL on direct */
    sqe->flags |= IOSQE_IO_LINK;
    io_uring_sqe_set_data64(sqe, (uint64_t)i << 2 | OP_OPEN);
    s->cqes = 1;
    s->opening = 1;
    prep_read(r, f);
    s->state = INFLIGHT;
    return i;
}

/* Account one completion. */
static void on_cqe(struct reader *r, uint64_t data, int res) {
    unsigned i = (unsigned)(data >> 2), op = (unsigned)(data & 3);
    if (op == OP_CLOSE || i >= r->nslots)
        return; /* a close failed: nothing to do, the slot is reused anyway */
    struct reader_file *f = &r->f[i];
    struct slot *s = &r->s[i];
    if (op == OP_OPEN) {
        s->opening = 0;
        if (res < 0)
            f->err = -res;
        else
            s->opened = 1;
    } else if (!f->err) { /* a read; -ECANCELED after a failed open is ignored */
        if (res < 0)
            f->err = -res;
        else {
            f->len += (size_t)res;
            f->off += (uint64_t)res;
            f->eof = (size_t)res < s->asked;
        }
    }
    if (--s->cqes == 0 && s->state == INFLIGHT) {
        s->state = READY;
        r->ready[(r->rhead + r->rn++) % READER_SLOTS] = i;
    }
}

static void reap(struct reader *r) {
    struct io_uring_cqe *cqe;
    unsigned head, n = 0;
    io_uring_for_each_cqe(&r->ring, head, cqe) {
        on_cqe(r, io_uring_cqe_get_data64(cqe), cqe->res);
        n++;
    }
    io_uring_cq_advance(&r->ring, n);
}

/* Submit what is prepared and wait until pred(r, arg) holds. */
static int uring_wait(struct reader *r, int (*pred)(struct reader *, unsigned), unsigned arg) {
    for (;;) {
        reap(r);
        if (pred(r, arg))
            return 0;
        int rc = io_uring_submit_and_wait(&r->ring, 1);
        r->unsubmitted = 0;
        if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
            return rc;
    }
}

static int have_ready(struct reader *r, unsigned unused) {
    (void)unused;
    return r->rn > 0;
}

static int slot_quiet(struct reader *r, unsigned i) {
    return r->s[i].cqes == 0;
}

static int busy(const struct reader *r) {
    for (unsigned i = 0; i < r->nslots; i++)
        if (r->s[i].state == INFLIGHT || r->s[i].state == READY)
            return 1;
    return 0;
}

static ssize_t pread_all(int fd, char *buf, size_t len, uint64_t off) {
    ssize_t n;
    while ((n = pread(fd, buf, len, (off_t)off)) < 0 && errno == EINTR)
        ;
    return n;
}

static void sync_read(struct reader_file *f, int fd) {
    size_t want = ask(f);
    ssize_t n = pread_all(fd, f->data + f->len, want, f->off);
    if (n < 0) {
        f->err = errno;
        return;
    }
    f->len += (size_t)n;
    f->off += (uint64_t)n;
    f->eof = (size_t)n < want;
}

struct reader_file *reader_next(struct reader *r) {
    if (r->kind == READER_PREAD) {
        struct slot *s = &r->s[0];
        struct reader_file *f = &r->f[0];
        if (s->state != QUEUED)
            return NULL;
        s->state = HELD;
        s->fd = openat(s->dirfd, s->name, O_RDONLY | O_CLOEXEC);
        if (s->fd < 0)
            f->err = errno;
        else
            sync_read(f, s->fd);
        return f;
    }
    if (r->failed)
        return NULL;
    /* Completions already in the ring cost no syscall; closes queued since
     * wait for the next batch. */
    reap(r);
    if (!r->rn) {
        if (r->unsubmitted) {
            io_uring_submit(&r->ring);
            r->unsubmitted = 0;
        }
        if (!busy(r))
            return NULL;
        int rc = uring_wait(r, have_ready, 0);
        if (rc < 0) {
            r->failed = -rc;
            return NULL;
        }
    }
    unsigned i = r->ready[r->rhead];
    r->rhead = (r->rhead + 1) % READER_SLOTS;
    r->rn--;
    r->s[i].state = HELD;
    return &r->f[i];
}

int reader_more(struct reader *r, struct reader_file *f, size_t keep) {
    if (f->err)
        return -1;
    keep_tail(r, f, keep);
    if (r->kind == READER_PREAD) {
        sync_read(f, r->s[0].fd);
        return f->err ? -1 : 0;
    }
    prep_read(r, f);
    int rc = uring_wait(r, slot_quiet, f->slot);
    if (rc < 0) {
        r->failed = -rc;
        if (!f->err)
            f->err = -rc;
    }
    return f->err ? -1 : 0;
}

void reader_done(struct reader *r, struct reader_file *f) {
    struct slot *s = &r->s[f->slot];
    if (r->kind == READER_PREAD) {
        if (s->fd >= 0)
            close(s->fd);
        s->fd = -1;
    } else if (s->opened) {
        /* Goes to the kernel with the next batch, ahead of the next open
         * on this slot. */
        struct io_uring_sqe *sqe = sqe_get(r);
        io_uring_prep_close_direct(sqe, f->slot);
        sqe->flags |= (unsigned char)r->skip_flag;
        io_uring_sqe_set_data64(sqe, (uint64_t)f->slot << 2 | OP_CLOSE);
        s->opened = 0;
    }
    s->state = FREE;
}
