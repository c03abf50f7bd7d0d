/* cgroup_stat.c -- CPU-time readers for attribution: a cgroup's from
 * cgroupfs (v2 cpu.stat, v1 cpuacct), a process's or a process tree's from
 * /proc/<pid>/stat, the machine's from /proc/stat.
 *
 * cgroup files are preferred to /proc for servers and workers because a
 * cgroup keeps the CPU of every thread and child that ever ran in it, while
 * a process's figures lose the children that exited unwaited. These run at
 * window edges, not in the measured loop, so they open and read files each
 * time rather than keeping descriptors. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsread.h"
#include "../common/mountinfo.h"
#include "cgroup_stat.h"

struct cpu_time cpu_time_sub(const struct cpu_time *b, const struct cpu_time *a) {
    struct cpu_time d = {b->user_s - a->user_s, b->system_s - a->system_s, b->total_s - a->total_s};
    return d;
}

static double ticks_s(unsigned long long t) {
    long hz = sysconf(_SC_CLK_TCK);
    return (double)t / (double)(hz > 0 ? hz : 100);
}

/* "key value" lines (cpu.stat, cpuacct.stat): the value of key, or -1. */
static int kv_u64(const char *buf, const char *key, unsigned long long *v) {
    size_t n = strlen(key);
    for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (strncmp(l, key, n) == 0 && l[n] == ' ')
            return sscanf(l + n + 1, "%llu", v) == 1 ? 0 : -1;
    return -1;
}

static int read_in(const char *dir, const char *name, char *buf, size_t len) {
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s/%s", dir, name) >= (int)sizeof p)
        return errno = ENAMETOOLONG, -1;
    return fs_read_str(p, buf, len) < 0 ? -1 : 0;
}

static int u64_in(const char *dir, const char *name, unsigned long long *v) {
    char buf[64], *end;
    if (read_in(dir, name, buf, sizeof buf) < 0)
        return -1;
    errno = 0;
    *v = strtoull(buf, &end, 10);
    return errno || end == buf ? -1 : 0;
}

static int v2_read(const char *dir, struct cpu_time *out) {
    char buf[1024];
    unsigned long long usage, user, sys;
    if (read_in(dir, "cpu.stat", buf, sizeof buf) < 0 || kv_u64(buf, "usage_usec", &usage) < 0)
        return -1;
    if (kv_u64(buf, "user_usec", &user) < 0 || kv_u64(buf, "system_usec", &sys) < 0)
        return -1;
    out->total_s = (double)usage / 1e6;
    out->user_s = (double)user / 1e6;
    out->system_s = (double)sys / 1e6;
    return 0;
}

int cgstat_read_dir(const char *dir, struct cpu_time *out, char *why, size_t whylen) {
    struct stat st;
    errno = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "cgroup %s: %s", dir, errno ? strerror(errno) : "not a directory");
        return -1;
    }
    /* v1's cpu controller also has a cpu.stat (throttling counts only):
     * usage_usec is what says it is v2's. */
    if (v2_read(dir, out) == 0)
        return 2;
    unsigned long long usage, user, sys;
    if (u64_in(dir, "cpuacct.usage", &usage) < 0) {
        snprintf(why, whylen,
                 "cgroup %s has neither cpu.stat with usage_usec (v2) nor cpuacct.usage (v1)", dir);
        return -1;
    }
    out->total_s = (double)usage / 1e9;
    if (u64_in(dir, "cpuacct.usage_user", &user) == 0 &&
        u64_in(dir, "cpuacct.usage_sys", &sys) == 0) {
        out->user_s = (double)user / 1e9;
        out->system_s = (double)sys / 1e9;
        return 1;
    }
    char buf[256];
    if (read_in(dir, "cpuacct.stat", buf, sizeof buf) < 0 || kv_u64(buf, "user", &user) < 0 ||
        kv_u64(buf, "system", &sys) < 0) {
        snprintf(why, whylen, "cgroup %s: cpuacct.stat unreadable or malformed", dir);
        return -1;
    }
    out->user_s = ticks_s(user);
    out->system_s = ticks_s(sys);
    return 1;
}

struct cg_mount {
    char root[PATH_MAX]; /* the part of the hierarchy this mount shows (a namespace's) */
    char point[PATH_MAX];
};

/* The cgroup2 mount and the v1 mount carrying cpuacct; 0 when found. */
static int find_mounts(const char *sysroot, struct cg_mount *v2, struct cg_mount *v1, char *why,
                       size_t whylen) {
    char file[PATH_MAX];
    v2->point[0] = v1->point[0] = '\0';
    if (!sysroot_path(file, sizeof file, sysroot, "/proc/self/mountinfo"))
        return snprintf(why, whylen, "sysroot too long"), -1;
    FILE *f = fopen(file, "re");
    if (!f)
        return snprintf(why, whylen, "%s: %s", file, strerror(errno)), -1;
    struct mount_entry e;
    while (mountinfo_next(f, &e)) {
        struct cg_mount *m = NULL;
        if (strcmp(e.fstype, "cgroup2") == 0)
            m = v2;
        else if (strcmp(e.fstype, "cgroup") == 0 && list_has_word(e.opts, "cpuacct"))
            m = v1;
        if (m) {
            snprintf(m->root, sizeof m->root, "%s", e.root);
            snprintf(m->point, sizeof m->point, "%s", e.point);
        }
    }
    fclose(f);
    return 0;
}

/* <sysroot><mount point><cgpath less the mount's root>. */
static int under(char *out, size_t len, const char *sysroot, const struct cg_mount *m,
                 const char *cgpath) {
    size_t r = strlen(m->root);
    if (strcmp(m->root, "/") != 0 && strncmp(cgpath, m->root, r) == 0 &&
        (cgpath[r] == '/' || cgpath[r] == '\0'))
        cgpath += r;
    char rel[PATH_MAX];
    if (snprintf(rel, sizeof rel, "%s%s", m->point, strcmp(cgpath, "/") == 0 ? "" : cgpath) >=
        (int)sizeof rel)
        return -1;
    return sysroot_path(out, len, sysroot, rel) ? 0 : -1;
}

int cgstat_resolve(const char *sysroot, const char *cgpath, char *dir, size_t dirlen, char *why,
                   size_t whylen) {
    struct cg_mount v2, v1;
    struct cpu_time t;
    if (cgpath[0] != '/') {
        snprintf(why, whylen, "cgroup path '%s' does not start with /", cgpath);
        return -1;
    }
    if (find_mounts(sysroot, &v2, &v1, why, whylen) < 0)
        return -1;
    if (v2.point[0] && under(dir, dirlen, sysroot, &v2, cgpath) == 0 && v2_read(dir, &t) == 0)
        return 2;
    if (v1.point[0] && under(dir, dirlen, sysroot, &v1, cgpath) == 0) {
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            return 1;
    }
    if (!v2.point[0] && !v1.point[0])
        snprintf(why, whylen, "no cgroup2 and no v1 cpuacct hierarchy is mounted");
    else
        snprintf(why, whylen, "cgroup %s not found under %s%s%s", cgpath,
                 v2.point[0] ? v2.point : "", v2.point[0] && v1.point[0] ? " or " : "",
                 v1.point[0] ? v1.point : "");
    return -1;
}

int cgstat_read(const char *sysroot, const char *cgpath, struct cpu_time *out, char *why,
                size_t whylen) {
    char dir[PATH_MAX];
    if (cgstat_resolve(sysroot, cgpath, dir, sizeof dir, why, whylen) < 0)
        return -1;
    return cgstat_read_dir(dir, out, why, whylen);
}

/* Fields of /proc/<pid>/stat that attribution needs. */
struct pstat {
    pid_t pid, ppid;
    unsigned long long utime, stime, cutime, cstime;
};

/* comm (field 2) may hold spaces and parentheses: fields resume after the
 * last ')'. */
static int parse_pstat(const char *buf, struct pstat *p) {
    const char *rp = strrchr(buf, ')');
    long long ppid;
    if (sscanf(buf, "%d", &p->pid) != 1 || !rp)
        return -1;
    /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
     * utime stime cutime cstime */
    if (sscanf(rp + 1, " %*c %lld %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu", &ppid,
               &p->utime, &p->stime, &p->cutime, &p->cstime) != 5)
        return -1;
    p->ppid = (pid_t)ppid;
    return 0;
}

static int read_pstat(const char *sysroot, pid_t pid, struct pstat *p) {
    char rel[64], file[PATH_MAX], buf[1024];
    snprintf(rel, sizeof rel, "/proc/%d/stat", (int)pid);
    if (!sysroot_path(file, sizeof file, sysroot, rel) || fs_read_str(file, buf, sizeof buf) < 0)
        return -1;
    return parse_pstat(buf, p);
}

/* Every process of <sysroot>/proc, for the tree walk. */
static struct pstat *all_procs(const char *sysroot, size_t *n) {
    char dirp[PATH_MAX];
    *n = 0;
    if (!sysroot_path(dirp, sizeof dirp, sysroot, "/proc"))
        return NULL;
    DIR *d = opendir(dirp);
    if (!d)
        return NULL;
    size_t cap = 256;
    struct pstat *v = malloc(cap * sizeof *v);
    struct dirent *e;
    while (v && (e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        if (*n == cap) {
            struct pstat *nv = realloc(v, 2 * cap * sizeof *v);
            if (!nv) {
                free(v);
                v = NULL;
                break;
            }
            v = nv, cap *= 2;
        }
        /* a process that exits between readdir and the read is simply gone */
        if (read_pstat(sysroot, (pid_t)atoi(e->d_name), &v[*n]) == 0)
            (*n)++;
    }
    closedir(d);
    return v;
}

int pidstat_read(const char *sysroot, pid_t pid, int tree, struct cpu_time *out, char *why,
                 size_t whylen) {
    struct pstat root;
    if (read_pstat(sysroot, pid, &root) < 0) {
        snprintf(why, whylen, "pid %d: no such process (or unreadable /proc/%d/stat)", (int)pid,
                 (int)pid);
        return -1;
    }
    unsigned long long ut = root.utime, st = root.stime;
    if (tree) {
        size_t n;
        struct pstat *all = all_procs(sysroot, &n);
        if (!all) {
            snprintf(why, whylen, "cannot list %s/proc: %s", sysroot, strerror(errno));
            return -1;
        }
        /* Mark the tree by repeated passes: parents may be listed after their
         * children, and trees are shallow. */
        char *in = calloc(n ? n : 1, 1);
        if (!in) {
            free(all);
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            in[i] = all[i].pid == pid;
        for (int changed = 1; changed;) {
            changed = 0;
            for (size_t i = 0; i < n; i++) {
                if (in[i])
                    continue;
                for (size_t j = 0; j < n; j++)
                    if (in[j] && all[j].pid == all[i].ppid) {
                        in[i] = 1, changed = 1;
                        break;
                    }
            }
        }
        ut = st = 0;
        for (size_t i = 0; i < n; i++)
            if (in[i]) {
                ut += all[i].utime + all[i].cutime;
                st += all[i].stime + all[i].cstime;
            }
        free(in);
        free(all);
    }
    out->user_s = ticks_s(ut);
    out->system_s = ticks_s(st);
    out->total_s = out->user_s + out->system_s;
    return 0;
}

int machine_cpu_read(const char *sysroot, struct machine_time *out, char *why, size_t whylen) {
    char file[PATH_MAX], buf[512];
    struct cpu_times t;
    if (!sysroot_path(file, sizeof file, sysroot, "/proc/stat") ||
        fs_read_str(file, buf, sizeof buf) < 0) {
        snprintf(why, whylen, "%s/proc/stat: %s", sysroot, strerror(errno));
        return -1;
    }
    if (cpu_parse_stat(buf, &t) < 0) {
        snprintf(why, whylen, "%s/proc/stat: no aggregate cpu line", sysroot);
        return -1;
    }
    out->busy_s = ticks_s(t.busy);
    out->total_s = ticks_s(t.total);
    out->steal_s = ticks_s(t.steal);
    return 0;
}
