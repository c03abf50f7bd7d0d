/* oplog.c -- writing and reading the per-operation log (see oplog.h). */
#include "oplog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct oplog_writer {
    FILE *f;
    char path[4096], tmp[4200];
    struct oplog_header h;
    int failed;
};

struct oplog_writer *oplog_create(const char *path, const struct oplog_header *h, char *err,
                                  size_t errlen) {
    struct oplog_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(w->path, sizeof w->path, "%s", path);
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp", path);
    w->h = *h;
    memcpy(w->h.magic, OPLOG_MAGIC, 8);
    w->h.version = OPLOG_VERSION;
    w->h.header_size = OPLOG_HEADER_SIZE;
    w->h.record_size = sizeof(struct oplog_rec);
    w->h.records = 0;
    if (!(w->f = fopen(w->tmp, "wb")) || fwrite(&w->h, sizeof w->h, 1, w->f) != 1) {
        snprintf(err, errlen, "cannot write %s: %s", w->tmp, strerror(errno));
        if (w->f)
            fclose(w->f);
        remove(w->tmp);
        free(w);
        return NULL;
    }
    return w;
}

int oplog_append(struct oplog_writer *w, const struct oplog_rec *recs, size_t n) {
    if (n && !w->failed && fwrite(recs, sizeof *recs, n, w->f) != n)
        w->failed = errno ? errno : EIO;
    w->h.records += n;
    return w->failed ? -1 : 0;
}

int oplog_close(struct oplog_writer *w, char *err, size_t errlen) {
    int rc = 0;
    if (!w->failed && (fseek(w->f, 0, SEEK_SET) != 0 || fwrite(&w->h, sizeof w->h, 1, w->f) != 1))
        w->failed = errno ? errno : EIO;
    if (fclose(w->f) != 0 && !w->failed)
        w->failed = errno ? errno : EIO;
    if (!w->failed && rename(w->tmp, w->path) != 0)
        w->failed = errno;
    if (w->failed) {
        snprintf(err, errlen, "cannot write %s: %s", w->path, strerror(w->failed));
        remove(w->tmp);
        rc = -1;
    }
    free(w);
    return rc;
}

int oplog_read(const char *path, struct oplog_header *h, struct oplog_rec **recs, char *err,
               size_t errlen) {
    *recs = NULL;
    /* O_NONBLOCK: a FIFO in a log's place must not hang the open (oplog_read_fd
     * refuses it). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path,
                 errno == ENOENT ? "missing (the run writes its per-operation log there)"
                                 : strerror(errno));
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    int rc = oplog_read_fd(fd, path, h, recs, err, errlen);
    close(fd);
    return rc;
}

/* Exactly len bytes at the file's current offset: 0, or -1 (short or failed). */
static int read_all(int fd, void *buf, size_t len) {
    char *p = buf;
    while (len) {
        ssize_t k = read(fd, p, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

int oplog_read_fd(int fd, const char *path, struct oplog_header *h, struct oplog_rec **recs,
                  char *err, size_t errlen) {
    *recs = NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (refused)", path);
        return -1;
    }
    if (st.st_size < OPLOG_HEADER_SIZE || read_all(fd, h, sizeof *h) != 0 ||
        memcmp(h->magic, OPLOG_MAGIC, 8) != 0) {
        snprintf(err, errlen, "%s is not a harness per-operation log (no %s header)", path,
                 OPLOG_MAGIC);
        return -1;
    }
    /* The record size a version has is fixed: a header pairing another with
     * it is refused, never read with a stride of its own. */
    size_t rsize = h->version == 1 ? OPLOG_V1_RECORD_SIZE : sizeof(struct oplog_rec);
    if ((h->version != OPLOG_VERSION && h->version != 1) || h->header_size != OPLOG_HEADER_SIZE ||
        h->record_size != rsize || h->nwl > OPLOG_MAX_WL) {
        snprintf(err, errlen,
                 "%s: log format %u with %u-byte records, this harness reads 1 (32) and %d (%zu)",
                 path, h->version, h->record_size, OPLOG_VERSION, sizeof(struct oplog_rec));
        return -1;
    }
    h->run_id[sizeof h->run_id - 1] = 0;
    /* The names are printed and compared as C strings: never past their field. */
    for (unsigned w = 0; w < OPLOG_MAX_WL; w++) {
        h->workload[w][sizeof h->workload[w] - 1] = 0;
        h->counter[w][sizeof h->counter[w] - 1] = 0;
    }
    /* The count is checked against what the file holds before it is multiplied by
     * anything: a header claiming 2^59+1 records would wrap records*32 to a size that
     * matches a short file. */
    uint64_t body = (uint64_t)st.st_size - OPLOG_HEADER_SIZE; /* checked above: >= 512 */
    uint64_t have = body / rsize;
    if (h->records != have || body % rsize != 0) {
        snprintf(err, errlen,
                 "%s is truncated or padded: its header says %llu records, the file holds %llu "
                 "(%lld bytes)",
                 path, (unsigned long long)h->records, (unsigned long long)have,
                 (long long)st.st_size);
        return -1;
    }
    /* have <= body / 32, so have x 40 cannot wrap. */
    *recs = malloc(h->records ? (size_t)have * sizeof(struct oplog_rec) : 1);
    if (!*recs || (h->records && read_all(fd, *recs, (size_t)body) != 0)) {
        snprintf(err, errlen, "%s: cannot read its %llu records", path,
                 (unsigned long long)h->records);
        free(*recs);
        *recs = NULL;
        return -1;
    }
    if (h->version == 1) {
        /* Spread the 32-byte records out in place, last first (each moves
         * up, never over one not yet moved), each due at its start. */
        unsigned char *b = (unsigned char *)*recs;
        for (uint64_t i = have; i-- > 0;) {
            struct oplog_rec r;
            memcpy(&r, b + i * OPLOG_V1_RECORD_SIZE, OPLOG_V1_RECORD_SIZE);
            r.sched_ns = r.start_ns;
            memcpy(b + i * sizeof r, &r, sizeof r);
        }
        h->record_size = sizeof(struct oplog_rec);
    }
    return 0;
}

int oplog_bytes(const char *path, char **data, size_t *len) {
    *data = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    struct stat st;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    /* A regular file only: a FIFO or a device in a log's place is refused, not read. */
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
        !(*data = malloc((size_t)st.st_size + 1)) ||
        fread(*data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        free(*data);
        *data = NULL;
        fclose(f);
        return -1;
    }
    *len = (size_t)st.st_size;
    fclose(f);
    return 0;
}
