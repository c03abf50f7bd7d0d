/* perfctr.c -- per-component event counters with perf_event_open(2).
 *
 * Layout: a "unit" is one place the kernel counts for us -- a CPU (cgroup
 * and system-wide targets, which perf only offers per CPU) or a thread (pid
 * target). On every unit each group is opened with the same members in the
 * same order, so one read(2) of the leader returns {nr, time_enabled,
 * time_running, values...} in a known order. A member that fails on any unit
 * is closed on all of them and carries the errno as its status; the first
 * member that opens everywhere leads. The leader is opened disabled and
 * enabled once its group is complete: members attached to a leader that is
 * already counting on a CPU are not scheduled in until the group is (for
 * software events, never: measured here, context-switches and page-faults
 * read 0 system-wide behind an enabled task-clock).
 *
 * Multiplexing: when the PMU has fewer counters than asked for, the kernel
 * rotates groups and time_running falls behind time_enabled. A window's
 * value is scaled per unit, dv * de / dr, the standard estimate; the ratio
 * reported is sum(dr) / sum(de). Software events never multiplex.
 *
 * Why a probe: hypervisors without a virtual PMU usually fail the open
 * (ENOENT here), but some accept it and count nothing. A counter that reads
 * 0 over a loop that must produce cycles, instructions, cache traffic,
 * mispredicted branches, page faults and a context switch is not counting. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/fsread.h"
#include "../common/mountinfo.h"
#include "perfctr.h"

#define NGROUPS PC_NGROUPS
#define GROUP_MAX 5

static const struct {
    const char *name;
    uint32_t type;
    uint64_t config;
    int group;
} EV[PC_NEVENTS] = {
    [PC_CYCLES] = {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0},
    [PC_INSTRUCTIONS] = {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0},
    [PC_CACHE_REFERENCES] = {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
                             0},
    [PC_CACHE_MISSES] = {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0},
    [PC_BRANCH_MISSES] = {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0},
    [PC_TASK_CLOCK] = {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1},
    [PC_CONTEXT_SWITCHES] = {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
                             1},
    [PC_PAGE_FAULTS] = {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1},
};

struct unit {
    pid_t pid; /* a thread (pid target), else -1 */
    int cpu;   /* a CPU (cgroup/system targets), else -1 */
    int alive; /* a thread that exited before we opened it is dropped */
    int fd[PC_NEVENTS];
};

struct perfctr {
    struct pc_sys sys;
    char sysroot[PATH_MAX];
    enum pc_target target;
    int nunits;
    struct unit *u;
    enum pc_status status[PC_NEVENTS];
    char reason[PC_NEVENTS][256];
    unsigned char probed[PC_NEVENTS]; /* 0 not probed, 1 counted on the loop, 2 read 0 */
    int nmem[NGROUPS];
    enum pc_event mem[NGROUPS][GROUP_MAX]; /* read order: leader first */
    char desc[PATH_MAX + 64];
};

struct pc_snap {
    int nunits;
    int err[NGROUPS]; /* errno of a failed group read, 0 if fine */
    uint64_t (*val)[PC_NEVENTS];
    uint64_t (*en)[NGROUPS], (*run)[NGROUPS];
};

const char *perfctr_event_name(enum pc_event e) {
    return e < PC_NEVENTS ? EV[e].name : "?";
}

const char *perfctr_status_name(enum pc_status s) {
    static const char *n[] = {"ok", "multiplexed", "unsupported", "eacces"};
    return s <= PC_EACCES ? n[s] : "?";
}

/* ---- the real system calls -------------------------------------------------------------- */

static int real_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                     unsigned long flags, void *arg) {
    (void)arg;
    return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static ssize_t real_read(int fd, void *buf, size_t len, void *arg) {
    (void)arg;
    return read(fd, buf, len);
}

static int real_ioctl(int fd, unsigned long request, unsigned long value, void *arg) {
    (void)arg;
    return ioctl(fd, request, value);
}

static int real_close(int fd, void *arg) {
    (void)arg;
    return close(fd);
}

/* ---- reasons ------------------------------------------------------------------------------ */

static int paranoid(const char *sysroot) {
    char p[PATH_MAX], buf[32];
    if (!sysroot_path(p, sizeof p, sysroot, "/proc/sys/kernel/perf_event_paranoid") ||
        fs_read_str(p, buf, sizeof buf) < 0)
        return INT_MIN;
    return atoi(buf);
}

/* Does sysfs show a CPU PMU? x86 "cpu", hybrid Intel "cpu_core"/"cpu_atom",
 * Arm "armv8_*"/"armv7_*". Without one, hardware events cannot exist. */
static int has_cpu_pmu(const char *sysroot) {
    char p[PATH_MAX];
    if (!sysroot_path(p, sizeof p, sysroot, "/sys/bus/event_source/devices"))
        return 1;
    DIR *d = opendir(p);
    if (!d)
        return 1; /* cannot tell: say nothing */
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)))
        found = strcmp(e->d_name, "cpu") == 0 || strncmp(e->d_name, "cpu_", 4) == 0 ||
                strncmp(e->d_name, "armv", 4) == 0;
    closedir(d);
    return found;
}

static void set_failed(struct perfctr *pc, enum pc_event e, int err) {
    char *r = pc->reason[e];
    size_t n = sizeof pc->reason[e];
    if (err == EACCES || err == EPERM) {
        pc->status[e] = PC_EACCES;
        int lvl = paranoid(pc->sysroot);
        /* perf_event_paranoid: >= 1 forbids CPU-wide events (cgroup and
         * system targets) to the unprivileged, >= 2 kernel-side counting. */
        int need = pc->target == PC_TARGET_PID ? 1 : 0;
        char lvls[32];
        if (lvl == INT_MIN)
            snprintf(lvls, sizeof lvls, "unreadable");
        else
            snprintf(lvls, sizeof lvls, "%d", lvl);
        snprintf(r, n,
                 "%s: kernel.perf_event_paranoid is %s; counting %s needs it at most %d "
                 "(sysctl -w kernel.perf_event_paranoid=%d) or CAP_PERFMON/root",
                 strerror(err), lvls,
                 pc->target == PC_TARGET_PID ? "another process with kernel time"
                                             : "a cgroup or whole CPUs",
                 need, need);
        return;
    }
    pc->status[e] = PC_UNSUPPORTED;
    if (EV[e].type == PERF_TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP) &&
        !has_cpu_pmu(pc->sysroot))
        snprintf(r, n,
                 "%s: this kernel has no hardware PMU (no cpu PMU in "
                 "/sys/bus/event_source/devices; a virtual machine without a virtual PMU), so "
                 "hardware events are not supported here",
                 strerror(err));
    else if (err == EMFILE)
        snprintf(r, n, "%s: raise the open file limit (ulimit -n)", strerror(err));
    else
        snprintf(r, n, "%s: the kernel cannot count %s here", strerror(err), EV[e].name);
}

/* ---- units -------------------------------------------------------------------------------- */

/* "0-3,5,7-8" -> CPU numbers. */
static int parse_cpus(const char *s, int **out) {
    int n = 0, cap = 16;
    int *v = malloc(cap * sizeof *v);
    while (v && *s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long c = a; c <= b && c - a < 65536; c++) {
            if (n == cap) {
                int *nv = realloc(v, 2 * cap * sizeof *v);
                if (!nv)
                    return free(v), -1;
                v = nv, cap *= 2;
            }
            v[n++] = (int)c;
        }
        s = *end == ',' ? end + 1 : end;
        if (*end != ',')
            break;
    }
    if (!v || n == 0)
        return free(v), -1;
    *out = v;
    return n;
}

static int make_units(struct perfctr *pc, pid_t pid, char *err, size_t errlen) {
    char p[PATH_MAX];
    if (pc->target == PC_TARGET_PID) {
        char rel[64];
        snprintf(rel, sizeof rel, "/proc/%d/task", (int)pid);
        DIR *d = sysroot_path(p, sizeof p, pc->sysroot, rel) ? opendir(p) : NULL;
        if (!d)
            return snprintf(err, errlen, "pid %d: no such process", (int)pid), -1;
        int cap = 16;
        pc->u = calloc(cap, sizeof *pc->u);
        struct dirent *e;
        while (pc->u && (e = readdir(d))) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9')
                continue;
            if (pc->nunits == cap) {
                struct unit *nu = realloc(pc->u, 2 * cap * sizeof *nu);
                if (!nu)
                    break;
                pc->u = nu, cap *= 2;
            }
            pc->u[pc->nunits++] = (struct unit){.pid = atoi(e->d_name), .cpu = -1};
        }
        closedir(d);
        if (!pc->u || pc->nunits == 0)
            return snprintf(err, errlen, "pid %d: no threads listed", (int)pid), -1;
        snprintf(pc->desc, sizeof pc->desc, "pid %d (%d threads)", (int)pid, pc->nunits);
    } else {
        char buf[1024];
        int *cpus;
        if (!sysroot_path(p, sizeof p, pc->sysroot, "/sys/devices/system/cpu/online") ||
            fs_read_str(p, buf, sizeof buf) < 0)
            return snprintf(err, errlen, "%s: %s", p, strerror(errno)), -1;
        int n = parse_cpus(buf, &cpus);
        if (n <= 0)
            return snprintf(err, errlen, "%s: no CPU in '%s'", p, buf), -1;
        pc->u = calloc(n, sizeof *pc->u);
        if (!pc->u)
            return free(cpus), snprintf(err, errlen, "out of memory"), -1;
        for (int i = 0; i < n; i++)
            pc->u[i] = (struct unit){.pid = -1, .cpu = cpus[i]};
        pc->nunits = n;
        free(cpus);
    }
    for (int i = 0; i < pc->nunits; i++) {
        pc->u[i].alive = 1;
        for (int e = 0; e < PC_NEVENTS; e++)
            pc->u[i].fd[e] = -1;
    }
    return 0;
}

static void attr_for(struct perf_event_attr *a, enum pc_event e, int inherit, int leader) {
    memset(a, 0, sizeof *a);
    a->disabled = leader ? 1 : 0;
    a->size = sizeof *a;
    a->type = EV[e].type;
    a->config = EV[e].config;
    a->read_format =
        PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    a->inherit = inherit ? 1 : 0;
}

/* Open group g on every live unit. target_fd is the cgroup's fd (cgroup
 * target). Returns how many members failed with EBADF (a cgroup outside the
 * perf_event hierarchy). */
static int open_group(struct perfctr *pc, int g, int cgroup_fd) {
    int ebadf = 0;
    unsigned long flags = PERF_FLAG_FD_CLOEXEC;
    if (pc->target == PC_TARGET_CGROUP)
        flags |= PERF_FLAG_PID_CGROUP;
    for (int e = 0; e < PC_NEVENTS; e++) {
        if (EV[e].group != g)
            continue;
        struct perf_event_attr a;
        attr_for(&a, (enum pc_event)e, pc->target == PC_TARGET_PID, pc->nmem[g] == 0);
        int failed = 0, saved = 0;
        for (int i = 0; i < pc->nunits && !failed; i++) {
            struct unit *u = &pc->u[i];
            if (!u->alive)
                continue;
            int leader = pc->nmem[g] ? u->fd[pc->mem[g][0]] : -1;
            pid_t who = pc->target == PC_TARGET_CGROUP ? cgroup_fd : u->pid;
            int fd = pc->sys.open(&a, pc->target == PC_TARGET_SYSTEM ? -1 : who, u->cpu, leader,
                                  flags, pc->sys.arg);
            if (fd >= 0) {
                u->fd[e] = fd;
                continue;
            }
            if (pc->target == PC_TARGET_PID && errno == ESRCH) {
                /* the thread exited since we listed it: drop it everywhere */
                for (int k = 0; k < PC_NEVENTS; k++)
                    if (u->fd[k] >= 0)
                        pc->sys.close(u->fd[k], pc->sys.arg), u->fd[k] = -1;
                u->alive = 0;
                continue;
            }
            failed = 1, saved = errno;
        }
        if (failed) {
            for (int i = 0; i < pc->nunits; i++)
                if (pc->u[i].fd[e] >= 0)
                    pc->sys.close(pc->u[i].fd[e], pc->sys.arg), pc->u[i].fd[e] = -1;
            set_failed(pc, (enum pc_event)e, saved);
            ebadf += saved == EBADF;
        } else {
            pc->mem[g][pc->nmem[g]++] = (enum pc_event)e;
        }
    }
    for (int i = 0; i < pc->nunits && pc->nmem[g]; i++) {
        struct unit *u = &pc->u[i];
        if (u->alive && pc->sys.ioctl(u->fd[pc->mem[g][0]], PERF_EVENT_IOC_ENABLE,
                                      PERF_IOC_FLAG_GROUP, pc->sys.arg) != 0) {
            int saved = errno;
            for (int k = 0; k < pc->nmem[g]; k++) {
                pc->status[pc->mem[g][k]] = PC_UNSUPPORTED;
                snprintf(pc->reason[pc->mem[g][k]], sizeof pc->reason[0],
                         "%s: enabling the group failed", strerror(saved));
            }
            break;
        }
    }
    return ebadf;
}

/* ---- the probe ---------------------------------------------------------------------------- */

/* Work every counter must see: fresh pages (page faults, cache misses), a
 * strided sweep (cache references), branches on pseudo-random bits (branch
 * misses), a sleep (a context switch), and cycles and instructions all along. */
static void known_loop(void) {
    const size_t len = 8u << 20;
    volatile unsigned char *m =
        mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned long acc = 0;
    if (m != MAP_FAILED) {
        for (size_t i = 0; i < len; i += 4096)
            m[i] = (unsigned char)i;
        for (size_t i = 0; i < len; i += 64)
            acc += m[i];
    }
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 2000000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        if (x >> 63)
            acc++;
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    if (m != MAP_FAILED)
        munmap((void *)m, len);
    __asm__ volatile("" ::"r"(acc));
}

#define ZERO_REASON                                                                                \
    "reads 0 on a known loop (the hypervisor or PMU accepts the event but does not count it)"

static void probe(struct perfctr *pc) {
    int fd[PC_NEVENTS];
    int mem[NGROUPS][GROUP_MAX], nmem[NGROUPS] = {0, 0};
    for (int e = 0; e < PC_NEVENTS; e++)
        fd[e] = -1;
    for (int g = 0; g < NGROUPS; g++)
        for (int k = 0; k < pc->nmem[g]; k++) {
            enum pc_event e = pc->mem[g][k];
            if (pc->status[e] != PC_OK || pc->probed[e])
                continue; /* cannot count, or already decided (perfctr_open_like) */
            struct perf_event_attr a;
            attr_for(&a, e, 0, nmem[g] == 0);
            int leader = nmem[g] ? fd[mem[g][0]] : -1;
            fd[e] = pc->sys.open(&a, 0, -1, leader, PERF_FLAG_FD_CLOEXEC, pc->sys.arg);
            if (fd[e] >= 0) /* a probe that cannot open proves nothing either way */
                mem[g][nmem[g]++] = e;
        }
    if (nmem[0] + nmem[1] == 0)
        return; /* nothing left to decide: no loop */
    for (int g = 0; g < NGROUPS; g++)
        if (nmem[g] && pc->sys.ioctl(fd[mem[g][0]], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP,
                                     pc->sys.arg) != 0)
            nmem[g] = 0; /* cannot count: proves nothing */
    known_loop();
    for (int g = 0; g < NGROUPS; g++) {
        uint64_t buf[3 + GROUP_MAX];
        if (nmem[g] == 0)
            continue;
        ssize_t want = (ssize_t)((3 + nmem[g]) * sizeof(uint64_t));
        if (pc->sys.read(fd[mem[g][0]], buf, sizeof buf, pc->sys.arg) != want ||
            buf[0] != (uint64_t)nmem[g])
            continue;
        for (int k = 0; k < nmem[g]; k++) {
            pc->probed[mem[g][k]] = buf[3 + k] == 0 ? 2 : 1;
            if (buf[3 + k] == 0) {
                pc->status[mem[g][k]] = PC_UNSUPPORTED;
                snprintf(pc->reason[mem[g][k]], sizeof pc->reason[0], "%s", ZERO_REASON);
            }
        }
    }
    for (int e = 0; e < PC_NEVENTS; e++)
        if (fd[e] >= 0)
            pc->sys.close(fd[e], pc->sys.arg);
}

/* ---- open / close ------------------------------------------------------------------------- */

struct perfctr *perfctr_open(enum pc_target target, const char *cgroup_dir, pid_t pid,
                             const struct pc_sys *sys, char *err, size_t errlen) {
    return perfctr_open_like(target, cgroup_dir, pid, sys, NULL, err, errlen);
}

struct perfctr *perfctr_open_like(enum pc_target target, const char *cgroup_dir, pid_t pid,
                                  const struct pc_sys *sys, const struct perfctr *like, char *err,
                                  size_t errlen) {
    struct perfctr *pc = calloc(1, sizeof *pc);
    if (!pc)
        return snprintf(err, errlen, "out of memory"), NULL;
    pc->target = target;
    pc->sys.open = sys && sys->open ? sys->open : real_open;
    pc->sys.read = sys && sys->read ? sys->read : real_read;
    pc->sys.ioctl = sys && sys->ioctl ? sys->ioctl : real_ioctl;
    pc->sys.close = sys && sys->close ? sys->close : real_close;
    pc->sys.arg = sys ? sys->arg : NULL;
    snprintf(pc->sysroot, sizeof pc->sysroot, "%s", sys && sys->sysroot ? sys->sysroot : "/");
    pc->sys.sysroot = pc->sysroot;

    int cgfd = -1;
    if (target == PC_TARGET_CGROUP) {
        cgfd = cgroup_dir ? open(cgroup_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        if (cgfd < 0) {
            snprintf(err, errlen, "cgroup %s: %s", cgroup_dir ? cgroup_dir : "(none)",
                     strerror(errno));
            goto fail;
        }
    }
    if (make_units(pc, pid, err, errlen) < 0)
        goto fail;
    if (target == PC_TARGET_CGROUP)
        snprintf(pc->desc, sizeof pc->desc, "cgroup %s on %d CPUs", cgroup_dir, pc->nunits);
    else if (target == PC_TARGET_SYSTEM)
        snprintf(pc->desc, sizeof pc->desc, "all %d CPUs", pc->nunits);

    int ebadf = 0;
    for (int g = 0; g < NGROUPS; g++)
        ebadf += open_group(pc, g, cgfd);
    if (cgfd >= 0)
        close(cgfd); /* each event holds its own reference to the cgroup */
    cgfd = -1;
    /* A cgroup outside the perf_event hierarchy fails with EBADF (after
     * events without a PMU have already failed with ENOENT). */
    if (target == PC_TARGET_CGROUP && pc->nmem[0] + pc->nmem[1] == 0 && ebadf > 0) {
        char root[PATH_MAX], why[256];
        if (perfctr_cgroup_root(pc->sysroot, root, sizeof root, why, sizeof why) > 0)
            snprintf(err, errlen,
                     "cgroup %s is not in the perf_event hierarchy (that is %s); count the "
                     "whole machine instead",
                     cgroup_dir, root);
        else
            snprintf(err, errlen, "cgroup %s cannot be counted: %s", cgroup_dir, why);
        goto fail;
    }
    int any_alive = 0;
    for (int i = 0; i < pc->nunits; i++)
        any_alive |= pc->u[i].alive;
    if (!any_alive) {
        snprintf(err, errlen, "pid %d exited before it could be counted", (int)pid);
        goto fail;
    }
    for (int e = 0; like && e < PC_NEVENTS; e++) {
        if (pc->status[e] != PC_OK || !like->probed[e])
            continue;
        pc->probed[e] = like->probed[e];
        if (like->probed[e] == 2) {
            pc->status[e] = PC_UNSUPPORTED;
            snprintf(pc->reason[e], sizeof pc->reason[e], "%s", ZERO_REASON);
        }
    }
    probe(pc);
    return pc;
fail:
    if (cgfd >= 0)
        close(cgfd);
    perfctr_close(pc);
    return NULL;
}

void perfctr_close(struct perfctr *pc) {
    if (!pc)
        return;
    for (int i = 0; i < pc->nunits; i++)
        /* siblings before leaders, so no group is left leaderless mid-way */
        for (int e = PC_NEVENTS - 1; e >= 0; e--)
            if (pc->u[i].fd[e] >= 0)
                pc->sys.close(pc->u[i].fd[e], pc->sys.arg);
    free(pc->u);
    free(pc);
}

const char *perfctr_describe(const struct perfctr *pc) {
    return pc->desc;
}

enum pc_status perfctr_status(const struct perfctr *pc, enum pc_event e, const char **reason) {
    if (reason)
        *reason = pc->reason[e];
    return pc->status[e];
}

/* ---- which hierarchy ---------------------------------------------------------------------- */

int perfctr_cgroup_root(const char *sysroot, char *root, size_t rootlen, char *why, size_t whylen) {
    char p[PATH_MAX], line[4096], v2[PATH_MAX] = "";
    int found = 0, enabled = 0, hier = -1;
    /* "perf_event <hierarchy> <cgroups> <enabled>"; hierarchy 0 means bound
     * to no v1 hierarchy, hence implicitly on every cgroup2 cgroup */
    FILE *f = sysroot_path(p, sizeof p, sysroot, "/proc/cgroups") ? fs_fopen(p) : NULL;
    while (f && fgets(line, sizeof line, f)) {
        char name[64];
        int h, n, en;
        if (sscanf(line, "%63s %d %d %d", name, &h, &n, &en) == 4 &&
            strcmp(name, "perf_event") == 0)
            found = 1, enabled = en, hier = h;
    }
    if (f)
        fclose(f);
    if (!found) {
        snprintf(why, whylen, "this kernel has no perf_event cgroup controller (/proc/cgroups)");
        return -1;
    }
    if (!enabled) {
        snprintf(why, whylen, "the kernel's perf_event cgroup controller is disabled");
        return -1;
    }
    f = sysroot_path(p, sizeof p, sysroot, "/proc/self/mountinfo") ? fs_fopen(p) : NULL;
    if (!f) {
        snprintf(why, whylen, "%s: %s", p, strerror(errno));
        return -1;
    }
    int v1 = 0;
    struct mount_entry e;
    while (mountinfo_next(f, &e)) {
        if (strcmp(e.fstype, "cgroup2") == 0)
            snprintf(v2, sizeof v2, "%s", e.point);
        else if (strcmp(e.fstype, "cgroup") == 0 && list_has_word(e.opts, "perf_event") && !v1) {
            snprintf(root, rootlen, "%s", e.point);
            v1 = 1;
        }
    }
    fclose(f);
    if (v1)
        return 1;
    if (hier == 0 && v2[0]) {
        snprintf(root, rootlen, "%s", v2);
        return 2;
    }
    if (hier > 0)
        snprintf(why, whylen, "perf_event is on v1 hierarchy %d, which is not mounted here", hier);
    else
        snprintf(why, whylen, "neither a v1 perf_event hierarchy nor cgroup2 is mounted");
    return -1;
}

/* ---- snapshots ---------------------------------------------------------------------------- */

struct pc_snap *perfctr_snap_new(const struct perfctr *pc) {
    struct pc_snap *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->nunits = pc->nunits;
    s->val = calloc(pc->nunits, sizeof *s->val);
    s->en = calloc(pc->nunits, sizeof *s->en);
    s->run = calloc(pc->nunits, sizeof *s->run);
    if (!s->val || !s->en || !s->run)
        return perfctr_snap_free(s), NULL;
    return s;
}

void perfctr_snap_free(struct pc_snap *s) {
    if (!s)
        return;
    free(s->val);
    free(s->en);
    free(s->run);
    free(s);
}

int perfctr_read(struct perfctr *pc, struct pc_snap *s) {
    int rc = 0;
    for (int g = 0; g < NGROUPS; g++) {
        s->err[g] = 0;
        if (pc->nmem[g] == 0)
            continue;
        ssize_t want = (ssize_t)((3 + pc->nmem[g]) * sizeof(uint64_t));
        for (int i = 0; i < pc->nunits; i++) {
            struct unit *u = &pc->u[i];
            uint64_t buf[3 + GROUP_MAX];
            if (!u->alive)
                continue;
            ssize_t r = pc->sys.read(u->fd[pc->mem[g][0]], buf, sizeof buf, pc->sys.arg);
            if (r != want || buf[0] != (uint64_t)pc->nmem[g]) {
                s->err[g] = r < 0 ? errno : EIO;
                rc = -1;
                break;
            }
            s->en[i][g] = buf[1];
            s->run[i][g] = buf[2];
            for (int k = 0; k < pc->nmem[g]; k++)
                s->val[i][pc->mem[g][k]] = buf[3 + k];
        }
    }
    return rc;
}

/* One counter's window from its raw sum, its per-unit scaled sum and the
 * summed enabled/running times; starved: a unit enabled but never running,
 * where per-unit scaling is impossible and the sums scale instead. */
static void finish_count(struct pc_count *c, double raw, double scaled, double sum_en,
                         double sum_run, int starved) {
    if (sum_en > 0 && sum_run == 0) {
        c->status = PC_MULTIPLEXED;
        c->running_ratio = 0;
        snprintf(c->reason, sizeof c->reason,
                 "never scheduled on the PMU during the window (other events took the "
                 "counters): no estimate");
        return;
    }
    if (starved)
        scaled = raw * (sum_en / sum_run);
    c->has_value = 1;
    c->value = scaled;
    c->running_ratio = sum_en > 0 ? sum_run / sum_en : 1.0;
    /* a few ns of disagreement between the two clocks is not multiplexing */
    if (sum_run < sum_en * 0.9999) {
        c->status = PC_MULTIPLEXED;
        snprintf(c->reason, sizeof c->reason,
                 "counted %.1f%% of the window, value scaled up by enabled/running time",
                 100.0 * c->running_ratio);
    } else {
        c->running_ratio = 1.0;
    }
}

/* Status before any arithmetic: 0 when the counter has readings to use. */
static int start_count(const struct perfctr *pc, enum pc_event e, int err_a, int err_b,
                       struct pc_count *c) {
    c->status = pc->status[e];
    c->running_ratio = NAN;
    c->value = NAN;
    if (c->status != PC_OK) {
        snprintf(c->reason, sizeof c->reason, "%s", pc->reason[e]);
        return -1;
    }
    if (err_a || err_b) {
        c->status = PC_UNSUPPORTED;
        snprintf(c->reason, sizeof c->reason, "reading the group failed: %s",
                 strerror(err_a ? err_a : err_b));
        return -1;
    }
    return 0;
}

static void derived(struct pc_delta *out) {
    const struct pc_count *cyc = &out->ev[PC_CYCLES], *ins = &out->ev[PC_INSTRUCTIONS];
    out->ipc = out->cache_mpki = out->branch_mpki = NAN;
    if (cyc->has_value && ins->has_value && cyc->value > 0)
        out->ipc = ins->value / cyc->value;
    if (ins->has_value && ins->value > 0) {
        if (out->ev[PC_CACHE_MISSES].has_value)
            out->cache_mpki = 1000.0 * out->ev[PC_CACHE_MISSES].value / ins->value;
        if (out->ev[PC_BRANCH_MISSES].has_value)
            out->branch_mpki = 1000.0 * out->ev[PC_BRANCH_MISSES].value / ins->value;
    }
}

void perfctr_delta(const struct perfctr *pc, const struct pc_snap *a, const struct pc_snap *b,
                   struct pc_delta *out) {
    memset(out, 0, sizeof *out);
    for (int e = 0; e < PC_NEVENTS; e++) {
        struct pc_count *c = &out->ev[e];
        int g = EV[e].group;
        if (start_count(pc, (enum pc_event)e, a->err[g], b->err[g], c) < 0)
            continue;
        double scaled = 0, raw = 0, sum_en = 0, sum_run = 0;
        int starved = 0;
        for (int i = 0; i < pc->nunits; i++) {
            if (!pc->u[i].alive)
                continue;
            double dv = (double)(b->val[i][e] - a->val[i][e]);
            double de = (double)(b->en[i][g] - a->en[i][g]);
            double dr = (double)(b->run[i][g] - a->run[i][g]);
            raw += dv, sum_en += de, sum_run += dr;
            if (dr > 0)
                scaled += dv * (de / dr);
            else if (de > 0)
                starved = 1;
        }
        finish_count(c, raw, scaled, sum_en, sum_run, starved);
    }
    derived(out);
}

void perfctr_sum(const struct perfctr *pc, const struct pc_snap *s, struct pc_sum *out) {
    memset(out, 0, sizeof *out);
    for (int g = 0; g < NGROUPS; g++)
        out->err[g] = s->err[g];
    for (int i = 0; i < pc->nunits; i++) {
        if (!pc->u[i].alive)
            continue;
        for (int e = 0; e < PC_NEVENTS; e++)
            out->val[e] += s->val[i][e];
        for (int g = 0; g < NGROUPS; g++)
            out->en[g] += s->en[i][g], out->run[g] += s->run[i][g];
    }
}

void perfctr_delta_sum(const struct perfctr *pc, const struct pc_sum *a, const struct pc_sum *b,
                       struct pc_delta *out) {
    memset(out, 0, sizeof *out);
    for (int e = 0; e < PC_NEVENTS; e++) {
        struct pc_count *c = &out->ev[e];
        int g = EV[e].group;
        if (start_count(pc, (enum pc_event)e, a->err[g], b->err[g], c) < 0)
            continue;
        double dv = (double)(b->val[e] - a->val[e]);
        double de = (double)(b->en[g] - a->en[g]);
        double dr = (double)(b->run[g] - a->run[g]);
        finish_count(c, dv, dr > 0 ? dv * (de / dr) : 0, de, dr, 0);
    }
    derived(out);
}

static json_t *num_or_null(double v) {
    return isfinite(v) ? json_real(v) : json_null();
}

/* Why a ratio is null: the events it is made of that gave no value, or a
 * zero denominator. One reason for the three ratios, which share their
 * inputs; null when all three are figures. */
static json_t *ratios_reason(const struct pc_delta *d) {
    if (isfinite(d->ipc) && isfinite(d->cache_mpki) && isfinite(d->branch_mpki))
        return json_null();
    static const int in[] = {PC_CYCLES, PC_INSTRUCTIONS, PC_CACHE_MISSES, PC_BRANCH_MISSES};
    char buf[512] = "";
    size_t n = 0;
    for (size_t i = 0; i < sizeof in / sizeof in[0] && n < sizeof buf; i++) {
        const struct pc_count *c = &d->ev[in[i]];
        int zero = c->has_value && c->value <= 0 && i < 2; /* a denominator */
        if (c->has_value && !zero)
            continue;
        int k = snprintf(buf + n, sizeof buf - n, "%s%s %s", n ? ", " : "", EV[in[i]].name,
                         zero ? "counted 0" : perfctr_status_name(c->status));
        n += k > 0 ? (size_t)k : 0;
    }
    return json_sprintf("not derived: %s (each event's reason beside it)", buf);
}

json_t *perfctr_delta_json(const struct pc_delta *d) {
    json_t *o = json_object();
    for (int e = 0; e < PC_NEVENTS; e++) {
        const struct pc_count *c = &d->ev[e];
        json_t *j = json_object();
        json_object_set_new(j, "status", json_string(perfctr_status_name(c->status)));
        json_object_set_new(
            j, "value", c->has_value ? json_integer((json_int_t)llround(c->value)) : json_null());
        json_object_set_new(j, "running_ratio", num_or_null(c->running_ratio));
        if (c->reason[0])
            json_object_set_new(j, "reason", json_string(c->reason));
        json_object_set_new(o, EV[e].name, j);
    }
    json_object_set_new(o, "ipc", num_or_null(d->ipc));
    json_object_set_new(o, "cache_mpki", num_or_null(d->cache_mpki));
    json_object_set_new(o, "branch_mpki", num_or_null(d->branch_mpki));
    json_object_set_new(o, "ratios_reason", ratios_reason(d));
    return o;
}
