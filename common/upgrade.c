/* upgrade.c -- see upgrade.h. One function per step from a version to the
 * next, applied in order; each says what it changes and why, as
 * CHANGELOG.md does for a reader. */
#include "upgrade.h"

#include <stdio.h>

/* 1 -> 2: telemetry.power was one object, the CPU package's
 * {source, mean_w, peak_w}, or null with telemetry.power_unavailable_reason
 * beside it. It is now an array with one entry per source, each with its
 * scope, its series column and a reason where it could not measure. The old
 * object is the package's entry, whose series was power_w; a null is that
 * entry unmeasured, its reason the old power_unavailable_reason. Builds of
 * late schema 1 already wrote the array (the version was raised after
 * them): an array is left as it is. */
static int power_to_sources(json_t *root) {
    json_t *t = json_object_get(root, "telemetry");
    json_t *pw = json_object_get(t, "power");
    if (!json_is_object(t) || json_is_array(pw) || (pw && !json_is_object(pw) && !json_is_null(pw)))
        return 0; /* no telemetry, the new shape, or neither shape: nothing to read */
    json_t *e = json_is_object(pw) ? json_deep_copy(pw) : json_object();
    if (!e)
        return -1;
    int measured = json_is_number(json_object_get(e, "mean_w"));
    if (!json_object_get(e, "source"))
        json_object_set_new(e, "source", json_null());
    if (!json_object_get(e, "mean_w"))
        json_object_set_new(e, "mean_w", json_null());
    if (!json_object_get(e, "peak_w"))
        json_object_set_new(e, "peak_w", json_null());
    json_object_set_new(e, "scope", json_string("package"));
    json_object_set_new(e, "series", json_string("power_w"));
    /* The package was the only source, so a measured one gave aops_per_watt. */
    json_object_set_new(e, "used_for_per_watt", json_boolean(measured));
    json_t *why = json_object_get(t, "power_unavailable_reason");
    if (!json_object_get(e, "reason"))
        json_object_set_new(e, "reason",
                            measured || !json_is_string(why) ? json_null() : json_copy(why));
    json_t *arr = json_array();
    if (!arr || json_array_append_new(arr, e) != 0 || json_object_set_new(t, "power", arr) != 0)
        return -1;
    return 0;
}

int result_upgrade(json_t *root, char *err, size_t errlen) {
    if (!json_is_object(root)) {
        snprintf(err, errlen, "not a harness result (not a JSON object)");
        return -1;
    }
    json_t *v = json_object_get(root, "schema_version");
    if (!json_is_integer(v)) {
        snprintf(err, errlen, "not a harness result (no integer schema_version)");
        return -1;
    }
    json_int_t ver = json_integer_value(v);
    if (ver < 1 || ver > RESULT_SCHEMA_VERSION) {
        snprintf(err, errlen, "schema_version %lld is not one this build reads (1 to %d)%s",
                 (long long)ver, RESULT_SCHEMA_VERSION,
                 ver > RESULT_SCHEMA_VERSION ? ": a newer build's result, read it with that build"
                                             : "");
        return -1;
    }
    if (ver < 2 && power_to_sources(root) != 0) {
        snprintf(err, errlen, "out of memory reading a schema 1 result");
        return -1;
    }
    return (int)ver;
}
