/* test_perfctr.c -- the event counters against a fake kernel and the real one.
 *
 * The fake (struct pc_sys) plays perf_event_open/read/close: per-event open
 * errors (EACCES, EOPNOTSUPP, ENOENT, EBADF), per-group multiplexing ratios,
 * events that open but count nothing, failing reads; it answers group reads
 * in the kernel's format and tracks open fds so leaks show. Two CPUs are
 * online in its sysroot, so per-CPU summing is exercised too.
 *
 * The real kernel: the software group on this process (task-clock against
 * CLOCK_PROCESS_CPUTIME_ID, page faults and context switches against what
 * the loop did), on a cgroup holding a busy child (task-clock against the
 * child's rusage) and system-wide (task-clock = wall time x CPUs); the
 * hardware group must either count or say why not (here: no PMU in a VM);
 * and a directory that is not a perf_event cgroup is refused.
 *
 * "watch PERF_CGROUP_DIR CPU_CGROUP_DIR SECONDS" counts a live cgroup (a
 * server of scripts/stack) for SECONDS and prints the counters' JSON and
 * task_clock_s=... cgroup_cpu_s=... (from cgroup_stat at the same edges),
 * for tests/integration/test_server_cpu.sh. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_stat.h"
#include "perfctr.h"
#include "unit.h"

#define FD0 1000
#define MAXFD 256

struct ffd {
    int used, ev, leader, nmem, mem[8];
    int counting; /* a leader: enabled */
    int starved;  /* a member attached to a leader already counting: the
                   * kernel does not schedule it in (software events, per
                   * CPU), so it reads 0 */
};

struct fake {
    int open_errno[PC_NEVENTS];  /* target opens fail with this */
    int probe_errno[PC_NEVENTS]; /* probe opens (pid 0, cpu -1) fail with this */
    uint64_t rate[PC_NEVENTS];   /* counts per tick while running */
    double ratio[2];             /* running / enabled, per group (0 = never scheduled) */
    uint64_t now;                /* ticks since open */
    int read_errno;
    struct ffd fd[MAXFD];
    int nopen, target_opens, probe_opens, enables;
    unsigned long last_flags;
    int last_inherit, last_pid, last_cpu;
    int cpus_seen[8];
};

static int ev_of(const struct perf_event_attr *a) {
    for (int e = 0; e < PC_NEVENTS; e++) {
        static const uint64_t cfg[PC_NEVENTS] = {
            PERF_COUNT_HW_CPU_CYCLES,       PERF_COUNT_HW_INSTRUCTIONS,
            PERF_COUNT_HW_CACHE_REFERENCES, PERF_COUNT_HW_CACHE_MISSES,
            PERF_COUNT_HW_BRANCH_MISSES,    PERF_COUNT_SW_TASK_CLOCK,
            PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_PAGE_FAULTS};
        uint32_t type = e < PC_TASK_CLOCK ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
        if (a->type == type && a->config == cfg[e])
            return e;
    }
    return -1;
}

static int fopen_(struct perf_event_attr *a, pid_t pid, int cpu, int group_fd, unsigned long flags,
                  void *arg) {
    struct fake *f = arg;
    int e = ev_of(a);
    int probe = pid == 0 && cpu == -1;
    if (e < 0 || a->size != sizeof *a ||
        a->read_format !=
            (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING))
        return errno = EINVAL, -1;
    int err = probe ? f->probe_errno[e] : f->open_errno[e];
    if (err)
        return errno = err, -1;
    if (probe)
        f->probe_opens++;
    else {
        f->target_opens++;
        f->last_flags = flags, f->last_inherit = (int)a->inherit, f->last_pid = pid;
        f->last_cpu = cpu;
        if (cpu >= 0 && cpu < 8)
            f->cpus_seen[cpu] = 1;
    }
    for (int i = 0; i < MAXFD; i++)
        if (!f->fd[i].used) {
            f->fd[i] = (struct ffd){.used = 1, .ev = e, .leader = group_fd};
            if (group_fd >= 0) {
                struct ffd *l = &f->fd[group_fd - FD0];
                if (!l->used || l->leader != -1)
                    return errno = EINVAL, -1;
                l->mem[l->nmem++] = FD0 + i;
                f->fd[i].starved = l->counting;
            } else {
                f->fd[i].counting = !a->disabled;
            }
            f->nopen++;
            return FD0 + i;
        }
    return errno = EMFILE, -1;
}

static ssize_t fread_(int fd, void *buf, size_t len, void *arg) {
    struct fake *f = arg;
    if (f->read_errno)
        return errno = f->read_errno, -1;
    if (fd < FD0 || fd >= FD0 + MAXFD || !f->fd[fd - FD0].used || f->fd[fd - FD0].leader != -1)
        return errno = EBADF, -1;
    struct ffd *l = &f->fd[fd - FD0];
    int n = 1 + l->nmem;
    if (len < (size_t)(3 + n) * 8)
        return errno = ENOSPC, -1;
    uint64_t *v = buf;
    int g = l->ev >= PC_TASK_CLOCK;
    double ratio = l->counting ? f->ratio[g] : 0;
    v[0] = (uint64_t)n;
    v[1] = l->counting ? f->now * 1000 : 0;
    v[2] = (uint64_t)(f->now * 1000 * ratio);
    v[3] = (uint64_t)(f->rate[l->ev] * f->now * ratio);
    for (int k = 0; k < l->nmem; k++) {
        struct ffd *m = &f->fd[l->mem[k] - FD0];
        v[4 + k] = m->starved ? 0 : (uint64_t)(f->rate[m->ev] * f->now * ratio);
    }
    return (ssize_t)((3 + n) * 8);
}

static int fioctl_(int fd, unsigned long req, unsigned long value, void *arg) {
    struct fake *f = arg;
    if (fd < FD0 || fd >= FD0 + MAXFD || !f->fd[fd - FD0].used || req != PERF_EVENT_IOC_ENABLE ||
        value != PERF_IOC_FLAG_GROUP || f->fd[fd - FD0].leader != -1)
        return errno = EINVAL, -1;
    f->fd[fd - FD0].counting = 1;
    f->enables++;
    return 0;
}

static int fclose_(int fd, void *arg) {
    struct fake *f = arg;
    if (fd < FD0 || fd >= FD0 + MAXFD || !f->fd[fd - FD0].used)
        return errno = EBADF, -1;
    struct ffd *d = &f->fd[fd - FD0];
    if (d->leader >= 0) { /* a sibling leaves its group */
        struct ffd *l = &f->fd[d->leader - FD0];
        for (int k = 0; k < l->nmem; k++)
            if (l->mem[k] == fd) {
                memmove(&l->mem[k], &l->mem[k + 1], (size_t)(l->nmem - k - 1) * sizeof(int));
                l->nmem--;
                break;
            }
    }
    d->used = 0;
    f->nopen--;
    return 0;
}

static char root[256];

static void put(const char *rel, const char *text) {
    char p[512], cmd[600];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", p);
    if (system(cmd) != 0)
        exit(1);
    FILE *f = fopen(p, "w");
    if (!f)
        exit(1);
    fputs(text, f);
    fclose(f);
}

static void fake_init(struct fake *f) {
    memset(f, 0, sizeof *f);
    for (int e = 0; e < PC_NEVENTS; e++)
        f->rate[e] = 100 + 10 * (uint64_t)e; /* distinct, so a misordered read shows */
    f->ratio[0] = f->ratio[1] = 1.0;
    f->now = 10; /* the probe reads at 10 ticks */
}

static struct pc_sys sys_of(struct fake *f) {
    return (struct pc_sys){fopen_, fread_, fioctl_, fclose_, f, root};
}

/* open, read at now = 10 and 30, delta */
static struct perfctr *window(struct fake *f, enum pc_target t, struct pc_delta *d, char *err) {
    struct pc_sys s = sys_of(f);
    struct perfctr *pc = perfctr_open(t, root, 4242, &s, err, 256);
    if (!pc)
        return NULL;
    struct pc_snap *a = perfctr_snap_new(pc), *b = perfctr_snap_new(pc);
    f->now = 10;
    perfctr_read(pc, a);
    f->now = 30;
    perfctr_read(pc, b);
    perfctr_delta(pc, a, b, d);
    /* Summed snapshots (what attribution keeps per sample) give the same
     * window: the fake multiplexes every CPU alike, so summed scaling equals
     * per-CPU scaling. */
    struct pc_sum sa, sb;
    struct pc_delta ds;
    perfctr_sum(pc, a, &sa);
    perfctr_sum(pc, b, &sb);
    perfctr_delta_sum(pc, &sa, &sb, &ds);
    for (int e = 0; e < PC_NEVENTS; e++)
        CHECKF(ds.ev[e].status == d->ev[e].status && ds.ev[e].has_value == d->ev[e].has_value &&
                   (!d->ev[e].has_value || fabs(ds.ev[e].value - d->ev[e].value) < 1e-6),
               "%s: %f vs %f", perfctr_event_name(e), ds.ev[e].value, d->ev[e].value);
    perfctr_snap_free(a);
    perfctr_snap_free(b);
    return pc;
}

/* 2 CPUs x 20 ticks x rate */
#define EXPECT(e) (2.0 * 20 * (100 + 10 * (e)))

static void test_fake_no_pmu(void) {
    struct fake f;
    struct pc_delta d;
    char err[256] = "";
    fake_init(&f);
    for (int e = PC_CYCLES; e <= PC_BRANCH_MISSES; e++)
        f.open_errno[e] = ENOENT; /* what this VM's kernel says */
    struct perfctr *pc = window(&f, PC_TARGET_CGROUP, &d, err);
    CHECKF(pc != NULL, "%s", err);
    if (!pc)
        return;
    CHECK(f.last_flags & PERF_FLAG_PID_CGROUP);
    CHECK(f.last_flags & PERF_FLAG_FD_CLOEXEC);
    CHECK(f.cpus_seen[0] && f.cpus_seen[1] && !f.cpus_seen[2]);
    CHECK(f.last_inherit == 0);
    CHECK(strstr(perfctr_describe(pc), "on 2 CPUs") != NULL);
    CHECK(f.enables == 2 + 1); /* the software group on each CPU, and in the probe */
    for (int e = PC_CYCLES; e <= PC_BRANCH_MISSES; e++) {
        CHECK(d.ev[e].status == PC_UNSUPPORTED && !d.ev[e].has_value);
        CHECKF(strstr(d.ev[e].reason, "No such file or directory") &&
                   strstr(d.ev[e].reason, "no hardware PMU"),
               "%s", d.ev[e].reason);
    }
    for (int e = PC_TASK_CLOCK; e < PC_NEVENTS; e++) {
        CHECKF(d.ev[e].status == PC_OK && d.ev[e].has_value, "%s", perfctr_event_name(e));
        CHECKF(fabs(d.ev[e].value - EXPECT(e)) < 1e-6, "%s %f", perfctr_event_name(e),
               d.ev[e].value);
        CHECK(d.ev[e].running_ratio == 1.0 && d.ev[e].reason[0] == 0);
    }
    CHECK(isnan(d.ipc) && isnan(d.cache_mpki) && isnan(d.branch_mpki));

    json_t *j = perfctr_delta_json(&d);
    json_t *cyc = json_object_get(j, "cycles"), *tc = json_object_get(j, "task-clock");
    CHECK(!strcmp(json_string_value(json_object_get(cyc, "status")), "unsupported"));
    CHECK(json_is_null(json_object_get(cyc, "value")));
    CHECK(json_is_null(json_object_get(cyc, "running_ratio")));
    CHECK(strstr(json_string_value(json_object_get(cyc, "reason")), "no hardware PMU") != NULL);
    CHECK(!strcmp(json_string_value(json_object_get(tc, "status")), "ok"));
    CHECK(json_integer_value(json_object_get(tc, "value")) == (json_int_t)EXPECT(PC_TASK_CLOCK));
    CHECK(json_real_value(json_object_get(tc, "running_ratio")) == 1.0);
    CHECK(json_object_get(tc, "reason") == NULL);
    CHECK(json_is_null(json_object_get(j, "ipc")));
    /* the ratios' reason names the events they lack, each one's status beside it */
    const char *rr = json_string_value(json_object_get(j, "ratios_reason"));
    CHECKF(rr && strstr(rr, "cycles unsupported") && strstr(rr, "instructions unsupported") &&
               strstr(rr, "branch-misses unsupported") && !strstr(rr, "task-clock"),
           "%s", rr ? rr : "(null)");
    CHECK(json_object_size(j) == PC_NEVENTS + 4);
    json_decref(j);
    perfctr_close(pc);
    CHECKF(f.nopen == 0, "%d fds left open", f.nopen);

    /* with a PMU in sysfs the same errno is reported without the VM story */
    put("sys/bus/event_source/devices/cpu/type", "4\n");
    fake_init(&f);
    f.open_errno[PC_CYCLES] = EOPNOTSUPP;
    pc = window(&f, PC_TARGET_SYSTEM, &d, err);
    CHECK(pc && d.ev[PC_CYCLES].status == PC_UNSUPPORTED);
    CHECKF(strstr(d.ev[PC_CYCLES].reason, "Operation not supported") &&
               !strstr(d.ev[PC_CYCLES].reason, "no hardware PMU"),
           "%s", d.ev[PC_CYCLES].reason);
    CHECK(f.last_pid == -1 && !(f.last_flags & PERF_FLAG_PID_CGROUP));
    /* the leader failed: instructions leads, values still land right */
    for (int e = PC_INSTRUCTIONS; e < PC_NEVENTS; e++)
        CHECKF(d.ev[e].status == PC_OK && fabs(d.ev[e].value - EXPECT(e)) < 1e-6, "%s %f",
               perfctr_event_name(e), d.ev[e].value);
    CHECK(isnan(d.ipc));
    CHECK(fabs(d.cache_mpki - 1000.0 * EXPECT(PC_CACHE_MISSES) / EXPECT(PC_INSTRUCTIONS)) < 1e-9);
    perfctr_close(pc);
    CHECK(f.nopen == 0);
}

static void test_fake_eacces(void) {
    struct fake f;
    struct pc_delta d;
    char err[256] = "";
    fake_init(&f);
    for (int e = 0; e < PC_NEVENTS; e++)
        f.open_errno[e] = EACCES;
    struct perfctr *pc = window(&f, PC_TARGET_CGROUP, &d, err);
    CHECKF(pc != NULL, "%s", err);
    if (!pc)
        return;
    for (int e = 0; e < PC_NEVENTS; e++) {
        CHECK(d.ev[e].status == PC_EACCES && !d.ev[e].has_value);
        CHECKF(strstr(d.ev[e].reason, "Permission denied") &&
                   strstr(d.ev[e].reason, "kernel.perf_event_paranoid is 2") &&
                   strstr(d.ev[e].reason, "sysctl -w kernel.perf_event_paranoid=0"),
               "%s", d.ev[e].reason);
    }
    CHECK(f.probe_opens == 0); /* nothing opened, nothing to probe */
    json_t *j = perfctr_delta_json(&d);
    json_t *c = json_object_get(j, "page-faults");
    CHECK(!strcmp(json_string_value(json_object_get(c, "status")), "eacces"));
    CHECK(json_is_null(json_object_get(c, "value")));
    json_decref(j);
    perfctr_close(pc);

    /* a pid only needs paranoid <= 1; EPERM is the same story */
    fake_init(&f);
    for (int e = 0; e < PC_NEVENTS; e++)
        f.open_errno[e] = EPERM;
    put("proc/4242/task/4242/stat", "x\n");
    pc = window(&f, PC_TARGET_PID, &d, err);
    CHECKF(pc != NULL, "%s", err);
    if (pc) {
        CHECK(d.ev[PC_TASK_CLOCK].status == PC_EACCES);
        CHECKF(strstr(d.ev[PC_TASK_CLOCK].reason, "kernel.perf_event_paranoid=1"), "%s",
               d.ev[PC_TASK_CLOCK].reason);
        perfctr_close(pc);
    }
}

static void test_fake_multiplexed(void) {
    struct fake f;
    struct pc_delta d;
    char err[256] = "";
    fake_init(&f);
    f.ratio[0] = 0.25; /* the hardware group ran a quarter of the time */
    struct perfctr *pc = window(&f, PC_TARGET_CGROUP, &d, err);
    CHECKF(pc != NULL, "%s", err);
    if (!pc)
        return;
    for (int e = PC_CYCLES; e <= PC_BRANCH_MISSES; e++) {
        CHECK(d.ev[e].status == PC_MULTIPLEXED && d.ev[e].has_value);
        CHECKF(fabs(d.ev[e].running_ratio - 0.25) < 1e-9, "%f", d.ev[e].running_ratio);
        /* raw counts were a quarter; scaled back to the full window */
        CHECKF(fabs(d.ev[e].value - EXPECT(e)) < 1e-6, "%s %f", perfctr_event_name(e),
               d.ev[e].value);
        CHECKF(strstr(d.ev[e].reason, "25.0%"), "%s", d.ev[e].reason);
    }
    CHECK(d.ev[PC_TASK_CLOCK].status == PC_OK);
    CHECK(fabs(d.ipc - EXPECT(PC_INSTRUCTIONS) / EXPECT(PC_CYCLES)) < 1e-9);
    CHECK(fabs(d.branch_mpki - 1000.0 * EXPECT(PC_BRANCH_MISSES) / EXPECT(PC_INSTRUCTIONS)) < 1e-9);
    json_t *j = perfctr_delta_json(&d);
    json_t *c = json_object_get(j, "instructions");
    CHECK(!strcmp(json_string_value(json_object_get(c, "status")), "multiplexed"));
    CHECK(json_integer_value(json_object_get(c, "value")) == (json_int_t)EXPECT(PC_INSTRUCTIONS));
    CHECK(fabs(json_real_value(json_object_get(c, "running_ratio")) - 0.25) < 1e-9);
    CHECK(fabs(json_real_value(json_object_get(j, "ipc")) - d.ipc) < 1e-12);
    CHECK(json_is_null(json_object_get(j, "ratios_reason"))); /* all three are figures */
    json_decref(j);
    perfctr_close(pc);
    CHECK(f.nopen == 0);

    /* never scheduled in the window: no estimate, still says why */
    fake_init(&f);
    struct pc_sys s = sys_of(&f);
    pc = perfctr_open(PC_TARGET_SYSTEM, NULL, 0, &s, err, sizeof err);
    CHECK(pc != NULL);
    if (!pc)
        return;
    struct pc_snap *a = perfctr_snap_new(pc), *b = perfctr_snap_new(pc);
    f.ratio[0] = 0;
    f.now = 10;
    perfctr_read(pc, a);
    f.now = 30;
    perfctr_read(pc, b);
    perfctr_delta(pc, a, b, &d);
    CHECK(d.ev[PC_CYCLES].status == PC_MULTIPLEXED && !d.ev[PC_CYCLES].has_value);
    CHECK(d.ev[PC_CYCLES].running_ratio == 0);
    CHECK(strstr(d.ev[PC_CYCLES].reason, "never scheduled") != NULL);
    CHECK(isnan(d.ipc));
    /* a failed read: the group's counters say so instead of inventing values */
    f.read_errno = EIO;
    CHECK(perfctr_read(pc, b) == -1);
    perfctr_delta(pc, a, b, &d);
    CHECK(d.ev[PC_TASK_CLOCK].status == PC_UNSUPPORTED && !d.ev[PC_TASK_CLOCK].has_value);
    CHECKF(strstr(d.ev[PC_TASK_CLOCK].reason, "Input/output error"), "%s",
           d.ev[PC_TASK_CLOCK].reason);
    perfctr_snap_free(a);
    perfctr_snap_free(b);
    perfctr_close(pc);
    CHECK(f.nopen == 0);
}

static void test_fake_zero_and_gaps(void) {
    struct fake f;
    struct pc_delta d;
    char err[256] = "";
    fake_init(&f);
    f.rate[PC_CYCLES] = 0;       /* accepted by the "hypervisor", counts nothing */
    f.rate[PC_CACHE_MISSES] = 0; /* a sibling too */
    f.open_errno[PC_CACHE_REFERENCES] = EOPNOTSUPP;
    struct perfctr *pc = window(&f, PC_TARGET_CGROUP, &d, err);
    CHECKF(pc != NULL, "%s", err);
    if (!pc)
        return;
    CHECK(f.probe_opens > 0);
    const char *why;
    CHECK(perfctr_status(pc, PC_CYCLES, &why) == PC_UNSUPPORTED);
    CHECKF(strstr(why, "reads 0 on a known loop") != NULL, "%s", why);
    CHECK(d.ev[PC_CYCLES].status == PC_UNSUPPORTED && !d.ev[PC_CYCLES].has_value);
    CHECK(strstr(d.ev[PC_CYCLES].reason, "reads 0 on a known loop") != NULL);
    CHECK(d.ev[PC_CACHE_MISSES].status == PC_UNSUPPORTED);
    CHECK(d.ev[PC_CACHE_REFERENCES].status == PC_UNSUPPORTED);
    CHECK(strstr(d.ev[PC_CACHE_REFERENCES].reason, "Operation not supported") != NULL);
    /* the members between the gaps keep their own values */
    CHECKF(d.ev[PC_INSTRUCTIONS].status == PC_OK &&
               fabs(d.ev[PC_INSTRUCTIONS].value - EXPECT(PC_INSTRUCTIONS)) < 1e-6,
           "%f", d.ev[PC_INSTRUCTIONS].value);
    CHECKF(fabs(d.ev[PC_BRANCH_MISSES].value - EXPECT(PC_BRANCH_MISSES)) < 1e-6, "%f",
           d.ev[PC_BRANCH_MISSES].value);
    CHECK(isnan(d.ipc) && isnan(d.cache_mpki) && !isnan(d.branch_mpki));
    /* a second target takes the probe's verdicts: no probe of its own */
    int probes = f.probe_opens;
    struct pc_sys s = sys_of(&f);
    struct perfctr *pc2 = perfctr_open_like(PC_TARGET_SYSTEM, NULL, 0, &s, pc, err, sizeof err);
    CHECKF(pc2 && f.probe_opens == probes, "%d %d", f.probe_opens, probes);
    CHECK(pc2 && perfctr_status(pc2, PC_CYCLES, &why) == PC_UNSUPPORTED &&
          strstr(why, "reads 0 on a known loop"));
    CHECK(pc2 && perfctr_status(pc2, PC_INSTRUCTIONS, NULL) == PC_OK);
    perfctr_close(pc2);
    perfctr_close(pc);
    CHECK(f.nopen == 0);

    /* the probe itself cannot open: the counter is not condemned */
    fake_init(&f);
    for (int e = 0; e < PC_NEVENTS; e++)
        f.probe_errno[e] = EACCES;
    pc = window(&f, PC_TARGET_CGROUP, &d, err);
    CHECK(pc && d.ev[PC_CYCLES].status == PC_OK && f.probe_opens == 0);
    perfctr_close(pc);

    /* a directory outside the perf_event hierarchy: EBADF from every event
     * the kernel got as far as the cgroup with */
    put("proc/cgroups", "#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
                        "perf_event\t0\t1\t1\n");
    put("proc/self/mountinfo", "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
    fake_init(&f);
    for (int e = 0; e < PC_NEVENTS; e++)
        f.open_errno[e] = e < PC_TASK_CLOCK ? ENOENT : EBADF;
    err[0] = 0;
    pc = window(&f, PC_TARGET_CGROUP, &d, err);
    CHECK(pc == NULL);
    CHECKF(strstr(err, "not in the perf_event hierarchy (that is /sys/fs/cgroup/unified)"), "%s",
           err);
    CHECK(f.nopen == 0);

    /* pid target: one unit per thread, inherit set, no cgroup flag */
    put("proc/4242/task/4243/stat", "x\n");
    fake_init(&f);
    pc = window(&f, PC_TARGET_PID, &d, err);
    CHECKF(pc != NULL, "%s", err);
    if (pc) {
        CHECK(f.last_inherit == 1 && f.last_cpu == -1 && !(f.last_flags & PERF_FLAG_PID_CGROUP));
        CHECK(f.last_pid == 4242 || f.last_pid == 4243);
        CHECKF(strstr(perfctr_describe(pc), "pid 4242 (2 threads)"), "%s", perfctr_describe(pc));
        CHECK(fabs(d.ev[PC_TASK_CLOCK].value - EXPECT(PC_TASK_CLOCK)) < 1e-6);
        perfctr_close(pc);
    }
    CHECK(perfctr_open(PC_TARGET_PID, NULL, 999999, NULL, err, sizeof err) == NULL);
    CHECKF(strstr(err, "no such process") != NULL, "%s", err);
}

static void test_cgroup_root(void) {
    char r[256], why[256];
    put("proc/cgroups", "#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
                        "memory\t4\t13\t1\nperf_event\t0\t1\t1\n");
    put("proc/self/mountinfo", "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
                               "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
    CHECK(perfctr_cgroup_root(root, r, sizeof r, why, sizeof why) == 2);
    CHECK(!strcmp(r, "/sys/fs/cgroup/unified"));
    put("proc/cgroups", "perf_event\t9\t1\t1\n");
    put("proc/self/mountinfo",
        "40 31 0:37 / /sys/fs/cgroup/perf_event rw - cgroup cgroup rw,perf_event\n"
        "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
    CHECK(perfctr_cgroup_root(root, r, sizeof r, why, sizeof why) == 1);
    CHECK(!strcmp(r, "/sys/fs/cgroup/perf_event"));
    put("proc/self/mountinfo", "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
    CHECK(perfctr_cgroup_root(root, r, sizeof r, why, sizeof why) == -1);
    CHECKF(strstr(why, "v1 hierarchy 9"), "%s", why);
    put("proc/cgroups", "memory\t4\t13\t1\n");
    CHECK(perfctr_cgroup_root(root, r, sizeof r, why, sizeof why) == -1);
    CHECKF(strstr(why, "no perf_event cgroup controller"), "%s", why);
}

/* ---- the real kernel ----------------------------------------------------------------------- */

static double cpu_now(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void burn(double s) {
    volatile unsigned long x = 0;
    double t0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
    while (cpu_now(CLOCK_THREAD_CPUTIME_ID) - t0 < s)
        x++;
}

/* The machine's steal time in seconds (all CPUs). task-clock runs on the
 * guest's clock, so time the hypervisor stole while our task was on a CPU is
 * in it; the scheduler's CPU time (rusage, cpu.stat, CLOCK_*_CPUTIME) leaves
 * steal out on kernels with CONFIG_PARAVIRT_TIME_ACCOUNTING, as here. On a
 * busy host the two differ by up to the steal of the window. */
static double steal_s(void) {
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                     &v[4], &v[5], &v[6], &v[7]) != 8)
        v[7] = 0;
    if (f)
        fclose(f);
    return (double)v[7] / (double)sysconf(_SC_CLK_TCK);
}

/* task-clock tc against CPU time cpu: within 10 %, plus what was stolen. */
static int agrees(double tc, double cpu, double stolen) {
    return tc >= 0.9 * cpu && tc <= 1.1 * cpu + stolen;
}

static int real_pmu(void) {
    struct stat st;
    return stat("/sys/bus/event_source/devices/cpu", &st) == 0 ||
           stat("/sys/bus/event_source/devices/cpu_core", &st) == 0;
}

static void check_hw(const struct pc_delta *d) {
    for (int e = PC_CYCLES; e <= PC_BRANCH_MISSES; e++) {
        const struct pc_count *c = &d->ev[e];
        if (!real_pmu()) /* this VM: "PMU not available due to virtualization" */
            CHECKF(c->status == PC_UNSUPPORTED && !c->has_value &&
                       strstr(c->reason, "no hardware PMU"),
                   "%s: %s %s", perfctr_event_name(e), perfctr_status_name(c->status), c->reason);
        else /* counts, or says why not */
            CHECKF((c->has_value && c->value > 0) || c->reason[0], "%s", perfctr_event_name(e));
    }
}

static void test_real_self(void) {
    char err[256] = "";
    struct perfctr *pc = perfctr_open(PC_TARGET_PID, NULL, getpid(), NULL, err, sizeof err);
    CHECKF(pc != NULL, "%s", err);
    if (!pc)
        return;
    struct pc_snap *a = perfctr_snap_new(pc), *b = perfctr_snap_new(pc);
    const int pages = 2000, sleeps = 20;
    CHECK(perfctr_read(pc, a) == 0);
    double c0 = cpu_now(CLOCK_PROCESS_CPUTIME_ID), st0 = steal_s();
    char *m = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    for (int i = 0; i < pages; i++)
        m[(size_t)i * 4096] = 1;
    for (int i = 0; i < sleeps; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    burn(0.2);
    double c1 = cpu_now(CLOCK_PROCESS_CPUTIME_ID), stolen = steal_s() - st0;
    CHECK(perfctr_read(pc, b) == 0);
    munmap(m, (size_t)pages * 4096);
    struct pc_delta d;
    perfctr_delta(pc, a, b, &d);
    for (int e = PC_TASK_CLOCK; e < PC_NEVENTS; e++)
        CHECKF(d.ev[e].status == PC_OK, "%s: %s", perfctr_event_name(e), d.ev[e].reason);
    double tc = d.ev[PC_TASK_CLOCK].value / 1e9;
    CHECKF(agrees(tc, c1 - c0, stolen), "task-clock %.4f s, CPU clock %.4f s, steal %.2f s", tc,
           c1 - c0, stolen);
    CHECKF(d.ev[PC_PAGE_FAULTS].value >= pages, "page-faults %.0f < %d", d.ev[PC_PAGE_FAULTS].value,
           pages);
    CHECKF(d.ev[PC_CONTEXT_SWITCHES].value >= sleeps, "context-switches %.0f < %d",
           d.ev[PC_CONTEXT_SWITCHES].value, sleeps);
    check_hw(&d);
    json_t *j = perfctr_delta_json(&d);
    char *s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    printf("this process over %.3f s CPU, %d page touches, %d sleeps (%s):\n%s\n", c1 - c0, pages,
           sleeps, perfctr_describe(pc), s);
    free(s);
    json_decref(j);
    perfctr_snap_free(a);
    perfctr_snap_free(b);
    perfctr_close(pc);
}

static void test_real_cgroup(void) {
    char croot[512], why[256], dir[600], err[256] = "";
    if (geteuid() != 0 || perfctr_cgroup_root("/", croot, sizeof croot, why, sizeof why) < 0) {
        printf("SKIP real cgroup counting: %s\n", geteuid() ? "not root" : why);
        return;
    }
    snprintf(dir, sizeof dir, "%s/aops-perftest-%d", croot, (int)getpid());
    CHECKF(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
    int go[2];
    if (pipe(go) != 0)
        return;
    pid_t c = fork();
    if (c == 0) {
        char p[700], pid[32], b;
        snprintf(p, sizeof p, "%s/cgroup.procs", dir);
        snprintf(pid, sizeof pid, "%d", (int)getpid());
        int fd = open(p, O_WRONLY);
        if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
            _exit(2);
        close(fd);
        close(go[1]);
        if (read(go[0], &b, 1) < 0) /* EOF: go */
            _exit(3);
        burn(0.3);
        _exit(0);
    }
    close(go[0]);
    usleep(100000); /* the child joins the cgroup */
    struct perfctr *pc = perfctr_open(PC_TARGET_CGROUP, dir, 0, NULL, err, sizeof err);
    CHECKF(pc != NULL, "%s", err);
    struct pc_snap *a = pc ? perfctr_snap_new(pc) : NULL, *b = pc ? perfctr_snap_new(pc) : NULL;
    if (pc)
        perfctr_read(pc, a);
    double st0 = steal_s();
    close(go[1]);
    int st;
    struct rusage ru;
    wait4(c, &st, 0, &ru);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
    if (pc) {
        perfctr_read(pc, b);
        struct pc_delta d;
        perfctr_delta(pc, a, b, &d);
        double child = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
                       ru.ru_stime.tv_usec / 1e6;
        double tc = d.ev[PC_TASK_CLOCK].value / 1e9, stolen = steal_s() - st0;
        CHECKF(d.ev[PC_TASK_CLOCK].status == PC_OK, "%s", d.ev[PC_TASK_CLOCK].reason);
        CHECKF(agrees(tc, child, stolen),
               "cgroup task-clock %.4f s, child CPU %.4f s, steal %.2f s", tc, child, stolen);
        check_hw(&d);
        printf("cgroup %s: task-clock %.4f s, child rusage %.4f s\n", dir, tc, child);
        perfctr_snap_free(a);
        perfctr_snap_free(b);
        perfctr_close(pc);
    }
    CHECKF(rmdir(dir) == 0, "rmdir %s: %s", dir, strerror(errno));

    /* not a cgroup at all: refused with the hierarchy named */
    CHECK(perfctr_open(PC_TARGET_CGROUP, "/tmp", 0, NULL, err, sizeof err) == NULL);
    CHECKF(strstr(err, "not in the perf_event hierarchy") && strstr(err, croot), "%s", err);
}

static void test_real_system(void) {
    char err[256] = "";
    struct perfctr *pc = perfctr_open(PC_TARGET_SYSTEM, NULL, 0, NULL, err, sizeof err);
    CHECKF(pc != NULL, "%s", err);
    if (!pc)
        return;
    struct pc_snap *a = perfctr_snap_new(pc), *b = perfctr_snap_new(pc);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double w0 = cpu_now(CLOCK_MONOTONIC);
    perfctr_read(pc, a);
    usleep(200000);
    perfctr_read(pc, b);
    double wall = cpu_now(CLOCK_MONOTONIC) - w0;
    struct pc_delta d;
    perfctr_delta(pc, a, b, &d);
    /* per CPU, task-clock runs with the CPU's clock, idle or not */
    double tc = d.ev[PC_TASK_CLOCK].value / 1e9;
    CHECKF(fabs(tc - wall * ncpu) < 0.1 * wall * ncpu, "system task-clock %.4f, wall %.4f x %ld",
           tc, wall, ncpu);
    CHECK(d.ev[PC_CONTEXT_SWITCHES].has_value && d.ev[PC_CONTEXT_SWITCHES].value > 0);
    check_hw(&d);
    perfctr_snap_free(a);
    perfctr_snap_free(b);
    perfctr_close(pc);
}

static int watch(const char *perf_dir, const char *cpu_dir, double seconds) {
    char err[256], why[256];
    struct perfctr *pc = perfctr_open(PC_TARGET_CGROUP, perf_dir, 0, NULL, err, sizeof err);
    if (!pc) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    struct pc_snap *a = perfctr_snap_new(pc), *b = perfctr_snap_new(pc);
    struct cpu_time c0, c1;
    double st0 = steal_s();
    if (cgstat_read_dir(cpu_dir, &c0, why, sizeof why) < 0 || perfctr_read(pc, a) < 0) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    usleep((useconds_t)(seconds * 1e6));
    perfctr_read(pc, b);
    cgstat_read_dir(cpu_dir, &c1, why, sizeof why);
    struct pc_delta d;
    perfctr_delta(pc, a, b, &d);
    json_t *j = perfctr_delta_json(&d);
    char *s = json_dumps(j, JSON_PRESERVE_ORDER);
    printf("%s\n", s);
    printf("task_clock_s=%.4f cgroup_cpu_s=%.4f steal_s=%.2f\n",
           d.ev[PC_TASK_CLOCK].has_value ? d.ev[PC_TASK_CLOCK].value / 1e9 : -1.0,
           c1.total_s - c0.total_s, steal_s() - st0);
    free(s);
    json_decref(j);
    perfctr_snap_free(a);
    perfctr_snap_free(b);
    perfctr_close(pc);
    return 0;
}

/* Under qemu-user perf_event_open is not emulated (ENOSYS): every event is
 * then a status with the reason, never a count, and the result says so. */
static void test_no_perf_event_open(void) {
    char err[256] = "";
    struct perfctr *pc = perfctr_open(PC_TARGET_PID, NULL, getpid(), NULL, err, sizeof err);
    printf("qemu-user: the live counting tests need perf_event_open; checked instead that "
           "its absence is reported (%s)\n",
           pc ? perfctr_describe(pc) : err);
    if (!pc) {
        CHECKF(err[0] != 0, "perfctr_open failed without a reason");
        return;
    }
    struct pc_snap *a = perfctr_snap_new(pc), *b = perfctr_snap_new(pc);
    perfctr_read(pc, a);
    burn(0.05);
    perfctr_read(pc, b);
    struct pc_delta d;
    perfctr_delta(pc, a, b, &d);
    for (int e = 0; e < PC_NEVENTS; e++)
        CHECKF(d.ev[e].status != PC_OK && !d.ev[e].has_value && d.ev[e].reason[0], "%s: %s %s",
               perfctr_event_name(e), perfctr_status_name(d.ev[e].status), d.ev[e].reason);
    perfctr_snap_free(a);
    perfctr_snap_free(b);
    perfctr_close(pc);
}

int main(int argc, char **argv) {
    if (argc == 5 && !strcmp(argv[1], "watch"))
        return watch(argv[2], argv[3], atof(argv[4]));
    snprintf(root, sizeof root, "/tmp/aops-perfctr.%d", (int)getpid());
    put("proc/sys/kernel/perf_event_paranoid", "2\n");
    put("sys/devices/system/cpu/online", "0-1\n");
    put("sys/bus/event_source/devices/software/type", "1\n");
    test_fake_no_pmu();
    test_fake_eacces();
    test_fake_multiplexed();
    test_fake_zero_and_gaps();
    test_cgroup_root();
    if (getenv("AOPS_QEMU_USER")) /* tests/arm64/run */
        test_no_perf_event_open();
    else {
        test_real_self();
        test_real_cgroup();
        test_real_system();
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        CHECK(0);
    return unit_done("perfctr");
}
