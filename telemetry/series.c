/* series.c -- means and peaks over exact spans, and span arithmetic (see
 * series.h). No allocation except in the owned struct series. */
#include "series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int span_cmp(const void *x, const void *y) {
    const struct span *a = x, *b = y;
    return a->a < b->a ? -1 : a->a > b->a ? 1 : 0;
}

size_t spans_union(struct span *s, size_t n) {
    size_t k = 0;
    qsort(s, n, sizeof *s, span_cmp);
    for (size_t i = 0; i < n; i++) {
        if (!(s[i].b > s[i].a))
            continue;
        if (k && s[i].a <= s[k - 1].b) {
            if (s[i].b > s[k - 1].b)
                s[k - 1].b = s[i].b;
        } else
            s[k++] = s[i];
    }
    return k;
}

double spans_length(const struct span *s, size_t n) {
    double len = 0;
    for (size_t i = 0; i < n; i++)
        len += s[i].b - s[i].a;
    return len;
}

size_t spans_subtract(const struct span *a, size_t na, const struct span *b, size_t nb,
                      struct span *out) {
    size_t k = 0, j = 0;
    for (size_t i = 0; i < na; i++) {
        double lo = a[i].a, hi = a[i].b;
        while (j < nb && b[j].b <= lo)
            j++;
        for (size_t m = j; m < nb && b[m].a < hi; m++) {
            if (b[m].a > lo)
                out[k++] = (struct span){lo, b[m].a};
            if (b[m].b > lo)
                lo = b[m].b;
            if (lo >= hi)
                break;
        }
        if (hi > lo)
            out[k++] = (struct span){lo, hi};
    }
    return k;
}

double spans_overlap(const struct span *a, size_t na, const struct span *b, size_t nb) {
    double len = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        double lo = fmax(a[i].a, b[j].a), hi = fmin(a[i].b, b[j].b);
        if (hi > lo)
            len += hi - lo;
        if (a[i].b < b[j].b)
            i++;
        else
            j++;
    }
    return len;
}

/* Seconds of (lo, hi] inside the spans; spans are sorted, so the search
 * starts at *from and moves forward with the points. */
static double inside(const struct span *s, size_t n, size_t *from, double lo, double hi) {
    double len = 0;
    while (*from < n && s[*from].b <= lo)
        (*from)++;
    for (size_t k = *from; k < n && s[k].a < hi; k++) {
        double x = fmax(lo, s[k].a), y = fmin(hi, s[k].b);
        if (y > x)
            len += y - x;
    }
    return len;
}

int series_stat(const struct series_col *c, const struct span *s, size_t n, double *mean,
                double *peak, double *covered) {
    double wsum = 0, vsum = 0, top = -INFINITY;
    size_t from = 0;
    for (size_t i = 0; i < c->n; i++) {
        double t = c->t[i * c->stride], dt = c->dt[i * c->stride], v = c->v[i * c->stride];
        double w = inside(s, n, &from, t - dt, t);
        if (isnan(v) || !(w > 0))
            continue;
        wsum += w;
        vsum += v * w;
        top = fmax(top, v);
    }
    *covered = wsum;
    if (!(wsum > 0)) {
        *mean = *peak = NAN;
        return -1;
    }
    *mean = vsum / wsum;
    *peak = top;
    return 0;
}

double series_integral(const struct series_col *c, const struct span *s, size_t n) {
    double mean, peak, covered;
    if (series_stat(c, s, n, &mean, &peak, &covered) != 0)
        return NAN;
    return mean * covered;
}

static json_t *rounded(double v) {
    return isnan(v) ? json_null() : json_real(round(v * 1000.0) / 1000.0);
}

json_t *series_stat_json(const struct series_col *c, const struct span *s, size_t n) {
    double mean, peak, covered;
    if (series_stat(c, s, n, &mean, &peak, &covered) != 0)
        return json_null();
    return json_pack("{s:o, s:o}", "mean", rounded(mean), "peak", rounded(peak));
}

/* key of o is present and null */
static int null_at(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    return v && json_is_null(v);
}

void series_figure_reasons(json_t *o, const char *cpu_why, const char *disk_why) {
    static const char *const cpu[] = {"cpu_util", "steal_pct"};
    static const char *const disk[] = {"read_Bps", "read_iops", "write_Bps", "write_iops"};
    int nc = 0, nd = 0;
    for (size_t i = 0; i < sizeof cpu / sizeof *cpu; i++)
        nc += null_at(o, cpu[i]);
    for (size_t i = 0; i < sizeof disk / sizeof *disk; i++)
        nd += null_at(o, disk[i]);
    if (nc && !json_object_get(o, "cpu_unavailable_reason"))
        json_object_set_new(o, "cpu_unavailable_reason", json_string(cpu_why));
    if (nd && !json_object_get(o, "disk_unavailable_reason"))
        json_object_set_new(o, "disk_unavailable_reason", json_string(disk_why));
}

void series_init(struct series *s) {
    memset(s, 0, sizeof *s);
}

void series_free(struct series *s) {
    free(s->rows);
    series_init(s);
}

int series_find_col(const struct series *s, const char *name) {
    for (unsigned i = 0; i < s->ncols; i++)
        if (!strcmp(s->names[i], name))
            return (int)i;
    return -1;
}

int series_add_col(struct series *s, const char *name) {
    int k = series_find_col(s, name);
    if (k >= 0)
        return k;
    /* Columns are fixed once rows exist: a row's width would change. */
    if (s->ncols == SERIES_MAX_COLS || s->n || strlen(name) >= sizeof s->names[0])
        return -1;
    strcpy(s->names[s->ncols], name);
    return (int)s->ncols++;
}

double *series_append(struct series *s, double t, double dt) {
    size_t w = 2 + s->ncols;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        double *r = realloc(s->rows, cap * w * sizeof *r);
        if (!r)
            return NULL;
        s->rows = r, s->cap = cap;
    }
    double *row = s->rows + s->n++ * w;
    row[0] = t, row[1] = dt;
    for (unsigned i = 0; i < s->ncols; i++)
        row[2 + i] = NAN;
    return row;
}

struct series_col series_column(const struct series *s, int col) {
    size_t w = 2 + s->ncols;
    struct series_col c = {s->rows, s->rows ? s->rows + 1 : NULL,
                           s->rows && col >= 0 ? s->rows + 2 + col : NULL, w, s->n};
    if (col < 0)
        c.n = 0;
    return c;
}
