/* json.c -- see json.h. */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

json_t *jget(const json_t *root, const char *path) {
    char key[128];
    const json_t *cur = root;
    while (cur && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = 0;
        /* Arrays take an index step, "containers.0.ops", or a selector,
         * "telemetry.power.scope=platform.mean_w": the first element whose
         * member has that string value. */
        char *end, *eq = strchr(key, '=');
        unsigned long idx = strtoul(key, &end, 10);
        if (json_is_array(cur) && eq) {
            *eq = 0;
            const json_t *hit = NULL;
            for (size_t i = 0; !hit && i < json_array_size(cur); i++) {
                const char *v = json_string_value(json_object_get(json_array_get(cur, i), key));
                if (v && !strcmp(v, eq + 1))
                    hit = json_array_get(cur, i);
            }
            cur = hit;
        } else if (json_is_array(cur))
            cur = (*key && !*end) ? json_array_get(cur, idx) : NULL;
        else
            cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
        path += n + (dot ? 1 : 0);
    }
    return (json_t *)cur;
}

double jnum(const json_t *root, const char *path) {
    json_t *v = jget(root, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *jstr(const json_t *root, const char *path) {
    return json_string_value(jget(root, path));
}

json_t *json_num_or_null(double x, int ok) {
    return ok && isfinite(x) ? json_real(x) : json_null();
}
