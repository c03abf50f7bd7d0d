/* placement_run.c -- --placement in a run (see placement_run.h): the plan
 * checked for every point of a sweep before anything starts, made again
 * for the point being run, handed to the runtime as cpuset lists, and what
 * each worker saw of it compared with what it was given. */
#include "placement_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIST 8192

static int plan_for(const struct config *cfg, unsigned n, struct topology **t, struct placement *p,
                    char *err, size_t errlen) {
    char e[1024];
    *t = topology_read(cfg->sysroot, e, sizeof e);
    if (!*t) {
        if (cfg->placement == PLACE_NONE && !cfg->server_cpus[0])
            return 0; /* nothing asked of it */
        snprintf(err, errlen, "--placement %s: %s", placement_name(cfg->placement), e);
        return -1;
    }
    return placement_plan(*t, cfg->placement, n, cfg->cpus_per_container, cfg->server_cpus, p, err,
                          errlen);
}

int placement_run_check(const struct config *cfg, char *err, size_t errlen) {
    if (cfg->placement != PLACE_NONE && cfg->no_cgroups) {
        snprintf(err, errlen,
                 "--placement %s gives each container a cpuset, which needs cgroups: drop "
                 "--no-cgroups or use --placement none",
                 placement_name(cfg->placement));
        return -1;
    }
    for (unsigned i = 0; i < cfg->ncontainers; i++) {
        struct topology *t = NULL;
        struct placement p;
        memset(&p, 0, sizeof p);
        int rc = plan_for(cfg, cfg->containers[i], &t, &p, err, errlen);
        placement_free(&p);
        topology_free(t);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int placement_run_setup(struct placement_run *pr, const struct config *cfg, char *err,
                        size_t errlen) {
    memset(pr, 0, sizeof *pr);
    if (plan_for(cfg, cfg->n, &pr->topo, &pr->plan, err, errlen) != 0)
        return -1;
    pr->active = cfg->placement != PLACE_NONE;
    return 0;
}

void placement_run_free(struct placement_run *pr) {
    placement_free(&pr->plan);
    topology_free(pr->topo);
    memset(pr, 0, sizeof *pr);
}

int placement_cgroup_lists(const struct placement *p, char ***cpus, char ***mems) {
    *cpus = *mems = NULL;
    if (!p || !p->slot)
        return 0;
    char **c = calloc(p->n, sizeof *c), **m = calloc(p->n, sizeof *m);
    if (!c || !m)
        goto fail;
    for (unsigned i = 0; i < p->n; i++) {
        char l[LIST], ml[LIST];
        placement_lists(p, i, l, sizeof l, ml, sizeof ml);
        /* Only numa binds memory; the others leave the nodes as they are. */
        if (!(c[i] = strdup(l)) || !(m[i] = strdup(p->kind == PLACE_NUMA ? ml : "")))
            goto fail;
    }
    *cpus = c, *mems = m;
    return 0;
fail:
    placement_lists_free(c, m, p->n);
    return -1;
}

void placement_lists_free(char **cpus, char **mems, unsigned n) {
    for (unsigned i = 0; i < n; i++) {
        if (cpus)
            free(cpus[i]);
        if (mems)
            free(mems[i]);
    }
    free(cpus);
    free(mems);
}

void placement_container_json(const struct placement *p, unsigned i, const char *cpus_seen,
                              const char *mems_seen, json_t *c) {
    char l[LIST], m[LIST];
    placement_lists(p, i, l, sizeof l, m, sizeof m);
    json_object_set_new(c, "cpus", l[0] ? json_string(l) : json_null());
    json_object_set_new(c, "mems", m[0] ? json_string(m) : json_null());
    if (p && p->slot && i < p->n)
        json_object_set_new(c, "cores", json_integer(p->slot[i].ncores));
    json_object_set_new(c, "cpus_allowed", cpus_seen[0] ? json_string(cpus_seen) : json_null());
    json_object_set_new(c, "mems_allowed", mems_seen[0] ? json_string(mems_seen) : json_null());
}

json_t *placement_containers_json(const struct run_ctx *r) {
    json_t *all = json_array();
    for (unsigned i = 0; all && i < r->cfg->n; i++) {
        const struct worker_slot *s = run_slot(r, i);
        json_t *c = json_object();
        placement_container_json(r->place, i, s->cpus_seen, s->mems_seen, c);
        json_array_append_new(all, c);
    }
    return all;
}

void placement_verify_run(const struct run_ctx *r, unsigned forked, json_t *reasons) {
    if (!r->place)
        return;
    for (unsigned i = 0; i < forked; i++) {
        struct worker_slot *s = run_slot(r, i);
        char err[LIST + 256];
        if (atomic_load(&s->phase) == PH_STARTING)
            continue; /* never got that far: its own reason says why */
        if (placement_verify(r->place, i, s->cpus_seen, s->mems_seen, err, sizeof err) != 0) {
            json_array_append_new(reasons, json_string(err));
            return; /* one says it: the rest are alike */
        }
    }
}
