/* findings.c -- what a check found, one line per figure that differs with
 * both values (see check.h); used by check.c and recompute.c alike. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "../common/json.h"
#include "check.h"

void finding(struct findings *f, const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    json_array_append_new(f->diffs, json_sprintf("%s%s", f->label, buf));
}

void compare_num(struct findings *f, const json_t *res, const char *path, double want, double rel,
                 double abs) {
    f->compared++;
    json_t *v = jget(res, path);
    if (!json_is_number(v)) {
        finding(f, "%s: result.json %s, recomputed %.10g", path, v ? "null" : "has none", want);
        return;
    }
    double have = json_number_value(v), tol = fmax(rel * fabs(want), abs);
    if (!(fabs(have - want) <= tol))
        finding(f, "%s: result.json %.10g, recomputed from the log %.10g", path, have, want);
}
