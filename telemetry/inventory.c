/* inventory.c -- what the system under test was: CPU, topology, caches,
 * memory, kernel, OS, disks and the harness build, for result.json "system",
 * plus warnings about settings that make two runs incomparable (an NVMe
 * scheduler that is not none, a governor other than performance, active
 * swap).
 *
 * Everything comes from files under cfg->sysroot so tests describe other
 * machines with fixture trees. A value that cannot be read is null. This
 * runs once per run, so it may allocate freely. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../common/fsread.h"
#include "disclosure.h"
#include "telemetry.h"
#include "topology.h"

#ifndef AOPS_GIT
#define AOPS_GIT "unknown"
#endif
#ifndef AOPS_CC
#define AOPS_CC "unknown"
#endif

struct cpu_info {
    char vendor[64], model[256];
    int family, model_no, stepping; /* -1 unknown */
    int logical, sockets, cores;    /* -1 unknown */
};

struct pair {
    long pkg, core;
};

static int pair_cmp(const void *a, const void *b) {
    const struct pair *x = a, *y = b;
    return x->pkg != y->pkg ? (x->pkg < y->pkg ? -1 : 1)
                            : (x->core < y->core ? -1 : x->core > y->core);
}

/* Distinct packages and distinct (package, core) pairs. */
static void count_pairs(struct pair *p, int n, int *sockets, int *cores) {
    qsort(p, (size_t)n, sizeof *p, pair_cmp);
    int s = 0, c = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || p[i].pkg != p[i - 1].pkg)
            s++;
        if (i == 0 || pair_cmp(&p[i], &p[i - 1]) != 0)
            c++;
    }
    *sockets = s, *cores = c;
}

static int is_num(const char *s) {
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* sysfs topology: cpuN/topology/{physical_package_id,core_id}. Used when
 * cpuinfo has no "physical id" (ARM, some hypervisors). */
static void cpu_from_sysfs(const char *root, struct cpu_info *ci) {
    char dir[PATH_MAX], p[PATH_MAX + 300];
    struct pair *pairs = NULL;
    int n = 0, ok = 1;
    if (!sysroot_path(dir, sizeof dir, root, "/sys/devices/system/cpu"))
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "cpu", 3) != 0 || !is_num(e->d_name + 3))
            continue;
        uint64_t pkg, core;
        snprintf(p, sizeof p, "%s/%s/topology/physical_package_id", dir, e->d_name);
        int have = fs_read_u64(p, &pkg) == 0;
        snprintf(p, sizeof p, "%s/%s/topology/core_id", dir, e->d_name);
        have = have && fs_read_u64(p, &core) == 0;
        ok = ok && have;
        struct pair *np = realloc(pairs, (size_t)(n + 1) * sizeof *np);
        if (!np)
            break;
        pairs = np;
        pairs[n] = (struct pair){have ? (long)pkg : 0, have ? (long)core : n};
        n++;
    }
    closedir(d);
    if (ci->logical < 0 && n > 0)
        ci->logical = n;
    if (ok && n > 0 && ci->cores < 0)
        count_pairs(pairs, n, &ci->sockets, &ci->cores);
    free(pairs);
}

static void cpu_info_read(const char *root, struct cpu_info *ci) {
    char path[PATH_MAX], line[4096];
    struct pair *pairs = NULL;
    int n = 0, have_ids = 1;
    memset(ci, 0, sizeof *ci);
    ci->family = ci->model_no = ci->stepping = -1;
    ci->logical = ci->sockets = ci->cores = -1;
    FILE *f = sysroot_path(path, sizeof path, root, "/proc/cpuinfo") ? fopen(path, "re") : NULL;
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *key = fs_trim(line), *val = fs_trim(colon + 1);
        if (strcmp(key, "processor") == 0) {
            struct pair *np = realloc(pairs, (size_t)(n + 1) * sizeof *np);
            if (!np)
                break;
            pairs = np;
            pairs[n++] = (struct pair){-1, -1};
        } else if (strcmp(key, "vendor_id") == 0 && !ci->vendor[0]) {
            snprintf(ci->vendor, sizeof ci->vendor, "%s", val);
        } else if (strcmp(key, "model name") == 0 && !ci->model[0]) {
            snprintf(ci->model, sizeof ci->model, "%s", val);
        } else if (strcmp(key, "cpu family") == 0 && ci->family < 0) {
            ci->family = atoi(val);
        } else if (strcmp(key, "model") == 0 && ci->model_no < 0) {
            ci->model_no = atoi(val);
        } else if (strcmp(key, "stepping") == 0 && ci->stepping < 0) {
            ci->stepping = atoi(val);
        } else if (strcmp(key, "physical id") == 0 && n > 0) {
            pairs[n - 1].pkg = atol(val);
        } else if (strcmp(key, "core id") == 0 && n > 0) {
            pairs[n - 1].core = atol(val);
        }
    }
    if (f)
        fclose(f);
    for (int i = 0; i < n; i++)
        have_ids = have_ids && pairs[i].pkg >= 0 && pairs[i].core >= 0;
    if (n > 0) {
        ci->logical = n;
        if (have_ids)
            count_pairs(pairs, n, &ci->sockets, &ci->cores);
    }
    free(pairs);
    if (ci->cores < 0)
        cpu_from_sysfs(root, ci);
}

int inventory_physical_cores(const struct config *cfg) {
    struct cpu_info ci;
    cpu_info_read(cfg->sysroot[0] ? cfg->sysroot : "/", &ci);
    return ci.cores > 0 ? ci.cores : -1;
}

static json_t *int_or_null(long v) {
    return v >= 0 ? json_integer(v) : json_null();
}

static json_t *str_or_null(const char *s) {
    return s && *s ? json_string(s) : json_null();
}

/* A sysroot file's trimmed first line, or NULL. */
static char *read_line(const char *root, const char *rel, char *buf, size_t size) {
    char path[PATH_MAX];
    if (!sysroot_path(path, sizeof path, root, rel) || fs_read_str(path, buf, size) < 0)
        return NULL;
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    return fs_trim(buf);
}

/* Cache sizes as sysfs prints them ("48K", "32768K", "1M") in bytes. */
static long long size_bytes(const char *s) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s)
        return -1;
    return *end == 'K' ? v << 10 : *end == 'M' ? v << 20 : *end == 'G' ? v << 30 : v;
}

static void add_caches(const char *root, json_t *sys) {
    long long l1d = -1, l1i = -1, l2 = -1, l3 = -1;
    char rel[128], level[16], type[32], size[32];
    for (int i = 0; i < 16; i++) {
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!read_line(root, rel, level, sizeof level))
            continue;
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!read_line(root, rel, type, sizeof type))
            continue;
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!read_line(root, rel, size, sizeof size))
            continue;
        long long b = size_bytes(size);
        int lv = atoi(level);
        if (lv == 1 && strcmp(type, "Data") == 0)
            l1d = b;
        else if (lv == 1 && strcmp(type, "Instruction") == 0)
            l1i = b;
        else if (lv == 2)
            l2 = b;
        else if (lv == 3)
            l3 = b;
    }
    /* Sizes of the caches cpu0 sees (one instance each, as lscpu -C shows). */
    json_object_set_new(sys, "l1d_bytes", l1d >= 0 ? json_integer(l1d) : json_null());
    json_object_set_new(sys, "l1i_bytes", l1i >= 0 ? json_integer(l1i) : json_null());
    json_object_set_new(sys, "l2_bytes", l2 >= 0 ? json_integer(l2) : json_null());
    json_object_set_new(sys, "l3_bytes", l3 >= 0 ? json_integer(l3) : json_null());
}

/* Entries of dir named prefix<number>. -1 when dir is absent. */
static int count_numbered(const char *root, const char *rel, const char *prefix) {
    char dir[PATH_MAX];
    int n = 0;
    size_t len = strlen(prefix);
    DIR *d = sysroot_path(dir, sizeof dir, root, rel) ? opendir(dir) : NULL;
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, len) == 0 && is_num(e->d_name + len);
    closedir(d);
    return n;
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Block devices: everything under /sys/block but loop and ram devices and
 * empty ones. */
static json_t *disks_json(const char *root, json_t *warnings) {
    char dir[PATH_MAX], rel[512], buf[256];
    json_t *disks = json_array();
    char *names[256];
    int n = 0;
    DIR *d = sysroot_path(dir, sizeof dir, root, "/sys/block") ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 256)
        if (e->d_name[0] != '.' && strncmp(e->d_name, "loop", 4) != 0 &&
            strncmp(e->d_name, "ram", 3) != 0)
            names[n++] = strdup(e->d_name);
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof names[0], name_cmp);
    for (int i = 0; i < n; i++) {
        const char *name = names[i];
        uint64_t sectors = 0;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s/size", dir, name);
        if (!name || fs_read_u64(path, &sectors) < 0 || sectors == 0) {
            free(names[i]);
            continue;
        }
        json_t *disk = json_pack("{s:s}", "name", name);
        snprintf(rel, sizeof rel, "/sys/block/%s/device/model", name);
        json_object_set_new(disk, "model", str_or_null(read_line(root, rel, buf, sizeof buf)));
        json_object_set_new(disk, "size_bytes", json_integer((json_int_t)(sectors * 512)));
        snprintf(rel, sizeof rel, "/sys/block/%s/queue/rotational", name);
        char *rot = read_line(root, rel, buf, sizeof buf);
        json_object_set_new(disk, "rotational", rot ? json_boolean(atoi(rot)) : json_null());
        snprintf(rel, sizeof rel, "/sys/block/%s/queue/scheduler", name);
        char *sched = read_line(root, rel, buf, sizeof buf), *open_b;
        /* "none [mq-deadline] kyber" names the active one in brackets. */
        if (sched && (open_b = strchr(sched, '['))) {
            sched = open_b + 1;
            char *close_b = strchr(sched, ']');
            if (close_b)
                *close_b = '\0';
        }
        json_object_set_new(disk, "scheduler", str_or_null(sched));
        disclosure_disk(root, name, disk);
        if (sched && strncmp(name, "nvme", 4) == 0 && strcmp(sched, "none") != 0) {
            char w[512];
            snprintf(w, sizeof w, "NVMe device %s uses I/O scheduler %s, not none", name, sched);
            json_array_append_new(warnings, json_string(w));
        }
        json_array_append_new(disks, disk);
        free(names[i]);
    }
    return disks;
}

static void governor_warning(const char *root, json_t *warnings) {
    char dir[PATH_MAX], path[PATH_MAX + 300], buf[64], other[64] = "";
    int total = 0, bad = 0;
    DIR *d = sysroot_path(dir, sizeof dir, root, "/sys/devices/system/cpu") ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "cpu", 3) != 0 || !is_num(e->d_name + 3))
            continue;
        snprintf(path, sizeof path, "%s/%s/cpufreq/scaling_governor", dir, e->d_name);
        if (fs_read_str(path, buf, sizeof buf) < 0)
            continue; /* no cpufreq (VMs): nothing to warn about */
        total++;
        if (strcmp(fs_trim(buf), "performance") != 0) {
            bad++;
            if (!other[0])
                snprintf(other, sizeof other, "%s", fs_trim(buf));
        }
    }
    if (d)
        closedir(d);
    if (bad) {
        char w[256];
        snprintf(w, sizeof w, "CPU frequency governor is %s on %d of %d CPUs, not performance",
                 other, bad, total);
        json_array_append_new(warnings, json_string(w));
    }
}

static void swap_warning(const char *root, json_t *warnings) {
    char path[PATH_MAX], line[1024], dev[512];
    unsigned long long kib = 0, used = 0;
    FILE *f = sysroot_path(path, sizeof path, root, "/proc/swaps") ? fopen(path, "re") : NULL;
    if (!f)
        return;
    /* First line is the header. */
    for (int i = 0; fgets(line, sizeof line, f); i++) {
        if (i == 0 || sscanf(line, "%511s %*s %llu %llu", dev, &kib, &used) != 3)
            continue;
        char w[768];
        snprintf(w, sizeof w, "swap is active: %s (%llu KiB, %llu KiB used)", dev, kib, used);
        json_array_append_new(warnings, json_string(w));
    }
    fclose(f);
}

json_t *inventory_json(const struct config *cfg, json_t *warnings) {
    const char *root = cfg->sysroot[0] ? cfg->sysroot : "/";
    struct cpu_info ci;
    char buf[1024];
    cpu_info_read(root, &ci);
    json_t *sys = json_object();
    json_object_set_new(sys, "cpu_vendor", str_or_null(ci.vendor));
    json_object_set_new(sys, "cpu_model", str_or_null(ci.model));
    json_object_set_new(sys, "cpu_family", int_or_null(ci.family));
    json_object_set_new(sys, "cpu_model_number", int_or_null(ci.model_no));
    json_object_set_new(sys, "cpu_stepping", int_or_null(ci.stepping));
    json_object_set_new(sys, "sockets", int_or_null(ci.sockets));
    json_object_set_new(sys, "physical_cores", int_or_null(ci.cores));
    json_object_set_new(sys, "logical_cpus", int_or_null(ci.logical));

    /* smt/active is the kernel's own answer; else threads > cores. */
    json_t *smt = json_null();
    char *active = read_line(root, "/sys/devices/system/cpu/smt/active", buf, sizeof buf);
    if (active)
        smt = json_string(atoi(active) ? "on" : "off");
    else if (ci.cores > 0 && ci.logical > 0)
        smt = json_string(ci.logical > ci.cores ? "on" : "off");
    json_object_set_new(sys, "smt", smt);
    json_object_set_new(sys, "numa_nodes",
                        int_or_null(count_numbered(root, "/sys/devices/system/node", "node")));
    add_caches(root, sys);

    json_t *mem = json_null();
    char path[PATH_MAX], line[256];
    FILE *f = sysroot_path(path, sizeof path, root, "/proc/meminfo") ? fopen(path, "re") : NULL;
    unsigned long long kib;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %llu kB", &kib) == 1) {
            mem = json_integer((json_int_t)(kib * 1024));
            break;
        }
    if (f)
        fclose(f);
    json_object_set_new(sys, "memory_bytes", mem);

    char *kernel = read_line(root, "/proc/sys/kernel/osrelease", buf, sizeof buf);
    struct utsname u;
    if (!kernel && strcmp(root, "/") == 0 && uname(&u) == 0)
        kernel = strcpy(buf, u.release);
    json_object_set_new(sys, "kernel", str_or_null(kernel));

    json_t *os = json_null();
    f = sysroot_path(path, sizeof path, root, "/etc/os-release") ? fopen(path, "re") : NULL;
    if (!f && sysroot_path(path, sizeof path, root, "/usr/lib/os-release"))
        f = fopen(path, "re");
    while (f && fgets(buf, sizeof buf, f))
        if (strncmp(buf, "PRETTY_NAME=", 12) == 0) {
            char *v = fs_trim(buf + 12);
            size_t n = strlen(v);
            if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
                v[n - 1] = '\0', v++;
            os = json_string(v);
            break;
        }
    if (f)
        fclose(f);
    json_object_set_new(sys, "os_release", os);

    json_object_set_new(sys, "disks", disks_json(root, warnings));
    topology_add(root, sys);
    disclosure_add(root, sys);
    governor_warning(root, warnings);
    swap_warning(root, warnings);

    /* Server versions come from the workloads themselves (system.backends,
     * filled by the coordinator through each workload's backend hook). */
    json_object_set_new(sys, "harness_version", json_string(AOPS_GIT));
    json_object_set_new(sys, "compiler", json_string(AOPS_CC));
    json_object_set_new(sys, "command_line", json_string(cfg->cmdline));
    return sys;
}
