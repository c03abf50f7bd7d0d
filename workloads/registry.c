/* registry.c -- the table of workloads everything else walks, and the
 * per-run settings each of them brings.
 *
 * The table is WORKLOADS (workload.h), in that order: the three real
 * workloads in the order a phased cycle runs them, then the test-only ones.
 * A new workload is its own file plus its name in that list. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define DECLARE(w) extern const struct workload w##_workload;
WORKLOADS(DECLARE)
#define ENTRY(w) &w##_workload,
const struct workload *const workload_table[] = {WORKLOADS(ENTRY) NULL};

_Static_assert(sizeof workload_table / sizeof workload_table[0] - 1 == WL_NSLOTS,
               "one slot per entry of the table: the accessors index cfg->wl_opts by slot");

const struct workload *workload_find(const char *name) {
    for (int i = 0; workload_table[i]; i++)
        if (strcmp(workload_table[i]->name, name) == 0)
            return workload_table[i];
    return NULL;
}

int workload_index(const struct workload *w) {
    for (int i = 0; workload_table[i]; i++)
        if (workload_table[i] == w)
            return i;
    return -1;
}

const void *workload_opts(const struct config *cfg, const struct workload *w) {
    int i = workload_index(w);
    return i < 0 ? NULL : cfg->wl_opts[i];
}

size_t workloads_option_sets(struct config *cfg, struct opt_set *sets, size_t max) {
    size_t n = 0;
    if (n < max)
        sets[n++] = (struct opt_set){"run", config_rows, config_nrows, cfg};
    for (int i = 0; workload_table[i] && n < max; i++)
        if (workload_table[i]->noptions)
            sets[n++] = (struct opt_set){workload_table[i]->title, workload_table[i]->options,
                                         workload_table[i]->noptions, cfg->wl_opts[i]};
    return n;
}

int workloads_config_init(struct config *cfg, char *err, size_t errlen) {
    config_base_defaults(cfg);
    for (int i = 0; workload_table[i]; i++) {
        size_t sz = workload_table[i]->opts_size;
        if (sz && !(cfg->wl_opts[i] = calloc(1, sz))) {
            snprintf(err, errlen, "out of memory for the settings of %s", workload_table[i]->name);
            workloads_config_free(cfg);
            return -1;
        }
    }
    struct opt_set sets[CONFIG_MAX_WL + 1];
    size_t n = workloads_option_sets(cfg, sets, CONFIG_MAX_WL + 1);
    if (opt_defaults(sets, n, err, errlen) != 0)
        return -1;
    for (int i = 0; workload_table[i]; i++)
        if (workload_table[i]->init_opts)
            workload_table[i]->init_opts(cfg, cfg->wl_opts[i]);
    return 0;
}

void workloads_config_free(struct config *cfg) {
    for (int i = 0; i < CONFIG_MAX_WL; i++) {
        free(cfg->wl_opts[i]);
        cfg->wl_opts[i] = NULL;
    }
}

unsigned workloads_full_cycle(void) {
    unsigned n = 0;
    for (int i = 0; workload_table[i]; i++)
        if (!workload_table[i]->test_only)
            n += workload_table[i]->ops_per_cycle;
    return n;
}

int workloads_select(struct config *cfg, char *err, size_t errlen) {
    unsigned mask = 0;
    if (!cfg->workloads[0]) {
        for (int i = 0; workload_table[i]; i++)
            if (!workload_table[i]->test_only)
                mask |= 1u << i;
    } else {
        char list[sizeof cfg->workloads], *save = NULL;
        snprintf(list, sizeof list, "%s", cfg->workloads);
        for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            const struct workload *w = workload_find(t);
            if (!w) {
                char known[256];
                size_t o = 0;
                for (int i = 0; workload_table[i] && o < sizeof known; i++)
                    o += (size_t)snprintf(known + o, sizeof known - o, "%s%s", i ? ", " : "",
                                          workload_table[i]->name);
                snprintf(err, errlen, "--workloads: unknown workload '%s' (expected %s)", t, known);
                return -1;
            }
            mask |= 1u << workload_index(w);
        }
        if (!mask) {
            snprintf(err, errlen, "--workloads is empty: name at least one workload");
            return -1;
        }
    }
    cfg->wl_mask = mask;
    /* --server-cgroup/--server-pid name a server some workload uses. */
    for (unsigned k = 0; k < cfg->nserver_over; k++) {
        int known = 0;
        char names[256] = "";
        size_t o = 0;
        for (int i = 0; workload_table[i]; i++) {
            const char *sn = workload_table[i]->server_name;
            if (!sn || strstr(names, sn))
                continue;
            known |= !strcmp(sn, cfg->server_over[k].name);
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", o ? ", " : "", sn);
        }
        if (!known) {
            snprintf(err, errlen,
                     "--server-%s %s=...: no workload uses a server named '%s' (known: %s)",
                     cfg->server_over[k].pid ? "pid" : "cgroup", cfg->server_over[k].name,
                     cfg->server_over[k].name, names);
            return -1;
        }
    }
    for (int i = 0; workload_table[i]; i++)
        if ((mask >> i & 1) && workload_table[i]->check &&
            workload_table[i]->check(cfg, err, errlen) != 0)
            return -1;
    return 0;
}

/* The stores for result files that the workloads offer, found by URL
 * scheme: a walk of the table like the others here (placement/shard.c and
 * fleet/merge_cmd.c ask it for --results-url and merge's URLs). */
int is_store_url(const char *s) {
    const char *p = s;
    while (isalnum((unsigned char)*p))
        p++;
    return p > s && !strncmp(p, "://", 3);
}

void store_schemes(char *out, size_t len) {
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; workload_table[i] && o < len; i++)
        if (workload_table[i]->store)
            o += (size_t)snprintf(out + o, len - o, "%s%s", o ? "|" : "",
                                  workload_table[i]->store->scheme);
    if (!o)
        snprintf(out, len, "none");
}

const struct wl_store *store_for_url(const char *url, char *bucket, size_t blen, char *prefix,
                                     size_t plen, const struct workload **owner, char *err,
                                     size_t errlen) {
    if (!is_store_url(url)) {
        char schemes[64];
        store_schemes(schemes, sizeof schemes);
        snprintf(err, errlen, "'%s' is not a URL such as %s://BUCKET/PREFIX/", url, schemes);
        return NULL;
    }
    size_t sl = strcspn(url, ":");
    const char *b = url + sl + 3, *slash = strchr(b, '/');
    size_t bl = slash ? (size_t)(slash - b) : strlen(b);
    if (bl == 0 || bl >= blen) {
        snprintf(err, errlen, "'%s' names no bucket (expected %.*s://BUCKET/PREFIX/)", url, (int)sl,
                 url);
        return NULL;
    }
    const char *p = slash ? slash + 1 : "";
    if (strlen(p) >= plen) {
        snprintf(err, errlen, "'%s': prefix too long", url);
        return NULL;
    }
    for (int i = 0; workload_table[i]; i++) {
        const struct wl_store *s = workload_table[i]->store;
        if (s && strlen(s->scheme) == sl && !strncmp(s->scheme, url, sl)) {
            snprintf(bucket, blen, "%.*s", (int)bl, b);
            snprintf(prefix, plen, "%s", p);
            if (owner)
                *owner = workload_table[i];
            return s;
        }
    }
    char known[128] = "";
    size_t o = 0;
    for (int i = 0; workload_table[i]; i++)
        if (workload_table[i]->store)
            o += (size_t)snprintf(known + o, sizeof known - o, "%s%s://", o ? ", " : "",
                                  workload_table[i]->store->scheme);
    snprintf(err, errlen, "'%s': no store for %.*s:// (known: %s)", url, (int)sl, url,
             o ? known : "none");
    return NULL;
}
