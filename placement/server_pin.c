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
 * anything starts: the run would otherwise not be what it says.
 *
 * A pid named on the command line or read from the stack's pid file may be
 * anything, so a process is pinned only when its /proc/PID/exe or comm is
 * the server named (minio; mariadbd or mysqld), and never PID 1 or the
 * harness's own tree (itself, its ancestors, its descendants). Before
 * anything is pinned, each process's own affinity and start time (field 22
 * of /proc/PID/stat) go into <stack dir>/server-pins.json: the teardown
 * (also after Ctrl-C or SIGTERM, which the coordinator takes from its
 * signalfd) gives them back and removes it; when the coordinator was
 * killed, the next run finds it and gives back what it records, to the
 * processes that still have that start time (a pid reused since is left
 * alone), and says so in one line. */
#include "server_pin.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/cpulist.h"
#include "../common/json.h"
#include "../workloads/stack_state.h"

#define PINS_FILE "server-pins.json"
#define PINS_MAX_BYTES (4 << 20)

struct pinned {
    int pid;
    unsigned long long start; /* /proc/PID/stat field 22: tells a reused pid apart */
    const char *server;       /* "minio" (the workload's, static) */
    cpu_set_t *orig;          /* its main thread's affinity before the run */
};

struct server_pin {
    struct pinned *p;
    unsigned np;
    size_t setsize;
    json_t *servers; /* name -> {source, processes, threads} */
    char cpus[1024];
    char state[4300]; /* <stack dir>/server-pins.json */
};

/* /proc/PID/stat read into buf; the fields after the last ')' (comm may
 * hold spaces and parentheses), or NULL when the process is gone. */
static char *stat_after_comm(int pid, char *buf, size_t size) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "re");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return strrchr(buf, ')');
}

/* Field 22 of /proc/PID/stat (start time, clock ticks after boot), or 0
 * when the process is gone. */
static unsigned long long start_time(int pid) {
    char buf[1024];
    char *p = stat_after_comm(pid, buf, sizeof buf);
    if (!p)
        return 0;
    p++;
    for (int field = 2; field < 21 && p; field++) /* then p is before field+1 */
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

static int parent_of(int pid) {
    char buf[1024];
    char *p = stat_after_comm(pid, buf, sizeof buf);
    int ppid = 0;
    return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? ppid : 0;
}

static void tree(int pid, int **pids, unsigned *n);

/* 1 when pid is the harness, one of its ancestors or one of its descendants. */
static int own_tree(int pid) {
    for (int a = getpid(), k = 0; a > 0 && k < 4096; a = parent_of(a), k++)
        if (a == pid)
            return 1;
    int *d = NULL;
    unsigned n = 0, mine = 0;
    tree(getpid(), &d, &n);
    for (unsigned i = 0; i < n; i++)
        mine |= d[i] == pid;
    free(d);
    return (int)mine;
}

/* The names a server's process goes by. */
static int name_is(const char *server, const char *name) {
    if (!strcmp(server, "mariadb"))
        return !strcmp(name, "mariadbd") || !strcmp(name, "mysqld");
    return !strcmp(server, name);
}

/* 0 when pid may be pinned as server; -1 with why (one line). */
static int pinnable(int pid, const char *server, char *why, size_t wlen) {
    if (pid == 1) {
        snprintf(why, wlen, "PID 1 is the init process, never %s; refused", server);
        return -1;
    }
    if (own_tree(pid)) {
        snprintf(why, wlen, "PID %d is the harness itself, an ancestor or a child of it; refused",
                 pid);
        return -1;
    }
    char path[64], exe[4096] = "", comm[64] = "";
    snprintf(path, sizeof path, "/proc/%d/exe", pid);
    ssize_t n = readlink(path, exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char *del = strstr(exe, " (deleted)");
    if (del)
        *del = 0;
    const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    FILE *f = fopen(path, "re");
    if (f) {
        if (!fgets(comm, sizeof comm, f))
            comm[0] = 0;
        fclose(f);
    }
    comm[strcspn(comm, "\n")] = 0;
    if (!comm[0] && !exe[0]) {
        snprintf(why, wlen, "no process %d", pid);
        return -1;
    }
    if (name_is(server, base) || name_is(server, comm))
        return 0;
    snprintf(why, wlen, "PID %d is %.64s, not %s; refused", pid, comm[0] ? comm : base, server);
    return -1;
}

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

/* The processes of server `name`: 0 with *pids (malloc'd), or -1 with why
 * (not found), or -2 with why (found, and not to be pinned). */
static int find_server(const struct config *cfg, const struct workload *w, int **pids, unsigned *n,
                       char *source, size_t slen, char *why, size_t wlen) {
    const struct server_override *o = override_of(cfg, w->server_name);
    struct wl_server ws;
    memset(&ws, 0, sizeof ws);
    struct stat st;
    int from_tree = 1; /* else a cgroup's processes */
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
        from_tree = 0;
        snprintf(source, slen, "--server-cgroup %s=%s", w->server_name, o->cgroup);
    } else if (!w->server_locate || w->server_locate(cfg, &ws) != 0) {
        snprintf(why, wlen, "%s", ws.unavailable[0] ? ws.unavailable : "not located");
        return -1;
    } else if (ws.cgroup[0]) {
        cgroup_procs(ws.cgroup, pids, n);
        from_tree = 0;
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
    /* A tree is named by its root: that one must be the server; a cgroup's
     * processes each; none may be PID 1 or the harness's own. */
    for (unsigned k = 0; k < *n; k++) {
        int p = (*pids)[k];
        char bad[512];
        if ((k == 0 || !from_tree || p == 1 || own_tree(p)) &&
            pinnable(p, w->server_name, bad, sizeof bad) != 0) {
            snprintf(why, wlen, "%s: %s", source, bad);
            free(*pids);
            *pids = NULL;
            *n = 0;
            return -2;
        }
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

/* <stack dir>/server-pins.json: what the teardown, or the next run, gives
 * back. Written whole (a temporary file renamed over it) before the pins. */
static int state_write(const struct server_pin *sp, char *err, size_t errlen) {
    json_t *pins = json_array();
    for (unsigned i = 0; i < sp->np; i++) {
        json_t *cpus = json_array();
        for (int c = 0; c < CPUSET_MAX; c++)
            if (CPU_ISSET_S((size_t)c, sp->setsize, sp->p[i].orig))
                json_array_append_new(cpus, json_integer(c));
        json_array_append_new(pins, json_pack("{s:i, s:I, s:s, s:o}", "pid", sp->p[i].pid, "start",
                                              (json_int_t)sp->p[i].start, "server", sp->p[i].server,
                                              "cpus", cpus));
    }
    json_t *j = json_pack("{s:{s:i, s:I}, s:s, s:o}", "coordinator", "pid", (int)getpid(), "start",
                          (json_int_t)start_time(getpid()), "cpus", sp->cpus, "pins", pins);
    int ok = j && json_write_atomic_mode(sp->state, j, JSON_COMPACT, 0600) == 0;
    int e = j ? errno : ENOMEM;
    json_decref(j);
    if (!ok) {
        snprintf(err, errlen,
                 "--server-cpus: cannot record the servers' own affinity in %s (%s): nothing "
                 "pinned",
                 sp->state, strerror(e));
        return -1;
    }
    return 0;
}

/* A previous run's record. A run that still lives (its pid with its start
 * time) holds it: 1, and nothing changed. Else every process it names that
 * still has its recorded start time, and is still the server, gets its own
 * affinity back; one line says what was done; the file is removed: 0. */
static int state_recover(const struct config *cfg, int *holder) {
    char sd[4200], path[4300];
    stack_dir(cfg, sd, sizeof sd);
    snprintf(path, sizeof path, "%s/" PINS_FILE, sd);
    char err[4400];
    json_t *j = json_load_bounded(path, PINS_MAX_BYTES, 0, err, sizeof err);
    if (!j && errno != EBADMSG) { /* not there, or no plain file: left as it is */
        if (errno != ENOENT)
            fprintf(stderr, "harness: %s; ignored\n", err);
        return 0;
    }
    const json_t *co = json_object_get(j, "coordinator");
    json_int_t cpid = json_integer_value(json_object_get(co, "pid")),
               cstart = json_integer_value(json_object_get(co, "start"));
    if (cpid > 1 && cpid < (1 << 22) && cpid != getpid() && cstart > 0 &&
        start_time((int)cpid) == (unsigned long long)cstart) {
        *holder = (int)cpid;
        json_decref(j);
        return 1;
    }
    unsigned back = 0, left = 0;
    size_t setsize = CPU_ALLOC_SIZE(CPUSET_MAX);
    cpu_set_t *mask = CPU_ALLOC(CPUSET_MAX);
    const json_t *pins = json_object_get(j, "pins");
    for (size_t i = 0; mask && i < json_array_size(pins); i++) {
        const json_t *pi = json_array_get(pins, i), *cpus = json_object_get(pi, "cpus");
        json_int_t pid = json_integer_value(json_object_get(pi, "pid")),
                   start = json_integer_value(json_object_get(pi, "start"));
        const char *server = json_string_value(json_object_get(pi, "server"));
        char why[512];
        if (pid <= 1 || pid >= (1 << 22) || start <= 0 || !server ||
            start_time((int)pid) != (unsigned long long)start ||
            pinnable((int)pid, server, why, sizeof why) != 0) {
            left++; /* gone, its pid reused, or never a server */
            continue;
        }
        CPU_ZERO_S(setsize, mask);
        for (size_t k = 0; k < json_array_size(cpus); k++) {
            json_int_t c = json_integer_value(json_array_get(cpus, k));
            if (json_is_integer(json_array_get(cpus, k)) && c >= 0 && c < CPUSET_MAX)
                CPU_SET_S((size_t)c, setsize, mask);
        }
        if (CPU_COUNT_S(setsize, mask) && pin_threads((int)pid, setsize, mask) > 0)
            back++;
        else
            left++;
    }
    CPU_FREE(mask);
    if (!j)
        fprintf(stderr, "harness: %s; removed\n", err);
    else
        fprintf(stderr,
                "harness: the run (pid %lld) that pinned servers to CPUs %.64s was killed: %u of "
                "its server processes given their own affinity back, %u gone or their pid "
                "reused (left alone)\n",
                (long long)cpid, json_string_value(json_object_get(j, "cpus")) ?: "?", back, left);
    json_decref(j);
    unlink(path);
    return 0;
}

int server_pin_check(const struct config *cfg, const struct run_layout *lay, char *err,
                     size_t errlen) {
    int holder = 0;
    if (state_recover(cfg, &holder) && cfg->server_cpus[0]) {
        snprintf(err, errlen,
                 "--server-cpus: another run (pid %d) has the servers pinned; wait for it to end",
                 holder);
        return -1;
    }
    if (!cfg->server_cpus[0])
        return 0;
    for (unsigned w = 0; w < lay->nwl; w++) {
        const struct workload *wl = lay->wl[w];
        int *pids;
        unsigned n;
        char source[1200], why[1024];
        if (!wl->server_name)
            continue;
        int rc = find_server(cfg, wl, &pids, &n, source, sizeof source, why, sizeof why);
        if (rc == -2) {
            snprintf(err, errlen, "--server-cpus: will not pin %s: %s", wl->server_name, why);
            return -1;
        }
        if (rc != 0) {
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
    char sd[4200];
    stack_dir(cfg, sd, sizeof sd);
    snprintf(sp->state, sizeof sp->state, "%s/" PINS_FILE, sd);
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
        unsigned first = sp->np;
        for (unsigned k = 0; k < n; k++) {
            struct pinned *np = realloc(sp->p, (sp->np + 1) * sizeof *np);
            if (!np)
                break;
            sp->p = np;
            struct pinned *p = &sp->p[sp->np];
            p->pid = pids[k];
            p->start = start_time(p->pid);
            p->server = wl->server_name;
            p->orig = CPU_ALLOC(CPUSET_MAX);
            if (!p->orig || !p->start || sched_getaffinity(p->pid, sp->setsize, p->orig) != 0) {
                CPU_FREE(p->orig);
                continue; /* gone meanwhile */
            }
            sp->np++;
        }
        free(pids);
        /* recorded first: a coordinator killed from here on is undone by the next run */
        if (state_write(sp, err, errlen) != 0) {
            CPU_FREE(mask);
            server_pin_restore(sp);
            return NULL;
        }
        for (unsigned k = first; k < sp->np; k++)
            threads += pin_threads(sp->p[k].pid, sp->setsize, mask);
        json_object_set_new(sp->servers, wl->server_name,
                            json_pack("{s:s, s:i, s:i}", "source", source, "processes", (int)n,
                                      "threads", threads));
    }
    CPU_FREE(mask);
    return sp;
}

json_t *server_pin_results(const struct server_pin *sp) {
    return sp ? json_pack("{s:s, s:O}", "cpus", sp->cpus, "servers", sp->servers) : NULL;
}

void server_pin_restore(struct server_pin *sp) {
    if (!sp)
        return;
    for (unsigned i = 0; i < sp->np; i++) {
        /* the same process still (not a pid reused after it exited) */
        if (start_time(sp->p[i].pid) == sp->p[i].start)
            pin_threads(sp->p[i].pid, sp->setsize, sp->p[i].orig);
        CPU_FREE(sp->p[i].orig);
    }
    if (sp->state[0])
        unlink(sp->state);
    free(sp->p);
    json_decref(sp->servers);
    free(sp);
}
