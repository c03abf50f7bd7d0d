/* rerun.c -- `harness rerun RUN_DIR [options]`: the same job again, as the
 * result records it (provenance.invocation). The result may come from
 * anyone, so only the options that define the job are replayed
 * (rerun_args.c holds the allow-list); endpoints, credentials, BMCs,
 * output paths, keys and this host's PIDs and CPU pins are the auditor's
 * own: their environment, or options after RUN_DIR, which are added last
 * (they win: --out, --sign) and are not filtered. What it will run is
 * printed before it runs.
 * Then the two AOPS side by side: MLPerf's auditors call results within
 * 2 % the same, and `harness compare` shows the rest. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/json.h"
#include "commands.h"
#include "rerun_args.h"

#ifndef AOPS_COMMIT
#define AOPS_COMMIT "unknown"
#endif

#define REPLICATION_BAR 0.02

/* result.json, refused with one line unless it is a regular file of
 * sane size (a FIFO or /dev/zero there must not hang the auditor). */
static json_t *load_result(const char *path) {
    char err[4400];
    json_t *j = json_load_bounded(path, 64u << 20, 0, err, sizeof err);
    if (!j)
        fprintf(stderr, "harness rerun: %s\n", err);
    return j;
}

int rerun_main(int argc, char **argv, const struct result_exports *ex) {
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(
            argc < 2 ? stderr : stdout,
            "usage: harness rerun RUN_DIR [options]\n"
            "  Runs again the configuration RUN_DIR/result.json records (same seed, profile\n"
            "  and options; secrets from the environment), into --out or results/<time>-rerun,\n"
            "  then prints both AOPS and their ratio (within 2 %%: a replication).\n");
        return argc < 2 ? 2 : 0;
    }
    const char *dir = argv[1];
    char path[4200];
    snprintf(path, sizeof path, "%s/result.json", dir);
    json_t *old = load_result(path);
    if (!old)
        return 2;
    const json_t *inv = jget(old, "provenance.invocation");
    if (json_object_get(old, "merge") || json_object_get(old, "shard")) {
        fprintf(stderr,
                "harness rerun: %s is %s: run the fleet again with the same --shard and a "
                "new --start-at on each host\n",
                dir, json_object_get(old, "merge") ? "a merged result" : "one shard of a run");
        json_decref(old);
        return 2;
    }
    if (!inv) {
        fprintf(stderr,
                "harness rerun: %s records no invocation (made before results kept "
                "them)\n",
                dir);
        json_decref(old);
        return 2;
    }
    const char *was = jstr(old, "provenance.build.commit");
    if (was && strcmp(was, AOPS_COMMIT))
        fprintf(stderr, "harness rerun: note: %s was made by commit %.12s, this harness is %.12s\n",
                dir, was, AOPS_COMMIT);
    struct rerun_args ra;
    char err[512];
    if (rerun_args_from_result(old, &ra, err, sizeof err) != 0) {
        fprintf(stderr, "harness rerun: %s: %s; nothing run\n", path, err);
        json_decref(old);
        return 2;
    }
    for (int k = 0; k < ra.ndropped; k++)
        fprintf(stderr, "%s\n", ra.dropped[k]);
    char **av = calloc(4 + (size_t)ra.argc + (size_t)argc, sizeof *av), out[4200] = "";
    int n = 0;
    if (!av) {
        fprintf(stderr, "harness rerun: out of memory\n");
        rerun_args_free(&ra);
        json_decref(old);
        return 2;
    }
    av[n++] = "run";
    for (int k = 0; k < ra.argc; k++)
        av[n++] = ra.argv[k];
    for (int k = 2; k < argc; k++) {
        av[n++] = argv[k];
        if (!strcmp(argv[k], "--out") && k + 1 < argc)
            snprintf(out, sizeof out, "%s", argv[k + 1]);
        else if (!strncmp(argv[k], "--out=", 6))
            snprintf(out, sizeof out, "%s", argv[k] + 6);
    }
    if (!out[0]) {
        char ts[64];
        time_t t = time(NULL);
        strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", localtime(&t));
        snprintf(out, sizeof out, "results/%s-rerun", ts);
        av[n++] = "--out";
        av[n++] = out;
    }
    fprintf(stderr, "harness rerun: %s again into %s:", dir, out);
    for (int k = 1; k < n; k++) { /* one line: a control character in a value as '?' */
        fputc(' ', stderr);
        for (const char *p = av[k]; *p; p++)
            fputc((unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p, stderr);
    }
    fputc('\n', stderr);
    int rc = run_main(n, av, ex);
    snprintf(path, sizeof path, "%s/result.json", out);
    json_t *now = json_load_file(path, 0, NULL);
    double a = jnum(old, "totals.aops"), b = jnum(now, "totals.aops");
    if (isfinite(a) && isfinite(b) && a > 0)
        printf("rerun: AOPS %.2f, the original %.2f: %.3fx, %s 2 %% (%s)\n"
               "  side by side: harness compare %s %s\n",
               b, a, b / a, fabs(b / a - 1) <= REPLICATION_BAR ? "within" : "NOT within",
               fabs(b / a - 1) <= REPLICATION_BAR ? "replicated" : "not replicated", dir, out);
    json_decref(now);
    rerun_args_free(&ra);
    free(av);
    json_decref(old);
    return rc;
}
