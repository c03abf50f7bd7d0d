/* search_reader.h -- the small interface between the search and whatever
 * reads files: queue reads, submit them as one batch, reap completions.
 *
 * Two implementations: io_uring (several reads in flight, one syscall per
 * batch) and plain pread (each read done synchronously when reaped), so the
 * two can be compared on the same search. Neither allocates after
 * reader_open(). */
#ifndef AOPS_SEARCH_READER_H
#define AOPS_SEARCH_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum reader_kind { READER_URING = 0, READER_PREAD };

struct reader;

/* depth: reads that may be queued at once. NULL with err set on failure. */
struct reader *reader_open(enum reader_kind kind, unsigned depth, char *err, size_t errlen);
void reader_close(struct reader *r);
const char *reader_name(const struct reader *r);

/* Queue a read of len bytes at off into buf; tag comes back on completion.
 * Returns 0, or -1 when depth reads are already queued. */
int reader_queue(struct reader *r, int fd, uint64_t off, char *buf, size_t len, unsigned tag);

/* Hand the queued reads to the kernel as one batch. Returns 0 or -errno. */
int reader_submit(struct reader *r);

/* One completed read: *tag and *res (bytes, or -errno). With wait, blocks
 * for it; without, returns -1 unless one is ready (pread: always ready).
 * Returns 0, or -1 when nothing is in flight. */
int reader_reap(struct reader *r, int wait, unsigned *tag, ssize_t *res);

#endif
