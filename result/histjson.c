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

json_t *results_hists_json(const struct run_layout *lay, const struct hist *hists) {
    json_t *wls = json_object();
    for (unsigned w = 0; w < lay->nwl; w++) {
        const struct workload *wl = lay->wl[w];
        json_t *o = json_object();
        json_object_set_new(o, "latency_ms", hist_to_json(&hists[lay_hist_lat(lay, w)]));
        if (lay->paced) /* the service time beside the response time (issue 38) */
            json_object_set_new(o, "service_ms", hist_to_json(&hists[lay_hist_svc(lay, w)]));
        for (unsigned h = 0; h < wl->nhists; h++)
            json_object_set_new(o, wl->hists[h].key,
                                hist_to_json(&hists[lay_hist_extra(lay, w, h)]));
        if (wl->nclasses) {
            json_t *cl = json_object();
            for (unsigned k = 0; k < wl->nclasses; k++)
                json_object_set_new(cl, wl->class_names[k],
                                    hist_to_json(&hists[lay_hist_class(lay, w, k)]));
            json_object_set_new(o, wl->classes_key ? wl->classes_key : "classes", cl);
        }
        json_object_set_new(wls, wl->name, o);
    }
    return json_pack("{s:{s:s, s:i, s:i}, s:o}", "format", "unit", "ns", "sub_bits", HIST_SUB_BITS,
                     "buckets", HIST_BUCKETS, "workloads", wls);
}

int hists_format_ok(const json_t *histograms) {
    const json_t *f = json_object_get(histograms, "format");
    const char *unit = json_string_value(json_object_get(f, "unit"));
    return unit && !strcmp(unit, "ns") &&
           json_integer_value(json_object_get(f, "sub_bits")) == HIST_SUB_BITS &&
           json_integer_value(json_object_get(f, "buckets")) == HIST_BUCKETS;
}
