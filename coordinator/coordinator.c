/* coordinator.c -- `harness run` (`harness prepare` is prepare.c): launch N workers,
 * release them together, watch them, and write what they measured.
 *
 * One process and one event loop, no thread per worker: a signalfd delivers
 * Ctrl-C, SIGTERM and SIGCHLD; poll() wakes for those and for the telemetry
 * sampler and the progress line. Workers signal readiness over a pipe and
 * block on a second pipe whose write end the coordinator closes to release
 * them all at once (one syscall, every reader wakes with EOF). Whatever
 * happens -- a worker OOM-killed or crashed, a stall, Ctrl-C -- the loop ends
 * with every worker reaped, the result written (valid or not), and the
 * cgroups removed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/json.h"
#include "../common/util.h"
#include "../common/walltime.h"
#include "../containers/cgroup_acct.h"
#include "../metrics/metrics.h"
#include "../placement/placement_run.h"
#include "../placement/server_pin.h"
#include "../placement/shard.h"
#include "../result/integrity.h"
#include "../result/opsrate.h"
#include "../result/provenance.h"
#include "../result/repeat.h"
#include "../result/result.h"
#include "../result/results.h"
#include "../result/run.h"
#include "../result/runlog.h"
#include "../result/slo.h"
#include "../result/summary.h"
#include "../result/throughput.h"
#include "../runtime/phasebar.h"
#include "../runtime/runtime.h"
#include "../telemetry/attrib.h"
#include "cmdline.h"
#include "commands.h"
#include "policy.h"

#define EXIT_INVALID 1
#define EXIT_USAGE 2
#define EXIT_SIGNAL 130

/* Resolve and create the run directory; exit-2 class errors. The default,
 * results/<timestamp>, is always a new directory (-2, -3, ... after the
 * timestamp when a run started in the same second has it); a --out that
 * holds a result already is refused unless --force. */
static int make_out_dir(struct config *cfg, char *err, size_t errlen) {
    int fresh = !cfg->out[0];
    char ts[64];
    if (fresh) {
        time_t t = time(NULL);
        strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", localtime(&t));
        snprintf(cfg->out, sizeof cfg->out, "%s/results/%s", cfg->harness_dir, ts);
    }
    /* mkdir -p */
    char p[sizeof cfg->out];
    snprintf(p, sizeof p, "%s", cfg->out);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    int rc = mkdir(p, 0755);
    for (unsigned k = 2; fresh && rc != 0 && errno == EEXIST && k < 1000; k++) {
        snprintf(p, sizeof p, "%s/results/%s-%u", cfg->harness_dir, ts, k);
        rc = mkdir(p, 0755);
    }
    int mkerr = rc ? errno : 0;
    snprintf(cfg->out, sizeof cfg->out, "%s", p);
    static const char *const kept[] = {"result.json", "sweep.json"};
    for (int k = 0; !fresh && !cfg->force && k < 2; k++) {
        char f[sizeof cfg->out + 16];
        snprintf(f, sizeof f, "%s/%s", p, kept[k]);
        if (access(f, F_OK) == 0) {
            snprintf(err, errlen,
                     "--out %s holds a result already (%s): choose another directory, or "
                     "--force to replace it",
                     cfg->out, kept[k]);
            return -1;
        }
    }
    if (rc != 0 && (fresh || mkerr != EEXIST)) {
        snprintf(err, errlen, "--out %s: cannot create the run directory: %s", cfg->out,
                 strerror(mkerr));
        return -1;
    }
    if (access(p, W_OK) != 0) {
        snprintf(err, errlen, "--out %s: the run directory is not writable: %s", cfg->out,
                 strerror(errno));
        return -1;
    }
    return 0;
}

static void raise_nofile(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* The signals that stop a run: Ctrl-C, SIGTERM, SIGHUP. */
static void stop_signals(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

/* One point's state, from setup to teardown. */
struct coord {
    struct run_ctx r;
    struct worker_end *we;
    unsigned forked, alive;
    int sfd;                  /* signalfd: SIGINT, SIGTERM, SIGHUP, SIGCHLD */
    sigset_t oldmask;         /* restored at the end */
    int ready_rd, release_wr; /* the coordinator's ends of the channels (the runtime's) */
    int interrupted;          /* signal number */
    int stopping;             /* workers were told to stop */
    int stalled;
    int lingered; /* finished workers killed for not exiting */
    int released;
    int code; /* exit code so far */
    int64_t t_launch, t0;
    json_t *reasons, *warnings, *servers;
    json_t *server_info; /* provenance.servers: each workload's server and its settings */
    struct telemetry *tel;
    struct attrib *at;               /* where the time goes */
    struct server_check *sc;         /* the servers' own counts */
    struct runtime *rt;              /* forked workers in cgroups, or containers */
    struct shard_state sh;           /* --shard, --start-at: the common start (shard.h) */
    struct opsrate rate;             /* completions per wall-clock second */
    double t0_wall;                  /* the release by the wall clock */
    const struct result_exports *ex; /* --csv: formats beside result.json */
    json_t *cache;                   /* --cache cold: what was restarted and dropped */
    uint32_t bar_next;               /* --phase-barrier: the next barrier to release */
    int ready_eof;                   /* the ready channel has no writer left */
    struct metrics *mx;              /* --metrics-listen; NULL when off */
    int verdict;                     /* for /metrics: -1 until written, then 1 valid, 0 not */
    char run_id[RUNLOG_ID_LEN];      /* names the result and its per-operation log */
    json_t *prov, *verification;     /* where it came from; how answers are checked */
    struct placement_run place;      /* --placement, --server-cpus */
    struct server_pin *pin;          /* the servers pinned to --server-cpus */
};

static void kill_all(struct coord *c) {
    runtime_kill(c->rt, c->we, c->forked);
    c->stopping = 1;
}

static void reap(struct coord *c) {
    c->alive -= runtime_reap(c->rt, c->we, c->forked);
}

/* Answer any /metrics scrape waiting (metrics.h): from every wake of the loop. */
static void serve_metrics(struct coord *c) {
    struct metrics_run m = {
        &c->r, c->we, c->forked, c->released, c->t0, c->released && !c->alive, c->verdict, c->tel};
    metrics_serve(c->mx, &m);
}

/* Drain the signalfd: returns after handling everything pending. */
static void handle_signals(struct coord *c) {
    struct signalfd_siginfo si;
    while (read(c->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD)
            reap(c);
        else if (!c->interrupted) {
            c->interrupted = (int)si.ssi_signo;
            kill_all(c);
        }
    }
    reap(c);
    serve_metrics(c);
}

static uint64_t total_done(struct coord *c) {
    uint64_t d = 0;
    for (unsigned i = 0; i < c->forked; i++)
        d += atomic_load_explicit(&run_slot(&c->r, i)->done, memory_order_relaxed);
    return d;
}

static uint64_t total_warmup(struct coord *c) {
    uint64_t d = 0;
    for (unsigned i = 0; i < c->forked; i++)
        d += atomic_load_explicit(&run_slot(&c->r, i)->warmup_done, memory_order_relaxed);
    return d;
}

static void progress(struct coord *c, int64_t t0, uint64_t expected, int final) {
    if (c->r.cfg->quiet || !isatty(STDOUT_FILENO))
        return;
    double el = (double)(now_ns() - t0) / 1e9;
    uint64_t d = total_done(c);
    fprintf(stdout, "\r  %llu / %llu operations  %.1f s  %.1f AOPS so far   ",
            (unsigned long long)d, (unsigned long long)expected, el, el > 0 ? d / el : 0.0);
    if (final)
        fputc('\n', stdout);
    fflush(stdout);
}

/* Wait for every worker to be reaped, at most `ms` more, then kill the rest.
 * A stop signal only shortens the wait (after the first: the workers were
 * told to stop then); the signals stay blocked until teardown is done. */
static void reap_all(struct coord *c, int ms) {
    struct signalfd_siginfo si;
    for (int64_t until = now_ns() + (int64_t)ms * 1000000; c->alive > 0 && now_ns() < until;) {
        struct pollfd p = {c->sfd, POLLIN, 0};
        if (poll(&p, 1, 50) > 0 && read(c->sfd, &si, sizeof si) == (ssize_t)sizeof si &&
            si.ssi_signo != SIGCHLD && (c->interrupted || !(c->interrupted = (int)si.ssi_signo)))
            break;
        reap(c);
    }
    runtime_wait_all(c->rt, c->we, c->forked, 0);
    c->alive = 0;
}

/* The error of the first worker that failed before the start. Only a slot
 * whose phase says PH_FAILED: a worker sets it (seq_cst) after writing its
 * error, so the text is whole; another worker may still be writing its own
 * (all of them fail an open that cannot succeed), and reading that one gave
 * "harness: sleep: " in a loaded test run. */
static const char *first_worker_error(struct coord *c, char *buf, size_t len) {
    for (unsigned i = 0; i < c->forked; i++)
        if (atomic_load(&run_slot(&c->r, i)->phase) == PH_FAILED && run_slot(&c->r, i)->error[0]) {
            snprintf(buf, len, "%.*s", SLOT_TEXT(run_slot(&c->r, i)->error));
            return buf;
        }
    return NULL;
}

/* Record a reason the run is invalid, and say it on stderr. */
static void invalid(struct coord *c, const char *msg) {
    json_array_append_new(c->reasons, json_string(msg));
    fprintf(stderr, "harness: %s\n", msg);
    c->code = EXIT_INVALID;
}

/* Step 1: cgroups, the shared slots, the pipes, the signals, the servers'
 * versions and the telemetry sampler. Returns 0, or an exit code with
 * everything made so far undone. */
static int coord_setup(struct coord *c, const struct config *cfg) {
    char err[1024];
    c->r.cfg = cfg;
    c->r.coord_pid = getpid();
    c->r.id_base = cfg->shard * cfg->n; /* --shard I/N: global worker ids */
    c->sfd = c->ready_rd = c->release_wr = c->r.ready_fd = c->r.release_fd = -1;
    if (layout_build(cfg, &c->r.lay, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_USAGE;
    }
    c->verdict = -1;
    if (cfg->metrics_listen[0] && !(c->mx = metrics_open(cfg, err, sizeof err))) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_USAGE;
    }
    c->reasons = json_array();
    c->warnings = json_array();
    c->servers = json_object();
    /* --cache cold: servers restarted before anything reads their state. */
    c->cache = policy_cold_servers(cfg, c->warnings);
    c->server_info = json_object();
    c->we = calloc(cfg->n, sizeof *c->we);
    if (!c->we) {
        fprintf(stderr, "harness: out of memory for %u workers\n", cfg->n);
        return EXIT_INVALID;
    }
    /* Each worker's cpuset, for the runtime to apply (checked in run_cmd). */
    if (placement_run_setup(&c->place, cfg, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_USAGE;
    }
    c->r.place = c->place.topo ? &c->place.plan : NULL;
    /* Cgroups or the engine, the shared slots, the ready/release channels. */
    c->rt = runtime_new(&c->r, &c->ready_rd, &c->release_wr, err, sizeof err);
    if (!c->rt) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_INVALID;
    }
    /* Where the workers' CPU time is read (attribution), made before they start. */
    char acct_why[512] = "--runtime docker: the engine's cgroup driver is not cgroupfs (no common "
                         "parent for the containers)";
    if (cfg->runtime == RUNTIME_CGROUP)
        c->r.acct = cgacct_create(c->r.cg, (unsigned)getpid(), cfg->n, acct_why, sizeof acct_why);
    else if (runtime_cgroup_parent(c->rt))
        c->r.acct = cgacct_existing(runtime_cgroup_parent(c->rt), "the run's containers", acct_why,
                                    sizeof acct_why);

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGCHLD);
    sigprocmask(SIG_BLOCK, &mask, &c->oldmask);
    c->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (c->sfd < 0) { /* without it Ctrl-C would never be seen */
        fprintf(stderr, "harness: cannot watch for signals (signalfd): %s\n", strerror(errno));
        sigprocmask(SIG_SETMASK, &c->oldmask, NULL);
        return EXIT_INVALID;
    }

    /* What serves each workload, asked once here so no worker pays for it. */
    for (unsigned w = 0; w < c->r.lay.nwl; w++) {
        const struct workload *wl = c->r.lay.wl[w];
        char v[256];
        if (wl->backend && wl->backend(cfg, v, sizeof v) == 0) {
            json_object_set_new(c->servers, wl->name, json_string(v));
        } else if (wl->backend) { /* null, and why beside it: v holds the error */
            char key[96];
            snprintf(key, sizeof key, "%s_unavailable", wl->name);
            json_object_set_new(c->servers, wl->name, json_null());
            json_object_set_new(c->servers, key, json_string(v));
        }
        if (wl->server_info)
            json_object_set_new(c->server_info, wl->name, wl->server_info(cfg));
    }
    runlog_new_id(c->run_id);
    c->prov = provenance_collect(cfg, &c->r.lay, &c->verification, c->warnings);
    c->tel = telemetry_new(cfg);
    telemetry_say(c->tel, stderr); /* a BMC that cannot be read: said now, not in the run */
    throughput_attach(c->tel, &c->r);
    struct attrib_in ai = {.cfg = cfg, .acct = c->r.acct, .acct_why = acct_why};
    c->at = attrib_new(&ai);
    c->sc = server_check_new(cfg, c->r.lay.wl, c->r.lay.nwl);
    if (cfg->server_cpus[0] && !(c->pin = server_pin_apply(cfg, &c->r.lay, err, sizeof err))) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_INVALID;
    }
    if (cfg->server_cpus[0] && cfg->placement == PLACE_NONE)
        json_array_append_new(c->warnings,
                              json_string("--server-cpus with --placement none: the servers are "
                                          "pinned, but the workers may run on their CPUs too "
                                          "(a placement keeps them apart)"));
    shard_init(&c->sh, cfg);
    if (cfg->shards) { /* before the workers start, on a quiet machine */
        shard_measure_clock(&c->sh, cfg);
        if (!c->sh.clock_ok)
            fprintf(stderr, "harness: warning: clock offset not measured: %s\n", c->sh.clock_err);
    }
    return 0;
}

/* Step 2: start the workers (forked, or containers). Each joins its cgroup,
 * opens its workloads and reports ready (worker.c). */
static void coord_launch(struct coord *c) {
    const struct config *cfg = c->r.cfg;
    fflush(NULL);
    c->t_launch = now_ns();
    /* Workers get the mask from before the run, without the stop signals a
     * --repeat blocks between its runs. */
    sigset_t mask = c->oldmask;
    sigdelset(&mask, SIGINT);
    sigdelset(&mask, SIGTERM);
    sigdelset(&mask, SIGHUP);
    for (unsigned i = 0; i < cfg->n; i++) {
        char err[1024];
        if (runtime_launch(c->rt, i, &c->we[i], c->sfd, &mask, err, sizeof err) != 0) {
            invalid(c, err);
            break;
        }
        c->forked++;
        c->alive++;
        /* A start of many containers takes a while: see Ctrl-C and early deaths. */
        handle_signals(c);
        if (c->interrupted)
            break;
    }
    /* The workers hold their ends now; the docker runtime's containers are
     * created and started here, several at a time. */
    char err[1024];
    if (runtime_launched(c->rt, err, sizeof err) != 0) {
        if (!c->code)
            invalid(c, err);
        c->alive = 0; /* those that never ran are marked ended */
        for (unsigned i = 0; i < c->forked; i++)
            c->alive += !c->we[i].reaped;
    }
    /* After the launches: the workers' work is not the coordinator's. */
    attrib_open_coordinator(c->at);
}

/* A worker that died before it was ready: why, for the reasons. */
static int check_early_deaths(struct coord *c) {
    for (unsigned i = 0; i < c->forked; i++) {
        if (!c->we[i].reaped || atomic_load(&run_slot(&c->r, i)->phase) == PH_READY)
            continue;
        struct worker_slot *s = run_slot(&c->r, i);
        if (!s->error[0])
            snprintf(s->error, sizeof s->error, "worker %u died before the start: %s%s", i,
                     WIFSIGNALED(c->we[i].status) ? strsignal(WTERMSIG(c->we[i].status)) : "exited",
                     c->we[i].oom_killed == 1 ? " (out of memory: raise --memory-limit)" : "");
        return 1;
    }
    return 0;
}

/* Step 2b, --rendezvous: wait until every shard's DNS name resolves (the
 * peers are up), at most until --start-at, while the workers get ready. */
static void coord_rendezvous(struct coord *c) {
    const struct config *cfg = c->r.cfg;
    unsigned peers = cfg->peers ? cfg->peers : cfg->shards;
    if (!cfg->rendezvous[0] || c->code)
        return;
    unsigned char *ok = calloc(peers, 1);
    double t_begin = wall_now();
    double deadline = cfg->start_at > 0 ? cfg->start_at : t_begin + cfg->stall_timeout;
    char first[512], err[1024];
    while (ok) {
        unsigned left = shard_resolve_round(cfg, ok, first, sizeof first);
        if (!left) {
            c->sh.rendezvous_s = wall_now() - t_begin;
            break;
        }
        if (wall_now() >= deadline) {
            snprintf(err, sizeof err,
                     "rendezvous: %u of %u peers did not resolve by %s (%s, ...): a shard is "
                     "not up",
                     left, peers, cfg->start_at > 0 ? "--start-at" : "--stall-timeout", first);
            invalid(c, err);
            break;
        }
        struct pollfd p = {c->sfd, POLLIN, 0};
        poll(&p, 1, 500);
        handle_signals(c);
        if (c->interrupted)
            break;
    }
    free(ok);
}

/* --start-at: every worker is ready; hold the barrier until T by the wall
 * clock. A shard ready after T does not run at all: its share would start
 * late and the fleet's figures would mean nothing. */
static void coord_wait_start(struct coord *c) {
    const struct config *cfg = c->r.cfg;
    char err[512], when[64];
    double now = wall_now();
    wall_format(cfg->start_at, when, sizeof when);
    if (now > cfg->start_at) {
        c->sh.missed_by = now - cfg->start_at;
        snprintf(err, sizeof err,
                 "missed start by %.3f s: the workers were ready after --start-at %s",
                 c->sh.missed_by, when);
        invalid(c, err);
        return;
    }
    if (!cfg->quiet)
        fprintf(stderr, "harness: %u workers ready; released at %s (in %.1f s)\n", cfg->n, when,
                cfg->start_at - now);
    while (!c->interrupted) {
        double left = cfg->start_at - wall_now();
        if (left <= 0.005)
            break;
        struct pollfd p = {c->sfd, POLLIN, 0};
        poll(&p, 1, left > 0.2 ? 200 : (int)(left * 1000) - 4);
        handle_signals(c);
    }
    if (!c->interrupted)
        wall_sleep_until(cfg->start_at); /* the last milliseconds exactly */
}

/* Step 3: wait at the barrier until every worker is ready (or one failed,
 * or a signal, or nobody got ready for --stall-timeout), then release them
 * all at once by closing the pipe they block on. */
static void coord_barrier(struct coord *c) {
    const struct config *cfg = c->r.cfg;
    unsigned nready = 0;
    int64_t last_ready = now_ns();
    uint64_t warm = 0;
    int failed = 0;
    if (cfg->warmup_cycles && !cfg->quiet)
        fprintf(stderr, "harness: %u workers warming up (%u cycle(s) each, not counted)\n", cfg->n,
                cfg->warmup_cycles);
    while (c->code == 0 && !failed && nready < cfg->n) {
        struct pollfd p[2] = {{c->sfd, POLLIN, 0}, {c->ready_rd, POLLIN, 0}};
        poll(p, 2, 200);
        handle_signals(c);
        char buf[256];
        ssize_t k;
        while ((k = read(c->ready_rd, buf, sizeof buf)) > 0)
            for (ssize_t j = 0; j < k; j++) {
                if (buf[j] == 'R') {
                    nready++;
                    last_ready = now_ns();
                } else
                    failed = 1;
            }
        if (c->interrupted)
            break;
        /* A long warm-up is progress, not a stall. */
        uint64_t wd = total_warmup(c);
        if (wd != warm) {
            warm = wd;
            last_ready = now_ns();
        }
        if (!failed && c->alive < c->forked)
            failed = check_early_deaths(c);
        if (!failed && (double)(now_ns() - last_ready) / 1e9 > cfg->stall_timeout) {
            char err[256];
            snprintf(err, sizeof err, "%u of %u workers not ready after %.0f s (--stall-timeout)",
                     cfg->n - nready, cfg->n, cfg->stall_timeout);
            invalid(c, err);
        }
    }
    if (!failed && c->code == 0 && !c->interrupted) {
        c->sh.ready_at = wall_now();
        char err[512];
        if (policy_drop_caches(cfg, c->cache, err, sizeof err) != 0)
            invalid(c, err);
        /* Every worker has connected and checked its data; read before any
         * wait for --start-at, so the release itself is not delayed. */
        server_check_before(c->sc);
        if (cfg->start_at > 0 && !c->code)
            coord_wait_start(c);
    }
    if (failed) {
        char buf[sizeof run_slot(&c->r, 0)->error + 1];
        const char *e = first_worker_error(c, buf, sizeof buf);
        invalid(c, e ? e : "a worker failed before the start");
    }
    if (c->code || c->interrupted) {
        kill_all(c);
        runtime_release(c->rt); /* EOF without the go flag: nobody runs */
    } else {
        if (!cfg->quiet)
            fprintf(stderr, "harness: %u workers ready in %.2f s; released\n", cfg->n,
                    (double)(now_ns() - c->t_launch) / 1e9);
        for (unsigned i = 0; i < cfg->n; i++)
            atomic_store(&run_slot(&c->r, i)->go, 1);
        /* The baselines first (every CPU's and component's counters can take
         * a while), then the clock, then the release: AOPS times the run,
         * not the reading. The samples count from the release. */
        telemetry_begin(c->tel, now_ns());
        attrib_begin(c->at, now_ns());
        c->t0 = now_ns();
        c->t0_wall = wall_now();
        telemetry_rebase(c->tel, c->t0);
        attrib_rebase(c->at, c->t0);
        opsrate_begin(&c->rate, c->t0, c->t0_wall);
        runtime_release(c->rt); /* the barrier */
        c->released = 1;
    }
}

/* Step 4: the run, until every worker is reaped: telemetry samples, the
 * progress line, stall detection. */
static void coord_loop(struct coord *c) {
    const struct config *cfg = c->r.cfg;
    int64_t t0 = c->t0;
    uint64_t expected = (uint64_t)cfg->n * cfg->cycles * c->r.lay.ops_per_cycle;
    int64_t interval = (int64_t)(cfg->sample_interval * 1e9);
    int64_t next_sample = t0 + interval, next_tick = t0, last_sample = t0;
    uint64_t last_done = 0;
    int64_t last_change = t0;
    while (c->released && c->alive > 0) {
        int64_t now = now_ns();
        int64_t due = next_sample < next_tick ? next_sample : next_tick;
        if (opsrate_due(&c->rate) < due)
            due = opsrate_due(&c->rate);
        int ms = due > now ? (int)((due - now) / 1000000) + 1 : 0;
        struct pollfd p[2 + METRICS_MAX_FDS] = {{c->sfd, POLLIN, 0}};
        nfds_t np = 1;
        if (cfg->phase_barrier && !c->ready_eof)
            p[np++] = (struct pollfd){c->ready_rd, POLLIN, 0};
        np += (nfds_t)metrics_pollfds(c->mx, p + np, METRICS_MAX_FDS);
        poll(p, np, ms);
        handle_signals(c);
        if (cfg->phase_barrier) { /* a worker reached a barrier, or one ended */
            char buf[256];
            ssize_t k;
            while ((k = read(c->ready_rd, buf, sizeof buf)) > 0)
                ;
            c->ready_eof |= k == 0; /* every worker has closed it: poll no more */
            phasebar_poll(&c->r, c->we, c->forked, &c->bar_next);
        }
        now = now_ns();
        if (now >= opsrate_due(&c->rate))
            opsrate_sample(&c->rate, now, run_completed(&c->r, c->forked));
        if (now >= next_sample) {
            telemetry_sample(c->tel, now);
            attrib_sample(c->at, now);
            last_sample = now;
            next_sample += interval;
            if (next_sample < now)
                next_sample = now + interval;
        }
        if (now >= next_tick) {
            progress(c, t0, expected, 0);
            next_tick = now + 250000000;
        }
        uint64_t d = total_done(c);
        double quiet_s = (double)(now - last_change) / 1e9;
        if (d != last_done) {
            last_done = d;
            last_change = now;
        } else if (!c->stopping && d >= expected && quiet_s > fmax(60, 2 * cfg->stall_timeout)) {
            /* Every operation done, only exits missing: no stall (the run is
             * complete), but never a hang either. */
            char w[256];
            snprintf(w, sizeof w,
                     "%u workers had finished every operation but not exited %.0f s later: "
                     "killed",
                     c->alive, quiet_s);
            json_array_append_new(c->warnings, json_string(w));
            c->lingered = 1;
            kill_all(c);
        } else if (!c->stopping && d < expected && quiet_s > cfg->stall_timeout) {
            char err[256];
            c->stalled = 1;
            snprintf(err, sizeof err,
                     "stall: no operation completed for %.0f s with %llu operations left "
                     "(--stall-timeout)",
                     cfg->stall_timeout, (unsigned long long)(expected - d));
            json_array_append_new(c->reasons, json_string(err));
            fprintf(stderr, "\nharness: %s\n", err);
            kill_all(c);
        }
    }
    reap_all(c, 5000);
    /* The last sample after every worker is gone: the per-interval
     * operation counts then sum to the totals exactly. */
    if (c->released) {
        /* /proc/stat moves in scheduler ticks: a sample a few ms after the
         * loop's last one would see no time pass and have no CPU figure. */
        int64_t gap = 20000000 - (now_ns() - last_sample);
        if (gap > 0)
            nanosleep(&(struct timespec){0, (long)gap}, NULL);
        int64_t now = now_ns();
        telemetry_sample(c->tel, now);
        telemetry_end(c->tel);
        attrib_sample(c->at, now);
        progress(c, t0, expected, 1);
    }
    if (c->released)
        server_check_after(c->sc);
}

/* Step 5: what happened to each worker, as reasons a person can act on. */
static void coord_postmortem(struct coord *c) {
    const struct config *cfg = c->r.cfg;
    char err[1024];
    for (unsigned i = 0; i < c->forked; i++) {
        struct worker_end *we = &c->we[i];
        struct worker_slot *s = run_slot(&c->r, i);
        if (we->oom_killed == 1) {
            snprintf(err, sizeof err,
                     "container %u was OOM-killed by its %llu-byte memory limit (--memory-limit)",
                     c->r.id_base + i, (unsigned long long)cfg->memory_limit);
            json_array_append_new(c->reasons, json_string(err));
        } else if (WIFSIGNALED(we->status) && !c->interrupted && !c->stalled && !c->lingered &&
                   c->released) {
            snprintf(err, sizeof err, "container %u crashed: %s", c->r.id_base + i,
                     strsignal(WTERMSIG(we->status)));
            json_array_append_new(c->reasons, json_string(err));
        } else if (s->fatal) {
            snprintf(err, sizeof err, "container %u stopped: %.*s", c->r.id_base + i,
                     SLOT_TEXT(s->error));
            json_array_append_new(c->reasons, json_string(err));
        }
    }
    if (c->interrupted) {
        snprintf(err, sizeof err, "interrupted by %s", strsignal(c->interrupted));
        json_array_append_new(c->reasons, json_string(err));
    }
    placement_verify_run(&c->r, c->forked, c->reasons);
}

/* Step 6: result.json, CSV, the summary; the exit code. */
static void coord_write(struct coord *c, int64_t t_start) {
    const struct config *cfg = c->r.cfg;
    char err[1024];
    struct run_report rep = {
        .r = &c->r,
        .workers = c->we,
        .t0 = c->t0,
        .released = c->released,
        .reasons = c->reasons,
        .warnings = c->warnings,
        .tel = c->tel,
        .cgroups = runtime_describe(c->rt),
        .startup_seconds = (double)(c->t0 - t_start) / 1e9,
        .servers = c->servers,
        .server_info = c->server_info,
        .attrib = c->at,
        .server_check = c->sc,
        .t0_epoch = c->released ? c->t0_wall : 0,
        .cache = c->cache,
        .placement_config = placement_config_json(cfg),
        .placement = placement_json(c->r.place),
        .container_placement = placement_containers_json(&c->r),
        .launch = runtime_launch_json(c->rt),
    };
    rep.servers_pinned = server_pin_results(c->pin);
    json_t *res = results_build(&rep);
    json_decref(rep.servers_pinned);
    json_decref(rep.placement_config);
    json_decref(rep.placement);
    json_decref(rep.container_placement);
    json_decref(rep.launch);
    if (!res) {
        fprintf(stderr, "harness: out of memory building the result\n");
        c->code = EXIT_INVALID;
        return;
    }
    /* provenance: what collect found (c->prov), with each server's own. */
    json_t *prov = json_is_object(c->prov) ? json_incref(c->prov) : json_object();
    if (c->server_info)
        json_object_set(prov, "servers", c->server_info);
    result_put(res, RK_PROVENANCE, prov, NULL);
    if (c->released) {
        opsrate_finish(&c->rate, run_completed(&c->r, c->forked), run_last_end(&c->r, c->forked));
        result_put(res, RK_OPS_PER_SECOND, opsrate_json(&c->rate), NULL);
    } else
        result_put(res, RK_OPS_PER_SECOND, NULL, "the run was never released: nothing completed");
    if (cfg->shards)
        result_put(res, RK_SHARD_INFO, shard_json(&c->sh, cfg, res, c->released ? c->t0_wall : 0),
                   NULL);
    result_put(res, RK_VERIFICATION, json_incref(c->verification), "not collected");
    if (runlog_write(&c->r, c->forked, c->released ? c->t0 : 0, c->t0_wall, c->run_id, res, err,
                     sizeof err) != 0)
        json_array_append_new(c->warnings,
                              json_sprintf("no per-operation log (harness check cannot "
                                           "recompute this result): %s",
                                           err));
    result_verdict(res, c->reasons, c->warnings, 1); /* every module has reported */
    result_reportable(res);
    if (results_write(res, cfg->out, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        c->code = EXIT_INVALID;
    }
    if (cfg->csv_dir[0] && c->ex->csv(res, cfg->csv_dir, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        c->code = EXIT_INVALID;
    }
    /* Last: the digests of everything written, signed (not a run of a
     * --repeat: its combined result is what is signed). */
    if (integrity_seal(cfg->out, cfg->repeat_index ? NULL : cfg->sign_key, res, err, sizeof err) !=
        0) {
        fprintf(stderr, "harness: %s\n", err);
        c->code = EXIT_INVALID;
    }
    if (c->sh.key[0] && shard_upload(&c->sh, cfg, res, err, sizeof err) != 0) {
        fprintf(stderr, "harness: --results-url: %s\n", err);
        c->code = EXIT_INVALID;
    }
    int valid = json_is_true(json_object_get(res, "valid"));
    if (cfg->repeat_index) /* one line per run; the summary is the median run's */
        repeat_print_run(res, cfg->repeat_index, cfg->repeat, stderr);
    else if (!cfg->quiet || !valid)
        results_print_summary(res, cfg->out, stdout);
    const char *first_reason = json_string_value(json_array_get(c->reasons, 0));
    if (!valid && c->code == 0)
        c->code = EXIT_INVALID;
    if (c->code && first_reason && c->released && !cfg->repeat_index)
        fprintf(stderr, "harness: run invalid: %s\n", first_reason);
    if (c->interrupted)
        c->code = EXIT_SIGNAL;
    json_decref(res);
}

/* Step 6b, --metrics-listen: answer scrapes --metrics-linger seconds more,
 * so the last one sees the final figures and the verdict. A stop signal
 * ends it at once; the exit code stays the run's. */
static void coord_linger(struct coord *c) {
    if (!c->mx || c->interrupted)
        return;
    c->verdict = c->code == 0;
    for (int64_t end = now_ns() + (int64_t)(c->r.cfg->metrics_linger * 1e9); now_ns() < end;) {
        struct pollfd p[1 + METRICS_MAX_FDS] = {{c->sfd, POLLIN, 0}};
        poll(p, 1 + (nfds_t)metrics_pollfds(c->mx, p + 1, METRICS_MAX_FDS),
             (int)((end - now_ns()) / 1000000) + 1);
        struct signalfd_siginfo si;
        while (read(c->sfd, &si, sizeof si) == (ssize_t)sizeof si)
            if (si.ssi_signo != SIGCHLD)
                return;
        serve_metrics(c);
    }
}

/* Step 7: undo everything setup made; safe on a half-made coord. The stop
 * signals stay blocked until the workers' cgroups or containers, the run
 * directory and the accounting cgroup are gone: a Ctrl-C here is taken from
 * the signalfd at the end (1 is returned), never a death halfway. */
static int coord_teardown(struct coord *c) {
    /* The runtime owns the channels and the slots it made. */
    metrics_close(c->mx);
    json_decref(c->reasons);
    json_decref(c->warnings);
    json_decref(c->servers);
    json_decref(c->cache);
    json_decref(c->prov);
    json_decref(c->verification);
    json_decref(c->server_info);
    telemetry_free(c->tel);
    attrib_free(c->at);
    server_check_free(c->sc);
    opsrate_free(&c->rate);
    runtime_free(c->rt);
    cgacct_destroy(c->r.acct);
    server_pin_restore(c->pin);
    placement_run_free(&c->place);
    free(c->we);
    int late = 0;
    if (c->sfd >= 0) {
        struct signalfd_siginfo si;
        while (read(c->sfd, &si, sizeof si) == (ssize_t)sizeof si)
            late |= si.ssi_signo != SIGCHLD;
        sigprocmask(SIG_SETMASK, &c->oldmask, NULL);
        close(c->sfd);
    }
    return late;
}

/* One point: cfg->n workers, results into cfg->out. Returns the exit code.
 * t_start is when the command (or this sweep point) started. */
static int run_point(const struct config *cfg, int64_t t_start, const struct result_exports *ex) {
    struct coord c;
    memset(&c, 0, sizeof c);
    c.ex = ex;
    c.bar_next = 1;
    int rc = coord_setup(&c, cfg);
    if (rc != 0) {
        coord_teardown(&c);
        return rc;
    }
    coord_launch(&c);
    coord_rendezvous(&c);
    coord_barrier(&c);
    coord_loop(&c);
    coord_postmortem(&c);
    coord_write(&c, t_start);
    coord_linger(&c);
    rc = c.code;
    if (coord_teardown(&c) && !c.interrupted)
        rc = EXIT_SIGNAL; /* stopped during teardown: the result stands, the user asked to stop */
    return rc;
}

/* Options for run and prepare: exit 2 on bad usage, 0 after --help. */
static int parse_all(struct config *cfg, int argc, char **argv, int *exit_code) {
    char err[1024] = "";
    int rc = options_load(cfg, argc, argv, 1, err, sizeof err);
    if (rc == 1)
        *exit_code = 0;
    else if (rc != 0) {
        fprintf(stderr, "harness: %s\n", err);
        *exit_code = EXIT_USAGE;
    }
    return rc;
}

/* Read RUN_DIR/runs/1..made/result.json, write RUN_DIR/result.json (and CSV
 * into csv_dir when not empty). stopped: a reason the runs ended early that
 * no run says itself (a signal between runs), or NULL. Returns the combined
 * result (the caller prints and frees it), or NULL with err set. */
static json_t *repeat_finish(const char *dir, unsigned made, unsigned asked, double max_cv,
                             const char *stopped, const char *csv_dir, const char *sign_key,
                             const struct result_exports *ex, char *err, size_t errlen) {
    json_t **runs = calloc(made ? made : 1, sizeof *runs);
    char **dirs = calloc(made ? made : 1, sizeof *dirs);
    json_t *res = NULL;
    if (!runs || !dirs) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (unsigned i = 0; i < made; i++) {
        char path[4200];
        dirs[i] = malloc(32);
        if (!dirs[i]) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        snprintf(dirs[i], 32, "runs/%u", i + 1);
        snprintf(path, sizeof path, "%s/%s/result.json", dir, dirs[i]);
        runs[i] = json_load_file(path, 0, NULL); /* none: said in the reasons */
    }
    res = repeat_combine(runs, (const char *const *)dirs, made, asked, max_cv);
    if (!res) {
        snprintf(err, errlen, "%s: none of the %u runs left a result", dir, made);
        goto out;
    }
    if (stopped) {
        json_t *reasons = json_object_get(res, "invalid_reasons");
        json_array_append_new(reasons, json_string(stopped));
        result_verdict(res, reasons, json_object_get(res, "warnings"), 1);
    }
    result_reportable(res); /* again: now with the repeats */
    if (results_write(res, dir, err, errlen) != 0 ||
        (csv_dir && csv_dir[0] && ex->csv(res, csv_dir, err, errlen) != 0) ||
        integrity_seal(dir, sign_key, res, err, errlen) != 0) {
        json_decref(res);
        res = NULL;
    }
out:
    for (unsigned i = 0; runs && dirs && i < made; i++) {
        json_decref(runs[i]);
        free(dirs[i]);
    }
    free(runs);
    free(dirs);
    return res;
}

/* --repeat K: the point K times into cfg->out/runs/<i>, then the top-level
 * result from the median run (repeat.c). Each run is the same job: same
 * seed, same data, the stack untouched in between. Stops early after Ctrl-C
 * or a run that could not start. *repeats gets the spread (a new reference)
 * when asked. Returns the worst exit code. */
static int run_repeated(struct config *cfg, int64_t t_start, json_t **repeats,
                        const struct result_exports *ex) {
    char err[8400];
    if (cfg->repeat <= 1)
        return run_point(cfg, t_start, ex);
    char base[sizeof cfg->out], csv[sizeof cfg->csv_dir];
    snprintf(base, sizeof base, "%s", cfg->out);
    snprintf(csv, sizeof csv, "%s", cfg->csv_dir);
    cfg->csv_dir[0] = 0; /* the runs' CSV would overwrite each other: the median run's only */
    /* Between runs no signalfd is watching: keep Ctrl-C pending until the
     * next check instead of dying with the runs made so far not combined. */
    sigset_t stop, old, pending;
    stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &old);
    int worst = 0;
    unsigned made = 0;
    const char *stopped = NULL;
    for (unsigned i = 1; i <= cfg->repeat; i++) {
        cfg->repeat_index = i;
        snprintf(cfg->out, sizeof cfg->out, "%s/runs/%u", base, i);
        if (make_out_dir(cfg, err, sizeof err) != 0) {
            fprintf(stderr, "harness: %s\n", err);
            worst = EXIT_INVALID;
            break;
        }
        int rc = run_point(cfg, i == 1 ? t_start : now_ns(), ex);
        char path[sizeof cfg->out + 16];
        snprintf(path, sizeof path, "%s/result.json", cfg->out);
        if (access(path, F_OK) == 0)
            made = i;
        if (rc > worst)
            worst = rc;
        if (rc == EXIT_SIGNAL || rc == EXIT_USAGE || made < i)
            break;
        sigpending(&pending);
        if (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
            sigismember(&pending, SIGHUP)) {
            stopped = "interrupted between runs";
            worst = EXIT_SIGNAL;
            break;
        }
    }
    snprintf(cfg->out, sizeof cfg->out, "%s", base);
    snprintf(cfg->csv_dir, sizeof cfg->csv_dir, "%s", csv);
    cfg->repeat_index = 0;
    json_t *res = made ? repeat_finish(base, made, cfg->repeat, cfg->max_cv, stopped, csv,
                                       cfg->sign_key, ex, err, sizeof err)
                       : NULL;
    if (made && !res)
        fprintf(stderr, "harness: %s\n", err);
    if (res) {
        int valid = json_is_true(json_object_get(res, "valid"));
        if (!cfg->quiet || !valid)
            results_print_summary(res, base, stdout);
        if (!valid && worst == 0)
            worst = EXIT_INVALID;
        if (repeats)
            *repeats = json_incref(json_object_get(res, "repeats"));
        json_decref(res);
    } else if (worst < EXIT_INVALID)
        worst = EXIT_INVALID;
    /* A signal still pending was seen above (or came after the last run):
     * take it here, it has done its work. */
    struct timespec zero = {0, 0};
    sigpending(&pending);
    while (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
           sigismember(&pending, SIGHUP)) {
        if (sigtimedwait(&stop, NULL, &zero) < 0)
            break;
        worst = EXIT_SIGNAL;
        sigpending(&pending);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return worst;
}

static int run_cmd(struct config *cfg, int64_t t_start, const struct result_exports *ex) {
    char err[1024];
    struct run_layout lay;
    struct slo slo; /* checked here, judged in the result */
    if (slo_from_config(cfg, &slo, err, sizeof err) != 0) {
        fprintf(stderr, "harness: --slo: %s\n", err);
        return EXIT_USAGE;
    }
    if (shard_check(cfg, err, sizeof err) != 0 ||
        attrib_check_overrides(cfg, err, sizeof err) != 0 ||
        policy_check(cfg, err, sizeof err) != 0 || placement_run_check(cfg, err, sizeof err) != 0 ||
        (layout_build(cfg, &lay, err, sizeof err) == 0 &&
         server_pin_check(cfg, &lay, err, sizeof err) != 0)) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_USAGE;
    }
    if (make_out_dir(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_USAGE;
    }
    raise_nofile();
    signal(SIGPIPE, SIG_IGN);
    if (cfg->ncontainers == 1) {
        cfg->n = cfg->containers[0];
        return run_repeated(cfg, t_start, NULL, ex);
    }
    /* A sweep: one point after another, each in RUN_DIR/points/<N>. */
    char base[sizeof cfg->out];
    snprintf(base, sizeof base, "%s", cfg->out);
    json_t *points = json_array();
    int worst = 0;
    for (unsigned i = 0; i < cfg->ncontainers; i++) {
        cfg->n = cfg->containers[i];
        snprintf(cfg->out, sizeof cfg->out, "%s/points/%u", base, cfg->n);
        if (make_out_dir(cfg, err, sizeof err) != 0) {
            fprintf(stderr, "harness: %s\n", err);
            worst = EXIT_INVALID;
            break;
        }
        fprintf(stderr, "harness: sweep point %u of %u: %u containers\n", i + 1, cfg->ncontainers,
                cfg->n);
        json_t *rep = NULL;
        int rc = run_repeated(cfg, now_ns(), &rep, ex);
        char dir[64];
        snprintf(dir, sizeof dir, "points/%u", cfg->n);
        json_t *pt = json_pack("{s:i, s:s}", "containers", (int)cfg->n, "dir", dir);
        if (rep) /* each point's median and spread, for the sweep's error bars */
            json_object_set_new(pt, "repeats", rep);
        json_array_append_new(points, pt);
        if (rc > worst)
            worst = rc;
        if (rc == EXIT_SIGNAL)
            break;
    }
    json_t *sweep =
        json_pack("{s:i, s:o}", "schema_version", RESULT_SCHEMA_VERSION, "points", points);
    char path[sizeof cfg->out + 16];
    snprintf(path, sizeof path, "%s/sweep.json", base);
    if (json_write_atomic(path, sweep, JSON_INDENT(2)) != 0)
        fprintf(stderr, "harness: cannot write %s\n", path);
    json_decref(sweep);
    fprintf(stdout, "sweep results: %s/sweep.json\n", base);
    return worst;
}

int run_main(int argc, char **argv, const struct result_exports *ex) {
    int64_t t_start = now_ns();
    struct config *cfg = calloc(1, sizeof *cfg); /* large: keep it off the stack */
    int rc = EXIT_INVALID;
    if (!cfg)
        fprintf(stderr, "harness: out of memory\n");
    else if (parse_all(cfg, argc, argv, &rc) == 0)
        rc = run_cmd(cfg, t_start, ex);
    if (cfg)
        options_free(cfg);
    free(cfg);
    return rc;
}
