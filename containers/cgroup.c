/* cgroup.c -- per-worker cgroups on v2 or v1, through libcgroup.
 *
 * libcgroup does what it does well: it finds the controllers' mounts
 * (cgroup_init, cgroup_get_subsys_mount_point), creates each worker's cgroup
 * with its limits (cgroup_create_cgroup; on v2 it also hands the memory and
 * cpu controllers down through cgroup.subtree_control), attaches the worker
 * (cgroup_attach_task_pid), reads the OOM counters
 * (cgroup_read_value_begin), lists and kills what is left in a cgroup
 * (cgroup_get_procs) and deletes it (cgroup_delete_cgroup_ext), and walks a
 * cgroup's children for stale ones (cgroup_walk_tree_begin).
 *
 * What libcgroup 2.0.2 gets wrong for this job is done here, each step named
 * where it happens, and each found on a real run (README, "cgroups"):
 *   - the process's own cgroup on pure v2: cgroup_get_current_controller_path
 *     fails there (ECGOTHER); it is read from /proc/self/cgroup ("0::/...");
 *   - the mount's root: in a container that shares the host's cgroup
 *     namespace the mount already is the container's cgroup, and libcgroup
 *     joins /proc/self/cgroup's path on top (cgroup_create_cgroup then fails
 *     with ECGROUPNOTALLOWED); the root (mountinfo field 4) is stripped here,
 *     and the names handed to libcgroup are relative to its own mount;
 *   - v1 or v2: 2.0.2 has no call that says which; statfs of the mount does;
 *   - swap: memory.swap.max (v2) and memory.memsw.limit_in_bytes (v1) do not
 *     exist without swap accounting, and a value libcgroup cannot write fails
 *     the whole create, so they are set by a second modify, whose failure
 *     is recorded (cgroups_swap_limited) rather than fatal;
 *   - deletion: cgroup_delete_cgroup moves leftover tasks to the parent
 *     (they would survive) through a `tasks` file that v2 does not have;
 *     the harness kills the leftovers itself (cgroup_get_procs), then
 *     deletes with EMPTY_ONLY so nothing is ever migrated -- which returns
 *     0 and leaves a cgroup whose killed task is not torn down yet, so the
 *     directory itself is checked until it is gone;
 *   - on v2 a non-root cgroup that holds processes cannot hand controllers
 *     to children ("no internal processes"): creating a worker cgroup in it
 *     fails (EBUSY, or ENOENT when libcgroup's own subtree_control write
 *     failed first), and the worker cgroups go below the root instead.
 *
 * v2: memory.max, cpu.max, memory.events. v1: memory.limit_in_bytes (memory
 * hierarchy), cpu.cfs_period_us/cfs_quota_us (cpu hierarchy),
 * memory.oom_control.
 *
 * With a placement (--placement) each worker also gets cpuset.cpus and
 * cpuset.mems: on v2 in its own cgroup (libcgroup hands the cpuset
 * controller down like the others), on v1 in a cgroup of its own in the
 * cpuset hierarchy, whose cpuset.mems must be set before a task may join
 * (an empty mems list takes the parent's). */
#include <errno.h>
#include <libcgroup.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "../common/fsread.h"
#include "../common/mountinfo.h"
#include "cgroup.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define PATHLEN 512

struct cgroups {
    enum cg_mode mode;
    unsigned n;
    char mem_base[PATHLEN];    /* the worker cgroups' parent, relative to its hierarchy */
    char cpu_base[PATHLEN];    /* v1 cpu hierarchy's, when a CPU limit is asked */
    char mem_mnt[PATHLEN];     /* libcgroup's mount of the memory controller */
    char cpu_mnt[PATHLEN];     /* and of v1's cpu controller */
    struct cgroup **mem;       /* per worker: memory (and cpu on v2) */
    struct cgroup **cpu;       /* per worker, v1 with a CPU limit only */
    char (*mem_name)[PATHLEN]; /* their names: 2.0.2 does not export cgroup_get_cgroup_name */
    char (*cpu_name)[PATHLEN];
    char desc[PATHLEN + 64];
    int swap_limited; /* every worker's swap write took */
    /* --placement: each worker's cpuset (v1: in the cpuset hierarchy). */
    const char *const *cs_cpus, *const *cs_mems; /* during cgroups_create_placed only */
    char cs_mnt[PATHLEN], cs_base[PATHLEN];
    struct cgroup **cs;
    char (*cs_name)[PATHLEN];
};

/* ---- where: the mounts and the process's own cgroup under them ---- */

/* A controller's mount in a mountinfo file: the first one, as libcgroup
 * picks it ("" = cgroup2), its mount point and the cgroup it shows as its
 * top directory (field 4). 0, or -1 when none. */
static int find_mount(const char *mountinfo, const char *controller, char *mnt, char *root) {
    FILE *f = fopen(mountinfo, "r");
    if (!f)
        return -1;
    struct mount_entry e;
    int found = -1;
    while (found < 0 && mountinfo_next(f, &e))
        if (controller[0] ? !strcmp(e.fstype, "cgroup") && list_has_word(e.opts, controller)
                          : !strcmp(e.fstype, "cgroup2")) {
            snprintf(mnt, PATHLEN, "%s", e.point);
            snprintf(root, PATHLEN, "%s", e.root);
            found = 0;
        }
    fclose(f);
    return found;
}

/* The process's cgroup relative to a mount: its path less the part the
 * mount already stands for (the mount's root). A path outside the root is
 * kept whole (the mount then shows the hierarchy's top). "/" for the top. */
static void rel_to_mount(const char *own, const char *mnt_root, char *out, size_t len) {
    size_t rl = strlen(mnt_root);
    const char *rel = own;
    if (rl > 1 && !strncmp(own, mnt_root, rl) && (own[rl] == 0 || own[rl] == '/'))
        rel = own[rl] ? own + rl : "/";
    snprintf(out, len, "%s", rel);
}

/* Where worker cgroups go, from a mountinfo and a /proc/PID/cgroup file: v1
 * (memory still on v1, as on hybrid hosts) wins over v2. Paths relative to
 * each controller's mount, and the mounts themselves. */
struct place {
    int mode;
    char mem_mnt[PATHLEN], mem_rel[PATHLEN];
    char cpu_mnt[PATHLEN], cpu_rel[PATHLEN]; /* v1 cpu; empty when not mounted */
};

static void locate(const char *mountinfo, const char *cgroup_file, struct place *pl) {
    char root[PATHLEN], own[PATHLEN];
    memset(pl, 0, sizeof *pl);
    if (find_mount(mountinfo, "memory", pl->mem_mnt, root) == 0) {
        pl->mode = CG_V1;
        proc_cgroup_path(cgroup_file, "memory", own, sizeof own);
        rel_to_mount(own, root, pl->mem_rel, sizeof pl->mem_rel);
        if (find_mount(mountinfo, "cpu", pl->cpu_mnt, root) == 0) {
            proc_cgroup_path(cgroup_file, "cpu", own, sizeof own);
            rel_to_mount(own, root, pl->cpu_rel, sizeof pl->cpu_rel);
        }
    } else if (find_mount(mountinfo, "", pl->mem_mnt, root) == 0) {
        pl->mode = CG_V2;
        proc_cgroup_path(cgroup_file, "", own, sizeof own);
        rel_to_mount(own, root, pl->mem_rel, sizeof pl->mem_rel);
    }
}

static void join_path(char *out, size_t len, const char *mnt, const char *rel) {
    snprintf(out, len, "%s%s", mnt, strcmp(rel, "/") ? rel : "");
}

int cgroups_probe_files(const char *mountinfo, const char *cgroup_file, char *mem_dir,
                        char *cpu_dir, size_t len) {
    struct place pl;
    locate(mountinfo, cgroup_file, &pl);
    join_path(mem_dir, len, pl.mem_mnt, pl.mem_rel);
    cpu_dir[0] = 0;
    if (pl.cpu_mnt[0])
        join_path(cpu_dir, len, pl.cpu_mnt, pl.cpu_rel);
    return pl.mode;
}

int cgroups_v2_has_controller(const char *dir, const char *name) {
    char p[PATHLEN + 32], buf[512];
    snprintf(p, sizeof p, "%s/cgroup.controllers", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return 0;
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = 0;
    return list_has_word(buf, name);
}

/* libcgroup's mounts, checked against mountinfo: the same first mount is
 * what locate() reads (its root is what libcgroup does not strip). */
static int libcgroup_mounts(struct place *pl, char *err, size_t errlen) {
    int rc = cgroup_init();
    if (rc != 0) {
        snprintf(err, errlen, "libcgroup cannot find any cgroup mount (%s); pass --no-cgroups",
                 cgroup_strerror(rc));
        return -1;
    }
    locate("/proc/self/mountinfo", "/proc/self/cgroup", pl);
    char *m = NULL;
    if (pl->mode == 0 || cgroup_get_subsys_mount_point("memory", &m) != 0 || !m) {
        snprintf(err, errlen,
                 "no cgroup memory controller is mounted (neither v2 nor v1); pass --no-cgroups");
        free(m);
        return -1;
    }
    /* 2.0.2 has no call for the hierarchy's version: the mount's type says it. */
    struct statfs sf;
    int v2 = statfs(m, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
    if (v2 != (pl->mode == CG_V2) || strcmp(m, pl->mem_mnt)) {
        snprintf(err, errlen,
                 "libcgroup's memory mount %s (v%d) is not the one /proc/self/mountinfo lists "
                 "first (%s)",
                 m, v2 ? 2 : 1, pl->mem_mnt);
        free(m);
        return -1;
    }
    free(m);
    return 0;
}

/* ---- create, attach, read, delete ---- */

/* SIGKILL every process in a cgroup; how many there were. */
static int kill_procs(const char *mnt, const char *name, const char *controller) {
    pid_t *pids = NULL;
    int n = 0;
    if (cgroup_get_procs((char *)name, (char *)controller, &pids, &n) == 0 && n > 0) {
        for (int k = 0; k < n; k++)
            kill(pids[k], SIGKILL);
        free(pids);
        return n;
    }
    free(pids);
    n = 0;
    /* Nobody listed, or libcgroup could not read the list: the kernel's
     * cgroup.procs itself, so a leftover is never missed. */
    char path[2 * PATHLEN + 32];
    snprintf(path, sizeof path, "%s%s/cgroup.procs", mnt, name);
    FILE *f = fopen(path, "r");
    long pid;
    while (f && fscanf(f, "%ld", &pid) == 1) {
        kill((pid_t)pid, SIGKILL);
        n++;
    }
    if (f)
        fclose(f);
    return n;
}

/* Kill what is left in a cgroup and delete it; retries while the kernel
 * tears the killed tasks down. */
static void delete_cgroup(struct cgroup *cg, const char *mnt, const char *name,
                          const char *controller) {
    if (!cg)
        return;
    char dir[2 * PATHLEN + 8];
    snprintf(dir, sizeof dir, "%s%s", mnt, name);
    for (int i = 0; i < 200 && access(dir, F_OK) == 0; i++) {
        kill_procs(mnt, name, controller);
        /* EMPTY_ONLY: never migrate a survivor to the parent. With it, 2.0.2
         * returns 0 and leaves a cgroup that is not empty yet (a killed
         * task not torn down): the directory itself says when it is gone. */
        int rc =
            cgroup_delete_cgroup_ext(cg, CGFLAG_DELETE_EMPTY_ONLY | CGFLAG_DELETE_IGNORE_MIGRATION);
        if (rc != 0 && rc != ECGNONEMPTY && cgroup_get_last_errno() != EBUSY)
            break; /* not ours to delete: nothing will change */
        if (access(dir, F_OK) == 0)
            usleep(10000);
    }
    cgroup_free(&cg);
}

void cgroups_destroy(struct cgroups *cg) {
    if (!cg)
        return;
    for (unsigned i = 0; i < cg->n; i++) {
        if (cg->mem)
            delete_cgroup(cg->mem[i], cg->mem_mnt, cg->mem_name[i], "memory");
        if (cg->cpu)
            delete_cgroup(cg->cpu[i], cg->cpu_mnt, cg->cpu_name[i], "cpu");
        if (cg->cs)
            delete_cgroup(cg->cs[i], cg->cs_mnt, cg->cs_name[i], "cpuset");
    }
    free(cg->mem);
    free(cg->cpu);
    free(cg->mem_name);
    free(cg->cpu_name);
    free(cg->cs);
    free(cg->cs_name);
    free(cg);
}

static void name_of(char *out, size_t len, const char *base, unsigned run, unsigned i) {
    snprintf(out, len, "%.400s/aops-%u-%u", strcmp(base, "/") ? base : "", run, i);
}

static void add_cpuset_v2(const struct cgroups *cg, struct cgroup *g, unsigned i);

/* One worker's cgroup in base (relative to the memory hierarchy), with its
 * limits. NULL with err (libcgroup's words) and errno. */
static struct cgroup *make_mem(struct cgroups *cg, const char *base, unsigned run, unsigned i,
                               uint64_t mem_bytes, double cpus, char *err, size_t errlen) {
    char *name = cg->mem_name[i], val[64];
    name_of(name, PATHLEN, base, run, i);
    struct cgroup *g = cgroup_new_cgroup(name);
    struct cgroup_controller *m = g ? cgroup_add_controller(g, "memory") : NULL;
    if (!m) {
        snprintf(err, errlen, "out of memory");
        cgroup_free(&g);
        return NULL;
    }
    snprintf(val, sizeof val, "%llu", (unsigned long long)mem_bytes);
    cgroup_add_value_string(m, cg->mode == CG_V2 ? "memory.max" : "memory.limit_in_bytes", val);
    add_cpuset_v2(cg, g, i);
    if (cg->mode == CG_V2 && cpus > 0) {
        const long period = 100000;
        snprintf(val, sizeof val, "%ld %ld", (long)(cpus * period + 0.5), period);
        struct cgroup_controller *c = cgroup_add_controller(g, "cpu");
        if (c)
            cgroup_add_value_string(c, "cpu.max", val);
    }
    int rc = cgroup_create_cgroup(g, 0);
    if (rc != 0) {
        int e = cgroup_get_last_errno();
        snprintf(err, errlen, "cannot create cgroup %s%s: %s%s%s", cg->mem_mnt, name,
                 cgroup_strerror(rc), e ? ": " : "", e ? strerror(e) : "");
        cgroup_free(&g);
        errno = e;
        return NULL;
    }
    /* No swap: the limit is RAM. A second modify, as the file is absent
     * without swap accounting and libcgroup fails a create it cannot write. */
    struct cgroup *s = cgroup_new_cgroup(name);
    struct cgroup_controller *sm = s ? cgroup_add_controller(s, "memory") : NULL;
    if (sm) {
        if (cg->mode == CG_V2)
            cgroup_add_value_string(sm, "memory.swap.max", "0");
        else {
            snprintf(val, sizeof val, "%llu", (unsigned long long)mem_bytes);
            cgroup_add_value_string(sm, "memory.memsw.limit_in_bytes", val);
        }
    }
    /* Best effort, but said: the result records it, and a run with swap
     * active is warned that its limit is RAM only. */
    if (!sm || cgroup_modify_cgroup(s) != 0)
        cg->swap_limited = 0;
    cgroup_free(&s);
    return g;
}

static struct cgroup *make_cpu(struct cgroups *cg, unsigned run, unsigned i, double cpus, char *err,
                               size_t errlen) {
    char *name = cg->cpu_name[i], val[64];
    const long period = 100000;
    name_of(name, PATHLEN, cg->cpu_base, run, i);
    struct cgroup *g = cgroup_new_cgroup(name);
    struct cgroup_controller *c = g ? cgroup_add_controller(g, "cpu") : NULL;
    if (!c) {
        snprintf(err, errlen, "out of memory");
        cgroup_free(&g);
        return NULL;
    }
    snprintf(val, sizeof val, "%ld", period);
    cgroup_add_value_string(c, "cpu.cfs_period_us", val);
    snprintf(val, sizeof val, "%ld", (long)(cpus * period + 0.5));
    cgroup_add_value_string(c, "cpu.cfs_quota_us", val);
    int rc = cgroup_create_cgroup(g, 0);
    if (rc != 0) {
        snprintf(err, errlen, "cannot set the CPU limit of worker %u (cgroup %s): %s", i, name,
                 cgroup_strerror(rc));
        cgroup_free(&g);
        return NULL;
    }
    return g;
}

/* ---- cpusets (--placement) ---- */

/* The v1 cpuset hierarchy's mount and this process's cgroup in it. */
static int locate_cpuset(char *mnt, char *rel) {
    char root[PATHLEN], own[PATHLEN];
    if (find_mount("/proc/self/mountinfo", "cpuset", mnt, root) != 0)
        return -1;
    proc_cgroup_path("/proc/self/cgroup", "cpuset", own, sizeof own);
    rel_to_mount(own, root, rel, PATHLEN);
    return 0;
}

/* Where the cpusets go, checked before any cgroup is made: the controller
 * must be there (v1: mounted; v2: offered by the hierarchy's root). */
static int cpuset_setup(struct cgroups *cg, unsigned n, const char *const *cpus,
                        const char *const *mems, char *err, size_t errlen) {
    cg->cs_cpus = cpus;
    cg->cs_mems = mems;
    if (cg->mode == CG_V2) {
        char *m = NULL;
        int ok = cgroup_get_subsys_mount_point("cpuset", &m) == 0 && m;
        free(m);
        if (!ok) {
            snprintf(err, errlen,
                     "--placement: the cgroup v2 hierarchy offers no cpuset controller here "
                     "(see its cgroup.controllers); use --placement none");
            return -1;
        }
        return 0;
    }
    if (locate_cpuset(cg->cs_mnt, cg->cs_base) != 0) {
        snprintf(err, errlen,
                 "--placement: no cpuset cgroup controller is mounted (v1); use --placement none");
        return -1;
    }
    if (!(cg->cs = calloc(n, sizeof *cg->cs)) || !(cg->cs_name = calloc(n, sizeof *cg->cs_name))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* v2: the worker's own cgroup carries its cpuset. */
static void add_cpuset_v2(const struct cgroups *cg, struct cgroup *g, unsigned i) {
    if (cg->mode != CG_V2 || !cg->cs_cpus)
        return;
    struct cgroup_controller *c = cgroup_add_controller(g, "cpuset");
    if (!c)
        return;
    cgroup_add_value_string(c, "cpuset.cpus", cg->cs_cpus[i]);
    if (cg->cs_mems[i][0])
        cgroup_add_value_string(c, "cpuset.mems", cg->cs_mems[i]);
}

/* v1: a cgroup in the cpuset hierarchy; an empty mems list takes the
 * parent's, as v1 lets no task into a cpuset without memory nodes. */
static struct cgroup *make_cpuset(struct cgroups *cg, unsigned run, unsigned i, char *err,
                                  size_t errlen) {
    char *name = cg->cs_name[i], mems[1024] = "";
    name_of(name, PATHLEN, cg->cs_base, run, i);
    if (!cg->cs_mems[i][0]) {
        void *h = NULL;
        if (cgroup_read_value_begin("cpuset", cg->cs_base, "cpuset.mems", &h, mems, sizeof mems) ==
            0)
            mems[strcspn(mems, "\n")] = 0;
        if (h)
            cgroup_read_value_end(&h);
    } else
        snprintf(mems, sizeof mems, "%s", cg->cs_mems[i]);
    struct cgroup *g = cgroup_new_cgroup(name);
    struct cgroup_controller *c = g ? cgroup_add_controller(g, "cpuset") : NULL;
    if (!c) {
        snprintf(err, errlen, "out of memory");
        cgroup_free(&g);
        return NULL;
    }
    cgroup_add_value_string(c, "cpuset.cpus", cg->cs_cpus[i]);
    cgroup_add_value_string(c, "cpuset.mems", mems);
    int rc = cgroup_create_cgroup(g, 0);
    if (rc != 0) {
        /* ECGOTHER's words are already the errno's. */
        int e = rc == ECGOTHER ? 0 : cgroup_get_last_errno();
        snprintf(err, errlen,
                 "--placement: cannot give worker %u CPUs %s and memory nodes %s (cgroup %s%s): "
                 "%s%s%s",
                 i, cg->cs_cpus[i], mems, cg->cs_mnt, name, cgroup_strerror(rc), e ? ": " : "",
                 e ? strerror(e) : "");
        /* libcgroup made the directory before the kernel refused the values:
         * it is empty, and it is ours. */
        cgroup_delete_cgroup_ext(g, CGFLAG_DELETE_EMPTY_ONLY | CGFLAG_DELETE_IGNORE_MIGRATION);
        cgroup_free(&g);
        return NULL;
    }
    return g;
}

struct cgroups *cgroups_create(unsigned run, unsigned n, uint64_t mem_bytes, double cpus, char *err,
                               size_t errlen) {
    return cgroups_create_placed(run, n, mem_bytes, cpus, NULL, NULL, err, errlen);
}

struct cgroups *cgroups_create_placed(unsigned run, unsigned n, uint64_t mem_bytes, double cpus,
                                      const char *const *set_cpus, const char *const *set_mems,
                                      char *err, size_t errlen) {
    struct place pl;
    if (libcgroup_mounts(&pl, err, errlen) != 0)
        return NULL;
    struct cgroups *cg = calloc(1, sizeof *cg);
    if (!cg || !(cg->mem = calloc(n, sizeof *cg->mem)) ||
        !(cg->mem_name = calloc(n, sizeof *cg->mem_name)) ||
        (cpus > 0 && pl.mode == CG_V1 &&
         (!(cg->cpu = calloc(n, sizeof *cg->cpu)) ||
          !(cg->cpu_name = calloc(n, sizeof *cg->cpu_name))))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    cg->mode = pl.mode;
    cg->swap_limited = 1;
    if (set_cpus && cpuset_setup(cg, n, set_cpus, set_mems, err, errlen) != 0)
        goto fail;
    snprintf(cg->mem_mnt, sizeof cg->mem_mnt, "%s", pl.mem_mnt);
    snprintf(cg->mem_base, sizeof cg->mem_base, "%s", pl.mem_rel);
    if (cg->mode == CG_V1 && cpus > 0) {
        if (!pl.cpu_mnt[0]) {
            snprintf(err, errlen, "--cpus-per-container: no cpu cgroup controller is mounted");
            goto fail;
        }
        snprintf(cg->cpu_base, sizeof cg->cpu_base, "%s", pl.cpu_rel);
        snprintf(cg->cpu_mnt, sizeof cg->cpu_mnt, "%s", pl.cpu_mnt);
    }
    for (unsigned i = 0; i < n; i++) {
        cg->mem[i] = make_mem(cg, cg->mem_base, run, i, mem_bytes, cpus, err, errlen);
        if (!cg->mem[i] && i == 0 && cg->mode == CG_V2 && strcmp(cg->mem_base, "/")) {
            /* Our own v2 cgroup holds processes, so it cannot hand controllers
             * down: the workers go below the hierarchy's root. */
            snprintf(cg->mem_base, sizeof cg->mem_base, "/");
            cg->mem[i] = make_mem(cg, cg->mem_base, run, i, mem_bytes, cpus, err, errlen);
        }
        if (!cg->mem[i]) {
            if (errno == EACCES || errno == EPERM || errno == EROFS) {
                size_t l = strlen(err);
                snprintf(err + l, errlen - l,
                         errno == EROFS ? " (the cgroup mount is read-only: in a container, "
                                          "mount the hierarchy afresh there; see "
                                          "docker-compose.yml)"
                                        : " (run as root or pass --no-cgroups)");
            }
            cg->n = i;
            goto fail;
        }
        cg->n = i + 1;
        if (cg->cpu && !(cg->cpu[i] = make_cpu(cg, run, i, cpus, err, errlen)))
            goto fail;
        if (cg->cs && !(cg->cs[i] = make_cpuset(cg, run, i, err, errlen)))
            goto fail;
    }
    cg->cs_cpus = cg->cs_mems = NULL; /* the caller's: not kept */
    snprintf(cg->desc, sizeof cg->desc, "cgroup %s under %s%s (libcgroup)",
             cg->mode == CG_V2 ? "v2" : "v1", cg->mem_mnt,
             strcmp(cg->mem_base, "/") ? cg->mem_base : "");
    if (cg->cs) {
        size_t l = strlen(cg->desc);
        snprintf(cg->desc + l, sizeof cg->desc - l, ", cpusets under %s%s", cg->cs_mnt,
                 strcmp(cg->cs_base, "/") ? cg->cs_base : "");
    }
    return cg;
fail:
    cgroups_destroy(cg);
    return NULL;
}

int cgroups_attach_self(const struct cgroups *cg, unsigned i) {
    if (cgroup_attach_task_pid(cg->mem[i], getpid()) != 0)
        return -1;
    if (cg->cpu && cg->cpu[i] && cgroup_attach_task_pid(cg->cpu[i], getpid()) != 0)
        return -1;
    if (cg->cs && cg->cs[i] && cgroup_attach_task_pid(cg->cs[i], getpid()) != 0)
        return -1;
    return 0;
}

int cgroups_oom_killed(const struct cgroups *cg, unsigned i) {
    char line[256];
    void *h = NULL;
    const char *file = cg->mode == CG_V2 ? "memory.events" : "memory.oom_control";
    int rc =
        cgroup_read_value_begin("memory", cg->mem_name[i], (char *)file, &h, line, sizeof line);
    int killed = -1;
    while (rc == 0) {
        if (!strncmp(line, "oom_kill ", 9))
            killed = atoll(line + 9) > 0;
        rc = cgroup_read_value_next(&h, line, sizeof line);
    }
    if (h)
        cgroup_read_value_end(&h);
    return killed;
}

int cgroups_swap_limited(const struct cgroups *cg) {
    return cg->swap_limited;
}

const char *cgroups_swap_warning(int limited, const char *sysroot, char *buf, size_t len) {
    char path[PATHLEN], line[512];
    if (limited != 0 || !sysroot_path(path, sizeof path, sysroot, "/proc/swaps"))
        return NULL;
    FILE *f = fopen(path, "re");
    int devices = 0;
    for (int i = 0; f && fgets(line, sizeof line, f); i++)
        devices += i > 0 && line[0] != '\n'; /* the first line is the header */
    if (f)
        fclose(f);
    if (!devices)
        return NULL;
    snprintf(buf, len,
             "--memory-limit is RAM only: swap is active and the kernel would not limit it "
             "(no swap accounting: memory.swap.max / memory.memsw.limit_in_bytes), so a worker "
             "may use swap past its limit");
    return buf;
}

const char *cgroups_describe(const struct cgroups *cg) {
    return cg->desc;
}

enum cg_mode cgroups_mode(const struct cgroups *cg) {
    return cg->mode;
}

int cgroups_cpu_dir(const struct cgroups *cg, unsigned i, char *out, size_t len) {
    const char *mnt = cg->mode == CG_V2 ? cg->mem_mnt : cg->cpu_mnt;
    const char *name = cg->mode == CG_V2 ? cg->mem_name[i] : cg->cpu ? cg->cpu_name[i] : "";
    if (i >= cg->n || !name[0])
        return -1;
    return snprintf(out, len, "%s%s", mnt, name) < (int)len ? 0 : -1;
}

/* ---- stale cgroups of a coordinator that is gone ---- */

/* A coordinator is alive while its pid exists. A reused pid only keeps a
 * stale cgroup for one more run; taking a live run's cgroups would be worse. */
static int coordinator_alive(unsigned pid) {
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* Delete base's children named aops-<dead pid>-<i> in controller's hierarchy. */
static int sweep(const char *controller, const char *mnt, const char *base) {
    void *h = NULL;
    struct cgroup_file_info info;
    int lvl, removed = 0;
    char stale[64][PATHLEN];
    int nstale = 0;
    int rc = cgroup_walk_tree_begin(controller, base, 1, &h, &info, &lvl);
    int started = rc == 0; /* after a failed begin, end() may crash (iterators.h) */
    while (rc == 0) {
        unsigned pid, idx;
        if (info.type == CGROUP_FILE_TYPE_DIR && info.depth == 1 &&
            sscanf(info.path, "aops-%u-%u", &pid, &idx) == 2 && !coordinator_alive(pid) &&
            nstale < 64)
            snprintf(stale[nstale++], PATHLEN, "%s/%s", strcmp(base, "/") ? base : "", info.path);
        rc = cgroup_walk_tree_next(1, &h, &info, lvl);
    }
    if (started)
        cgroup_walk_tree_end(&h);
    for (int k = 0; k < nstale; k++) {
        struct cgroup *g = cgroup_new_cgroup(stale[k]);
        if (g && cgroup_add_controller(g, controller)) {
            delete_cgroup(g, mnt, stale[k], controller);
            removed++;
        } else
            cgroup_free(&g);
    }
    return removed;
}

int cgroups_remove_stale(void) {
    struct place pl;
    char err[256];
    if (libcgroup_mounts(&pl, err, sizeof err) != 0)
        return 0;
    int removed = sweep("memory", pl.mem_mnt, pl.mem_rel);
    if (pl.mode == CG_V2 && strcmp(pl.mem_rel, "/"))
        removed += sweep("memory", pl.mem_mnt, "/"); /* v2's fall-back base */
    if (pl.mode == CG_V1 && pl.cpu_mnt[0])
        removed += sweep("cpu", pl.cpu_mnt, pl.cpu_rel);
    char cs_mnt[PATHLEN], cs_rel[PATHLEN];
    if (pl.mode == CG_V1 && locate_cpuset(cs_mnt, cs_rel) == 0)
        removed += sweep("cpuset", cs_mnt, cs_rel);
    return removed;
}
