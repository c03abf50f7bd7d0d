/* runtime.c -- the cgroup runtime (workers forked into cgroups of their own)
 * and the dispatch to whichever runtime --runtime names (see runtime.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../containers/cgroup.h"
#include "../placement/placement_run.h"
#include "runtime_priv.h"

struct rt_cgroup {
    struct runtime base;
    int ready[2], release[2];
};

static struct runtime *cg_create(struct run_ctx *r, int *ready_rd, int *release_wr, char *err,
                                 size_t errlen) {
    const struct config *cfg = r->cfg;
    struct rt_cgroup *rt = calloc(1, sizeof *rt);
    if (!rt) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    rt->base.r = r;
    rt->ready[0] = rt->ready[1] = rt->release[0] = rt->release[1] = -1;
    r->swap_limited = -1;
    if (!cfg->no_cgroups) {
        cgroups_remove_stale();
        /* With a placement the cpuset is the limit: C means C whole cores. */
        char **cpus = NULL, **mems = NULL;
        if (placement_cgroup_lists(r->place, &cpus, &mems) != 0) {
            snprintf(err, errlen, "out of memory");
            free(rt);
            return NULL;
        }
        r->cg = cgroups_create_placed((unsigned)getpid(), cfg->n, cfg->memory_limit,
                                      cpus ? 0 : cfg->cpus_per_container, (const char *const *)cpus,
                                      (const char *const *)mems, err, errlen);
        placement_lists_free(cpus, mems, cfg->n);
        if (!r->cg) {
            free(rt);
            return NULL;
        }
        r->swap_limited = cgroups_swap_limited(r->cg);
    }
    r->shm = mmap(NULL, (size_t)cfg->n * r->lay.slot_size, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (r->shm == MAP_FAILED || pipe2(rt->ready, O_CLOEXEC) || pipe2(rt->release, O_CLOEXEC)) {
        snprintf(err, errlen, "cannot set up the run: %s", strerror(errno));
        if (r->shm == MAP_FAILED)
            r->shm = NULL;
        rt->base.ops = &runtime_cgroup_ops;
        runtime_free(&rt->base);
        return NULL;
    }
    fcntl(rt->ready[0], F_SETFL, O_NONBLOCK);
    *ready_rd = rt->ready[0];
    *release_wr = rt->release[1];
    r->ready_fd = rt->ready[1];
    r->release_fd = rt->release[0];
    return &rt->base;
}

static int cg_launch(struct runtime *base, unsigned i, struct worker_end *we, int close_fd,
                     const sigset_t *mask, char *err, size_t errlen) {
    struct rt_cgroup *rt = (struct rt_cgroup *)base;
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start worker %u of %u: %s", i, base->r->cfg->n,
                 strerror(errno));
        return -1;
    }
    if (pid == 0) {
        close(rt->ready[0]);
        close(rt->release[1]);
        if (close_fd >= 0)
            close(close_fd);
        sigprocmask(SIG_SETMASK, mask, NULL);
        worker_main(base->r, i);
    }
    we->pid = pid;
    we->oom_killed = -1;
    return 0;
}

static int cg_launched(struct runtime *base, char *err, size_t errlen) {
    (void)err, (void)errlen;
    struct rt_cgroup *rt = (struct rt_cgroup *)base;
    close(rt->ready[1]);
    close(rt->release[0]);
    rt->ready[1] = rt->release[0] = base->r->ready_fd = base->r->release_fd = -1;
    return 0;
}

static void cg_release(struct runtime *base) {
    struct rt_cgroup *rt = (struct rt_cgroup *)base;
    if (rt->release[1] >= 0)
        close(rt->release[1]);
    rt->release[1] = -1;
}

static int index_of(struct worker_end *we, unsigned n, pid_t pid) {
    for (unsigned i = 0; i < n; i++)
        if (we[i].pid == pid)
            return (int)i;
    return -1;
}

static void ended(struct runtime *base, struct worker_end *we, unsigned i, int status) {
    we[i].reaped = 1;
    we[i].status = status;
    we[i].oom_killed = base->r->cg ? cgroups_oom_killed(base->r->cg, i) : -1;
}

static unsigned cg_reap(struct runtime *base, struct worker_end *we, unsigned n) {
    int status;
    pid_t pid;
    unsigned k = 0;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int i = index_of(we, n, pid);
        if (i < 0 || we[i].reaped)
            continue;
        ended(base, we, (unsigned)i, status);
        k++;
    }
    return k;
}

static void cg_kill(struct runtime *base, struct worker_end *we, unsigned n) {
    (void)base;
    for (unsigned i = 0; i < n; i++)
        if (!we[i].reaped && we[i].pid > 0)
            kill(we[i].pid, SIGKILL);
}

static unsigned alive(const struct worker_end *we, unsigned n) {
    unsigned a = 0;
    for (unsigned i = 0; i < n; i++)
        a += !we[i].reaped;
    return a;
}

static void cg_wait_all(struct runtime *base, struct worker_end *we, unsigned n, int ms) {
    for (int t = 0; alive(we, n) && t < ms / 10; t++) {
        cg_reap(base, we, n);
        if (alive(we, n))
            usleep(10000);
    }
    if (!alive(we, n))
        return;
    cg_kill(base, we, n);
    while (alive(we, n)) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0)
            break;
        int i = index_of(we, n, pid);
        if (i >= 0 && !we[i].reaped)
            ended(base, we, (unsigned)i, status);
    }
}

static const char *cg_describe(const struct runtime *base) {
    return base->r->cg ? cgroups_describe(base->r->cg) : NULL;
}

static void cg_destroy(struct runtime *base) {
    struct rt_cgroup *rt = (struct rt_cgroup *)base;
    for (int k = 0; k < 2; k++) {
        if (rt->ready[k] >= 0)
            close(rt->ready[k]);
        if (rt->release[k] >= 0)
            close(rt->release[k]);
    }
    cgroups_destroy(base->r->cg);
    base->r->cg = NULL;
    if (base->r->shm)
        munmap(base->r->shm, (size_t)base->r->cfg->n * base->r->lay.slot_size);
    base->r->shm = NULL;
    free(rt);
}

const struct runtime_ops runtime_cgroup_ops = {
    .name = "cgroup",
    .create = cg_create,
    .launch = cg_launch,
    .launched = cg_launched,
    .release = cg_release,
    .reap = cg_reap,
    .kill = cg_kill,
    .wait_all = cg_wait_all,
    .describe = cg_describe,
    .destroy = cg_destroy,
};

/* ---- dispatch ---- */

struct runtime *runtime_new(struct run_ctx *r, int *ready_rd, int *release_wr, char *err,
                            size_t errlen) {
    const struct runtime_ops *ops =
        r->cfg->runtime == RUNTIME_DOCKER ? &runtime_docker_ops : &runtime_cgroup_ops;
    struct runtime *rt = ops->create(r, ready_rd, release_wr, err, errlen);
    if (rt) {
        rt->ops = ops;
        rt->r = r;
    }
    return rt;
}

int runtime_launch(struct runtime *rt, unsigned i, struct worker_end *we, int close_fd,
                   const sigset_t *mask, char *err, size_t errlen) {
    return rt->ops->launch(rt, i, we, close_fd, mask, err, errlen);
}

int runtime_launched(struct runtime *rt, char *err, size_t errlen) {
    return rt->ops->launched(rt, err, errlen);
}

json_t *runtime_launch_json(const struct runtime *rt) {
    return rt && rt->ops->launch_json ? rt->ops->launch_json(rt) : NULL;
}

void runtime_release(struct runtime *rt) {
    rt->ops->release(rt);
}

unsigned runtime_reap(struct runtime *rt, struct worker_end *we, unsigned n) {
    return rt->ops->reap(rt, we, n);
}

void runtime_kill(struct runtime *rt, struct worker_end *we, unsigned n) {
    rt->ops->kill(rt, we, n);
}

void runtime_wait_all(struct runtime *rt, struct worker_end *we, unsigned n, int ms) {
    rt->ops->wait_all(rt, we, n, ms);
}

const char *runtime_describe(const struct runtime *rt) {
    return rt ? rt->ops->describe(rt) : NULL;
}

const char *runtime_cgroup_parent(const struct runtime *rt) {
    return rt && rt->ops->cgroup_parent ? rt->ops->cgroup_parent(rt) : NULL;
}

void runtime_free(struct runtime *rt) {
    if (rt)
        rt->ops->destroy(rt);
}
