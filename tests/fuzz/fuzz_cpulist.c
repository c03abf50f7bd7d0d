/* fuzz_cpulist.c -- CPU lists as the kernel writes them ("0-3,8,10-11")
 * and as a --sysroot, a cgroup or a container may hand them over:
 * cpuset_parse (common/cpulist.c) for sysfs' cpu/online and node cpulists,
 * cpuset.cpus and Cpus_allowed_list, and proc_status_allowed over the same
 * bytes as a /proc/PID/status file. A list the parser accepts must format
 * back to one it parses to the same set (the kernel's own shortest form),
 * and nothing may be read or written past the set's 8,192 CPUs. */
#include "../../common/cpulist.h"
#include "fuzz.h"

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
    char cpus[256], mems[256];
    const char *path = fuzz_write("status", data, size);
    proc_status_allowed(path, cpus, sizeof cpus, mems, sizeof mems);
    free(text);
    return 0;
}
