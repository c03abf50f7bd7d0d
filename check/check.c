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
 * Every path taken from a result (oplog.file, integrity.files, repeats.runs,
 * the shards') is opened through common/safepath.h: inside RUN_DIR, no
 * symlink, a regular file. What a recomputation needs and does not find is a
 * finding, never a reason to skip. Without --key the verdict says what it
 * cannot know: the digests are unkeyed, so a consistent forgery of both
 * files passes; "reportable" for a result received is "signed and verified".
 * Exit 0 when everything agrees, 1 naming each figure that differs with both
 * values, 2 when it cannot check at all (no result, no log, a truncated log,
 * a log of another run, a path that leaves RUN_DIR), in one line. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/canon.h"
#include "../common/digest.h"
#include "../common/json.h"
#include "../common/reportable.h"
#include "../common/safepath.h"
#include "../common/upgrade.h"
#include "../result/keys.h"
#include "check.h"

#define REL_REPEAT 1e-8 /* AOPS printed to 10 digits in each run and in the spread */
#define MAX_RUNS 10000  /* repeats.runs[] entries read: more is not a repeat this harness made */

/* RUN_DIR/name as JSON through safepath (a FIFO or a symlink out is
 * refused), read in today's shape (common/upgrade.c; a newer build's result
 * is refused). The upgrade leaves a version-2 result as it was; an older
 * one gets the keys its build did not write as null (not_recorded), which
 * check_integrity() takes out again to hash the file as written; a result
 * old enough to need its power reshaped predates integrity (its absence is
 * a finding). */
static json_t *load(const char *dir, const char *name, char *err, size_t len) {
    json_t *r = safepath_load_json(dir, name, NULL, err, len);
    char why[256];
    if (r && result_upgrade(r, why, sizeof why) < 0) {
        snprintf(err, len, "%s/%s: %s", dir, name, why);
        json_decref(r);
        return NULL;
    }
    return r;
}

/* integrity: the canonical digest, and every file it lists, as they are now.
 * prefix: where this result's files are under dir ("" or a repeat's
 * "runs/2"). -1 with err (exit 2) when a listed path is refused. */
static int check_integrity(struct findings *f, const json_t *res, const char *dir,
                           const char *prefix, char *err, size_t len) {
    const json_t *in = json_object_get(res, "integrity");
    char sha[SHA256_HEX], why[1400];
    f->compared++;
    if (!json_is_object(in)) {
        finding(f, "integrity: result.json has none (made before the harness sealed results)");
        return 0;
    }
    const char *want = jstr(in, "result_sha256");
    /* The digest is of the file as its build wrote it: without the nulls
     * result_upgrade() gave an older result (not_recorded). */
    json_t *as_written = json_deep_copy(res);
    result_upgrade_undo(as_written);
    int hashed = canon_sha256(as_written, sha);
    json_decref(as_written);
    if (hashed != 0 || !want || strcmp(sha, want))
        finding(f,
                "integrity.result_sha256: result.json %.64s, its content now hashes to %s "
                "(result.json was edited after the run)",
                want ? want : "(none)", sha);
    const char *name;
    json_t *v;
    json_object_foreach(json_object_get(in, "files"), name, v) {
        char rel[SAFEPATH_NAME_MAX + 1];
        f->compared++;
        if (safepath_name_ok(name, err, len) != 0 ||
            safepath_join(prefix, name, rel, sizeof rel) != 0) {
            if (!err[0])
                snprintf(err, len, "integrity.files: a path too long");
            return -1;
        }
        int rc = safepath_sha256(dir, rel, sha, why, sizeof why);
        if (rc == SAFEPATH_REFUSED) {
            snprintf(err, len, "integrity.files: %s", why);
            return -1;
        }
        if (rc != 0)
            finding(f, "integrity.files.%s: %s", name, why);
        else if (!json_is_string(v) || strcmp(sha, json_string_value(v)))
            finding(f,
                    "integrity.files.%s: result.json %.64s, the file now %s (changed after the "
                    "run)",
                    name, json_string_value(v) ? json_string_value(v) : "(none)", sha);
    }
    return 0;
}

/* result.json against the table of its keys (result/keys.h: each key
 * present, of its type, null only with its reason); what it lacks or has
 * wrong is a finding each, so a result of another shape fails closed. */
static void check_keys(struct findings *f, const json_t *res) {
    char lines[32][256];
    size_t n = result_keys_check(res, lines, 32);
    f->compared++;
    for (size_t i = 0; i < n && i < 32; i++)
        finding(f, "%s", lines[i]);
    if (n > 32)
        finding(f, "... and %zu more findings of result.json's keys", n - 32);
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
    else if (!json_equal(why, json_object_get(res, "nonreportable_reasons"))) {
        /* Name the first reason the rules give that result.json lacks. */
        const json_t *have_r = json_object_get(res, "nonreportable_reasons");
        const char *missing = NULL;
        for (size_t i = 0; !missing && i < json_array_size(why); i++) {
            size_t k = 0;
            while (k < json_array_size(have_r) &&
                   !json_equal(json_array_get(why, i), json_array_get(have_r, k)))
                k++;
            if (k == json_array_size(have_r))
                missing = json_string_value(json_array_get(why, i));
        }
        finding(f,
                "nonreportable_reasons: result.json's differ from the rules' (%zu vs %zu)%s%.300s",
                json_array_size(have_r), json_array_size(why), missing ? "; the rules say: " : "",
                missing ? missing : "");
    }
    json_decref(why);
}

/* Read dir/name (a name from a result: safepath) as a log and check it
 * belongs to res. 0, or -1 with err (one line). */
static int load_log(const char *dir, const char *name, const json_t *res, struct oplog_header *h,
                    struct oplog_rec **recs, char *err, size_t len) {
    char path[8192];
    *recs = NULL;
    int fd = safepath_open(dir, name, SAFEPATH_FILE_MAX, NULL, err, len);
    if (fd == SAFEPATH_MISSING) {
        snprintf(err, len, "%s/%s: missing (the run writes its per-operation log there)", dir,
                 name);
        return -1;
    }
    if (fd < 0)
        return -1;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = oplog_read_fd(fd, path, h, recs, err, len);
    close(fd);
    if (rc != 0)
        return -1;
    const char *id = jstr(res, "run_id");
    if (!id || strcmp(id, h->run_id)) {
        snprintf(err, len, "%s is the log of another run (run id %s; result.json's is %.64s)", path,
                 h->run_id[0] ? h->run_id : "(none)", id ? id : "(none)");
        free(*recs);
        *recs = NULL;
        return -1;
    }
    double n = jnum(res, "oplog.records");
    if (isfinite(n) && (n < 0 || n >= 18446744073709551616.0 || (uint64_t)n != h->records)) {
        snprintf(err, len, "%s holds %llu records, result.json says the run wrote %.0f", path,
                 (unsigned long long)h->records, n);
        free(*recs);
        *recs = NULL;
        return -1;
    }
    return 0;
}

/* One run: integrity, figures from its log, the reportable verdict. Its
 * files are under dir/prefix (prefix "" for RUN_DIR itself); its log is
 * <oplog.file> there. Returns 0, or -1 with err when it cannot check. */
static int check_run(struct findings *f, const json_t *res, const char *dir, const char *prefix,
                     char *err, size_t len) {
    char rel[SAFEPATH_NAME_MAX + 1];
    const char *file = jstr(res, "oplog.file");
    if (!file)
        file = OPLOG_FILE;
    if (safepath_name_ok(file, err, len) != 0)
        return -1;
    if (safepath_join(prefix, file, rel, sizeof rel) != 0) {
        snprintf(err, len, "oplog.file: a path too long");
        return -1;
    }
    struct oplog_header h;
    struct oplog_rec *recs = NULL;
    if (load_log(dir, rel, res, &h, &recs, err, len) != 0)
        return -1;
    if (check_integrity(f, res, dir, prefix, err, len) != 0) {
        free(recs);
        return -1;
    }
    struct logset ls = {1, &h, &recs, NULL};
    recompute_check(f, res, &ls, 0);
    check_keys(f, res);
    check_reportable(f, res);
    free(recs);
    return 0;
}

static int dcmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* repeats.runs[] as names a run may be read under: strings, safe, distinct,
 * as many as repeats.n says. A wrong count or a run listed twice is a
 * finding (one run must not pass as three); a name that is not a string or
 * not safe: -1 with err. */
static int repeat_names(struct findings *f, const json_t *rep, char *err, size_t len) {
    const json_t *runs = json_object_get(rep, "runs");
    size_t n = json_array_size(runs);
    f->compared++;
    if (!json_is_array(runs)) {
        finding(f, "repeats.runs: result.json lists no runs, so no run of the repeat can be "
                   "checked");
        return 0;
    }
    if (n > MAX_RUNS) {
        snprintf(err, len, "repeats.runs lists %zu runs, more than the %d this checks", n,
                 MAX_RUNS);
        return -1;
    }
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        const char *a = json_string_value(json_array_get(runs, i));
        if (!a) {
            snprintf(err, len, "repeats.runs.%zu is not a string (a run directory's name)", i);
            return -1;
        }
        if (safepath_name_ok(a, err, len) != 0)
            return -1;
        size_t k = 0;
        while (k < i && strcmp(a, json_string_value(json_array_get(runs, k))))
            k++;
        if (k < i)
            finding(f, "repeats.runs.%zu: %s is listed again (as repeats.runs.%zu)", i, a, k);
        else
            distinct++;
    }
    const json_t *nv = json_object_get(rep, "n");
    if (!json_is_integer(nv) || json_integer_value(nv) < 0 ||
        (size_t)json_integer_value(nv) != distinct)
        finding(f, "repeats.n: result.json %s%lld, the result lists %zu distinct run(s)",
                json_is_integer(nv) ? "" : "(not a count) ",
                json_is_integer(nv) ? (long long)json_integer_value(nv) : 0LL, distinct);
    return 0;
}

static int check_merged(struct findings *f, const json_t *res, const char *dir, const char *prefix,
                        char *err, size_t len);

/* --repeat: every run, then the spread and the headline. Its runs are
 * single runs, or all merges (a fleet's confirmation in harness capacity
 * --shard: each run a fleet run, merged). */
static int check_repeated(struct findings *f, const json_t *res, const char *dir, char *err,
                          size_t len) {
    const json_t *rep = json_object_get(res, "repeats"), *runs = json_object_get(rep, "runs");
    if (repeat_names(f, rep, err, len) != 0)
        return -1;
    size_t n = json_array_size(runs), i;
    const json_t *v;
    double *a = calloc(n ? n : 1, sizeof *a);
    const char **ids = calloc(n ? n : 1, sizeof *ids);
    json_t *kept = json_array(); /* the runs' results, for their run ids */
    int rc = a && ids && kept ? 0 : -1;
    if (rc)
        snprintf(err, len, "out of memory");
    json_array_foreach(runs, i, v) {
        if (rc)
            break;
        const char *name = json_string_value(v);
        char rel[SAFEPATH_NAME_MAX + 1], label[512];
        if (safepath_join(name, "result.json", rel, sizeof rel) != 0) {
            snprintf(err, len, "repeats.runs.%zu: a path too long", i);
            rc = -1;
            break;
        }
        json_t *r = load(dir, rel, err, len);
        if (!r) {
            rc = -1;
            break;
        }
        json_array_append_new(kept, r);
        snprintf(label, sizeof label, "%.200s%.200s: ", f->label, name);
        struct findings g = {f->diffs, 0, label};
        /* Each one a run: not a repeat passed off as one, and a merge only
         * in a repeat of merges. */
        int merged = json_object_get(r, "merge") != NULL;
        g.compared++;
        if (json_object_get(r, "repeats") || merged != (json_object_get(res, "merge") != NULL))
            finding(&g, "not a %s (it holds %s)", merged ? "single run" : "merged run",
                    json_object_get(r, "repeats") ? "repeats"
                    : merged                      ? "a merge"
                                                  : "no merge");
        /* The same run copied under two names is one run. */
        ids[i] = jstr(r, "run_id");
        for (size_t k = 0; ids[i] && k < i; k++)
            if (ids[k] && !strcmp(ids[k], ids[i]))
                finding(&g,
                        "run id %.64s is also the run id of repeats.runs.%zu: the same run "
                        "listed twice",
                        ids[i], k);
        rc = merged ? check_merged(&g, r, dir, name, err, len)
                    : check_run(&g, r, dir, name, err, len);
        f->compared += g.compared;
        a[i] = jnum(r, "totals.aops");
    }
    /* The spread, by its own arithmetic. */
    double *s = rc ? NULL : malloc((n ? n : 1) * sizeof *s), sum = 0;
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
    /* The headline is one of the runs checked above (the median's copy),
     * not a result from elsewhere with a log of its own. */
    if (rc == 0 && n) {
        const char *hid = jstr(res, "run_id");
        const json_t *hm = json_object_get(res, "merge");
        size_t k = 0;
        while (k < n && !(hm ? json_equal(hm, json_object_get(json_array_get(kept, k), "merge"))
                             : hid && ids[k] && !strcmp(hid, ids[k])))
            k++;
        f->compared++;
        if (k == n && hm)
            finding(f, "merge: the headline's merge is none of repeats.runs'");
        else if (k == n)
            finding(f, "run_id: the headline's run id %.64s is none of repeats.runs'",
                    hid ? hid : "(none)");
    }
    free(s);
    free(a);
    free(ids);
    json_decref(kept);
    if (rc)
        return -1;
    /* The headline: the median run's figures, from its log (a merged
     * run's: from its shards' logs, as a merge is checked). */
    if (json_object_get(res, "merge"))
        return check_merged(f, res, dir, "", err, len);
    if (check_integrity(f, res, dir, "", err, len) != 0)
        return -1;
    const char *file = jstr(res, "oplog.file");
    if (!file) {
        snprintf(err, len, "%s/result.json names no oplog.file for its headline", dir);
        return -1;
    }
    struct oplog_header h;
    struct oplog_rec *recs = NULL;
    if (load_log(dir, file, res, &h, &recs, err, len) != 0)
        return -1;
    struct logset ls = {1, &h, &recs, NULL};
    recompute_check(f, res, &ls, 0);
    check_keys(f, res);
    check_reportable(f, res);
    free(recs);
    return 0;
}

/* A merge: every shard's own result and log, then the fleet from all logs.
 * Its files are under dir/prefix (prefix "" for RUN_DIR itself). */
static int check_merged(struct findings *f, const json_t *res, const char *dir, const char *prefix,
                        char *err, size_t len) {
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
    if (n > MAX_RUNS) {
        snprintf(err, len, "oplog.shards lists %zu shards, more than the %d this checks", n,
                 MAX_RUNS);
        return -1;
    }
    int64_t *off = calloc(n, sizeof *off);
    struct logset ls = {0, calloc(n, sizeof(struct oplog_header)),
                        calloc(n, sizeof(struct oplog_rec *)), off};
    int rc = ls.h && ls.recs && off ? 0 : -1;
    if (rc)
        snprintf(err, len, "out of memory");
    json_array_foreach(shards, i, v) {
        if (rc)
            break;
        const char *rn = jstr(v, "result"), *ln = jstr(v, "file");
        char label[320], rname[SAFEPATH_NAME_MAX + 1], lname[SAFEPATH_NAME_MAX + 1];
        if (!rn || !ln) {
            snprintf(err, len, "oplog.shards.%zu names no %s: this shard cannot be checked", i,
                     rn ? "log (file)" : "result");
            rc = -1;
            break;
        }
        if (safepath_join(prefix, rn, rname, sizeof rname) != 0 ||
            safepath_join(prefix, ln, lname, sizeof lname) != 0) {
            snprintf(err, len, "oplog.shards.%zu: a path too long", i);
            rc = -1;
            break;
        }
        json_t *r = load(dir, rname, err, len);
        if (!r) {
            rc = -1;
            break;
        }
        snprintf(label, sizeof label, "%.256sshard %.0f: ", f->label, jnum(v, "shard"));
        struct findings g = {f->diffs, 0, label};
        /* The shard's copy: its own digest and figures (its files were
         * beside it on its host; the log is checked by content here). */
        char sha[SHA256_HEX];
        g.compared++;
        if (canon_sha256(r, sha) != 0 || !jstr(r, "integrity.result_sha256") ||
            strcmp(sha, jstr(r, "integrity.result_sha256")))
            finding(&g, "integrity.result_sha256: the shard's result was edited after its run");
        if (load_log(dir, lname, r, &ls.h[i], &ls.recs[i], err, len) != 0) {
            json_decref(r);
            rc = -1;
            break;
        }
        double o = jnum(r, "shard.clock.offset_s");
        /* An offset beyond a day is no clock's: a finding, not an overflow. */
        if (isfinite(o) && fabs(o) > 86400) {
            finding(&g, "shard.clock.offset_s: %g s, not a clock offset", o);
            o = 0;
        }
        off[i] = isfinite(o) ? llround(o * 1e9) : 0;
        ls.n++;
        const char *lsha = jstr(r, "integrity.files.ops.log");
        if (lsha) {
            int hr = safepath_sha256(dir, lname, sha, err, len);
            if (hr == SAFEPATH_REFUSED) {
                json_decref(r);
                rc = -1;
                break;
            }
            if (hr != 0 || strcmp(sha, lsha))
                finding(&g,
                        "integrity.files.ops.log: the shard's log differs from the one it sealed");
        }
        struct logset one = {1, &ls.h[i], &ls.recs[i], NULL};
        recompute_check(&g, r, &one, 0);
        f->compared += g.compared;
        json_decref(r);
    }
    if (rc == 0)
        rc = check_integrity(f, res, dir, prefix, err, len);
    if (rc == 0) {
        recompute_check(f, res, &ls, 1);
        check_keys(f, res);
    check_reportable(f, res);
    }
    for (unsigned k = 0; k < ls.n; k++)
        free(ls.recs[k]);
    free(ls.h);
    free(ls.recs);
    free(off);
    return rc;
}

/* The result in dir by its kind: a merge, a --repeat or a run. */
static int check_kind(struct findings *f, const json_t *res, const char *dir, char *err,
                      size_t len) {
    return json_object_get(res, "repeats") ? check_repeated(f, res, dir, err, len)
           : json_object_get(res, "merge") ? check_merged(f, res, dir, "", err, len)
                                           : check_run(f, res, dir, "", err, len);
}

/* A `harness capacity` directory: its headline as the run (repeat, merge)
 * it is a copy of, every point as a run directory of its own, and
 * capacity{} against the points' results (check_capacity.c). A point that
 * cannot be read or checked is a finding: the figure it carries is not
 * verified. */
static int check_capacity_dir(struct findings *f, const json_t *res, const char *dir, char *err,
                              size_t len) {
    if (check_kind(f, res, dir, err, len) != 0)
        return -1;
    const json_t *points = jget(res, "capacity.points"), *p;
    size_t n = json_array_size(points), i;
    if (n > MAX_RUNS) {
        snprintf(err, len, "capacity.points lists %zu points, more than the %d this checks", n,
                 MAX_RUNS);
        return -1;
    }
    json_t **pts = calloc(n ? n : 1, sizeof *pts);
    if (!pts) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    json_array_foreach(points, i, p) {
        const char *rel = jstr(p, "dir");
        char name[SAFEPATH_NAME_MAX + 1], why[2048] = "", sub[8400], label[300];
        f->compared++;
        if (!rel || safepath_name_ok(rel, why, sizeof why) != 0 ||
            safepath_join(rel, "result.json", name, sizeof name) != 0) {
            finding(f, "capacity.points.%zu.dir: %s", i, why[0] ? why : "not a point's directory");
            continue;
        }
        /* Through safepath: no symlink on the way out of DIR. */
        if (!(pts[i] = load(dir, name, why, sizeof why))) {
            finding(f, "capacity.points.%zu: its result cannot be read: %s", i, why);
            continue;
        }
        size_t k = 0;
        while (k < i && !(jstr(json_array_get(points, k), "dir") &&
                          !strcmp(jstr(json_array_get(points, k), "dir"), rel)))
            k++;
        if (k < i)
            continue; /* that directory is checked already */
        snprintf(label, sizeof label, "%s%.200s: ", f->label, rel);
        snprintf(sub, sizeof sub, "%s/%s", dir, rel);
        struct findings g = {f->diffs, 0, label};
        if (json_object_get(pts[i], "capacity"))
            finding(&g, "not a point's run (it holds a capacity search)");
        else if (check_kind(&g, pts[i], sub, why, sizeof why) != 0)
            finding(&g, "cannot be checked: %s", why);
        f->compared += g.compared;
    }
    capacity_check(f, res, pts, n);
    for (i = 0; i < n; i++)
        json_decref(pts[i]);
    free(pts);
    return 0;
}

int check_main(int argc, char **argv) {
    const char *dir = NULL, *key = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: harness check RUN_DIR [--key PUB.pem] [--quiet]\n"
                   "  Recomputes the result in RUN_DIR from its per-operation log (ops.log) by\n"
                   "  rules of its own, verifies its integrity digests and its reportable\n"
                   "  verdict, for a run, a --repeat and a merged result. Without --key this\n"
                   "  shows the files are consistent, not who made them: whoever wrote\n"
                   "  result.json could have written a consistent ops.log and digests too. A\n"
                   "  result received from someone else is reportable only signed: --key\n"
                   "  PUB.pem checks its signature (as harness verify) as well.\n"
                   "exit status: 0 all agree, 1 figures differ (each named with both values)\n"
                   "or the signature does not verify, 2 nothing to check (no result, no log, a\n"
                   "truncated or foreign log, a path in the result leaving RUN_DIR).\n");
            return 0;
        } else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else if (!strcmp(argv[i], "--key") && i + 1 < argc)
            key = argv[++i];
        else if (argv[i][0] == '-' || dir) {
            fprintf(stderr,
                    "harness check: unexpected argument '%s' (harness check RUN_DIR [--key "
                    "PUB.pem])\n",
                    argv[i]);
            return 2;
        } else
            dir = argv[i];
    }
    if (!dir) {
        fprintf(stderr, "harness check: give a run directory (harness check RUN_DIR)\n");
        return 2;
    }
    char err[2048] = "";
    json_t *res = load(dir, "result.json", err, sizeof err);
    if (!res) {
        fprintf(stderr, "harness check: %s\n", err);
        return 2;
    }
    struct findings f = {json_array(), 0, ""};
    const char *kind = json_object_get(res, "capacity")  ? "capacity search"
                       : json_object_get(res, "repeats") ? "repeated result"
                       : json_object_get(res, "merge")   ? "merged result"
                                                         : "run";
    int rc = json_object_get(res, "capacity") ? check_capacity_dir(&f, res, dir, err, sizeof err)
                                              : check_kind(&f, res, dir, err, sizeof err);
    /* Who made it: only a signature says (the digests are unkeyed). */
    char sig[2048] = "";
    int signed_ok = 0;
    if (rc == 0 && key) {
        int vr = verify_run(dir, key, sig, sizeof sig);
        f.compared++;
        if (vr == 0)
            signed_ok = 1;
        else if (vr == 1)
            finding(&f, "signature: %s", sig);
        else {
            snprintf(err, sizeof err, "%s", sig);
            rc = -1;
        }
    }
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
        /* The rules agreed with result.json's reportable (check_reportable). */
        int rules = json_is_true(json_object_get(res, "reportable"));
        if (!quiet) {
            printf("harness check: %s: %u figures recomputed and verified, all agree (%s, %s)\n",
                   dir, f.compared, kind,
                   signed_ok && rules ? "reportable: signed and verified"
                   : signed_ok        ? "signed and verified, not reportable by the rules"
                   : rules            ? "consistent, unsigned: not reportable as received"
                                      : "consistent, unsigned, not reportable");
            if (signed_ok)
                printf("harness check: %s\n", sig);
            else
                printf("harness check: unsigned: the digests are unkeyed and detect accidents, "
                       "not forgers; whoever wrote result.json could have written a consistent "
                       "ops.log too (harness check --key PUB.pem for a signed result)\n");
        }
        code = 0;
    }
    json_decref(f.diffs);
    json_decref(res);
    return code;
}
