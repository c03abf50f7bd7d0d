/* rerun_args.c -- which of a result's recorded options `harness rerun`
 * gives again. A result may come from anyone, and the auditor runs rerun
 * as root with their own secrets in the environment, so this is an
 * allow-list: only the options that define the job are replayed. Every
 * other option the harness knows is left out with one line that says why
 * (where the servers are, where the output goes, which key signs, which
 * process on this host gets pinned: those are the auditor's to give, after
 * RUN_DIR). An option this table does not know, a value that is not a
 * string, an operand or a malformed option refuses the whole result: a new
 * option is replayed only once someone has decided here that it is the job.
 *
 * The job (replayed): containers, profile, cycles, memory-limit,
 * cpus-per-container, placement, seed, schedule, phase-barrier, cache,
 * workloads, no-cgroups, no-verify, runtime, stall-timeout,
 * sample-interval, op-timeout, repeat, warmup-cycles, max-cv, dataset,
 * search-threads, tick-us; and the data the job reads, by name: bucket
 * (on the auditor's own endpoint, with their own credentials), corpus and
 * patterns (read only). Everything else is dropped (the table below says
 * why for each). */
#include "rerun_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds on what a result may ask for: far above any real invocation. */
#define MAX_OPTIONS 1024
#define MAX_VALUE 4096

enum kind { JOB, DROP };

struct rerun_opt {
    const char *name;
    enum kind kind;
    int flag;        /* takes no value */
    const char *why; /* DROP: the reason, in "rerun: dropped --x (WHY)" */
};

static const char ENDPOINT[] = "an endpoint, not the job", CRED[] = "a credential, not the job",
                  BMC[] = "a BMC, not the job", OUTPUT[] = "an output path, not the job",
                  HOSTPATH[] = "a path on this host, not the job",
                  PIN[] = "a PID or CPU pin of this host, not the job",
                  FLEET[] = "the fleet's, not one run's", PREP[] = "prepare's, not the job";

static const struct rerun_opt table[] = {
    /* common/config.c */
    {"containers", JOB, 0, NULL},
    {"profile", JOB, 0, NULL},
    {"cycles", JOB, 0, NULL},
    {"memory-limit", JOB, 0, NULL},
    {"cpus-per-container", JOB, 0, NULL},
    {"placement", JOB, 0, NULL},
    {"seed", JOB, 0, NULL},
    {"schedule", JOB, 0, NULL},
    {"phase-barrier", JOB, 1, NULL},
    {"cache", JOB, 0, NULL},
    {"workloads", JOB, 0, NULL},
    {"no-cgroups", JOB, 1, NULL},
    {"no-verify", JOB, 1, NULL},
    {"runtime", JOB, 0, NULL},
    {"stall-timeout", JOB, 0, NULL},
    {"sample-interval", JOB, 0, NULL},
    {"op-timeout", JOB, 0, NULL},
    {"repeat", JOB, 0, NULL},
    {"warmup-cycles", JOB, 0, NULL},
    {"max-cv", JOB, 0, NULL},
    {"slo", JOB, 0, NULL}, /* the bounds the job is judged by: the same verdict again */
    {"server-cpus", DROP, 0, PIN},
    {"server-pid", DROP, 0, PIN},
    {"server-cgroup", DROP, 0, HOSTPATH},
    {"out", DROP, 0, OUTPUT},
    {"csv", DROP, 0, OUTPUT},
    {"results-url", DROP, 0, OUTPUT},
    {"baseline-file", DROP, 0, HOSTPATH},
    {"sysroot", DROP, 0, HOSTPATH},
    {"sign", DROP, 0, "a signing key, not the job"},
    {"quiet", DROP, 1, "how it prints, not the job"},
    {"force", DROP, 1, "it would replace a result"},
    {"start-at", DROP, 0, "a start time that has passed"},
    {"shard", DROP, 0, FLEET},
    {"peers", DROP, 0, FLEET},
    {"rendezvous", DROP, 0, FLEET},
    {"metrics-listen", DROP, 0, "a listener, not the job"},
    {"metrics-linger", DROP, 0, "the metrics listener's, not the job"},
    {"image", DROP, 0, "an image to run, not the job"},
    {"docker-host", DROP, 0, ENDPOINT},
    {"container-network", DROP, 0, ENDPOINT},
    {"baseline", DROP, 1, PREP},
    {"baseline-size", DROP, 0, PREP},
    {"baseline-seconds", DROP, 0, PREP},
    {"bmc", DROP, 0, BMC},
    {"bmc-user", DROP, 0, CRED},
    {"bmc-password", DROP, 0, CRED},
    {"bmc-cacert", DROP, 0, BMC},
    {"bmc-insecure", DROP, 1, BMC},
    {"bmc-auth", DROP, 0, BMC},
    {"bmc-privilege", DROP, 0, BMC},
    {"bmc-interval", DROP, 0, BMC},
    /* workloads/s3.c */
    {"dataset", JOB, 0, NULL},
    {"s3-endpoint", DROP, 0, ENDPOINT},
    {"s3-region", DROP, 0, ENDPOINT},
    {"bucket", JOB, 0, NULL},
    {"s3-insecure", DROP, 1, ENDPOINT},
    {"s3-access-key", DROP, 0, CRED},
    {"s3-secret-key", DROP, 0, CRED},
    /* workloads/db.c */
    {"db-host", DROP, 0, ENDPOINT},
    {"db-port", DROP, 0, ENDPOINT},
    {"db-socket", DROP, 0, ENDPOINT},
    {"db-user", DROP, 0, CRED},
    {"db-name", DROP, 0, ENDPOINT},
    {"db-tls", DROP, 1, ENDPOINT},
    {"db-password", DROP, 0, CRED},
    /* workloads/search.c */
    {"search-threads", JOB, 0, NULL},
    {"corpus", JOB, 0, NULL},
    {"patterns", JOB, 0, NULL},
    /* workloads/tick.c (the coordinator's tests) */
    {"tick-us", JOB, 0, NULL},
};

static const struct rerun_opt *lookup(const char *name, size_t len) {
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strlen(table[i].name) == len && !memcmp(table[i].name, name, len))
            return &table[i];
    return NULL;
}

/* Append s (copied) to *list; -1 when out of memory. */
static int push(char ***list, int *n, const char *fmt, const char *a, const char *b) {
    int len = snprintf(NULL, 0, fmt, a, b);
    char **nl = realloc(*list, ((size_t)*n + 1) * sizeof *nl);
    if (!nl)
        return -1;
    *list = nl;
    if (len < 0 || !(nl[*n] = malloc((size_t)len + 1)))
        return -1;
    snprintf(nl[*n], (size_t)len + 1, fmt, a, b);
    (*n)++;
    return 0;
}

/* One option: the job's goes on argv as --name=value (one word, so a value
 * that starts with "--" stays a value); anything else one line. */
static int take(struct rerun_args *ra, const struct rerun_opt *o, const char *val) {
    if (o->kind == DROP)
        return push(&ra->dropped, &ra->ndropped, "rerun: dropped --%s (%s)", o->name, o->why);
    if (o->flag)
        return push(&ra->argv, &ra->argc, "--%s%s", o->name, "");
    return push(&ra->argv, &ra->argc, "--%s=%s", o->name, val);
}

void rerun_args_free(struct rerun_args *ra) {
    for (int i = 0; i < ra->argc; i++)
        free(ra->argv[i]);
    for (int i = 0; i < ra->ndropped; i++)
        free(ra->dropped[i]);
    free(ra->argv);
    free(ra->dropped);
    memset(ra, 0, sizeof *ra);
}

/* What a refusal quotes from the file: at most 64 bytes, a control
 * character as '?', so the refusal stays one line whatever the file holds
 * (the fuzzer found an option name with a newline in it). */
static int fail(struct rerun_args *ra, char *err, size_t errlen, const char *fmt, const char *a) {
    char q[129];
    size_t n = 0;
    for (; a[n] && n < sizeof q - 1; n++)
        q[n] = (unsigned char)a[n] < 0x20 || a[n] == 0x7f ? '?' : a[n];
    q[n] = 0;
    snprintf(err, errlen, fmt, q);
    rerun_args_free(ra);
    return -1;
}

int rerun_args_from_result(const json_t *result, struct rerun_args *ra, char *err, size_t errlen) {
    memset(ra, 0, sizeof *ra);
    const json_t *prov = json_object_get(result, "provenance"),
                 *inv = json_object_get(prov, "invocation"), *rec = json_object_get(inv, "argv"),
                 *env = json_object_get(inv, "environment_options");
    if (!json_is_object(inv))
        return fail(ra, err, errlen, "%s", "the result records no invocation");
    if ((rec && !json_is_array(rec)) || (env && !json_is_object(env)))
        return fail(ra, err, errlen, "%s",
                    "provenance.invocation: argv is not a list or environment_options not an "
                    "object");
    if (json_array_size(rec) + json_object_size(env) > MAX_OPTIONS)
        return fail(ra, err, errlen, "provenance.invocation names more than %s options", "1024");

    /* environment_options first, as the original run had them before its
     * command line: the recorded command line wins. */
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)env, name, v) {
        const char *s = json_string_value(v);
        const struct rerun_opt *o = lookup(name, strlen(name));
        if (!s)
            return fail(ra, err, errlen,
                        "provenance.invocation.environment_options.%s is not a string", name);
        if (!o || o->flag)
            return fail(ra, err, errlen,
                        "provenance.invocation.environment_options names an option rerun does "
                        "not know: '%s'",
                        name);
        if (strlen(s) > MAX_VALUE)
            return fail(ra, err, errlen, "the value of --%s is too long", name);
        if (s[0] && take(ra, o, s) != 0)
            return fail(ra, err, errlen, "%s", "out of memory");
    }
    for (size_t i = 0; i < json_array_size(rec); i++) {
        const char *a = json_string_value(json_array_get(rec, i));
        if (!a) {
            char idx[32];
            snprintf(idx, sizeof idx, "%zu", i);
            return fail(ra, err, errlen, "provenance.invocation.argv[%s] is not a string", idx);
        }
        if (strncmp(a, "--", 2) || !a[2])
            return fail(ra, err, errlen,
                        "provenance.invocation.argv holds '%s', not an option rerun knows", a);
        const char *eq = strchr(a + 2, '='), *val = eq ? eq + 1 : NULL;
        const struct rerun_opt *o = lookup(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
        if (!o)
            return fail(ra, err, errlen, "the result names an option rerun does not know: '%s'", a);
        if (o->flag && val)
            return fail(ra, err, errlen, "the result gives a value to the flag '%s'", a);
        if (!o->flag && !val) {
            if (++i >= json_array_size(rec))
                return fail(ra, err, errlen, "the result names '%s' with no value after it", a);
            if (!(val = json_string_value(json_array_get(rec, i)))) {
                char idx[32];
                snprintf(idx, sizeof idx, "%zu", i);
                return fail(ra, err, errlen, "provenance.invocation.argv[%s] is not a string", idx);
            }
        }
        if (val && strlen(val) > MAX_VALUE)
            return fail(ra, err, errlen, "the value of '%s' is too long", a);
        if (take(ra, o, val) != 0)
            return fail(ra, err, errlen, "%s", "out of memory");
    }
    return 0;
}
