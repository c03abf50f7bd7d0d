/* server_check.c -- the servers' own counts against the workers' (see
 * server_check.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "server_check.h"

struct wl_check {
    const struct workload *wl;
    int n[2]; /* counts read before and after, -1 when the read failed */
    struct wl_server_count c[2][WL_MAX_SERVER_COUNTS];
    char err[512];
};

struct server_check {
    const struct config *cfg;
    unsigned nwl;
    struct wl_check w[CONFIG_MAX_WL];
};

struct server_check *server_check_new(const struct config *cfg, const struct workload *const *wl,
                                      unsigned nwl) {
    struct server_check *sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    sc->cfg = cfg;
    for (unsigned i = 0; i < nwl && sc->nwl < CONFIG_MAX_WL; i++)
        if (wl[i]->server_count) {
            sc->w[sc->nwl].wl = wl[i];
            sc->w[sc->nwl].n[0] = sc->w[sc->nwl].n[1] = -1;
            sc->nwl++;
        }
    return sc;
}

static void take(struct server_check *sc, int k) {
    for (unsigned i = 0; sc && i < sc->nwl; i++) {
        struct wl_check *w = &sc->w[i];
        char err[512] = "";
        w->n[k] = w->wl->server_count(sc->cfg, w->c[k], WL_MAX_SERVER_COUNTS, err, sizeof err);
        if (w->n[k] < 0 && !w->err[0])
            snprintf(w->err, sizeof w->err, "%s: %s", k ? "after the run" : "before the run", err);
    }
}

void server_check_before(struct server_check *sc) {
    take(sc, 0);
}

void server_check_after(struct server_check *sc) {
    take(sc, 1);
}

void server_check_results(const struct server_check *sc, const json_t *res, json_t *warnings,
                          json_t **counts, json_t **unavailable) {
    json_t *out = json_object(), *una = json_object();
    *counts = out;
    *unavailable = una;
    if (!sc || !sc->nwl)
        return;
    for (unsigned i = 0; i < sc->nwl; i++) {
        const struct wl_check *w = &sc->w[i];
        const char *name = w->wl->name;
        if (w->n[0] < 0 || w->n[1] < 0) {
            json_object_set_new(una, name, json_string(w->err[0] ? w->err : "not read"));
            continue;
        }
        char path[160];
        snprintf(path, sizeof path, "workloads.%s.ops", name);
        double done = jnum(res, path);
        json_t *o = json_object();
        int agrees = 1;
        for (int k = 0; k < w->n[1]; k++) {
            const struct wl_server_count *b = &w->c[1][k], *a = NULL;
            for (int j = 0; j < w->n[0]; j++)
                if (!strcmp(w->c[0][j].name, b->name))
                    a = &w->c[0][j];
            if (!a)
                continue;
            /* a server restarted during the run counts from 0 again */
            long long d = b->value >= a->value ? (long long)(b->value - a->value) : -1;
            json_object_set_new(o, b->name,
                                json_pack("{s:I, s:I, s:o}", "before", (json_int_t)a->value,
                                          "after", (json_int_t)b->value, "delta",
                                          d >= 0 ? json_integer(d) : json_null()));
            if (!b->compare)
                continue;
            if (d < 0 || (double)d < done) {
                agrees = 0;
                char msg[512];
                if (d < 0)
                    snprintf(msg, sizeof msg,
                             "%s: the server's %s went down from %llu to %llu during the run "
                             "(restarted?): cannot check the %.0f operations the workers completed",
                             name, b->name, (unsigned long long)a->value,
                             (unsigned long long)b->value, done);
                else
                    snprintf(msg, sizeof msg,
                             "%s: the server counted %lld %s but the workers completed %.0f "
                             "operations (requests that never reached it, or another server "
                             "answered)",
                             name, d, b->name, done);
                json_array_append_new(warnings, json_string(msg));
            }
        }
        json_object_set_new(o, "completed", json_integer((json_int_t)done));
        json_object_set_new(o, "agrees", json_boolean(agrees));
        json_object_set_new(out, name, o);
    }
}

void server_check_free(struct server_check *sc) {
    free(sc);
}
