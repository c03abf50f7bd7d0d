/* result.c -- placing result.json's top-level keys (see result.h and the
 * table in keys.h). */
#include "result.h"

#include <stdio.h>
#include <string.h>

#include "../common/reportable.h"
#include "../common/upgrade.h"

/* The one json_object_set of a top-level key. replace: the verdict and the
 * reportable verdict, decided again as reasons arrive. */
static int place(json_t *res, enum rkey k, json_t *value, int replace) {
    const char *name = result_keys[k].name;
    if (!value)
        value = json_null();
    if (!replace && json_object_get(res, name)) {
        fprintf(stderr,
                "harness: result.json's %s set twice (result/keys.c names its one writer)\n", name);
        json_decref(value);
        return -1;
    }
    return json_object_set_new(res, name, value);
}

/* k's own *_reason key (the row after k, when it is one). */
static int own_reason(enum rkey k) {
    enum rkey r = result_keys[k].reason;
    return r < RK_COUNT && r == k + 1 && result_keys[r].types == (RT_STRING | RT_NULL);
}

int result_put(json_t *res, enum rkey k, json_t *value, const char *why) {
    if (!json_is_object(res) || k >= RK_COUNT) {
        json_decref(value);
        return -1;
    }
    int null = !value || json_is_null(value);
    int rc = place(res, k, value, 0);
    if (rc == 0 && own_reason(k))
        rc = place(res, result_keys[k].reason,
                   null ? json_string(why ? why : "not recorded") : json_null(), 0);
    return rc;
}

void result_verdict(json_t *res, json_t *reasons, json_t *warnings, int ok) {
    place(res, RK_VALID, json_boolean(ok && json_array_size(reasons) == 0), 1);
    place(res, RK_INVALID_REASONS, json_incref(reasons), 1);
    place(res, RK_WARNINGS, json_incref(warnings), 1);
}

json_t *result_begin(json_t *reasons, json_t *warnings) {
    json_t *res = json_object();
    if (!res || !json_is_array(reasons) || !json_is_array(warnings) ||
        place(res, RK_SCHEMA_VERSION, json_integer(RESULT_SCHEMA_VERSION), 0) != 0) {
        json_decref(res);
        return NULL;
    }
    result_verdict(res, reasons, warnings, 1);
    return res;
}

void result_reportable(json_t *res) {
    json_t *r = reportable_reasons(res);
    place(res, RK_REPORTABLE, json_boolean(json_array_size(r) == 0), 1);
    place(res, RK_NONREPORTABLE_REASONS, r, 1);
}

void result_complete(json_t *res, unsigned kind, const json_t *from) {
    for (size_t i = 0; i < RK_COUNT; i++) {
        const struct result_key *k = &result_keys[i];
        if (json_object_get(res, k->name) || (k->flags & RKF_WRITE))
            continue;
        if (kind == RK_REPEAT) { /* the median run's own, as it wrote it */
            json_t *v = json_object_get(from, k->name);
            if (v)
                place(res, (enum rkey)i, json_deep_copy(v), 0);
            else if (k->in == RK_EVERY && !(k->types == (RT_STRING | RT_NULL)))
                result_put(res, (enum rkey)i, NULL, "the median run's result has none");
            continue;
        }
        if (kind != RK_MERGED || k->in != RK_EVERY || k->merge)
            continue;
        if (i > 0 && own_reason((enum rkey)(i - 1)) && result_keys[i - 1].reason == (enum rkey)i)
            continue; /* put with its key */
        if (k->types & RT_NULL) {
            result_put(res, (enum rkey)i, NULL, k->merged);
            enum rkey r = k->reason;
            if (r < RK_COUNT && !own_reason((enum rkey)i) &&
                !json_object_get(res, result_keys[r].name))
                place(res, r, json_pack("{s:s}", "run", k->merged ? k->merged : "not merged"), 0);
        } else /* a side table of a key merged as null: nothing in it */
            place(res, (enum rkey)i, json_object(), 0);
    }
}
