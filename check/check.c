/* check.c -- `harness check RUN_DIR`: recompute a result from what it
 * was made of, and say every figure that differs (see check.h).
 *
 *   a run        its figures from RUN_DIR/ops.log (recompute.c), its integrity
 *                digests, its reportable verdict;
 *   a --repeat   each run under runs/<i> as above, the spread (repeats.aops[],
 *                median, min, max, mean, CV) from those runs' recomputed AOPS, and
 *                the headline from the median run's log;
 *   a merge      each shard's copy under shards/ as above, and the fleet's figures
 *                from all the shards' logs on one time line.
 * Exit 0 when everything agrees, 1 naming each figure that differs with both
 * values, 2 when it cannot check at all (no result, no log, a truncated log,
 * a log of another run), in one line. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/canon.h"
#include "../common/digest.h"
#include "../common/json.h"
#include "../common/reportable.h"
#include "check.h"

#define REL_REPEAT 1e-8 /* AOPS printed to 10 digits in each run and in the spread */

static json_t *load(const char *path, char *err, size_t len) {
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    if (!r)
        snprintf(err, len, "%s: %s", path, errno == ENOENT ? "missing" : je.text);
    return r;
}

/* integrity: the canonical digest, and every file it lists, as they are now. */
static void check_integrity(struct findings *f, const json_t *res, const char *dir) {
    const json_t *in = json_object_get(res, "integrity");
    char sha[SHA256_HEX], err[1024];
    f->compared++;
    if (!json_is_object(in)) {
        finding(f, "integrity: result.json has none (made before the harness sealed results)");
        return;
    }
    const char *want = jstr(in, "result_sha256");
    if (canon_sha256(res, sha) != 0 || !want || strcmp(sha, want))
        finding(f,
                "integrity.result_sha256: result.json %s, its content now hashes to %s "
                "(result.json was edited after the run)",
                want ? want : "(none)", sha);
    const char *name;
    json_t *v;
    json_object_foreach(json_object_get(in, "files"), name, v) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        f->compared++;
        if (sha256_file_hex(path, sha, err, sizeof err) != 0)
            finding(f, "integrity.files.%s: %s", name, err);
        else if (!json_is_string(v) || strcmp(sha, json_string_value(v)))
            finding(f,
                    "integrity.files.%s: result.json %s, the file now %s (changed after the "
                    "run)",
                    name, json_string_value(v) ? json_string_value(v) : "(none)", sha);
    }
}

static void check_reportable(struct findings *f, const json_t *res) {
    json_t *why = reportable_reasons(res);
    int want = json_array_size(why) == 0;
    f->compared++;
    const json_t *have = json_object_get(res, "reportable");
    if (!json_is_boolean(have))
        finding(f, "reportable: result.json has none, the rules say %s", want ? "true" : "false");
    else if (json_is_true(have) != want)
        finding(f, "reportable: result.json %s, the rules say %s%s%s",
                json_is_true(have) ? "true" : "false", want ? "true" : "false", want ? "" : ": ",
                want ? "" : json_string_value(json_array_get(why, 0)));
    else if (!json_equal(why, json_object_get(res, "nonreportable_reasons")))
        finding(f, "nonreportable_reasons: result.json's differ from the rules' (%zu vs %zu)",
                json_array_size(json_object_get(res, "nonreportable_reasons")),
                json_array_size(why));
    json_decref(why);
}

/* Read a log and check it belongs to res. 0, or -1 with err (one line). */
static int load_log(const char *path, const json_t *res, struct oplog_header *h,
                    struct oplog_rec **recs, char *err, size_t len) {
    if (oplog_read(path, h, recs, err, len) != 0)
        return -1;
    const char *id = jstr(res, "run_id");
    if (!id || strcmp(id, h->run_id)) {
        snprintf(err, len, "%s is the log of another run (run id %s; result.json's is %s)", path,
                 h->run_id[0] ? h->run_id : "(none)", id ? id : "(none)");
        free(*recs);
        *recs = NULL;
        return -1;
    }
    double n = jnum(res, "oplog.records");
    if (isfinite(n) && (uint64_t)n != h->records) {
        snprintf(err, len, "%s holds %llu records, result.json says the run wrote %.0f", path,
                 (unsigned long long)h->records, n);
        free(*recs);
        *recs = NULL;
        return -1;
    }
    return 0;
}

/* One run: integrity, figures from its log, the reportable verdict. The
 * log is dir/<oplog.file>. Returns 0, or -1 with err when it cannot check. */
static int check_run(struct findings *f, const json_t *res, const char *dir, char *err,
                     size_t len) {
    char path[8192];
    const char *file = jstr(res, "oplog.file");
    snprintf(path, sizeof path, "%s/%s", dir, file ? file : OPLOG_FILE);
    struct oplog_header h;
    struct oplog_rec *recs = NULL;
    if (load_log(path, res, &h, &recs, err, len) != 0)
        return -1;
    check_integrity(f, res, dir);
    struct logset ls = {1, &h, &recs, NULL};
    recompute_check(f, res, &ls, 0);
    check_reportable(f, res);
    free(recs);
    return 0;
}

static double run_aops(const char *dir, const char *run, char *err, size_t len) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s/result.json", dir, run);
    json_t *r = load(path, err, len);
    double a = r ? jnum(r, "totals.aops") : NAN;
    json_decref(r);
    return a;
}

static int dcmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* --repeat: every run, then the spread and the headline. */
static int check_repeated(struct findings *f, const json_t *res, const char *dir, char *err,
                          size_t len) {
    const json_t *rep = json_object_get(res, "repeats"), *runs = json_object_get(rep, "runs");
    size_t n = json_array_size(runs), i;
    const json_t *v;
    double *a = calloc(n ? n : 1, sizeof *a);
    if (!a)
        return -1;
    json_array_foreach(runs, i, v) {
        char sub[8192], label[256], rpath[8300];
        snprintf(sub, sizeof sub, "%s/%s", dir, json_string_value(v));
        snprintf(rpath, sizeof rpath, "%s/result.json", sub);
        json_t *r = load(rpath, err, len);
        if (!r) {
            free(a);
            return -1;
        }
        snprintf(label, sizeof label, "%s: ", json_string_value(v));
        struct findings g = {f->diffs, 0, label};
        int rc = check_run(&g, r, sub, err, len);
        f->compared += g.compared;
        json_decref(r);
        if (rc != 0) {
            free(a);
            return -1;
        }
        a[i] = run_aops(dir, json_string_value(v), err, len);
    }
    /* The spread, by its own arithmetic. */
    double *s = malloc((n ? n : 1) * sizeof *s), sum = 0;
    size_t m = 0;
    for (i = 0; s && i < n; i++) {
        char p[64];
        snprintf(p, sizeof p, "repeats.aops.%zu", i);
        compare_num(f, res, p, a[i], REL_REPEAT, 1e-9);
        if (isfinite(a[i]))
            s[m++] = a[i], sum += a[i];
    }
    if (s && m) {
        double *sorted = malloc(m * sizeof *sorted);
        if (sorted) {
            memcpy(sorted, s, m * sizeof *s);
            qsort(sorted, m, sizeof *sorted, dcmp);
            double med = sorted[(m - 1) / 2], mean = sum / (double)m, ss = 0;
            for (size_t k = 0; k < m; k++)
                ss += (s[k] - mean) * (s[k] - mean);
            compare_num(f, res, "repeats.aops_median", med, REL_REPEAT, 1e-9);
            compare_num(f, res, "repeats.aops_min", sorted[0], REL_REPEAT, 1e-9);
            compare_num(f, res, "repeats.aops_max", sorted[m - 1], REL_REPEAT, 1e-9);
            compare_num(f, res, "repeats.aops_mean", mean, REL_REPEAT, 1e-9);
            if (m >= 2)
                compare_num(f, res, "repeats.aops_cv", sqrt(ss / (double)(m - 1)) / mean * 100,
                            1e-6, 1e-9);
            free(sorted);
        }
    }
    free(s);
    free(a);
    /* The headline: the median run's figures, from its log. */
    check_integrity(f, res, dir);
    char path[8192];
    const char *file = jstr(res, "oplog.file");
    snprintf(path, sizeof path, "%s/%s", dir, file ? file : "(none)");
    struct oplog_header h;
    struct oplog_rec *recs = NULL;
    if (load_log(path, res, &h, &recs, err, len) != 0)
        return -1;
    struct logset ls = {1, &h, &recs, NULL};
    recompute_check(f, res, &ls, 0);
    check_reportable(f, res);
    free(recs);
    return 0;
}

/* A merge: every shard's own result and log, then the fleet from all logs. */
static int check_merged(struct findings *f, const json_t *res, const char *dir, char *err,
                        size_t len) {
    const json_t *shards = jget(res, "oplog.shards");
    size_t n = json_array_size(shards), i;
    const json_t *v;
    if (!n) {
        snprintf(err, len,
                 "%s/result.json is a merged result without its shards' logs (oplog.shards): "
                 "merge with this harness, from run directories or a --results-url prefix",
                 dir);
        return -1;
    }
    int64_t *off = calloc(n, sizeof *off);
    struct logset ls = {0, calloc(n, sizeof(struct oplog_header)),
                        calloc(n, sizeof(struct oplog_rec *)), off};
    int rc = ls.h && ls.recs && off ? 0 : -1;
    json_array_foreach(shards, i, v) {
        if (rc)
            break;
        char rpath[8192], lpath[8192], label[64];
        snprintf(rpath, sizeof rpath, "%s/%s", dir, jstr(v, "result") ? jstr(v, "result") : "");
        snprintf(lpath, sizeof lpath, "%s/%s", dir, jstr(v, "file") ? jstr(v, "file") : "");
        json_t *r = load(rpath, err, len);
        if (!r) {
            rc = -1;
            break;
        }
        snprintf(label, sizeof label, "shard %.0f: ", jnum(v, "shard"));
        struct findings g = {f->diffs, 0, label};
        /* The shard's copy: its own digest and figures (its files were
         * beside it on its host; the log is checked by content here). */
        char sha[SHA256_HEX];
        g.compared++;
        if (canon_sha256(r, sha) != 0 || !jstr(r, "integrity.result_sha256") ||
            strcmp(sha, jstr(r, "integrity.result_sha256")))
            finding(&g, "integrity.result_sha256: the shard's result was edited after its run");
        if (load_log(lpath, r, &ls.h[i], &ls.recs[i], err, len) != 0) {
            json_decref(r);
            rc = -1;
            break;
        }
        double o = jnum(r, "shard.clock.offset_s");
        off[i] = isfinite(o) ? llround(o * 1e9) : 0;
        ls.n++;
        const char *lsha = jstr(r, "integrity.files.ops.log");
        if (lsha && (sha256_file_hex(lpath, sha, err, len) != 0 || strcmp(sha, lsha)))
            finding(&g, "integrity.files.ops.log: the shard's log differs from the one it sealed");
        struct logset one = {1, &ls.h[i], &ls.recs[i], NULL};
        recompute_check(&g, r, &one, 0);
        f->compared += g.compared;
        json_decref(r);
    }
    if (rc == 0) {
        check_integrity(f, res, dir);
        recompute_check(f, res, &ls, 1);
        check_reportable(f, res);
    }
    for (unsigned k = 0; k < ls.n; k++)
        free(ls.recs[k]);
    free(ls.h);
    free(ls.recs);
    free(off);
    return rc;
}

int check_main(int argc, char **argv) {
    const char *dir = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: harness check RUN_DIR [--quiet]\n"
                   "  Recomputes the result in RUN_DIR from its per-operation log (ops.log) by\n"
                   "  rules of its own, verifies its integrity digests and its reportable\n"
                   "  verdict, for a run, a --repeat and a merged result.\n"
                   "exit status: 0 all agree, 1 figures differ (each named with both values),\n"
                   "2 nothing to check (no result, no log, a truncated or foreign log).\n");
            return 0;
        } else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "harness check: unexpected argument '%s' (harness check RUN_DIR)\n",
                    argv[i]);
            return 2;
        } else
            dir = argv[i];
    }
    if (!dir) {
        fprintf(stderr, "harness check: give a run directory (harness check RUN_DIR)\n");
        return 2;
    }
    char path[8192], err[2048];
    snprintf(path, sizeof path, "%s/result.json", dir);
    json_t *res = load(path, err, sizeof err);
    if (!res) {
        fprintf(stderr, "harness check: %s\n", err);
        return 2;
    }
    struct findings f = {json_array(), 0, ""};
    const char *kind = json_object_get(res, "merge")     ? "merged result"
                       : json_object_get(res, "repeats") ? "repeated result"
                                                         : "run";
    int rc = json_object_get(res, "merge")     ? check_merged(&f, res, dir, err, sizeof err)
             : json_object_get(res, "repeats") ? check_repeated(&f, res, dir, err, sizeof err)
                                               : check_run(&f, res, dir, err, sizeof err);
    int code;
    if (rc != 0) {
        fprintf(stderr, "harness check: %s\n", err);
        code = 2;
    } else if (json_array_size(f.diffs)) {
        size_t i;
        json_t *v;
        json_array_foreach(f.diffs, i, v) printf("DIFFERS %s\n", json_string_value(v));
        printf("harness check: %s: %zu of %u figures differ (%s)\n", dir, json_array_size(f.diffs),
               f.compared, kind);
        code = 1;
    } else {
        if (!quiet)
            printf("harness check: %s: %u figures recomputed and verified, all agree (%s%s)\n", dir,
                   f.compared, kind,
                   json_is_true(json_object_get(res, "reportable")) ? ", reportable"
                                                                    : ", not reportable");
        code = 0;
    }
    json_decref(f.diffs);
    json_decref(res);
    return code;
}
