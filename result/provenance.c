/* provenance.c -- where a result came from (see provenance.h): the build
 * (commit, dirty tree, the executable's own sha256, compiler and flags),
 * the libraries as loaded, and the digests of the data; and how each
 * workload's answers were checked.
 *
 * The build facts are compiled in (the Makefile rebuilds this file when
 * the commit or the tree's state changes); the executable is hashed as it
 * is on disk now, through /proc/self/exe. Libraries report themselves at
 * run time where they can (curl_version_info, jansson_version_str,
 * OpenSSL_version, ...) and by the file the loader mapped where they cannot
 * (libcgroup 2.0.2). Workloads add theirs through their provenance hook,
 * called once here before the run, never in the measured loop. */
#include "provenance.h"

#include <gnu/libc-version.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/digest.h"
#include "../common/libpath.h"

#ifndef AOPS_GIT
#define AOPS_GIT "unknown"
#endif
#ifndef AOPS_COMMIT
#define AOPS_COMMIT "unknown"
#endif
#ifndef AOPS_CC
#define AOPS_CC "unknown"
#endif
#ifndef AOPS_CFLAGS
#define AOPS_CFLAGS "unknown"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZERS "address,undefined"
#else
#define SANITIZERS NULL
#endif
#if defined(__OPTIMIZE__)
#define OPTIMIZED 1
#else
#define OPTIMIZED 0
#endif

static json_t *build_json(void) {
    char sha[SHA256_HEX], err[512], exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    int dirty = strstr(AOPS_GIT, "-dirty") != NULL;
    json_t *b =
        json_pack("{s:s, s:s, s:b, s:s, s:s, s:b, s:o, s:b}", "commit", AOPS_COMMIT, "describe",
                  AOPS_GIT, "dirty", dirty, "compiler", AOPS_CC, "cflags", AOPS_CFLAGS, "optimized",
                  OPTIMIZED, "sanitizers", SANITIZERS ? json_string(SANITIZERS) : json_null(),
                  "release", OPTIMIZED && !SANITIZERS);
    json_object_set_new(b, "exe", json_string(exe));
    int hashed = sha256_file_hex("/proc/self/exe", sha, err, sizeof err) == 0;
    json_object_set_new(b, "exe_sha256", hashed ? json_string(sha) : json_null());
    if (!hashed)
        json_object_set_new(b, "exe_sha256_reason", json_string(err));
    return b;
}

static json_t *libraries_json(void) {
    char path[4096];
    json_t *l = json_pack("{s:s, s:s, s:s}", "jansson", jansson_version_str(), "libcrypto",
                          OpenSSL_version(OPENSSL_VERSION), "glibc", gnu_get_libc_version());
    json_object_set_new(l, "libcgroup",
                        libpath_loaded("libcgroup.so", path, sizeof path) == 0 ? json_string(path)
                                                                               : json_null());
    return l;
}

/* How the run was asked for: the options as given, and the value of every
 * option the environment or the credentials file may set (never a secret),
 * so `harness rerun` can ask for exactly the same. */
static json_t *invocation_json(const struct config *cfg) {
    json_t *argv = json_array(), *env = json_object();
    for (int i = cfg->argv_first; cfg->argv && i < cfg->argc; i++)
        json_array_append_new(argv, json_string(cfg->argv[i]));
    struct opt_set sets[CONFIG_MAX_WL + 1];
    size_t n = workloads_option_sets((struct config *)cfg, sets, CONFIG_MAX_WL + 1);
    for (size_t k = 0; k < n; k++)
        for (size_t r = 0; r < sets[k].nrows; r++) {
            const struct opt_row *o = &sets[k].rows[r];
            char v[4096];
            if (!o->env || (o->flags & OPT_SECRET) || o->type == OPT_CUSTOM)
                continue;
            opt_format(o, sets[k].base, v, sizeof v);
            json_object_set_new(env, o->name, json_string(v));
        }
    return json_pack("{s:o, s:o}", "argv", argv, "environment_options", env);
}

json_t *provenance_collect(const struct config *cfg, const struct run_layout *lay,
                           json_t **verification, json_t *warnings) {
    json_t *libs = libraries_json(), *data = json_object();
    *verification = json_object();
    for (unsigned w = 0; w < lay->nwl; w++) {
        const struct workload *wl = lay->wl[w];
        if (!wl->provenance)
            continue;
        json_t *p = wl->provenance(cfg);
        json_object_update(libs, json_object_get(p, "libraries"));
        json_object_update(data, json_object_get(p, "data"));
        json_t *v = json_object_get(p, "verification");
        if (v) {
            json_object_set(*verification, wl->name, v);
            if (!json_is_true(json_object_get(v, "verified")))
                json_array_append_new(warnings,
                                      json_sprintf("answers not verified: %s: %s", wl->name,
                                                   json_string_value(json_object_get(v, "why"))));
        }
        json_decref(p);
    }
    return json_pack("{s:o, s:o, s:o, s:o}", "build", build_json(), "libraries", libs, "data", data,
                     "invocation", invocation_json(cfg));
}
