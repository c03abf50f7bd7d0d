/* merge_cmd.c -- `harness merge (DIR|FILE|URL)... [--out DIR] [--results-url
 * URL]`: fetch every shard's result.json (from run directories, or from
 * the store the shards put them in with --results-url), merge them
 * (merge.c), write the merged result.json and print its summary with the
 * per-host table.
 *
 * Inputs are read in full before anything is written: an unreadable input
 * stops the command with one line and exit 2, leaving nothing behind. Exit 0
 * for a valid merged result, 1 for an invalid one. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../common/config.h"
#include "../common/json.h"
#include "../common/oplog.h"
#include "../common/upgrade.h"
#include "../coordinator/commands.h"
#include "../result/integrity.h"
#include "../result/result.h"
#include "../result/results.h"
#include "../result/runlog.h"
#include "../result/summary.h"
#include "../workloads/workload.h"
#include "merge.h"

struct inputs {
    json_t **r;
    char **name;
    size_t n, cap;
};

static int add_input(struct inputs *in, json_t *r, const char *name) {
    if (in->n == in->cap) {
        size_t cap = in->cap ? in->cap * 2 : 16;
        json_t **a = realloc(in->r, cap * sizeof *a);
        if (a)
            in->r = a;
        char **b = realloc(in->name, cap * sizeof *b);
        if (b)
            in->name = b;
        if (!a || !b)
            return -1;
        in->cap = cap;
    }
    if (!(in->name[in->n] = strdup(name)))
        return -1;
    in->r[in->n++] = r;
    return 0;
}

/* A shard's result read in today's shape (common/upgrade.c): the merge
 * sums one shape only, and a newer build's result is refused, not guessed
 * at. r is released on failure. */
static int upgrade_input(json_t *r, const char *name, char *err, size_t errlen) {
    char why[256];
    if (result_upgrade(r, why, sizeof why) >= 0)
        return 0;
    snprintf(err, errlen, "%s: %s", name, why);
    json_decref(r);
    return -1;
}

static int load_file(const char *path, struct inputs *in, char *err, size_t errlen) {
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    if (!r) {
        snprintf(err, errlen, "%s: %s", path, je.text);
        return -1;
    }
    if (upgrade_input(r, path, err, errlen) != 0)
        return -1;
    if (add_input(in, r, path) != 0) {
        json_decref(r);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

static int is_json_name(const char *s) {
    size_t l = strlen(s);
    return l > 5 && !strcmp(s + l - 5, ".json");
}

/* A run directory (DIR/result.json), or a directory of shards' results:
 * its *.json files and its subdirectories' result.json, in name order. */
static int load_dir(const char *dir, struct inputs *in, char *err, size_t errlen) {
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/result.json", dir);
    if (stat(path, &st) == 0)
        return load_file(path, in, err, errlen);
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort);
    if (n < 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    size_t before = in->n;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *e = ents[i]->d_name;
        snprintf(path, sizeof path, "%s/%s", dir, e);
        if (rc == 0 && e[0] != '.' && stat(path, &st) == 0) {
            if (S_ISREG(st.st_mode) && is_json_name(e))
                rc = load_file(path, in, err, errlen);
            else if (S_ISDIR(st.st_mode)) {
                snprintf(path, sizeof path, "%s/%s/result.json", dir, e);
                if (stat(path, &st) == 0)
                    rc = load_file(path, in, err, errlen);
            }
        }
        free(ents[i]);
    }
    free(ents);
    if (rc == 0 && in->n == before) {
        snprintf(err, errlen, "%s holds no result.json, no *.json and no run directory", dir);
        return -1;
    }
    return rc;
}

/* scheme://BUCKET/PREFIX/: every *.json right under the prefix; a URL ending
 * in .json: that object. */
static int load_url(const struct config *cfg, const char *url, struct inputs *in, char *err,
                    size_t errlen) {
    char bucket[256], prefix[1100], why[1024];
    const struct wl_store *st =
        store_for_url(url, bucket, sizeof bucket, prefix, sizeof prefix - 1, NULL, why, sizeof why);
    if (!st) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    char **keys = NULL;
    size_t nkeys = 0;
    if (is_json_name(prefix)) {
        keys = malloc(sizeof *keys);
        if (!keys || !(keys[0] = strdup(prefix))) {
            free(keys);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        nkeys = 1;
    } else {
        if (prefix[0] && prefix[strlen(prefix) - 1] != '/')
            strcat(prefix, "/");
        if (st->list(cfg, bucket, prefix, &keys, &nkeys, err, errlen) != 0)
            return -1;
    }
    size_t before = in->n;
    int rc = 0;
    for (size_t i = 0; i < nkeys; i++) {
        if (rc == 0 && is_json_name(keys[i])) {
            char *body = NULL, name[2048];
            size_t len = 0;
            snprintf(name, sizeof name, "%s://%s/%s", st->scheme, bucket, keys[i]);
            if (st->get(cfg, bucket, keys[i], &body, &len, err, errlen) != 0) {
                rc = -1;
            } else {
                json_error_t je;
                json_t *r = json_loadb(body, len, 0, &je);
                if (!r) {
                    snprintf(err, errlen, "%s: %s", name, je.text);
                    rc = -1;
                } else if (upgrade_input(r, name, err, errlen) != 0) {
                    rc = -1;
                } else if (add_input(in, r, name) != 0) {
                    json_decref(r);
                    snprintf(err, errlen, "out of memory");
                    rc = -1;
                }
            }
            free(body);
        }
        free(keys[i]);
    }
    free(keys);
    if (rc == 0 && in->n == before) {
        snprintf(err, errlen, "no result files (*.json) under %s", url);
        return -1;
    }
    return rc;
}

/* The store's settings (endpoint, credentials) as a run would have them:
 * defaults, credentials file, environment. No workload is checked: merge
 * runs none. */
static int store_config(struct config *cfg, char *err, size_t errlen) {
    if (workloads_config_init(cfg, err, errlen) != 0)
        return -1;
    struct opt_set sets[CONFIG_MAX_WL + 1];
    size_t n = workloads_option_sets(cfg, sets, CONFIG_MAX_WL + 1);
    char cred[4200];
    int must;
    config_credentials_path(cfg, cred, sizeof cred, &must);
    return opt_load_env(sets, n, cred, must, err, errlen);
}

static int mkdir_p(const char *dir, char *err, size_t errlen) {
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "--out %s: cannot create the directory: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Where an input's per-operation log is: "DIR/ops.log" beside "DIR/result.json",
 * "X.ops.log" beside "X.json" (a shard's --results-url key). */
static void log_name(const char *result, char *out, size_t len) {
    size_t l = strlen(result);
    if (l >= 11 && !strcmp(result + l - 11, "result.json"))
        snprintf(out, len, "%.*s%s", (int)(l - 11), result, OPLOG_FILE);
    else
        snprintf(out, len, "%.*s.%s", (int)(l > 5 ? l - 5 : l), result, OPLOG_FILE);
}

/* The shards' own results and logs beside the merged one, under shards/,
 * so `harness check` can recompute the fleet (oplog.shards). */
static void keep_shards(const struct config *cfg, struct inputs *in, json_t *res, const char *dir) {
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/shards", dir);
    mkdir(sub, 0755);
    json_t *list = json_array();
    /* What the kept logs hold, as a single run says of its own (runlog_json):
     * their records summed, their format when they share one. */
    uint64_t records = 0;
    const json_t *fmt = NULL, *rbytes = NULL;
    int mixed = 0, kept = 0;
    for (size_t i = 0; i < in->n; i++) {
        json_t *ji = json_object_get(json_object_get(in->r[i], "shard"), "index");
        if (!json_is_integer(ji))
            continue;
        int idx = (int)json_integer_value(ji);
        char rel[128], lrel[128], path[4400], src[4400], err[1024];
        snprintf(rel, sizeof rel, "shards/shard-%d.result.json", idx);
        snprintf(lrel, sizeof lrel, "shards/shard-%d.%s", idx, OPLOG_FILE);
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        if (json_write_atomic(path, in->r[i], JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0)
            fprintf(stderr, "harness merge: cannot write %s: %s\n", path, strerror(errno));
        log_name(in->name[i], src, sizeof src);
        char *data = NULL;
        size_t len = 0;
        int got;
        if (is_store_url(src)) {
            char bucket[256], key[1100];
            const struct wl_store *st =
                store_for_url(src, bucket, sizeof bucket, key, sizeof key, NULL, err, sizeof err);
            got = st && st->get(cfg, bucket, key, &data, &len, err, sizeof err) == 0 ? 0 : -1;
        } else
            got = oplog_bytes(src, &data, &len);
        snprintf(path, sizeof path, "%s/%s", dir, lrel);
        FILE *f = got == 0 ? fopen(path, "wb") : NULL;
        int ok = f && fwrite(data, 1, len, f) == len;
        if (f && fclose(f) != 0)
            ok = 0;
        free(data);
        if (!ok)
            json_array_append_new(json_object_get(res, "warnings"),
                                  json_sprintf("shard %d's per-operation log not found at %s: "
                                               "harness check cannot recompute this result",
                                               idx, src));
        if (ok) {
            const json_t *o = json_object_get(in->r[i], "oplog");
            json_t *n = json_object_get(o, "records");
            const json_t *f = json_object_get(o, "format"), *b = json_object_get(o, "record_bytes");
            if (json_is_integer(n) && json_integer_value(n) > 0 &&
                __builtin_add_overflow(records, (uint64_t)json_integer_value(n), &records))
                records = UINT64_MAX; /* from files: held, not wrapped */
            mixed |= kept && (!json_equal(f, fmt) || !json_equal(b, rbytes));
            fmt = kept ? fmt : f, rbytes = kept ? rbytes : b;
            kept = 1;
        }
        json_array_append_new(list, json_pack("{s:i, s:O, s:s, s:o}", "shard", idx, "run_id",
                                              json_object_get(in->r[i], "run_id")
                                                  ? json_object_get(in->r[i], "run_id")
                                                  : json_null(),
                                              "result", rel, "file",
                                              ok ? json_string(lrel) : json_null()));
    }
    int same = kept && !mixed && json_is_string(fmt) && json_is_integer(rbytes) &&
               json_integer_value(rbytes) > 0 && json_integer_value(rbytes) < 65536;
    json_t *o = runlog_json(NULL, records, same ? (int)json_integer_value(rbytes) : -1,
                            same ? json_string_value(fmt) : NULL);
    json_object_set_new(o, "shards", list);
    result_put(res, RK_OPLOG, o, NULL);
}

static void usage(FILE *f) {
    char s[64];
    store_schemes(s, sizeof s);
    fprintf(f,
            "usage: harness merge (RUN_DIR|DIR|FILE|%s://BUCKET/PREFIX/)... [--out DIR]\n"
            "                     [--results-url %s://BUCKET/PREFIX/merged/] [--quiet]\n"
            "  Merges the shards of one run (harness run --shard I/N) into one result.json with\n"
            "  a per-host table (shards[]): AOPS over the common release to the last completion,\n"
            "  latency from the shards' histograms added up. An input is a shard's run\n"
            "  directory, a directory of them or of their result files, a result file, or the\n"
            "  prefix the shards put their results under (--results-url); the store's endpoint\n"
            "  and credentials come from the environment or the credentials file, as for a run\n"
            "  (harness --help).\n"
            "  --out DIR          where the merged result.json goes (results/merged-<timestamp>)\n"
            "  --results-url URL  also put it there (a prefix ending in / gets result.json)\n"
            "  --sign KEY.pem     sign it (Ed25519): RUN_DIR/result.dsse.json, harness verify\n"
            "exit status: 0 valid, 1 invalid (missing, duplicated or invalid shards, different\n"
            "configs or versions, clocks more than 1 s apart), 2 bad usage or unreadable input.\n",
            s, s);
}

int merge_main(int argc, char **argv) {
    const char *out = NULL, *url = NULL, *sign = NULL;
    int quiet = 0, rc = 2;
    char err[4400];
    struct inputs in = {0};
    const char **args = calloc((size_t)argc + 1, sizeof *args);
    size_t nargs = 0;
    struct config *cfg = calloc(1, sizeof *cfg);
    if (!args || !cfg) {
        fprintf(stderr, "harness merge: out of memory\n");
        goto done;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            rc = 0;
            goto done;
        } else if ((!strcmp(argv[i], "--out") || !strcmp(argv[i], "--results-url") ||
                    !strcmp(argv[i], "--sign")) &&
                   i + 1 >= argc) {
            fprintf(stderr, "harness merge: %s needs a value\n", argv[i]);
            goto done;
        } else if (!strcmp(argv[i], "--out")) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--results-url")) {
            url = argv[++i];
        } else if (!strcmp(argv[i], "--sign")) {
            sign = argv[++i];
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "harness merge: unknown option '%s' (see harness merge --help)\n",
                    argv[i]);
            goto done;
        } else {
            args[nargs++] = argv[i];
        }
    }
    if (!nargs) {
        fprintf(stderr, "harness merge: give the shards' results: run directories or a "
                        "store prefix (see harness merge --help)\n");
        goto done;
    }
    if (store_config(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "harness merge: %s\n", err);
        goto done;
    }
    if (url) {
        char bucket[256], prefix[1024];
        if (!store_for_url(url, bucket, sizeof bucket, prefix, sizeof prefix, NULL, err,
                           sizeof err)) {
            fprintf(stderr, "harness merge: --results-url %s\n", err);
            goto done;
        }
    }
    for (size_t i = 0; i < nargs; i++) {
        struct stat st;
        int r;
        if (is_store_url(args[i]))
            r = load_url(cfg, args[i], &in, err, sizeof err);
        else if (stat(args[i], &st) != 0) {
            snprintf(err, sizeof err, "%s: %s", args[i], strerror(errno));
            r = -1;
        } else
            r = S_ISDIR(st.st_mode) ? load_dir(args[i], &in, err, sizeof err)
                                    : load_file(args[i], &in, err, sizeof err);
        if (r != 0) {
            fprintf(stderr, "harness merge: %s\n", err);
            goto done;
        }
    }

    json_t *res = merge_results(in.r, (const char *const *)in.name, in.n);
    if (!res) {
        fprintf(stderr, "harness merge: out of memory\n");
        rc = 1;
        goto done;
    }
    char dir[4096];
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else {
        char ts[64];
        time_t t = time(NULL);
        strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", localtime(&t));
        snprintf(dir, sizeof dir, "%s/results/merged-%s", cfg->harness_dir, ts);
    }
    int valid = json_is_true(json_object_get(res, "valid"));
    rc = valid ? 0 : 1;
    if (mkdir_p(dir, err, sizeof err) == 0)
        keep_shards(cfg, &in, res, dir);
    result_reportable(res);
    if (mkdir_p(dir, err, sizeof err) != 0 || results_write(res, dir, err, sizeof err) != 0 ||
        integrity_seal(dir, sign, res, err, sizeof err) != 0) {
        fprintf(stderr, "harness merge: %s\n", err);
        rc = 2;
    } else {
        if (!quiet || !valid) {
            results_print_summary(res, dir, stdout);
            shards_print(res, stdout);
        }
        if (url) {
            char bucket[256], prefix[1100], key[1200];
            const struct wl_store *st = store_for_url(url, bucket, sizeof bucket, prefix,
                                                      sizeof prefix, NULL, err, sizeof err);
            size_t l = strlen(prefix);
            if (!l || prefix[l - 1] == '/')
                snprintf(key, sizeof key, "%sresult.json", prefix);
            else if (is_json_name(prefix))
                snprintf(key, sizeof key, "%s", prefix);
            else
                snprintf(key, sizeof key, "%s/result.json", prefix);
            char *body = json_dumps(res, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
            if (!body || st->put(cfg, bucket, key, body, strlen(body), err, sizeof err) != 0) {
                fprintf(stderr, "harness merge: %s\n", body ? err : "out of memory");
                rc = rc ? rc : 1;
            } else if (!quiet)
                printf("  also at: %s://%s/%s\n", st->scheme, bucket, key);
            free(body);
        }
        if (!valid)
            fprintf(stderr, "harness merge: merged result invalid: %s\n",
                    json_string_value(json_array_get(json_object_get(res, "invalid_reasons"), 0)));
    }
    json_decref(res);
done:
    for (size_t i = 0; i < in.n; i++) {
        json_decref(in.r[i]);
        free(in.name[i]);
    }
    free(in.r);
    free(in.name);
    free(args);
    if (cfg)
        workloads_config_free(cfg);
    free(cfg);
    return rc;
}
