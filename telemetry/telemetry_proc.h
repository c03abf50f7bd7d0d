/* telemetry_proc.h -- CPU and block-device readers behind the sampler.
 *
 * Parsers take text so tests can feed them exact bytes; resolvers take a
 * sysroot so tests can feed them fixture trees. The sample path only calls
 * the parsers, on buffers the sampler owns. */
#ifndef AOPS_TELEMETRY_PROC_H
#define AOPS_TELEMETRY_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "../common/fsread.h" /* struct cpu_times, cpu_parse_stat */

/* Busy share between two readings in percent (0-100), or NAN when no time
 * passed. */
double cpu_util_pct(const struct cpu_times *a, const struct cpu_times *b);

/* Steal share between two readings in percent of all CPU time, or NAN. */
double cpu_steal_pct(const struct cpu_times *a, const struct cpu_times *b);

#define BLK_MAX_DEVS 32
#define TEL_MAX_DATA_PATHS 32 /* per workload: a MinIO of many drives */

struct blkdev {
    unsigned major, minor;
    char name[64];
};

/* Counters of /proc/diskstats summed over the tracked devices. Sectors are
 * always 512 bytes there, whatever the device's block size. */
struct disk_counters {
    uint64_t rd_ios, rd_sectors, wr_ios, wr_sectors;
};

/* Sum the counters of devs[] from diskstats text. Returns how many of the
 * devices were found: the sum is only meaningful when that equals ndevs. */
int diskstats_parse(const char *buf, const struct blkdev *devs, int ndevs,
                    struct disk_counters *sum);

/* Find the mount holding path in <sysroot>/proc/self/mountinfo (longest
 * mount point prefix, the last of equal ones) and its device directory under
 * <sysroot>/sys. Returns 0 and devdir (a real path) on success; -1 with a
 * reason ("tmpfs has no block device") otherwise. */
int mount_devdir(const char *sysroot, const char *path, char *devdir, size_t devdir_size,
                 char *reason, size_t reason_size);

/* Add the physical whole disks behind devdir to devs[] (each once):
 * partitions map to their disk, device-mapper and md to their slaves,
 * recursively. Returns how many were added, -1 on error. */
int blk_leaf_disks(const char *devdir, struct blkdev *devs, int *ndevs, int max);

#endif
