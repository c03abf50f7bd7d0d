/* test_prepare_plan.c -- prepare's plan without a server: the object bytes
 * of a profile against the size classes worked out by hand (500 x 1 MiB +
 * 500 x 10 MiB + 190 x 50 MiB = 15,000 MiB a worker at full size), the
 * erasure overhead (data + parity) / data, the margin max(5 %, 1 GiB), the
 * verdict and shortfall, MinIO's admin info read for parity and free space,
 * the sizes and times as printed, the refusal in one line, and the prepare
 * command a "not prepared" line names, made from a run's own options. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../coordinator/cmdline.h"
#include "../../coordinator/prepare_plan.h"
#include "../../workloads/s3_util.h"
#include "unit.h"

#define MiB 1048576.0
#define GiB 1073741824.0
#define NEAR(a, b) (fabs((a) - (b)) <= 1e-6 * fabs(b) + 1e-9)

static void test_arithmetic(void) {
    /* The size classes as the README and SPEC state them. */
    CHECK(s3_worker_bytes(PROFILE_FULL) == 15000ULL << 20);
    CHECK(s3_worker_bytes(PROFILE_SMALL) == (15000ULL << 20) / 64);
    CHECK(s3_worker_bytes(PROFILE_TINY) == (15000ULL << 20) / 1024);

    CHECK(NEAR(plan_on_drives(GiB, 2, 2), 2 * GiB));   /* 4 drives, EC:2 */
    CHECK(NEAR(plan_on_drives(GiB, 8, 4), 1.5 * GiB)); /* 12 drives, EC:4 */
    CHECK(NEAR(plan_on_drives(GiB, 1, 0), GiB));       /* one drive */
    CHECK(NEAR(plan_on_drives(GiB, 0, 0), GiB));       /* unknown: none */
    CHECK(NEAR(plan_margin(100 * GiB), 5 * GiB));
    CHECK(NEAR(plan_margin(10 * GiB), GiB)); /* 5 % is 0.5 GiB: the 1 GiB floor */
    CHECK(NEAR(plan_margin(0), GiB));

    /* The machine: 256 containers of the full profile, one drive
     * with 45 GB free. 256 x 15,000 MiB = 3,840,000 MiB; + 5 % = 4,032,000. */
    struct wl_plan p = {.items = 256 * 1190,
                        .unit = "objects",
                        .bytes = 256 * 15000 * MiB,
                        .writes = 1,
                        .space_known = 1,
                        .data_shards = 1,
                        .free_bytes = 45e9};
    struct plan_totals t;
    plan_totals(&p, &t);
    CHECK(t.verdict == PLAN_TOO_BIG);
    CHECK(NEAR(t.write, 3840000 * MiB) && t.parity == 0);
    CHECK(NEAR(t.margin, 192000 * MiB));
    CHECK(NEAR(t.need, 4032000 * MiB));
    CHECK(NEAR(t.shortfall, 4032000 * MiB - 45e9));
    char buf[64];
    plan_size(buf, sizeof buf, t.write);
    CHECKF(!strcmp(buf, "3.66 TiB"), "%s", buf); /* 3,840,000 / 1024^2 = 3.662 */
    plan_size(buf, sizeof buf, t.need);
    CHECKF(!strcmp(buf, "3.85 TiB"), "%s", buf);

    /* What an earlier prepare left is not written again. */
    p.present = 255 * 15000 * MiB;
    plan_totals(&p, &t);
    CHECK(t.verdict == PLAN_FITS && NEAR(t.write, 15000 * MiB));
    CHECK(NEAR(t.need, 15000 * MiB + GiB)); /* 5 % is 750 MiB: the 1 GiB floor */
    p.present = p.bytes * 2;
    plan_totals(&p, &t);
    CHECK(t.verdict == PLAN_NOTHING && t.write == 0 && t.need == 0);

    /* 4 drives, EC:2: the objects take twice their size. */
    struct wl_plan e = {.unit = "objects",
                        .bytes = 100 * GiB,
                        .writes = 1,
                        .space_known = 1,
                        .data_shards = 2,
                        .parity_shards = 2,
                        .free_bytes = 209 * GiB};
    plan_totals(&e, &t);
    CHECK(NEAR(t.parity, 100 * GiB) && NEAR(t.margin, 10 * GiB) && NEAR(t.need, 210 * GiB));
    CHECK(t.verdict == PLAN_TOO_BIG && NEAR(t.shortfall, GiB));
    e.free_bytes = 210 * GiB; /* exactly enough fits */
    plan_totals(&e, &t);
    CHECK(t.verdict == PLAN_FITS);
    e.space_known = 0;
    plan_totals(&e, &t);
    CHECK(t.verdict == PLAN_UNKNOWN && t.free == -1 && NEAR(t.need, 210 * GiB));

    /* Rows and the corpus: nothing to weigh. */
    struct wl_plan rows = {.unit = "rows", .items = 10000000, .bytes = -1, .writes = 1};
    plan_totals(&rows, &t);
    CHECK(t.verdict == PLAN_NOTHING);
    struct wl_plan corpus = {.unit = "trees", .items = 2, .bytes = 5 * GiB, .writes = 0};
    plan_totals(&corpus, &t);
    CHECK(t.verdict == PLAN_NOTHING);
}

static void test_words(void) {
    char b[64];
    plan_size(b, sizeof b, 0);
    CHECK(!strcmp(b, "0 B"));
    plan_size(b, sizeof b, 512);
    CHECK(!strcmp(b, "512 B"));
    plan_size(b, sizeof b, 1536);
    CHECK(!strcmp(b, "1.50 KiB"));
    plan_size(b, sizeof b, 234.375 * MiB);
    CHECKF(!strcmp(b, "234 MiB"), "%s", b);
    plan_size(b, sizeof b, 45e9);
    CHECKF(!strcmp(b, "41.9 GiB"), "%s", b);
    plan_duration(b, sizeof b, 35.2);
    CHECKF(!strcmp(b, "about 35 s"), "%s", b);
    plan_duration(b, sizeof b, 0.2);
    CHECKF(!strcmp(b, "about 1 s"), "%s", b);
    plan_duration(b, sizeof b, 90);
    CHECKF(!strcmp(b, "about 2 min"), "%s", b);
    plan_duration(b, sizeof b, 4 * 3600 + 10 * 60);
    CHECKF(!strcmp(b, "about 4 h 10 min"), "%s", b);
    plan_duration(b, sizeof b, 3 * 86400);
    CHECKF(!strcmp(b, "about 3.0 days"), "%s", b);
    plan_duration(b, sizeof b, -1);
    CHECK(!strcmp(b, "unknown"));

    struct wl_plan p[2] = {{.items = 304640,
                            .unit = "objects",
                            .bytes = 256 * 15000 * MiB,
                            .writes = 1,
                            .space_known = 1,
                            .data_shards = 1,
                            .free_bytes = 45e9},
                           {.items = 10000000, .unit = "rows", .bytes = -1, .writes = 1}};
    snprintf(p[0].where, sizeof p[0].where, "into MinIO at http://127.0.0.1:9000, bucket 'aops'");
    snprintf(p[0].layout, sizeof p[0].layout, "1 drive, no parity (MinIO admin info)");
    snprintf(p[0].space_src, sizeof p[0].space_src, "statvfs of the local stack's 1 drive");
    snprintf(p[1].where, sizeof p[1].where, "into MariaDB at 127.0.0.1:3307, database 'aops'");
    struct plan_totals t[2];
    plan_totals(&p[0], &t[0]);
    plan_totals(&p[1], &t[1]);
    const char *names[] = {"s3", "db"};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    plan_print(f, names, p, t, 2, 0, "unknown until a prepare here has written 64 MiB or more", 0);
    fclose(f);
    CHECKF(strstr(out, "s3      write 304,640 objects, 3.66 TiB") != NULL, "%s", out);
    CHECK(strstr(out, "into MinIO at http://127.0.0.1:9000, bucket 'aops'") != NULL);
    CHECK(strstr(out, "= 3.85 TiB needed") != NULL);
    CHECKF(strstr(out, "drives' free space: 41.9 GiB (statvfs of the local stack's 1 drive): "
                       "3.80 TiB short") != NULL,
           "%s", out);
    CHECK(strstr(out, "db      write 10,000,000 rows") != NULL);
    CHECK(strstr(out, "time    unknown") != NULL);
    CHECK(strstr(out, "--no-space-check") == NULL);
    free(out);
    /* A measured rate: 3,840,000 MiB at 100 MiB/s is 38,400 s = 10 h 40 min. */
    f = open_memstream(&out, &len);
    plan_print(f, names, p, t, 1, 100 * MiB, "the prepare of 2026-12-01T10:00:00Z", 1);
    fclose(f);
    CHECKF(strstr(out, "time    about 10 h 40 min at this machine's measured upload rate (100 "
                       "MiB/s, the prepare of 2026-12-01T10:00:00Z)") != NULL,
           "%s", out);
    CHECK(strstr(out, "--no-space-check: written even if it does not fit (recorded)") != NULL);
    free(out);

    char line[1024];
    plan_refusal(line, sizeof line, "s3", &p[0], &t[0]);
    CHECK(strchr(line, '\n') == NULL);
    CHECKF(strstr(line, "s3: objects do not fit: 3.85 TiB needed (3.66 TiB of objects + 0 B "
                        "parity + 188 GiB margin), the drives have 41.9 GiB free, 3.80 TiB short; "
                        "nothing written") != NULL,
           "%s", line);
    CHECK(strstr(line, "--profile small") && strstr(line, "--dataset shared") &&
          strstr(line, "--no-space-check"));
}

/* MinIO's /minio/admin/v3/info, cut to what is read (the shape of
 * madmin.InfoMessage: backend.standardSCParity, totalDrivesPerSet and each
 * drive's availspace in bytes). */
static void test_admin_space(void) {
    const char *four =
        "{\"mode\":\"online\",\"backend\":{\"backendType\":\"Erasure\",\"standardSCParity\":2,"
        "\"totalSets\":[1],\"totalDrivesPerSet\":[4]},\"servers\":[{\"drives\":["
        "{\"endpoint\":\"/d1\",\"availspace\":400},{\"endpoint\":\"/d2\",\"availspace\":100},"
        "{\"endpoint\":\"/d3\",\"availspace\":300},{\"endpoint\":\"/d4\",\"availspace\":200}]}]}";
    json_t *j = json_loads(four, 0, NULL);
    unsigned d = 0, p = 0, n = 0;
    double fr = 0;
    CHECK(s3_admin_space(j, &d, &p, &n, &fr) == 0);
    CHECK(d == 2 && p == 2 && n == 4);
    CHECK(fr == 400); /* the least free drive (100) bounds the other three */
    json_decref(j);

    const char *one = "{\"backend\":{\"backendType\":\"Erasure\",\"totalDrivesPerSet\":[1]},"
                      "\"servers\":[{\"drives\":[{\"endpoint\":\"/data\",\"availspace\":5}]}]}";
    j = json_loads(one, 0, NULL);
    CHECK(s3_admin_space(j, &d, &p, &n, &fr) == 0 && d == 1 && p == 0 && n == 1 && fr == 5);
    json_decref(j);

    const char *noroom = "{\"backend\":{\"standardSCParity\":2,\"totalDrivesPerSet\":[4]},"
                         "\"servers\":[{\"drives\":[{},{},{},{}]}]}";
    j = json_loads(noroom, 0, NULL);
    CHECK(s3_admin_space(j, &d, &p, &n, &fr) == 0 && d == 2 && fr == -1);
    json_decref(j);

    const char *bad = "{\"backend\":{\"standardSCParity\":3,\"totalDrivesPerSet\":[4]},"
                      "\"servers\":[{\"drives\":[{},{},{},{}]}]}";
    j = json_loads(bad, 0, NULL);
    CHECK(s3_admin_space(j, &d, &p, &n, &fr) == -1); /* more parity than data: not MinIO's */
    json_decref(j);
    j = json_loads("{\"servers\":[]}", 0, NULL);
    CHECK(s3_admin_space(j, &d, &p, &n, &fr) == -1);
    json_decref(j);
    CHECK(s3_admin_space(NULL, &d, &p, &n, &fr) == -1);
}

/* The "not prepared" line's command: the run's options, less the run's own. */
static void test_hint(void) {
    struct config *cfg = calloc(1, sizeof *cfg);
    char err[1024];
    char *argv[] = {"run",           "--containers", "4",         "--profile", "tiny",
                    "--out",         "/tmp/x",       "--force",   "--dataset", "shared",
                    "--s3-insecure", "--bucket",     "my bucket", "--seed=7",  NULL};
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    CHECKF(options_load(cfg, argc, argv, 1, err, sizeof err) == 0, "%s", err);
    CHECKF(!strcmp(cfg->prepare_hint, "./harness prepare --containers 4 --profile tiny --dataset "
                                      "shared --s3-insecure --bucket 'my bucket' --seed=7"),
           "%s", cfg->prepare_hint);
    char buf[64];
    CHECK(config_prepare_hint(cfg, buf, sizeof buf, "--profile x") == cfg->prepare_hint);
    options_free(cfg);

    /* A shard's run: prepare covers every shard, so the total. */
    memset(cfg, 0, sizeof *cfg);
    char *sharded[] = {"run", "--containers", "4", "--shard", "1/3", "--profile", "tiny", NULL};
    CHECKF(options_load(cfg, 7, sharded, 1, err, sizeof err) == 0, "%s", err);
    CHECKF(!strcmp(cfg->prepare_hint, "./harness prepare --containers 12 --profile tiny"), "%s",
           cfg->prepare_hint);
    options_free(cfg);

    /* No command line: the caller's fallback options. */
    memset(cfg, 0, sizeof *cfg);
    CHECKF(options_load_env(cfg, err, sizeof err) == 0, "%s", err);
    CHECK(cfg->prepare_hint[0] == 0);
    options_free(cfg);
    memset(cfg, 0, sizeof *cfg);
    CHECK(!strcmp(config_prepare_hint(cfg, buf, sizeof buf, "--profile tiny"),
                  "./harness prepare --profile tiny"));
    CHECK(!strcmp(config_prepare_hint(cfg, buf, sizeof buf, NULL), "./harness prepare"));
    free(cfg);
}

int main(void) {
    test_arithmetic();
    test_words();
    test_admin_space();
    test_hint();
    return unit_done("test_prepare_plan");
}
