/* server_pin.c -- --server-cpus LIST: the servers the run's workloads load
 * (the local stack's MinIO and MariaDB, or what --server-pid and
 * --server-cgroup name) pinned to LIST for the run, and given back their
 * own CPU affinity after it, so servers and workers can be kept apart.
 *
 * Every thread of every process of the server gets the mask
 * (sched_setaffinity); threads the server starts later inherit it from the
 * thread that starts them. The processes are the server's cgroup's
 * cgroup.procs (scripts/stack puts each server in one), else the process
 * tree of its pid. A server that cannot be found is one line before
 * anything starts: the run would otherwise not be what it says. */
#include "server_pin.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/cpulist.h"

struct pinned {
    int pid;
    cpu_set_t *orig; /* its main thread's affinity before the run */
};

struct server_pin {
    struct pinned *p;
    unsigned np;
    size_t setsize;
    json_t *servers; /* name -> {source, processes, threads} */
    char cpus[1024];
};

static const struct server_override *override_of(const struct config *cfg, const char *name) {
    for (unsigned i = 0; i < cfg->nserver_over; i++)
        if (!strcmp(cfg->server_over[i].name, name))
            return &cfg->server_over[i];
    return NULL;
}

/* pid and its descendants (children of every thread, recursively). */
static void tree(int pid, int **pids, unsigned *n) {
    int *np = realloc(*pids, (*n + 1) * sizeof *np);
    if (!np)
        return;
    *pids = np;
    (*pids)[(*n)++] = pid;
    char dir[64], path[320];
    snprintf(dir, sizeof dir, "/proc/%d/task", pid);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/children", dir, e->d_name);
        FILE *f = fopen(path, "re");
        int c;
        while (f && fscanf(f, "%d", &c) == 1)
            tree(c, pids, n);
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
}

static void cgroup_procs(const char *dir, int **pids, unsigned *n) {
    char path[4200];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "re");
    int p;
    while (f && fscanf(f, "%d", &p) == 1) {
        int *np = realloc(*pids, (*n + 1) * sizeof *np);
        if (!np)
            break;
        *pids = np;
        (*pids)[(*n)++] = p;
    }
    if (f)
        fclose(f);
}

/* The processes of server `name`: 0 with *pids (malloc'd), or -1 with why. */
static int find_server(const struct config *cfg, const struct workload *w, int **pids, unsigned *n,
                       char *source, size_t slen, char *why, size_t wlen) {
    const struct server_override *o = override_of(cfg, w->server_name);
    struct wl_server ws;
    memset(&ws, 0, sizeof ws);
    struct stat st;
    *pids = NULL;
    *n = 0;
    if (o && o->pid) {
        tree(o->pid, pids, n);
        snprintf(source, slen, "--server-pid %s=%d", w->server_name, o->pid);
    } else if (o && o->cgroup[0]) {
        if (stat(o->cgroup, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(why, wlen, "--server-cgroup %s=%s is not a cgroup directory", w->server_name,
                     o->cgroup);
            return -1;
        }
        cgroup_procs(o->cgroup, pids, n);
        snprintf(source, slen, "--server-cgroup %s=%s", w->server_name, o->cgroup);
    } else if (!w->server_locate || w->server_locate(cfg, &ws) != 0) {
        snprintf(why, wlen, "%s", ws.unavailable[0] ? ws.unavailable : "not located");
        return -1;
    } else if (ws.cgroup[0]) {
        cgroup_procs(ws.cgroup, pids, n);
        snprintf(source, slen, "%s (cgroup %s)", ws.source, ws.cgroup);
    } else {
        tree(ws.pid, pids, n);
        snprintf(source, slen, "%s (pid %d)", ws.source, ws.pid);
    }
    if (*n == 0) {
        snprintf(why, wlen, "no process found (%s)", source);
        free(*pids);
        *pids = NULL;
        return -1;
    }
    return 0;
}

/* Set every thread of pid to mask; how many were set. */
static int pin_threads(int pid, size_t setsize, const cpu_set_t *mask) {
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", pid);
    DIR *d = opendir(dir);
    struct dirent *e;
    int k = 0;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' && sched_setaffinity(atoi(e->d_name), setsize, mask) == 0)
            k++;
    if (d)
        closedir(d);
    return k;
}

int server_pin_check(const struct config *cfg, const struct run_layout *lay, char *err,
                     size_t errlen) {
    if (!cfg->server_cpus[0])
        return 0;
    for (unsigned w = 0; w < lay->nwl; w++) {
        const struct workload *wl = lay->wl[w];
        int *pids;
        unsigned n;
        char source[1200], why[1024];
        if (!wl->server_name)
            continue;
        if (find_server(cfg, wl, &pids, &n, source, sizeof source, why, sizeof why) != 0) {
            snprintf(err, errlen,
                     "--server-cpus: cannot pin %s, it is not found on this host (%s); pass "
                     "--server-pid %s=PID or --server-cgroup %s=PATH, or drop --server-cpus",
                     wl->server_name, why, wl->server_name, wl->server_name);
            return -1;
        }
        free(pids);
    }
    return 0;
}

struct server_pin *server_pin_apply(const struct config *cfg, const struct run_layout *lay,
                                    char *err, size_t errlen) {
    struct cpuset want;
    if (!cfg->server_cpus[0])
        return NULL;
    struct server_pin *sp = calloc(1, sizeof *sp);
    cpu_set_t *mask = CPU_ALLOC(CPUSET_MAX);
    if (!sp || !mask || cpuset_parse(cfg->server_cpus, &want) != 0) {
        snprintf(err, errlen, sp && mask ? "--server-cpus '%s': not a CPU list" : "out of memory",
                 cfg->server_cpus);
        CPU_FREE(mask);
        free(sp);
        return NULL;
    }
    sp->setsize = CPU_ALLOC_SIZE(CPUSET_MAX);
    CPU_ZERO_S(sp->setsize, mask);
    for (int c = cpuset_first(&want); c >= 0; c = cpuset_next(&want, c))
        CPU_SET_S((size_t)c, sp->setsize, mask);
    cpuset_format(&want, sp->cpus, sizeof sp->cpus);
    sp->servers = json_object();
    for (unsigned w = 0; w < lay->nwl; w++) {
        const struct workload *wl = lay->wl[w];
        if (!wl->server_name || json_object_get(sp->servers, wl->server_name))
            continue; /* two workloads, one server */
        int *pids;
        unsigned n;
        char source[1200], why[1024];
        if (find_server(cfg, wl, &pids, &n, source, sizeof source, why, sizeof why) != 0) {
            snprintf(err, errlen, "--server-cpus: cannot pin %s: %s", wl->server_name, why);
            CPU_FREE(mask);
            server_pin_restore(sp);
            return NULL;
        }
        int threads = 0;
        for (unsigned k = 0; k < n; k++) {
            struct pinned *np = realloc(sp->p, (sp->np + 1) * sizeof *np);
            if (!np)
                break;
            sp->p = np;
            struct pinned *p = &sp->p[sp->np];
            p->pid = pids[k];
            p->orig = CPU_ALLOC(CPUSET_MAX);
            if (!p->orig || sched_getaffinity(p->pid, sp->setsize, p->orig) != 0) {
                CPU_FREE(p->orig);
                continue; /* gone meanwhile */
            }
            sp->np++;
            threads += pin_threads(p->pid, sp->setsize, mask);
        }
        free(pids);
        json_object_set_new(sp->servers, wl->server_name,
                            json_pack("{s:s, s:i, s:i}", "source", source, "processes", (int)n,
                                      "threads", threads));
    }
    CPU_FREE(mask);
    return sp;
}

void server_pin_results(const struct server_pin *sp, json_t *result) {
    json_t *pl = json_object_get(result, "placement");
    if (!sp || !pl)
        return;
    json_object_set_new(pl, "servers_pinned",
                        json_pack("{s:s, s:O}", "cpus", sp->cpus, "servers", sp->servers));
}

void server_pin_restore(struct server_pin *sp) {
    if (!sp)
        return;
    for (unsigned i = 0; i < sp->np; i++) {
        pin_threads(sp->p[i].pid, sp->setsize, sp->p[i].orig);
        CPU_FREE(sp->p[i].orig);
    }
    free(sp->p);
    json_decref(sp->servers);
    free(sp);
}
