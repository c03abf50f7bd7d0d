/* coordinator.c -- `harness run` and `harness prepare`: launch N workers,
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

#include "../containers/cgroup.h"
#include "commands.h"
#include "csv.h"
#include "options.h"
#include "results.h"
#include "run.h"
#include "util.h"

#define EXIT_INVALID 1
#define EXIT_USAGE 2
#define EXIT_SIGNAL 130

/* The run's workloads in table order (s3, db, search), which is the phased order. */
static int layout_build(const struct config *cfg, struct run_layout *lay, char *err,
                        size_t errlen) {
    memset(lay, 0, sizeof *lay);
    char list[sizeof cfg->workloads + 2];
    snprintf(list, sizeof list, ",%s,", cfg->workloads);
    for (int i = 0; workload_table[i]; i++) {
        char needle[64];
        snprintf(needle, sizeof needle, ",%s,", workload_table[i]->name);
        if (!strstr(list, needle))
            continue;
        if (lay->nwl == RUN_MAX_WL) {
            snprintf(err, errlen, "too many workloads");
            return -1;
        }
        lay->hist_base[lay->nwl] = lay->nhist;
        lay->nhist += 2 + workload_table[i]->nclasses;
        lay->ops_per_cycle += workload_table[i]->ops_per_cycle;
        lay->wl[lay->nwl++] = workload_table[i];
    }
    size_t sz = sizeof(struct worker_slot) + lay->nhist * sizeof(struct hist);
    lay->slot_size = (sz + 4095) & ~(size_t)4095; /* a page each: no false sharing */
    return 0;
}

/* Resolve and create the run directory; exit-2 class errors. */
static int make_out_dir(struct config *cfg, char *err, size_t errlen) {
    if (!cfg->out[0]) {
        char ts[64];
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
    if (mkdir(p, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "--out %s: cannot create the run directory: %s", cfg->out,
                 strerror(errno));
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

struct coord {
    struct run_ctx r;
    struct worker_end *we;
    unsigned forked, alive;
    int sfd;
    int interrupted; /* signal number */
    int stopping;    /* workers were told to stop */
};

static void kill_all(struct coord *c, int sig) {
    for (unsigned i = 0; i < c->forked; i++)
        if (!c->we[i].reaped)
            kill(c->we[i].pid, sig);
    c->stopping = 1;
}

static int index_of(struct coord *c, pid_t pid) {
    for (unsigned i = 0; i < c->forked; i++)
        if (c->we[i].pid == pid)
            return (int)i;
    return -1;
}

static void reap(struct coord *c) {
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int i = index_of(c, pid);
        if (i < 0)
            continue;
        c->we[i].reaped = 1;
        c->we[i].status = status;
        c->we[i].oom_killed = c->r.cg ? cgroups_oom_killed(c->r.cg, (unsigned)i) : -1;
        c->alive--;
    }
}

/* Drain the signalfd: returns after handling everything pending. */
static void handle_signals(struct coord *c) {
    struct signalfd_siginfo si;
    while (read(c->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD)
            reap(c);
        else if (!c->interrupted) {
            c->interrupted = (int)si.ssi_signo;
            kill_all(c, SIGKILL);
        }
    }
    reap(c);
}

static uint64_t total_done(struct coord *c) {
    uint64_t d = 0;
    for (unsigned i = 0; i < c->forked; i++)
        d += atomic_load_explicit(&run_slot(&c->r, i)->done, memory_order_relaxed);
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

/* Wait for every worker to be reaped, at most `ms` more. */
static void reap_all(struct coord *c, int ms) {
    for (int i = 0; c->alive > 0 && i < ms / 10; i++) {
        reap(c);
        if (c->alive)
            usleep(10000);
    }
    if (c->alive) {
        kill_all(c, SIGKILL);
        while (c->alive > 0) {
            int status;
            pid_t pid = waitpid(-1, &status, 0);
            if (pid < 0)
                break;
            int i = index_of(c, pid);
            if (i >= 0 && !c->we[i].reaped) {
                c->we[i].reaped = 1;
                c->we[i].status = status;
                c->we[i].oom_killed = c->r.cg ? cgroups_oom_killed(c->r.cg, (unsigned)i) : -1;
                c->alive--;
            }
        }
    }
}

static const char *first_worker_error(struct coord *c) {
    for (unsigned i = 0; i < c->forked; i++)
        if (run_slot(&c->r, i)->error[0])
            return run_slot(&c->r, i)->error;
    return NULL;
}

/* One point: cfg->n workers, results into cfg->out. Returns the exit code.
 * t_start is when the command (or this sweep point) started. */
static int run_point(struct config *cfg, int64_t t_start) {
    char err[1024];
    struct coord c;
    memset(&c, 0, sizeof c);
    c.r.cfg = cfg;
    c.r.coord_pid = getpid();
    c.sfd = -1;
    if (layout_build(cfg, &c.r.lay, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_USAGE;
    }
    unsigned n = cfg->n;
    json_t *reasons = json_array(), *warnings = json_array();
    int code = 0;

    if (!cfg->no_cgroups) {
        cgroups_remove_stale();
        c.r.cg = cgroups_create((unsigned)getpid(), n, cfg->memory_limit, cfg->cpus_per_container,
                                err, sizeof err);
        if (!c.r.cg) {
            fprintf(stderr, "harness: %s\n", err);
            json_decref(reasons);
            json_decref(warnings);
            return EXIT_INVALID;
        }
    }
    c.r.shm = mmap(NULL, (size_t)n * c.r.lay.slot_size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    c.we = calloc(n, sizeof *c.we);
    int ready[2] = {-1, -1}, release[2] = {-1, -1};
    if (c.r.shm == MAP_FAILED || !c.we || pipe2(ready, O_CLOEXEC) || pipe2(release, O_CLOEXEC)) {
        fprintf(stderr, "harness: cannot set up the run: %s\n", strerror(errno));
        cgroups_destroy(c.r.cg);
        return EXIT_INVALID;
    }
    c.r.ready_fd = ready[1];
    c.r.release_fd = release[0];
    fcntl(ready[0], F_SETFL, O_NONBLOCK);

    sigset_t mask, old;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGCHLD);
    sigprocmask(SIG_BLOCK, &mask, &old);
    c.sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);

    /* What serves each workload, asked once here so no worker pays for it. */
    json_t *servers = json_object();
    for (unsigned w = 0; w < c.r.lay.nwl; w++) {
        const struct workload *wl = c.r.lay.wl[w];
        char v[256];
        if (!wl->backend)
            continue;
        if (wl->backend(cfg, v, sizeof v) == 0)
            json_object_set_new(servers, wl->name, json_string(v));
        else
            json_object_set_new(servers, wl->name, json_null());
    }
    struct telemetry *tel = telemetry_new(cfg);
    fflush(NULL);
    int64_t t_launch = now_ns();
    for (unsigned i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            snprintf(err, sizeof err, "cannot start worker %u of %u: %s", i, n, strerror(errno));
            json_array_append_new(reasons, json_string(err));
            fprintf(stderr, "harness: %s\n", err);
            code = EXIT_INVALID;
            break;
        }
        if (pid == 0) {
            close(ready[0]);
            close(release[1]);
            close(c.sfd);
            sigprocmask(SIG_SETMASK, &old, NULL);
            worker_main(&c.r, i);
        }
        c.we[i].pid = pid;
        c.we[i].oom_killed = -1;
        c.forked++;
        c.alive++;
    }
    close(ready[1]);
    close(release[0]);

    /* Wait at the barrier: every worker ready, or one failed, or a signal. */
    unsigned nready = 0;
    int64_t last_ready = now_ns();
    while (code == 0 && nready < n) {
        struct pollfd p[2] = {{c.sfd, POLLIN, 0}, {ready[0], POLLIN, 0}};
        poll(p, 2, 200);
        handle_signals(&c);
        char buf[256];
        ssize_t k;
        while ((k = read(ready[0], buf, sizeof buf)) > 0)
            for (ssize_t j = 0; j < k; j++) {
                if (buf[j] == 'R') {
                    nready++;
                    last_ready = now_ns();
                } else
                    code = EXIT_INVALID;
            }
        if (c.interrupted)
            break;
        if (code == 0 && c.alive < c.forked) { /* died before it was ready */
            for (unsigned i = 0; i < c.forked && code == 0; i++) {
                if (!c.we[i].reaped || atomic_load(&run_slot(&c.r, i)->phase) == PH_READY)
                    continue;
                struct worker_slot *s = run_slot(&c.r, i);
                if (!s->error[0])
                    snprintf(s->error, sizeof s->error, "worker %u died before the start: %s%s",
                             i,
                             WIFSIGNALED(c.we[i].status) ? strsignal(WTERMSIG(c.we[i].status))
                                                         : "exited",
                             c.we[i].oom_killed == 1 ? " (out of memory: raise --memory-limit)"
                                                     : "");
                code = EXIT_INVALID;
            }
        }
        if (code == 0 && (double)(now_ns() - last_ready) / 1e9 > cfg->stall_timeout) {
            snprintf(err, sizeof err, "%u of %u workers not ready after %.0f s (--stall-timeout)",
                     n - nready, n, cfg->stall_timeout);
            json_array_append_new(reasons, json_string(err));
            fprintf(stderr, "harness: %s\n", err);
            code = EXIT_INVALID;
        }
    }
    int released = 0;
    int64_t t0 = 0;
    if (code || c.interrupted) {
        const char *e = first_worker_error(&c);
        if (e && code) {
            fprintf(stderr, "harness: %s\n", e);
            json_array_append_new(reasons, json_string(e));
        }
        kill_all(&c, SIGKILL);
        close(release[1]);
    } else {
        if (!cfg->quiet)
            fprintf(stderr, "harness: %u workers ready in %.2f s; released\n", n,
                    (double)(now_ns() - t_launch) / 1e9);
        t0 = now_ns();
        telemetry_begin(tel, t0);
        close(release[1]); /* the barrier */
        released = 1;
    }

    /* The run: until every worker is reaped. */
    uint64_t expected = (uint64_t)n * cfg->cycles * c.r.lay.ops_per_cycle;
    int64_t interval = (int64_t)(cfg->sample_interval * 1e9);
    int64_t next_sample = t0 + interval, next_tick = t0;
    uint64_t last_done = 0;
    int64_t last_change = t0;
    int stalled = 0;
    while (released && c.alive > 0) {
        int64_t now = now_ns();
        int64_t due = next_sample < next_tick ? next_sample : next_tick;
        int ms = due > now ? (int)((due - now) / 1000000) + 1 : 0;
        struct pollfd p = {c.sfd, POLLIN, 0};
        poll(&p, 1, ms);
        handle_signals(&c);
        now = now_ns();
        if (now >= next_sample) {
            telemetry_sample(tel, now);
            next_sample += interval;
            if (next_sample < now)
                next_sample = now + interval;
        }
        if (now >= next_tick) {
            progress(&c, t0, expected, 0);
            next_tick = now + 250000000;
        }
        uint64_t d = total_done(&c);
        if (d != last_done) {
            last_done = d;
            last_change = now;
        } else if (!c.stopping && (double)(now - last_change) / 1e9 > cfg->stall_timeout) {
            stalled = 1;
            snprintf(err, sizeof err,
                     "stall: no operation completed for %.0f s with %llu operations left "
                     "(--stall-timeout)",
                     cfg->stall_timeout, (unsigned long long)(expected - d));
            json_array_append_new(reasons, json_string(err));
            fprintf(stderr, "\nharness: %s\n", err);
            kill_all(&c, SIGKILL);
        }
    }
    if (released) {
        telemetry_sample(tel, now_ns());
        progress(&c, t0, expected, 1);
    }
    reap_all(&c, 5000);
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(c.sfd);
    close(ready[0]);

    /* What happened to each worker, as reasons a person can act on. */
    for (unsigned i = 0; i < c.forked; i++) {
        struct worker_end *we = &c.we[i];
        struct worker_slot *s = run_slot(&c.r, i);
        if (we->oom_killed == 1) {
            snprintf(err, sizeof err,
                     "container %u was OOM-killed by its %llu-byte memory limit (--memory-limit)",
                     i, (unsigned long long)cfg->memory_limit);
            json_array_append_new(reasons, json_string(err));
        } else if (WIFSIGNALED(we->status) && !c.interrupted && !stalled && released) {
            snprintf(err, sizeof err, "container %u crashed: %s", i,
                     strsignal(WTERMSIG(we->status)));
            json_array_append_new(reasons, json_string(err));
        } else if (s->fatal) {
            snprintf(err, sizeof err, "container %u stopped: %s", i, s->error);
            json_array_append_new(reasons, json_string(err));
        }
    }
    if (c.interrupted) {
        snprintf(err, sizeof err, "interrupted by %s", strsignal(c.interrupted));
        json_array_append_new(reasons, json_string(err));
    }

    struct run_report rep = {
        .r = &c.r,
        .workers = c.we,
        .t0 = t0,
        .released = released,
        .reasons = reasons,
        .warnings = warnings,
        .tel = tel,
        .cgroups = c.r.cg ? cgroups_describe(c.r.cg) : NULL,
        .startup_seconds = (double)(t0 - t_start) / 1e9,
        .servers = servers,
    };
    json_t *res = results_build(&rep);
    if (results_write(res, cfg->out, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        code = EXIT_INVALID;
    }
    if (cfg->csv_dir[0] && csv_export(res, cfg->csv_dir, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        code = EXIT_INVALID;
    }
    if (!cfg->quiet || !json_is_true(json_object_get(res, "valid")))
        results_print_summary(res, cfg->out, stdout);
    const char *first_reason = json_string_value(json_array_get(reasons, 0));
    if (!json_is_true(json_object_get(res, "valid")) && code == 0)
        code = EXIT_INVALID;
    if (code && first_reason && released)
        fprintf(stderr, "harness: run invalid: %s\n", first_reason);
    if (c.interrupted)
        code = EXIT_SIGNAL;

    json_decref(res);
    json_decref(reasons);
    json_decref(warnings);
    json_decref(servers);
    telemetry_free(tel);
    cgroups_destroy(c.r.cg);
    munmap(c.r.shm, (size_t)n * c.r.lay.slot_size);
    free(c.we);
    return code;
}

static int parse_all(struct config *cfg, int argc, char **argv, int first) {
    char err[1024] = "";
    config_defaults(cfg);
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            options_usage(stdout);
            exit(0);
        }
    if (config_load_credentials(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return -1;
    }
    int k = options_parse(cfg, argc, argv, first, err, sizeof err);
    if (k < 0) {
        fprintf(stderr, "harness: %s\n", err);
        return -1;
    }
    if (k < argc) {
        fprintf(stderr, "harness: unexpected argument '%s' (see harness --help)\n", argv[k]);
        return -1;
    }
    if (config_validate(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return -1;
    }
    return 0;
}

int run_main(int argc, char **argv) {
    static struct config cfg; /* large: keep it off the stack */
    int64_t t_start = now_ns();
    if (parse_all(&cfg, argc, argv, 1) != 0)
        return EXIT_USAGE;
    char err[1024];
    if (make_out_dir(&cfg, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_USAGE;
    }
    raise_nofile();
    signal(SIGPIPE, SIG_IGN);
    if (cfg.ncontainers == 1) {
        cfg.n = cfg.containers[0];
        return run_point(&cfg, t_start);
    }
    /* A sweep: one point after another, each in RUN_DIR/points/<N>. */
    char base[sizeof cfg.out];
    snprintf(base, sizeof base, "%s", cfg.out);
    json_t *points = json_array();
    int worst = 0;
    for (unsigned i = 0; i < cfg.ncontainers; i++) {
        cfg.n = cfg.containers[i];
        snprintf(cfg.out, sizeof cfg.out, "%s/points/%u", base, cfg.n);
        if (make_out_dir(&cfg, err, sizeof err) != 0) {
            fprintf(stderr, "harness: %s\n", err);
            worst = EXIT_INVALID;
            break;
        }
        fprintf(stderr, "harness: sweep point %u of %u: %u containers\n", i + 1, cfg.ncontainers,
                cfg.n);
        int rc = run_point(&cfg, now_ns());
        char dir[64];
        snprintf(dir, sizeof dir, "points/%u", cfg.n);
        json_array_append_new(points, json_pack("{s:i, s:s}", "containers", (int)cfg.n, "dir", dir));
        if (rc > worst)
            worst = rc;
        if (rc == EXIT_SIGNAL)
            break;
    }
    json_t *sweep = json_pack("{s:i, s:o}", "schema_version", RESULT_SCHEMA_VERSION, "points",
                              points);
    char path[sizeof cfg.out + 16];
    snprintf(path, sizeof path, "%s/sweep.json", base);
    if (json_dump_file(sweep, path, JSON_INDENT(2)) != 0)
        fprintf(stderr, "harness: cannot write %s\n", path);
    json_decref(sweep);
    fprintf(stdout, "sweep results: %s/sweep.json\n", base);
    return worst;
}

int prepare_main(int argc, char **argv) {
    static struct config cfg;
    if (parse_all(&cfg, argc, argv, 1) != 0)
        return EXIT_USAGE;
    struct run_layout lay;
    char err[1024];
    if (layout_build(&cfg, &lay, err, sizeof err) != 0) {
        fprintf(stderr, "harness prepare: %s\n", err);
        return EXIT_USAGE;
    }
    /* Prepare for the largest point of a sweep. */
    for (unsigned i = 0; i < cfg.ncontainers; i++)
        if (cfg.containers[i] > cfg.n)
            cfg.n = cfg.containers[i];
    for (unsigned w = 0; w < lay.nwl; w++) {
        int64_t t = now_ns();
        fprintf(stderr, "harness prepare: %s...\n", lay.wl[w]->name);
        if (lay.wl[w]->prepare(&cfg, err, sizeof err) != 0) {
            fprintf(stderr, "harness prepare: %s: %s\n", lay.wl[w]->name, err);
            return EXIT_INVALID;
        }
        fprintf(stderr, "harness prepare: %s ready (%.1f s)\n", lay.wl[w]->name,
                (double)(now_ns() - t) / 1e9);
    }
    return 0;
}
