/* telemetry_power.c -- package energy readers: powercap RAPL, the perf power
 * PMU and the RAPL MSRs, behind one "joules since last time" call.
 *
 * Each source is tried in order and, when it fails, leaves one clause in
 * the reason so a result with power null tells the operator what to fix
 * (load the msr module, run as root). Readers keep their fds open: a sample
 * is one pread per socket. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/fsread.h"
#include "power.h"
#include "telemetry_power.h"

#if defined(__aarch64__)
#define AOPS_ARCH_NAME "aarch64"
#else
#define AOPS_ARCH_NAME "this architecture"
#endif

#define MSR_INTEL_UNIT 0x606
#define MSR_INTEL_PKG_ENERGY 0x611
#define MSR_AMD_UNIT 0xC0010299
#define MSR_AMD_PKG_ENERGY 0xC001029B

uint64_t counter_delta(uint64_t prev, uint64_t cur, uint64_t range) {
    if (cur >= prev)
        return cur - prev;
    /* Wrapped once: from prev up to range, one step to 0, then up to cur.
     * For a 32-bit MSR range is 0xFFFFFFFF, exact; for RAPL's energy_uj
     * (max_energy_range_uj = 0xFFFFFFFF raw units) the step is 1 uJ where
     * the hardware's is one energy unit (~61 uJ): far below a watt. */
    return range >= prev ? range - prev + 1 + cur : 0;
}

static void add_reason(struct power *p, const char *fmt, const char *a, const char *b) {
    size_t n = strlen(p->reason);
    if (n && n + 2 < sizeof p->reason)
        strcpy(p->reason + n, "; "), n += 2;
    if (n < sizeof p->reason)
        snprintf(p->reason + n, sizeof p->reason - n, fmt, a, b);
}

static void close_all(struct power *p) {
    for (int i = 0; i < p->n; i++)
        if (p->fd[i] >= 0)
            close(p->fd[i]);
    p->n = 0;
}

static int cmp_int(const void *a, const void *b) {
    return *(const int *)a - *(const int *)b;
}

/* powercap: <sysroot>/sys/class/powercap/intel-rapl:N with name package-N.
 * Subzones (intel-rapl:N:M, core/uncore/dram) and psys are not package
 * power and are skipped. */
static int try_rapl(struct power *p, const char *sysroot, power_open_fn op) {
    char dir[PATH_MAX], path[PATH_MAX + 64], buf[128];
    int ids[POWER_MAX_DOMAINS], nid = 0;
    if (!sysroot_path(dir, sizeof dir, sysroot, "/sys/class/powercap"))
        return -1;
    DIR *d = opendir(dir);
    if (!d) {
        add_reason(p, "powercap RAPL: %s absent%s", dir, "");
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d)) && nid < POWER_MAX_DOMAINS) {
        int id, len = 0;
        if (sscanf(e->d_name, "intel-rapl:%d%n", &id, &len) == 1 && e->d_name[len] == '\0')
            ids[nid++] = id;
    }
    closedir(d);
    qsort(ids, (size_t)nid, sizeof ids[0], cmp_int);
    for (int i = 0; i < nid; i++) {
        snprintf(path, sizeof path, "%s/intel-rapl:%d/name", dir, ids[i]);
        if (fs_read_str(path, buf, sizeof buf) < 0 || strncmp(buf, "package", 7) != 0)
            continue;
        snprintf(path, sizeof path, "%s/intel-rapl:%d/max_energy_range_uj", dir, ids[i]);
        uint64_t range = 0;
        if (fs_read_u64(path, &range) < 0)
            range = 0; /* a wrap then drops the interval instead of inventing energy */
        snprintf(path, sizeof path, "%s/intel-rapl:%d/energy_uj", dir, ids[i]);
        int fd = op(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            if (err == EACCES || err == EPERM)
                add_reason(p,
                           "powercap RAPL: permission denied reading %s (root-only since "
                           "Linux 5.10): run the harness as root%s",
                           path, "");
            else
                add_reason(p, "powercap RAPL: %s: %s", path, strerror(err));
            close_all(p);
            return -1;
        }
        p->fd[p->n] = fd;
        p->range[p->n] = range;
        p->unit_j[p->n] = 1e-6;
        p->n++;
    }
    if (p->n == 0) {
        add_reason(p, "powercap RAPL: no package domain under %s%s", dir, "");
        return -1;
    }
    p->src = POWER_RAPL;
    strcpy(p->source, "rapl");
    return 0;
}

/* perf's power PMU: one counter per socket, on the CPUs its cpumask names. */
static int try_perf(struct power *p, const char *sysroot) {
    char dir[PATH_MAX], path[PATH_MAX + 64], buf[256];
    uint64_t type;
    unsigned long long config = 0;
    if (!sysroot_path(dir, sizeof dir, sysroot, "/sys/bus/event_source/devices/power"))
        return -1;
    snprintf(path, sizeof path, "%s/events/energy-pkg", dir);
    if (fs_read_str(path, buf, sizeof buf) < 0) {
        add_reason(p, "perf power PMU: %s absent%s", path, "");
        return -1;
    }
    if (sscanf(buf, "event=%llx", &config) != 1) {
        add_reason(p, "perf power PMU: cannot parse %s%s", path, "");
        return -1;
    }
    snprintf(path, sizeof path, "%s/type", dir);
    if (fs_read_u64(path, &type) < 0) {
        add_reason(p, "perf power PMU: %s unreadable%s", path, "");
        return -1;
    }
    double scale = 2.3283064365386962890625e-10; /* 2^-32 J, the kernel's usual unit */
    snprintf(path, sizeof path, "%s/events/energy-pkg.scale", dir);
    if (fs_read_str(path, buf, sizeof buf) > 0)
        scale = strtod(buf, NULL);
    snprintf(path, sizeof path, "%s/cpumask", dir);
    if (fs_read_str(path, buf, sizeof buf) < 0)
        strcpy(buf, "0");
    for (char *tok = strtok(buf, ","); tok && p->n < POWER_MAX_DOMAINS; tok = strtok(NULL, ",")) {
        struct perf_event_attr attr = {0};
        attr.size = sizeof attr;
        attr.type = (uint32_t)type;
        attr.config = config;
        int cpu = atoi(tok);
        int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            snprintf(path, sizeof path, "cpu %d", cpu);
            add_reason(p,
                       "perf power PMU: perf_event_open on %s: %s (needs root or "
                       "perf_event_paranoid <= 0)",
                       path, strerror(err));
            close_all(p);
            return -1;
        }
        p->fd[p->n] = fd;
        p->range[p->n] = UINT64_MAX;
        p->unit_j[p->n] = scale;
        p->n++;
    }
    if (p->n == 0)
        return -1;
    p->src = POWER_PERF;
    strcpy(p->source, "perf");
    return 0;
}

static int read_msr(int fd, uint32_t addr, uint64_t *v) {
    return pread(fd, v, sizeof *v, (off_t)addr) == (ssize_t)sizeof *v ? 0 : -1;
}

/* The CPU's vendor decides which MSRs hold RAPL. */
static int cpu_is_amd(const char *sysroot) {
    char path[PATH_MAX], buf[4096];
    if (!sysroot_path(path, sizeof path, sysroot, "/proc/cpuinfo") ||
        fs_read_str(path, buf, sizeof buf) < 0)
        return 0;
    return strstr(buf, "AuthenticAMD") || strstr(buf, "HygonGenuine");
}

/* MSRs: /dev/cpu/N/msr for the first CPU of each package. */
static int try_msr(struct power *p, const char *sysroot, power_open_fn op) {
#if !defined(__x86_64__) && !defined(__i386__)
    /* RAPL's MSRs are x86 registers: an Arm CPU has no package energy
     * counter, so there is no module to load and no right to grant. */
    (void)sysroot, (void)op;
    add_reason(p, "MSR: none on %s (RAPL is x86's: Arm CPUs have no package energy counter)%s",
               AOPS_ARCH_NAME, "");
    return -1;
#endif
    char dir[PATH_MAX], path[PATH_MAX + 96];
    int amd = cpu_is_amd(sysroot);
    uint32_t unit_msr = amd ? MSR_AMD_UNIT : MSR_INTEL_UNIT;
    int seen_pkg[POWER_MAX_DOMAINS], nseen = 0, cpus[1024], ncpu = 0;
    if (!sysroot_path(dir, sizeof dir, sysroot, "/dev/cpu"))
        return -1;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && ncpu < 1024) {
        char *end;
        long c = strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0')
            cpus[ncpu++] = (int)c;
    }
    if (d)
        closedir(d);
    qsort(cpus, (size_t)ncpu, sizeof cpus[0], cmp_int);
    int last_err = ENOENT;
    for (int i = 0; i < ncpu && p->n < POWER_MAX_DOMAINS; i++) {
        uint64_t pkg = 0;
        char rel[96];
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                 cpus[i]);
        if (sysroot_path(path, sizeof path, sysroot, rel) && fs_read_u64(path, &pkg) < 0)
            pkg = 0;
        int dup = 0;
        for (int j = 0; j < nseen; j++)
            dup |= seen_pkg[j] == (int)pkg;
        if (dup)
            continue;
        snprintf(path, sizeof path, "%s/%d/msr", dir, cpus[i]);
        int fd = op(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            last_err = errno;
            continue;
        }
        uint64_t units, energy;
        if (read_msr(fd, unit_msr, &units) < 0 ||
            read_msr(fd, amd ? MSR_AMD_PKG_ENERGY : MSR_INTEL_PKG_ENERGY, &energy) < 0) {
            last_err = errno ? errno : EIO;
            close(fd);
            continue;
        }
        seen_pkg[nseen++] = (int)pkg;
        p->fd[p->n] = fd;
        p->range[p->n] = 0xffffffffULL; /* 32-bit energy status counter */
        p->unit_j[p->n] = 1.0 / (double)(1ULL << ((units >> 8) & 0x1f));
        p->n++;
    }
    if (p->n == 0) {
        if (ncpu == 0 || last_err == ENOENT)
            add_reason(p, "MSR: no %s/N/msr (load the msr module: modprobe msr)%s", dir, "");
        else
            add_reason(p, "MSR: cannot read RAPL MSRs under %s: %s (needs root and the msr module)",
                       dir, strerror(last_err));
        return -1;
    }
    p->msr_energy = amd ? MSR_AMD_PKG_ENERGY : MSR_INTEL_PKG_ENERGY;
    p->src = POWER_MSR;
    strcpy(p->source, "msr");
    return 0;
}

/* open(2) is variadic; calling it through a two-argument pointer is not. */
static int sys_open(const char *path, int flags) {
    return open(path, flags);
}

void power_open(struct power *p, const char *sysroot, power_open_fn op) {
    memset(p, 0, sizeof *p);
    if (!op)
        op = sys_open;
    if (try_rapl(p, sysroot, op) == 0 || try_perf(p, sysroot) == 0 ||
        try_msr(p, sysroot, op) == 0) {
        p->reason[0] = '\0';
        return;
    }
    p->src = POWER_NONE;
}

/* One raw reading of domain i. */
static int read_raw(struct power *p, int i, uint64_t *v) {
    char buf[64];
    switch (p->src) {
    case POWER_RAPL:
        if (fs_pread_str(p->fd[i], buf, sizeof buf) <= 0)
            return -1;
        *v = strtoull(buf, NULL, 10);
        return 0;
    case POWER_PERF:
        return read(p->fd[i], v, sizeof *v) == (ssize_t)sizeof *v ? 0 : -1;
    case POWER_MSR:
        if (read_msr(p->fd[i], p->msr_energy, v) < 0)
            return -1;
        *v &= 0xffffffffULL;
        return 0;
    default:
        return -1;
    }
}

int power_read(struct power *p, double *joules) {
    double j = 0;
    int ok = 1;
    *joules = 0;
    if (p->src == POWER_NONE)
        return -1;
    for (int i = 0; i < p->n; i++) {
        uint64_t v;
        if (read_raw(p, i, &v) < 0) {
            ok = 0;
            continue;
        }
        if (p->have_last) {
            if (v < p->last[i] && p->range[i] == 0)
                ok = 0; /* wrapped with an unknown range: no honest figure */
            j += (double)counter_delta(p->last[i], v, p->range[i]) * p->unit_j[i];
        }
        p->last[i] = v;
    }
    int first = !p->have_last;
    p->have_last = 1;
    if (!ok && !first)
        return -1;
    *joules = j;
    return 0;
}

void power_close(struct power *p) {
    close_all(p);
    p->src = POWER_NONE;
}

/* The package row of the source table (power.h): the reader above behind
 * the table's ops, energy over the sampler's interval. */
static int pkg_open(struct power_src *s, const struct power_env *env) {
    struct power *p = calloc(1, sizeof *p);
    s->scope = PSCOPE_PACKAGE;
    if (!p) {
        snprintf(s->reason, sizeof s->reason, "out of memory");
        return -1;
    }
    s->priv = p;
    power_open(p, env->sysroot, env->open_fn);
    if (p->src == POWER_NONE) {
        snprintf(s->reason, sizeof s->reason, "%s", p->reason[0] ? p->reason : "no power source");
        return -1;
    }
    snprintf(s->name, sizeof s->name, "%s", p->source);
    s->detail = json_pack("{s:i}", "packages", p->n);
    return 0;
}

static int pkg_read(struct power_src *s, double dt, double *watts, char *err, size_t errlen) {
    struct power *p = s->priv;
    int first = !p->have_last;
    double j;
    if (power_read(p, &j) != 0) {
        snprintf(err, errlen, "%s: a counter could not be read", p->source);
        return -1;
    }
    if (first || dt <= 0)
        return 1;
    *watts = j / dt;
    return 0;
}

static void pkg_close(struct power_src *s) {
    if (s->priv)
        power_close(s->priv);
    free(s->priv);
    s->priv = NULL;
}

const struct power_src_ops power_src_package = {"package", 0, pkg_open, pkg_read, pkg_close};
