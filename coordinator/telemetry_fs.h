/* telemetry_fs.h -- small readers for /proc and /sys files under a sysroot.
 *
 * Every telemetry and inventory reader goes through these so that tests can
 * point the whole module at a fixture tree (--sysroot). They allocate
 * nothing: callers pass their buffers, so the same helpers serve the setup
 * path and the allocation-free sample path. */
#ifndef AOPS_TELEMETRY_FS_H
#define AOPS_TELEMETRY_FS_H

#include <stddef.h>
#include <stdint.h>

/* Join sysroot and an absolute path ("/proc/stat") into out. Returns out,
 * or NULL when the result would not fit. */
char *sysroot_path(char *out, size_t size, const char *sysroot, const char *path);

/* Read at most size-1 bytes of a whole small file into buf, NUL-terminated,
 * trailing newlines stripped. Returns the length, or -1 with errno set. */
ssize_t fs_read_str(const char *path, char *buf, size_t size);

/* The same from an fd already open, reading from offset 0 (the sample path
 * keeps its /proc files open and re-reads them). */
ssize_t fs_pread_str(int fd, char *buf, size_t size);

/* A file holding one unsigned decimal number. 0 on success, -1 otherwise. */
int fs_read_u64(const char *path, uint64_t *out);

/* Trim leading and trailing whitespace in place; returns s advanced. */
char *fs_trim(char *s);

#endif
