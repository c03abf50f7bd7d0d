/* baseline.c -- the data drives' own read throughput and IOPS, measured
 * with fio (see baseline.h).
 *
 * fio runs as a child (its JSON on a temporary file), once per drive: one
 * job of sequential 1 MiB reads at queue depth 16, then (stonewall) one of
 * random 4 KiB reads at queue depth 32 from min(CPUs, 4) jobs, both
 * O_DIRECT, time-based, over a scratch file fio lays out first. Ctrl-C
 * reaches fio too (same process group); the scratch file is removed either
 * way before the command returns. */
#include "baseline.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/fsread.h"
#include "../common/json.h"
#include "../common/walltime.h"
#include "../workloads/stack_state.h"
#include "../workloads/workload.h"

#define SEQ_DEPTH 16
#define RAND_DEPTH 32

void baseline_path(const struct config *cfg, char *out, size_t len) {
    if (cfg->baseline_file[0]) {
        snprintf(out, len, "%s", cfg->baseline_file);
        return;
    }
    char sd[4200];
    stack_dir(cfg, sd, sizeof sd);
    snprintf(out, len, "%s/storage_baseline.json", sd);
}

int baseline_fio_parse(const char *text, double *seq_bps, double *rand_iops, char *version,
                       size_t vlen, char *err, size_t errlen) {
    /* fio may print notes before its JSON ("fio: ..."): start at the brace. */
    const char *brace = text ? strchr(text, '{') : NULL;
    json_error_t je;
    json_t *root = brace ? json_loads(brace, JSON_DISABLE_EOF_CHECK, &je) : NULL;
    int got = 0;
    *seq_bps = *rand_iops = NAN;
    if (!root) {
        snprintf(err, errlen, "fio printed no JSON result");
        return -1;
    }
    snprintf(version, vlen, "%s",
             json_string_value(json_object_get(root, "fio version"))
                 ? json_string_value(json_object_get(root, "fio version"))
                 : "");
    size_t i;
    json_t *job;
    json_array_foreach(json_object_get(root, "jobs"), i, job) {
        const char *name = json_string_value(json_object_get(job, "jobname"));
        json_t *rd = json_object_get(job, "read");
        json_int_t e = json_integer_value(json_object_get(job, "error"));
        if (!name || !rd)
            continue;
        if (e) {
            snprintf(err, errlen, "fio job %s failed: %s", name, strerror((int)e));
            json_decref(root);
            return -1;
        }
        if (!strcmp(name, "seq")) {
            *seq_bps = json_number_value(json_object_get(rd, "bw_bytes"));
            got |= 1;
        } else if (!strcmp(name, "rand")) {
            *rand_iops = json_number_value(json_object_get(rd, "iops"));
            got |= 2;
        }
    }
    json_decref(root);
    if (got != 3) {
        snprintf(err, errlen, "fio's result lacks the %s job", got & 1 ? "rand" : "seq");
        return -1;
    }
    if (!(*seq_bps > 0) || !(*rand_iops > 0)) {
        snprintf(err, errlen, "fio read nothing (sequential %.0f B/s, random %.0f IOPS)", *seq_bps,
                 *rand_iops);
        return -1;
    }
    return 0;
}

static void sys_attr(const char *sysroot, const char *name, const char *attr, char *out,
                     size_t len) {
    char rel[512], p[4200];
    snprintf(rel, sizeof rel, "/sys/class/block/%s/%s", name, attr);
    out[0] = 0;
    if (!sysroot_path(p, sizeof p, sysroot, rel) || fs_read_str(p, out, len) < 0)
        out[0] = 0;
    fs_trim(out);
}

void baseline_identity(const char *sysroot, const char *name, char *out, size_t len) {
    char size[64], model[256], serial[256], backing[1024];
    sys_attr(sysroot, name, "size", size, sizeof size);
    sys_attr(sysroot, name, "device/model", model, sizeof model);
    sys_attr(sysroot, name, "device/serial", serial, sizeof serial);
    sys_attr(sysroot, name, "loop/backing_file", backing, sizeof backing);
    unsigned long long bytes = strtoull(size, NULL, 10) * 512ULL;
    if (backing[0])
        snprintf(out, len, "loop of %s, %llu bytes", backing, bytes);
    else if (model[0] || serial[0])
        snprintf(out, len, "model %s%s%s, %llu bytes", model[0] ? model : "?",
                 serial[0] ? " serial " : "", serial, bytes);
    else if (size[0])
        snprintf(out, len, "%llu bytes", bytes);
    else
        out[0] = 0;
}

/* ---- running fio ------------------------------------------------------------------------ */

/* Run argv with stdout and stderr into files; returns the wait status, or
 * -1 with err set when it could not run. The stop signals are held while it
 * runs (fio gets the terminal's Ctrl-C itself); *stopped says one came. */
static int run_to_files(char *const argv[], const char *outf, const char *errf, int *stopped,
                        char *err, size_t errlen) {
    sigset_t stop, old, pending;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop, &old);
    pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        int o = open(outf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(126);
        execvp(argv[0], argv);
        _exit(errno == ENOENT ? 127 : 126);
    }
    int status = -1;
    if (pid < 0)
        snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
    else
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    sigpending(&pending);
    *stopped = sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
               sigismember(&pending, SIGHUP);
    if (*stopped) { /* take it: the caller cleans up and stops */
        struct timespec zero = {0, 0};
        while (sigtimedwait(&stop, NULL, &zero) > 0)
            ;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return pid < 0 ? -1 : status;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = 0;
    return buf;
}

/* The last non-empty line of text, for a one-line reason. */
static void last_line(const char *text, char *out, size_t len) {
    out[0] = 0;
    if (!text)
        return;
    const char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == ' '))
        end--;
    const char *start = end;
    while (start > text && start[-1] != '\n')
        start--;
    snprintf(out, len, "%.*s", (int)(end - start), start);
}

struct fio_result {
    double seq_bps, rand_iops;
    char version[64], engine[16];
    int numjobs;
};

/* One fio invocation on scratch with engine; 0, 1 to retry with another
 * engine, -1 with err for good, 2 after a stop signal. */
static int fio_once(const struct config *cfg, const char *scratch, const char *engine,
                    struct fio_result *res, char *err, size_t errlen) {
    char a_file[4200], a_size[64], a_engine[64], a_rt[64], a_jobs[32];
    snprintf(a_file, sizeof a_file, "--filename=%s", scratch);
    snprintf(a_size, sizeof a_size, "--size=%llu", (unsigned long long)cfg->baseline_size);
    snprintf(a_engine, sizeof a_engine, "--ioengine=%s", engine);
    snprintf(a_rt, sizeof a_rt, "--runtime=%.0fms", cfg->baseline_seconds * 1000);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    res->numjobs = cpus < 1 ? 1 : cpus > 4 ? 4 : (int)cpus;
    snprintf(a_jobs, sizeof a_jobs, "--numjobs=%d", res->numjobs);
    char a_sdepth[32], a_rdepth[32];
    snprintf(a_sdepth, sizeof a_sdepth, "--iodepth=%d", SEQ_DEPTH);
    snprintf(a_rdepth, sizeof a_rdepth, "--iodepth=%d", RAND_DEPTH);
    /* Global options first, then the jobs; stonewall: rand starts after seq. */
    char *argv[] = {"fio",
                    "--output-format=json",
                    a_file,
                    a_size,
                    "--direct=1",
                    a_engine,
                    "--time_based=1",
                    a_rt,
                    "--group_reporting=1",
                    "--randrepeat=0",
                    "--name=seq",
                    "--rw=read",
                    "--bs=1M",
                    a_sdepth,
                    "--name=rand",
                    "--stonewall",
                    "--rw=randread",
                    "--bs=4k",
                    a_rdepth,
                    a_jobs,
                    NULL};
    char outf[] = "/tmp/aops-fio-out.XXXXXX", errf[] = "/tmp/aops-fio-err.XXXXXX";
    int fo = mkstemp(outf), fe = mkstemp(errf);
    if (fo >= 0)
        close(fo);
    if (fe >= 0)
        close(fe);
    if (fo < 0 || fe < 0) {
        snprintf(err, errlen, "cannot make a temporary file in /tmp: %s", strerror(errno));
        if (fo >= 0)
            unlink(outf);
        return -1;
    }
    int stopped = 0;
    int st = run_to_files(argv, outf, errf, &stopped, err, errlen);
    char *out = slurp(outf), *errtext = slurp(errf);
    unlink(outf);
    unlink(errf);
    int rc = -1;
    char line[512];
    if (stopped) {
        snprintf(err, errlen, "interrupted");
        rc = 2;
    } else if (st < 0) {
        rc = -1;
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(err, errlen, "fio not found (Debian: apt-get install fio)");
    } else if (baseline_fio_parse(out, &res->seq_bps, &res->rand_iops, res->version,
                                  sizeof res->version, err, errlen) == 0 &&
               WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        snprintf(res->engine, sizeof res->engine, "%s", engine);
        rc = 0;
    } else {
        last_line(errtext, line, sizeof line);
        if (line[0])
            snprintf(err, errlen, "fio (%s): %s", engine, line);
        rc = 1;
    }
    free(out);
    free(errtext);
    return rc;
}

/* ---- the drives ---------------------------------------------------------------------- */

#define MAX_PATHS 32  /* data paths per workload */
#define MAX_DRIVES 64 /* drives in all */

struct drive {
    char key[BLK_MAX_DEVS * 33]; /* "loop0", or "nvme0n1+nvme1n1" for one filesystem over two */
    struct blkdev devs[BLK_MAX_DEVS];
    int ndevs;
    char path[4096], role[32];
};

static void human_bytes(double b, char *out, size_t len) {
    if (b >= 1 << 30)
        snprintf(out, len, "%.1f GiB", b / (1 << 30));
    else
        snprintf(out, len, "%.0f MiB", b / (1 << 20));
}

/* One drive: its entry for the file (figures or nulls with a reason). */
static json_t *measure(const struct config *cfg, const struct drive *d, FILE *out, int *stop) {
    char reason[1024] = "", ident[1400];
    json_t *names = json_array(), *idents = json_object();
    for (int i = 0; i < d->ndevs; i++) {
        json_array_append_new(names, json_string(d->devs[i].name));
        baseline_identity("/", d->devs[i].name, ident, sizeof ident);
        json_object_set_new(idents, d->devs[i].name, json_string(ident));
    }
    char when[64];
    wall_format(wall_now(), when, sizeof when);
    json_t *e = json_pack("{s:n, s:n, s:n, s:s, s:s, s:o, s:o, s:s}", "seq_read_Bps",
                          "rand_read_iops", "fio_version", "path", d->path, "role", d->role,
                          "devices", names, "identities", idents, "measured_at", when);
    struct statvfs vfs;
    char need[32], have[32];
    struct fio_result r = {0};
    if (statvfs(d->path, &vfs) != 0) {
        snprintf(reason, sizeof reason, "%s: %s", d->path, strerror(errno));
    } else if ((double)vfs.f_bavail * vfs.f_frsize < 2.0 * cfg->baseline_size) {
        human_bytes(2.0 * cfg->baseline_size, need, sizeof need);
        human_bytes((double)vfs.f_bavail * vfs.f_frsize, have, sizeof have);
        snprintf(reason, sizeof reason,
                 "no room for the scratch file on %s: %s free at %s, needs %s (twice "
                 "--baseline-size)",
                 d->key, have, d->path, need);
    } else {
        char scratch[4200];
        snprintf(scratch, sizeof scratch, "%s/.aops-baseline-%d.fio", d->path, (int)getpid());
        int rc = fio_once(cfg, scratch, "io_uring", &r, reason, sizeof reason);
        if (rc == 1) { /* io_uring refused (an old kernel, a seccomp profile): libaio */
            char first[1024];
            snprintf(first, sizeof first, "%s", reason);
            rc = fio_once(cfg, scratch, "libaio", &r, reason, sizeof reason);
            if (rc == 1)
                snprintf(reason + strlen(reason), sizeof reason - strlen(reason), "; %s", first);
        }
        unlink(scratch);
        *stop = rc == 2;
    }
    if (r.engine[0]) {
        json_object_set_new(e, "seq_read_Bps", json_real(r.seq_bps));
        json_object_set_new(e, "rand_read_iops", json_real(r.rand_iops));
        json_object_set_new(e, "fio_version", json_string(r.version));
        json_object_set_new(e, "fio",
                            json_pack("{s:s, s:b, s:I, s:f, s:{s:s, s:i, s:i}, s:{s:s, s:i, s:i}}",
                                      "ioengine", r.engine, "direct", 1, "size_bytes",
                                      (json_int_t)cfg->baseline_size, "seconds_per_job",
                                      cfg->baseline_seconds, "seq", "bs", "1M", "iodepth",
                                      SEQ_DEPTH, "numjobs", 1, "rand", "bs", "4k", "iodepth",
                                      RAND_DEPTH, "numjobs", r.numjobs));
        human_bytes((double)cfg->baseline_size, have, sizeof have);
        fprintf(out,
                "harness baseline: %s (%s %s): sequential 1 MiB reads %.1f MB/s, random 4 KiB "
                "reads %.0f IOPS (%s, %s, O_DIRECT, %s scratch file, %g s each)\n",
                d->key, d->role, d->path, r.seq_bps / 1e6, r.rand_iops, r.version, r.engine, have,
                cfg->baseline_seconds);
    } else {
        json_object_set_new(e, "reason", json_string(reason));
        fprintf(out, "harness baseline: %s (%s %s): not measured: %s\n", d->key, d->role, d->path,
                reason);
    }
    return e;
}

/* The drives behind the workloads' data paths, each once. */
static int drives_of(const struct config *cfg, struct drive *dr, int max, FILE *out) {
    int n = 0;
    const char *names[MAX_PATHS];
    char(*paths)[4096] = calloc(MAX_PATHS, sizeof *paths);
    if (!paths)
        return 0;
    for (int w = 0; workload_table[w]; w++) {
        if (!workload_table[w]->data_paths)
            continue;
        int k = workload_table[w]->data_paths(cfg, names, paths, MAX_PATHS);
        for (int i = 0; i < k && n < max; i++) {
            struct drive *d = &dr[n];
            char devdir[4096], reason[1024] = "";
            struct stat st;
            memset(d, 0, sizeof *d);
            if (stat(paths[i], &st) != 0) {
                fprintf(out, "harness baseline: %s %s: absent on this machine, skipped\n", names[i],
                        paths[i]);
                continue;
            }
            if (mount_devdir("/", paths[i], devdir, sizeof devdir, reason, sizeof reason) != 0 ||
                blk_leaf_disks(devdir, d->devs, &d->ndevs, BLK_MAX_DEVS) < 0 || d->ndevs == 0) {
                fprintf(out, "harness baseline: %s %s: skipped: %s\n", names[i], paths[i],
                        reason[0] ? reason : "no block device found under sysfs");
                continue;
            }
            /* key = the leaf devices joined by '+' (appended piece by piece:
             * a name can never overlap the key it is written into) */
            size_t kl = strlen(d->key);
            for (int j = 0; j < d->ndevs && kl + 1 < sizeof d->key; j++) {
                const char *nm = d->devs[j].name;
                if (j)
                    d->key[kl++] = '+';
                size_t nl = strnlen(nm, sizeof d->key - 1 - kl);
                memcpy(d->key + kl, nm, nl);
                kl += nl;
                d->key[kl] = 0;
            }
            int dup = 0;
            for (int j = 0; j < n && !dup; j++)
                dup = !strcmp(dr[j].key, d->key);
            if (dup)
                continue;
            snprintf(d->path, sizeof d->path, "%s", paths[i]);
            snprintf(d->role, sizeof d->role, "%s", names[i]);
            n++;
        }
    }
    free(paths);
    return n;
}

int baseline_run(const struct config *cfg, FILE *out) {
    char file[4200];
    baseline_path(cfg, file, sizeof file);
    struct drive *dr = calloc(MAX_DRIVES, sizeof *dr);
    if (!dr) {
        fprintf(out, "harness baseline: out of memory\n");
        return -1;
    }
    int n = drives_of(cfg, dr, MAX_DRIVES, out);
    json_t *root = json_load_file(file, 0, NULL);
    if (!json_is_object(root)) {
        json_decref(root);
        root = json_object();
    }
    json_t *devs = json_object_get(root, "devices");
    if (!json_is_object(devs)) {
        devs = json_object();
        json_object_set_new(root, "devices", devs);
    }
    int measured = 0, stop = 0;
    for (int i = 0; i < n && !stop; i++) {
        json_t *e = measure(cfg, &dr[i], out, &stop);
        measured += json_is_number(json_object_get(e, "seq_read_Bps"));
        json_object_set_new(devs, dr[i].key, e);
    }
    free(dr);
    if (n == 0)
        fprintf(out, "harness baseline: no data drive found to measure\n");
    int rc = measured;
    if (n > 0 && json_write_atomic(file, root, JSON_INDENT(2)) != 0) {
        fprintf(out, "harness baseline: cannot write %s: %s\n", file, strerror(errno));
        rc = -1;
    } else if (n > 0) {
        fprintf(out, "harness baseline: kept in %s; runs on this machine read it from there\n",
                file);
    }
    json_decref(root);
    if (stop) {
        fprintf(out, "harness baseline: interrupted\n");
        rc = -1;
    }
    return rc;
}

/* ---- a run's view ------------------------------------------------------------------------ */

/* Entry key k (e) holds a figure for device name. */
static int covers(const char *k, const json_t *e, const char *name) {
    size_t j;
    json_t *d;
    if (!strcmp(k, name))
        return 1;
    json_array_foreach(json_object_get(e, "devices"), j, d) {
        if (json_string_value(d) && !strcmp(json_string_value(d), name))
            return 1;
    }
    return 0;
}

json_t *baseline_select(const json_t *file, const struct blkdev *devs, int ndevs,
                        const char *sysroot, double *sum_bps, char *why, size_t whylen) {
    json_t *out = json_object();
    const json_t *entries = json_object_get(file, "devices");
    double sum = 0;
    int missing = 0;
    why[0] = 0;
    char used[BLK_MAX_DEVS][BLK_MAX_DEVS * 33];
    int nused = 0;
    for (int i = 0; i < ndevs; i++) {
        const char *name = devs[i].name, *k;
        const json_t *e, *hit = NULL;
        const char *hitkey = NULL;
        json_object_foreach((json_t *)entries, k, e) {
            if (covers(k, e, name)) {
                hit = e;
                hitkey = k;
            }
        }
        char ident[1400], reason[2048] = "";
        baseline_identity(sysroot, name, ident, sizeof ident);
        const char *theirs =
            json_string_value(json_object_get(json_object_get(hit, "identities"), name));
        if (!hit)
            snprintf(reason, sizeof reason, "%s has no baseline: run ./harness baseline", name);
        else if (!json_is_number(json_object_get(hit, "seq_read_Bps")))
            snprintf(reason, sizeof reason, "%s was not measured: %s", name,
                     json_string_value(json_object_get(hit, "reason"))
                         ? json_string_value(json_object_get(hit, "reason"))
                         : "no figure");
        else if (theirs && ident[0] && strcmp(theirs, ident))
            snprintf(reason, sizeof reason,
                     "the baseline of %s was measured on another device (%s; now %s): run "
                     "./harness baseline again",
                     name, theirs, ident);
        if (reason[0]) {
            json_object_set_new(out, name,
                                json_pack("{s:n, s:n, s:n, s:s}", "seq_read_Bps", "rand_read_iops",
                                          "fio_version", "reason", reason));
            if (!missing++)
                snprintf(why, whylen, "%s", reason);
            continue;
        }
        json_object_set_new(out, name, json_deep_copy(hit));
        int seen = 0;
        for (int j = 0; j < nused && !seen; j++)
            seen = !strcmp(used[j], hitkey);
        if (!seen && nused < BLK_MAX_DEVS) { /* one filesystem over two disks: counted once */
            snprintf(used[nused++], sizeof used[0], "%s", hitkey);
            sum += json_number_value(json_object_get(hit, "seq_read_Bps"));
        }
    }
    if (ndevs == 0)
        snprintf(why, whylen, "no device sampled");
    else if (missing > 1)
        snprintf(why + strlen(why), whylen - strlen(why), " (and %d more)", missing - 1);
    *sum_bps = missing || ndevs == 0 ? NAN : sum;
    return out;
}
