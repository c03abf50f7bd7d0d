/* test_fsread.c -- what the --sysroot readers must survive, found by the
 * fuzz targets and a review of them (tests/fuzz/fuzz_{meminfo,cpuinfo}.c):
 * a FIFO where a /proc or /sys file should be (the open used to block for
 * ever: an alarm fails the test instead), a MemTotal past INT64_MAX bytes
 * and a negative cache size (both undefined arithmetic before, which UBSan
 * stops on), each against values worked out here. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/fsread.h"
#include "../../telemetry/topology.h"
#include "unit.h"

static char root[64];

static void put(const char *rel, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s%s", root, rel);
    for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(p, 0700);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_fifo(void) {
    char p[512], buf[64];
    put("/proc/placeholder", "");
    snprintf(p, sizeof p, "%s/proc/meminfo", root);
    CHECK(mkfifo(p, 0600) == 0);
    alarm(10); /* a reader that waits for a writer never returns: SIGALRM ends the test */
    CHECK(fs_read_str(p, buf, sizeof buf) == -1);
    CHECK(fs_fopen(p) == NULL);
    /* /dev/zero never ends: refused too. */
    CHECK(fs_fopen("/dev/zero") == NULL);
    CHECK(fs_read_str("/dev/null", buf, sizeof buf) == -1);
    alarm(0);
    unlink(p);
    /* A regular file still reads. */
    put("/proc/meminfo", "MemTotal:       16318164 kB\nMemFree: 1 kB\n");
    CHECK(fs_read_str(p, buf, sizeof buf) > 0 && !strncmp(buf, "MemTotal:", 9));
    FILE *f = fs_fopen(p);
    CHECK(f != NULL);
    if (f)
        fclose(f);
}

static void test_meminfo(void) {
    int64_t b = 0;
    CHECK(fs_meminfo_total("MemTotal:       16318164 kB\n", &b) == 0 && b == 16318164LL * 1024);
    CHECK(fs_meminfo_total("Node 0 MemTotal:        8058628 kB\n", &b) == 0 &&
          b == 8058628LL * 1024);
    /* 2^53 kB = 2^63 bytes: one past INT64_MAX. */
    CHECK(fs_meminfo_total("MemTotal: 9007199254740992 kB\n", &b) == -1);
    CHECK(fs_meminfo_total("MemTotal: 9007199254740991 kB\n", &b) == 0 &&
          b == 9007199254740991LL * 1024);
    CHECK(fs_meminfo_total("MemFree: 1 kB\n", &b) == -1);
    /* Found by fuzz_meminfo: a sign, or digits on the next line, were taken
     * ("-0" as 0 bytes); the kernel writes neither. */
    CHECK(fs_meminfo_total("MemTotal:  \n-0 kB\n", &b) == -1);
    CHECK(fs_meminfo_total("MemTotal: -0 kB\n", &b) == -1);
    CHECK(fs_meminfo_total("MemTotal:\n5 kB\n", &b) == -1);
    CHECK(fs_meminfo_total("MemTotal:\t7 kB\n", &b) == 0 && b == 7 * 1024);
}

/* A one-CPU sysroot whose meminfo and L3 size are out of range: the
 * topology reads, with both unknown (-1), not wrapped. */
static void test_topology(void) {
    put("/sys/devices/system/cpu/online", "0\n");
    put("/sys/devices/system/cpu/cpu0/topology/physical_package_id", "0\n");
    put("/sys/devices/system/cpu/cpu0/topology/core_id", "0\n");
    put("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0\n");
    put("/sys/devices/system/cpu/cpu0/cache/index3/level", "3\n");
    put("/sys/devices/system/cpu/cpu0/cache/index3/type", "Unified\n");
    put("/sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", "0\n");
    put("/sys/devices/system/cpu/cpu0/cache/index3/id", "0\n");
    put("/sys/devices/system/cpu/cpu0/cache/index3/size", "-1K\n");
    put("/proc/meminfo", "MemTotal: 18014398509481984 kB\n");
    char err[512];
    struct topology *t = topology_read(root, err, sizeof err);
    CHECKF(t != NULL, "%s", err);
    if (!t)
        return;
    CHECK(t->nnodes == 1 && t->nodes[0].mem_bytes == -1);
    CHECK(t->nl3 == 1 && t->l3s[0].size_bytes == -1);
    topology_free(t);
    /* In range: the values themselves. */
    put("/sys/devices/system/cpu/cpu0/cache/index3/size", "32768K\n");
    put("/proc/meminfo", "MemTotal:       16318164 kB\n");
    t = topology_read(root, err, sizeof err);
    CHECK(t && t->nodes[0].mem_bytes == 16318164LL * 1024 &&
          t->l3s[0].size_bytes == 32768LL * 1024);
    topology_free(t);
}

int main(void) {
    snprintf(root, sizeof root, "/tmp/aops-test-fsread.XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    test_fifo();
    test_meminfo();
    test_topology();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    return unit_done("fsread");
}
