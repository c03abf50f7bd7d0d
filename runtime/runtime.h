/* runtime.h -- what a worker runs in: a forked process in a cgroup of its
 * own (--runtime cgroup, the default: light and precise), or a container of
 * the harness image made through the Docker Engine API (--runtime docker,
 * as the published benchmark ran its agents).
 *
 * Both keep the same contract with the coordinator: the per-worker slots in
 * shared memory (an anonymous mapping for forked workers; a file on tmpfs,
 * bind-mounted into every container, so figures outlive a killed worker
 * either way), a ready channel each worker writes one byte to, a release
 * channel every worker blocks reading until the coordinator closes it (a
 * pipe, or a FIFO in that same directory), and for each worker an end: exit
 * status or signal, and whether its memory limit OOM-killed it. Every
 * worker, cgroup and container of a run is removed by runtime_free(), after
 * Ctrl-C and crashes too, and stale ones of a coordinator that is gone are
 * removed by the next run. */
#ifndef AOPS_RUNTIME_H
#define AOPS_RUNTIME_H

#include <jansson.h>
#include <signal.h>

#include "../result/run.h"

struct runtime;

/* Make what the run's workers need: the slots (r->shm), the channels
 * (r->ready_fd / r->release_fd for the workers' side, *ready_rd and
 * *release_wr for the coordinator's), cgroups or the engine connection.
 * Removes what a dead coordinator left behind first. NULL with err (one
 * line); nothing is left behind then. */
struct runtime *runtime_new(struct run_ctx *r, int *ready_rd, int *release_wr, char *err,
                            size_t errlen);

/* Start worker i. The forked child closes close_fd and restores mask before
 * it becomes the worker. 0, or -1 with err. */
int runtime_launch(struct runtime *rt, unsigned i, struct worker_end *we, int close_fd,
                   const sigset_t *mask, char *err, size_t errlen);

/* After the last launch: drop the workers' ends of the channels; the docker
 * runtime creates and starts its containers here, over several engine
 * connections at once. 0, or -1 with err (the first launch that failed;
 * workers that never ran are marked ended). */
int runtime_launched(struct runtime *rt, char *err, size_t errlen);

/* How the workers were started ({containers, connections, seconds,
 * create_ms, start_ms}), or NULL where the runtime has nothing to say (the
 * cgroup runtime forks). Caller decrefs. */
json_t *runtime_launch_json(const struct runtime *rt);

/* Release the barrier: close the release channel's write end, so every
 * worker blocked on it wakes with EOF at once. */
void runtime_release(struct runtime *rt);

/* Notice workers that ended since the last call (non-blocking; the docker
 * runtime asks the engine at most every 250 ms): sets we[i].reaped, status,
 * oom_killed. Returns how many ended now. */
unsigned runtime_reap(struct runtime *rt, struct worker_end *we, unsigned n);

/* Kill every worker not yet reaped. */
void runtime_kill(struct runtime *rt, struct worker_end *we, unsigned n);

/* Wait until every worker ended, at most ms; then kill the rest and wait
 * for them (bounded), marking any that never answered. */
void runtime_wait_all(struct runtime *rt, struct worker_end *we, unsigned n, int ms);

/* "cgroup v1 memory,cpu at ...", "docker 20.10.24 image aops-harness:local"; NULL none. */
const char *runtime_describe(const struct runtime *rt);

/* The cgroup (a path in its hierarchy) all of the run's workers are below,
 * when the runtime made one for them (docker: the containers' parent); NULL
 * otherwise. */
const char *runtime_cgroup_parent(const struct runtime *rt);

/* Remove every cgroup / container of the run, unmap the slots. */
void runtime_free(struct runtime *rt);

/* Worker id of n inside a container (the docker runtime's side of its run
 * directory dir: the slots file and the FIFOs), with cfg as the command
 * line `harness worker` gave it (coordinator/worker_cmd.c: the options are
 * read a layer above). Never returns on success; 2 or 3 with one line on
 * stderr. */
int worker_container_run(const char *dir, unsigned id, unsigned n, struct config *cfg);

#endif
