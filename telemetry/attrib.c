/* attrib.c -- CPU attribution and counters per component (see attrib.h).
 *
 * Readers: a cgroup's CPU files (cgroup_stat.h) for the servers and the
 * workers -- a cgroup keeps the CPU of every thread and child that ever ran
 * in it -- a process tree from /proc for a server given by --server-pid,
 * getrusage for the coordinator (its own threads, not its children, which
 * are the workers), /proc/stat for the machine. The cgroups' exact totals
 * are used, not perf's task-clock, which on a VM may hold stolen time.
 *
 * "other" is the machine's busy time (which holds no steal: time the
 * hypervisor gave to another guest is nobody's here) less every component
 * that was read:
 * the kernel's own threads, other processes on the machine, and a server
 * that could not be read but runs here. It may come out slightly negative
 * when the machine's tick-granular /proc/stat lags the cgroups' exact
 * figures at a window edge; it is reported as measured.
 *
 * A sample allocates nothing once the series has room: fixed-size records,
 * the series growing by doubling like the telemetry's. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/json.h"
#include "../containers/docker.h"
#include "../workloads/workload.h"
#include "attrib.h"

#define AT_MAX 8                 /* components: the servers, workers, coordinator */
#define MIN_SAMPLE_INTERVAL 0.05 /* the least --sample-interval takes (common/config.c) */

/* The largest of 1, 2, 5 x 10^k below x: the next interval to suggest. */
static double step_below(double x) {
    double mag = pow(10, floor(log10(x)));
    for (;; mag /= 10)
        for (int i = 0; i < 3; i++) {
            double v = (const double[]){5, 2, 1}[i] * mag;
            if (v < x * (1 - 1e-9))
                return v;
        }
}

enum at_kind { K_CGROUP, K_PID, K_WORKERS, K_COORD };

struct comp {
    char name[32];
    enum at_kind kind;
    char dir[PATH_MAX]; /* K_CGROUP: the directory with its CPU files */
    int pid;            /* K_PID */
    char why[640];      /* unreadable from the start: the reason; "" when readable */
    char read_err[512]; /* the first failed read during the run */
    char source[600];
    struct perfctr *pc;
    struct pc_snap *snap;
    char pc_why[640]; /* at least as large as why: copied from it */
};

struct sample {
    double t;
    double cpu[AT_MAX][3]; /* total, user, system; NAN when not read */
    double busy, total, steal;
    int machine_ok;
    struct pc_sum pcs[AT_MAX + 1]; /* [ncomp]: the whole machine */
};

struct attrib {
    const struct config *cfg;
    const struct cg_acct *acct;
    const struct pc_sys *pc_sys;
    int no_counters;
    unsigned ncomp;
    struct comp c[AT_MAX];
    struct perfctr *machine_pc;
    struct pc_snap *machine_snap;
    const struct perfctr *probed; /* the first opened: the others reuse its probe */
    char machine_pc_why[640];
    char machine_why[512];
    int64_t t0;
    struct sample *s;
    size_t n, cap;
};

/* ---- setup ---------------------------------------------------------------------------------- */

/* A cgroup given on the command line: a directory with CPU files, or a path
 * inside the hierarchy as /proc/PID/cgroup prints it. */
static int resolve_cgroup(const char *given, char *dir, size_t len, char *why, size_t whylen) {
    struct cpu_time t;
    char e1[512];
    if (cgstat_read_dir(given, &t, e1, sizeof e1) > 0) {
        snprintf(dir, len, "%s", given);
        return 0;
    }
    if (given[0] == '/' && cgstat_resolve("/", given, dir, len, why, whylen) > 0 &&
        cgstat_read_dir(dir, &t, why, whylen) > 0)
        return 0;
    snprintf(why, whylen, "%s", e1);
    return -1;
}

int attrib_check_overrides(const struct config *cfg, char *err, size_t errlen) {
    for (unsigned i = 0; i < cfg->nserver_over; i++) {
        const struct server_override *o = &cfg->server_over[i];
        char dir[PATH_MAX], why[512], proc[64];
        struct stat st;
        if (o->pid) {
            snprintf(proc, sizeof proc, "/proc/%d", o->pid);
            if (stat(proc, &st) != 0) {
                snprintf(err, errlen, "--server-pid %s=%d: no such process", o->name, o->pid);
                return -1;
            }
        }
        if (o->cgroup[0] && resolve_cgroup(o->cgroup, dir, sizeof dir, why, sizeof why) != 0) {
            snprintf(err, errlen, "--server-cgroup %s=%s: %s", o->name, o->cgroup, why);
            return -1;
        }
    }
    return 0;
}

static const struct server_override *override_of(const struct config *cfg, const char *name) {
    for (unsigned i = 0; i < cfg->nserver_over; i++)
        if (!strcmp(cfg->server_over[i].name, name))
            return &cfg->server_over[i];
    return NULL;
}

static void open_counters(struct attrib *a, struct comp *c, enum pc_target target, const char *dir,
                          pid_t pid) {
    char err[512];
    if (a->no_counters) {
        snprintf(c->pc_why, sizeof c->pc_why, "counters not asked for");
        return;
    }
    c->pc = perfctr_open_like(target, dir, pid, a->pc_sys, a->probed, err, sizeof err);
    if (c->pc && !a->probed)
        a->probed = c->pc;
    if (c->pc && !(c->snap = perfctr_snap_new(c->pc))) {
        perfctr_close(c->pc);
        c->pc = NULL;
        snprintf(err, sizeof err, "out of memory");
    }
    if (!c->pc)
        snprintf(c->pc_why, sizeof c->pc_why, "%s", err);
}

/* Under --runtime docker, a server the workload could not find on this host
 * may be a container of the same engine (the compose demo's): found by
 * name, its main process then stands for it. 0 with *pid, or -1. */
static int server_container(const struct config *cfg, const char *name, pid_t *pid, char *source,
                            size_t len) {
    char err[512], sock[600], path[256];
    snprintf(sock, sizeof sock, "%s",
             strncmp(cfg->docker_host, "unix://", 7) ? cfg->docker_host : cfg->docker_host + 7);
    struct docker *d = docker_open(sock, err, sizeof err);
    if (!d)
        return -1;
    /* filters={"name":["<name>"],"status":["running"]} */
    snprintf(path, sizeof path,
             "/containers/json?filters=%%7B%%22name%%22%%3A%%5B%%22%s%%22%%5D%%2C%%22status%%22%%3A"
             "%%5B%%22running%%22%%5D%%7D",
             name);
    json_t *list = NULL;
    int rc = -1;
    if (docker_request(d, "GET", path, NULL, &list, err, sizeof err) == 200 &&
        json_array_size(list) > 0) {
        const char *id = json_string_value(json_object_get(json_array_get(list, 0), "Id"));
        json_t *st = id ? docker_inspect(d, id, err, sizeof err) : NULL;
        json_int_t p = json_integer_value(json_object_get(json_object_get(st, "State"), "Pid"));
        const char *cname = json_string_value(json_object_get(st, "Name"));
        if (p > 0) {
            *pid = (pid_t)p;
            snprintf(source, len, "docker container %s (pid %d)", cname ? cname : id, (int)p);
            rc = 0;
        }
        json_decref(st);
    }
    json_decref(list);
    docker_close(d);
    return rc;
}

/* One server: a command-line override, else the workload's own finding. */
static void add_server(struct attrib *a, const struct workload *w) {
    for (unsigned i = 0; i < a->ncomp; i++)
        if (!strcmp(a->c[i].name, w->server_name))
            return; /* two workloads, one server */
    if (a->ncomp == AT_MAX - 2)
        return;
    struct comp *c = &a->c[a->ncomp++];
    const char *nm = w->server_name;
    snprintf(c->name, sizeof c->name, "%s", nm);
    const struct server_override *o = override_of(a->cfg, w->server_name);
    struct wl_server ws;
    memset(&ws, 0, sizeof ws);
    char why[512];
    if (o && o->cgroup[0]) {
        c->kind = K_CGROUP;
        if (resolve_cgroup(o->cgroup, c->dir, sizeof c->dir, why, sizeof why) != 0)
            snprintf(c->why, sizeof c->why, "--server-cgroup %s: %s", o->cgroup, why);
        snprintf(c->source, sizeof c->source, "--server-cgroup %s=%s", nm, o->cgroup);
        /* Counted when that cgroup is also in the perf_event hierarchy. */
        snprintf(ws.perf_cgroup, sizeof ws.perf_cgroup, "%s", c->dir);
    } else if (o && o->pid) {
        c->kind = K_PID;
        c->pid = o->pid;
        snprintf(c->source, sizeof c->source, "--server-pid %s=%d", nm, o->pid);
    } else if (!w->server_locate) {
        snprintf(c->why, sizeof c->why,
                 "not located: pass --server-cgroup %s=PATH or --server-pid %s=PID", nm, nm);
    } else if (w->server_locate(a->cfg, &ws) != 0) {
        if (a->cfg->runtime == RUNTIME_DOCKER &&
            server_container(a->cfg, nm, &c->pid, c->source, sizeof c->source) == 0)
            c->kind = K_PID;
        else
            snprintf(c->why, sizeof c->why, "%s", ws.unavailable);
    } else if (ws.cgroup[0]) {
        c->kind = K_CGROUP;
        snprintf(c->dir, sizeof c->dir, "%s", ws.cgroup);
        snprintf(c->source, sizeof c->source, "%s", ws.source);
    } else {
        c->kind = K_PID;
        c->pid = ws.pid;
        snprintf(c->source, sizeof c->source, "%s", ws.source);
    }
    if (c->why[0])
        memcpy(c->pc_why, c->why, sizeof c->why);
    else if (c->kind == K_PID)
        open_counters(a, c, PC_TARGET_PID, NULL, c->pid);
    else if (ws.perf_cgroup[0])
        open_counters(a, c, PC_TARGET_CGROUP, ws.perf_cgroup, 0);
    else
        snprintf(c->pc_why, sizeof c->pc_why, "no perf_event cgroup recorded for %s", nm);
}

struct attrib *attrib_new(const struct attrib_in *in) {
    struct attrib *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->cfg = in->cfg;
    a->acct = in->acct;
    a->pc_sys = in->pc_sys;
    a->no_counters = in->no_counters;
    for (int i = 0; workload_table[i]; i++)
        if (workload_table[i]->server_name)
            add_server(a, workload_table[i]);

    struct comp *w = &a->c[a->ncomp++];
    snprintf(w->name, sizeof w->name, "workers");
    w->kind = K_WORKERS;
    if (!in->acct) {
        snprintf(w->why, sizeof w->why, "%s", in->acct_why ? in->acct_why : "no worker cgroups");
        memcpy(w->pc_why, w->why, sizeof w->why);
    } else {
        snprintf(w->source, sizeof w->source, "%s", cgacct_describe(in->acct));
        if (cgacct_parent(in->acct))
            open_counters(a, w, PC_TARGET_CGROUP, cgacct_parent(in->acct), 0);
        else
            snprintf(w->pc_why, sizeof w->pc_why,
                     "the workers' cgroups have no parent of their own (cgroup v2, side by side): "
                     "not counted");
    }

    struct comp *co = &a->c[a->ncomp++];
    snprintf(co->name, sizeof co->name, "coordinator");
    co->kind = K_COORD;
    snprintf(co->source, sizeof co->source, "getrusage of pid %d", (int)getpid());
    snprintf(co->pc_why, sizeof co->pc_why, "not opened (the run never forked its workers)");

    if (in->no_counters)
        snprintf(a->machine_pc_why, sizeof a->machine_pc_why, "counters not asked for");
    else if (!(a->machine_pc = perfctr_open_like(PC_TARGET_SYSTEM, NULL, 0, a->pc_sys, a->probed,
                                                 a->machine_pc_why, sizeof a->machine_pc_why)) ||
             !(a->machine_snap = perfctr_snap_new(a->machine_pc))) {
        perfctr_close(a->machine_pc);
        a->machine_pc = NULL;
    }
    a->cap = 1024;
    a->s = malloc(a->cap * sizeof *a->s);
    if (!a->s)
        a->cap = 0;
    return a;
}

void attrib_open_coordinator(struct attrib *a) {
    if (!a)
        return;
    struct comp *co = &a->c[a->ncomp - 1];
    co->pc_why[0] = 0;
    open_counters(a, co, PC_TARGET_PID, NULL, getpid());
}

/* ---- samples -------------------------------------------------------------------------------- */

static void read_comp(struct attrib *a, struct comp *c, double out[3]) {
    struct cpu_time t;
    char why[512] = "";
    int ok = 0;
    out[0] = out[1] = out[2] = NAN;
    if (c->why[0])
        return;
    switch (c->kind) {
    case K_CGROUP:
        ok = cgstat_read_dir(c->dir, &t, why, sizeof why) > 0;
        break;
    case K_PID:
        ok = pidstat_read("/", c->pid, 1, &t, why, sizeof why) == 0;
        break;
    case K_WORKERS:
        ok = cgacct_read(a->acct, &t, why, sizeof why) == 0;
        break;
    case K_COORD: {
        struct rusage ru;
        ok = getrusage(RUSAGE_SELF, &ru) == 0;
        t.user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
        t.system_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
        t.total_s = t.user_s + t.system_s;
        break;
    }
    }
    if (!ok) {
        if (!c->read_err[0])
            snprintf(c->read_err, sizeof c->read_err, "%s", why[0] ? why : "read failed");
        return;
    }
    out[0] = t.total_s, out[1] = t.user_s, out[2] = t.system_s;
}

static void take(struct attrib *a, double t) {
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 1024;
        struct sample *ns = realloc(a->s, cap * sizeof *ns);
        if (!ns)
            return; /* keep what we have: the run matters more */
        a->s = ns, a->cap = cap;
    }
    struct sample *s = &a->s[a->n];
    memset(s, 0, sizeof *s);
    s->t = t;
    for (unsigned i = 0; i < a->ncomp; i++) {
        struct comp *c = &a->c[i];
        read_comp(a, c, s->cpu[i]);
        if (c->pc) {
            perfctr_read(c->pc, c->snap);
            perfctr_sum(c->pc, c->snap, &s->pcs[i]);
        }
    }
    if (a->machine_pc) {
        perfctr_read(a->machine_pc, a->machine_snap);
        perfctr_sum(a->machine_pc, a->machine_snap, &s->pcs[a->ncomp]);
    }
    struct machine_time m;
    s->machine_ok = machine_cpu_read("/", &m, a->machine_why, sizeof a->machine_why) == 0;
    s->busy = m.busy_s, s->total = m.total_s, s->steal = m.steal_s;
    a->n++;
}

void attrib_begin(struct attrib *a, int64_t t0_ns) {
    if (!a)
        return;
    a->t0 = t0_ns;
    a->n = 0;
    take(a, 0);
}

void attrib_rebase(struct attrib *a, int64_t t0_ns) {
    if (!a || a->n != 1)
        return;
    a->s[0].t = (double)(a->t0 - t0_ns) / 1e9; /* the baseline, read before t0 */
    a->t0 = t0_ns;
}

void attrib_sample(struct attrib *a, int64_t now_ns) {
    if (!a || a->n == 0)
        return;
    double t = (double)(now_ns - a->t0) / 1e9;
    if (t <= a->s[a->n - 1].t)
        return;
    take(a, t);
}

/* ---- windows -------------------------------------------------------------------------------- */

/* The samples at a window's edges: the last at or before start, the first at
 * or after end (the last one when the window outlasts the samples). */
static void edges(const struct attrib *a, double start, double end, size_t *i0, size_t *i1) {
    const double eps = 1e-9;
    *i0 = 0;
    for (size_t i = 0; i < a->n && a->s[i].t <= start + eps; i++)
        *i0 = i;
    *i1 = a->n - 1;
    for (size_t i = *i0; i < a->n; i++)
        if (a->s[i].t >= end - eps) {
            *i1 = i;
            break;
        }
}

static json_t *entry(double cpu, double user, double sys, double ops, double machine_total) {
    json_t *o = json_pack("{s:f}", "cpu_s", cpu);
    if (isfinite(user) && isfinite(sys)) {
        json_object_set_new(o, "user_s", json_real(user));
        json_object_set_new(o, "system_s", json_real(sys));
    }
    json_object_set_new(o, "cpu_s_per_op", json_num_or_null(cpu / ops, ops > 0));
    json_object_set_new(o, "share",
                        json_num_or_null(100.0 * cpu / machine_total, machine_total > 0));
    return o;
}

/* attribution.<window>: every component, other, and what the window spans:
 * the sum over its intervals, each cut at the samples around it (pairs
 * pr[k][0], pr[k][1] of sample indices). */
static json_t *window_cpu(const struct attrib *a, const size_t (*pr)[2], size_t np, double ops,
                          json_t *unavailable) {
    json_t *w = json_object();
    int mok = 1;
    double total = 0, busy = 0, steal = 0;
    for (size_t k = 0; k < np; k++) {
        const struct sample *s0 = &a->s[pr[k][0]], *s1 = &a->s[pr[k][1]];
        mok &= s0->machine_ok && s1->machine_ok;
        total += s1->total - s0->total;
        busy += s1->busy - s0->busy; /* steal is not in it */
        steal += s1->steal - s0->steal;
    }
    if (!mok)
        total = busy = steal = NAN;
    double known = 0;
    for (unsigned i = 0; i < a->ncomp; i++) {
        const struct comp *c = &a->c[i];
        double d = 0, u = 0, sy = 0;
        for (size_t k = 0; k < np; k++) {
            const struct sample *s0 = &a->s[pr[k][0]], *s1 = &a->s[pr[k][1]];
            d += s1->cpu[i][0] - s0->cpu[i][0];
            u += s1->cpu[i][1] - s0->cpu[i][1];
            sy += s1->cpu[i][2] - s0->cpu[i][2];
        }
        if (!isfinite(d)) {
            json_object_set_new(w, c->name, json_null());
            const char *why = c->why[0] ? c->why : c->read_err[0] ? c->read_err : "not read";
            if (!json_object_get(unavailable, c->name))
                json_object_set_new(unavailable, c->name, json_string(why));
            continue;
        }
        known += d;
        json_object_set_new(w, c->name, entry(d, u, sy, ops, total));
    }
    if (mok)
        json_object_set_new(w, "other", entry(busy - known, NAN, NAN, ops, total));
    else {
        json_object_set_new(w, "other", json_null());
        json_object_set_new(unavailable, "other", json_string(a->machine_why));
    }
    /* The machine as a component of itself (SPEC: every row has cpu_s,
     * cpu_s_per_op and share): its share is 100 % by definition. */
    json_t *mach = mok ? entry(total, NAN, NAN, ops, total) : json_null();
    if (mok) {
        json_object_set_new(mach, "busy_s", json_real(busy));
        json_object_set_new(mach, "steal_s", json_real(steal));
    }
    json_object_set_new(w, "machine", mach);
    json_object_set_new(w, "ops", json_integer((json_int_t)ops));
    json_object_set_new(w, "sampled_from", json_real(a->s[pr[0][0]].t));
    json_object_set_new(w, "sampled_to", json_real(a->s[pr[np - 1][1]].t));
    if (np > 1)
        json_object_set_new(w, "intervals", json_integer((json_int_t)np));
    return w;
}

static json_t *delta_json(const struct perfctr *pc, const struct pc_sum *a,
                          const struct pc_sum *b) {
    struct pc_delta d;
    perfctr_delta_sum(pc, a, b, &d);
    json_t *o = perfctr_delta_json(&d);
    json_object_set_new(o, "scope", json_string(perfctr_describe(pc)));
    return o;
}

/* counters.<window>: the machine's events, and each component's. */
static json_t *window_counters(const struct attrib *a, size_t i0, size_t i1) {
    const struct sample *s0 = &a->s[i0], *s1 = &a->s[i1];
    json_t *w = a->machine_pc ? delta_json(a->machine_pc, &s0->pcs[a->ncomp], &s1->pcs[a->ncomp])
                              : json_object();
    json_t *comps = json_object();
    for (unsigned i = 0; i < a->ncomp; i++)
        json_object_set_new(comps, a->c[i].name,
                            a->c[i].pc ? delta_json(a->c[i].pc, &s0->pcs[i], &s1->pcs[i])
                                       : json_null());
    json_object_set_new(w, "components", comps);
    json_object_set_new(w, "sampled_from", json_real(s0->t));
    json_object_set_new(w, "sampled_to", json_real(s1->t));
    return w;
}

/* A run that shared the machine: "other" (busy time that is none of the
 * components') over a share of the busy time says so, once, in words. A
 * full-profile --repeat 3 here gave 23.3, 22.6 and 41.5 AOPS and only "CV
 * 36.9 %": another engineer's benchmark had taken 40 of the first two runs'
 * 85 busy CPU-seconds, which attribution.run.other held and nothing said.
 * Only when every component was read: an unread server's CPU lands in
 * other. The bounds leave what a quiet run has there (kernel threads, the
 * sampler's neighbours: 0.5 % of a demo run, 5 % of a full one). */
#define OTHER_MAX_SHARE 0.15
#define OTHER_MIN_S 1.0
static void other_warning(const json_t *run, json_t *warnings) {
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)run, k, v) if (json_is_null(v)) return;
    double other = jnum(run, "other.cpu_s"), busy = jnum(run, "machine.busy_s");
    if (!json_is_array(warnings) || !(other >= OTHER_MIN_S && busy > 0) ||
        !(other / busy > OTHER_MAX_SHARE))
        return;
    json_array_append_new(
        warnings,
        json_sprintf("attribution: processes other than MinIO, MariaDB, the workers and the "
                     "coordinator (other programs, or kernel threads) used %.1f s of CPU over the "
                     "run, %.0f %% of the machine's busy time: the figures are not this "
                     "workload's alone; rerun with the machine otherwise idle "
                     "(attribution.run.other)",
                     other, 100 * other / busy));
}

void attrib_results(const struct attrib *a, const json_t *res, struct attrib_json *out) {
    if (!a || a->n < 2) {
        const char *why = a ? "the run never started: no samples" : "not measured";
        out->attribution = json_null();
        out->unavailable = json_pack("{s:s}", "run", why);
        out->sources = json_object();
        out->counters = json_null();
        out->counters_unavailable = json_pack("{s:s}", "run", why);
        return;
    }
    json_t *att = json_object(), *una = json_object(), *cnt = json_object(), *cun = json_object();
    size_t i0, i1;
    const size_t whole[1][2] = {{0, a->n - 1}};
    json_object_set_new(att, "run", window_cpu(a, whole, 1, jnum(res, "totals.ops"), una));
    json_object_set_new(cnt, "run", window_counters(a, 0, a->n - 1));
    const char *name;
    json_t *win;
    /* A window is cut at the samples around it: one shorter than two
     * sample intervals borrows up to an interval of its neighbours' CPU on
     * each side (a small run's db window at the default 1 s takes in the
     * whole of MariaDB's work and the S3 tail). Said once, in words that do
     * not change between the runs of a repeat. */
    double interval = jnum(res, "config.sample_interval");
    char short_names[256] = "";
    json_object_foreach(json_object_get(res, "windows"), name, win) {
        double start = jnum(win, "start"), end = jnum(win, "end");
        if (!isfinite(start) || !isfinite(end))
            continue;
        if (isfinite(interval) && end - start < 2 * interval)
            snprintf(short_names + strlen(short_names), sizeof short_names - strlen(short_names),
                     "%s%s", short_names[0] ? ", " : "", name);
        char path[160];
        snprintf(path, sizeof path, "workloads.%s.ops", name);
        edges(a, start, end, &i0, &i1);
        /* The CPU over the window's own intervals (one per cycle; samples
         * two intervals share are taken once), the counters over all of it. */
        size_t pr[64][2], np = 0;
        const json_t *ivs = json_object_get(win, "intervals"), *iv;
        size_t k;
        json_array_foreach(ivs, k, iv) {
            size_t j0, j1;
            if (np == 64 || !isfinite(jnum(iv, "start")) || !isfinite(jnum(iv, "end")))
                continue;
            edges(a, jnum(iv, "start"), jnum(iv, "end"), &j0, &j1);
            if (np && j0 < pr[np - 1][1])
                j0 = pr[np - 1][1]; /* cut at a sample the last one reached: no CPU twice */
            if (np && j0 == pr[np - 1][1])
                pr[np - 1][1] = j1; /* adjoining: one pair */
            else if (j1 > j0)
                pr[np][0] = j0, pr[np][1] = j1, np++;
        }
        if (!np || np == 64)
            pr[0][0] = i0, pr[0][1] = i1, np = 1;
        json_object_set_new(att, name,
                            window_cpu(a, (const size_t(*)[2])pr, np, jnum(res, path), una));
        json_object_set_new(cnt, name, window_counters(a, i0, i1));
    }
    json_t *warnings = json_object_get(res, "warnings");
    other_warning(json_object_get(att, "run"), warnings);
    if (short_names[0] && json_is_array(warnings)) {
        char line[640], hint[160];
        int plural = strchr(short_names, ',') != NULL;
        /* A value below the one in use (the next of 1, 2, 5 x 10^k), or, at
         * the least the option takes, that no interval is short enough. */
        double lower = step_below(interval);
        if (lower >= MIN_SAMPLE_INTERVAL)
            snprintf(hint, sizeof hint, "lower --sample-interval, e.g. %g", lower);
        else
            snprintf(hint, sizeof hint,
                     "%g s is the shortest --sample-interval: run more --cycles for longer "
                     "windows",
                     MIN_SAMPLE_INTERVAL);
        snprintf(line, sizeof line,
                 "attribution: the %s window%s shorter than two samples of --sample-interval %g s, "
                 "so %s CPU figures take in up to an interval before and after %s (%s)",
                 short_names, plural ? "s are" : " is", interval, plural ? "their" : "its",
                 plural ? "them" : "it", hint);
        json_array_append_new(warnings, json_string(line));
    }
    json_t *sources = json_object();
    for (unsigned i = 0; i < a->ncomp; i++) {
        const struct comp *c = &a->c[i];
        if (c->source[0])
            json_object_set_new(sources, c->name, json_string(c->source));
        if (!c->pc)
            json_object_set_new(cun, c->name, json_string(c->pc_why));
    }
    if (!a->machine_pc)
        json_object_set_new(cun, "machine", json_string(a->machine_pc_why));
    out->attribution = att;
    out->unavailable = una;
    out->sources = sources;
    out->counters = cnt;
    out->counters_unavailable = cun;
}

void attrib_free(struct attrib *a) {
    if (!a)
        return;
    for (unsigned i = 0; i < a->ncomp; i++) {
        perfctr_snap_free(a->c[i].snap);
        perfctr_close(a->c[i].pc);
    }
    perfctr_snap_free(a->machine_snap);
    perfctr_close(a->machine_pc);
    free(a->s);
    free(a);
}

/* ---- summary -------------------------------------------------------------------------------- */

void attrib_print_summary(const json_t *res, FILE *f) {
    const json_t *att = json_object_get(res, "attribution");
    if (!json_is_object(att))
        return;
    const char *wname;
    json_t *w;
    fprintf(f, "  CPU ms per operation (share of the machine):\n");
    json_object_foreach((json_t *)att, wname, w) {
        fprintf(f, "    %-8s", wname);
        const char *cname;
        json_t *c;
        json_object_foreach(w, cname, c) {
            if (!json_is_object(c) && !json_is_null(c))
                continue;
            if (!strcmp(cname, "machine"))
                continue;
            double per = jnum(c, "cpu_s_per_op");
            if (json_is_null(c) || !isfinite(per))
                fprintf(f, "  %s -", cname);
            else { /* milliseconds, three significant digits, never an exponent */
                double ms = per * 1e3;
                int dec = ms > 0 ? 2 - (int)floor(log10(ms)) : 0;
                fprintf(f, "  %s %.*f (%.0f%%)", cname, dec < 0 ? 0 : dec, ms, jnum(c, "share"));
            }
        }
        fputc('\n', f);
    }
}
