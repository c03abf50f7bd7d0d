/* inventory.c -- what the system under test was: CPU, topology, caches,
 * memory, kernel, OS, disks and the harness build, for result.json "system",
 * plus warnings about settings that make two runs incomparable (an NVMe
 * scheduler that is not none, a governor other than performance, active
 * swap).
 *
 * An Arm CPU has no vendor or model string in /proc/cpuinfo, only its MIDR
 * fields (implementer, part, variant, revision): they are named from
 * arm_midr.c and grouped into core types as lscpu groups them, and the
 * topology follows lscpu's rules for Arm (see arm_topology()).
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
#include <unistd.h>

#include "../common/fsread.h"
#include "arm_midr.h"
#include "disclosure.h"
#include "telemetry.h"
#include "topology.h"

#ifndef AOPS_GIT
#define AOPS_GIT "unknown"
#endif
#ifndef AOPS_CC
#define AOPS_CC "unknown"
#endif

/* An Arm core type: the CPUs with one MIDR (lscpu's "CPU type"). */
#define ARM_TYPES_MAX 16
struct arm_type {
    int impl, part, variant, rev;
    int first;                /* its first CPU's number: whose caches are its */
    int cpus, cores, sockets; /* cores and sockets by lscpu's rules; -1 unknown */
    int threads;              /* per core */
};

struct cpu_info {
    char vendor[64], model[256];
    int family, model_no, stepping; /* -1 unknown */
    int logical, sockets, cores;    /* -1 unknown */
    int arm, clusters;              /* clusters: Arm only, -1 unknown */
    int ntypes;
    struct arm_type types[ARM_TYPES_MAX];
};

/* One CPU's MIDR fields from /proc/cpuinfo (-1 where absent). */
struct arm_cpu {
    int num, impl, part, variant, rev;
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
        if (strncmp(e->d_name, "cpu", 3) != 0 || !fs_is_index(e->d_name + 3))
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

/* A sysfs CPU mask ("0000ffff,ffffffff") as read, or NULL. */
static char *read_mask(const char *root, int cpu, const char *name) {
    char rel[128], path[PATH_MAX], buf[2048];
    snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
    if (!sysroot_path(path, sizeof path, root, rel) || fs_read_str(path, buf, sizeof buf) < 0)
        return NULL;
    return strdup(fs_trim(buf));
}

static int mask_bits(const char *m) {
    int n = 0;
    for (; *m; m++) {
        int c = *m;
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;
        n += __builtin_popcount((unsigned)v);
    }
    return n;
}

static int str_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Distinct strings among v[0..n) (reordered). */
static int distinct(char **v, int n) {
    int d = 0;
    qsort(v, (size_t)n, sizeof *v, str_cmp);
    for (int i = 0; i < n; i++)
        d += i == 0 || strcmp(v[i], v[i - 1]) != 0;
    return d;
}

static int sys_exists(const char *root, const char *rel) {
    char path[PATH_MAX];
    return sysroot_path(path, sizeof path, root, rel) && access(path, F_OK) == 0;
}

/* Arm: names, core types and topology, as lscpu reads them.
 *  - a core type is the CPUs with one MIDR; within it, a core is a distinct
 *    thread_siblings mask and a socket a distinct core_siblings mask (so a
 *    big.LITTLE board is one socket of each type, not a socket per
 *    cluster); the machine's sockets are the most any type has, its cores
 *    the sum;
 *  - without an ACPI PPTT (a device-tree board) and with one core type,
 *    core_siblings groups are clusters, not sockets: sockets then come
 *    from the SMBIOS processor entries, or are unknown;
 *  - clusters: the kernel's cluster_cpus groups where it has them, else
 *    (no PPTT) the core_siblings groups.
 * Returns 0, or -1 when sysfs has no topology (ci then keeps cpuinfo's). */
static int arm_topology(const char *root, struct cpu_info *ci, const struct arm_cpu *a, int n) {
    int *type_of = calloc((size_t)n, sizeof *type_of);
    char **thr = calloc((size_t)n, sizeof *thr), **pkg = calloc((size_t)n, sizeof *pkg);
    char **clu = calloc((size_t)n, sizeof *clu), **tmp = calloc((size_t)n, sizeof *tmp);
    int rc = -1, have = 0, nclu = 0;
    if (!type_of || !thr || !pkg || !clu || !tmp)
        goto out;
    ci->ntypes = 0;
    for (int i = 0; i < n; i++) {
        int t = 0;
        while (t < ci->ntypes &&
               !(ci->types[t].impl == a[i].impl && ci->types[t].part == a[i].part &&
                 ci->types[t].variant == a[i].variant && ci->types[t].rev == a[i].rev))
            t++;
        if (t == ci->ntypes && t < ARM_TYPES_MAX)
            ci->types[ci->ntypes++] = (struct arm_type){
                a[i].impl, a[i].part, a[i].variant, a[i].rev, a[i].num, 0, -1, -1, -1};
        type_of[i] = t < ci->ntypes ? t : ci->ntypes - 1;
        ci->types[type_of[i]].cpus++;
        /* An offline CPU has no topology: lscpu leaves it out too. */
        thr[i] = read_mask(root, a[i].num, "thread_siblings");
        pkg[i] = read_mask(root, a[i].num, "core_siblings");
        clu[i] = read_mask(root, a[i].num, "cluster_cpus");
        have += thr[i] && pkg[i];
        nclu += clu[i] != NULL;
    }
    if (!have)
        goto out;
    int pptt = sys_exists(root, "/sys/firmware/acpi/tables/PPTT");
    ci->cores = 0, ci->sockets = 0;
    for (int t = 0; t < ci->ntypes; t++) {
        struct arm_type *ty = &ci->types[t];
        int k = 0;
        ty->threads = 0;
        for (int i = 0; i < n; i++)
            if (type_of[i] == t && thr[i] && pkg[i]) {
                tmp[k++] = thr[i];
                if (mask_bits(thr[i]) > ty->threads)
                    ty->threads = mask_bits(thr[i]);
            }
        ty->cores = distinct(tmp, k);
        k = 0;
        for (int i = 0; i < n; i++)
            if (type_of[i] == t && thr[i] && pkg[i])
                tmp[k++] = pkg[i];
        ty->sockets = distinct(tmp, k);
        ci->cores += ty->cores;
        if (ty->sockets > ci->sockets)
            ci->sockets = ty->sockets;
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (thr[i] && pkg[i])
            tmp[k++] = pkg[i];
    int groups = distinct(tmp, k);
    if (!pptt && ci->ntypes == 1) {
        int dmi = -1;
        char dir[PATH_MAX];
        DIR *d =
            sysroot_path(dir, sizeof dir, root, "/sys/firmware/dmi/entries") ? opendir(dir) : NULL;
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strncmp(e->d_name, "4-", 2) == 0)
                dmi = dmi < 0 ? 1 : dmi + 1;
        if (d)
            closedir(d);
        ci->sockets = dmi;
        ci->types[0].sockets = dmi;
    }
    if (nclu == n) {
        for (int i = 0; i < n; i++)
            tmp[i] = clu[i];
        ci->clusters = distinct(tmp, n);
    } else if (!pptt)
        ci->clusters = groups;
    rc = 0;
out:
    for (int i = 0; thr && pkg && clu && i < n; i++)
        free(thr[i]), free(pkg[i]), free(clu[i]);
    free(type_of), free(thr), free(pkg), free(clu), free(tmp);
    return rc;
}

/* The type's name: lscpu's, or its number when the table lacks it.
 * Returns -1 (out empty) when cpuinfo gave no part. */
static int arm_type_name(const struct arm_type *t, char *out, size_t len) {
    const char *v = arm_implementer_name(t->impl), *m = arm_part_name(t->impl, t->part);
    out[0] = '\0';
    if (t->part < 0 || t->impl < 0)
        return -1;
    if (m)
        snprintf(out, len, "%s", m);
    else if (v)
        snprintf(out, len, "%s part 0x%03x", v, t->part);
    else
        snprintf(out, len, "implementer 0x%02x part 0x%03x", t->impl, t->part);
    return 0;
}

/* cpu_vendor and cpu_model from the types: "ARM", "Cortex-A510 +
 * Cortex-A715 + ..." (each name once, in CPU order). */
static void arm_names(struct cpu_info *ci) {
    char name[96];
    const char *v = ci->ntypes ? arm_implementer_name(ci->types[0].impl) : NULL;
    if (v)
        snprintf(ci->vendor, sizeof ci->vendor, "%s", v);
    else if (ci->ntypes && ci->types[0].impl >= 0)
        snprintf(ci->vendor, sizeof ci->vendor, "implementer 0x%02x", ci->types[0].impl);
    ci->model[0] = '\0';
    for (int t = 0; t < ci->ntypes; t++) {
        if (arm_type_name(&ci->types[t], name, sizeof name) < 0) {
            ci->model[0] = '\0'; /* a type without a part: the model is not known */
            return;
        }
        int seen = 0;
        for (int u = 0; u < t; u++) {
            char other[96];
            arm_type_name(&ci->types[u], other, sizeof other);
            seen |= strcmp(other, name) == 0;
        }
        size_t l = strlen(ci->model);
        if (!seen)
            snprintf(ci->model + l, sizeof ci->model - l, "%s%s", l ? " + " : "", name);
    }
}

static void cpu_info_read(const char *root, struct cpu_info *ci) {
    char path[PATH_MAX], line[4096];
    struct pair *pairs = NULL;
    struct arm_cpu *arm = NULL;
    int n = 0, have_ids = 1, is_arm = 0;
    memset(ci, 0, sizeof *ci);
    ci->family = ci->model_no = ci->stepping = -1;
    ci->logical = ci->sockets = ci->cores = ci->clusters = -1;
    FILE *f = sysroot_path(path, sizeof path, root, "/proc/cpuinfo") ? fs_fopen(path) : NULL;
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
            struct arm_cpu *na = realloc(arm, (size_t)(n + 1) * sizeof *na);
            if (!na)
                break;
            arm = na;
            arm[n] = (struct arm_cpu){atoi(val), -1, -1, -1, -1};
            pairs[n++] = (struct pair){-1, -1};
        } else if (strncmp(key, "CPU ", 4) == 0 && n > 0) {
            /* Arm's MIDR fields; hexadecimal but the revision. */
            int *f = strcmp(key + 4, "implementer") == 0 ? &arm[n - 1].impl
                     : strcmp(key + 4, "part") == 0      ? &arm[n - 1].part
                     : strcmp(key + 4, "variant") == 0   ? &arm[n - 1].variant
                     : strcmp(key + 4, "revision") == 0  ? &arm[n - 1].rev
                                                         : NULL;
            if (f)
                *f = (int)strtol(val, NULL, 0);
            is_arm |= f == &arm[n - 1].impl;
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
    if (is_arm) {
        ci->arm = 1;
        if (arm_topology(root, ci, arm, n) < 0)
            ci->cores = ci->sockets = -1; /* physical_package_id is no socket on Arm */
        arm_names(ci);
    }
    free(arm);
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
    if (end == s || v < 0)
        return -1;
    /* A sysroot's file may say anything: a negative or huge size is none
     * (shifting one would be undefined). */
    int sh = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    return v > (LLONG_MAX >> sh) ? -1 : v << sh;
}

static void add_caches(const char *root, int cpu, json_t *sys) {
    long long l1d = -1, l1i = -1, l2 = -1, l3 = -1;
    char rel[128], level[16], type[32], size[32];
    for (int i = 0; i < 16; i++) {
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
        if (!read_line(root, rel, level, sizeof level))
            continue;
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
        if (!read_line(root, rel, type, sizeof type))
            continue;
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, i);
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
    /* Sizes of the caches this CPU sees (one instance each, as lscpu -C shows). */
    json_object_set_new(sys, "l1d_bytes", l1d >= 0 ? json_integer(l1d) : json_null());
    json_object_set_new(sys, "l1i_bytes", l1i >= 0 ? json_integer(l1i) : json_null());
    json_object_set_new(sys, "l2_bytes", l2 >= 0 ? json_integer(l2) : json_null());
    json_object_set_new(sys, "l3_bytes", l3 >= 0 ? json_integer(l3) : json_null());
}

/* Arm's core types, null elsewhere: per type its names, MIDR fields, CPUs,
 * cores, sockets, threads per core (lscpu's per-type figures) and the
 * caches its first CPU sees. */
static json_t *arm_types_json(const char *root, const struct cpu_info *ci) {
    if (!ci->arm || !ci->ntypes)
        return json_null();
    json_t *a = json_array();
    for (int i = 0; i < ci->ntypes; i++) {
        const struct arm_type *t = &ci->types[i];
        char name[96], hex[16];
        arm_type_name(t, name, sizeof name);
        json_t *o = json_object();
        json_object_set_new(o, "vendor", str_or_null(arm_implementer_name(t->impl)));
        json_object_set_new(o, "model", str_or_null(name));
        snprintf(hex, sizeof hex, "0x%02x", t->impl);
        json_object_set_new(o, "implementer", t->impl >= 0 ? json_string(hex) : json_null());
        snprintf(hex, sizeof hex, "0x%03x", t->part);
        json_object_set_new(o, "part", t->part >= 0 ? json_string(hex) : json_null());
        json_object_set_new(o, "variant", int_or_null(t->variant));
        json_object_set_new(o, "revision", int_or_null(t->rev));
        /* lscpu's rXpY, for Arm's own cores. */
        if (t->impl == 0x41 && t->variant >= 0 && t->rev >= 0) {
            snprintf(name, sizeof name, "r%dp%d", t->variant, t->rev);
            json_object_set_new(o, "stepping", json_string(name));
        } else
            json_object_set_new(o, "stepping", json_null());
        json_object_set_new(o, "cpus", json_integer(t->cpus));
        json_object_set_new(o, "cores", int_or_null(t->cores));
        json_object_set_new(o, "sockets", int_or_null(t->sockets));
        json_object_set_new(o, "threads_per_core", int_or_null(t->threads));
        add_caches(root, t->first, o);
        json_array_append_new(a, o);
    }
    return a;
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
        n += strncmp(e->d_name, prefix, len) == 0 && fs_is_index(e->d_name + len);
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
        if (strncmp(e->d_name, "cpu", 3) != 0 || !fs_is_index(e->d_name + 3))
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
    FILE *f = sysroot_path(path, sizeof path, root, "/proc/swaps") ? fs_fopen(path) : NULL;
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
    add_caches(root, 0, sys);
    json_object_set_new(sys, "clusters", int_or_null(ci.clusters));
    json_object_set_new(sys, "cpu_types", arm_types_json(root, &ci));

    json_t *mem = json_null();
    char path[PATH_MAX], meminfo[8192];
    int64_t mem_bytes;
    if (sysroot_path(path, sizeof path, root, "/proc/meminfo") &&
        fs_read_str(path, meminfo, sizeof meminfo) >= 0 &&
        fs_meminfo_total(meminfo, &mem_bytes) == 0)
        mem = json_integer((json_int_t)mem_bytes);
    json_object_set_new(sys, "memory_bytes", mem);
    FILE *f;

    char *kernel = read_line(root, "/proc/sys/kernel/osrelease", buf, sizeof buf);
    struct utsname u;
    if (!kernel && strcmp(root, "/") == 0 && uname(&u) == 0)
        kernel = strcpy(buf, u.release);
    json_object_set_new(sys, "kernel", str_or_null(kernel));

    json_t *os = json_null();
    f = sysroot_path(path, sizeof path, root, "/etc/os-release") ? fs_fopen(path) : NULL;
    if (!f && sysroot_path(path, sizeof path, root, "/usr/lib/os-release"))
        f = fs_fopen(path);
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
