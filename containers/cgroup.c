/* cgroup.c -- per-worker cgroups on v2 or v1, written through cgroupfs.
 *
 * Where the controllers live is read from /proc/self/mountinfo and the
 * worker cgroups are made below the coordinator's own cgroup (from
 * /proc/self/cgroup), so a harness that itself runs inside a limited cgroup
 * (a CI sandbox, a container) stays inside it. The control files are written
 * directly: a handful of writes that read the same on v1 and v2, where
 * libcgroup's API would add its own configuration layer for no gain here.
 *
 * v2: memory.max (+ memory.swap.max = 0, so the limit is real RAM), cpu.max,
 * cgroup.procs, memory.events. v1: memory.limit_in_bytes (+ memsw when swap
 * accounting exists), cpu.cfs_quota_us, tasks, memory.oom_control. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"

#define PATHLEN 512

struct cgroups {
    enum cg_mode mode;
    unsigned n;
    char mem_base[PATHLEN]; /* directory the worker cgroups are made in */
    char cpu_base[PATHLEN]; /* v1 cpu controller's; empty when none or v2 */
    char (*mem)[PATHLEN];   /* per worker */
    char (*cpu)[PATHLEN];   /* v1 only, when a CPU limit is asked */
    char desc[PATHLEN + 64];
};

static int write_file(const char *dir, const char *file, const char *val) {
    char p[PATHLEN + 64];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, val, strlen(val));
    int saved = errno;
    close(fd);
    errno = saved;
    return w == (ssize_t)strlen(val) ? 0 : -1;
}

static int read_file(const char *dir, const char *file, char *buf, size_t len) {
    char p[PATHLEN + 64];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, len - 1);
    close(fd);
    if (r < 0)
        return -1;
    buf[r] = 0;
    return 0;
}

/* Mount points of the v1 memory and cpu controllers and of cgroup2, and the
 * cgroup each mount shows as its top directory (mountinfo field 4): "/" for a
 * mount of the whole hierarchy, the container's own cgroup for the mounts a
 * container engine gives a container that shares the host's cgroup namespace. */
struct mounts {
    char v1_memory[PATHLEN], v1_cpu[PATHLEN], v2[PATHLEN];
    char v1_memory_root[PATHLEN], v1_cpu_root[PATHLEN], v2_root[PATHLEN];
};

/* Whether a list holds the word want: comma-separated (mount options,
 * /proc/PID/cgroup) or space-separated (v2 cgroup.controllers). */
static int has_opt(const char *opts, const char *want) {
    size_t l = strlen(want);
    for (const char *p = opts; (p = strstr(p, want)); p += l)
        if ((p == opts || p[-1] == ',' || p[-1] == ' ') &&
            (p[l] == ',' || p[l] == 0 || p[l] == ' ' || p[l] == '\n'))
            return 1;
    return 0;
}

static void find_mounts_in(const char *mountinfo, struct mounts *m) {
    memset(m, 0, sizeof *m);
    FILE *f = fopen(mountinfo, "r");
    if (!f)
        return;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        char root[PATHLEN], mnt[PATHLEN];
        /* id parent maj:min root mountpoint opts... - fstype source superopts */
        if (sscanf(line, "%*s %*s %*s %511s %511s", root, mnt) != 2)
            continue;
        char *dash = strstr(line, " - ");
        if (!dash)
            continue;
        char fstype[32], src[256], sopts[1024] = "";
        if (sscanf(dash + 3, "%31s %255s %1023s", fstype, src, sopts) < 2)
            continue;
        /* A later line is a mount on top of an earlier one: it wins. */
        if (!strcmp(fstype, "cgroup2")) {
            snprintf(m->v2, sizeof m->v2, "%s", mnt);
            snprintf(m->v2_root, sizeof m->v2_root, "%s", root);
        } else if (!strcmp(fstype, "cgroup")) {
            if (has_opt(sopts, "memory")) {
                snprintf(m->v1_memory, sizeof m->v1_memory, "%s", mnt);
                snprintf(m->v1_memory_root, sizeof m->v1_memory_root, "%s", root);
            }
            if (has_opt(sopts, "cpu")) {
                snprintf(m->v1_cpu, sizeof m->v1_cpu, "%s", mnt);
                snprintf(m->v1_cpu_root, sizeof m->v1_cpu_root, "%s", root);
            }
        }
    }
    fclose(f);
}

/* A process's cgroup path (from a /proc/PID/cgroup file) for a v1
 * controller ("memory") or v2 (""). */
static void own_path_in(const char *file, const char *controller, char *out, size_t len) {
    snprintf(out, len, "/");
    FILE *f = fopen(file, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = 0;
        const char *ctrls = c1 + 1;
        int match = controller[0] ? has_opt(ctrls, controller) : ctrls[0] == 0;
        if (match) {
            snprintf(out, len, "%s", c2 + 1);
            break;
        }
    }
    fclose(f);
}

/* The directory of a process's cgroup under a mount: its path from the
 * /proc/PID/cgroup file less the part the mount already stands for (the
 * mount's root), below the mount point. Without stripping the root, a
 * container sharing the host's cgroup namespace would look for
 * /sys/fs/cgroup/memory/docker/<id>/docker/<id>. A path outside the mount's
 * root is joined whole (the mount then shows the hierarchy's top). */
static void own_dir(const char *cgroup_file, const char *controller, const char *mnt,
                    const char *mnt_root, char *out, size_t len) {
    char own[PATHLEN];
    own_path_in(cgroup_file, controller, own, sizeof own);
    const char *rel = own;
    size_t rl = strlen(mnt_root);
    if (rl > 1 && !strncmp(own, mnt_root, rl) && (own[rl] == 0 || own[rl] == '/'))
        rel = own[rl] ? own + rl : "/";
    if (!strcmp(rel, "/"))
        snprintf(out, len, "%s", mnt);
    else
        snprintf(out, len, "%s%s", mnt, rel);
}

/* Where worker cgroups go, from a mountinfo and a /proc/PID/cgroup file. v1
 * (memory still on v1, as on hybrid hosts) wins over v2. */
struct place {
    int mode;             /* CG_V1, CG_V2, 0 for none */
    char mem[PATHLEN];    /* v1: memory directory; v2: own cgroup's directory */
    char cpu[PATHLEN];    /* v1 cpu controller's directory, empty when not mounted */
    char v2_top[PATHLEN]; /* v2 mount point, the fall-back base */
};

static void locate(const char *mountinfo, const char *cgroup_file, struct place *pl) {
    struct mounts m;
    find_mounts_in(mountinfo, &m);
    memset(pl, 0, sizeof *pl);
    if (m.v1_memory[0]) {
        pl->mode = CG_V1;
        own_dir(cgroup_file, "memory", m.v1_memory, m.v1_memory_root, pl->mem, sizeof pl->mem);
        if (m.v1_cpu[0])
            own_dir(cgroup_file, "cpu", m.v1_cpu, m.v1_cpu_root, pl->cpu, sizeof pl->cpu);
    } else if (m.v2[0]) {
        pl->mode = CG_V2;
        own_dir(cgroup_file, "", m.v2, m.v2_root, pl->mem, sizeof pl->mem);
        snprintf(pl->v2_top, sizeof pl->v2_top, "%s", m.v2);
    }
}

#define SELF_MOUNTINFO "/proc/self/mountinfo"
#define SELF_CGROUP "/proc/self/cgroup"

static int v2_has_controller(const char *dir, const char *name) {
    char buf[512];
    return read_file(dir, "cgroup.controllers", buf, sizeof buf) == 0 && has_opt(buf, name);
}

int cgroups_v2_has_controller(const char *dir, const char *name) {
    return v2_has_controller(dir, name);
}

/* v2: the controllers must be enabled in the parent's subtree_control. That
 * fails in a non-root cgroup holding processes, so fall back to the root. */
static int v2_pick_base(const struct place *pl, int want_cpu, char *base, size_t len) {
    const char *cand[2] = {pl->mem, pl->v2_top};
    for (int i = 0; i < 2; i++) {
        if (!v2_has_controller(cand[i], "memory")) {
            errno = ENOENT; /* not listed in cgroup.controllers */
            continue;
        }
        if (write_file(cand[i], "cgroup.subtree_control", "+memory") != 0)
            continue;
        if (want_cpu && write_file(cand[i], "cgroup.subtree_control", "+cpu") != 0)
            continue;
        snprintf(base, len, "%s", cand[i]);
        return 0;
    }
    return -1;
}

static void kill_tasks(const char *dir, const char *file) {
    char buf[65536];
    if (read_file(dir, file, buf, sizeof buf) != 0)
        return;
    for (char *p = buf; *p;) {
        long pid = strtol(p, &p, 10);
        if (pid > 0)
            kill((pid_t)pid, SIGKILL);
        while (*p == '\n')
            p++;
        if (*p && (*p < '0' || *p > '9'))
            break;
    }
}

/* rmdir, killing what is left inside first; retries while the kernel
 * finishes tearing the killed tasks down. */
static void remove_dir(const char *dir, const char *tasks_file) {
    for (int i = 0; i < 200; i++) {
        if (rmdir(dir) == 0 || errno == ENOENT)
            return;
        if (errno != EBUSY)
            return;
        kill_tasks(dir, tasks_file);
        usleep(10000);
    }
}

void cgroups_destroy(struct cgroups *cg) {
    if (!cg)
        return;
    const char *tasks = cg->mode == CG_V2 ? "cgroup.procs" : "tasks";
    for (unsigned i = 0; i < cg->n; i++) {
        if (cg->mem && cg->mem[i][0])
            remove_dir(cg->mem[i], tasks);
        if (cg->cpu && cg->cpu[i][0])
            remove_dir(cg->cpu[i], "tasks");
    }
    free(cg->mem);
    free(cg->cpu);
    free(cg);
}

struct cgroups *cgroups_create(unsigned run, unsigned n, uint64_t mem_bytes, double cpus,
                               char *err, size_t errlen) {
    struct place pl;
    locate(SELF_MOUNTINFO, SELF_CGROUP, &pl);
    struct cgroups *cg = calloc(1, sizeof *cg);
    if (!cg) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    cg->mem = calloc(n, sizeof *cg->mem);
    if (cpus > 0)
        cg->cpu = calloc(n, sizeof *cg->cpu);
    if (!cg->mem || (cpus > 0 && !cg->cpu)) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (pl.mode == CG_V1) {
        cg->mode = CG_V1;
        snprintf(cg->mem_base, sizeof cg->mem_base, "%s", pl.mem);
        if (cpus > 0) {
            if (!pl.cpu[0]) {
                snprintf(err, errlen, "--cpus-per-container: no cpu cgroup controller is mounted");
                goto fail;
            }
            snprintf(cg->cpu_base, sizeof cg->cpu_base, "%s", pl.cpu);
        }
    } else if (pl.mode == CG_V2) {
        cg->mode = CG_V2;
        if (v2_pick_base(&pl, cpus > 0, cg->mem_base, sizeof cg->mem_base) != 0) {
            snprintf(err, errlen,
                     "cannot enable the cgroup v2 memory%s controller under %s (%s); run as root "
                     "or pass --no-cgroups",
                     cpus > 0 ? " and cpu" : "", pl.v2_top, strerror(errno));
            goto fail;
        }
    } else {
        snprintf(err, errlen,
                 "no cgroup memory controller is mounted (neither v2 nor v1); pass --no-cgroups");
        goto fail;
    }
    snprintf(cg->desc, sizeof cg->desc, "cgroup %s under %s", cg->mode == CG_V2 ? "v2" : "v1",
             cg->mem_base);

    char val[64];
    for (unsigned i = 0; i < n; i++) {
        snprintf(cg->mem[i], PATHLEN, "%s/aops-%u-%u", cg->mem_base, run, i);
        if (mkdir(cg->mem[i], 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create cgroup %s: %s%s", cg->mem[i], strerror(errno),
                     errno == EACCES || errno == EPERM ? " (run as root or pass --no-cgroups)"
                                                       : "");
            cg->mem[i][0] = 0;
            cg->n = i;
            goto fail;
        }
        cg->n = i + 1;
        snprintf(val, sizeof val, "%llu", (unsigned long long)mem_bytes);
        int rc;
        if (cg->mode == CG_V2) {
            rc = write_file(cg->mem[i], "memory.max", val);
            write_file(cg->mem[i], "memory.swap.max", "0"); /* absent without swap: fine */
        } else {
            rc = write_file(cg->mem[i], "memory.limit_in_bytes", val);
            write_file(cg->mem[i], "memory.memsw.limit_in_bytes", val);
        }
        if (rc != 0) {
            snprintf(err, errlen, "cannot set the memory limit of %s: %s", cg->mem[i],
                     strerror(errno));
            goto fail;
        }
        if (cpus > 0) {
            const long period = 100000;
            long quota = (long)(cpus * period + 0.5);
            if (cg->mode == CG_V2) {
                snprintf(val, sizeof val, "%ld %ld", quota, period);
                rc = write_file(cg->mem[i], "cpu.max", val);
            } else {
                snprintf(cg->cpu[i], PATHLEN, "%s/aops-%u-%u", cg->cpu_base, run, i);
                if (mkdir(cg->cpu[i], 0755) != 0 && errno != EEXIST) {
                    snprintf(err, errlen, "cannot create cgroup %s: %s", cg->cpu[i],
                             strerror(errno));
                    cg->cpu[i][0] = 0;
                    goto fail;
                }
                snprintf(val, sizeof val, "%ld", period);
                rc = write_file(cg->cpu[i], "cpu.cfs_period_us", val);
                snprintf(val, sizeof val, "%ld", quota);
                rc = rc ? rc : write_file(cg->cpu[i], "cpu.cfs_quota_us", val);
            }
            if (rc != 0) {
                snprintf(err, errlen, "cannot set the CPU limit of worker %u: %s", i,
                         strerror(errno));
                goto fail;
            }
        }
    }
    return cg;
fail:
    cgroups_destroy(cg);
    return NULL;
}

int cgroups_attach_self(const struct cgroups *cg, unsigned i) {
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    if (cg->mode == CG_V2)
        return write_file(cg->mem[i], "cgroup.procs", pid);
    if (write_file(cg->mem[i], "tasks", pid) != 0)
        return -1;
    if (cg->cpu && cg->cpu[i][0] && write_file(cg->cpu[i], "tasks", pid) != 0)
        return -1;
    return 0;
}

int cgroups_oom_killed(const struct cgroups *cg, unsigned i) {
    char buf[1024];
    const char *file = cg->mode == CG_V2 ? "memory.events" : "memory.oom_control";
    if (read_file(cg->mem[i], file, buf, sizeof buf) != 0)
        return -1;
    char *p = strstr(buf, "oom_kill ");
    if (!p)
        return -1;
    return atoll(p + 9) > 0;
}

enum cg_mode cgroups_mode(const struct cgroups *cg) {
    return cg->mode;
}

const char *cgroups_describe(const struct cgroups *cg) {
    return cg->desc;
}

const char *cgroups_memory_path(const struct cgroups *cg, unsigned i) {
    return cg->mem[i];
}

const char *cgroups_cpu_path(const struct cgroups *cg, unsigned i) {
    return cg->cpu && i < cg->n && cg->cpu[i][0] ? cg->cpu[i] : NULL;
}

/* A coordinator is alive while its pid exists. A reused pid only keeps a
 * stale cgroup for one more run; taking a live run's cgroups would be worse. */
static int coordinator_alive(unsigned pid) {
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static int sweep_dir(const char *base, const char *tasks) {
    DIR *d = opendir(base);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned pid, idx;
        if (sscanf(e->d_name, "aops-%u-%u", &pid, &idx) != 2 || coordinator_alive(pid))
            continue;
        char dir[PATHLEN + 300];
        snprintf(dir, sizeof dir, "%s/%s", base, e->d_name);
        remove_dir(dir, tasks);
        removed++;
    }
    closedir(d);
    return removed;
}

int cgroups_remove_stale(void) {
    struct mounts m;
    find_mounts_in(SELF_MOUNTINFO, &m);
    char base[PATHLEN];
    int removed = 0;
    if (m.v1_memory[0]) {
        own_dir(SELF_CGROUP, "memory", m.v1_memory, m.v1_memory_root, base, sizeof base);
        removed += sweep_dir(base, "tasks");
    }
    if (m.v1_cpu[0]) {
        own_dir(SELF_CGROUP, "cpu", m.v1_cpu, m.v1_cpu_root, base, sizeof base);
        removed += sweep_dir(base, "tasks");
    }
    if (m.v2[0]) {
        own_dir(SELF_CGROUP, "", m.v2, m.v2_root, base, sizeof base);
        removed += sweep_dir(base, "cgroup.procs");
        if (strcmp(base, m.v2) != 0) /* v2's fall-back base */
            removed += sweep_dir(m.v2, "cgroup.procs");
    }
    return removed;
}

int cgroups_probe_files(const char *mountinfo, const char *cgroup_file, char *mem_dir,
                        char *cpu_dir, size_t len) {
    struct place pl;
    locate(mountinfo, cgroup_file, &pl);
    snprintf(mem_dir, len, "%s", pl.mem);
    snprintf(cpu_dir, len, "%s", pl.cpu);
    return pl.mode;
}
