/* placement.c -- whole cores per container, packed or spread over L3
 * domains or NUMA nodes (see placement.h). Pure: no file is read here. */
#include "placement.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define LIST 8192

const char *placement_name(enum placement_kind k) {
    return k == PLACE_CORES ? "cores" : k == PLACE_L3 ? "l3" : k == PLACE_NUMA ? "numa" : "none";
}

/* The domain a core belongs to under kind: 0 for cores, its L3 or node
 * index; -1 when it has none (no L3 information for it). */
static int domain_of(const struct topology *t, enum placement_kind kind, int core) {
    return kind == PLACE_L3 ? t->cores[core].l3 : kind == PLACE_NUMA ? t->cores[core].node : 0;
}

static const char *domain_word(enum placement_kind kind) {
    return kind == PLACE_L3 ? "L3 domain" : kind == PLACE_NUMA ? "NUMA node" : "machine";
}

/* A domain as a person names it: "NUMA node 3 (CPUs 24-31,56-63)". */
static void domain_text(const struct topology *t, enum placement_kind kind, int d, char *out,
                        size_t len) {
    char l[LIST];
    if (kind == PLACE_NUMA)
        snprintf(out, len, "NUMA node %d (CPUs %s)", t->nodes[d].id,
                 cpuset_format(&t->nodes[d].cpus, l, sizeof l));
    else if (kind == PLACE_L3)
        snprintf(out, len, "L3 domain %d (CPUs %s)", d,
                 cpuset_format(&t->l3s[d].cpus, l, sizeof l));
    else
        snprintf(out, len, "the machine");
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int servers_of(const struct topology *t, const char *server_cpus, struct placement *p,
                      char *err, size_t errlen) {
    char l[LIST], on[LIST];
    if (!server_cpus || !*server_cpus)
        return 0;
    if (cpuset_parse(server_cpus, &p->servers) != 0 || cpuset_empty(&p->servers))
        return fail(err, errlen, "--server-cpus '%s': expected a CPU list such as 0-3 or 0,2,4",
                    server_cpus);
    struct cpuset off = p->servers;
    cpuset_andnot(&off, &t->online);
    if (!cpuset_empty(&off))
        return fail(err, errlen, "--server-cpus %s: CPU %s not online on this machine (online: %s)",
                    server_cpus, cpuset_format(&off, l, sizeof l),
                    cpuset_format(&t->online, on, sizeof on));
    for (int k = 0; k < t->ncores; k++)
        if (cpuset_intersects(&t->cores[k].threads, &p->servers)) {
            cpuset_or(&p->server_cores, &t->cores[k].threads);
            p->nserver_cores++;
        }
    return 0;
}

static int roomiest_l3(const struct topology *t, const unsigned char *taken, int node,
                       unsigned need) {
    int best = -1, best_free = 0;
    for (int l = 0; l < t->nl3; l++) {
        int f = 0;
        for (int k = 0; k < t->ncores; k++)
            f += !taken[k] && t->cores[k].node == node && t->cores[k].l3 == l;
        if (f >= (int)need && f > best_free)
            best = l, best_free = f;
    }
    return best;
}

int placement_plan(const struct topology *t, enum placement_kind kind, unsigned n, double cpus_per,
                   const char *server_cpus, struct placement *out, char *err, size_t errlen) {
    const char *name = placement_name(kind);
    char dt[LIST + 64];
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->n = n;
    if (servers_of(t, server_cpus, out, err, errlen) != 0)
        return -1;
    unsigned char *taken = calloc((size_t)t->ncores + 1, 1);
    int ndom = kind == PLACE_L3 ? t->nl3 : kind == PLACE_NUMA ? t->nnodes : 1;
    int *free_in = calloc((size_t)ndom + 1, sizeof *free_in);
    int *count_in = calloc((size_t)ndom + 1, sizeof *count_in);
    int *dom = calloc((size_t)n + 1, sizeof *dom);
    int rc = -1;
    if (!taken || !free_in || !count_in || !dom) {
        fail(err, errlen, "out of memory");
        goto out;
    }
    int nfree = 0;
    for (int k = 0; k < t->ncores; k++) {
        taken[k] = cpuset_intersects(&t->cores[k].threads, &out->server_cores);
        nfree += !taken[k];
    }
    if (kind == PLACE_NONE) {
        rc = 0;
        goto out;
    }
    if (cpus_per < 0 || cpus_per != floor(cpus_per)) {
        fail(err, errlen,
             "--cpus-per-container %g: with --placement %s it counts whole cores, so it must be a "
             "whole number",
             cpus_per, name);
        goto out;
    }
    if (kind == PLACE_L3 && t->nl3 == 0) {
        fail(err, errlen,
             "--placement l3: sysfs lists no L3 cache on this machine (cpuN/cache/index*/level 3); "
             "use --placement cores or numa");
        goto out;
    }
    for (int k = 0; k < t->ncores; k++) {
        int d = domain_of(t, kind, k);
        if (!taken[k] && d >= 0)
            free_in[d]++;
    }
    int ne = 0;
    int *eligible = calloc((size_t)ndom + 1, sizeof *eligible);
    if (!eligible) {
        fail(err, errlen, "out of memory");
        goto out;
    }
    for (int d = 0; d < ndom; d++)
        if (free_in[d] > 0)
            eligible[ne++] = d;
    if (ne == 0) {
        free(eligible);
        fail(err, errlen, "--placement %s: no core is free (%d online, %d the servers')", name,
             t->ncores, out->nserver_cores);
        goto out;
    }
    unsigned C = (unsigned)cpus_per;
    if (C == 0) { /* an equal share: dealt round-robin, the most every domain can give */
        for (unsigned i = 0; i < n; i++)
            count_in[dom[i] = eligible[i % (unsigned)ne]]++;
        int worst = -1;
        for (int d = 0; d < ndom; d++)
            if (count_in[d] &&
                (worst < 0 || free_in[d] / count_in[d] < free_in[worst] / count_in[worst]))
                worst = d;
        C = (unsigned)(free_in[worst] / count_in[worst]);
        if (C == 0) {
            domain_text(t, kind, worst, dt, sizeof dt);
            if (kind == PLACE_CORES)
                fail(err, errlen,
                     "--placement cores: %u containers need a whole core each, but %d cores are "
                     "free (%d cores, %d of them the servers')",
                     n, nfree, t->ncores, out->nserver_cores);
            else
                fail(err, errlen,
                     "--placement %s: %u containers dealt over %d %ss put %d on %s, which has "
                     "only %d free core%s",
                     name, n, ne, domain_word(kind), count_in[worst], dt, free_in[worst],
                     free_in[worst] == 1 ? "" : "s");
            free(eligible);
            goto out;
        }
    } else { /* C cores each: round-robin, past a domain that has no C cores left */
        int *left = calloc((size_t)ndom + 1, sizeof *left);
        if (!left) {
            free(eligible);
            fail(err, errlen, "out of memory");
            goto out;
        }
        memcpy(left, free_in, (size_t)ndom * sizeof *left);
        for (unsigned i = 0; i < n; i++) {
            int got = -1;
            for (int k = 0; k < ne && got < 0; k++) {
                int d = eligible[(i + (unsigned)k) % (unsigned)ne];
                if (left[d] >= (int)C)
                    got = d;
            }
            if (got < 0) {
                if (kind == PLACE_CORES)
                    fail(err, errlen,
                         "--placement cores: %u containers x %u cores need %llu cores, but %d "
                         "are free (%d cores, %d of them the servers')",
                         n, C, (unsigned long long)n * C, nfree, t->ncores, out->nserver_cores);
                else
                    fail(err, errlen,
                         "--placement %s: container %u of %u finds no %s with %u free cores "
                         "left (%u containers x %u cores over %d %ss)",
                         name, i, n, domain_word(kind), C, n, C, ne, domain_word(kind));
                free(left);
                free(eligible);
                goto out;
            }
            left[got] -= (int)C;
            dom[i] = got;
            count_in[got]++;
        }
        free(left);
    }
    free(eligible);
    if (kind == PLACE_NUMA)
        for (int d = 0; d < ndom; d++)
            if (count_in[d] && t->nodes[d].has_memory == 0) {
                domain_text(t, kind, d, dt, sizeof dt);
                fail(err, errlen,
                     "--placement numa: %s has no memory of its own (a memoryless node), so its "
                     "containers cannot get local memory; use --placement l3 or cores",
                     dt);
                goto out;
            }
    out->cores_each = C;
    out->slot = calloc(n, sizeof *out->slot);
    if (!out->slot) {
        fail(err, errlen, "out of memory for %u containers", n);
        goto out;
    }
    for (unsigned i = 0; i < n; i++) {
        struct placement_slot *s = &out->slot[i];
        s->domain = kind == PLACE_CORES ? -1 : dom[i];
        s->node = -1;
        /* numa: inside the node, the L3 domain with the most free cores
         * that can hold the container, so a node's containers spread over
         * its caches; -1 (any of the node's cores) when none can. */
        int l3 = kind == PLACE_NUMA ? roomiest_l3(t, taken, dom[i], C) : -1;
        for (int k = 0; k < t->ncores && s->ncores < (int)C; k++) {
            if (taken[k] || domain_of(t, kind, k) != dom[i] || (l3 >= 0 && t->cores[k].l3 != l3))
                continue;
            taken[k] = 1;
            if (!s->ncores) {
                s->pkg = t->cores[k].pkg;
                s->die = t->cores[k].die;
                s->node = t->cores[k].node;
            }
            cpuset_or(&s->cpus, &t->cores[k].threads);
            s->ncores++;
        }
        if (kind == PLACE_NUMA) {
            cpuset_add(&s->mems, t->nodes[dom[i]].id);
            if (t->nodes[dom[i]].has_memory < 0)
                cpuset_add(&out->mem_unknown, t->nodes[dom[i]].id);
        } else
            s->mems = t->mem_nodes;
    }
    rc = 0;
out:
    if (rc == 0) /* what nobody got: the servers' share unless --server-cpus took some */
        for (int k = 0; k < t->ncores; k++)
            if (taken && !taken[k]) {
                cpuset_or(&out->unused, &t->cores[k].threads);
                out->nunused_cores++;
            }
    if (rc != 0)
        placement_free(out);
    free(taken);
    free(free_in);
    free(count_in);
    free(dom);
    return rc;
}

void placement_free(struct placement *p) {
    if (!p)
        return;
    free(p->slot);
    p->slot = NULL;
}

json_t *placement_json(const struct placement *p) {
    char l[LIST];
    if (!p)
        return json_pack("{s:s, s:n, s:n}", "policy", "none", "cores_per_container", "server_cpus");
    json_t *o = json_pack("{s:s}", "policy", placement_name(p->kind));
    json_object_set_new(o, "cores_per_container",
                        p->kind != PLACE_NONE ? json_integer(p->cores_each) : json_null());
    json_object_set_new(o, "server_cpus",
                        cpuset_empty(&p->servers)
                            ? json_null()
                            : json_string(cpuset_format(&p->servers, l, sizeof l)));
    json_object_set_new(o, "server_cores", json_integer(p->nserver_cores));
    json_object_set_new(o, "server_core_cpus",
                        json_string(cpuset_format(&p->server_cores, l, sizeof l)));
    if (p->kind != PLACE_NONE) {
        json_object_set_new(o, "unused_cores", json_integer(p->nunused_cores));
        json_object_set_new(o, "unused_cpus", json_string(cpuset_format(&p->unused, l, sizeof l)));
    }
    if (p->kind == PLACE_NUMA)
        json_object_set_new(o, "memory_unknown_nodes",
                            json_string(cpuset_format(&p->mem_unknown, l, sizeof l)));
    return o;
}

json_t *placement_config_json(const struct config *cfg) {
    return json_pack(
        "{s:s, s:o, s:o}", "policy", placement_name(cfg->placement), "cores_per_container",
        cfg->placement != PLACE_NONE && cfg->cpus_per_container > 0
            ? json_integer((json_int_t)cfg->cpus_per_container)
            : json_null(),
        "server_cpus", cfg->server_cpus[0] ? json_string(cfg->server_cpus) : json_null());
}

void placement_lists(const struct placement *p, unsigned i, char *cpus, size_t clen, char *mems,
                     size_t mlen) {
    cpus[0] = mems[0] = 0;
    if (!p || !p->slot || i >= p->n)
        return;
    cpuset_format(&p->slot[i].cpus, cpus, clen);
    cpuset_format(&p->slot[i].mems, mems, mlen);
}

int placement_verify(const struct placement *p, unsigned i, const char *cpus_seen,
                     const char *mems_seen, char *err, size_t errlen) {
    char want[LIST], wantm[LIST];
    struct cpuset c, m;
    if (!p || !p->slot || i >= p->n)
        return 0;
    placement_lists(p, i, want, sizeof want, wantm, sizeof wantm);
    if (!cpus_seen || !*cpus_seen)
        return fail(err, errlen, "container %u did not report where it ran (wanted CPUs %s)", i,
                    want);
    if (cpuset_parse(cpus_seen, &c) != 0 || !cpuset_equal(&c, &p->slot[i].cpus))
        return fail(err, errlen,
                    "container %u ran on CPUs %s, not its placement's %s: the cpuset was not "
                    "applied",
                    i, cpus_seen, want);
    if (mems_seen && *mems_seen &&
        (cpuset_parse(mems_seen, &m) != 0 || !cpuset_equal(&m, &p->slot[i].mems)))
        return fail(err, errlen,
                    "container %u allocated from NUMA nodes %s, not its placement's %s: the "
                    "cpuset was not applied",
                    i, mems_seen, wantm);
    return 0;
}

static const char *s_(int n) {
    return n == 1 ? "" : "s";
}

void placement_print(const struct placement *p, const struct topology *t, FILE *f) {
    char l[LIST], m[LIST];
    fprintf(f,
            "placement %s: %u container%s; machine: %d package%s, %d die%s, %d L3 domain%s, %d "
            "NUMA node%s, %d core%s, %d CPU%s (%d per core)\n",
            placement_name(p->kind), p->n, s_((int)p->n), t->npkgs, s_(t->npkgs), t->ndies,
            s_(t->ndies), t->nl3, s_(t->nl3), t->nnodes, s_(t->nnodes), t->ncores, s_(t->ncores),
            t->ncpus, s_(t->ncpus), t->threads_per_core);
    if (p->kind == PLACE_NONE)
        fprintf(f, "no cpuset: every container may run on any CPU and use any node's memory\n");
    else {
        fprintf(f, "%-9s  %-5s  %-3s  %-3s  %-4s  %-4s  %-20s  %s\n", "container", "cores", "pkg",
                "die", "l3", "node", "cpus", "mems");
        for (unsigned i = 0; i < p->n; i++) {
            const struct placement_slot *s = &p->slot[i];
            int first = cpuset_first(&s->cpus);
            int core = topology_core_of(t, first);
            char l3[16] = "-";
            if (core >= 0 && t->cores[core].l3 >= 0)
                snprintf(l3, sizeof l3, "%d", t->cores[core].l3);
            fprintf(f, "%-9u  %-5d  %-3d  %-3d  %-4s  %-4d  %-20s  %s\n", i, s->ncores, s->pkg,
                    s->die, l3, s->node >= 0 ? t->nodes[s->node].id : -1,
                    cpuset_format(&s->cpus, l, sizeof l), cpuset_format(&s->mems, m, sizeof m));
        }
    }
    struct cpuset left = p->unused;
    cpuset_or(&left, &p->server_cores);
    int nleft = p->nunused_cores + p->nserver_cores;
    if (p->kind == PLACE_NONE && !p->nserver_cores)
        fprintf(f,
                "cores left for the servers: none of their own (all %d shared with the "
                "containers)",
                t->ncores);
    else
        fprintf(f, "cores left for the servers: %d%s%s", nleft, nleft ? ", CPUs " : "",
                nleft ? cpuset_format(&left, l, sizeof l) : "");
    if (!cpuset_empty(&p->servers))
        fprintf(f, " (--server-cpus %s: %d core%s)", cpuset_format(&p->servers, m, sizeof m),
                p->nserver_cores, p->nserver_cores == 1 ? "" : "s");
    fputc('\n', f);
    if (!cpuset_empty(&p->mem_unknown)) {
        int first = cpuset_first(&p->mem_unknown), d = 0;
        while (d < t->nnodes && t->nodes[d].id != first)
            d++;
        int many = cpuset_count(&p->mem_unknown) > 1;
        fprintf(f,
                "memory unknown on NUMA node%s %s (%s%s): placed on as nodes with memory, each "
                "container's mems its own node\n",
                many ? "s" : "", cpuset_format(&p->mem_unknown, l, sizeof l),
                d < t->nnodes ? t->nodes[d].mem_reason : "sysfs does not say",
                many ? "; the same for the others" : "");
    }
}
