/* prepare.c -- `harness prepare`: load the data a run of --containers N
 * reads, after saying what that is and refusing what cannot fit.
 *
 * Before the first byte (bucket, database or object), each workload's plan
 * hook says what it will write where and how much room the store has; the
 * plan is printed on one screen (prepare_plan.c), with a time from this
 * machine's last measured upload rate. When the bytes still to write, with
 * the erasure overhead and the margin, exceed the drives' free space, the
 * prepare stops there: one line naming the sizes, exit 2. --no-space-check
 * (never --force, which means "rebuild") writes anyway. Where the space
 * cannot be known, one warning says so and the prepare goes on.
 *
 * The prepare record, <stack dir>/prepare.json, keeps what the last prepare
 * planned, whether it skipped the check, how it ended and the upload rate
 * measured by the last prepare that wrote enough to time (64 MiB or more),
 * for the next plan's time. It is this machine's: a hostile or broken one
 * only loses the estimate. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/json.h"
#include "../common/util.h"
#include "../placement/shard.h"
#include "../result/run.h"
#include "../telemetry/baseline.h"
#include "../workloads/stack_state.h"
#include "../workloads/workload.h"
#include "cmdline.h"
#include "commands.h"
#include "prepare_plan.h"

#define EXIT_INVALID 1
#define EXIT_USAGE 2
#define RECORD_MAX (1 << 20)
#define RATE_MIN_BYTES (64.0 * 1024 * 1024) /* less is over too fast to time */

static void record_path(const struct config *cfg, char *out, size_t len) {
    char sd[4200];
    stack_dir(cfg, sd, sizeof sd);
    snprintf(out, len, "%s/prepare.json", sd);
}

/* The last record, or NULL when there is none or it is not one. */
static json_t *record_load(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > RECORD_MAX)
        return NULL;
    json_t *r = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
    if (r && !json_is_object(r)) {
        json_decref(r);
        r = NULL;
    }
    return r;
}

/* Written whole or not at all (a temporary renamed over it). A record that
 * cannot be written is said once: the prepare goes on. */
static void record_save(const char *path, json_t *r, int *warned) {
    if (json_write_atomic(path, r, JSON_INDENT(2) | JSON_SORT_KEYS) == 0)
        return;
    if (!*warned)
        fprintf(stderr, "harness prepare: cannot write the prepare record %s: %s\n", path,
                strerror(errno));
    *warned = 1;
}

static void utc_now(char *buf, size_t len) {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *totals_json(const struct wl_plan *p, const struct plan_totals *t) {
    static const char *const verdict[] = {"nothing to write", "fits", "does not fit",
                                          "space unknown"};
    return json_pack("{s:I, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:s}", "items",
                     (json_int_t)p->items, "unit", p->unit, "bytes", p->bytes, "present",
                     p->present, "write", t->write, "parity", t->parity, "margin", t->margin,
                     "need", t->need, "free", t->free, "verdict", verdict[t->verdict],
                     "space_source", p->space_src);
}

static int prepare_cmd(struct config *cfg) {
    struct run_layout lay;
    char err[1024];
    if (layout_build(cfg, &lay, err, sizeof err) != 0 ||
        shard_check_prepare(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "harness prepare: %s\n", err);
        return EXIT_USAGE;
    }
    /* Prepare for the largest point of a sweep. */
    for (unsigned i = 0; i < cfg->ncontainers; i++)
        if (cfg->containers[i] > cfg->n)
            cfg->n = cfg->containers[i];

    /* The plan, before anything is written. */
    struct wl_plan plans[CONFIG_MAX_WL];
    struct plan_totals totals[CONFIG_MAX_WL];
    const char *names[CONFIG_MAX_WL];
    unsigned np = 0, idx[CONFIG_MAX_WL];
    for (unsigned w = 0; w < lay.nwl && np < CONFIG_MAX_WL; w++) {
        if (!lay.wl[w]->plan)
            continue;
        if (lay.wl[w]->plan(cfg, &plans[np], err, sizeof err) != 0) {
            fprintf(stderr, "harness prepare: %s: %s\n", lay.wl[w]->name, err);
            return EXIT_INVALID;
        }
        plan_totals(&plans[np], &totals[np]);
        names[np] = lay.wl[w]->name;
        idx[np++] = w;
    }
    char path[4400], rate_src[128] = "unknown until a prepare here has written 64 MiB or more";
    json_t *old = record_load((record_path(cfg, path, sizeof path), path));
    json_t *up = json_object_get(old, "upload");
    double rate = json_number_value(json_object_get(up, "bytes_per_s"));
    const char *at = json_string_value(json_object_get(up, "at"));
    if (rate > 0 && at)
        snprintf(rate_src, sizeof rate_src, "the prepare of %.32s", at);
    else
        rate = 0;
    plan_print(stdout, names, plans, totals, np, rate, rate_src, cfg->no_space_check);

    for (unsigned i = 0; i < np; i++) {
        if (totals[i].verdict == PLAN_TOO_BIG && !cfg->no_space_check) {
            plan_refusal(err, sizeof err, names[i], &plans[i], &totals[i]);
            fprintf(stderr, "harness prepare: %s\n", err);
            json_decref(old);
            return EXIT_USAGE;
        }
        if (totals[i].verdict == PLAN_UNKNOWN)
            fprintf(stderr,
                    "harness prepare: %s: warning: the space could not be checked (%s); writing "
                    "anyway\n",
                    names[i], plans[i].space_src);
    }

    /* The record: what this prepare set out to do, then how it ended. */
    char now[32];
    int warned = 0;
    utc_now(now, sizeof now);
    json_t *rec = json_object(), *wls = json_object();
    json_object_set_new(rec, "started", json_string(now));
    json_object_set_new(rec, "cmdline", json_string(cfg->cmdline));
    json_object_set_new(rec, "no_space_check", json_boolean(cfg->no_space_check));
    for (unsigned i = 0; i < np; i++)
        json_object_set_new(wls, names[i], totals_json(&plans[i], &totals[i]));
    json_object_set_new(rec, "plan", wls);
    if (up)
        json_object_set(rec, "upload", up);
    json_object_set_new(rec, "result", json_string("running"));
    record_save(path, rec, &warned);
    json_decref(old);

    int rc = 0;
    for (unsigned w = 0; w < lay.nwl && rc == 0; w++) {
        int64_t t = now_ns();
        fprintf(stderr, "harness prepare: %s...\n", lay.wl[w]->name);
        if (lay.wl[w]->prepare(cfg, err, sizeof err) != 0) {
            fprintf(stderr, "harness prepare: %s: %s\n", lay.wl[w]->name, err);
            json_object_set_new(rec, "result", json_sprintf("%s: %s", lay.wl[w]->name, err));
            rc = EXIT_INVALID;
            break;
        }
        double secs = (double)(now_ns() - t) / 1e9;
        fprintf(stderr, "harness prepare: %s ready (%.1f s)\n", lay.wl[w]->name, secs);
        /* This machine's upload rate, from a prepare that wrote enough. */
        for (unsigned i = 0; i < np; i++)
            if (idx[i] == w && totals[i].write >= RATE_MIN_BYTES && secs > 0) {
                utc_now(now, sizeof now);
                json_object_set_new(rec, "upload",
                                    json_pack("{s:f, s:f, s:f, s:s, s:s}", "bytes", totals[i].write,
                                              "seconds", secs, "bytes_per_s",
                                              totals[i].write / secs, "at", now, "workload",
                                              names[i]));
            }
    }
    /* --baseline: the drives now hold the data; a drive it cannot measure
     * is said on its line and does not fail the prepare. */
    if (rc == 0 && cfg->baseline && baseline_run(cfg, stderr) < 0)
        rc = EXIT_INVALID;
    if (rc == 0)
        json_object_set_new(rec, "result", json_string("complete"));
    utc_now(now, sizeof now);
    json_object_set_new(rec, "ended", json_string(now));
    record_save(path, rec, &warned);
    json_decref(rec);
    return rc;
}

int prepare_main(int argc, char **argv) {
    struct config *cfg = calloc(1, sizeof *cfg); /* large: keep it off the stack */
    char err[1024] = "";
    int rc = EXIT_INVALID;
    if (!cfg) {
        fprintf(stderr, "harness prepare: out of memory\n");
        return rc;
    }
    int k = options_load(cfg, argc, argv, 1, err, sizeof err);
    if (k == 1)
        rc = 0;
    else if (k != 0) {
        fprintf(stderr, "harness: %s\n", err);
        rc = EXIT_USAGE;
    } else
        rc = prepare_cmd(cfg);
    options_free(cfg);
    free(cfg);
    return rc;
}
