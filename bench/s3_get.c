/* s3_get.c -- the driver bench/s3 runs: GETs of 1 MiB or 10 MiB objects at a
 * given concurrency, either through the harness's own GET path (s3_client_open +
 * s3_run, the code a worker runs) or through a peer client (the curl
 * command line, one process per stream, reusing its connection across
 * URLs), and one line of figures per measurement.
 *
 *   s3_get prepare NOBJ [NOBJ10]            upload NOBJ 1 MiB objects and NOBJ10 10 MiB
 *                                           ones (idempotent; with NOBJ10 all 500 1 MiB
 *                                           ones: the manifest lists ops from 0 on)
 *   s3_get harness|unverified|curl CONC TOTAL NOBJ [SIZE]
 *                                           TOTAL GETs over CONC processes of the first
 *                                           NOBJ objects of SIZE (1MiB, the default, or
 *                                           10MiB); unverified: the harness with
 *                                           --no-verify (no CRC-32C)
 *   s3_get keys NOBJ [SIZE]                 the objects' keys, one a line (for the
 *                                           peers that sign their own requests)
 *
 * Output: "<client> conc=C gets=G errors=E bytes=B wall=S cpu=S open_cpu=S"
 * where cpu is user+system seconds of the client processes
 * (RUSAGE_CHILDREN), so the server's CPU is not counted. The harness's
 * processes open (connect, check the objects, presign every GET) before a
 * common start, as a run's workers do before the barrier: wall is timed
 * from that start, and their open's CPU (open_cpu) is taken out of cpu, as
 * wrk's presigning is outside its own. Credentials come from the stack's file, as
 * for the harness; curl gets them in a 0600 config file, never on argv. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline.h"
#include "s3_util.h"
#include "util.h"
#include "workload.h"

extern const struct workload s3_workload;

/* The size class read (s3_class_names: 0 is 1 MiB, 1 is 10 MiB), and the op
 * of a process's j-th GET: the same spread over the class's first nobj
 * objects for every client. */
static int klass;
static unsigned op_of(unsigned id, unsigned j, unsigned nobj) {
    return s3_class_first_op(klass) + (id * 7919 + j) % nobj;
}

static double self_cpu(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

/* As a worker does: open (connect, read the manifest, check the objects,
 * presign) before a common start, whose CPU is written to *open_cpu so the
 * measurement counts the GETs only, as a run's window does (and as wrk's
 * presigned URLs are made outside its CPU). */
static int harness_child(const struct config *cfg, unsigned id, unsigned n, unsigned nobj,
                         int ready_fd, int go_fd, double *open_cpu) {
    char err[WL_ERRLEN];
    void *st = s3_client_open(cfg, id, err, sizeof err);
    if (!st) {
        fprintf(stderr, "s3_get: %s\n", err);
        return 2;
    }
    *open_cpu = self_cpu();
    char b = 'R';
    if (write(ready_fd, &b, 1) != 1 || read(go_fd, &b, 1) != 0)
        return 2; /* the parent is gone, or did not release: no measurement */
    int errors = 0;
    for (unsigned j = 0; j < n; j++) {
        struct op_result r = {.klass = -1};
        for (unsigned h = 0; h < WL_MAX_HISTS; h++)
            r.hist_ns[h] = -1;
        if (s3_run(st, 0, op_of(id, j, nobj), &r) < 0 && errors++ == 0)
            fprintf(stderr, "s3_get: %s\n", r.err);
    }
    s3_workload.close(st);
    return errors ? 1 : 0;
}

/* A curl config file: credentials, signing, and n URLs to /dev/null. */
static int curl_config(const struct config *cfg, const char *path, unsigned id, unsigned n,
                       unsigned nobj) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return -1;
    fprintf(f, "user = \"%s:%s\"\naws-sigv4 = \"aws:amz:%s:s3\"\n", s3_opts(cfg)->access_key,
            s3_opts(cfg)->secret_key, s3_opts(cfg)->region);
    fprintf(f,
            "header = \"x-amz-content-sha256: " S3_EMPTY_SHA256 "\"\nsilent\nshow-error\nfail\n");
    fprintf(f, "write-out = \"%%{size_download}\\n\"\n");
    for (unsigned j = 0; j < n; j++) {
        char key[S3_KEYLEN], url[S3_URLLEN];
        s3_key(key, sizeof key, cfg->profile, 0, op_of(id, j, nobj));
        s3_url(url, sizeof url, cfg, key);
        fprintf(f, "url = \"%s\"\noutput = \"/dev/null\"\n", url);
    }
    return fclose(f);
}

int main(int argc, char **argv) {
    struct config cfg;
    char err[WL_ERRLEN];
    /* As `./harness --workloads s3`: only the s3 workload's options are
     * checked (not the search patterns of a repository it may not run in). */
    char *args[] = {"s3_get", "--workloads", "s3", NULL};
    if (options_load(&cfg, 3, args, 1, err, sizeof err) != 0) {
        fprintf(stderr, "s3_get: %s\n", err);
        return 2;
    }
    cfg.profile = PROFILE_FULL; /* class 0: 1 MiB objects, class 1: 10 MiB */
    cfg.n = 1;
    const char *bucket = getenv("S3_BENCH_BUCKET");
    if (options_set(&cfg, "dataset", "shared", err, sizeof err) < 0 ||
        options_set(&cfg, "bucket", bucket ? bucket : "aops-bench", err, sizeof err) < 0) {
        fprintf(stderr, "s3_get: %s\n", err);
        return 2;
    }

    /* SIZE: the optional last argument of keys (4th) and of a measurement (6th). */
    int keys = argc > 1 && !strcmp(argv[1], "keys");
    const char *size = argc == (keys ? 4 : 6) ? argv[argc - 1] : "1MiB";
    klass = !strcmp(size, "10MiB");
    if (strcmp(size, s3_class_names[klass])) {
        fprintf(stderr, "s3_get: size '%s': 1MiB or 10MiB\n", size);
        return 2;
    }
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "prepare")) {
        unsigned n10 = argc == 4 ? (unsigned)atoi(argv[3]) : 0;
        unsigned nops = n10 ? s3_class_first_op(1) + n10 : (unsigned)atoi(argv[2]);
        if (s3_prepare_ops(&cfg, nops, err, sizeof err) < 0) {
            fprintf(stderr, "s3_get: %s\n", err);
            return 1;
        }
        return 0;
    }
    if ((argc == 3 || argc == 4) && keys) {
        unsigned nobj = (unsigned)atoi(argv[2]);
        if (nobj < 1 || nobj > s3_class_count(klass))
            return 2;
        for (unsigned i = 0; i < nobj; i++) {
            char key[S3_KEYLEN];
            s3_key(key, sizeof key, cfg.profile, 0, s3_class_first_op(klass) + i);
            puts(key);
        }
        return 0;
    }
    if ((argc != 5 && argc != 6) ||
        (strcmp(argv[1], "harness") && strcmp(argv[1], "unverified") && strcmp(argv[1], "curl"))) {
        fprintf(stderr, "usage: s3_get prepare NOBJ [NOBJ10] | s3_get keys NOBJ [SIZE] |\n"
                        "       s3_get harness|unverified|curl CONC TOTAL NOBJ [SIZE]\n");
        return 2;
    }
    int use_curl = !strcmp(argv[1], "curl");
    cfg.no_verify = !strcmp(argv[1], "unverified");
    unsigned conc = (unsigned)atoi(argv[2]), total = (unsigned)atoi(argv[3]);
    unsigned nobj = (unsigned)atoi(argv[4]), per = total / conc;
    char dir[] = "/tmp/s3_get.XXXXXX";
    if (use_curl && !mkdtemp(dir)) {
        fprintf(stderr, "s3_get: mkdtemp: %s\n", strerror(errno));
        return 2;
    }
    char cfgpath[64][64], outpath[64][64];
    if (conc < 1 || conc > 64 || nobj < 1 || nobj > s3_class_count(klass))
        return 2;
    for (unsigned i = 0; use_curl && i < conc; i++) {
        snprintf(cfgpath[i], sizeof cfgpath[i], "%s/c%u", dir, i);
        snprintf(outpath[i], sizeof outpath[i], "%s/o%u", dir, i);
        if (curl_config(&cfg, cfgpath[i], i, per, nobj) < 0)
            return 2;
    }

    /* The harness's processes open first and start together (ready, then go
     * at EOF); curl's start is its own and stays inside the measurement. */
    int ready[2], go[2];
    double *open_cpu =
        mmap(NULL, 64 * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (open_cpu == MAP_FAILED || pipe(ready) < 0 || pipe(go) < 0) {
        fprintf(stderr, "s3_get: %s\n", strerror(errno));
        return 2;
    }
    int64_t t0 = now_ns();
    for (unsigned i = 0; i < conc; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(ready[0]);
            close(go[1]);
            if (!use_curl)
                _exit(harness_child(&cfg, i, per, nobj, ready[1], go[0], &open_cpu[i]));
            int fd = open(outpath[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
            dup2(fd, 1);
            execlp("curl", "curl", "-K", cfgpath[i], (char *)NULL);
            _exit(127);
        }
    }
    close(ready[1]);
    close(go[0]);
    if (!use_curl) {
        char b;
        unsigned up = 0;
        while (up < conc && read(ready[0], &b, 1) == 1)
            up++; /* EOF before conc: one failed to open, and said why */
        t0 = now_ns();
    }
    close(go[1]);
    int failed = 0, st;
    while (wait(&st) > 0)
        failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    double wall = (double)(now_ns() - t0) / 1e9;
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
           opened = 0;
    for (unsigned i = 0; !use_curl && i < conc; i++)
        opened += open_cpu[i];
    cpu -= opened;

    /* Bytes: the harness checks every body against its size itself; for
     * curl, sum what it says it downloaded. */
    unsigned long long bytes = (unsigned long long)per * conc * s3_class_size(cfg.profile, klass);
    if (use_curl) {
        bytes = 0;
        for (unsigned i = 0; i < conc; i++) {
            FILE *f = fopen(outpath[i], "r");
            unsigned long long b;
            while (f && fscanf(f, "%llu", &b) == 1)
                bytes += b;
            if (f)
                fclose(f);
            unlink(outpath[i]);
            unlink(cfgpath[i]);
        }
        rmdir(dir);
    }
    printf("%s conc=%u gets=%u errors=%d bytes=%llu wall=%.3f cpu=%.3f open_cpu=%.3f\n", argv[1],
           conc, per * conc, failed, bytes, wall, cpu, opened);
    return failed ? 1 : 0;
}
