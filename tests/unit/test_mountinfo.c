/* test_mountinfo.c -- the shared mountinfo and /proc/PID/cgroup parsers:
 * fields around optional tags, \ooo escapes in paths, lines that do not
 * parse skipped, comma and space separated word lists, a process's cgroup
 * for v1 controllers and cgroup2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/mountinfo.h"
#include "unit.h"

static FILE *text(const char *s) {
    return fmemopen((void *)s, strlen(s), "r");
}

static void test_entries(void) {
    FILE *f = text(
        "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
        "garbage without a separator\n"
        "30 22 0:26 / /sys/fs/cgroup/memory rw,nosuid shared:9 master:2 - cgroup cgroup rw,memory\n"
        "31 22 0:27 /docker/abc /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw,nsdelegate\n"
        "40 22 8:2 /a\\040b /mnt/with\\040space\\134x rw - xfs /dev/sd\\011b rw\n");
    struct mount_entry e;
    CHECK(mountinfo_next(f, &e) == 1);
    CHECK(strcmp(e.point, "/") == 0 && strcmp(e.fstype, "ext4") == 0 && e.major == 8 &&
          e.minor == 1);
    CHECK(strcmp(e.source, "/dev/sda1") == 0 && strcmp(e.opts, "rw,errors=remount-ro") == 0);
    CHECK(mountinfo_next(f, &e) == 1); /* the garbage line skipped */
    CHECK(strcmp(e.point, "/sys/fs/cgroup/memory") == 0 && strcmp(e.fstype, "cgroup") == 0);
    CHECK(list_has_word(e.opts, "memory") && !list_has_word(e.opts, "mem"));
    CHECK(mountinfo_next(f, &e) == 1);
    CHECK(strcmp(e.root, "/docker/abc") == 0 && strcmp(e.fstype, "cgroup2") == 0);
    CHECK(mountinfo_next(f, &e) == 1);
    CHECK(strcmp(e.root, "/a b") == 0);
    CHECK(strcmp(e.point, "/mnt/with space\\x") == 0);
    CHECK(strcmp(e.source, "/dev/sd\tb") == 0);
    CHECK(mountinfo_next(f, &e) == 0);
    fclose(f);
}

static void test_words(void) {
    CHECK(list_has_word("cpu,cpuacct", "cpu"));
    CHECK(list_has_word("cpu,cpuacct", "cpuacct"));
    CHECK(!list_has_word("cpuacct", "cpu"));
    CHECK(list_has_word("cpuset cpu io memory\n", "memory"));
    CHECK(!list_has_word("cpuset cpu io memory", "mem"));
    CHECK(!list_has_word("memory", ""));
}

static void test_cgroup_file(void) {
    char path[] = "/tmp/aops-test-cgroup.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("12:cpu,cpuacct:/user.slice\n4:memory:/user.slice/session-1\n0::/user.slice/session-2\n",
          f);
    fclose(f);
    char out[256];
    proc_cgroup_path(path, "memory", out, sizeof out);
    CHECK(strcmp(out, "/user.slice/session-1") == 0);
    proc_cgroup_path(path, "cpuacct", out, sizeof out);
    CHECK(strcmp(out, "/user.slice") == 0);
    proc_cgroup_path(path, "", out, sizeof out);
    CHECK(strcmp(out, "/user.slice/session-2") == 0);
    proc_cgroup_path(path, "perf_event", out, sizeof out);
    CHECK(strcmp(out, "/") == 0);
    remove(path);
    proc_cgroup_path(path, "", out, sizeof out);
    CHECK(strcmp(out, "/") == 0);
}

int main(void) {
    test_entries();
    test_words();
    test_cgroup_file();
    return unit_done("test_mountinfo");
}
