/* test_baseline.c -- the drives' fio baseline and MinIO's layout, the pure
 * parts.
 *
 * - fio's JSON: a result captured from Debian's fio 3.33 running the
 *   baseline's two jobs on this machine's virtio disk, 64 MiB, 1 s each
 *   (tests/fixtures/fio/baseline-3.33.json); the
 *   expected figures are the numbers in that file, read by hand. A job
 *   fio reports failed, a missing job, text with a note before the JSON and
 *   no JSON at all are errors.
 * - A device's identity from a sysfs tree made here (a loop device's
 *   backing file, a disk's model and serial, and its size).
 * - Which baseline entries a run takes: every sampled device covered, a
 *   filesystem over two disks counted once in the sum, a device not
 *   measured or measured on another device (a re-created loop device)
 *   leaves the sum NAN with the reason.
 * - MinIO's admin info of the pinned MinIO over 4 loop-backed drives
 *   (tests/fixtures/minio-admin/info-4-drives.json): 4 drives, one set of
 *   4, parity 2 (MinIO's default for a set of 4), the drive paths. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "baseline.h"
#include "s3_util.h"
#include "unit.h"

static char *slurp(const char *rel) {
    char p[1024];
    const char *root = getenv("AOPS_ROOT") ? getenv("AOPS_ROOT") : ".";
    snprintf(p, sizeof p, "%s/tests/fixtures/%s", root, rel);
    FILE *f = fopen(p, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s (run from the repository root)\n", p);
        exit(1);
    }
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void put(const char *root, const char *rel, const char *text) {
    char p[2048], dir[2048];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "mkdir -p \"$(dirname '%s')\"", p);
    if (system(dir) != 0)
        exit(1);
    FILE *f = fopen(p, "w");
    if (!f)
        exit(1);
    fputs(text, f);
    fclose(f);
}

static void test_fio_parse(void) {
    char *text = slurp("fio/baseline-3.33.json");
    double seq, rnd;
    char ver[64], err[256];
    CHECKF(baseline_fio_parse(text, &seq, &rnd, ver, sizeof ver, err, sizeof err) == 0, "%s", err);
    /* By hand from the file: jobs[0] "seq" read.bw_bytes, jobs[1] "rand" read.iops. */
    CHECKF(seq == 692552641.0, "seq %.1f", seq);
    CHECKF(fabs(rnd - 67793.206793) < 1e-6, "rand %.6f", rnd);
    CHECK(!strcmp(ver, "fio-3.33"));

    /* fio prints notes before its JSON on some errors: still read. */
    size_t n = strlen(text) + 64;
    char *noted = malloc(n);
    snprintf(noted, n, "fio: note: something\n%s", text);
    CHECK(baseline_fio_parse(noted, &seq, &rnd, ver, sizeof ver, err, sizeof err) == 0);
    free(noted);

    /* A job fio says failed: an error naming it. */
    char *bad = strdup(text);
    char *e = strstr(bad, "\"error\" : 0");
    CHECK(e != NULL);
    if (e)
        memcpy(e, "\"error\" : 5", 11);
    CHECK(baseline_fio_parse(bad, &seq, &rnd, ver, sizeof ver, err, sizeof err) == -1);
    CHECKF(strstr(err, "seq") && strstr(err, "Input/output error"), "%s", err);
    free(bad);

    /* Only one job: the other is named as missing. */
    bad = strdup(text);
    char *r = strstr(bad, "\"jobname\" : \"rand\"");
    CHECK(r != NULL);
    if (r)
        memcpy(r, "\"jobname\" : \"rond\"", 18);
    CHECK(baseline_fio_parse(bad, &seq, &rnd, ver, sizeof ver, err, sizeof err) == -1);
    CHECKF(strstr(err, "rand") != NULL, "%s", err);
    free(bad);

    CHECK(baseline_fio_parse("fio: engine io_uring not loadable\n", &seq, &rnd, ver, sizeof ver,
                             err, sizeof err) == -1);
    CHECK(strstr(err, "no JSON") != NULL);
    CHECK(baseline_fio_parse(NULL, &seq, &rnd, ver, sizeof ver, err, sizeof err) == -1);
    free(text);
}

static char sysroot[] = "/tmp/aops-baseline.XXXXXX";

static void make_sysroot(void) {
    if (!mkdtemp(sysroot))
        exit(1);
    put(sysroot, "sys/class/block/loop3/size", "262144\n");
    put(sysroot, "sys/class/block/loop3/loop/backing_file", "/tmp/aops-test.x/img3\n");
    put(sysroot, "sys/class/block/nvme0n1/size", "3750748848\n");
    put(sysroot, "sys/class/block/nvme0n1/device/model", "Micron_9550_MTFDKCC7T6TGQ  \n");
    put(sysroot, "sys/class/block/nvme0n1/device/serial", "24104A2B9F31\n");
    put(sysroot, "sys/class/block/nvme1n1/size", "3750748848\n");
    put(sysroot, "sys/class/block/vda/size", "528482304\n");
}

static void test_identity(void) {
    char id[1400];
    baseline_identity(sysroot, "loop3", id, sizeof id);
    CHECKF(!strcmp(id, "loop of /tmp/aops-test.x/img3, 134217728 bytes"), "%s", id);
    baseline_identity(sysroot, "nvme0n1", id, sizeof id);
    CHECKF(!strcmp(id, "model Micron_9550_MTFDKCC7T6TGQ serial 24104A2B9F31, 1920383410176 bytes"),
           "%s", id);
    baseline_identity(sysroot, "vda", id, sizeof id);
    CHECKF(!strcmp(id, "270582939648 bytes"), "%s", id);
    baseline_identity(sysroot, "sdz", id, sizeof id);
    CHECK(id[0] == 0);
}

/* An entry as baseline_run writes it: the devices and each one's identity. */
static json_t *entry(double seq, const char *dev1, const char *dev2) {
    json_t *d = json_array(), *ids = json_object();
    char id[1400];
    const char *devs[2] = {dev1, dev2};
    for (int i = 0; i < 2 && devs[i]; i++) {
        json_array_append_new(d, json_string(devs[i]));
        baseline_identity(sysroot, devs[i], id, sizeof id);
        json_object_set_new(ids, devs[i], json_string(id));
    }
    return json_pack("{s:f, s:f, s:s, s:o, s:o}", "seq_read_Bps", seq, "rand_read_iops", 1000.0,
                     "fio_version", "fio-3.33", "identities", ids, "devices", d);
}

static void test_select(void) {
    char why[1024];
    double sum;
    /* nvme0n1+nvme1n1: one filesystem over both (md), measured once; loop3 on its own. Each
     * device is checked against its own identity (checking nvme1n1 against the first
     * device's made every such entry look stale, found by this test). */
    json_t *file = json_pack("{s:{s:o, s:o}}", "devices", "nvme0n1+nvme1n1",
                             entry(24e9, "nvme0n1", "nvme1n1"), "loop3", entry(5e8, "loop3", NULL));
    struct blkdev devs[3] = {{259, 0, "nvme0n1"}, {259, 1, "nvme1n1"}, {7, 3, "loop3"}};
    json_t *sel = baseline_select(file, devs, 3, sysroot, &sum, why, sizeof why);
    CHECKF(sum == 24e9 + 5e8, "sum %.0f (%s)", sum, why);
    CHECK(json_object_size(sel) == 3);
    CHECK(json_number_value(json_object_get(json_object_get(sel, "nvme1n1"), "seq_read_Bps")) ==
          24e9);
    json_decref(sel);

    /* A device the file does not have: no sum, and the reason names it. */
    struct blkdev more[4] = {
        {259, 0, "nvme0n1"}, {259, 1, "nvme1n1"}, {7, 3, "loop3"}, {253, 0, "vda"}};
    sel = baseline_select(file, more, 4, sysroot, &sum, why, sizeof why);
    CHECK(isnan(sum));
    CHECKF(strstr(why, "vda has no baseline") != NULL, "%s", why);
    CHECK(json_is_null(json_object_get(json_object_get(sel, "vda"), "seq_read_Bps")));
    json_decref(sel);

    /* loop3 re-created on another image: its old figure is not used. */
    put(sysroot, "sys/class/block/loop3/loop/backing_file", "/tmp/other/img\n");
    sel = baseline_select(file, devs, 3, sysroot, &sum, why, sizeof why);
    CHECK(isnan(sum));
    CHECKF(strstr(why, "measured on another device") && strstr(why, "/tmp/other/img"), "%s", why);
    json_decref(sel);
    put(sysroot, "sys/class/block/loop3/loop/backing_file", "/tmp/aops-test.x/img3\n");

    /* A drive baseline could not measure: null with its reason, carried over. */
    json_object_set_new(
        json_object_get(file, "devices"), "loop3",
        json_pack("{s:n, s:n, s:n, s:s, s:[s]}", "seq_read_Bps", "rand_read_iops", "fio_version",
                  "reason", "fio not found (Debian: apt-get install fio)", "devices", "loop3"));
    sel = baseline_select(file, devs, 3, sysroot, &sum, why, sizeof why);
    CHECK(isnan(sum));
    CHECKF(strstr(why, "loop3 was not measured: fio not found") != NULL, "%s", why);
    json_decref(sel);

    /* No file, no devices. */
    sel = baseline_select(NULL, devs, 1, sysroot, &sum, why, sizeof why);
    CHECK(isnan(sum) && strstr(why, "nvme0n1 has no baseline"));
    json_decref(sel);
    sel = baseline_select(file, devs, 0, sysroot, &sum, why, sizeof why);
    CHECK(isnan(sum) && strstr(why, "no device sampled"));
    json_decref(sel);
    json_decref(file);
}

static void test_minio_layout(void) {
    char *text = slurp("minio-admin/info-4-drives.json");
    json_t *info = json_loads(text, 0, NULL);
    CHECK(info != NULL);
    json_t *l = s3_layout_json(info);
    CHECK(json_integer_value(json_object_get(l, "drives")) == 4);
    CHECK(json_integer_value(json_object_get(l, "sets")) == 1);
    CHECK(json_integer_value(json_object_get(l, "set_size")) == 4);
    CHECK(json_integer_value(json_object_get(l, "parity")) == 2);
    CHECK(json_integer_value(json_object_get(l, "online_drives")) == 4);
    CHECK(!strcmp(json_string_value(json_object_get(l, "layout")), "erasure"));
    CHECK(!strcmp(json_string_value(json_object_get(l, "backend_type")), "Erasure"));
    json_t *p = json_object_get(l, "drive_paths");
    CHECK(json_array_size(p) == 4);
    CHECK(!strcmp(json_string_value(json_array_get(p, 3)), "/tmp/aops-scale/q4"));
    json_decref(l);
    /* Uneven sets (two pools): no single set size. */
    json_t *backend = json_object_get(info, "backend");
    json_object_set_new(backend, "totalSets", json_pack("[i,i]", 1, 1));
    json_object_set_new(backend, "totalDrivesPerSet", json_pack("[i,i]", 4, 6));
    l = s3_layout_json(info);
    CHECK(json_is_null(json_object_get(l, "set_size")));
    CHECK(json_integer_value(json_object_get(l, "sets")) == 2);
    json_decref(l);
    /* Not MinIO: an empty answer gives nulls, not zeros. */
    json_t *empty = json_object();
    l = s3_layout_json(empty);
    CHECK(json_is_null(json_object_get(l, "parity")));
    CHECK(json_integer_value(json_object_get(l, "drives")) == 0);
    json_decref(l);
    json_decref(empty);
    json_decref(info);
    free(text);
}

int main(void) {
    make_sysroot();
    test_fio_parse();
    test_identity();
    test_select();
    test_minio_layout();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", sysroot);
    if (system(cmd) != 0)
        return 1;
    return unit_done("test_baseline");
}
