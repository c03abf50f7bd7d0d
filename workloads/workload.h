/* workload.h -- the one interface every workload implements, and all it
 * declares about itself.
 *
 * Like fio's ioengines: a workload is one descriptor, and the coordinator,
 * results, summary, report, CSV and compare walk the table of them
 * (registry.c) without knowing any workload by name. A descriptor carries
 *   - its options: rows pointing into its own settings struct (opts_size
 *     bytes, allocated per run, found with workload_opts() or, in the
 *     workload's own files, its inline accessor);
 *   - what a cycle holds (ops_per_cycle) and whether it is a test workload;
 *   - the figures it adds to its results: counters summed over operations
 *     (s3's bytes, search's matched lines) and extra histograms (s3's time
 *     to first byte), named as they appear in result.json, the summary, the
 *     report, CSV and compare; and sub-classes reported separately (s3's
 *     size classes, db's query patterns);
 *   - subcommands of its own (`harness corpus`, `harness search`);
 *   - the hooks below.
 *
 * A worker calls open() before the start barrier (connect, compile, load),
 * run() once per operation inside the measured loop, and close() at the end.
 * prepare() runs in `harness prepare` only, never in a measured run. run()
 * does no printing, no file writes and no allocation of ours (libraries may
 * allocate: libcurl copies each GET's URL); it reports what it did in the
 * caller's op_result and the worker turns that into counters and histograms.
 * An operation that fails returns -1 with res->err set to one line a person
 * understands; it counts as an error, never as a completion. */
#ifndef AOPS_WORKLOAD_H
#define AOPS_WORKLOAD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/config.h"
#include "../common/options.h"

#define WL_MAX_CLASSES 8
#define WL_MAX_COUNTERS 4
#define WL_MAX_HISTS 2
#define WL_ERRLEN 256

enum wl_unit { WL_COUNT = 0, WL_BYTES };

/* A counter: the sum over completed operations of op_result.count[i]. */
struct wl_counter {
    const char *key;   /* result.json key under workloads.<name> ("bytes") */
    const char *title; /* words for the summary, report and compare ("bytes read") */
    enum wl_unit unit;
};

/* An extra histogram (nanoseconds in, milliseconds out like latency_ms). */
struct wl_hist {
    const char *key;   /* "ttfb_ms" */
    const char *title; /* "time to first byte" */
};

struct op_result {
    uint64_t count[WL_MAX_COUNTERS]; /* this operation's share of each counter */
    int64_t hist_ns[WL_MAX_HISTS];   /* a value for each extra histogram, -1 for none */
    int klass;                       /* index into class_names, -1 for none */
    int fatal; /* set with an error when the worker cannot go on (server gone) */
    char err[WL_ERRLEN];
};

/* Where this machine can read the CPU time of a server a workload loads
 * (MinIO, MariaDB), for CPU attribution. */
struct wl_server {
    char cgroup[4096];      /* directory holding its CPU files (cgroup_stat.h), or "" */
    char perf_cgroup[4096]; /* directory perf_event_open can count it by, or "" */
    int pid;                /* else a process whose tree is the server, or 0 */
    char source[512];       /* how it was found ("scripts/stack state in DIR") */
    char unavailable[512];  /* when none of the above: why ("not on this host (...)") */
};

/* One count a server keeps of what the workload asks of it (MariaDB's
 * Com_select, MinIO's GetObject requests). */
#define WL_MAX_SERVER_COUNTS 4
struct wl_server_count {
    const char *name; /* "Com_select" */
    uint64_t value;
    int compare; /* 1: must reach the operations the workers completed */
};

/* What the caller (cmd/main.c) hands a workload's subcommand: every
 * workload's default settings and their option rows, as a run has them, so
 * that a command taking the run's options (`harness corpus fetch --profile
 * P`) never calls the registry that lists its own workload (a circle). The
 * caller frees them after main() returns. */
struct wl_command_env {
    struct config *cfg;         /* workloads_config_init's defaults */
    const struct opt_set *sets; /* workloads_option_sets(cfg) */
    size_t nsets;
};

/* A subcommand a workload brings (`harness corpus fetch`). */
struct wl_command {
    const char *name;  /* argv[1] */
    const char *usage; /* one line, after "harness " */
    /* argv[0] is the command name. */
    int (*main)(const struct wl_command_env *env, int argc, char **argv);
};

/* A place for files at URLs "<scheme>://<bucket>/<key>", offered by a
 * workload that already talks to such a server (s3 for s3://): a sharded
 * run puts its result.json there (--results-url) and `harness merge` lists
 * and reads them back, so the hosts need no shared volume. Each call is one
 * request or a few; 0, or -1 with err set to one line. */
struct wl_store {
    const char *scheme; /* "s3" */
    int (*put)(const struct config *cfg, const char *bucket, const char *key, const void *data,
               size_t len, char *err, size_t errlen);
    /* *data: malloc'd and NUL-terminated, *len bytes before the NUL. */
    int (*get)(const struct config *cfg, const char *bucket, const char *key, char **data,
               size_t *len, char *err, size_t errlen);
    /* The keys right under prefix (not below a further '/'), sorted; the
     * array and each key malloc'd. */
    int (*list)(const struct config *cfg, const char *bucket, const char *prefix, char ***keys,
                size_t *n, char *err, size_t errlen);
};

/* This host's wall clock against a server's: server time = local time +
 * offset_s, known to within +- uncertainty_s. */
struct wl_clock {
    double offset_s, uncertainty_s;
    char reference[256]; /* what was asked, for the result ("Date header of ...") */
};

/* What `harness prepare` will put where, asked before it writes a byte
 * (coordinator/prepare_plan.h adds them up and decides whether it fits). */
struct wl_plan {
    uint64_t items;   /* objects, rows, files the prepared data holds */
    const char *unit; /* "objects", "rows", "files" */
    double bytes;     /* their bytes before any erasure overhead; -1: not estimated */
    double present;   /* bytes of them an earlier prepare left in place, 0 none */
    int writes;       /* 1: prepare writes them; 0: it only checks them (the corpus) */
    char where[512];  /* "into MinIO at http://127.0.0.1:9000, bucket 'aops'" */
    char detail[256]; /* "2,000,000 sessions + 8,000,000 events", or "" */
    /* The store's room, where it can be known (else space_known is 0 and
     * space_why says why: not MinIO, keys without admin rights). */
    int space_known;
    unsigned data_shards, parity_shards; /* erasure: a byte costs (d+p)/d; 1, 0: none */
    char layout[256];                    /* "4 drives, 1 set of 4, EC:2 (MinIO admin info)" */
    double free_bytes;   /* raw bytes the drives can still take (all of them, summed) */
    char space_src[512]; /* "statvfs of 1 drive: /x/data", or why the space is unknown */
};

struct workload {
    const char *name;  /* "s3"; the key in result.json and --workloads */
    const char *title; /* "S3 GET" */
    unsigned ops_per_cycle;
    int test_only; /* never part of a real run: such a run is not a benchmark */

    const struct opt_row *options; /* rows into its settings struct */
    size_t noptions;
    size_t opts_size;
    /* Optional: defaults the rows cannot hold (paths below the repository),
     * applied after the rows' own and before any option is parsed. */
    void (*init_opts)(const struct config *cfg, void *opts);

    const struct wl_counter *counters; /* op_result.count[i] */
    unsigned ncounters;
    const struct wl_hist *hists; /* op_result.hist_ns[i] */
    unsigned nhists;
    const char *classes_key; /* "classes", "patterns"; NULL without classes */
    unsigned nclasses;
    const char *const *class_names;

    const struct wl_command *commands; /* NULL-name terminated, or NULL */

    /* Optional: check the settings hang together (called once after
     * parsing, for the workloads that will run). 0, or -1 with err. */
    int (*check)(const struct config *cfg, char *err, size_t errlen);

    /* `harness prepare`: load the data this workload needs for cfg->n
     * workers. Idempotent. Returns 0, or -1 with err set. May print. */
    int (*prepare)(const struct config *cfg, char *err, size_t errlen);

    /* Optional: what prepare() will write, for the plan printed before it
     * starts and the check that it fits. Asks the server (never writes).
     * 0, or -1 with err set when the server cannot be asked at all. */
    int (*plan)(const struct config *cfg, struct wl_plan *out, char *err, size_t errlen);

    /* Before the barrier, in the worker: connect, compile, check the data is
     * there. Returns state, or NULL with err set (one line). */
    void *(*open)(const struct config *cfg, unsigned worker, char *err, size_t errlen);

    /* One operation. op is in [0, ops_per_cycle) and names which operation
     * of the cycle this is; cycle counts from 0. 0 on success, -1 on error. */
    int (*run)(void *state, unsigned cycle, unsigned op, struct op_result *res);

    void (*close)(void *state);

    /* Optional: what serves this workload, for the inventory (the server's
     * product and version; search: the file reader in use), asked once by
     * the coordinator before the run. 0, or -1 with out = the reason. */
    int (*backend)(const struct config *cfg, char *out, size_t len);

    /* Optional: what the server behind this workload runs, with the settings
     * that move its results (MinIO: version, drives, erasure set size and
     * parity; MariaDB: VERSION() and the buffer pool, connections, flush and
     * thread settings in force), as an object for result.json's
     * provenance.servers.<name>. Asked once by the coordinator before the
     * run, never in the measured path. Never NULL: a server that cannot be
     * asked gives {"unavailable": why}. Never a secret. */
    json_t *(*server_info)(const struct config *cfg);

    /* Optional: the workload's part of result.json's config, as an object
     * whose keys are merged into config ({"s3": {...}, "dataset": ...});
     * `selected` says whether it runs. It may append warnings (settings that
     * weaken a result). Never writes a secret. */
    json_t *(*describe)(const struct config *cfg, int selected, json_t *warnings);

    /* Optional, with describe: dotted keys of that config naming this
     * host's paths ("corpus.dir"), which may differ between the shards of
     * one run and are left out of the config hash they compare; NULL-ended. */
    const char *const *host_keys;

    /* Optional, with describe: the dotted config key saying what data the
     * workload ran on ("corpus.manifest"); compare refuses two runs whose
     * values differ. */
    const char *data_key;

    /* Optional, with describe: dotted config keys of settings that change
     * what one operation is (search: its threads); compare refuses two runs
     * whose values differ, as it refuses other data. NULL-ended. */
    const char *const *compare_keys;

    /* Optional: bytes of the data its run reads on this host (objects,
     * trees), for the data set against the memory; -1 when unknown. */
    double (*dataset_bytes)(const struct config *cfg);

    /* Optional: --cache cold, before the workers start: empty the server's
     * own caches (the local stack's MariaDB is restarted, its buffer pool
     * empty). 0 done, 1 nothing to do here, -1 failed; note says which. */
    int (*cold_start)(const struct config *cfg, char *note, size_t len);

    /* Optional: directories holding its data on this machine, for the
     * storage telemetry. Writes up to max (name, path) pairs; returns how
     * many. */
    int (*data_paths)(const struct config *cfg, const char *names[], char paths[][4096], int max);

    /* Optional: the server this workload loads ("minio"), a component of
     * result.json's attribution; workloads sharing a server name it alike.
     * --server-cgroup NAME=PATH / --server-pid NAME=PID take these names. */
    const char *server_name;

    /* Optional with server_name: find the server on this machine (the local
     * stack's state, by default). 0 with out's cgroup, perf_cgroup or pid
     * set; -1 with out->unavailable saying why not ("not on this host"). */
    int (*server_locate)(const struct config *cfg, struct wl_server *out);

    /* Optional: the server's own counts of this workload's requests, read by
     * the coordinator outside the measured loop, once with every worker
     * ready and once after the last one ended, so the run can check the
     * server saw at least what the workers completed. Writes up to max
     * counts; returns how many, or -1 with err set (unreachable, a server
     * that keeps no such count). */
    int (*server_count)(const struct config *cfg, struct wl_server_count *out, int max, char *err,
                        size_t errlen);

    /* Optional: where the workload's answers and data come from, asked once
     * by the coordinator before the run: an object with any of
     *   "libraries":    {name: version as loaded},
     *   "data":         {name: {"sha256": ..., ...}} (its manifests),
     *   "verification": {"verified": true, "how": ...} or {false, "why"}
     * for result.json's provenance and verification. Never a secret. */
    json_t *(*provenance)(const struct config *cfg);

    /* Optional: a store for result files (see struct wl_store). */
    const struct wl_store *store;

    /* Optional: measure this host's clock against the server this workload
     * talks to, the reference every shard of a run shares. May take about a
     * second. 0, or -1 with err. */
    int (*clock_offset)(const struct config *cfg, struct wl_clock *out, char *err, size_t errlen);
};

/* The workloads of the table, in the order of a phased cycle: the three real
 * ones, then the test-only ones the coordinator's own tests use. A new
 * workload is its own file plus its name here; registry.c builds the table
 * from this list, so a workload's slot (WL_SLOT_db) is its index in the table
 * and in cfg->wl_opts by construction. */
#define WORKLOADS(X) X(s3) X(db) X(search) X(sleep) X(memhog) X(tick)

#define WL_SLOT_ENUM(w) WL_SLOT_##w,
enum wl_slot { WORKLOADS(WL_SLOT_ENUM) WL_NSLOTS };
#undef WL_SLOT_ENUM
_Static_assert(WL_NSLOTS <= CONFIG_MAX_WL, "more workloads than CONFIG_MAX_WL");

/* A workload's settings struct in cfg by its slot: what each workload's own
 * accessor (db_opts(), s3_opts(), ...) returns. Inline, so that a workload's
 * files reach their settings without calling into registry.c, which refers to
 * every descriptor (a call back would close a circle registry -> db -> registry). */
static inline const void *workload_opts_at(const struct config *cfg, enum wl_slot slot) {
    return cfg->wl_opts[slot];
}

/* The table, in the order of WORKLOADS, NULL-terminated. */
extern const struct workload *const workload_table[];
const struct workload *workload_find(const char *name);
int workload_index(const struct workload *w); /* -1 when not in the table */

/* A workload's settings struct in cfg (allocated by workloads_config_init). */
const void *workload_opts(const struct config *cfg, const struct workload *w);

/* Defaults for cfg and every workload's settings (allocated here; free with
 * workloads_config_free). Returns 0, or -1 with err. */
int workloads_config_init(struct config *cfg, char *err, size_t errlen);
void workloads_config_free(struct config *cfg);

/* The option sets of cfg: its own rows, then each workload's. Returns how
 * many were written (at most max). */
size_t workloads_option_sets(struct config *cfg, struct opt_set *sets, size_t max);

/* Resolve cfg->workloads into cfg->wl_mask (all real workloads when empty)
 * and run each selected workload's check(). 0, or -1 with err. */
int workloads_select(struct config *cfg, char *err, size_t errlen);

/* Operations per cycle of every real (not test-only) workload: a full cycle. */
unsigned workloads_full_cycle(void);

/* "<scheme>://<bucket>/<prefix>": the store of the workload that offers the
 * scheme. NULL with err when the URL is malformed or no workload has one. */
const struct wl_store *store_for_url(const char *url, char *bucket, size_t blen, char *prefix,
                                     size_t plen, const struct workload **owner, char *err,
                                     size_t errlen);
/* Whether s looks like "<scheme>://..." rather than a path. */
int is_store_url(const char *s);
/* The schemes the workloads' stores offer, "a|b" (for help texts). */
void store_schemes(char *out, size_t len);

#endif
