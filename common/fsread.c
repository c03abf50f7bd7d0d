/* fsread.c -- sysroot-relative file reading for telemetry, inventory and
 * CPU attribution: joins paths under the root and reads small /proc and /sys
 * files into caller buffers, without allocating. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsread.h"

char *sysroot_path(char *out, size_t size, const char *sysroot, const char *path) {
    size_t n = strlen(sysroot);
    /* "/" and "/x/" both join without a doubled slash. */
    while (n > 0 && sysroot[n - 1] == '/')
        n--;
    int w = snprintf(out, size, "%.*s%s", (int)n, sysroot, path);
    if (w < 0 || (size_t)w >= size)
        return NULL;
    return out;
}

static ssize_t strip(char *buf, ssize_t n) {
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    return n;
}

ssize_t fs_pread_str(int fd, char *buf, size_t size) {
    size_t got = 0;
    if (size == 0)
        return errno = EINVAL, -1;
    /* /proc files may come back in several reads; stop at EOF or when full. */
    while (got < size - 1) {
        ssize_t r = pread(fd, buf + got, size - 1 - got, (off_t)got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return strip(buf, (ssize_t)got);
}

/* path opened for reading when it is a regular file: O_NONBLOCK, so that a
 * FIFO's open returns at once (and is then refused); cleared after, as
 * /proc and /sys ignore it anyway. -1 with errno otherwise. */
static int open_regular(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *fs_fopen(const char *path) {
    int fd = open_regular(path);
    FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    return f;
}

int fs_meminfo_total(const char *text, int64_t *bytes) {
    const char *m = strstr(text, "MemTotal:");
    if (!m)
        return -1;
    /* Digits on the same line, as the kernel writes them: no sign (strtoull
     * and %llu take "-0" as 0 and "-5" as 2^64 - 5), no value from the next
     * line (a space in a scanf format skips newlines too). */
    m += 9;
    m += strspn(m, " \t");
    if (*m < '0' || *m > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long kib = strtoull(m, &end, 10);
    if (errno || kib > (unsigned long long)INT64_MAX / 1024)
        return -1;
    *bytes = (int64_t)kib * 1024;
    return 0;
}

ssize_t fs_read_str(const char *path, char *buf, size_t size) {
    int fd = open_regular(path);
    if (fd < 0)
        return -1;
    ssize_t n = fs_pread_str(fd, buf, size);
    int e = errno;
    close(fd);
    errno = e;
    return n;
}

int fs_read_u64(const char *path, uint64_t *out) {
    char buf[64], *end;
    if (fs_read_str(path, buf, sizeof buf) <= 0)
        return -1;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno || end == buf)
        return -1;
    *out = v;
    return 0;
}

char *fs_trim(char *s) {
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

int cpu_parse_stat(const char *buf, struct cpu_times *out) {
    unsigned long long v[8] = {0};
    if (strncmp(buf, "cpu ", 4) != 0)
        return -1;
    /* user nice system idle iowait irq softirq steal [guest guest_nice]:
     * guest time is already counted in user and nice, so it is left out. */
    int n = sscanf(buf + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    if (n < 4) /* very old kernels stop after idle; missing fields stay 0 */
        return -1;
    uint64_t total = 0;
    for (int i = 0; i < 8; i++)
        total += v[i];
    /* Steal is time the hypervisor gave another guest while this one wanted
     * the CPU: nobody's work here, so not busy (the CPU was not ours). */
    out->total = total;
    out->busy = total - v[3] - v[4] - v[7];
    out->steal = v[7];
    return 0;
}
