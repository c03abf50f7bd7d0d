/* cgroup_acct.c -- a CPU-accounting cgroup per worker (see cgroup_acct.h).
 *
 * Kept apart from cgroup.c, which places workers for their limits: this file
 * only adds the place their CPU time is read from, and reads it. The
 * accounting cgroups are plain directories written through cgroupfs, like
 * the stack's servers' (scripts/stack), and a crashed run's are removed by
 * the next one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/mountinfo.h"
#include "cgroup_acct.h"

struct cg_acct {
    int kind;              /* cgacct_plan's: 2, 1 made here; 0 the workers' own */
    unsigned n;            /* workers */
    char parent[PATH_MAX]; /* aops-<run>-acct, when made here */
    char (*dir)[PATH_MAX]; /* per worker */
    unsigned made;         /* worker directories made so far */
    char desc[PATH_MAX + 64];
};

int cgacct_plan(const char *mountinfo, const char *cgroup_file, int cg_mode, int v1_cpu_limit,
                char *base, size_t len, char *why, size_t whylen) {
    char v2[PATH_MAX] = "", acct[PATH_MAX] = "", own[PATH_MAX];
    int acct_has_cpu = 0;
    base[0] = 0;
    if (cg_mode == CG_V2)
        return 0; /* every v2 cgroup has cpu.stat */
    FILE *f = fopen(mountinfo, "re");
    if (!f)
        return snprintf(why, whylen, "%s: %s", mountinfo, strerror(errno)), -1;
    struct mount_entry e;
    while (mountinfo_next(f, &e)) {
        if (strcmp(e.fstype, "cgroup2") == 0)
            snprintf(v2, sizeof v2, "%s", e.point);
        else if (strcmp(e.fstype, "cgroup") == 0 && list_has_word(e.opts, "cpuacct")) {
            snprintf(acct, sizeof acct, "%s", e.point);
            acct_has_cpu = list_has_word(e.opts, "cpu");
        }
    }
    fclose(f);
    if (v2[0]) {
        proc_cgroup_path(cgroup_file, "", own, sizeof own);
        snprintf(base, len, "%s%s", v2, strcmp(own, "/") ? own : "");
        return 2;
    }
    if (acct[0]) {
        /* A worker with a CPU limit is in a cgroup of the cpu hierarchy; when
         * cpuacct shares it, a second cgroup there would take it out of its
         * limit: read that one instead. */
        if (v1_cpu_limit && acct_has_cpu)
            return 0;
        proc_cgroup_path(cgroup_file, "cpuacct", own, sizeof own);
        snprintf(base, len, "%s%s", acct, strcmp(own, "/") ? own : "");
        return 1;
    }
    snprintf(why, whylen, "neither cgroup2 nor a v1 cpuacct hierarchy is mounted");
    return -1;
}

static int write_pid(const char *dir, const char *file, pid_t pid) {
    char p[PATH_MAX + 32], v[32];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int n = snprintf(v, sizeof v, "%d", (int)pid);
    ssize_t w = write(fd, v, (size_t)n);
    int e = errno;
    close(fd);
    errno = e;
    return w == n ? 0 : -1;
}

/* rmdir, retrying while the kernel finishes tearing down exited tasks (a
 * v1 cgroup stays busy for a moment after its last task is reaped). */
static void remove_dir(const char *dir) {
    for (int i = 0; i < 100; i++) {
        if (rmdir(dir) == 0 || errno == ENOENT || errno != EBUSY)
            return;
        usleep(10000);
    }
}

/* A crashed run's aops-<pid>-acct: its children, then itself. */
static void remove_stale(const char *base) {
    DIR *d = opendir(base);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        unsigned pid;
        char tail[8];
        if (sscanf(e->d_name, "aops-%u-%7s", &pid, tail) != 2 || strcmp(tail, "acct") != 0 ||
            kill((pid_t)pid, 0) == 0 || errno == EPERM)
            continue;
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s/%s", base, e->d_name);
        DIR *c = opendir(parent);
        struct dirent *k;
        while (c && (k = readdir(c))) {
            char child[PATH_MAX + 300];
            if (k->d_type != DT_DIR || k->d_name[0] == '.')
                continue;
            snprintf(child, sizeof child, "%s/%s", parent, k->d_name);
            remove_dir(child);
        }
        if (c)
            closedir(c);
        remove_dir(parent);
    }
    if (d)
        closedir(d);
}

struct cg_acct *cgacct_create(const struct cgroups *cg, unsigned run, unsigned n, char *err,
                              size_t errlen) {
    char base[PATH_MAX];
    if (!cg) {
        snprintf(err, errlen,
                 "--no-cgroups: the workers have no cgroup to read their CPU time from");
        return NULL;
    }
    int v1_limit =
        cgroups_mode(cg) == CG_V1 && n > 0 && cgroups_cpu_dir(cg, 0, base, sizeof base) == 0;
    int kind = cgacct_plan("/proc/self/mountinfo", "/proc/self/cgroup", cgroups_mode(cg), v1_limit,
                           base, sizeof base, err, errlen);
    if (kind < 0)
        return NULL;
    struct cg_acct *a = calloc(1, sizeof *a);
    if (!a || !(a->dir = calloc(n ? n : 1, sizeof *a->dir))) {
        free(a);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->kind = kind;
    a->n = n;
    if (kind == 0) {
        for (unsigned i = 0; i < n; i++)
            if (cgroups_cpu_dir(cg, i, a->dir[i], sizeof a->dir[i]) != 0) {
                snprintf(err, errlen, "worker %u's cgroup does not account CPU", i);
                cgacct_destroy(a);
                return NULL;
            }
        snprintf(a->desc, sizeof a->desc, "the workers' own cgroups (%s)", cgroups_describe(cg));
        return a;
    }
    remove_stale(base);
    snprintf(a->parent, sizeof a->parent, "%s/aops-%u-acct", base, run);
    if (mkdir(a->parent, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create cgroup %s: %s", a->parent, strerror(errno));
        a->parent[0] = 0;
        cgacct_destroy(a);
        return NULL;
    }
    for (unsigned i = 0; i < n; i++, a->made++) {
        snprintf(a->dir[i], sizeof a->dir[i], "%s/%u", a->parent, i);
        if (mkdir(a->dir[i], 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create cgroup %s: %s", a->dir[i], strerror(errno));
            cgacct_destroy(a);
            return NULL;
        }
    }
    snprintf(a->desc, sizeof a->desc, "%s %s (accounting only)",
             kind == 2 ? "cgroup2" : "v1 cpuacct", a->parent);
    return a;
}

int cgacct_attach_self(const struct cg_acct *a, unsigned i) {
    if (a->kind == 0)
        return 0; /* cgroups_attach_self put it there */
    return write_pid(a->dir[i], a->kind == 2 ? "cgroup.procs" : "tasks", getpid());
}

struct cg_acct *cgacct_existing(const char *cgpath, const char *what, char *err, size_t errlen) {
    struct cg_acct *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int v = cgstat_resolve("/", cgpath, a->parent, sizeof a->parent, err, errlen);
    if (v < 0) {
        free(a);
        return NULL;
    }
    a->kind = 0; /* not ours: never removed */
    snprintf(a->desc, sizeof a->desc, "cgroup%s %s (%s)", v == 2 ? "2" : " v1", a->parent, what);
    return a;
}

int cgacct_read(const struct cg_acct *a, struct cpu_time *out, char *why, size_t whylen) {
    if (a->parent[0])
        return cgstat_read_dir(a->parent, out, why, whylen) < 0 ? -1 : 0;
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < a->n; i++) {
        struct cpu_time t;
        if (cgstat_read_dir(a->dir[i], &t, why, whylen) < 0)
            return -1;
        out->user_s += t.user_s;
        out->system_s += t.system_s;
        out->total_s += t.total_s;
    }
    return 0;
}

const char *cgacct_parent(const struct cg_acct *a) {
    return a->parent[0] ? a->parent : NULL;
}

const char *cgacct_describe(const struct cg_acct *a) {
    return a->desc;
}

void cgacct_destroy(struct cg_acct *a) {
    if (!a)
        return;
    if (a->kind != 0) {
        for (unsigned i = 0; i < a->made; i++)
            remove_dir(a->dir[i]);
        if (a->parent[0])
            remove_dir(a->parent);
    }
    free(a->dir);
    free(a);
}
