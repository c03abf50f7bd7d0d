/* test_telemetry.c -- the sampler on fixture sysroots with exact expected
 * values: CPU busy share, diskstats deltas over devices resolved through
 * partitions, md and device-mapper, RAPL watts from two readings including a
 * wrapped counter, the MSR fallback, EACCES on energy_uj, missing files. The
 * clock is the telemetry_begin/sample argument, so intervals are exact. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/json.h"
#include "cmdline.h"
#include "telemetry.h"
#include "telemetry_power.h"
#include "telemetry_proc.h"
#include "unit.h"
#include "workload.h"

#define S 1000000000LL
#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static char tmpl[] = "/tmp/aops-telem.XXXXXX";
static const char *tmp;

/* A private copy of a fixture tree: the tests rewrite counters in it. */
static void copy_fixture(const char *name, const char *dest) {
    char cmd[1024];
    const char *root = getenv("AOPS_ROOT") ? getenv("AOPS_ROOT") : ".";
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s/tests/fixtures/%s' '%s'", dest, root, name,
             dest);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot copy fixture %s (run from the repository root)\n", name);
        exit(1);
    }
}

/* Rewrite in place (same inode), as the kernel's files change under an open fd. */
static void put(const char *root, const char *rel, const char *text) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static void setup_cfg(struct config *c, const char *root, const char *harness, const char *corpus) {
    char err[256];
    options_free(c); /* a previous test's settings, or nothing on a zeroed c */
    if (workloads_config_init(c, err, sizeof err) != 0 ||
        options_set(c, "corpus", corpus, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    snprintf(c->sysroot, sizeof c->sysroot, "%s", root);
    snprintf(c->harness_dir, sizeof c->harness_dir, "%s", harness);
    c->sample_interval = 1;
}

static double getd(json_t *o, const char *path1, const char *path2) {
    json_t *v = json_object_get(o, path1);
    if (path2)
        v = json_object_get(v, path2);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void test_parsers(void) {
    struct cpu_times a, b;
    CHECK(cpu_parse_stat("cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 1 2 3\n", &a) == 0);
    CHECK(a.total == 1000 && a.busy == 200);
    /* guest (30) is inside user already and must not be counted twice */
    CHECK(cpu_parse_stat("cpu  400 0 200 1100 200 50 50 0 30 0\n", &b) == 0);
    CHECK(b.total == 2000 && b.busy == 700);
    CHECK(NEAR(cpu_util_pct(&a, &b), 50.0));
    CHECK(isnan(cpu_util_pct(&b, &b)));
    CHECK(cpu_parse_stat("intr 1 2 3\n", &a) == -1);

    /* wraparound: counts 0..range, then 0 again */
    CHECK(counter_delta(10, 25, 100) == 15);
    CHECK(counter_delta(90, 5, 100) == 16); /* 90->100 is 10, ->0 is 1, ->5 is 5 */
    CHECK(counter_delta(0xFFFFF000u, 0xF000, 0xFFFFFFFFu) == 0x10000);
    CHECK(counter_delta(90, 5, 0) == 0); /* unknown range: no invented energy */

    struct blkdev devs[2] = {{8, 0, "sda"}, {8, 16, "sdb"}};
    struct disk_counters d;
    const char *ds = "   8       0 sda 10 1 200 5 20 2 400 6 0 0 0\n"
                     "   8       1 sda1 10 1 200 5 20 2 400 6 0 0 0\n"
                     "   8      16 sdb 1 0 8 1 2 0 16 1 0 0 0\n";
    CHECK(diskstats_parse(ds, devs, 2, &d) == 2);
    CHECK(d.rd_ios == 11 && d.rd_sectors == 208 && d.wr_ios == 22 && d.wr_sectors == 416);
    CHECK(diskstats_parse("   8       0 sda 10 1 200 5 20 2 400 6 0 0 0\n", devs, 2, &d) == 1);
}

/* Two sockets, Intel: / on nvme0n1p1, /data on dm-0 over md0 over nvme1n1
 * and nvme2n1p1; RAPL package-0 wraps, package-1 does not. */
static void test_intel_2s(void) {
    char root[512];
    struct config c = {0};
    snprintf(root, sizeof root, "%s/intel", tmp);
    copy_fixture("sysroot-intel-2s", root);
    setup_cfg(&c, root, "/opt/aops-nonexistent", "/data/corpus-nonexistent");

    struct telemetry *t = telemetry_new(&c);
    CHECK(t != NULL);
    telemetry_begin(t, 7 * S);

    put(root, "proc/stat", "cpu  400 0 200 1100 200 50 50 0 30 0\n");
    put(root, "proc/diskstats",
        " 259       0 nvme0n1 1100 10 22048 500 420 5 8160 300 0 900 800 0 0 0 0 0 0\n"
        " 259       1 nvme0n1p1 1000 10 20048 450 400 5 7760 290 0 850 740 0 0 0 0 0 0\n"
        " 259       3 nvme1n1 5050 0 101000 1000 3000 0 60000 2000 0 2900 3000 0 0 0 0 0 0\n"
        " 259       4 nvme2n1 6010 0 120048 1100 3104 0 62040 2100 0 3000 3200 0 0 0 0 0 0\n"
        " 259       5 nvme2n1p1 5910 0 118048 1090 3104 0 62040 2100 0 2990 3190 0 0 0 0 0 0\n"
        "   9       0 md0 99999 0 999999 0 9999 0 99999 0 0 0 0 0 0 0 0 0 0\n"
        " 253       0 dm-0 99999 0 999999 2000 9999 0 99999 4000 0 5000 6000 0 0 0 0 0 0\n");
    /* package-0 wrapped: 262143328850 - 262143000000 + 1 + 1000000 uJ
     * = 1.328851 J;
     * package-1: 20 J. The psys and core zones change but must not count. */
    put(root, "sys/class/powercap/intel-rapl:0/energy_uj", "1000000\n");
    put(root, "sys/class/powercap/intel-rapl:1/energy_uj", "25000000\n");
    put(root, "sys/class/powercap/intel-rapl:2/energy_uj", "5999000000\n");
    put(root, "sys/class/powercap/intel-rapl:0:0/energy_uj", "900000000\n");
    telemetry_sample(t, 9 * S);

    put(root, "proc/stat", "cpu  1400 0 200 1100 200 50 50 0 30 0\n");
    put(root, "sys/class/powercap/intel-rapl:0/energy_uj", "41000000\n");
    put(root, "sys/class/powercap/intel-rapl:1/energy_uj", "45000000\n");
    telemetry_sample(t, 11 * S);

    json_t *j = telemetry_json(t);
    json_t *series = json_object_get(j, "series");
    CHECK(json_array_size(series) == 2);
    json_t *p0 = json_array_get(series, 0), *p1 = json_array_get(series, 1);
    CHECK(NEAR(getd(p0, "t", NULL), 2.0));
    CHECKF(NEAR(getd(p0, "cpu_util", NULL), 50.0), "%g", getd(p0, "cpu_util", NULL));
    /* reads: nvme0n1 100 ios 2048 sectors, nvme1n1 50/1000, nvme2n1 10/48 over 2 s */
    CHECKF(NEAR(getd(p0, "read_iops", NULL), 80.0), "%g", getd(p0, "read_iops", NULL));
    CHECKF(NEAR(getd(p0, "read_Bps", NULL), 3096.0 * 512 / 2), "%g", getd(p0, "read_Bps", NULL));
    CHECKF(NEAR(getd(p0, "write_iops", NULL), 12.0), "%g", getd(p0, "write_iops", NULL));
    CHECKF(NEAR(getd(p0, "write_Bps", NULL), 200.0 * 512 / 2), "%g", getd(p0, "write_Bps", NULL));
    /* 21.328851 J over 2 s, rounded to mW in the JSON */
    CHECKF(NEAR(getd(p0, "power_w", NULL), 10.664), "%.9g", getd(p0, "power_w", NULL));
    CHECK(NEAR(getd(p1, "cpu_util", NULL), 100.0));
    CHECK(NEAR(getd(p1, "read_iops", NULL), 0.0));
    CHECK(NEAR(getd(p1, "power_w", NULL), 30.0)); /* 40 J + 20 J over 2 s */

    CHECKF(NEAR(telemetry_mean_power(t), (21.328851 + 60.0) / 4), "%.12g", telemetry_mean_power(t));
    CHECK(NEAR(getd(j, "cpu_util", "mean"), 75.0) && NEAR(getd(j, "cpu_util", "peak"), 100.0));
    CHECK(NEAR(getd(j, "read_iops", "mean"), 40.0) && NEAR(getd(j, "read_iops", "peak"), 80.0));
    /* telemetry.power: one entry per source, the package's first */
    json_t *pw = json_array_get(json_object_get(j, "power"), 0);
    CHECK(json_is_object(pw));
    CHECK(strcmp(json_string_value(json_object_get(pw, "source")), "rapl") == 0);
    CHECK(strcmp(json_string_value(json_object_get(pw, "scope")), "package") == 0);
    CHECK(strcmp(json_string_value(json_object_get(pw, "series")), "power_w") == 0);
    CHECKF(NEAR(getd(pw, "mean_w", NULL), 20.332), "%g", getd(pw, "mean_w", NULL));
    CHECK(json_integer_value(json_object_get(pw, "packages")) == 2);
    CHECK(NEAR(getd(pw, "peak_w", NULL), 30.0));
    CHECK(json_is_null(json_object_get(j, "power_unavailable_reason")));

    /* each physical disk once, in discovery order */
    json_t *devs = json_object_get(j, "devices");
    CHECK(json_array_size(devs) == 3);
    const char *want[] = {"nvme0n1", "nvme1n1", "nvme2n1"};
    for (size_t i = 0; i < 3 && i < json_array_size(devs); i++)
        CHECKF(strcmp(json_string_value(json_object_get(json_array_get(devs, i), "name")),
                      want[i]) == 0,
               "device %zu", i);
    json_t *corpus = json_array_get(json_object_get(j, "data_paths"), 2);
    CHECK(json_array_size(json_object_get(corpus, "devices")) == 2);

    /* windows: overlap-weighted mean */
    json_t *w = telemetry_window_json(t, 1.0, 3.0);
    CHECK(NEAR(getd(w, "cpu_util", "mean"), 75.0) && NEAR(getd(w, "cpu_util", "peak"), 100.0));
    json_decref(w);
    w = telemetry_window_json(t, 0.0, 2.0);
    CHECK(NEAR(getd(w, "cpu_util", "mean"), 50.0) && NEAR(getd(w, "read_iops", "peak"), 80.0));
    json_decref(w);
    w = telemetry_window_json(t, 0.5, 1.5); /* inside one interval */
    CHECK(NEAR(getd(w, "cpu_util", "mean"), 50.0));
    json_decref(w);
    w = telemetry_window_json(t, 5.0, 6.0);
    CHECK(json_is_null(json_object_get(w, "cpu_util")) &&
          json_is_null(json_object_get(w, "read_Bps")));
    /* ... each null with its reason beside it (result.schema.json's
     * x-null-reason), saying no sample covers the window */
    CHECKF(jstr(w, "cpu_unavailable_reason") &&
               strstr(jstr(w, "cpu_unavailable_reason"), "has a CPU reading over this window"),
           "%s", jstr(w, "cpu_unavailable_reason"));
    CHECKF(jstr(w, "disk_unavailable_reason") &&
               strstr(jstr(w, "disk_unavailable_reason"), "has a disk reading over this window"),
           "%s", jstr(w, "disk_unavailable_reason"));
    json_decref(w);
    w = telemetry_window_json(t, 1.0, 3.0); /* figures: no reason key */
    CHECK(!json_object_get(w, "cpu_unavailable_reason") &&
          !json_object_get(w, "disk_unavailable_reason"));
    json_decref(w);
    json_decref(j);

    /* a device vanishing from diskstats gives null, not a low figure */
    put(root, "proc/diskstats",
        " 259       0 nvme0n1 1100 10 22048 500 420 5 8160 300 0 900 800 0 0 0 0 0 0\n");
    telemetry_sample(t, 12 * S);
    j = telemetry_json(t);
    json_t *p2 = json_array_get(json_object_get(j, "series"), 2);
    CHECK(json_is_null(json_object_get(p2, "read_Bps")) &&
          json_is_null(json_object_get(p2, "write_iops")));
    json_decref(j);
    telemetry_free(t);
    options_free(&c);
}

static int eacces_open(const char *path, int flags) {
    size_t n = strlen(path);
    if (n >= 9 && strcmp(path + n - 9, "energy_uj") == 0)
        return errno = EACCES, -1;
    return open(path, flags);
}

/* One socket, AMD: / on the whole disk vda, the corpus on tmpfs. */
static void test_amd_1s(void) {
    char root[512], path[1024];
    struct config c = {0};
    snprintf(root, sizeof root, "%s/amd", tmp);
    copy_fixture("sysroot-amd-1s", root);
    setup_cfg(&c, root, "/opt/aops-nonexistent", "/scratch/corpus");

    /* energy_uj readable by root only, as on Linux >= 5.10. Root ignores
     * file modes, so as root the refusal is injected through the open seam. */
    snprintf(path, sizeof path, "%s/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj",
             root);
    CHECK(chmod(path, 0) == 0);
    struct telemetry *t = geteuid() == 0 ? telemetry_new_with(&c, eacces_open) : telemetry_new(&c);
    telemetry_begin(t, 0);
    put(root, "proc/stat", "cpu  1250 0 750 8500 500 0 0 0 0 0\n");
    put(root, "proc/diskstats",
        " 254       0 vda 54332 7852 2392754 13602 40015 66111 8513240 31800 0 9544 46639 0 0 0 0 "
        "0 0\n");
    telemetry_sample(t, S / 2);
    json_t *j = telemetry_json(t);
    json_t *pk = json_array_get(json_object_get(j, "power"), 0);
    CHECK(!strcmp(json_string_value(json_object_get(pk, "scope")), "package"));
    CHECK(json_is_null(json_object_get(pk, "mean_w")) &&
          json_is_null(json_object_get(pk, "peak_w")));
    CHECK(json_is_string(json_object_get(pk, "reason")));
    const char *why = json_string_value(json_object_get(j, "power_unavailable_reason"));
    CHECKF(why && strstr(why, "permission denied") && strstr(why, "energy_uj") &&
               strstr(why, "as root"),
           "%s", why ? why : "(null)");
    CHECK(telemetry_mean_power(t) < 0);
    json_t *p0 = json_array_get(json_object_get(j, "series"), 0);
    CHECK(json_is_null(json_object_get(p0, "power_w"))); /* never 0 */
    CHECK(NEAR(getd(p0, "cpu_util", NULL), 50.0));       /* 500 busy of 1000 */
    CHECK(NEAR(getd(p0, "read_iops", NULL), 200.0));     /* 100 reads in 0.5 s */
    CHECK(NEAR(getd(p0, "read_Bps", NULL), 2000.0 * 512 * 2));
    CHECK(NEAR(getd(p0, "write_Bps", NULL), 0.0));
    json_t *devs = json_object_get(j, "devices");
    CHECK(json_array_size(devs) == 1 &&
          strcmp(json_string_value(json_object_get(json_array_get(devs, 0), "name")), "vda") == 0);
    json_t *corpus = json_array_get(json_object_get(j, "data_paths"), 2);
    CHECK(json_is_null(json_object_get(corpus, "devices")));
    const char *note = json_string_value(json_object_get(corpus, "note"));
    CHECKF(note && strstr(note, "tmpfs"), "%s", note ? note : "(null)");
    json_decref(j);
    telemetry_free(t);
    options_free(&c);
}

/* No powercap, no perf PMU: the AMD MSRs through a file laid out like
 * /dev/cpu/0/msr (pread at the MSR address). Units 2^-16 J; the 32-bit
 * counter wraps from 0xFFFFF000 to 0xF000: 0x10000 units = 1 J in 0.5 s. */
/* Steal on a /proc/stat fixture, worked out by hand. Between the readings:
 * user +300, system +100, idle +400, iowait +100, steal +300 of 1200 ticks.
 * Busy is user + system = 400 of 1200: 33.3 % (counting steal as busy, as
 * before, said 58.3 %); steal 25 %. The run's span then cuts the figures:
 * over [0, 0.5] of a 1 s point, half the point counts, at its value. */
static void test_steal(void) {
    char root[512];
    struct config c = {0};
    snprintf(root, sizeof root, "%s/steal", tmp);
    copy_fixture("sysroot-amd-1s", root);
    setup_cfg(&c, root, "/opt/aops-nonexistent", "/scratch/corpus");
    put(root, "proc/stat", "cpu  1000 0 500 8000 400 0 0 200 0 0\n");
    struct telemetry *t = telemetry_new(&c);
    telemetry_begin(t, -S / 100); /* the baselines 10 ms before the release at 0 */
    telemetry_rebase(t, 0);
    put(root, "proc/stat", "cpu  1300 0 600 8400 500 0 0 500 0 0\n");
    telemetry_sample(t, S);
    put(root, "proc/stat", "cpu  1900 0 800 8500 500 0 0 500 0 0\n"); /* 800 of 900: 88.9 % */
    telemetry_sample(t, S + S / 2);
    struct cpu_times a, b;
    CHECK(cpu_parse_stat("cpu  1000 0 500 8000 400 0 0 200 0 0\n", &a) == 0 && a.busy == 1500);
    CHECK(cpu_parse_stat("cpu  1300 0 600 8400 500 0 0 500 0 0\n", &b) == 0 && b.busy == 1900);
    CHECKF(NEAR(cpu_util_pct(&a, &b), 100.0 * 400 / 1200), "%f", cpu_util_pct(&a, &b));
    CHECK(NEAR(cpu_steal_pct(&a, &b), 25.0));
    CHECKF(NEAR(telemetry_baseline_s(t), -0.01), "baseline at %f s", telemetry_baseline_s(t));
    json_t *j = telemetry_json(t);
    double p0 = getd(json_array_get(json_object_get(j, "series"), 0), "cpu_util", NULL);
    CHECKF(fabs(p0 - 33.333) < 1e-3, "cpu %f", p0);
    CHECK(fabs(getd(json_array_get(json_object_get(j, "series"), 0), "steal_pct", NULL) - 25) <
          1e-9);
    CHECK(fabs(getd(j, "steal_pct", "mean") - (25 * 1.01 + 0 * 0.5) / 1.51) < 1e-3);
    json_decref(j);
    /* The span [0, 1.25]: the first point whole, a half of the second. */
    telemetry_set_span(t, 0, 1.25);
    j = telemetry_json(t);
    double want = (100.0 * 400 / 1200 * 1.0 + 100.0 * 800 / 900 * 0.25) / 1.25;
    CHECKF(fabs(getd(j, "cpu_util", "mean") - want) < 1e-3, "span mean %f, want %f",
           getd(j, "cpu_util", "mean"), want);
    CHECK(fabs(getd(j, "cpu_util", "peak") - 88.889) < 1e-3);
    json_decref(j);
    telemetry_set_span(t, 0, 0.5); /* inside the first point: its value, the second not at all */
    j = telemetry_json(t);
    CHECK(fabs(getd(j, "cpu_util", "mean") - 33.333) < 1e-3);
    CHECK(fabs(getd(j, "cpu_util", "peak") - 33.333) < 1e-3);
    json_decref(j);
    telemetry_free(t);
    options_free(&c);
}

static void test_msr_amd(void) {
    char root[512], path[1024];
    struct power p;
    snprintf(root, sizeof root, "%s/msr", tmp);
    copy_fixture("sysroot-amd-1s", root);
    snprintf(path, sizeof path, "%s/sys/class/powercap/intel-rapl:0", root);
    CHECK(unlink(path) == 0);

    power_open(&p, root, NULL);
    CHECK(p.src == POWER_NONE);
#if !defined(__x86_64__) && !defined(__i386__)
    /* An aarch64 build: RAPL's MSRs do not exist there, a file laid out like
     * one changes nothing, and the reason does not say to load a module. */
    CHECKF(strstr(p.reason, "powercap RAPL: no package domain") &&
               strstr(p.reason, "MSR: none on aarch64") && !strstr(p.reason, "modprobe"),
           "%s", p.reason);
    power_close(&p);
    return;
#endif
    CHECKF(strstr(p.reason, "powercap RAPL: no package domain") &&
               strstr(p.reason, "perf power PMU") && strstr(p.reason, "modprobe msr"),
           "%s", p.reason);
    power_close(&p);

    snprintf(path, sizeof path, "%s/dev/cpu/0", root);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/dev/cpu/0/msr", root);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    uint64_t units = 0x000A1003, e0 = 0xABCD0000FFFFF000ULL, e1 = 0xABCD00000000F000ULL;
    CHECK(fd >= 0);
    CHECK(pwrite(fd, &units, 8, 0xC0010299) == 8 && pwrite(fd, &e0, 8, 0xC001029B) == 8);

    power_open(&p, root, NULL);
    CHECKF(p.src == POWER_MSR && p.n == 1, "%s", p.reason);
    CHECK(strcmp(p.source, "msr") == 0);
    double jl = -1;
    CHECK(power_read(&p, &jl) == 0 && jl == 0); /* baseline */
    CHECK(pwrite(fd, &e1, 8, 0xC001029B) == 8);
    CHECK(power_read(&p, &jl) == 0);
    CHECKF(NEAR(jl, 1.0), "%.12g", jl);
    power_close(&p);
    close(fd);
    unlink(path);
}

/* An empty root: every figure null with a reason, nothing crashes. */
static void test_missing(void) {
    char root[512];
    struct config c = {0};
    snprintf(root, sizeof root, "%s/empty", tmp);
    mkdir(root, 0755);
    setup_cfg(&c, root, "/opt/aops-nonexistent", "/corpus");
    struct telemetry *t = telemetry_new(&c);
    telemetry_begin(t, 0);
    telemetry_sample(t, S);
    telemetry_sample(t, S); /* same instant: ignored */
    json_t *j = telemetry_json(t);
    CHECK(json_array_size(json_object_get(j, "series")) == 1);
    CHECK(json_is_null(json_object_get(j, "cpu_util")));
    CHECK(json_is_null(json_object_get(j, "read_Bps")));
    CHECK(json_is_null(json_object_get(json_array_get(json_object_get(j, "power"), 0), "mean_w")));
    CHECK(json_is_string(json_object_get(j, "power_unavailable_reason")));
    CHECK(json_is_string(json_object_get(j, "disk_unavailable_reason")));
    CHECK(json_is_string(json_object_get(j, "cpu_unavailable_reason")));
    json_t *p0 = json_array_get(json_object_get(j, "series"), 0);
    CHECK(json_is_null(json_object_get(p0, "cpu_util")) &&
          json_is_null(json_object_get(p0, "power_w")));
    json_decref(j);
    telemetry_free(t);
    options_free(&c);
}

/* Overhead sanity: many samples on the real root stay cheap (the figure
 * itself comes from bench/telemetry). */
static void test_real_root(void) {
    struct config c = {0};
    setup_cfg(&c, "/", "/nonexistent", "/tmp");
    struct telemetry *t = telemetry_new(&c);
    telemetry_begin(t, 0);
    for (int i = 1; i <= 5000; i++) /* beyond the preallocated 4096 points */
        telemetry_sample(t, (int64_t)i * S / 100);
    json_t *j = telemetry_json(t);
    CHECK(json_array_size(json_object_get(j, "series")) == 5000);
    CHECK(json_is_object(json_object_get(j, "cpu_util")));
    json_decref(j);
    telemetry_free(t);
    options_free(&c);
}

int main(void) {
    tmp = mkdtemp(tmpl);
    if (!tmp)
        return perror("mkdtemp"), 1;
    test_parsers();
    test_intel_2s();
    test_amd_1s();
    test_steal();
    test_msr_amd();
    test_missing();
    test_real_root();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwX '%s'; rm -rf '%s'", tmp, tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
    return unit_done("test_telemetry");
}
