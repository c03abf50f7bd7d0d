/* fsread.h -- small readers for /proc and /sys files under a sysroot.
 *
 * Every telemetry, inventory and CPU-attribution reader (coordinator/ and
 * containers/ alike) goes through these so that tests can point a whole
 * module at a fixture tree (--sysroot). They allocate nothing: callers pass
 * their buffers, so the same helpers serve the setup path and the
 * allocation-free sample path. */
#ifndef AOPS_FSREAD_H
#define AOPS_FSREAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* sysfs entry names such as cpu12 or node3: s (what follows the prefix) is
 * a non-empty run of decimal digits. */
static inline int fs_is_index(const char *s) {
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* Join sysroot and an absolute path ("/proc/stat") into out. Returns out,
 * or NULL when the result would not fit. */
char *sysroot_path(char *out, size_t size, const char *sysroot, const char *path);

/* Read at most size-1 bytes of a whole small file into buf, NUL-terminated,
 * trailing newlines stripped. Returns the length, or -1 with errno set.
 * Only a regular file is read (every /proc and /sys file is one): a FIFO
 * planted in a sysroot would block the open for ever, a character device
 * (/dev/zero) never end; either is -1 with EINVAL, at once. */
ssize_t fs_read_str(const char *path, char *buf, size_t size);

/* fopen(path, "re") for the line-by-line readers, with fs_read_str's rule:
 * a regular file or NULL (errno EINVAL for any other kind), never a wait. */
FILE *fs_fopen(const char *path);

/* MemTotal of a meminfo text, /proc/meminfo's "MemTotal:  16318164 kB" or a
 * NUMA node's "Node 0 MemTotal: ..." line, in bytes. 0, or -1 when there is
 * none or it is past INT64_MAX bytes (a sysroot's file may say anything). */
int fs_meminfo_total(const char *text, int64_t *bytes);

/* The same from an fd already open, reading from offset 0 (the sample path
 * keeps its /proc files open and re-reads them). */
ssize_t fs_pread_str(int fd, char *buf, size_t size);

/* A file holding one unsigned decimal number. 0 on success, -1 otherwise. */
int fs_read_u64(const char *path, uint64_t *out);

/* Trim leading and trailing whitespace in place; returns s advanced. */
char *fs_trim(char *s);

/* Jiffies of the aggregate "cpu" line of /proc/stat. */
struct cpu_times {
    uint64_t busy;  /* total - idle - iowait - steal */
    uint64_t total; /* user..steal; guest is already inside user */
    uint64_t steal; /* time a hypervisor ran something else while we wanted the CPU */
};

/* Parse the first line of /proc/stat. 0 on success, -1 when malformed. */
int cpu_parse_stat(const char *buf, struct cpu_times *out);

#endif
