/* oplog.c -- writing and reading the per-operation log (see oplog.h). */
#include "oplog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path,
                 errno == ENOENT ? "missing (the run writes its per-operation log there)"
                                 : strerror(errno));
        return -1;
    }
    struct stat st;
    int rc = -1;
    if (fstat(fileno(f), &st) != 0 || fread(h, sizeof *h, 1, f) != 1 ||
        memcmp(h->magic, OPLOG_MAGIC, 8) != 0) {
        snprintf(err, errlen, "%s is not a harness per-operation log (no %s header)", path,
                 OPLOG_MAGIC);
        goto out;
    }
    if (h->version != OPLOG_VERSION || h->header_size != OPLOG_HEADER_SIZE ||
        h->record_size != sizeof(struct oplog_rec) || h->nwl > OPLOG_MAX_WL) {
        snprintf(err, errlen, "%s: log format %u with %u-byte records, this harness reads %d", path,
                 h->version, h->record_size, OPLOG_VERSION);
        goto out;
    }
    h->run_id[sizeof h->run_id - 1] = 0;
    /* The count is checked against what the file holds before it is multiplied by
     * anything: a header claiming 2^59+1 records would wrap records*32 to a size that
     * matches a short file. */
    uint64_t body = (uint64_t)st.st_size - OPLOG_HEADER_SIZE; /* fread above: >= 512 */
    uint64_t have = body / sizeof(struct oplog_rec);
    if (h->records != have || body % sizeof(struct oplog_rec) != 0) {
        snprintf(err, errlen,
                 "%s is truncated or padded: its header says %llu records, the file holds %llu "
                 "(%lld bytes)",
                 path, (unsigned long long)h->records, (unsigned long long)have,
                 (long long)st.st_size);
        goto out;
    }
    *recs = malloc(h->records ? h->records * sizeof **recs : 1);
    if (!*recs || (h->records && fread(*recs, sizeof **recs, h->records, f) != h->records)) {
        snprintf(err, errlen, "%s: cannot read its %llu records", path,
                 (unsigned long long)h->records);
        free(*recs);
        *recs = NULL;
        goto out;
    }
    rc = 0;
out:
    fclose(f);
    return rc;
}

int oplog_bytes(const char *path, char **data, size_t *len) {
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f)
        return -1;
    if (fstat(fileno(f), &st) != 0 || !(*data = malloc((size_t)st.st_size + 1)) ||
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
