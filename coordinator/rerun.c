/* rerun.c -- `harness rerun RUN_DIR [options]`: the same job again, as the
 * result records it (provenance.invocation): the options as given, and
 * every option the environment had set, given explicitly this time (the
 * endpoint, the database, the socket); secrets come from the environment
 * as always. Options after RUN_DIR are added last (they win: --out, --sign).
 * Then the two AOPS side by side: MLPerf's auditors call results within
 * 2 % the same, and `harness compare` shows the rest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/json.h"
#include "commands.h"

#ifndef AOPS_COMMIT
#define AOPS_COMMIT "unknown"
#endif

#define REPLICATION_BAR 0.02

/* Options whose recorded value must not be given again: where the result
 * went, and a start time that has passed. */
static int dropped(const char *a) {
    static const char *const drop[] = {"--out", "--start-at", "--results-url", "--sign"};
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++) {
        size_t l = strlen(drop[i]);
        if (!strncmp(a, drop[i], l) && (a[l] == 0 || a[l] == '='))
            return a[l] == 0 ? 2 : 1; /* 2: its value is the next argument */
    }
    return 0;
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
    json_error_t je;
    json_t *old = json_load_file(path, 0, &je);
    if (!old) {
        fprintf(stderr, "harness rerun: %s: %s\n", path, je.text);
        return 2;
    }
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
    const json_t *rec = json_object_get(inv, "argv"),
                 *env = json_object_get(inv, "environment_options");
    size_t cap = 4 + 2 * json_object_size(env) + json_array_size(rec) + (size_t)argc;
    char **av = calloc(cap, sizeof *av), out[4200] = "";
    char **owned = calloc(cap, sizeof *owned); /* what av holds that is ours to free */
    int n = 0, nown = 0;
    if (!av || !owned) {
        fprintf(stderr, "harness rerun: out of memory\n");
        free(av);
        free(owned);
        json_decref(old);
        return 2;
    }
    av[n++] = "run";
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)env, name, v) {
        if (!json_string_value(v)[0])
            continue;
        char opt[256];
        snprintf(opt, sizeof opt, "--%s", name);
        av[n++] = owned[nown++] = strdup(opt);
        av[n++] = (char *)json_string_value(v);
    }
    size_t i;
    for (i = 0; i < json_array_size(rec); i++) {
        const char *a = json_string_value(json_array_get(rec, i));
        int d = a ? dropped(a) : 1;
        if (d == 2)
            i++;
        else if (!d)
            av[n++] = (char *)a;
    }
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
    for (int k = 1; k < n; k++)
        fprintf(stderr, " %s", av[k]);
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
    for (int k = 0; k < nown; k++)
        free(owned[k]);
    free(owned);
    free(av);
    json_decref(old);
    return rc;
}
