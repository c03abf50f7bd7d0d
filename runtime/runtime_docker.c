/* runtime_docker.c -- --runtime docker: every worker a container of the
 * harness image, created and started through the Docker Engine API
 * (containers/docker.c), as the published benchmark ran its agents.
 *
 * The run directory /dev/shm/aops-<pid>-XXXXXX (tmpfs) holds what coordinator and
 * containers share: the slots file (mapped by both, so a worker's figures
 * outlive its container), the ready and release FIFOs (the same protocol as
 * the forked workers' pipes), and the resolved credentials (mode 0600; the
 * containers read them through AOPS_CREDENTIALS, so no secret is in a
 * container's environment or command). It is bind-mounted at /run/aops.
 * /dev/shm is writable by everyone, so the directory is made fresh with a
 * random name (mkdtemp: 0700, never an existing one), checked to be ours with
 * lstat, and every file in it is created O_EXCL|O_NOFOLLOW: nothing another
 * user planted can receive the secrets.
 *
 * A worker container runs this very harness build, bind-mounted read-only
 * at the same path together with the repository (its corpus and patterns):
 * the image brings the operating system and the libraries, and coordinator
 * and workers can never disagree about the slot layout. Each container gets
 * HostConfig.Memory = --memory-limit with swap equal to it (no swap),
 * NanoCpus from --cpus-per-container, labels naming the run, the network of
 * --container-network (host by default, so the data path equals the cgroup
 * runtime's), and an init process (a worker that raises a signal must die of
 * it, which PID 1 would not). Binds are HostConfig.Mounts (no separator to
 * split a path with ':' in it on). Ends are read from State (ExitCode,
 * OOMKilled); every container is removed at the end, and the next run removes
 * the containers, run directories and cgroup parents of a coordinator on this
 * host that is gone.
 *
 * Containers are created and started over --engine-connections connections
 * at once (default 16), one thread each: the engine serves requests in
 * parallel, and one create and start after the other made 256 containers
 * take 256 round trips of ~150 ms here. launch() only builds a container's
 * spec; launched() runs the pool and records each container's create and
 * start times (launch_json: coordinator.launch in the result). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/mountinfo.h"
#include "../common/util.h"
#include "../containers/docker.h"
#include "../placement/placement.h"
#include "../workloads/workload.h"
#include "runtime_priv.h"

#define IN_CONTAINER "/run/aops"

struct rt_docker {
    struct runtime base;
    struct docker *d;
    char dir[128];   /* /dev/shm/aops-<pid>-XXXXXX */
    char label[192]; /* aops.run=<pid>@<host> */
    char host[128];
    char describe[512];
    char cgparent[64]; /* every container's cgroup parent, "" when the engine's own */
    int ready_rd, release_wr;
    size_t shm_len;
    int64_t last_poll;
    char sock[512];
    struct dk_job *jobs; /* one per worker launched, in worker order */
    unsigned njobs, nconn;
    double launch_s; /* the pool's wall time */
};

/* One container to create and start, and what came of it. */
struct dk_job {
    unsigned i;
    char name[96];
    json_t *spec;
    struct worker_end *we;
    int64_t create_ns, start_ns; /* each request's time; 0 not done */
    char err[512];               /* "" when it was created and started */
};

/* What the launch threads share: the jobs and the next one to take. */
struct dk_pool {
    struct dk_job *jobs;
    unsigned njobs;
    atomic_uint next;
    atomic_int failed; /* a launch failed: the others stop taking jobs */
};

struct dk_conn {
    struct dk_pool *pool;
    struct docker *d;
};

/* "unix:///var/run/docker.sock" or a plain path. */
static int socket_path(const char *host, char *out, size_t len, char *err, size_t errlen) {
    if (!strncmp(host, "unix://", 7))
        host += 7;
    if (host[0] != '/') {
        snprintf(err, errlen,
                 "--docker-host '%s': only a Unix socket is supported (a path, or unix:///path)",
                 host);
        return -1;
    }
    snprintf(out, len, "%s", host);
    return 0;
}

/* mkdir (make) or rmdir (!make) cgpath in every cgroup hierarchy mounted:
 * the containers' common parent, made before the engine puts them there and
 * removed after, as the engine's cgroupfs driver leaves parents behind. */
static void cgparent_dirs(const char *cgpath, int make) {
    FILE *f = fopen("/proc/self/mountinfo", "re");
    struct mount_entry e;
    while (f && mountinfo_next(f, &e)) {
        if ((strcmp(e.fstype, "cgroup") && strcmp(e.fstype, "cgroup2")) || strcmp(e.root, "/"))
            continue;
        char dir[PATH_MAX + 600];
        snprintf(dir, sizeof dir, "%s%s", e.point, cgpath);
        if (make)
            mkdir(dir, 0755);
        else
            for (int i = 0; i < 50 && rmdir(dir) != 0 && errno == EBUSY; i++)
                usleep(20000); /* the engine still tearing a container's cgroup down */
    }
    if (f)
        fclose(f);
}

/* 1 when pid is another coordinator still running (a harness process).
 * Asked before this run makes anything, so what bears this very pid was
 * left by an earlier coordinator that had it. */
static int coordinator_alive(pid_t p) {
    char comm[64] = "", path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)p);
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(comm, sizeof comm, f))
            comm[0] = 0;
        fclose(f);
    }
    return p != getpid() && !strncmp(comm, "harness", 7);
}

/* A run directory's files, then the directory: only a real directory of
 * ours (not a symlink, not another user's), its entries unlinked relative to
 * it, so a planted link is removed as a link and never followed. */
static void remove_run_dir(const char *dir) {
    static const char *const files[] = {"slots", "ready", "release", "credentials"};
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (dfd < 0)
        return;
    if (fstat(dfd, &st) == 0 && st.st_uid == geteuid()) {
        for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
            unlinkat(dfd, files[k], 0);
        rmdir(dir);
    }
    close(dfd);
}

/* The cgroup parents (aops-<pid>-docker at the top of each hierarchy) of
 * coordinators that are gone, once their containers are. */
static void remove_stale_cgparents(void) {
    FILE *f = fopen("/proc/self/mountinfo", "re");
    struct mount_entry e;
    while (f && mountinfo_next(f, &e)) {
        if ((strcmp(e.fstype, "cgroup") && strcmp(e.fstype, "cgroup2")) || strcmp(e.root, "/"))
            continue;
        DIR *d = opendir(e.point);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            int p = 0, end = 0;
            char name[64];
            if (sscanf(de->d_name, "aops-%d-docker%n", &p, &end) != 1 || p <= 0 ||
                de->d_name[end] || coordinator_alive((pid_t)p))
                continue;
            snprintf(name, sizeof name, "/%s", de->d_name);
            cgparent_dirs(name, 0);
        }
        if (d)
            closedir(d);
    }
    if (f)
        fclose(f);
}

/* Remove containers of this host whose coordinator is gone (a crash), the
 * run directories such coordinators left in /dev/shm, and their cgroups. */
static void remove_stale(struct rt_docker *rt) {
    char err[512];
    json_t *list = docker_list(rt->d, "aops.harness=1", err, sizeof err);
    size_t i;
    json_t *c;
    json_array_foreach(list, i, c) {
        json_t *labels = json_object_get(c, "Labels");
        const char *host = json_string_value(json_object_get(labels, "aops.host"));
        const char *pid = json_string_value(json_object_get(labels, "aops.pid"));
        const char *id = json_string_value(json_object_get(c, "Id"));
        if (!host || !pid || !id || strcmp(host, rt->host))
            continue;
        if (coordinator_alive((pid_t)atoi(pid)))
            continue; /* another run on this host */
        docker_remove(rt->d, id, err, sizeof err);
    }
    json_decref(list);
    DIR *shm = opendir("/dev/shm");
    struct dirent *e;
    while (shm && (e = readdir(shm))) {
        int p = 0;
        char dir[300];
        if (sscanf(e->d_name, "aops-%d", &p) != 1 || p <= 0 || coordinator_alive((pid_t)p))
            continue;
        snprintf(dir, sizeof dir, "/dev/shm/%s", e->d_name);
        remove_run_dir(dir);
    }
    if (shm)
        closedir(shm);
    remove_stale_cgparents();
}

/* KEY=VALUE for every option row that has an environment key: the resolved
 * settings a worker loads like the coordinator did (secrets included, so the
 * file is 0600 and never leaves the tmpfs run directory). */
static int write_credentials(const struct rt_docker *rt, char *err, size_t errlen) {
    char path[256];
    snprintf(path, sizeof path, "%s/credentials", rt->dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct opt_set sets[CONFIG_MAX_WL + 1];
    size_t n = workloads_option_sets((struct config *)rt->base.r->cfg, sets, CONFIG_MAX_WL + 1);
    opt_write_env(sets, n, f);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static void dk_destroy(struct runtime *base);

static struct runtime *dk_create(struct run_ctx *r, int *ready_rd, int *release_wr, char *err,
                                 size_t errlen) {
    const struct config *cfg = r->cfg;
    struct rt_docker *rt = calloc(1, sizeof *rt);
    char sock[512], path[256];
    if (!rt) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    rt->base.ops = &runtime_docker_ops;
    rt->base.r = r;
    rt->ready_rd = rt->release_wr = -1;
    gethostname(rt->host, sizeof rt->host - 1);
    snprintf(rt->label, sizeof rt->label, "aops.run=%d@%s", (int)getpid(), rt->host);
    if (socket_path(cfg->docker_host, sock, sizeof sock, err, errlen) != 0 ||
        !(rt->d = docker_open(sock, err, errlen)))
        goto fail;
    snprintf(rt->sock, sizeof rt->sock, "%s", sock);
    rt->nconn = cfg->engine_connections ? cfg->engine_connections : 1;
    if (!(rt->jobs = calloc(cfg->n ? cfg->n : 1, sizeof *rt->jobs))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    int have = docker_image_exists(rt->d, cfg->image, err, errlen);
    if (have <= 0) {
        if (have == 0)
            snprintf(err, errlen,
                     "--image %s: no such image on this Docker engine (scripts/docker images "
                     "builds aops-harness:local)",
                     cfg->image);
        goto fail;
    }
    remove_stale(rt);
    /* One cgroup parent for the run's containers, so their CPU reads as one
     * directory (attribution); the cgroupfs driver takes a path, systemd's a
     * slice, which is left to the engine's default. */
    json_t *info = NULL;
    int got_info = docker_request(rt->d, "GET", "/info", NULL, &info, err, errlen) == 200;
    /* MemorySwap = Memory holds swap only where the engine can limit it. */
    json_t *swap = json_object_get(info, "SwapLimit");
    r->swap_limited = got_info && json_is_boolean(swap) ? json_is_true(swap) : -1;
    if (got_info &&
        !strcmp(json_string_value(json_object_get(info, "CgroupDriver")) ?: "", "cgroupfs")) {
        snprintf(rt->cgparent, sizeof rt->cgparent, "/aops-%d-docker", (int)getpid());
        cgparent_dirs(rt->cgparent, 1);
    }
    json_decref(info);

    /* A fresh directory of a random name, never one that exists: what is in
     * /dev/shm may have been made by anyone. */
    snprintf(rt->dir, sizeof rt->dir, "/dev/shm/aops-%d-XXXXXX", (int)getpid());
    struct stat dst;
    if (!mkdtemp(rt->dir)) {
        snprintf(err, errlen, "cannot create the run directory %s: %s", rt->dir, strerror(errno));
        rt->dir[0] = 0;
        goto fail;
    }
    if (lstat(rt->dir, &dst) != 0 || !S_ISDIR(dst.st_mode) || dst.st_uid != geteuid() ||
        (dst.st_mode & 077)) {
        snprintf(err, errlen, "the run directory %s is not a private directory of ours", rt->dir);
        goto fail;
    }
    rt->shm_len = (size_t)cfg->n * r->lay.slot_size;
    snprintf(path, sizeof path, "%s/slots", rt->dir);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)rt->shm_len) != 0 ||
        (r->shm = mmap(NULL, rt->shm_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
            MAP_FAILED) {
        snprintf(err, errlen, "cannot make the shared slots %s: %s", path, strerror(errno));
        r->shm = NULL;
        if (fd >= 0)
            close(fd);
        goto fail;
    }
    close(fd);
    /* The coordinator holds both FIFOs read-write: opening never blocks, the
     * ready FIFO never reads EOF, and closing the release FIFO is the only
     * writer going away, which wakes every worker at once. */
    static const char *const fifo[] = {"ready", "release"};
    int *end[] = {&rt->ready_rd, &rt->release_wr};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", rt->dir, fifo[k]);
        if (mkfifo(path, 0600) != 0 || (*end[k] = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC |
                                                                 (k == 0 ? O_NONBLOCK : 0))) < 0) {
            snprintf(err, errlen, "cannot make the %s FIFO %s: %s", fifo[k], path, strerror(errno));
            goto fail;
        }
    }
    if (write_credentials(rt, err, errlen) != 0)
        goto fail;
    *ready_rd = rt->ready_rd;
    *release_wr = rt->release_wr;
    r->ready_fd = r->release_fd = -1; /* the workers open their own ends */
    snprintf(rt->describe, sizeof rt->describe, "docker %s, image %s, network %s",
             docker_version(rt->d), cfg->image, cfg->container_network);
    return &rt->base;
fail:
    dk_destroy(&rt->base);
    return NULL;
}

/* A bind mount as HostConfig.Mounts has it: fields, not "src:dst:mode",
 * so a path holding ':' stays one path. */
static void add_bind(json_t *mounts, const char *src, const char *dst, int ro) {
    json_array_append_new(mounts, json_pack("{s:s, s:s, s:s, s:b}", "Type", "bind", "Source", src,
                                            "Target", dst, "ReadOnly", ro));
}

/* The container of worker i, as the Engine API's create body. */
static json_t *spec(struct rt_docker *rt, unsigned i, const char *exe) {
    const struct config *cfg = rt->base.r->cfg;
    json_t *cmd = json_array();
    json_array_append_new(cmd, json_string(exe));
    json_array_append_new(cmd, json_string("worker"));
    json_array_append_new(cmd, json_string(IN_CONTAINER));
    json_array_append_new(cmd, json_sprintf("%u", i));
    json_array_append_new(cmd, json_sprintf("%u", cfg->n));
    for (int k = cfg->argv_first; k < cfg->argc; k++)
        json_array_append_new(cmd, json_string(cfg->argv[k]));

    /* The credentials file, and the test knobs (AOPS_*) a worker reads. */
    json_t *env = json_array();
    json_array_append_new(env, json_string("AOPS_CREDENTIALS=" IN_CONTAINER "/credentials"));
    extern char **environ;
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "AOPS_", 5) && strncmp(*e, "AOPS_CREDENTIALS=", 17))
            json_array_append_new(env, json_string(*e));

    json_t *binds = json_array();
    add_bind(binds, rt->dir, IN_CONTAINER, 0);
    add_bind(binds, cfg->harness_dir, cfg->harness_dir, 1);
    if (strncmp(exe, cfg->harness_dir, strlen(cfg->harness_dir)))
        add_bind(binds, exe, exe, 1);
    /* Where the workloads read their data (the corpus), at the same paths. */
    for (int w = 0; workload_table[w]; w++) {
        const char *names[4];
        char paths[4][4096];
        int k = (cfg->wl_mask >> w & 1) && workload_table[w]->data_paths
                    ? workload_table[w]->data_paths(cfg, names, paths, 4)
                    : 0;
        for (int j = 0; j < k; j++)
            if (access(paths[j], F_OK) == 0 &&
                strncmp(paths[j], cfg->harness_dir, strlen(cfg->harness_dir)))
                add_bind(binds, paths[j], paths[j], 1);
    }

    json_t *host = json_pack("{s:I, s:I, s:s, s:b, s:o}", "Memory", (json_int_t)cfg->memory_limit,
                             "MemorySwap", (json_int_t)cfg->memory_limit, "NetworkMode",
                             cfg->container_network, "Init", 1, "Mounts", binds);
    const struct placement *pl = rt->base.r->place;
    if (pl && pl->slot) { /* --placement: the cpuset is the limit, C means C whole cores */
        char cpus[8192], mems[8192];
        placement_lists(pl, i, cpus, sizeof cpus, mems, sizeof mems);
        json_object_set_new(host, "CpusetCpus", json_string(cpus));
        if (pl->kind == PLACE_NUMA)
            json_object_set_new(host, "CpusetMems", json_string(mems));
    } else if (cfg->cpus_per_container > 0)
        json_object_set_new(host, "NanoCpus",
                            json_integer((json_int_t)(cfg->cpus_per_container * 1e9)));
    if (rt->cgparent[0])
        json_object_set_new(host, "CgroupParent", json_string(rt->cgparent));
    json_t *labels = json_pack("{s:s, s:s, s:s, s:s, s:s}", "aops.harness", "1", "aops.run",
                               strchr(rt->label, '=') + 1, "aops.host", rt->host, "aops.pid", "",
                               "aops.worker", "");
    json_object_set_new(labels, "aops.pid", json_sprintf("%d", (int)getpid()));
    json_object_set_new(labels, "aops.worker", json_sprintf("%u", i));
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:s}", "Image", cfg->image, "Cmd", cmd, "Env", env,
                     "Labels", labels, "HostConfig", host, "WorkingDir", cfg->harness_dir);
}

static int dk_launch(struct runtime *base, unsigned i, struct worker_end *we, int close_fd,
                     const sigset_t *mask, char *err, size_t errlen) {
    (void)close_fd, (void)mask;
    struct rt_docker *rt = (struct rt_docker *)base;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(err, errlen, "cannot find the harness executable: %s", strerror(errno));
        return -1;
    }
    exe[n] = 0;
    if (rt->njobs >= base->r->cfg->n) {
        snprintf(err, errlen, "worker %u: more launches than --containers", i);
        return -1;
    }
    struct dk_job *j = &rt->jobs[rt->njobs];
    j->i = i;
    j->we = we;
    snprintf(j->name, sizeof j->name, "aops-%d-%u", (int)getpid(), i);
    if (!(j->spec = spec(rt, i, exe))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rt->njobs++;
    we->pid = -1;
    we->oom_killed = -1;
    return 0;
}

/* A launch thread: take the next job, create and start its container, until
 * none is left or one failed. */
static void *launch_thread(void *arg) {
    struct dk_conn *c = arg;
    struct dk_pool *p = c->pool;
    for (;;) {
        unsigned k = atomic_fetch_add(&p->next, 1);
        if (k >= p->njobs || atomic_load(&p->failed))
            return NULL;
        struct dk_job *j = &p->jobs[k];
        char e[512];
        int64_t t = now_ns();
        int rc = docker_create(c->d, j->name, j->spec, j->we->runtime_id, e, sizeof e);
        j->create_ns = now_ns() - t;
        if (rc != 0) {
            j->we->runtime_id[0] = 0;
            snprintf(j->err, sizeof j->err, "cannot create the container of worker %u: %s", j->i,
                     e);
            atomic_store(&p->failed, 1);
            continue;
        }
        t = now_ns();
        rc = docker_start(c->d, j->we->runtime_id, e, sizeof e);
        j->start_ns = now_ns() - t;
        if (rc != 0) {
            snprintf(j->err, sizeof j->err, "cannot start the container of worker %u: %s", j->i, e);
            atomic_store(&p->failed, 1);
        }
    }
}

/* Create and start every container of the run over min(--engine-connections,
 * containers) connections. The connections are opened here, one thread's
 * each (a libcurl handle is one thread's at a time); one that cannot be
 * opened leaves fewer threads, never none (the first is rt->d). A worker
 * whose container never ran is marked ended, so nothing waits for it. */
static int dk_launched(struct runtime *base, char *err, size_t errlen) {
    struct rt_docker *rt = (struct rt_docker *)base;
    unsigned want = rt->nconn < rt->njobs ? rt->nconn : rt->njobs;
    if (!want)
        return 0;
    struct dk_pool pool = {.jobs = rt->jobs, .njobs = rt->njobs};
    atomic_init(&pool.next, 0);
    atomic_init(&pool.failed, 0);
    struct dk_conn *conn = calloc(want, sizeof *conn);
    pthread_t *tid = calloc(want, sizeof *tid);
    unsigned nc = 0, nt = 0;
    char e[512];
    if (conn && tid) {
        conn[nc++] = (struct dk_conn){&pool, rt->d};
        while (nc < want && (conn[nc].d = docker_open(rt->sock, e, sizeof e)))
            conn[nc++].pool = &pool;
    }
    int64_t t0 = now_ns();
    for (unsigned k = 1; k < nc; k++) /* conn[0] is this thread's */
        if (pthread_create(&tid[nt], NULL, launch_thread, &conn[k]) == 0)
            nt++;
    launch_thread(&conn[0]);
    for (unsigned k = 0; k < nt; k++)
        pthread_join(tid[k], NULL);
    rt->launch_s = (double)(now_ns() - t0) / 1e9;
    rt->nconn = nc ? nc : 1;
    for (unsigned k = 1; k < nc; k++)
        docker_close(conn[k].d);
    free(conn);
    free(tid);
    if (!nc) { /* out of memory for the pool: one after the other, here */
        struct dk_conn one = {&pool, rt->d};
        launch_thread(&one);
    }
    int rc = 0;
    for (unsigned k = 0; k < rt->njobs; k++) {
        struct dk_job *j = &rt->jobs[k];
        int ran = j->err[0] == 0 && j->start_ns > 0;
        if (!ran) /* failed, or never tried after a failure: nothing to wait for */
            j->we->reaped = 1, j->we->status = SIGKILL;
        if (j->err[0] && rc == 0) {
            snprintf(err, errlen, "%s", j->err);
            rc = -1;
        }
    }
    return rc;
}

static int dbl_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* {median, max} of v[0..n), or null when n is 0 (no request was made). */
static json_t *median_max_json(double *v, unsigned n) {
    if (!n)
        return json_null();
    qsort(v, n, sizeof *v, dbl_cmp);
    double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return json_pack("{s:f, s:f}", "median", med, "max", v[n - 1]);
}

/* How the containers were started: connections, the pool's wall time, and
 * each request's median and maximum, in ms. */
static json_t *dk_launch_json(const struct runtime *base) {
    const struct rt_docker *rt = (const struct rt_docker *)base;
    double *c = calloc(rt->njobs ? rt->njobs : 1, sizeof *c);
    double *st = calloc(rt->njobs ? rt->njobs : 1, sizeof *st);
    unsigned nc = 0, ns = 0;
    json_t *o = NULL;
    if (!c || !st)
        goto out;
    for (unsigned k = 0; k < rt->njobs; k++) {
        if (rt->jobs[k].create_ns > 0)
            c[nc++] = (double)rt->jobs[k].create_ns / 1e6;
        if (rt->jobs[k].start_ns > 0)
            st[ns++] = (double)rt->jobs[k].start_ns / 1e6;
    }
    o = json_pack("{s:i, s:i, s:f, s:o, s:o}", "containers", (int)rt->njobs, "connections",
                  (int)rt->nconn, "seconds", rt->launch_s, "create_ms", median_max_json(c, nc),
                  "start_ms", median_max_json(st, ns));
out:
    free(c);
    free(st);
    return o;
}

static void dk_release(struct runtime *base) {
    struct rt_docker *rt = (struct rt_docker *)base;
    if (rt->release_wr >= 0)
        close(rt->release_wr);
    rt->release_wr = -1;
}

/* A container's end from its State: an exit code, or a signal (Docker
 * reports 128 + the signal), and whether its memory limit OOM-killed it. */
static void container_end(struct rt_docker *rt, struct worker_end *we) {
    char err[512];
    json_t *st = docker_inspect(rt->d, we->runtime_id, err, sizeof err);
    json_t *state = json_object_get(st, "State");
    int code = (int)json_integer_value(json_object_get(state, "ExitCode"));
    we->reaped = 1;
    we->oom_killed = state ? json_is_true(json_object_get(state, "OOMKilled")) : -1;
    we->status = code > 128 && code < 128 + 65 ? code - 128 : (code & 0xff) << 8;
    json_decref(st);
}

static unsigned dk_reap_now(struct rt_docker *rt, struct worker_end *we, unsigned n) {
    char err[512];
    rt->last_poll = now_ns();
    json_t *list = docker_list(rt->d, rt->label, err, sizeof err);
    size_t i;
    json_t *c;
    unsigned k = 0;
    json_array_foreach(list, i, c) {
        const char *state = json_string_value(json_object_get(c, "State"));
        const char *id = json_string_value(json_object_get(c, "Id"));
        if (!state || !id || (strcmp(state, "exited") && strcmp(state, "dead")))
            continue;
        for (unsigned w = 0; w < n; w++)
            if (!we[w].reaped && !strcmp(we[w].runtime_id, id)) {
                container_end(rt, &we[w]);
                k++;
            }
    }
    json_decref(list);
    return k;
}

static unsigned dk_reap(struct runtime *base, struct worker_end *we, unsigned n) {
    struct rt_docker *rt = (struct rt_docker *)base;
    if (now_ns() - rt->last_poll < 250000000)
        return 0; /* at most four questions a second to the engine */
    return dk_reap_now(rt, we, n);
}

static void dk_kill(struct runtime *base, struct worker_end *we, unsigned n) {
    struct rt_docker *rt = (struct rt_docker *)base;
    char err[512];
    for (unsigned i = 0; i < n; i++)
        if (!we[i].reaped && we[i].runtime_id[0])
            docker_kill(rt->d, we[i].runtime_id, "KILL", err, sizeof err);
}

static unsigned alive(const struct worker_end *we, unsigned n) {
    unsigned a = 0;
    for (unsigned i = 0; i < n; i++)
        a += !we[i].reaped;
    return a;
}

static void dk_wait_all(struct runtime *base, struct worker_end *we, unsigned n, int ms) {
    struct rt_docker *rt = (struct rt_docker *)base;
    int64_t until = now_ns() + (int64_t)ms * 1000000;
    while (alive(we, n) && now_ns() < until) {
        usleep(100000);
        dk_reap_now(rt, we, n);
    }
    if (!alive(we, n))
        return;
    dk_kill(base, we, n);
    until = now_ns() + 10000000000LL;
    while (alive(we, n) && now_ns() < until) {
        usleep(100000);
        dk_reap_now(rt, we, n);
    }
    for (unsigned i = 0; i < n; i++) /* the engine never said: count them as killed */
        if (!we[i].reaped)
            we[i].reaped = 1, we[i].status = SIGKILL, we[i].oom_killed = -1;
}

static const char *dk_describe(const struct runtime *base) {
    return ((const struct rt_docker *)base)->describe;
}

static const char *dk_cgroup_parent(const struct runtime *base) {
    const struct rt_docker *rt = (const struct rt_docker *)base;
    return rt->cgparent[0] ? rt->cgparent : NULL;
}

static void dk_destroy(struct runtime *base) {
    struct rt_docker *rt = (struct rt_docker *)base;
    char err[512];
    for (unsigned k = 0; rt->jobs && k < rt->njobs; k++)
        json_decref(rt->jobs[k].spec);
    free(rt->jobs);
    if (rt->d) {
        /* Every container of this run, whatever state it reached. */
        json_t *list = docker_list(rt->d, rt->label, err, sizeof err);
        size_t i;
        json_t *c;
        json_array_foreach(list, i, c) {
            const char *id = json_string_value(json_object_get(c, "Id"));
            if (id)
                docker_remove(rt->d, id, err, sizeof err);
        }
        json_decref(list);
        docker_close(rt->d);
    }
    if (rt->cgparent[0])
        cgparent_dirs(rt->cgparent, 0);
    if (rt->ready_rd >= 0)
        close(rt->ready_rd);
    if (rt->release_wr >= 0)
        close(rt->release_wr);
    if (base->r->shm)
        munmap(base->r->shm, rt->shm_len);
    base->r->shm = NULL;
    if (rt->dir[0])
        remove_run_dir(rt->dir);
    free(rt);
}

const struct runtime_ops runtime_docker_ops = {
    .name = "docker",
    .create = dk_create,
    .launch = dk_launch,
    .launched = dk_launched,
    .launch_json = dk_launch_json,
    .release = dk_release,
    .reap = dk_reap,
    .kill = dk_kill,
    .wait_all = dk_wait_all,
    .describe = dk_describe,
    .cgroup_parent = dk_cgroup_parent,
    .destroy = dk_destroy,
};

/* ---- inside the container ---- */

int worker_container_run(const char *dir, unsigned id, unsigned n, struct config *cfg) {
    char err[1024], path[4200];
    cfg->n = n;
    struct run_ctx r = {.cfg = cfg, .id_base = cfg->shard * n}; /* --shard: global ids */
    if (id >= n || layout_build(cfg, &r.lay, err, sizeof err) != 0) {
        fprintf(stderr, "harness worker: %s\n", id >= n ? "worker id out of range" : err);
        return 2;
    }
    snprintf(path, sizeof path, "%s/slots", dir);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    size_t len = (size_t)n * r.lay.slot_size;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size != len ||
        (r.shm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        fprintf(stderr,
                "harness worker: the shared slots %s are missing or of another layout "
                "(a harness of another version?)\n",
                path);
        return 3;
    }
    close(fd);
    snprintf(path, sizeof path, "%s/ready", dir);
    r.ready_fd = open(path, O_WRONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "%s/release", dir);
    r.release_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r.ready_fd < 0 || r.release_fd < 0) {
        fprintf(stderr, "harness worker: cannot open the run's FIFOs in %s: %s\n", dir,
                strerror(errno));
        return 3;
    }
    worker_main(&r, id); /* never returns */
}
