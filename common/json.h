/* json.h -- small jansson helpers every part of the harness uses: dotted-path
 * lookups into a result ("workloads.s3.latency_ms.p95", "containers.0.ops"),
 * numbers that are null when they cannot be measured, and the one way a JSON
 * file is written (whole or not at all). */
#ifndef AOPS_JSON_H
#define AOPS_JSON_H

#include <jansson.h>
#include <sys/types.h>

/* Look up "a.b.c" in a JSON object (a number step indexes an array, a
 * "key=value" step picks the first element whose key is that string); NULL
 * when any step is missing. */
json_t *jget(const json_t *root, const char *path);
/* The number at path, or NAN when missing, null or not a number. */
double jnum(const json_t *root, const char *path);
/* The string at path, or NULL. */
const char *jstr(const json_t *root, const char *path);
/* A real, or null when !ok or x is not finite: a figure that could not be
 * measured must never read as 0. */
json_t *json_num_or_null(double x, int ok);

/* Write j to path as json_dump_file(j, path, flags) would, but atomically: a
 * reader sees the old file or the new one, never a part, even across a crash
 * or a full disk. The text goes to a temporary file in path's directory
 * ("<path>.<tid>.<n>.tmp", created O_EXCL|O_NOFOLLOW with 0666 less the
 * umask, as fopen does), which is fsync'd, renamed over path, and then the
 * directory is fsync'd so the rename itself lasts. 0, or -1 with errno (the
 * caller says what failed); the temporary file is then gone, and path is as
 * it was unless only the directory's fsync failed. */
/* The JSON document in the file at path, read only when it is a regular file
 * (not a symbolic link, a FIFO or a device: a hostile path must not hang the
 * reader) of at most max bytes. NULL with one line in err, "PATH: why", and
 * errno ENOENT when the file is not there (callers for which a missing file is
 * no error stay silent on it), EBADMSG when it is there but not JSON, EINVAL
 * when it is no regular file or too large. flags as json_loadf's. */
json_t *json_load_bounded(const char *path, size_t max, size_t flags, char *err, size_t errlen);

int json_write_atomic(const char *path, const json_t *j, size_t flags);
/* The same with the new file's mode (before the umask): 0600 for a file
 * only its writer should read. */
int json_write_atomic_mode(const char *path, const json_t *j, size_t flags, mode_t mode);

#endif
