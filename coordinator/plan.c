/* plan.c -- `harness plan --containers N --placement P [--sysroot DIR]
 * [--cpus-per-container C] [--server-cpus LIST] [--json]`: the placement a
 * run would make, without running anything. It reads the topology the run
 * would read (this machine, or a fixture tree under --sysroot) and prints
 * one line per container, then the cores left for the servers; --json
 * prints system.topology, placement and each container's cpus and
 * mems as result.json would hold them. A plan that cannot be met is the
 * same one line a run prints, and exit 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../placement/placement.h"
#include "../workloads/workload.h"
#include "cmdline.h"
#include "commands.h"

/* A run's options, without what a run needs besides them: plan runs no
 * workload, so their settings (credentials, the corpus, the patterns) are
 * parsed but never checked. 0, 1 after --help, or -1 with err. */
static int plan_load(struct config *cfg, int argc, char **argv, char *err, size_t errlen) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            options_usage(stdout);
            return 1;
        }
    if (workloads_config_init(cfg, err, errlen) != 0)
        return -1;
    struct opt_set sets[CONFIG_MAX_WL + 1];
    size_t n = workloads_option_sets(cfg, sets, CONFIG_MAX_WL + 1);
    int k = opt_parse(sets, n, argc, argv, 1, NULL, err, errlen);
    if (k < 0)
        return -1;
    if (k < argc) {
        snprintf(err, errlen, "unexpected argument '%s' (see harness --help)", argv[k]);
        return -1;
    }
    return 0;
}

static json_t *plan_json(const struct placement *p, const struct topology *t) {
    json_t *cs = json_array();
    char l[8192], m[8192];
    for (unsigned i = 0; p->slot && i < p->n; i++) {
        const struct placement_slot *s = &p->slot[i];
        int core = topology_core_of(t, cpuset_first(&s->cpus));
        placement_lists(p, i, l, sizeof l, m, sizeof m);
        json_array_append_new(
            cs, json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:o, s:o}", "id", (int)i, "cpus", l,
                          "mems", m, "cores", s->ncores, "package", s->pkg, "die", s->die, "l3",
                          core >= 0 && t->cores[core].l3 >= 0 ? json_integer(t->cores[core].l3)
                                                              : json_null(),
                          "node", s->node >= 0 ? json_integer(t->nodes[s->node].id) : json_null()));
    }
    return json_pack("{s:o, s:o, s:o}", "topology", topology_json(t), "placement",
                     placement_json(p), "containers", cs);
}

int plan_main(int argc, char **argv) {
    int json = 0, k = 0;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    struct config *cfg = calloc(1, sizeof *cfg);
    char err[1024];
    int rc = 2;
    if (!args || !cfg) {
        fprintf(stderr, "harness plan: out of memory\n");
        goto out;
    }
    for (int i = 0; i < argc; i++) /* --json is plan's own; the rest are a run's options */
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else
            args[k++] = argv[i];
    int lr = plan_load(cfg, k, args, err, sizeof err);
    if (lr == 1) {
        rc = 0;
        goto out;
    }
    if (lr != 0) {
        fprintf(stderr, "harness plan: %s\n", err);
        goto out;
    }
    struct topology *t = topology_read(cfg->sysroot, err, sizeof err);
    if (!t) {
        fprintf(stderr, "harness plan: %s\n", err);
        goto free_cfg;
    }
    json_t *all = json ? json_array() : NULL;
    rc = 0;
    for (unsigned i = 0; i < cfg->ncontainers; i++) {
        struct placement p;
        if (placement_plan(t, cfg->placement, cfg->containers[i], cfg->cpus_per_container,
                           cfg->server_cpus, &p, err, sizeof err) != 0) {
            fprintf(stderr, "harness plan: %s\n", err);
            rc = 2;
            break;
        }
        if (json)
            json_array_append_new(all, plan_json(&p, t));
        else {
            if (i)
                fputc('\n', stdout);
            placement_print(&p, t, stdout);
        }
        placement_free(&p);
    }
    if (json && rc == 0) {
        json_t *one = json_array_size(all) == 1 ? json_incref(json_array_get(all, 0)) : NULL;
        json_dumpf(one ? one : all, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(one);
    }
    json_decref(all);
    topology_free(t);
free_cfg:
    options_free(cfg);
out:
    free(cfg);
    free(args);
    return rc;
}
