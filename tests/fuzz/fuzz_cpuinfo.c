/* fuzz_cpuinfo.c -- /proc/cpuinfo under a --sysroot as the inventory reads
 * it (telemetry/inventory.c): processors, their package and core ids, x86's
 * model strings and Arm's MIDR fields, for the physical cores that per-core
 * AOPS divides by. A sysroot may be a tree from another machine or one
 * anyone wrote; whatever it holds, the count is -1 (unknown) or a number
 * of cores no larger than the processors the file lists. */
#include "../../common/config.h"
#include "../../telemetry/telemetry.h"
#include "fuzz.h"

static struct config cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    snprintf(cfg.sysroot, sizeof cfg.sysroot, "%s/root", fuzz_dir());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_mkdirs("root/proc");
    fuzz_write("root/proc/cpuinfo", data, size);
    int cores = inventory_physical_cores(&cfg);
    /* The reference: every "processor" in the bytes, counted here (each
     * processor line the reader counts holds one). */
    int procs = 0;
    for (const uint8_t *p = data; (p = memmem(p, size - (size_t)(p - data), "processor", 9)); p++)
        procs++;
    if (cores == 0 || cores < -1 || cores > procs)
        abort();
    return 0;
}
