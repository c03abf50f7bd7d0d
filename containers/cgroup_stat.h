/* cgroup_stat.h -- CPU time of a cgroup, of a process (or its process tree)
 * and of the whole machine: the readers behind CPU attribution (MinIO,
 * MariaDB, the workers, the coordinator, "other" = machine busy minus those).
 *
 * Every reader takes a sysroot ("/" on a live system) so tests can point it
 * at a fixture tree, as the telemetry readers do. Readings are cumulative
 * since the cgroup or process was born: take one at each window edge and
 * subtract (cpu_time_sub). */
#ifndef AOPS_CGROUP_STAT_H
#define AOPS_CGROUP_STAT_H

#include <stddef.h>
#include <sys/types.h>

struct cpu_time {
    double user_s, system_s;
    /* The exact total. On v2 and with /proc it equals user + system; on v1,
     * cpuacct.usage is exact while a cpuacct.stat split is sampled at ticks,
     * so the two can differ by a few ticks. Attribution uses total_s. */
    double total_s;
};

/* b - a, field by field. */
struct cpu_time cpu_time_sub(const struct cpu_time *b, const struct cpu_time *a);

/* The directory holding the CPU files of a cgroup given by its path inside
 * its hierarchy ("/aops-stack-minio-9000", as /proc/PID/cgroup prints it):
 * under the cgroup2 mount when that directory exists there with a cpu.stat
 * carrying usage_usec, else under the v1 hierarchy that carries cpuacct.
 * Mounts come from <sysroot>/proc/self/mountinfo. Returns 2 (v2) or 1 (v1)
 * with dir set (under sysroot); -1 with why set. */
int cgstat_resolve(const char *sysroot, const char *cgpath, char *dir, size_t dirlen, char *why,
                   size_t whylen);

/* CPU time of the cgroup whose directory is dir (an absolute directory, as
 * scripts/stack records in $AOPS_STACK_DIR/<server>/cgroup). v2: cpu.stat's
 * usage_usec, user_usec, system_usec. v1: cpuacct.usage (ns) for the total,
 * cpuacct.usage_user/usage_sys (ns) for the split when present, else
 * cpuacct.stat (USER_HZ ticks). Returns 2 or 1 for the version read, -1
 * with why set. */
int cgstat_read_dir(const char *dir, struct cpu_time *out, char *why, size_t whylen);

/* cgstat_resolve + cgstat_read_dir. */
int cgstat_read(const char *sysroot, const char *cgpath, struct cpu_time *out, char *why,
                size_t whylen);

/* CPU time of process pid (all its threads, live and exited) from
 * <sysroot>/proc/<pid>/stat. With tree set: also every live descendant and
 * what each member of the tree has collected from children it reaped
 * (cutime/cstime), so a child that exited and was waited for still counts.
 * 0, or -1 with why set ("pid 12: no such process"). */
int pidstat_read(const char *sysroot, pid_t pid, int tree, struct cpu_time *out, char *why,
                 size_t whylen);

/* The machine's CPU time summed over all CPUs, from <sysroot>/proc/stat. */
struct machine_time {
    double busy_s;  /* everything but idle, iowait and steal */
    double total_s; /* busy + idle + iowait + steal: wall time x online CPUs */
    double steal_s; /* time a hypervisor gave to someone else (not in busy_s) */
};

int machine_cpu_read(const char *sysroot, struct machine_time *out, char *why, size_t whylen);

#endif
