/* worker.c -- one worker ("container"): join its cgroup, open its workloads,
 * wait at the barrier, run its cycles, record every operation.
 *
 * Everything the measured loop needs is prepared before the barrier: the
 * schedule for all cycles, the workloads' connections and buffers. Inside the
 * loop a worker only calls run() and updates counters and histograms in its
 * shared slot, and appends one record to its log there (oplog.h): no
 * allocation, no printing, no files. Paced (--arrival) the same loop runs
 * on --agent-concurrency threads, each with workload states of its own,
 * every operation at an instant drawn before the barrier (paced.c); with
 * --think-time the closed loop pauses a seeded time after each completion. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "../common/cpulist.h"
#include "../common/pacing.h"
#include "../common/util.h"
#include "../containers/cgroup.h"
#include "../containers/cgroup_acct.h"
#include "../result/run.h"
#include "oprecord.h"
#include "paced.h"
#include "phasebar.h"
#include "schedule.h"

static void fail_ready(const struct run_ctx *r, struct worker_slot *s, int code) {
    atomic_store(&s->phase, PH_FAILED);
    char b = 'F';
    if (write(r->ready_fd, &b, 1) < 0) { /* the coordinator is gone: nothing to tell */
    }
    _exit(code);
}

void worker_main(const struct run_ctx *r, unsigned id) {
    struct worker_slot *s = run_slot(r, id);
    const struct config *cfg = r->cfg;
    /* Its schedule, seeds and data are those of its global id, so shards of a
     * run over several hosts never read the same objects. */
    unsigned gid = r->id_base + id;

    /* Into the cgroup first: the limit holds from the first allocation on. */
    if (r->cg && cgroups_attach_self(r->cg, id) != 0) {
        snprintf(s->error, sizeof s->error, "worker %u cannot join its cgroup: %s", id,
                 strerror(errno));
        fail_ready(r, s, 3);
    }
    if (r->acct && cgacct_attach_self(r->acct, id) != 0) {
        snprintf(s->error, sizeof s->error, "worker %u cannot join its accounting cgroup: %s", id,
                 strerror(errno));
        fail_ready(r, s, 3);
    }
    /* Where it may run now: the kernel's word, for the placement's check. */
    proc_status_allowed("/proc/self/status", s->cpus_seen, sizeof s->cpus_seen, s->mems_seen,
                        sizeof s->mems_seen);
    /* Die with the coordinator; leave Ctrl-C to it (it stops us in order). A
     * worker in a container has no coordinator parent (coord_pid 0): the
     * slot's go flag below tells a release from the coordinator's death. */
    if (r->coord_pid) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != r->coord_pid)
            _exit(6); /* it died before the line above */
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGTERM, SIG_DFL);

    for (unsigned h = 0; h < r->lay.nhist; h++)
        hist_init(slot_hist(r, s, h));

    unsigned per_cycle = r->lay.ops_per_cycle;
    uint32_t *order = malloc(sizeof *order * per_cycle * cfg->cycles);
    void *st[RUN_MAX_WL] = {0};
    if (!order) {
        snprintf(s->error, sizeof s->error, "worker %u: out of memory for its schedule", id);
        fail_ready(r, s, 3);
    }
    unsigned ops[RUN_MAX_WL];
    for (unsigned w = 0; w < r->lay.nwl; w++)
        ops[w] = r->lay.wl[w]->ops_per_cycle;
    for (unsigned c = 0; c < cfg->cycles; c++)
        schedule_cycle(order + (size_t)c * per_cycle, ops, r->lay.nwl, cfg->schedule, cfg->seed,
                       gid, c);

    for (unsigned w = 0; w < r->lay.nwl; w++) {
        char err[WL_ERRLEN] = "";
        st[w] = r->lay.wl[w]->open(cfg, gid, err, sizeof err);
        if (!st[w]) {
            snprintf(s->error, sizeof s->error, "%s: %s", r->lay.wl[w]->name, err);
            fail_ready(r, s, 3);
        }
    }

    /* Paced agents: the instants, and the other threads' workload states
     * (thread 0 uses st), all before the barrier. */
    size_t total = (size_t)per_cycle * cfg->cycles;
    struct rng prng;
    pacing_seed(&prng, cfg->seed, gid);
    int64_t *due = NULL;
    void *(*pst)[RUN_MAX_WL] = NULL;
    unsigned nthreads = 1;
    if (cfg->arrival != ARRIVAL_CLOSED) {
        nthreads = cfg->agent_concurrency < total ? cfg->agent_concurrency : (unsigned)total;
        if (!nthreads)
            nthreads = 1;
        due = malloc(sizeof *due * (total ? total : 1));
        pst = calloc(nthreads, sizeof *pst);
        if (!due || !pst) {
            snprintf(s->error, sizeof s->error, "worker %u: out of memory for its pacer", id);
            fail_ready(r, s, 3);
        }
        arrival_offsets(cfg->arrival, cfg->agent_rate, &prng, due, total);
        memcpy(pst[0], st, sizeof st);
        for (unsigned i = 1; i < nthreads; i++)
            for (unsigned w = 0; w < r->lay.nwl; w++) {
                char err[WL_ERRLEN] = "";
                pst[i][w] = r->lay.wl[w]->open(cfg, gid, err, sizeof err);
                if (!pst[i][w]) {
                    snprintf(s->error, sizeof s->error, "%s (agent thread %u): %s",
                             r->lay.wl[w]->name, i, err);
                    fail_ready(r, s, 3);
                }
            }
    }

    /* --warmup-cycles: the same operations as the measured cycles (warm-up
     * cycle w repeats cycle w mod --cycles: the same objects, queries and
     * searches), before the ready byte, so the measured part still starts
     * at the common release. Nothing of it reaches the figures; warmup_done
     * tells the coordinator it is making progress. An error that ends the
     * worker fails it here, like a failed open(). */
    if (cfg->warmup_cycles) {
        atomic_store(&s->phase, PH_WARMUP);
        int64_t t0 = now_ns();
        struct op_result wres;
        for (unsigned wc = 0; wc < cfg->warmup_cycles; wc++) {
            unsigned cycle = wc % cfg->cycles;
            const uint32_t *o = order + (size_t)cycle * per_cycle;
            for (unsigned k = 0; k < per_cycle; k++) {
                unsigned w = SCHED_WL(o[k]);
                op_reset(&wres);
                if (r->lay.wl[w]->run(st[w], cycle, SCHED_OP(o[k]), &wres) != 0) {
                    s->warmup_errors++;
                    if (!s->warmup_error[0])
                        snprintf(s->warmup_error, sizeof s->warmup_error, "%s: %s",
                                 r->lay.wl[w]->name, wres.err[0] ? wres.err : "operation failed");
                    if (wres.fatal) {
                        snprintf(s->error, sizeof s->error, "warm-up: %s", s->warmup_error);
                        fail_ready(r, s, 3);
                    }
                }
                atomic_fetch_add_explicit(&s->warmup_done, 1, memory_order_relaxed);
            }
        }
        s->warmup_ns = now_ns() - t0;
    }

    atomic_store(&s->phase, PH_READY);
    char b = 'R';
    if (write(r->ready_fd, &b, 1) != 1)
        _exit(3);
    /* The barrier: the coordinator closes the write end to release everyone. */
    ssize_t n;
    do
        n = read(r->release_fd, &b, 1);
    while (n < 0 && errno == EINTR);
    if (n != 0 || !atomic_load(&s->go))
        _exit(4); /* anything but EOF after the go flag means: abort */
    atomic_store(&s->phase, PH_RUNNING);

    int64_t t0 = now_ns();
    if (due) {
        struct paced_run pr = {r, s, gid, order, due, total, nthreads, pst};
        if (paced_run(&pr, t0) < 0)
            s->fatal = 1;
    } else {
        struct op_result res;
        unsigned prev_w = 0, prev_cycle = 0;
        uint32_t barrier = 0;
        /* --think-time: each operation is due when the pause after the last
         * one ends (the first at the release); a closed loop's, when sent. */
        int64_t next_due = t0;
        for (size_t k = 0; k < total; k++) {
            unsigned cycle = (unsigned)(k / per_cycle);
            uint32_t e = order[k];
            unsigned w = SCHED_WL(e), op = SCHED_OP(e);
            /* --phase-barrier: a new phase starts when every worker ended the last. */
            if (cfg->phase_barrier && k && (w != prev_w || cycle != prev_cycle) &&
                phasebar_wait(r, s, ++barrier) != 0)
                break;
            prev_w = w, prev_cycle = cycle;
            op_reset(&res);
            if (cfg->think.kind != THINK_NONE) {
                struct timespec ts = {next_due / 1000000000, next_due % 1000000000};
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
                }
            }
            struct op_times tm = {0, now_ns(), 0};
            int rc = r->lay.wl[w]->run(st[w], cycle, op, &res);
            tm.done = now_ns();
            tm.sched = cfg->think.kind != THINK_NONE ? next_due : tm.sent;
            op_record(r, s, gid, k, cycle, w, op, &tm, rc, &res, 0);
            if (rc != 0 && res.fatal) {
                s->fatal = 1;
                break;
            }
            if (cfg->think.kind != THINK_NONE)
                next_due = tm.done + think_draw(&cfg->think, &prng);
        }
    }

    for (unsigned w = 0; w < r->lay.nwl; w++)
        r->lay.wl[w]->close(st[w]);
    for (unsigned i = 1; pst && i < nthreads; i++)
        for (unsigned w = 0; w < r->lay.nwl; w++)
            r->lay.wl[w]->close(pst[i][w]);
    free(pst);
    free(due);
    free(order);
    atomic_store(&s->phase, s->fatal ? PH_FAILED : PH_DONE);
    _exit(s->fatal ? 5 : 0);
}
