/* mountinfo.h -- one reader of /proc/<pid>/mountinfo for every module.
 *
 * The cgroup layer, CPU accounting and attribution, perf's cgroup lookup,
 * the storage telemetry and the docker runtime all look for mounts (a
 * controller's hierarchy, the filesystem under a path) and for their own
 * cgroup under them. They share these parsers so each reads the same
 * fields the same way, escapes included (proc(5): space, tab, newline and
 * backslash in paths appear as \ooo). */
#ifndef AOPS_MOUNTINFO_H
#define AOPS_MOUNTINFO_H

#include <limits.h>
#include <stdio.h>

struct mount_entry {
    unsigned major, minor;
    char root[PATH_MAX];  /* field 4: the part of the filesystem mounted */
    char point[PATH_MAX]; /* field 5: where it is mounted */
    char fstype[64];      /* after " - " */
    char source[PATH_MAX];
    char opts[1024]; /* super options ("rw,memory" for a v1 memory hierarchy) */
};

/* The next entry of an open mountinfo file into e, paths unescaped: 1, or 0
 * at its end. Lines that do not parse are skipped. */
int mountinfo_next(FILE *f, struct mount_entry *e);

/* A process's cgroup path, from a /proc/PID/cgroup file, for a v1
 * controller ("memory") or cgroup2 (""); "/" when the file has no such
 * line. (libcgroup 2.0.2 cannot find the v2 line; fixtures test this.) */
void proc_cgroup_path(const char *cgroup_file, const char *controller, char *out, size_t len);

/* Whether list holds the word want, words separated by commas or spaces
 * (mount options, /proc/PID/cgroup's controllers, cgroup.controllers). */
int list_has_word(const char *list, const char *want);

#endif
