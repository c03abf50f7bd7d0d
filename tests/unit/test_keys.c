/* test_keys.c -- result/keys.c, the table of result.json's top-level keys,
 * against references outside it:
 *   - a real result.json, a tiny run's of this build
 *     (tests/fixtures/result-v2-tiny.json): each of its keys is in the table,
 *     each key the table has in every result is in it, and it passes
 *     result_keys_check();
 *   - result.schema.json: its top-level properties are the table's keys, one
 *     for one, its required ones are the table's every-result keys but the
 *     *_reason keys, and a key the schema lets be null is one the table does;
 *   - the sources: each RK_ is put through result_put() only in the files
 *     the table names as its writers (a run's, a merge's, a repeat's), and
 *     no file but result/result.c sets a top-level key by its name;
 *   - result_keys_check() on results broken on purpose: one line each, naming
 *     the key; a version-1 fixture read through result_upgrade() passes. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/upgrade.h"
#include "../../result/keys.h"
#include "unit.h"

static const char *root_dir(void) {
    return getenv("AOPS_ROOT") ? getenv("AOPS_ROOT") : ".";
}

static json_t *load(const char *rel) {
    char path[4096];
    json_error_t je;
    snprintf(path, sizeof path, "%s/%s", root_dir(), rel);
    json_t *r = json_load_file(path, 0, &je);
    CHECKF(r != NULL, "%s: %s", path, je.text);
    return r;
}

static int reason_key(const struct result_key *k) {
    return k->reason == RK_COUNT && k->types == (RT_STRING | RT_NULL) &&
           strstr(k->name, "_reason") != NULL;
}

static void real_result(void) {
    json_t *r = load("tests/fixtures/result-v2-tiny.json");
    if (!r)
        return;
    const char *name;
    json_t *v;
    json_object_foreach(r, name, v)
        CHECKF(result_key_find(name) != NULL, "%s: not in the table", name);
    for (size_t i = 0; i < RK_COUNT; i++)
        if (result_keys[i].in == RK_EVERY)
            CHECKF(json_object_get(r, result_keys[i].name) != NULL, "%s: not in a real result",
                   result_keys[i].name);
    char lines[16][256];
    size_t n = result_keys_check(r, lines, 16);
    CHECKF(n == 0, "a real result: %zu findings, first: %s", n, n ? lines[0] : "");
    json_decref(r);
}

static void schema(void) {
    json_t *s = load("result.schema.json");
    if (!s)
        return;
    json_t *props = json_object_get(s, "properties"), *req = json_object_get(s, "required");
    const char *name;
    json_t *p;
    json_object_foreach(props, name, p) {
        const struct result_key *k = result_key_find(name);
        CHECKF(k != NULL, "schema property %s: not in the table", name);
        if (!k)
            continue;
        /* null in the schema exactly where the table allows it */
        int null = 0;
        json_t *t = json_object_get(p, "type"), *e;
        size_t i;
        if (json_is_string(t))
            null = !strcmp(json_string_value(t), "null");
        json_array_foreach(t, i, e) null |= !strcmp(json_string_value(e), "null");
        CHECKF(null == !!(k->types & RT_NULL), "%s: null in the schema %d, in the table %d", name,
               null, !!(k->types & RT_NULL));
        /* the schema's reason key is the table's */
        const char *why = json_string_value(json_object_get(p, "x-null-reason"));
        if (why && k->reason < RK_COUNT)
            CHECKF(!strcmp(why, result_keys[k->reason].name), "%s: x-null-reason %s, table %s",
                   name, why, result_keys[k->reason].name);
    }
    for (size_t i = 0; i < RK_COUNT; i++) {
        const struct result_key *k = &result_keys[i];
        CHECKF(json_object_get(props, k->name) != NULL, "%s: not in result.schema.json", k->name);
        int required = 0;
        size_t j;
        json_t *e;
        json_array_foreach(req, j, e) required |= !strcmp(json_string_value(e), k->name);
        CHECKF(required == (k->in == RK_EVERY && !reason_key(k)),
               "%s: required in the schema %d, in every result by the table %d", k->name, required,
               k->in == RK_EVERY && !reason_key(k));
    }
    json_decref(s);
}

/* owner "file.c:function" names file (a basename)? */
static int names_file(const char *owner, const char *file) {
    size_t n = strlen(file);
    return owner && !strncmp(owner, file, n) && owner[n] == ':';
}

/* Every result_put(x, RK_NAME in one .c file of dir, checked against the
 * table; counts what it saw into seen[]. */
static void scan_file(const char *dir, const char *file, unsigned *seen) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", root_dir(), dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    for (const char *p = text; (p = strstr(p, "result_put(")); p++) {
        const char *rk = strstr(p, "RK_"), *end = strchr(p, ';');
        if (!rk || (end && rk > end) || (p - text >= 4 && !strncmp(p - 4, "int ", 4)))
            continue; /* not a call: the definition */
        if (p > text && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z')))
            continue;
        char name[64];
        size_t n = strspn(rk, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
        snprintf(name, sizeof name, "%.*s", (int)n, rk);
        size_t i = 0;
        /* RK_<NAME> for result_keys[i].name upper-cased ("shard" is RK_SHARD_INFO) */
        for (; i < RK_COUNT; i++) {
            char up[64] = "RK_";
            size_t k = 0;
            for (; result_keys[i].name[k] && k < 50; k++)
                up[3 + k] = (char)(result_keys[i].name[k] >= 'a' && result_keys[i].name[k] <= 'z'
                                       ? result_keys[i].name[k] - 32
                                       : result_keys[i].name[k]);
            up[3 + k] = 0;
            if (!strcmp(up, name) || (i == RK_SHARD_INFO && !strcmp(name, "RK_SHARD_INFO")))
                break;
        }
        CHECKF(i < RK_COUNT, "%s/%s: result_put of %s, no key of the table", dir, file, name);
        if (i == RK_COUNT)
            continue;
        const struct result_key *k = &result_keys[i];
        CHECKF(names_file(k->owner, file) || names_file(k->merge, file) ||
                   names_file(k->repeat, file),
               "%s/%s puts %s, whose writers are %s / %s / %s (result/keys.c)", dir, file, k->name,
               k->owner ? k->owner : "-", k->merge ? k->merge : "-", k->repeat ? k->repeat : "-");
        seen[i]++;
    }
    /* No other way in: a top-level key set by its name outside result/
     * (json_object_set*(res, "name"), the way every writer did it). */
    if (strcmp(dir, "result"))
        for (size_t i = 0; i < RK_COUNT; i++) {
            char pat[96];
            snprintf(pat, sizeof pat, "(res, \"%s\"", result_keys[i].name);
            for (const char *q = text; (q = strstr(q, pat)); q++) {
                const char *from = q - text > 24 ? q - 24 : text;
                CHECKF(!memmem(from, (size_t)(q - from), "json_object_set", 15),
                       "%s/%s sets %s by its name", dir, file, result_keys[i].name);
            }
        }
}

/* The layers are the Makefile's LAYERS line, read here rather than listed,
 * so that a new layer folder cannot fall out of the scan unnoticed (fleet/
 * and the others split out of coordinator/ once did, and "merge: never put"
 * was the only sign). */
static size_t layers(char dirs[][64], size_t max) {
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/Makefile", root_dir());
    FILE *f = fopen(path, "r");
    CHECKF(f != NULL, "%s", path);
    size_t n = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "LAYERS", 6) && strstr(line, ":=")) {
            for (char *t = strtok(strstr(line, ":=") + 2, " \t\n"); t && n < max;
                 t = strtok(NULL, " \t\n"))
                snprintf(dirs[n++], 64, "%s", t);
            break;
        }
    if (f)
        fclose(f);
    return n;
}

static void sources(void) {
    char dirs[32][64];
    size_t nd = layers(dirs, 32);
    CHECKF(nd >= 8, "Makefile's LAYERS names %zu folders", nd);
    unsigned seen[RK_COUNT] = {0};
    for (size_t d = 0; d < nd; d++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", root_dir(), dirs[d]);
        DIR *dp = opendir(path);
        CHECKF(dp != NULL, "%s", path);
        struct dirent *e;
        while (dp && (e = readdir(dp))) {
            size_t n = strlen(e->d_name);
            if (n > 2 && !strcmp(e->d_name + n - 2, ".c"))
                scan_file(dirs[d], e->d_name, seen);
        }
        if (dp)
            closedir(dp);
    }
    /* Each key that a run's writer puts by name is put somewhere. */
    const enum rkey named[] = {RK_CONFIG, RK_TELEMETRY, RK_PLACEMENT,  RK_PROVENANCE,
                               RK_RUN_ID, RK_OPLOG,     RK_INTEGRITY,  RK_REPEATS,
                               RK_SHARDS, RK_MERGE,     RK_ATTRIBUTION};
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        CHECKF(seen[named[i]] > 0, "%s: never put", result_keys[named[i]].name);
}

static size_t findings(json_t *r, const char *want) {
    char lines[16][256];
    size_t n = result_keys_check(r, lines, 16), hit = 0;
    for (size_t i = 0; i < n && i < 16; i++)
        hit += strstr(lines[i], want) != NULL;
    CHECKF(n == 1 && hit == 1, "want one finding '%s', got %zu: %s", want, n, n ? lines[0] : "");
    json_decref(r);
    return n;
}

static void broken(void) {
    json_t *r = load("tests/fixtures/result-v2-tiny.json");
    if (!r)
        return;
    json_t *b = json_deep_copy(r);
    json_object_del(b, "placement");
    findings(b, "placement: missing");
    b = json_deep_copy(r);
    json_object_set_new(b, "totals", json_string("many"));
    findings(b, "totals: a string, where the schema has an object");
    b = json_deep_copy(r);
    json_object_set_new(b, "placement", json_null()); /* placement_reason stays null */
    findings(b, "placement: null without its reason (placement_reason)");
    b = json_deep_copy(r);
    json_object_set_new(b, "surprise", json_true());
    findings(b, "surprise: not a key of result.json");
    b = json_deep_copy(r);
    json_object_set_new(b, "placement", json_null());
    json_object_set_new(b, "placement_reason", json_string("not merged"));
    char lines[4][256];
    CHECK(result_keys_check(b, lines, 4) == 0); /* a null with its reason */
    json_decref(b);
    json_t *late = json_pack("[i]", 1);
    CHECK(result_keys_check(late, lines, 4) == 1 && strstr(lines[0], "not a JSON object"));
    json_decref(late);
    json_decref(r);

    /* An older result, read in today's shape: what its build did not write
     * is null and named in not_recorded, which the check accepts. */
    json_t *v1 = load("tests/fixtures/result-v1-tiny.json");
    char err[256];
    if (v1) {
        CHECK(result_upgrade(v1, err, sizeof err) == 1);
        size_t n = result_keys_check(v1, lines, 4);
        CHECKF(n == 0, "the upgraded v1 fixture: %zu findings, first: %s", n, n ? lines[0] : "");
        CHECK(json_is_null(json_object_get(v1, "integrity")));
        result_upgrade_undo(v1);
        CHECK(json_object_get(v1, "integrity") == NULL &&
              json_object_get(v1, "not_recorded") == NULL);
        json_decref(v1);
    }
}

int main(void) {
    real_result();
    schema();
    sources();
    broken();
    return unit_done("test_keys");
}
