/* telemetry_proc.c -- whole-machine CPU utilisation from /proc/stat and the
 * block devices behind the data, resolved through mountinfo and sysfs, with
 * their /proc/diskstats counters.
 *
 * Which devices count: every path (MinIO data, MariaDB data, corpus) maps to
 * the physical whole disks beneath it -- a partition to its disk, a
 * device-mapper or md device to its slaves, recursively -- and each disk is
 * counted once. This measures what the drives did (the figure a storage
 * vendor compares), never counts one I/O twice when data sits on both a dm
 * volume and its disk, and keeps working when two paths share a disk. The
 * price: I/O to other partitions of the same disk (the OS, logs) is included;
 * result.json names the disks so a reader knows. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsread.h"
#include "../common/mountinfo.h"
#include "telemetry_proc.h"

double cpu_util_pct(const struct cpu_times *a, const struct cpu_times *b) {
    if (b->total <= a->total || b->busy < a->busy)
        return NAN;
    double pct = 100.0 * (double)(b->busy - a->busy) / (double)(b->total - a->total);
    return pct > 100.0 ? 100.0 : pct;
}

double cpu_steal_pct(const struct cpu_times *a, const struct cpu_times *b) {
    if (b->total <= a->total || b->steal < a->steal)
        return NAN;
    return 100.0 * (double)(b->steal - a->steal) / (double)(b->total - a->total);
}

int diskstats_parse(const char *buf, const struct blkdev *devs, int ndevs,
                    struct disk_counters *sum) {
    int found = 0;
    memset(sum, 0, sizeof *sum);
    for (const char *line = buf; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        unsigned maj, min;
        unsigned long long rio, rmerge, rsect, rticks, wio, wmerge, wsect;
        if (sscanf(line, "%u %u %*s %llu %llu %llu %llu %llu %llu %llu", &maj, &min, &rio, &rmerge,
                   &rsect, &rticks, &wio, &wmerge, &wsect) != 9)
            continue;
        for (int i = 0; i < ndevs; i++) {
            if (devs[i].major == maj && devs[i].minor == min) {
                sum->rd_ios += rio;
                sum->rd_sectors += rsect;
                sum->wr_ios += wio;
                sum->wr_sectors += wsect;
                found++;
                break;
            }
        }
    }
    return found;
}

static int under_mount(const char *path, const char *mp) {
    size_t n = strlen(mp);
    if (strcmp(mp, "/") == 0)
        return 1;
    return strncmp(path, mp, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int mount_devdir(const char *sysroot, const char *path, char *devdir, size_t devdir_size,
                 char *reason, size_t reason_size) {
    char file[PATH_MAX], real[PATH_MAX];
    char best_mp[PATH_MAX] = "", best_fs[64] = "", best_src[PATH_MAX] = "";
    unsigned best_maj = 0, best_min = 0;
    int have = 0;

    /* The data path lives on the real file system; only the kernel's view
     * (mountinfo, sysfs) comes from the sysroot. */
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    if (real[0] != '/') {
        snprintf(reason, reason_size, "%s: not an absolute path", path);
        return -1;
    }
    if (!sysroot_path(file, sizeof file, sysroot, "/proc/self/mountinfo"))
        return snprintf(reason, reason_size, "sysroot too long"), -1;
    FILE *f = fopen(file, "re");
    if (!f) {
        snprintf(reason, reason_size, "%s: %s", file, strerror(errno));
        return -1;
    }
    struct mount_entry e;
    while (mountinfo_next(f, &e)) {
        /* >= so a later mount on the same point shadows the earlier one. */
        if (under_mount(real, e.point) && strlen(e.point) >= strlen(best_mp)) {
            snprintf(best_mp, sizeof best_mp, "%s", e.point);
            snprintf(best_fs, sizeof best_fs, "%s", e.fstype);
            snprintf(best_src, sizeof best_src, "%s", e.source);
            best_maj = e.major, best_min = e.minor, have = 1;
        }
    }
    fclose(f);
    if (!have) {
        snprintf(reason, reason_size, "%s: no mount found in mountinfo", real);
        return -1;
    }

    char rel[128];
    snprintf(rel, sizeof rel, "/sys/dev/block/%u:%u", best_maj, best_min);
    if (best_maj != 0 && sysroot_path(file, sizeof file, sysroot, rel) && realpath(file, real))
        return snprintf(devdir, devdir_size, "%s", real) < (int)devdir_size ? 0 : -1;

    /* btrfs and friends show an anonymous 0:N device; their source may still
     * name the block device. */
    if (strncmp(best_src, "/dev/", 5) == 0) {
        char dev[PATH_MAX];
        const char *name = strrchr(best_src, '/') + 1;
        if (strcmp(sysroot, "/") == 0 && realpath(best_src, dev)) /* /dev/mapper/x -> dm-0 */
            name = strrchr(dev, '/') + 1;
        snprintf(rel, sizeof rel, "/sys/class/block/%.64s", name);
        if (sysroot_path(file, sizeof file, sysroot, rel) && realpath(file, dev))
            return snprintf(devdir, devdir_size, "%s", dev) < (int)devdir_size ? 0 : -1;
    }
    snprintf(reason, reason_size, "%s is on %s (%s at %s), not a block device", path, best_fs,
             best_src, best_mp);
    return -1;
}

/* dir/name into out; -1 when it does not fit. */
static int pjoin(char *out, size_t size, const char *dir, const char *name) {
    int w = snprintf(out, size, "%s/%s", dir, name);
    return w < 0 || (size_t)w >= size ? -1 : 0;
}

static int exists(const char *dir, const char *name) {
    char p[PATH_MAX];
    struct stat st;
    return pjoin(p, sizeof p, dir, name) == 0 && stat(p, &st) == 0;
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(a, b);
}

static int leaf(const char *devdir_in, struct blkdev *devs, int *ndevs, int max, int depth) {
    char devdir[PATH_MAX], p[PATH_MAX], buf[64];
    int added = 0;
    if (depth > 8) /* dm on md on dm...: deeper than any real stack */
        return -1;
    if (snprintf(devdir, sizeof devdir, "%s", devdir_in) >= (int)sizeof devdir)
        return -1;
    if (exists(devdir, "partition")) {
        char *slash = strrchr(devdir, '/');
        if (!slash || slash == devdir)
            return -1;
        *slash = '\0';
    }
    /* Slaves in name order, so the device list is the same every run. */
    char names[64][NAME_MAX + 1];
    int nslaves = 0;
    DIR *d = pjoin(p, sizeof p, devdir, "slaves") == 0 ? opendir(p) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)) && nslaves < 64)
        if (e->d_name[0] != '.')
            snprintf(names[nslaves++], sizeof names[0], "%s", e->d_name);
    if (d)
        closedir(d);
    qsort(names, (size_t)nslaves, sizeof names[0], name_cmp);
    for (int i = 0; i < nslaves; i++) {
        char sp[PATH_MAX], real[PATH_MAX];
        if (pjoin(sp, sizeof sp, p, names[i]) < 0 || !realpath(sp, real))
            continue;
        int r = leaf(real, devs, ndevs, max, depth + 1);
        if (r > 0)
            added += r;
    }
    if (nslaves > 0)
        return added;
    unsigned maj, min;
    if (pjoin(p, sizeof p, devdir, "dev") < 0 || fs_read_str(p, buf, sizeof buf) < 0 ||
        sscanf(buf, "%u:%u", &maj, &min) != 2)
        return -1;
    for (int i = 0; i < *ndevs; i++)
        if (devs[i].major == maj && devs[i].minor == min)
            return 0;
    if (*ndevs >= max)
        return -1;
    devs[*ndevs].major = maj;
    devs[*ndevs].minor = min;
    snprintf(devs[*ndevs].name, sizeof devs[*ndevs].name, "%s", strrchr(devdir, '/') + 1);
    (*ndevs)++;
    return 1;
}

int blk_leaf_disks(const char *devdir, struct blkdev *devs, int *ndevs, int max) {
    return leaf(devdir, devs, ndevs, max, 0);
}
