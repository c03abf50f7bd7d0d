/* fuzz_meminfo.c -- meminfo as the --sysroot readers take it: /proc/meminfo
 * and a NUMA node's node0/meminfo (topology_read, for the node's memory and
 * the machine's), through the shared MemTotal parse (fs_meminfo_total). A
 * sysroot may come from another machine or a fixture anyone wrote. Input:
 * /proc/meminfo, FUZZ_SPLIT, node0/meminfo (no node directory when empty).
 * A total must be what the text says, in bytes, never an overflowed one. */
#include <limits.h>

#include "../../common/fsread.h"
#include "../../telemetry/topology.h"
#include "fuzz.h"

static char root[128];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    snprintf(root, sizeof root, "%s/root", fuzz_dir());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *part[2];
    size_t len[2];
    fuzz_split(data, size, 2, part, len);
    char *text = fuzz_cstr(part[0], len[0]);
    int64_t b;
    if (fs_meminfo_total(text, &b) == 0) {
        /* The reference: the digits after "MemTotal:" on its line, read here. */
        const char *m = strstr(text, "MemTotal:") + 9;
        uint64_t kib = 0;
        while (*m == ' ' || *m == '\t')
            m++;
        if (*m < '0' || *m > '9')
            abort(); /* a total from no digits (a sign, the next line) */
        for (; *m >= '0' && *m <= '9'; m++) {
            if (kib > (uint64_t)INT64_MAX / 10)
                abort(); /* accepted past what fits */
            kib = kib * 10 + (uint64_t)(*m - '0');
        }
        if (b < 0 || (uint64_t)b != kib * 1024ULL)
            abort();
    }
    free(text);
    fuzz_mkdirs("root/proc");
    fuzz_mkdirs("root/sys/devices/system/cpu");
    fuzz_write("root/sys/devices/system/cpu/online", "0\n", 2);
    fuzz_write("root/proc/meminfo", part[0], len[0]);
    char node[256];
    snprintf(node, sizeof node, "%s/sys/devices/system/node", root);
    if (len[1]) {
        fuzz_mkdirs("root/sys/devices/system/node/node0");
        fuzz_write("root/sys/devices/system/node/node0/meminfo", part[1], len[1]);
    } else {
        char f[300];
        snprintf(f, sizeof f, "%s/node0/meminfo", node);
        unlink(f);
        snprintf(f, sizeof f, "%s/node0", node);
        rmdir(f);
    }
    char err[512];
    struct topology *t = topology_read(root, err, sizeof err);
    if (t) {
        for (int i = 0; i < t->nnodes; i++)
            if (t->nodes[i].mem_bytes < -1)
                abort();
        topology_free(t);
    }
    return 0;
}
