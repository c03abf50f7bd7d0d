/* json.c -- see json.h. */
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

json_t *jget(const json_t *root, const char *path) {
    char key[128];
    const json_t *cur = root;
    while (cur && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = 0;
        /* Arrays take an index step, "containers.0.ops", or a selector,
         * "telemetry.power.scope=platform.mean_w": the first element whose
         * member has that string value. */
        char *end, *eq = strchr(key, '=');
        unsigned long idx = strtoul(key, &end, 10);
        if (json_is_array(cur) && eq) {
            *eq = 0;
            const json_t *hit = NULL;
            for (size_t i = 0; !hit && i < json_array_size(cur); i++) {
                const char *v = json_string_value(json_object_get(json_array_get(cur, i), key));
                if (v && !strcmp(v, eq + 1))
                    hit = json_array_get(cur, i);
            }
            cur = hit;
        } else if (json_is_array(cur))
            cur = (*key && !*end) ? json_array_get(cur, idx) : NULL;
        else
            cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
        path += n + (dot ? 1 : 0);
    }
    return (json_t *)cur;
}

double jnum(const json_t *root, const char *path) {
    json_t *v = jget(root, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *jstr(const json_t *root, const char *path) {
    return json_string_value(jget(root, path));
}

json_t *json_num_or_null(double x, int ok) {
    return ok && isfinite(x) ? json_real(x) : json_null();
}

/* fsync the directory that holds path, so a rename into it survives a
 * crash. A filesystem that cannot sync a directory says EINVAL: nothing more
 * can be done there, and the file itself is on disk. */
static int sync_dir_of(const char *path) {
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 1;
    if (n >= sizeof dir)
        return errno = ENAMETOOLONG, -1;
    if (!slash)
        memcpy(dir, ".", 2);
    else if (n == 0)
        memcpy(dir, "/", 2);
    else
        memcpy(dir, path, n), dir[n] = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd) == 0 || errno == EINVAL ? 0 : -1;
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int json_write_atomic_mode(const char *path, const json_t *j, size_t flags, mode_t mode) {
    /* A name of this thread's own (no other writer, in this process or any
     * other, has its tid), and O_EXCL: a file left by a writer that crashed
     * with a tid since reused is not ours to delete, so the next name is
     * tried. O_NOFOLLOW: a symbolic link planted at the name is not
     * followed. */
    char tmp[PATH_MAX + 48];
    int fd = -1;
    for (int n = 0; fd < 0 && n < 8; n++) {
        int k = snprintf(tmp, sizeof tmp, "%s.%ld.%d.tmp", path, (long)gettid(), n);
        if (k < 0 || (size_t)k >= sizeof tmp)
            return errno = ENAMETOOLONG, -1;
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST)
            return -1;
    }
    if (fd < 0)
        return -1; /* EEXIST eight times */
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return errno = e, -1;
    }
    errno = 0;
    int ok = json_dumpf(j, f, flags) == 0 && fflush(f) == 0 && fsync(fd) == 0;
    int e = errno ? errno : EINVAL; /* jansson fails without errno on a value it cannot encode */
    if (fclose(f) != 0 && ok)
        ok = 0, e = errno;
    if (ok && rename(tmp, path) != 0)
        ok = 0, e = errno;
    if (!ok) {
        unlink(tmp);
        return errno = e, -1;
    }
    return sync_dir_of(path);
}

int json_write_atomic(const char *path, const json_t *j, size_t flags) {
    return json_write_atomic_mode(path, j, flags, 0666);
}

json_t *json_load_bounded(const char *path, size_t max, size_t flags, char *err, size_t errlen) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", path,
                 e == ENOENT  ? "not there"
                 : e == ELOOP ? "a symbolic link"
                              : strerror(e));
        errno = e;
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        if (max % (1u << 20) == 0)
            snprintf(err, errlen, "%s: not a regular file of at most %zu MiB", path, max >> 20);
        else
            snprintf(err, errlen, "%s: not a regular file of at most %zu bytes", path, max);
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    /* Reads block again (O_NONBLOCK was for the open), and go through stdio:
     * json_loadfd reads one byte per read(2). */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadf(f, flags, &je);
    fclose(f);
    if (!j) {
        snprintf(err, errlen, "%s: %s (line %d)", path, je.text, je.line);
        errno = EBADMSG;
    }
    return j;
}
