/* cpulist.h -- sets of CPUs (or NUMA nodes) as the kernel writes them:
 * "0-3,8,10-11" lists (sysfs *_list files, cpuset.cpus, /proc/PID/status
 * Cpus_allowed_list) and "003f0000,0000003f" hex masks (sysfs *_map and
 * *_cpus files, nodeN/cpumap: the files lscpu reads), held as a fixed
 * bitmap so the topology, the placement and the cgroup layer pass them
 * around by value without allocating.
 *
 * CPUSET_MAX bounds the CPU (and node) numbers: 8,192, as Linux's
 * CONFIG_NR_CPUS on the largest distribution kernels. */
#ifndef AOPS_CPULIST_H
#define AOPS_CPULIST_H

#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX 8192
#define CPUSET_WORDS (CPUSET_MAX / 64)

struct cpuset {
    uint64_t w[CPUSET_WORDS];
};

static inline void cpuset_zero(struct cpuset *s) {
    for (int i = 0; i < CPUSET_WORDS; i++)
        s->w[i] = 0;
}
static inline int cpuset_has(const struct cpuset *s, int cpu) {
    return cpu >= 0 && cpu < CPUSET_MAX && (s->w[cpu / 64] >> (cpu % 64) & 1);
}
static inline void cpuset_add(struct cpuset *s, int cpu) {
    if (cpu >= 0 && cpu < CPUSET_MAX)
        s->w[cpu / 64] |= 1ULL << (cpu % 64);
}

int cpuset_count(const struct cpuset *s);
int cpuset_empty(const struct cpuset *s);
int cpuset_equal(const struct cpuset *a, const struct cpuset *b);
/* 1 when a and b share a member. */
int cpuset_intersects(const struct cpuset *a, const struct cpuset *b);
/* 1 when every member of a is in b. */
int cpuset_subset(const struct cpuset *a, const struct cpuset *b);
void cpuset_or(struct cpuset *dst, const struct cpuset *src);
void cpuset_andnot(struct cpuset *dst, const struct cpuset *src);
/* The lowest member, or -1; the next member after cpu, or -1. */
int cpuset_first(const struct cpuset *s);
int cpuset_next(const struct cpuset *s, int cpu);

/* Parse "0-3,8,10-11" (whitespace around it and a trailing newline are
 * allowed; "" is the empty set). 0, or -1 on anything else (a number past
 * CPUSET_MAX, a reversed range, stray characters). */
int cpuset_parse(const char *text, struct cpuset *out);

/* Parse a hex mask as the kernel prints a bitmap ("%*pb"): 32-bit words of
 * 1 to 8 hex digits, the most significant first, separated by commas
 * ("0000,55555555,55555555" is every even CPU of 0-62); whitespace around
 * it and a trailing newline are allowed. Any number of words, as the
 * kernel pads to its nr_cpu_ids, but at most CPUSET_MAX_MASK characters
 * (a sysfs page), and no set bit at or past CPUSET_MAX. 0, or -1 on
 * anything else (an empty word, a word of 9 digits, "0x", stray
 * characters, "" or only whitespace): a mask that cannot be read is no
 * set, never a partial one. */
#define CPUSET_MAX_MASK 4096
int cpuset_parse_mask(const char *text, struct cpuset *out);

/* The shortest list, "0-3,8,10-11" ("" for the empty set). Returns out;
 * a list that does not fit ends in "..." (len >= 4). */
char *cpuset_format(const struct cpuset *s, char *out, size_t len);

/* Cpus_allowed_list and Mems_allowed_list of a /proc/PID/status file (the
 * kernel's own answer of where a task may run and allocate). 0, or -1 when
 * the file or either line is missing. */
int proc_status_allowed(const char *status_path, char *cpus, size_t cpus_len, char *mems,
                        size_t mems_len);

#endif
