/* histjson.c -- histograms to and from result.json (see histjson.h). */
#include "histjson.h"

#include <stdio.h>
#include <string.h>

json_t *hist_to_json(const struct hist *h) {
    json_t *b = json_array();
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        if (h->b[i])
            json_array_append_new(b, json_pack("[I, I]", (json_int_t)i, (json_int_t)h->b[i]));
    return json_pack("{s:I, s:I, s:o, s:I, s:o}", "count", (json_int_t)h->count, "sum_ns",
                     (json_int_t)h->sum, "min_ns",
                     h->count ? json_integer((json_int_t)h->min) : json_null(), "max_ns",
                     (json_int_t)h->max, "buckets", b);
}

int hist_from_json(const json_t *j, struct hist *h, char *err, size_t errlen) {
    hist_init(h);
    json_t *b = json_object_get(j, "buckets");
    json_t *count = json_object_get(j, "count"), *sum = json_object_get(j, "sum_ns");
    json_t *mn = json_object_get(j, "min_ns"), *mx = json_object_get(j, "max_ns");
    if (!json_is_array(b) || !json_is_integer(count) || !json_is_integer(sum) ||
        !json_is_integer(mx)) {
        snprintf(err, errlen, "not a histogram (count, sum_ns, max_ns, buckets)");
        return -1;
    }
    size_t i;
    json_t *pair;
    uint64_t seen = 0;
    json_array_foreach(b, i, pair) {
        json_int_t idx = json_integer_value(json_array_get(pair, 0));
        json_int_t c = json_integer_value(json_array_get(pair, 1));
        if (!json_is_integer(json_array_get(pair, 0)) || idx < 0 || idx >= HIST_BUCKETS || c <= 0 ||
            c > UINT32_MAX || h->b[idx]) {
            snprintf(err, errlen, "histogram bucket %zu is not [index, count]", i);
            return -1;
        }
        h->b[idx] = (uint32_t)c;
        seen += (uint64_t)c;
    }
    h->count = (uint64_t)json_integer_value(count);
    h->sum = (uint64_t)json_integer_value(sum);
    h->max = (uint64_t)json_integer_value(mx);
    if (seen != h->count) {
        snprintf(err, errlen, "histogram buckets hold %llu values, its count says %llu",
                 (unsigned long long)seen, (unsigned long long)h->count);
        return -1;
    }
    if (h->count) {
        if (!json_is_integer(mn)) {
            snprintf(err, errlen, "histogram without min_ns");
            return -1;
        }
        h->min = (uint64_t)json_integer_value(mn);
    }
    return 0;
}

int results_hist_path(const struct run_layout *lay, unsigned h, char *path, size_t len) {
    if (lay->paced && h == lay->hist_late)
        return snprintf(path, len, "pacer.lateness_ms") < (int)len ? 0 : -1;
    for (unsigned w = 0; w < lay->nwl; w++) {
        const struct workload *wl = lay->wl[w];
        const char *ck = wl->classes_key ? wl->classes_key : "classes";
        int n = -1;
        if (h == lay_hist_lat(lay, w))
            n = snprintf(path, len, "workloads.%s.latency_ms", wl->name);
        for (unsigned x = 0; x < wl->nhists; x++)
            if (h == lay_hist_extra(lay, w, x))
                n = snprintf(path, len, "workloads.%s.%s", wl->name, wl->hists[x].key);
        for (unsigned k = 0; k < wl->nclasses; k++)
            if (h == lay_hist_class(lay, w, k))
                n = snprintf(path, len, "workloads.%s.%s.%s", wl->name, ck, wl->class_names[k]);
        if (lay->paced && h == lay_hist_svc(lay, w))
            n = snprintf(path, len, "workloads.%s.service_ms", wl->name);
        for (unsigned k = 0; lay->paced && k < wl->nclasses; k++)
            if (h == lay_hist_svc_class(lay, w, k))
                n = snprintf(path, len, "workloads.%s.service_%s.%s", wl->name, ck,
                             wl->class_names[k]);
        if (n >= 0)
            return n < (int)len ? 0 : -1;
    }
    return -1;
}

/* v at the dotted path below root, the objects on the way made as needed. */
static void put_path(json_t *root, const char *path, json_t *v) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = root;
    char *key = buf, *dot;
    while ((dot = strchr(key, '.'))) {
        *dot = 0;
        json_t *next = json_object_get(cur, key);
        if (!json_is_object(next)) {
            next = json_object();
            json_object_set_new(cur, key, next);
        }
        cur = next, key = dot + 1;
    }
    json_object_set_new(cur, key, v);
}

json_t *results_hists_json(const struct run_layout *lay, const struct hist *hists) {
    json_t *o = json_pack("{s:{s:s, s:i, s:i}, s:{}}", "format", "unit", "ns", "sub_bits",
                          HIST_SUB_BITS, "buckets", HIST_BUCKETS, "workloads");
    /* Every workload has its object, in the layout's order, before any of its histograms. */
    for (unsigned w = 0; w < lay->nwl; w++)
        json_object_set_new(json_object_get(o, "workloads"), lay->wl[w]->name, json_object());
    char path[512];
    for (unsigned h = 0; h < lay->nhist; h++)
        if (results_hist_path(lay, h, path, sizeof path) == 0)
            put_path(o, path, hist_to_json(&hists[h]));
    return o;
}

int hists_format_ok(const json_t *histograms) {
    const json_t *f = json_object_get(histograms, "format");
    const char *unit = json_string_value(json_object_get(f, "unit"));
    return unit && !strcmp(unit, "ns") &&
           json_integer_value(json_object_get(f, "sub_bits")) == HIST_SUB_BITS &&
           json_integer_value(json_object_get(f, "buckets")) == HIST_BUCKETS;
}
