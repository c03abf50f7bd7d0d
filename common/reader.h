/* reader.h -- the small interface between a search (the search workload's,
 * bench/'s) and whatever opens and reads files; it knows no workload. Files
 * go in (reader_add), files with their first piece read come out
 * (reader_next), the rest of a large file is read on demand (reader_more),
 * then the file is let go (reader_done).
 *
 * Two implementations, so the two can be compared on the same search:
 * io_uring (open, first read and close of several files as linked requests
 * on direct descriptors, one syscall per batch) and plain syscalls (openat,
 * read into one buffer reused for every file, close). Neither allocates
 * after reader_open(). */
#ifndef AOPS_READER_H
#define AOPS_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum reader_kind { READER_URING = 0, READER_PREAD };

#define READER_SLOTS 8            /* io_uring: files in flight (pread: 1) */
#define READER_BUF (1u << 20)     /* per file in flight: lines up to 1 MiB */
#define READER_CHUNK (128u << 10) /* bytes asked for per read: stays in L2 */

struct reader_file {
    char *data;    /* what is held: what the caller kept, then what was read */
    size_t len;    /* bytes at data, at most READER_BUF */
    uint64_t off;  /* file offset of the next read */
    int err;       /* errno of a failed open or read, else 0 */
    int eof;       /* the last read was short: buf ends where the file does */
    unsigned slot; /* 0..READER_SLOTS-1, as reader_add returned it */
};

struct reader;

/* NULL with err set on failure (io_uring refused by the kernel or a sandbox:
 * the message says so, and the pread reader still works). */
struct reader *reader_open(enum reader_kind kind, char *err, size_t errlen);
void reader_close(struct reader *r);
const char *reader_name(const struct reader *r);

/* A free slot: the index reader_add will use, or -1 when all are busy. */
int reader_room(const struct reader *r);

/* 1 while the open queued on slot has not finished (io_uring may do it
 * in a worker thread after the submit): its dirfd must stay open. */
int reader_opening(const struct reader *r, unsigned slot);

/* Files read and not yet taken by reader_next(). Add files only when it is
 * 0: io_uring then gets a whole batch per syscall, not one file each. */
unsigned reader_ready(const struct reader *r);

/* Queue dirfd/name for opening and a first read; returns the slot. name
 * must stay valid until the file comes out of reader_next(), and dirfd
 * until reader_opening() says the open is done. */
unsigned reader_add(struct reader *r, int dirfd, const char *name);

/* A file whose open and first read have finished (f->err says if they
 * failed), oldest submission first; NULL when none is queued. */
struct reader_file *reader_next(struct reader *r);

/* Keep the last keep bytes f holds (a partial line), then read the next
 * piece after them: at most READER_CHUNK bytes, fewer when that would pass
 * READER_BUF. Returns 0, or -1 with f->err set. keep < READER_BUF. */
int reader_more(struct reader *r, struct reader_file *f, size_t keep);

/* The errno with which io_uring_enter failed, 0 if it never did. The
 * reader is then unusable: reads may still be in flight in its buffers. */
int reader_failed(const struct reader *r);

/* Close f and free its slot. */
void reader_done(struct reader *r, struct reader_file *f);

#endif
