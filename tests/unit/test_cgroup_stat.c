/* test_cgroup_stat.c -- the CPU-time readers on fixture trees with exact
 * expected values (tests/fixtures/cgroup-stat: pure v2, v1 cpu,cpuacct seen
 * from a container whose mount root is /lxc/box, and this VM's hybrid with
 * cgroup2 at /sys/fs/cgroup/unified next to a lone cpuacct), then live: a
 * forked child's busy loop seen through /proc/<pid>/stat, in its parent's
 * tree once reaped, and in this process's own cgroup. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../containers/cgroup_stat.h"
#include "unit.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

static char fx[3][1024]; /* v2, v1, hybrid sysroots */

static void fixtures(void) {
    const char *root = getenv("AOPS_ROOT") ? getenv("AOPS_ROOT") : ".";
    const char *names[3] = {"v2", "v1", "hybrid"};
    for (int i = 0; i < 3; i++)
        snprintf(fx[i], sizeof fx[i], "%s/tests/fixtures/cgroup-stat/%s", root, names[i]);
}

static void test_v2(void) {
    const char *r = fx[0];
    char dir[2048], want[2048], why[512] = "";
    struct cpu_time t;
    CHECKF(cgstat_resolve(r, "/aops-stack-minio-9000", dir, sizeof dir, why, sizeof why) == 2, "%s",
           why);
    snprintf(want, sizeof want, "%s/sys/fs/cgroup/aops-stack-minio-9000", r);
    CHECKF(!strcmp(dir, want), "%s", dir);
    CHECK(cgstat_read_dir(dir, &t, why, sizeof why) == 2);
    CHECKF(NEAR(t.total_s, 2.5) && NEAR(t.user_s, 2.0) && NEAR(t.system_s, 0.5), "%f %f %f",
           t.total_s, t.user_s, t.system_s);
    /* the root cgroup: "/" maps to the mount point itself */
    CHECK(cgstat_read(r, "/", &t, why, sizeof why) == 2);
    CHECK(NEAR(t.total_s, 90.0) && NEAR(t.user_s, 60.0) && NEAR(t.system_s, 30.0));

    why[0] = 0;
    CHECK(cgstat_read(r, "/no-such-cgroup", &t, why, sizeof why) == -1);
    CHECKF(strstr(why, "/no-such-cgroup not found under /sys/fs/cgroup") != NULL, "%s", why);
    CHECK(cgstat_read(r, "relative/path", &t, why, sizeof why) == -1);
    CHECKF(strstr(why, "does not start with /") != NULL, "%s", why);
    snprintf(dir, sizeof dir, "%s/sys/fs/cgroup/missing", r);
    CHECK(cgstat_read_dir(dir, &t, why, sizeof why) == -1);
    CHECKF(strstr(why, "No such file") != NULL, "%s", why);
    /* a directory without CPU files (proc/self here) is refused, not read as 0 */
    snprintf(dir, sizeof dir, "%s/proc/self", r);
    CHECK(cgstat_read_dir(dir, &t, why, sizeof why) == -1);
    CHECKF(strstr(why, "neither cpu.stat") != NULL, "%s", why);
    CHECK(cgstat_read("/nonexistent-sysroot", "/x", &t, why, sizeof why) == -1);
    CHECKF(strstr(why, "mountinfo") != NULL, "%s", why);
}

static void test_v1(void) {
    const char *r = fx[1];
    char dir[2048], want[2048], why[512] = "";
    struct cpu_time t;
    /* the mount shows /lxc/box: the host's path for it is stripped */
    CHECKF(cgstat_resolve(r, "/lxc/box/aops-stack-mariadb-3307", dir, sizeof dir, why,
                          sizeof why) == 1,
           "%s", why);
    snprintf(want, sizeof want, "%s/sys/fs/cgroup/cpu,cpuacct/aops-stack-mariadb-3307", r);
    CHECKF(!strcmp(dir, want), "%s", dir);
    /* cpuacct.usage is the total (ns); cpuacct.stat's ticks give the split */
    CHECK(cgstat_read_dir(dir, &t, why, sizeof why) == 1);
    CHECKF(NEAR(t.total_s, 1.23456789), "%.9f", t.total_s);
    CHECKF(NEAR(t.user_s, 100.0 / sysconf(_SC_CLK_TCK)) &&
               NEAR(t.system_s, 23.0 / sysconf(_SC_CLK_TCK)),
           "%f %f", t.user_s, t.system_s);
    /* usage_user/usage_sys (ns) win over the tick-sampled cpuacct.stat, and
     * v1's own cpu.stat (throttling counts) is not mistaken for v2's */
    CHECK(cgstat_read(r, "/aops-stack-minio-9000", &t, why, sizeof why) == 1);
    CHECKF(NEAR(t.total_s, 3.0) && NEAR(t.user_s, 2.25) && NEAR(t.system_s, 0.75), "%f %f %f",
           t.total_s, t.user_s, t.system_s);
    CHECK(cgstat_read(r, "/gone", &t, why, sizeof why) == -1);
    CHECKF(strstr(why, "not found under /sys/fs/cgroup/cpu,cpuacct") != NULL, "%s", why);

    struct machine_time m;
    CHECK(machine_cpu_read(r, &m, why, sizeof why) == 0);
    double hz = (double)sysconf(_SC_CLK_TCK);
    CHECK(NEAR(m.total_s, 1000 / hz) && NEAR(m.busy_s, 200 / hz));
}

static void test_hybrid(void) {
    const char *r = fx[2];
    char dir[2048], want[2048], why[512] = "";
    struct cpu_time t;
    /* present in both: v2's microsecond split wins */
    CHECK(cgstat_resolve(r, "/aops-stack-minio-9000", dir, sizeof dir, why, sizeof why) == 2);
    snprintf(want, sizeof want, "%s/sys/fs/cgroup/unified/aops-stack-minio-9000", r);
    CHECKF(!strcmp(dir, want), "%s", dir);
    CHECK(cgstat_read(r, "/aops-stack-minio-9000", &t, why, sizeof why) == 2);
    CHECK(NEAR(t.total_s, 1.0) && NEAR(t.user_s, 0.6) && NEAR(t.system_s, 0.4));
    /* only in v1: the lone cpuacct mount (not the cpu one) */
    CHECK(cgstat_resolve(r, "/only-v1", dir, sizeof dir, why, sizeof why) == 1);
    snprintf(want, sizeof want, "%s/sys/fs/cgroup/cpuacct/only-v1", r);
    CHECKF(!strcmp(dir, want), "%s", dir);
    CHECK(cgstat_read(r, "/only-v1", &t, why, sizeof why) == 1);
    CHECK(NEAR(t.total_s, 0.5));
    CHECK(cgstat_read(r, "/neither", &t, why, sizeof why) == -1);
    CHECKF(strstr(why, "under /sys/fs/cgroup/unified or /sys/fs/cgroup/cpuacct") != NULL, "%s",
           why);
}

static void test_proc(void) {
    const char *r = fx[0];
    char why[512] = "";
    double hz = (double)sysconf(_SC_CLK_TCK);
    struct cpu_time t;
    /* own time only: utime 300, stime 100; cutime/cstime left out */
    CHECK(pidstat_read(r, 100, 0, &t, why, sizeof why) == 0);
    CHECKF(NEAR(t.user_s, 300 / hz) && NEAR(t.system_s, 100 / hz) && NEAR(t.total_s, 400 / hz),
           "%f %f", t.user_s, t.system_s);
    /* a comm with spaces and parentheses */
    CHECK(pidstat_read(r, 101, 0, &t, why, sizeof why) == 0);
    CHECKF(NEAR(t.user_s, 40 / hz) && NEAR(t.system_s, 20 / hz), "%f %f", t.user_s, t.system_s);
    /* the tree of 100: 100, its child 101 and grandchild 102, plus the
     * children 100 reaped (cutime 20, cstime 10); never 200 or 1 */
    CHECK(pidstat_read(r, 100, 1, &t, why, sizeof why) == 0);
    CHECKF(NEAR(t.user_s, (300 + 20 + 40 + 5) / hz) && NEAR(t.system_s, (100 + 10 + 20 + 5) / hz),
           "%f %f", t.user_s, t.system_s);
    CHECK(NEAR(t.total_s, t.user_s + t.system_s));
    /* a leaf's tree is itself */
    CHECK(pidstat_read(r, 102, 1, &t, why, sizeof why) == 0);
    CHECK(NEAR(t.total_s, 10 / hz));
    CHECK(pidstat_read(r, 4242, 0, &t, why, sizeof why) == -1);
    CHECKF(strstr(why, "pid 4242: no such process") != NULL, "%s", why);

    /* guest time is inside user already: busy 7000, total 20000 ticks */
    struct machine_time m;
    CHECK(machine_cpu_read(r, &m, why, sizeof why) == 0);
    CHECKF(NEAR(m.busy_s, 7000 / hz) && NEAR(m.total_s, 20000 / hz), "%f %f", m.busy_s, m.total_s);
    CHECK(machine_cpu_read(fx[2], &m, why, sizeof why) == -1); /* hybrid fixture: no proc/stat */
    CHECKF(strstr(why, "/proc/stat") != NULL, "%s", why);
}

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Live: a child burns 0.3 s of CPU; its own reading, then the parent's tree
 * once reaped, must show it. */
static void test_live(void) {
    char why[512] = "";
    int p[2];
    if (pipe(p) != 0) {
        CHECK(0);
        return;
    }
    pid_t c = fork();
    if (c == 0) {
        close(p[0]);
        volatile unsigned long x = 0;
        double t0 = cpu_now();
        while (cpu_now() - t0 < 0.3)
            x++;
        if (write(p[1], "x", 1) != 1)
            _exit(1);
        pause(); /* stay alive until read */
        _exit(0);
    }
    close(p[1]);
    char b;
    CHECK(read(p[0], &b, 1) == 1);
    close(p[0]);
    struct cpu_time t, self0, tree0, tree1;
    CHECK(pidstat_read("/", getpid(), 0, &self0, why, sizeof why) == 0);
    CHECK(pidstat_read("/", getpid(), 1, &tree0, why, sizeof why) == 0);
    CHECK(pidstat_read("/", c, 0, &t, why, sizeof why) == 0);
    /* ticks: 0.3 s less at most two ticks of rounding */
    CHECKF(t.total_s >= 0.28 && t.total_s < 1.0, "child total %f", t.total_s);
    /* the tree holds the live child */
    CHECKF(tree0.total_s >= self0.total_s + 0.28, "tree %f self %f", tree0.total_s, self0.total_s);
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    /* reaped: gone as a process, kept in our cutime */
    CHECK(pidstat_read("/", c, 0, &t, why, sizeof why) == -1);
    CHECK(pidstat_read("/", getpid(), 1, &tree1, why, sizeof why) == 0);
    /* (qemu-user answers a process's own /proc/PID/stat with its CPU times,
     * cutime included, 0) */
    if (getenv("AOPS_QEMU_USER"))
        printf("qemu-user: own cutime not emulated: tree after reap %f not checked\n",
               tree1.total_s);
    else
        CHECKF(tree1.total_s >= tree0.total_s - 0.02, "tree after reap %f before %f", tree1.total_s,
               tree0.total_s);

    struct machine_time m0, m1;
    CHECK(machine_cpu_read("/", &m0, why, sizeof why) == 0);
    double t0 = cpu_now();
    volatile unsigned long x = 0;
    while (cpu_now() - t0 < 0.1)
        x++;
    CHECK(machine_cpu_read("/", &m1, why, sizeof why) == 0);
    CHECKF(m1.busy_s - m0.busy_s >= 0.08, "machine busy grew %f", m1.busy_s - m0.busy_s);
    CHECK(m1.total_s > m0.total_s && m1.busy_s <= m1.total_s);

    /* our own cgroup v2, as /proc/self/cgroup names it (this VM and any
     * systemd host have one) */
    char line[1024], path[1024] = "";
    FILE *f = fopen("/proc/self/cgroup", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "0::", 3) == 0)
            sscanf(line + 3, "%1023s", path);
    if (f)
        fclose(f);
    CHECKF(path[0] == '/', "no cgroup2 line in /proc/self/cgroup");
    struct cpu_time g;
    int v = cgstat_read("/", path, &g, why, sizeof why);
    CHECKF(v == 2, "own cgroup %s: %s", path, why);
    CHECKF(g.total_s >= 0.3, "own cgroup %s total %f", path, g.total_s);
}

int main(void) {
    fixtures();
    test_v2();
    test_v1();
    test_hybrid();
    test_proc();
    test_live();
    return unit_done("cgroup_stat");
}
