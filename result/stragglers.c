/* stragglers.c -- finish-time figures (see stragglers.h). */
#include "stragglers.h"

#include <math.h>
#include <stdlib.h>

#include "../common/json.h"

static int dbl_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

json_t *stragglers_json(const json_t *containers, double (*ops_by)(void *ctx, double t),
                        void *ctx) {
    size_t n = json_array_size(containers), k = 0, i;
    double *f = malloc((n ? n : 1) * sizeof *f);
    json_t *c;
    if (!f)
        return json_null();
    json_array_foreach(containers, i, c) {
        double s = jnum(c, "seconds");
        if (isfinite(s))
            f[k++] = s;
    }
    if (!k) {
        free(f);
        return json_null();
    }
    qsort(f, k, sizeof *f, dbl_cmp);
    double med = k % 2 ? f[k / 2] : (f[k / 2 - 1] + f[k / 2]) / 2;
    double first = f[0], last = f[k - 1];
    double ops = ops_by ? ops_by(ctx, med) : NAN;
    json_t *o = json_pack("{s:{s:f, s:f, s:f}, s:i}", "finish", "first", first, "median", med,
                          "last", last, "containers", (int)k);
    json_object_set_new(o, "ops_at_median", json_num_or_null(round(ops), isfinite(ops)));
    json_object_set_new(o, "aops_at_median", json_num_or_null(ops / med, isfinite(ops) && med > 0));
    json_object_set_new(o, "tail_share", json_num_or_null((last - med) / last, last > 0));
    free(f);
    return o;
}
