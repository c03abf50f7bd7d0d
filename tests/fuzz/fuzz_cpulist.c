/* fuzz_cpulist.c -- CPU lists as the kernel writes them ("0-3,8,10-11")
 * and as a --sysroot, a cgroup or a container may hand them over:
 * cpuset_parse (common/cpulist.c) for sysfs' cpu/online and node cpulists,
 * cpuset.cpus and Cpus_allowed_list, and proc_status_allowed over the same
 * bytes as a /proc/PID/status file. A list the parser accepts must format
 * back to one it parses to the same set (the kernel's own shortest form),
 * and nothing may be read or written past the set's 8,192 CPUs.
 *
 * The same bytes as a hex mask (cpuset_parse_mask: nodeN/cpumap,
 * thread_siblings, shared_cpu_map, the files lscpu reads): a mask it
 * accepts must print back, as the kernel prints one, to a mask it parses
 * to the same set; one it refuses leaves the set empty. */
#include "../../common/cpulist.h"
#include "fuzz.h"

/* The set as the kernel prints a bitmap of CPUSET_MAX bits: 32-bit words,
 * the highest first, all of 8 digits. */
static void mask_format(const struct cpuset *s, char *out) {
    size_t o = 0;
    for (int w = CPUSET_MAX / 32 - 1; w >= 0; w--) {
        unsigned v = (unsigned)(s->w[w / 2] >> (w % 2 * 32));
        o += (size_t)sprintf(out + o, w ? "%08x," : "%08x", v);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_cstr(data, size);
    struct cpuset s, back;
    if (cpuset_parse(text, &s) == 0) {
        static char out[CPUSET_MAX * 6];
        cpuset_format(&s, out, sizeof out);
        if (cpuset_parse(out, &back) != 0 || !cpuset_equal(&s, &back))
            abort(); /* the formatted list is not the set it came from */
        int n = 0;
        for (int c = cpuset_first(&s); c >= 0; c = cpuset_next(&s, c))
            n++;
        if (n != cpuset_count(&s))
            abort();
    }
    struct cpuset m, mback;
    cpuset_add(&m, 5);
    if (cpuset_parse_mask(text, &m) == 0) {
        static char out[CPUSET_MAX / 32 * 9 + 1];
        mask_format(&m, out);
        if (cpuset_parse_mask(out, &mback) != 0 || !cpuset_equal(&m, &mback))
            abort(); /* the kernel's form of the set is not the set */
    } else if (!cpuset_empty(&m))
        abort(); /* a refused mask must be no set, not a part of one */
    char cpus[256], mems[256];
    const char *path = fuzz_write("status", data, size);
    proc_status_allowed(path, cpus, sizeof cpus, mems, sizeof mems);
    free(text);
    return 0;
}
