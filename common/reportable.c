/* reportable.c -- the rules a publishable result meets (see reportable.h).
 *
 * The pinned digests were computed on the project's reference machine
 * (Debian 12, 2026-12-01) from:
 *   objects: `./harness objects-manifest --profile full --seed 1 | sha256sum`, worker 0's
 *     section of the objects manifest prepare writes (every worker's set is made by the same
 *     generator from the seed and its key, so worker 0's pins generator, sizes and seed);
 *   corpus: `sha256sum corpus/data/full/manifest.json` after `./harness corpus fetch
 *     --profile full` (Debian's linux-source-6.1 6.1.192-3 and python3.11 3.11.2-6+deb12u8,
 *     with the expected counts of corpus/patterns; a newer Debian package is another corpus);
 *   patterns: `sha256sum corpus/patterns`.
 * A change to any of them is a new benchmark version: update these with it. */
#include "reportable.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

const char *const reportable_objects_worker0_sha256 =
    "e63604dd9834983c73675a9d8d3d7e6f196a6f388160e6880526e6b43463d37e";
const char *const reportable_corpus_manifest_sha256 =
    "def8c8d46c817aa5bedc55ab67556b3c9748d11e4ac57d82e00205b8327e7ef7";
const char *const reportable_patterns_sha256 =
    "8d7b15be7cab50343ac5f9318c53a06077375f3994def87c2da9808230f98972";

#define DEFAULT_STALL_TIMEOUT 30.0
#define DEFAULT_SAMPLE_INTERVAL 1.0

static void add(json_t *r, json_t *s) {
    json_array_append_new(r, s);
}

static int str_is(const json_t *res, const char *path, const char *want) {
    const char *s = jstr(res, path);
    return s && !strcmp(s, want);
}

static void data_rule(const json_t *res, const char *path, const char *want, const char *what,
                      json_t *r) {
    const char *have = jstr(res, path);
    if (!have)
        add(r, json_sprintf("%s: no digest in the result (%s)", what, path));
    else if (strcmp(have, want))
        add(r, json_sprintf("%s differs from the published one (sha256 %.12s..., published "
                            "%.12s...)",
                            what, have, want));
}

/* The distinct strings in repeats.runs[] (a non-string counts for nothing). */
static size_t distinct_runs(const json_t *res) {
    const json_t *runs = jget(res, "repeats.runs");
    size_t n = json_array_size(runs), d = 0;
    if (n > 10000) /* no repeat is this long; and the pairs below are n^2 */
        return 0;
    for (size_t i = 0; i < n; i++) {
        const char *a = json_string_value(json_array_get(runs, i));
        size_t k = 0;
        while (a && k < i &&
               (!json_string_value(json_array_get(runs, k)) ||
                strcmp(a, json_string_value(json_array_get(runs, k)))))
            k++;
        d += a && k == i;
    }
    return d;
}

json_t *reportable_reasons(const json_t *res) {
    json_t *r = json_array();
    if (!str_is(res, "config.profile", "full"))
        add(r, json_sprintf("profile %s, not full",
                            jstr(res, "config.profile") ? jstr(res, "config.profile") : "unknown"));
    if (!str_is(res, "config.schedule", "phased"))
        add(r,
            json_sprintf("schedule %s, not phased",
                         jstr(res, "config.schedule") ? jstr(res, "config.schedule") : "unknown"));
    double n = jnum(res, "repeats.n");
    if (!(n >= 3))
        add(r, isfinite(n) ? json_sprintf("%g runs: --repeat 3 or more", n)
                           : json_string("a single run: --repeat 3 or more"));
    else if ((double)distinct_runs(res) != n)
        /* n counted from the runs listed, each once: one run listed three
         * times, or none, is not a --repeat 3. */
        add(r, json_sprintf("repeats.n %g, but %zu distinct run(s) listed in repeats.runs", n,
                            distinct_runs(res)));
    else {
        /* The headline is the median run's own figures. */
        double med = jnum(res, "repeats.aops_median"), a = jnum(res, "totals.aops");
        if (!(isfinite(med) && isfinite(a) && fabs(med - a) <= 1e-9 * fabs(med)))
            add(r, json_string("the headline is not the median run's"));
    }
    if (jnum(res, "config.stall_timeout") != DEFAULT_STALL_TIMEOUT)
        add(r, json_sprintf("--stall-timeout %g, not the default %g",
                            jnum(res, "config.stall_timeout"), DEFAULT_STALL_TIMEOUT));
    if (jnum(res, "config.sample_interval") != DEFAULT_SAMPLE_INTERVAL)
        add(r, json_sprintf("--sample-interval %g, not the default %g",
                            jnum(res, "config.sample_interval"), DEFAULT_SAMPLE_INTERVAL));
    if (!json_is_true(jget(res, "provenance.build.release")))
        add(r, json_sprintf("not a release build (%s)",
                            json_is_string(jget(res, "provenance.build.sanitizers")) ? "sanitizers"
                            : jget(res, "provenance.build") ? "not optimized"
                                                            : "no build provenance"));
    if (!json_is_false(jget(res, "provenance.build.dirty")))
        add(r, json_sprintf("built from a tree with uncommitted changes (%s)",
                            jstr(res, "provenance.build.describe")
                                ? jstr(res, "provenance.build.describe")
                                : "unknown"));
    if (!str_is(res, "config.dataset", "per-worker"))
        add(r, json_string("not the published data set: --dataset shared"));
    data_rule(res, "provenance.data.objects_manifest.worker0_sha256",
              reportable_objects_worker0_sha256, "the objects manifest", r);
    data_rule(res, "provenance.data.corpus_manifest.sha256", reportable_corpus_manifest_sha256,
              "the corpus manifest", r);
    data_rule(res, "provenance.data.patterns.sha256", reportable_patterns_sha256,
              "the patterns file", r);
    const json_t *ver = json_object_get(res, "verification");
    const char *name;
    json_t *v;
    if (!json_is_object(ver) || !json_object_size(ver))
        add(r, json_string("no answer was verified"));
    json_object_foreach((json_t *)ver, name, v) {
        if (!json_is_true(json_object_get(v, "verified")))
            add(r, json_sprintf("%s answers not verified: %s", name,
                                jstr(v, "why") ? jstr(v, "why") : "no reason given"));
    }
    double errors = jnum(res, "totals.errors");
    if (errors != 0)
        add(r, isfinite(errors) ? json_sprintf("%.0f operations failed", errors)
                                : json_string("no error count"));
    if (!json_is_true(json_object_get(res, "valid")))
        add(r, json_string("the run is invalid (invalid_reasons)"));
    size_t i;
    json_array_foreach(json_object_get(res, "warnings"), i, v) {
        const char *w = json_string_value(v);
        if (w && strstr(w, "unstable"))
            add(r, json_sprintf("warning: %s", w));
    }
    return r;
}
