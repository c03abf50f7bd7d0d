/* test_attrib.c -- CPU attribution and its pieces without a run:
 *
 * - where the workers' accounting cgroups go, from the fixture mountinfo and
 *   /proc/PID/cgroup files of tests/fixtures/cgroup (hybrid, pure v2, v1
 *   cpu,cpuacct with and without a CPU limit);
 * - how a workload finds its server from the stack's state: a remote host is
 *   "not on this host", a stack serving another port is not taken for it,
 *   no state says how to point at the server;
 * - --server-cgroup / --server-pid checked before a run;
 * - the attribution object on live readers: windows cut at their edge
 *   samples, every component or its reason, other = the machine's busy time
 *   less steal less the rest, and counters that the kernel refuses
 *   (EACCES, injected) reported as eacces with the paranoid level's fix. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../common/json.h"
#include "../../containers/cgroup_acct.h"
#include "../../coordinator/cmdline.h"
#include "../../result/result.h"
#include "../../telemetry/attrib.h"
#include "../../workloads/stack_state.h"
#include "unit.h"

static char root[1024];

static void test_plan(void) {
    char mi[1200], cg[1200], base[4096], why[256];
    /* this VM: memory v1, cgroup2 at /sys/fs/cgroup/unified */
    snprintf(mi, sizeof mi, "%s/tests/fixtures/cgroup/hybrid.mountinfo", root);
    snprintf(cg, sizeof cg, "%s/tests/fixtures/cgroup/hybrid.cgroup", root);
    int k = cgacct_plan(mi, cg, CG_V1, 0, base, sizeof base, why, sizeof why);
    CHECKF(k == 2 && !strncmp(base, "/sys/fs/cgroup/unified", 22), "%d %s %s", k, base, why);
    /* a CPU limit does not change that: cgroup2 is a hierarchy of its own */
    CHECK(cgacct_plan(mi, cg, CG_V1, 1, base, sizeof base, why, sizeof why) == 2);
    /* pure v2: the workers' own cgroups have cpu.stat */
    snprintf(mi, sizeof mi, "%s/tests/fixtures/cgroup/v2.mountinfo", root);
    snprintf(cg, sizeof cg, "%s/tests/fixtures/cgroup/v2.cgroup", root);
    CHECK(cgacct_plan(mi, cg, CG_V2, 0, base, sizeof base, why, sizeof why) == 0 && !base[0]);
    /* v1 with cpu,cpuacct together: an accounting cgroup there, unless a CPU
     * limit already put the worker in that hierarchy */
    snprintf(mi, sizeof mi, "%s/tests/fixtures/cgroup/v1-cpuacct.mountinfo", root);
    snprintf(cg, sizeof cg, "%s/tests/fixtures/cgroup/v1-cpuacct.cgroup", root);
    k = cgacct_plan(mi, cg, CG_V1, 0, base, sizeof base, why, sizeof why);
    CHECKF(k == 1 && strstr(base, "cpuacct") != NULL, "%d %s %s", k, base, why);
    CHECK(cgacct_plan(mi, cg, CG_V1, 1, base, sizeof base, why, sizeof why) == 0);
    CHECK(cgacct_plan("/nonexistent/mountinfo", cg, CG_V1, 0, base, sizeof base, why, sizeof why) ==
          -1);
    CHECKF(strstr(why, "/nonexistent/mountinfo") != NULL, "%s", why);
}

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_locate(struct config *cfg, const char *sd) {
    struct wl_server s;
    char p[1200];
    CHECK(host_is_local("127.0.0.1") && host_is_local("localhost") && host_is_local("[::1]") &&
          host_is_local("::1"));
    CHECK(!host_is_local("192.0.2.1") && !host_is_local("no-such-host.invalid"));

    CHECK(stack_server_locate(cfg, "minio", "minio.pid", "192.0.2.1", 9000, &s) == -1);
    CHECKF(!strcmp(s.unavailable, "not on this host (192.0.2.1)"), "%s", s.unavailable);
    CHECK(stack_server_locate(cfg, "minio", "minio.pid", "127.0.0.1", 9000, &s) == -1);
    CHECKF(strstr(s.unavailable, "not started by scripts/stack") &&
               strstr(s.unavailable, "--server-cgroup minio=PATH"),
           "%s", s.unavailable);

    snprintf(p, sizeof p, "%s/minio", sd);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/minio/cgroup", sd);
    put(p, "/sys/fs/cgroup/unified/aops-stack-minio-9100\n");
    CHECK(stack_server_locate(cfg, "minio", "minio.pid", "127.0.0.1", 9000, &s) == -1);
    CHECKF(strstr(s.unavailable, "serves port 9100, this run uses 9000") != NULL, "%s",
           s.unavailable);
    CHECK(stack_server_locate(cfg, "minio", "minio.pid", "127.0.0.1", 9100, &s) == 0);
    CHECK(!strcmp(s.cgroup, "/sys/fs/cgroup/unified/aops-stack-minio-9100") && !s.perf_cgroup[0]);

    /* no cgroup (none could be made): the pid file's live process */
    unlink(p);
    snprintf(p, sizeof p, "%s/minio/minio.pid", sd);
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    put(p, pid);
    CHECK(stack_server_locate(cfg, "minio", "minio.pid", NULL, 0, &s) == 0 && s.pid == getpid());
    unlink(p);
    CHECK(stack_server_locate(cfg, "minio", "minio.pid", NULL, 0, &s) == -1);
    CHECKF(strstr(s.unavailable, "no live pid") != NULL, "%s", s.unavailable);
}

static void test_overrides(struct config *cfg) {
    char err[1024];
    CHECK(attrib_check_overrides(cfg, err, sizeof err) == 0);
    CHECK(options_set(cfg, "server-pid", "mariadb=2147483000", err, sizeof err) == 0);
    CHECK(attrib_check_overrides(cfg, err, sizeof err) == -1);
    CHECKF(!strcmp(err, "--server-pid mariadb=2147483000: no such process"), "%s", err);
    CHECK(options_set(cfg, "server-pid", "mariadb=1", err, sizeof err) == 0);
    CHECK(options_set(cfg, "server-cgroup", "minio=/no/such/cgroup", err, sizeof err) == 0);
    CHECK(attrib_check_overrides(cfg, err, sizeof err) == -1);
    CHECKF(strstr(err, "--server-cgroup minio=/no/such/cgroup: ") == err, "%s", err);
    CHECK(options_set(cfg, "server-pid", "minio", err, sizeof err) == -1);
    CHECKF(strstr(err, "expected NAME=PID") != NULL, "%s", err);
    cfg->nserver_over = 0;
}

/* perf_event_open refusing everything, as with kernel.perf_event_paranoid
 * above what the harness may do. */
static int deny_open(struct perf_event_attr *a, pid_t pid, int cpu, int g, unsigned long fl,
                     void *arg) {
    (void)a, (void)pid, (void)cpu, (void)g, (void)fl, (void)arg;
    errno = EACCES;
    return -1;
}

/* Burn s seconds of this process's CPU (not wall time: the machine may be busy). */
static void spin(double s) {
    struct timespec t0, t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x += (unsigned long)i;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < s);
}

static int64_t mono(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* What results.c does with attrib_results()'s values: the result layer places them. */
static void place(const struct attrib *a, json_t *res) {
    struct attrib_json o;
    attrib_results(a, res, &o);
    result_put(res, RK_ATTRIBUTION, o.attribution, NULL);
    result_put(res, RK_ATTRIBUTION_UNAVAILABLE, o.unavailable, NULL);
    result_put(res, RK_ATTRIBUTION_SOURCES, o.sources, NULL);
    result_put(res, RK_COUNTERS, o.counters, NULL);
    result_put(res, RK_COUNTERS_UNAVAILABLE, o.counters_unavailable, NULL);
}

static void test_attrib(struct config *cfg) {
    char err[256];
    /* MinIO from a fixture cgroup (fixed figures), MariaDB this process. */
    char dir[1200], arg[1300];
    snprintf(dir, sizeof dir,
             "%s/tests/fixtures/cgroup-stat/v2/sys/fs/cgroup/aops-stack-minio-9000", root);
    snprintf(arg, sizeof arg, "minio=%s", dir);
    CHECK(options_set(cfg, "server-cgroup", arg, err, sizeof err) == 0);
    snprintf(arg, sizeof arg, "mariadb=%d", (int)getpid());
    CHECK(options_set(cfg, "server-pid", arg, err, sizeof err) == 0);

    struct pc_sys deny = {.open = deny_open};
    struct attrib_in in = {
        .cfg = cfg, .acct = NULL, .acct_why = "--no-cgroups: none", .pc_sys = &deny};
    struct attrib *a = attrib_new(&in);
    CHECK(a != NULL);
    if (!a)
        return;
    attrib_open_coordinator(a);
    int64_t t0 = mono();
    attrib_begin(a, t0);
    spin(0.05);
    attrib_sample(a, t0 + 100000000); /* t = 0.1 */
    spin(0.05);
    attrib_sample(a, t0 + 200000000);
    spin(0.05);
    attrib_sample(a, t0 + 300000000);
    attrib_sample(a, t0 + 250000000); /* back in time: ignored */

    json_t *res = json_pack("{s:{s:i}, s:{s:{s:f, s:f}, s:{s:f, s:f, s:[{s:f, s:f}, {s:f, s:f}]}},"
                            " s:{s:{s:i}, s:{s:i}}, s:[], s:{s:f}}",
                            "totals", "ops", 30, "windows", "w", "start", 0.15, "end", 0.19, "v",
                            "start", 0.02, "end", 0.28, "intervals", "start", 0.02, "end", 0.08,
                            "start", 0.22, "end", 0.28, "workloads", "w", "ops", 10, "v", "ops", 20,
                            "warnings", "config", "sample_interval", 0.1);
    place(a, res);
    /* v's two intervals (one per cycle) are cut at the samples 0-0.1 and
     * 0.2-0.3: the middle tenth, w's, is not in it, so v and w make the run. */
    CHECKF(fabs(jnum(res, "attribution.v.machine.cpu_s") +
                jnum(res, "attribution.w.machine.cpu_s") -
                jnum(res, "attribution.run.machine.cpu_s")) < 1e-9,
           "v %f + w %f vs run %f", jnum(res, "attribution.v.machine.cpu_s"),
           jnum(res, "attribution.w.machine.cpu_s"), jnum(res, "attribution.run.machine.cpu_s"));
    CHECK(jnum(res, "attribution.v.intervals") == 2);
    /* The 0.04 s window is shorter than two samples of 0.1 s: the hint is
     * a shorter interval than the one in use. */
    const char *sw = NULL;
    for (size_t wi = 0; wi < json_array_size(json_object_get(res, "warnings")); wi++) {
        const char *x = json_string_value(json_array_get(json_object_get(res, "warnings"), wi));
        if (x && strstr(x, "the w window"))
            sw = x;
    }
    CHECKF(sw &&
               strstr(sw, "the w window is shorter than two samples of --sample-interval 0.1 s") &&
               strstr(sw, "(lower --sample-interval, e.g. 0.05)"),
           "%s", sw ? sw : "(no warning)");
    /* At the shortest interval the option takes there is none to suggest. */
    json_t *res2 = json_pack("{s:{s:i}, s:{s:{s:f, s:f}}, s:{s:{s:i}}, s:[], s:{s:f}}", "totals",
                             "ops", 30, "windows", "w", "start", 0.15, "end", 0.19, "workloads",
                             "w", "ops", 10, "warnings", "config", "sample_interval", 0.05);
    place(a, res2);
    sw = json_string_value(json_array_get(json_object_get(res2, "warnings"), 0));
    CHECKF(sw && strstr(sw, "0.05 s is the shortest --sample-interval") && !strstr(sw, "e.g."),
           "%s", sw ? sw : "(no warning)");
    json_decref(res2);
    /* the window is cut at the samples around it: 0.1 to 0.2 */
    CHECK(fabs(jnum(res, "attribution.w.sampled_from") - 0.1) < 1e-9);
    CHECK(fabs(jnum(res, "attribution.w.sampled_to") - 0.2) < 1e-9);
    CHECK(fabs(jnum(res, "attribution.run.sampled_to") - 0.3) < 1e-9);
    CHECK(jnum(res, "attribution.run.ops") == 30 && jnum(res, "attribution.w.ops") == 10);
    /* the fixture cgroup does not move: 0, which is a reading, not a gap */
    CHECK(jnum(res, "attribution.run.minio.cpu_s") == 0);
    CHECK(jnum(res, "attribution.run.minio.share") == 0);
    /* this process spun ~0.15 s as "mariadb" and as "coordinator" (qemu-user
     * answers a process's own /proc/PID/stat with its CPU times 0) */
    double me = jnum(res, "attribution.run.mariadb.cpu_s");
    double co = jnum(res, "attribution.run.coordinator.cpu_s");
    if (getenv("AOPS_QEMU_USER"))
        printf("qemu-user: this process's own CPU time is not emulated: %f %f not checked\n", me,
               co);
    else {
        CHECKF(me > 0.11 && me < 0.5, "%f", me);
        CHECKF(fabs(co - me) < 0.03, "%f %f", co, me);
    }
    CHECKF(fabs(jnum(res, "attribution.w.mariadb.cpu_s_per_op") -
                jnum(res, "attribution.w.mariadb.cpu_s") / 10) < 1e-12,
           "per op");
    /* workers: null with the reason, never 0 */
    CHECK(json_is_null(jget(res, "attribution.run.workers")));
    CHECKF(jstr(res, "attribution_unavailable.workers") &&
               !strcmp(jstr(res, "attribution_unavailable.workers"), "--no-cgroups: none"),
           "%s", jstr(res, "attribution_unavailable.workers"));
    /* The machine's busy time holds no steal: busy + steal fit in all the
     * CPU time (the fixture test in test_cgroup_stat.c works it by hand). */
    CHECKF(jnum(res, "attribution.run.machine.busy_s") +
                   jnum(res, "attribution.run.machine.steal_s") <=
               jnum(res, "attribution.run.machine.cpu_s") + 1e-6,
           "busy %f steal %f total %f", jnum(res, "attribution.run.machine.busy_s"),
           jnum(res, "attribution.run.machine.steal_s"),
           jnum(res, "attribution.run.machine.cpu_s"));
    double share = jnum(res, "attribution.run.machine.cpu_s");
    CHECK(share > 0 && fabs(jnum(res, "attribution.run.mariadb.share") - 100 * me / share) < 1e-6);
    CHECK(jstr(res, "attribution_sources.minio") &&
          strstr(jstr(res, "attribution_sources.minio"), "--server-cgroup minio=") != NULL);

    /* counters the kernel refuses: eacces, with the level and the fix */
    const char *st = jstr(res, "counters.run.task-clock.status");
    CHECKF(st && !strcmp(st, "eacces"), "%s", st);
    const char *why = jstr(res, "counters.run.task-clock.reason");
    CHECKF(why && strstr(why, "perf_event_paranoid") && strstr(why, "sysctl -w"), "%s", why);
    CHECK(json_is_null(jget(res, "counters.run.task-clock.value")));
    CHECK(json_is_null(jget(res, "counters.run.ipc")));
    st = jstr(res, "counters.w.components.coordinator.cycles.status");
    CHECKF(st && !strcmp(st, "eacces"), "%s", st);
    /* a cgroup outside the perf_event hierarchy cannot be counted: said */
    CHECK(json_is_null(jget(res, "counters.run.components.workers")));
    CHECK(jstr(res, "counters_unavailable.workers") != NULL);
    json_decref(res);
    attrib_free(a);
    cfg->nserver_over = 0;
}

/* The summary's CPU per operation: milliseconds, three significant digits,
 * never an exponent (7.9e-05 s is 0.0790 ms). */
static void test_summary(void) {
    json_t *res = json_pack("{s:{s:{s:{s:f, s:f}, s:{s:f, s:f}, s:n}}}", "attribution", "run",
                            "minio", "cpu_s_per_op", 7.9e-05, "share", 3.0, "mariadb",
                            "cpu_s_per_op", 0.01234, "share", 41.0, "workers");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    attrib_print_summary(res, f);
    fclose(f);
    CHECKF(strstr(buf, "CPU ms per operation") && strstr(buf, "minio 0.0790 (3%)") &&
               strstr(buf, "mariadb 12.3 (41%)") && strstr(buf, "workers -"),
           "%s", buf);
    CHECKF(strstr(buf, "e-0") == NULL, "%s", buf);
    free(buf);
    json_decref(res);
}

int main(void) {
    test_summary();
    snprintf(root, sizeof root, "%s", getenv("AOPS_ROOT") ? getenv("AOPS_ROOT") : ".");
    char sd[] = "/tmp/aops-attrib-XXXXXX";
    if (!mkdtemp(sd)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("AOPS_STACK_DIR", sd, 1);
    struct config *cfg = calloc(1, sizeof *cfg);
    char err[512];
    if (!cfg || options_load_env(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "config: %s\n", err);
        return 1;
    }
    test_plan();
    test_locate(cfg, sd);
    test_overrides(cfg);
    test_attrib(cfg);
    options_free(cfg);
    free(cfg);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", sd);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", sd);
    return unit_done("attrib");
}
