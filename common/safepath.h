/* safepath.h -- opening a file whose name came from a file someone else
 * wrote (result.json's integrity.files, oplog.file, repeats.runs, a merge's
 * shard paths), inside the run directory it was found in.
 *
 * A result received from someone else may name "../../../../dev/zero", an
 * absolute path, a symbolic link out of RUN_DIR or a FIFO: followed, each
 * reads a file that is not the run's, or hangs the auditor's `harness
 * check`. So a name is accepted only when it is relative, has no empty,
 * "." or ".." component and no control character, and every component is
 * opened with openat(O_NOFOLLOW) from the directory before it (no symlink
 * anywhere, so nothing leaves RUN_DIR); the last one must be a regular file
 * of at most max bytes (opened O_NONBLOCK, so a FIFO cannot block the open).
 * Anything else is refused with one line naming the path. RUN_DIR itself
 * is the auditor's own argument and is trusted. */
#ifndef AOPS_SAFEPATH_H
#define AOPS_SAFEPATH_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define SAFEPATH_NAME_MAX 1024           /* bytes of a name from a result */
#define SAFEPATH_JSON_MAX (256ull << 20) /* a result.json or a signature envelope */
#define SAFEPATH_FILE_MAX (64ull << 30)  /* a log or a file listed in integrity.files */

/* What safepath_open returns besides a descriptor. */
#define SAFEPATH_MISSING -1 /* the file is not there (ENOENT): err says so */
#define SAFEPATH_REFUSED -2 /* a bad name, a symlink, not a regular file, too big */

/* 0 when name is one safepath_open may open (see above), else -1 with err. */
int safepath_name_ok(const char *name, char *err, size_t errlen);

/* Open dir/name for reading as described above: a descriptor (close it), and
 * its size in *size when size is not NULL; or SAFEPATH_MISSING or
 * SAFEPATH_REFUSED with err = "DIR/NAME: why" in one line. */
int safepath_open(const char *dir, const char *name, uint64_t max, uint64_t *size, char *err,
                  size_t errlen);

/* prefix "/" name into out ("name" when prefix is empty or NULL): the name
 * of a file of a run under a repeat's runs/<i>. 0, or -1 when it does not fit. */
int safepath_join(const char *prefix, const char *name, char *out, size_t len);

/* dir/name parsed as JSON (at most SAFEPATH_JSON_MAX bytes), or NULL with
 * err in one line; *missing set to 1 when it is not there (may be NULL). */
json_t *safepath_load_json(const char *dir, const char *name, int *missing, char *err,
                           size_t errlen);

/* The sha256 of dir/name as lowercase hex: 0, or SAFEPATH_MISSING /
 * SAFEPATH_REFUSED with err. */
int safepath_sha256(const char *dir, const char *name, char out[65], char *err, size_t errlen);

#endif
