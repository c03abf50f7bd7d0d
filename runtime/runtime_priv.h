/* runtime_priv.h -- the table each runtime fills (runtime.c dispatches). */
#ifndef AOPS_RUNTIME_PRIV_H
#define AOPS_RUNTIME_PRIV_H

#include "runtime.h"

struct runtime_ops {
    const char *name;
    struct runtime *(*create)(struct run_ctx *r, int *ready_rd, int *release_wr, char *err,
                              size_t errlen);
    int (*launch)(struct runtime *rt, unsigned i, struct worker_end *we, int close_fd,
                  const sigset_t *mask, char *err, size_t errlen);
    int (*launched)(struct runtime *rt, char *err, size_t errlen);
    json_t *(*launch_json)(const struct runtime *rt); /* optional */
    void (*release)(struct runtime *rt);
    unsigned (*reap)(struct runtime *rt, struct worker_end *we, unsigned n);
    void (*kill)(struct runtime *rt, struct worker_end *we, unsigned n);
    void (*wait_all)(struct runtime *rt, struct worker_end *we, unsigned n, int ms);
    const char *(*describe)(const struct runtime *rt);
    const char *(*cgroup_parent)(const struct runtime *rt); /* optional */
    void (*destroy)(struct runtime *rt);
};

/* Every runtime's struct starts with this. */
struct runtime {
    const struct runtime_ops *ops;
    struct run_ctx *r;
};

extern const struct runtime_ops runtime_cgroup_ops, runtime_docker_ops;

#endif
