/* safepath.c -- names from a result opened inside RUN_DIR only (see
 * safepath.h): a component walk with openat(O_NOFOLLOW), fstat before any
 * read. */
#include "safepath.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"

int safepath_name_ok(const char *name, char *err, size_t errlen) {
    size_t n = name ? strnlen(name, SAFEPATH_NAME_MAX + 1) : 0;
    const char *why = NULL;
    if (!name || !n)
        why = "an empty path";
    else if (n > SAFEPATH_NAME_MAX)
        why = "a path longer than 1024 bytes";
    else if (name[0] == '/')
        why = "an absolute path";
    for (size_t i = 0; !why && i < n; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            why = "a control character in the path";
    /* Components: none empty ("a//b", "a/"), none "." or "..". */
    for (const char *c = name; !why && c && *c;) {
        const char *e = strchr(c, '/');
        size_t l = e ? (size_t)(e - c) : strlen(c);
        if (l == 0 || (e && !e[1]))
            why = "an empty path component";
        else if ((l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
            why = "a '.' or '..' component (a path from a result must stay inside RUN_DIR)";
        c = e ? e + 1 : NULL;
    }
    if (why) {
        /* The name may hold anything: print it bounded and only when printable. */
        snprintf(err, errlen, "refused path '%.200s' from the result: %s",
                 name && !strpbrk(name, "\n\r") ? name : "?", why);
        return -1;
    }
    return 0;
}

int safepath_join(const char *prefix, const char *name, char *out, size_t len) {
    int k = prefix && prefix[0] ? snprintf(out, len, "%s/%s", prefix, name)
                                : snprintf(out, len, "%s", name);
    return k < 0 || (size_t)k >= len ? -1 : 0;
}

int safepath_open(const char *dir, const char *name, uint64_t max, uint64_t *size, char *err,
                  size_t errlen) {
    if (safepath_name_ok(name, err, errlen) != 0)
        return SAFEPATH_REFUSED;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return errno == ENOENT ? SAFEPATH_MISSING : SAFEPATH_REFUSED;
    }
    char comp[SAFEPATH_NAME_MAX + 1];
    const char *c = name;
    for (;;) {
        const char *e = strchr(c, '/');
        size_t l = e ? (size_t)(e - c) : strlen(c);
        memcpy(comp, c, l);
        comp[l] = 0;
        int flags = e ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
                      : O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
        int next = openat(fd, comp, flags);
        int saved = errno;
        close(fd);
        if (next < 0) {
            const char *why = saved == ELOOP || (e && saved == ENOTDIR)
                                  ? "a symbolic link or not a directory (refused: a path from "
                                    "a result must stay inside RUN_DIR)"
                                  : strerror(saved);
            snprintf(err, errlen, "%s/%s: %s", dir, name, why);
            return saved == ENOENT ? SAFEPATH_MISSING : SAFEPATH_REFUSED;
        }
        fd = next;
        if (!e)
            break;
        c = e + 1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s/%s: not a regular file (refused)", dir, name);
        close(fd);
        return SAFEPATH_REFUSED;
    }
    if ((uint64_t)st.st_size > max) {
        snprintf(err, errlen, "%s/%s: %lld bytes, more than the %llu this reads (refused)", dir,
                 name, (long long)st.st_size, (unsigned long long)max);
        close(fd);
        return SAFEPATH_REFUSED;
    }
    /* Reads block again: a regular file never waits, and O_NONBLOCK was for the open. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (size)
        *size = (uint64_t)st.st_size;
    return fd;
}

json_t *safepath_load_json(const char *dir, const char *name, int *missing, char *err,
                           size_t errlen) {
    int fd = safepath_open(dir, name, SAFEPATH_JSON_MAX, NULL, err, errlen);
    if (missing)
        *missing = fd == SAFEPATH_MISSING;
    if (fd < 0)
        return NULL;
    /* Through stdio: json_loadfd reads one byte per read(2). */
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(err, errlen, "%s/%s: %s", dir, name, strerror(errno));
        close(fd);
        return NULL;
    }
    json_error_t je;
    json_t *r = json_loadf(f, 0, &je);
    fclose(f);
    if (!r)
        snprintf(err, errlen, "%s/%s: %s (line %d)", dir, name, je.text, je.line);
    return r;
}

int safepath_sha256(const char *dir, const char *name, char out[65], char *err, size_t errlen) {
    int fd = safepath_open(dir, name, SAFEPATH_FILE_MAX, NULL, err, errlen);
    if (fd < 0)
        return fd;
    char what[1200];
    snprintf(what, sizeof what, "%s/%s", dir, name);
    int rc = sha256_fd_hex(fd, what, out, err, errlen);
    close(fd);
    return rc == 0 ? 0 : SAFEPATH_REFUSED;
}
