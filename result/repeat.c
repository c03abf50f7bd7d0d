/* repeat.c -- the median run and the spread of a repeated job (see
 * repeat.h): pure functions over result JSON, part of the result model (the
 * runs themselves, and the files they leave, are the coordinator's). */
#include "repeat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "../common/oplog.h"
#include "../result/result.h"
#include "../result/runlog.h"

int repeat_stats(const double *v, unsigned n, struct repeat_stats *st) {
    memset(st, 0, sizeof *st);
    st->cv = NAN;
    unsigned *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return -1;
    double sum = 0;
    for (unsigned i = 0; i < n; i++)
        if (isfinite(v[i])) {
            /* Insertion sort by value, then run order: a tie goes to the
             * earlier run, so the choice never depends on anything else. */
            unsigned j = st->n++;
            while (j > 0 && v[idx[j - 1]] > v[i]) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = i;
            sum += v[i];
        }
    if (!st->n) {
        free(idx);
        return -1;
    }
    st->median = idx[(st->n - 1) / 2]; /* the lower median for an even count */
    st->median_v = v[st->median];
    st->min = v[idx[0]];
    st->max = v[idx[st->n - 1]];
    st->mean = sum / st->n;
    if (st->n >= 2 && st->mean != 0) {
        double ss = 0;
        for (unsigned k = 0; k < st->n; k++)
            ss += (v[idx[k]] - st->mean) * (v[idx[k]] - st->mean);
        st->cv = sqrt(ss / (st->n - 1)) / fabs(st->mean) * 100.0;
    }
    free(idx);
    return 0;
}

static int in_array(const json_t *arr, const char *s) {
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), s))
            return 1;
    }
    return 0;
}

/* Lines of the other runs' `key` arrays the median run does not have,
 * each as "run i: ..." into out. */
static void others(json_t *const *runs, unsigned made, unsigned median, const char *key,
                   json_t *out) {
    const json_t *mine = json_object_get(runs[median], key);
    for (unsigned i = 0; i < made; i++) {
        size_t j;
        json_t *v;
        if (i == median || !runs[i])
            continue;
        json_array_foreach(json_object_get(runs[i], key), j, v) {
            if (json_is_string(v) && !in_array(mine, json_string_value(v)))
                json_array_append_new(out, json_sprintf("run %u: %s", i + 1, json_string_value(v)));
        }
    }
}

/* What a warming trend or a cold first run should do: warm up, or warm up
 * more than these runs did (run 1's config.warmup_cycles). A full-profile
 * --repeat 3 --warmup-cycles 1 here still had a cold run 1 (the disks
 * served 4.4 % of its S3 bytes), and being told to add the option it had
 * was no help. */
static void warmup_remedy(char *buf, size_t len, const json_t *run0) {
    double w = run0 ? jnum(run0, "config.warmup_cycles") : NAN;
    if (isfinite(w) && w >= 1)
        snprintf(buf, len, "raise --warmup-cycles above %.0f (each run warmed up with %.0f)", w, w);
    else
        snprintf(buf, len, "add --warmup-cycles 1 (or more)");
}

/* repeats.trend: do the runs move one way, run after run (caches warming,
 * a machine heating up), rather than scatter? Over the runs with an AOPS, in
 * run order, v[0..k) (a run without one is left out, as for the median and
 * the CV), with the total change D = v[k-1] - v[0], there is a trend when
 *   1. k >= 3;
 *   2. the runs are strictly monotonic: every step v[i] - v[i-1] has the
 *      sign of D, none is zero;
 *   3. it is larger than --max-cv: |change_pct| > max_cv, where change_pct =
 *      D / v[0] * 100 (the last run against the first);
 *   4. the change is steady: every run is closer than |D| / 4 to the
 *      straight line through the first and the last, v[0] + D * i / (k - 1).
 * Why: 2 alone holds for 2 of the 6 orders of any three figures, so for one
 * repeat in 3 of pure noise; and a monotonic row can be one run that jumped
 * (42.1, 41.2, 38.0: the first two agree within 0.9, then a drop of 3.2), a
 * step, not a trend. 4 asks the change to be spread over the runs: with 3
 * runs it says the middle one lies in the middle half between the first and
 * the last (42.1, 41.2, 38.0: the line gives 40.05, and 41.2 is 1.15 from it,
 * more than 4.1 / 4 = 1.025: no trend). 3: a change smaller than the spread
 * the user accepts between reruns changes no conclusion and wants no remedy.
 * Each is checked by hand from repeats.aops. The direction is "rising" or
 * "falling", else null with the first condition that fails in reason;
 * change_pct is null only with fewer than 2 runs with an AOPS or a first one
 * of 0. A trend adds a warning (to warnings) that names it and what to do. */
static json_t *repeat_trend(const double *aops, unsigned made, double max_cv, const json_t *run0,
                            json_t *warnings) {
    double *v = malloc((made ? made : 1) * sizeof *v);
    unsigned *run = malloc((made ? made : 1) * sizeof *run), k = 0;
    if (!v || !run) {
        free(v);
        free(run);
        return json_null();
    }
    for (unsigned i = 0; i < made; i++)
        if (isfinite(aops[i]))
            v[k] = aops[i], run[k++] = i + 1;
    const char *dir = NULL;
    char why[200] = "";
    double d = k ? v[k - 1] - v[0] : NAN, change = k >= 2 && v[0] > 0 ? d / v[0] * 100 : NAN;
    unsigned i = 1;
    while (k >= 3 && i < k && (v[i] - v[i - 1]) * d > 0)
        i++;
    double far = 0;
    unsigned at = 0;
    for (unsigned j = 1; k >= 3 && i == k && j + 1 < k; j++) {
        double off = fabs(v[j] - (v[0] + d * j / (k - 1)));
        if (off > far)
            far = off, at = j;
    }
    if (k < 3)
        snprintf(why, sizeof why, "%u run(s) with an AOPS: a trend needs 3", k);
    else if (!(v[0] > 0))
        snprintf(why, sizeof why, "run %u's AOPS is 0: no change against it", run[0]);
    else if (i < k)
        snprintf(why, sizeof why, "not strictly monotonic: run %u %.1f, run %u %.1f AOPS",
                 run[i - 1], v[i - 1], run[i], v[i]);
    else if (!(fabs(change) > max_cv))
        snprintf(why, sizeof why, "the change, %+.1f %%, is within --max-cv %g %%", change, max_cv);
    else if (far >= fabs(d) / 4)
        snprintf(why, sizeof why,
                 "not steady: run %u (%.1f AOPS) is %.2f from the line through the first and "
                 "the last, a quarter of the change is %.2f",
                 run[at], v[at], far, fabs(d) / 4);
    else
        dir = d > 0 ? "rising" : "falling";
    if (dir) {
        char seq[160] = "";
        size_t len = 0;
        for (unsigned j = 0; j < k && len < sizeof seq; j++) {
            const char *sep = j ? " -> " : "";
            if (k > 5 && j == 2) /* more than 5: the first, the second, ..., the last */
                j = k - 1, sep = " -> ... -> ";
            int w = snprintf(seq + len, sizeof seq - len, "%s%.1f", sep, v[j]);
            len += w > 0 ? (size_t)w : 0;
        }
        char remedy[96];
        warmup_remedy(remedy, sizeof remedy, run0);
        if (d > 0)
            json_array_append_new(
                warnings, json_sprintf("the runs rise monotonically (%s AOPS, %+.1f %% over %u "
                                       "runs): the caches (page cache, MariaDB's buffer pool) are "
                                       "likely still warming; %s",
                                       seq, change, k, remedy));
        else
            json_array_append_new(
                warnings,
                json_sprintf("the runs fall monotonically (%s AOPS, %+.1f %% over %u runs): "
                             "something degrades from run to run, such as thermal throttling "
                             "or a store filling up; check the power, the clocks and the disks' "
                             "free space between runs",
                             seq, change, k));
    }
    free(v);
    free(run);
    return json_pack("{s:o, s:o, s:i, s:o}", "direction", dir ? json_string(dir) : json_null(),
                     "change_pct", json_num_or_null(change, 1), "runs", (int)k, "reason",
                     dir ? json_null() : json_string(why));
}

/* The commonest shape of a --repeat from cold caches is no trend but a
 * step: the first run slow, the rest level (a full-profile --repeat 3 here
 * from dropped caches: 24.6, 37.4, 37.8 AOPS, the disks serving 17.3 % of
 * run 1's bytes and none of the others'). The trend rule calls it "not
 * steady", rightly, and then nothing named the cause. So, with 3 or more
 * runs each with an AOPS: when the later runs agree within --max-cv (their
 * range over their mean) and the first is lower than the lowest of them by
 * more than --max-cv of their mean, a warning says run 1 met cold caches,
 * with each run's share served from the disks where the results have it. */
static void first_run_cold(json_t *const *runs, const double *aops, unsigned made, double max_cv,
                           json_t *warnings) {
    if (made < 3)
        return;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    for (unsigned i = 0; i < made; i++)
        if (!isfinite(aops[i]) || !(aops[i] > 0))
            return;
    for (unsigned i = 1; i < made; i++) {
        lo = fmin(lo, aops[i]);
        hi = fmax(hi, aops[i]);
        sum += aops[i];
    }
    double mean = sum / (made - 1), below = (mean - aops[0]) / mean * 100;
    if (!((hi - lo) / mean * 100 <= max_cv) || !(lo - aops[0] > mean * max_cv / 100))
        return;
    char disks[160] = "";
    double d0 = jnum(runs[0], "storage.served_from_disk"), dmax = -1;
    for (unsigned i = 1; i < made; i++) {
        double d = jnum(runs[i], "storage.served_from_disk");
        dmax = isfinite(d) && isfinite(dmax) ? fmax(dmax, d) : NAN;
    }
    char remedy[96];
    warmup_remedy(remedy, sizeof remedy, runs[0]);
    if (isfinite(d0) && isfinite(dmax))
        snprintf(disks, sizeof disks,
                 "; the disks served %.1f %% of its bytes and at most %.1f %% of a later run's",
                 100 * d0, 100 * dmax);
    json_array_append_new(
        warnings, json_sprintf("run 1 (%.1f AOPS) is %.1f %% below the later runs (%.1f to %.1f "
                               "AOPS), which agree within --max-cv %g %%: the first run met cold "
                               "caches (page cache, MariaDB's buffer pool)%s; %s",
                               aops[0], below, lo, hi, max_cv, disks, remedy));
}

json_t *repeat_combine(json_t *const *runs, const char *const *dirs, unsigned made, unsigned asked,
                       double max_cv) {
    double *aops = calloc(made ? made : 1, sizeof *aops);
    if (!aops)
        return NULL;
    json_t *list = json_array(), *names = json_array();
    for (unsigned i = 0; i < made; i++) {
        aops[i] = runs[i] ? jnum(runs[i], "totals.aops") : NAN;
        json_array_append_new(list, json_num_or_null(aops[i], 1));
        json_array_append_new(names, json_string(dirs[i]));
    }
    struct repeat_stats st;
    unsigned median = 0;
    if (repeat_stats(aops, made, &st) == 0)
        median = st.median;
    else /* no run has an AOPS: the first run with a result stands */
        while (median < made && !runs[median])
            median++;
    if (median == made) {
        free(aops);
        json_decref(list);
        json_decref(names);
        return NULL;
    }
    /* Built through the result table (result/keys.h): the median run's keys,
     * a verdict over all the runs, the spread, the median run's log. */
    json_t *reasons = json_deep_copy(json_object_get(runs[median], "invalid_reasons")),
           *warnings = json_deep_copy(json_object_get(runs[median], "warnings"));
    if (!json_is_array(reasons))
        json_decref(reasons), reasons = json_array();
    if (!json_is_array(warnings))
        json_decref(warnings), warnings = json_array();
    others(runs, made, median, "invalid_reasons", reasons);
    others(runs, made, median, "warnings", warnings);
    for (unsigned i = 0; i < made; i++)
        if (!runs[i])
            json_array_append_new(reasons,
                                  json_sprintf("run %u of %u left no result", i + 1, asked));
        else if (!json_is_true(json_object_get(runs[i], "valid")) &&
                 !json_array_size(json_object_get(runs[i], "invalid_reasons")))
            json_array_append_new(reasons, json_sprintf("run %u: invalid", i + 1));
    if (made < asked)
        json_array_append_new(reasons, json_sprintf("only %u of %u runs were made", made, asked));
    if (st.n >= 3 && isfinite(st.cv) && st.cv > max_cv)
        json_array_append_new(warnings,
                              json_sprintf("unstable: AOPS CV %.1f %% over %u runs (above --max-cv "
                                           "%g %%): the figures move this much on a rerun",
                                           st.cv, st.n, max_cv));
    json_t *trend = repeat_trend(aops, made, max_cv, made ? runs[0] : NULL, warnings);
    if (json_is_null(json_object_get(trend, "direction")))
        first_run_cold(runs, aops, made, max_cv, warnings);
    json_t *res = result_begin(reasons, warnings);
    json_decref(reasons);
    json_decref(warnings);
    if (!res) {
        free(aops);
        json_decref(trend);
        json_decref(list);
        json_decref(names);
        return NULL;
    }

    int ok = st.n > 0;
    json_t *rep = json_pack(
        "{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o}", "n", (int)made, "runs_asked",
        (int)asked, "aops", list, "aops_median", json_num_or_null(st.median_v, ok), "aops_min",
        json_num_or_null(st.min, ok), "aops_max", json_num_or_null(st.max, ok), "aops_mean",
        json_num_or_null(st.mean, ok), "aops_cv", json_num_or_null(st.cv, ok && isfinite(st.cv)),
        "median_run", (int)median + 1, "runs", names, "trend", trend);
    result_complete(res, RK_REPEAT, runs[median]);
    /* The headline is the median run's: so is the log check reads (a
     * merged run's: its shards' logs, under its directory). */
    json_t *ol = json_deep_copy(json_object_get(runs[median], "oplog"));
    if (json_is_array(json_object_get(ol, "shards")))
        runlog_under(ol, dirs[median]);
    else if (json_is_object(ol))
        json_object_set_new(ol, "file", json_sprintf("%s/%s", dirs[median], OPLOG_FILE));
    result_put(res, RK_OPLOG, ol, jstr(runs[median], "oplog_reason"));
    result_put(res, RK_REPEATS, rep, NULL);
    free(aops);
    return res;
}

int repeat_headline(const json_t *res, char *buf, size_t len) {
    const json_t *rep = json_object_get(res, "repeats");
    buf[0] = 0;
    if (!json_is_object(rep))
        return -1;
    double med = jnum(rep, "aops_median"), lo = jnum(rep, "aops_min"), hi = jnum(rep, "aops_max"),
           cv = jnum(rep, "aops_cv");
    if (!isfinite(med)) /* no run got as far as an AOPS: the plain line says "-" */
        return -1;
    char cvs[32] = "–";
    if (isfinite(cv))
        snprintf(cvs, sizeof cvs, "%.1f %%", cv);
    snprintf(buf, len, "AOPS %.1f (median of %.0f; min %.1f, max %.1f, CV %s)", med, jnum(rep, "n"),
             lo, hi, cvs);
    return 0;
}

void repeat_print_run(const json_t *res, unsigned index, unsigned of, FILE *f) {
    double a = jnum(res, "totals.aops");
    int valid = json_is_true(json_object_get(res, "valid"));
    const char *why = jstr(res, "invalid_reasons.0");
    char aops[32] = "- (not measured)"; /* no completion, no figure: never "-0.0" */
    if (isfinite(a))
        snprintf(aops, sizeof aops, "%.1f", a);
    fprintf(f, "harness: run %u of %u: AOPS %s, %s%s%s\n", index, of, aops,
            valid ? "valid" : "not valid", why ? ": " : "", why ? why : "");
}

/* The figures a repeat's spread covers: AOPS, and per-core AOPS, which
 * divides every run by the same cores. */
static int spread_path(const char *path) {
    return !strcmp(path, "totals.aops") || !strcmp(path, "totals.aops_per_core");
}

int repeat_range(const json_t *res, const char *path, double *lo, double *hi) {
    double v = jnum(res, path);
    *lo = *hi = v;
    if (!isfinite(v))
        return -1;
    const json_t *rep = json_object_get(res, "repeats");
    double a = jnum(res, "totals.aops"), mn = jnum(rep, "aops_min"), mx = jnum(rep, "aops_max");
    if (!spread_path(path) || !json_is_object(rep) || !isfinite(mn) || !isfinite(mx) || !(a > 0))
        return 0;
    *lo = mn * (v / a);
    *hi = mx * (v / a);
    return 1;
}

int repeat_within_noise(const json_t *a, const json_t *b, const char *path) {
    double alo, ahi, blo, bhi;
    if (!spread_path(path))
        return -1;
    int ra = repeat_range(a, path, &alo, &ahi), rb = repeat_range(b, path, &blo, &bhi);
    if (ra < 0 || rb < 0 || (ra == 0 && rb == 0))
        return -1;
    return alo <= bhi && blo <= ahi;
}
