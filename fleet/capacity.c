/* capacity.c -- `harness capacity --slo SPEC [--containers LO..HI] [run options]`:
 * the most agents (containers) whose run meets the SLO.
 *
 * Each point is a whole `harness run` of its own, made by run_main with the
 * command line given here and only --containers (and --out, and --repeat for
 * a confirmation) put in: every other option, those a later build adds too,
 * reaches every point as given. The counts come from capacity_search.c
 * (doubling, bisection, both ends of the knee repeated); each point is a
 * full run in OUT/points/<N> (OUT/points/<N>-x<K> repeated), which `harness
 * check` recomputes like any other, and its output goes to the .log beside
 * it, so the terminal shows one line per point. OUT/capacity.json is
 * written again after every point: a search cut short keeps what it ran.
 * It lives above coordinator/ (one host's run, and nothing else) with the
 * other commands made of several runs' results, as merge is. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/json.h"
#include "../coordinator/cmdline.h"
#include "../coordinator/commands.h"
#include "../result/results.h"
#include "../result/slo.h"
#include "../workloads/workload.h"
#include "capacity_fleet.h"
#include "capacity_result.h"
#include "capacity_run.h"
#include "capacity_search.h"

#define EXIT_USAGE 2
#define EXIT_SIGNAL 130

struct cap {
    char out[4096];
    char **fwd; /* the run options, as given, less capacity's own */
    int nfwd;
    struct cap_runner run;
    struct config *cfg;   /* the options as a point takes them (the store's settings) */
    unsigned shards;      /* 1; N with --shard I/N: a point's agents are N x the count */
    struct cap_fleet fl;  /* with --shard */
    const char *start_at; /* --start-at as given (the fleet's first run) */
    const char *url;      /* --results-url as given */
    const char *lead;     /* --lead as given */
    struct cap_search s;
    struct slo slo;
    json_t *points;  /* one object per point run, in order */
    json_t *reasons; /* why the capacity is not valid */
    char stopped[1024];
    char cmdline[8192];
};

static void usage(FILE *f) {
    fprintf(f, "usage: harness capacity [--slo SPEC] [--containers LO..HI] [--repeat K] "
               "[--out DIR] [run options]\n"
               "       harness capacity --shard I/N --start-at T --results-url URL [--lead S] ...\n"
               "  The most agents (containers) whose run meets the SLO (default: the default\n"
               "  SLO): doubling from LO (1), then bisection up to HI (1024); the last passing\n"
               "  and the first failing counts are run again with --repeat K (3) before the\n"
               "  verdict. Each point is a full run in DIR/points/<N>; DIR/result.json is the\n"
               "  run at agents at SLO with capacity{} (also in DIR/capacity.json). Every other\n"
               "  option is a run's, passed to every point as given.\n"
               "  --shard I/N: every host of a fleet runs the same command; each point is a\n"
               "  fleet run of LO..HI containers per host (agents: N times that), merged from\n"
               "  the shards' results under URL on every host, the first at T, each next one\n"
               "  --lead S (20) after the merged run's last completion.\n");
}

/* "LO..HI" or "N" (1..N). */
static int parse_range(const char *v, unsigned *lo, unsigned *hi) {
    char *end;
    errno = 0;
    unsigned long a = strtoul(v, &end, 10), b;
    if (errno || end == v || *v == '-' || *v == '+')
        return -1;
    if (!*end)
        b = a, a = 1;
    else if (end[0] == '.' && end[1] == '.' && end[2] >= '0' && end[2] <= '9') {
        const char *p = end + 2;
        b = strtoul(p, &end, 10);
        if (errno || *end)
            return -1;
    } else
        return -1;
    if (a < 1 || b < a || b > 65536)
        return -1;
    *lo = (unsigned)a, *hi = (unsigned)b;
    return 0;
}

/* result.json of a point: ours, just written, but read as any file is. */
static json_t *load_point(const char *dir) {
    char path[4200], err[4400];
    snprintf(path, sizeof path, "%s/result.json", dir);
    return json_load_bounded(path, 256u << 20, 0, err, sizeof err);
}

/* points[]: what a point says, from its result. */
static json_t *point_json(unsigned agents, unsigned k, const char *rel, const json_t *res) {
    json_t *wls = json_object();
    const char *name;
    const json_t *w;
    json_object_foreach(json_object_get((json_t *)res, "workloads"), name, w) {
        json_object_set_new(wls, name,
                            json_pack("{s:o, s:o}", "p50_ms",
                                      json_deep_copy(jget(w, "latency_ms.p50")), "p99_ms",
                                      json_deep_copy(jget(w, "latency_ms.p99"))));
    }
    const json_t *slo = json_object_get(res, "slo");
    json_t *aops = json_deep_copy(jget(res, "totals.aops"));
    return json_pack("{s:i, s:i, s:s, s:O?, s:o, s:O?, s:o, s:o, s:O?}", "agents", (int)agents,
                     "repeat", (int)k, "dir", rel, "valid", json_object_get(res, "valid"), "aops",
                     aops ? aops : json_null(), "met", json_object_get(slo, "met"), "workloads",
                     wls, "checks", json_deep_copy(json_object_get(slo, "checks")),
                     "invalid_reasons", json_object_get(res, "invalid_reasons"));
}

/* The latest point of the count n (n x shards agents; a confirmation
 * first), or NULL. */
static const json_t *point_of(const struct cap *c, unsigned n) {
    const json_t *best = NULL;
    n *= c->shards;
    size_t i;
    const json_t *p;
    json_array_foreach(c->points, i, p) {
        if (json_integer_value(json_object_get(p, "agents")) != n)
            continue;
        if (!best || json_integer_value(json_object_get(p, "repeat")) > 1 ||
            json_integer_value(json_object_get(best, "repeat")) <= 1)
            best = p;
    }
    return best;
}

/* The bound that failed at the first failing point: an error first (no
 * latency excuses it), else the check furthest over its bound. */
static json_t *limiting(const json_t *fail) {
    const json_t *pick = NULL;
    double worst = -1;
    size_t i;
    const json_t *ck;
    json_array_foreach(json_object_get(fail, "checks"), i, ck) {
        if (json_is_true(json_object_get(ck, "met")))
            continue;
        double r = json_is_string(json_object_get(ck, "reason"))
                       ? INFINITY
                       : jnum(ck, "measured_ms") / jnum(ck, "bound_ms");
        if (!pick || r > worst)
            pick = ck, worst = r;
    }
    if (!pick)
        return NULL;
    json_t *l =
        json_pack("{s:O, s:O, s:O, s:O, s:O}", "workload", json_object_get(pick, "workload"),
                  "percentile", json_object_get(pick, "percentile"), "bound_ms",
                  json_object_get(pick, "bound_ms"), "measured_ms",
                  json_object_get(pick, "measured_ms"), "reason", json_object_get(pick, "reason"));
    if (json_object_get(pick, "class"))
        json_object_set(l, "class", json_object_get(pick, "class"));
    return l;
}

/* capacity.json from the points so far; the verdict line into line. */
static json_t *capacity_json(const struct cap *c, char *line, size_t len) {
    /* A search that stopped found no knee: what passed is in points[]. */
    const json_t *pass = c->s.pass && !c->stopped[0] ? point_of(c, c->s.pass) : NULL;
    const json_t *fail = c->s.fail && !c->stopped[0] ? point_of(c, c->s.fail) : NULL;
    json_t *lim = fail ? limiting(fail) : NULL;
    const char *agents_why = c->stopped[0] ? c->stopped
                             : c->s.pass   ? NULL
                             : c->s.fail ? "even the fewest agents of the range (--containers LO) "
                                           "miss the SLO"
                                         : "no point was run";
    /* Offered load: what paced agents ask for (config.agent_rate, per agent,
     * in a paced run's result); a closed loop offers nothing beyond what it
     * is served. */
    double rate = NAN;
    if (pass) {
        char pdir[4200];
        snprintf(pdir, sizeof pdir, "%s/%s", c->out,
                 json_string_value(json_object_get(pass, "dir")));
        json_t *r = load_point(pdir);
        rate = jnum(r, "config.agent_rate");
        json_decref(r);
    }
    int paced = isfinite(rate) && rate > 0;
    /* Agents are containers; in a fleet, every shard's (the count x N). */
    unsigned k = c->shards, a_pass = c->s.pass * k;
    json_t *cap =
        json_pack("{s:{s:s, s:s}, s:i, s:{s:i, s:i}, s:i}", "slo", "spec", c->slo.spec, "source",
                  c->slo.is_default ? "default" : "given", "shards", (int)k, "containers", "lo",
                  (int)c->s.lo, "hi", (int)c->s.hi, "repeat", (int)c->s.repeat);
    json_object_set_new(cap, "agents_at_slo", pass ? json_integer(a_pass) : json_null());
    json_object_set_new(cap, "agents_at_slo_reason",
                        agents_why ? json_string(agents_why) : json_null());
    json_object_set_new(cap, "at_least", json_boolean(pass && !c->s.fail));
    json_object_set_new(cap, "aops_at_slo",
                        pass ? json_deep_copy(json_object_get(pass, "aops")) : json_null());
    json_object_set_new(cap, "offered_ops_per_s", paced ? json_real(rate * a_pass) : json_null());
    json_object_set_new(
        cap, "offered_ops_per_s_reason",
        paced  ? json_null()
        : pass ? json_string("a closed loop: each agent sends its next call when the last "
                             "returns, so nothing is offered beyond what is served (AOPS at SLO "
                             "is the rate)")
               : json_string(agents_why));
    json_object_set_new(cap, "limiting", lim ? lim : json_null());
    json_object_set_new(cap, "limiting_reason",
                        lim             ? json_null()
                        : fail          ? json_string("the failing point names no failed bound")
                        : c->stopped[0] ? json_string(c->stopped)
                                        : json_string("no count of the range failed the SLO"));
    /* The run result.json is made of (capacity_result.c): the knee's
     * passing point; else what was measured, the lowest count's failure or
     * the point the search stopped at. */
    const json_t *head = pass   ? pass
                         : fail ? fail
                                : json_array_get(c->points, json_array_size(c->points) - 1);
    json_object_set_new(
        cap, "headline",
        head ? json_pack("{s:O, s:O, s:O}", "agents", json_object_get(head, "agents"), "repeat",
                         json_object_get(head, "repeat"), "dir", json_object_get(head, "dir"))
             : json_null());
    json_object_set_new(cap, "headline_reason",
                        head   ? json_null()
                        : pass ? json_string("the passing point left no result")
                               : json_string("no point left a result"));
    json_object_set_new(cap, "points", json_deep_copy(c->points));
    json_object_set_new(cap, "valid", json_boolean(json_array_size(c->reasons) == 0));
    json_object_set_new(cap, "invalid_reasons", json_deep_copy(c->reasons));
    json_object_set_new(cap, "command", json_string(c->cmdline));
    char lim_txt[160] = "";
    if (lim)
        snprintf(lim_txt, sizeof lim_txt, "limited by %s%s%s %s",
                 json_string_value(json_object_get(lim, "workload")),
                 json_object_get(lim, "class") ? "." : "",
                 json_object_get(lim, "class") ? json_string_value(json_object_get(lim, "class"))
                                               : "",
                 json_string_value(json_object_get(lim, "percentile")));
    if (c->stopped[0])
        snprintf(line, len, "agents at SLO: unknown, the search stopped (%s)", c->stopped);
    else if (c->s.pass && c->s.fail)
        snprintf(line, len, "agents at SLO: %u (AOPS at SLO %.2f, %s)", a_pass, jnum(pass, "aops"),
                 lim_txt);
    else if (c->s.pass)
        snprintf(line, len,
                 "agents at SLO: at least %u (AOPS at SLO %.2f; no bound failed up to "
                 "--containers %u%s)",
                 a_pass, jnum(pass, "aops"), c->s.hi, k > 1 ? " per host" : "");
    else if (c->s.fail)
        snprintf(line, len, "agents at SLO: none from %u on (%s)", c->s.lo * k, lim_txt);
    else
        snprintf(line, len, "agents at SLO: unknown (%s)", agents_why);
    return json_pack("{s:i, s:o}", "schema_version", RESULT_SCHEMA_VERSION, "capacity", cap);
}

/* capacity.json from the points so far; returns it (the caller's). */
static json_t *write_capacity(const struct cap *c, char *line, size_t len) {
    json_t *j = capacity_json(c, line, len);
    char path[4200];
    snprintf(path, sizeof path, "%s/capacity.json", c->out);
    if (!j || json_write_atomic(path, j, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0)
        fprintf(stderr, "harness capacity: cannot write %s: %s\n", path, strerror(errno));
    return j;
}

/* Split argv: --containers, --out, --repeat, --lead are capacity's, and
 * --start-at and --results-url are put in per run; the rest goes to every
 * point, values kept with their options (the option tables say which take
 * one). */
static int split_args(struct cap *c, int argc, char **argv, unsigned *lo, unsigned *hi, unsigned *k,
                      int *have_containers) {
    struct config *cfg = calloc(1, sizeof *cfg);
    char err[512];
    if (!cfg || workloads_config_init(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "harness capacity: %s\n", cfg ? err : "out of memory");
        free(cfg);
        return -1;
    }
    struct opt_set sets[CONFIG_MAX_WL + 1];
    size_t ns = workloads_option_sets(cfg, sets, CONFIG_MAX_WL + 1);
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        const char *eq = !strncmp(a, "--", 2) ? strchr(a, '=') : NULL;
        char name[64] = "";
        if (!strncmp(a, "--", 2))
            snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2), a + 2);
        const struct opt_row *row = name[0] ? opt_find(sets, ns, name, NULL) : NULL;
        int own = !strcmp(name, "lead"); /* capacity's alone: no run knows it */
        int takes = ((row && row->type != OPT_FLAG) || own) && !eq;
        const char *val = eq ? eq + 1 : takes && i + 1 < argc ? argv[i + 1] : NULL;
        if (takes && !val) {
            fprintf(stderr, "harness capacity: --%s needs a value\n", name);
            rc = -1;
            break;
        }
        if (!strcmp(name, "containers")) {
            *have_containers = 1;
            if (parse_range(val, lo, hi) != 0) {
                fprintf(stderr,
                        "harness capacity: --containers '%s': expected LO..HI (or N for 1..N), "
                        "whole numbers with 1 <= LO <= HI <= 65536\n",
                        val);
                rc = -1;
            }
        } else if (!strcmp(name, "out"))
            snprintf(c->out, sizeof c->out, "%s", val);
        else if (!strcmp(name, "start-at"))
            c->start_at = val;
        else if (!strcmp(name, "results-url"))
            c->url = val;
        else if (own) {
            char *end;
            double v = strtod(val, &end);
            if (*end || !*val || !(v >= 1 && v <= 3600)) {
                fprintf(stderr, "harness capacity: --lead '%s': seconds from 1 to 3600\n", val);
                rc = -1;
            }
            c->lead = val;
        } else if (!strcmp(name, "repeat")) {
            char *end;
            unsigned long v = strtoul(val, &end, 10);
            if (*end || !*val || v < 1 || v > 1000) {
                fprintf(stderr, "harness capacity: --repeat '%s': a whole number from 1 to 1000\n",
                        val);
                rc = -1;
            }
            *k = (unsigned)v;
        } else {
            c->fwd[c->nfwd++] = argv[i];
            if (takes && !eq)
                c->fwd[c->nfwd++] = argv[i + 1];
        }
        i += takes && !eq;
    }
    workloads_config_free(cfg);
    free(cfg);
    return rc;
}

/* The options once, as a run would take them, before any point runs: a
 * usage error is one line and exit 2 with nothing run. */
static int check_args(struct cap *c, unsigned hi) {
    char nbuf[16], err[1024];
    snprintf(nbuf, sizeof nbuf, "%u", hi);
    char **av = calloc((size_t)c->nfwd + 8, sizeof *av);
    struct config *cfg = calloc(1, sizeof *cfg);
    int rc = -1;
    if (!av || !cfg) {
        fprintf(stderr, "harness capacity: out of memory\n");
        goto out;
    }
    int ac = 0;
    av[ac++] = "run";
    for (int i = 0; i < c->nfwd; i++)
        av[ac++] = c->fwd[i];
    av[ac++] = "--containers", av[ac++] = nbuf;
    if (c->start_at)
        av[ac++] = "--start-at", av[ac++] = (char *)c->start_at;
    if (c->url)
        av[ac++] = "--results-url", av[ac++] = (char *)c->url;
    int p = options_load(cfg, ac, av, 1, err, sizeof err);
    if (p != 0) {
        if (p != 1)
            fprintf(stderr, "harness capacity: %s\n", err);
        rc = p == 1 ? 1 : -1;
    } else if (cfg->shards && !c->start_at)
        fprintf(stderr,
                "harness capacity: --shard %u/%u needs --start-at T, the first point's "
                "start, the same on every host (each next start follows from the merged "
                "point)\n",
                cfg->shard, cfg->shards);
    else if (cfg->shards && !c->url)
        fprintf(stderr,
                "harness capacity: --shard %u/%u needs --results-url URL: every host "
                "fetches every shard's result of each point from there\n",
                cfg->shard, cfg->shards);
    else if (!cfg->shards && (c->start_at || c->lead))
        fprintf(stderr,
                "harness capacity: --%s is for a fleet (--shard I/N): on one host each "
                "point starts when the one before has ended\n",
                c->start_at ? "start-at" : "lead");
    else if (slo_from_config(cfg, &c->slo, err, sizeof err) != 0)
        fprintf(stderr, "harness capacity: --slo: %s\n", err);
    else if (!c->slo.n)
        fprintf(stderr, "harness capacity: the SLO has no bound on a workload these runs run "
                        "(the default bounds s3, db and search): give --slo\n");
    else {
        if (!c->out[0]) {
            char ts[64];
            time_t t = time(NULL);
            strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", localtime(&t));
            snprintf(c->out, sizeof c->out, "%s/results/%s-capacity", cfg->harness_dir, ts);
        }
        char f[4300];
        snprintf(f, sizeof f, "%s/capacity.json", c->out);
        if (!cfg->force && access(f, F_OK) == 0)
            fprintf(stderr,
                    "harness capacity: --out %s holds a capacity search already: choose another "
                    "directory, or --force to replace it\n",
                    c->out);
        else
            rc = 0;
    }
    if (rc == 0) { /* kept: the store's settings, for a fleet's merges */
        c->cfg = cfg;
        c->shards = cfg->shards ? cfg->shards : 1;
        c->fl = (struct cap_fleet){
            cfg,        cfg->shard,    cfg->shards,
            c->url,     cfg->start_at, c->lead ? strtod(c->lead, NULL) : CAP_FLEET_LEAD_S,
            cfg->max_cv};
        cfg = NULL;
    }
    if (cfg)
        options_free(cfg);
out:
    free(cfg);
    free(av);
    return rc;
}

int capacity_main(int argc, char **argv, const struct result_exports *ex) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    struct cap *c = calloc(1, sizeof *c);
    if (!c || !(c->fwd = calloc((size_t)argc + 1, sizeof *c->fwd))) {
        fprintf(stderr, "harness capacity: out of memory\n");
        free(c);
        return 1;
    }
    unsigned lo = 1, hi = 1024, k = 3;
    int have = 0, rc = EXIT_USAGE;
    size_t o = 0;
    for (int i = 0; i < argc && o < sizeof c->cmdline; i++)
        o += (size_t)snprintf(c->cmdline + o, sizeof c->cmdline - o, "%s%s", i ? " " : "harness ",
                              argv[i]);
    if (split_args(c, argc, argv, &lo, &hi, &k, &have) != 0)
        goto out;
    int chk = check_args(c, hi);
    if (chk != 0) {
        rc = chk == 1 ? 0 : EXIT_USAGE;
        goto out;
    }
    cap_mkdirs(c->out);
    c->run = (struct cap_runner){c->out, c->fwd, c->nfwd, ex};
    char pdir[4200];
    snprintf(pdir, sizeof pdir, "%s/points", c->out);
    mkdir(pdir, 0755);
    cap_init(&c->s, lo, hi, k);
    c->points = json_array();
    c->reasons = json_array();
    char line[512];
    if (c->shards > 1)
        fprintf(stderr,
                "harness capacity: shard %u of %u: the most agents in %u..%u x %u within %s (%s); "
                "merged points in %s, this host's runs in %s/host\n",
                c->fl.shard, c->shards, lo, hi, c->shards, c->slo.spec,
                c->slo.is_default ? "the default SLO" : "--slo", pdir, c->out);
    else
        fprintf(stderr,
                "harness capacity: the most agents in %u..%u within %s (%s); points in %s\n", lo,
                hi, c->slo.spec, c->slo.is_default ? "the default SLO" : "--slo", pdir);
    unsigned n, rep;
    rc = 0;
    while (cap_next(&c->s, &n, &rep)) {
        char rel[64], fwhy[1024] = "", url[1500];
        unsigned a = n * c->shards; /* the point's agents: every shard's */
        if (rep > 1)
            snprintf(rel, sizeof rel, "points/%u-x%u", a, rep);
        else
            snprintf(rel, sizeof rel, "points/%u", a);
        int prc;
        if (c->shards > 1)
            prc = fleet_point(&c->fl, &c->run, n, rep, rel, fwhy, sizeof fwhy);
        else { /* each point's result under its own prefix of --results-url */
            size_t ul = c->url ? strlen(c->url) : 0;
            snprintf(url, sizeof url, "%s%s%s/", c->url ? c->url : "",
                     ul && c->url[ul - 1] == '/' ? "" : "/", rel);
            const char *extra[] = {"--results-url", url};
            prc = cap_run(&c->run, n, rep, rel, extra, c->url ? 2 : 0);
        }
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%s", c->out, rel);
        json_t *res = load_point(dir);
        const char *why = prc == EXIT_SIGNAL ? "interrupted"
                          : fwhy[0]          ? fwhy
                          : !res             ? "it left no result.json"
                                             : cap_broken(res);
        const json_t *met = json_object_get(json_object_get(res, "slo"), "met");
        if (!why && !json_is_boolean(met))
            why = "its SLO verdict is not a verdict (nothing to judge)";
        if (res) {
            json_array_append_new(c->points, point_json(a, rep, rel, res));
            /* what every point shares (a test workload): said once */
            size_t i;
            const json_t *r;
            json_array_foreach(json_object_get(res, "invalid_reasons"), i, r) {
                int seen = 0;
                size_t j;
                const json_t *q;
                json_array_foreach(c->reasons, j, q) seen |= json_equal(q, r);
                if (!seen)
                    json_array_append(c->reasons, (json_t *)r);
            }
        }
        /* A point that measured nothing has no AOPS: a dash, not "nan". */
        char aops[32] = "-";
        double v = jnum(res, "totals.aops");
        if (isfinite(v))
            snprintf(aops, sizeof aops, "%.2f", v);
        fprintf(stderr, "capacity: %u agent%s%s: AOPS %s, ", a, a == 1 ? "" : "s",
                rep > 1 ? " (repeated, median)" : "", aops);
        if (why) {
            snprintf(c->stopped, sizeof c->stopped,
                     "the point of %u agents (%s) is invalid: %.900s", a, rel, why);
            json_array_append_new(c->reasons, json_string(c->stopped));
            fprintf(stderr, "invalid: %s\n", why);
            fprintf(stderr,
                    "harness capacity: the search stops at the invalid point of %u agents (%s); "
                    "the points so far are in %s/capacity.json, valid false\n",
                    a, rel, c->out);
            json_decref(res);
            rc = prc == EXIT_SIGNAL ? EXIT_SIGNAL : prc == EXIT_USAGE ? EXIT_USAGE : 1;
            break;
        }
        char verdict[1024];
        slo_line(json_object_get(res, "slo"), verdict, sizeof verdict);
        fprintf(stderr, "SLO %s\n", verdict);
        cap_record(&c->s, n, rep, json_is_true(met));
        json_decref(res);
        json_decref(write_capacity(c, line, sizeof line));
    }
    /* No count within the SLO is no capacity: said, and not valid. */
    if (!c->stopped[0] && !c->s.pass && c->s.fail) {
        char why[256];
        snprintf(why, sizeof why,
                 "no count met the SLO: even the fewest agents of the range (%u) miss it",
                 c->s.lo * c->shards);
        json_array_append_new(c->reasons, json_string(why));
    }
    json_t *doc = write_capacity(c, line, sizeof line);
    char err[4400];
    int wrote = capacity_result_write(c->out, json_object_get(doc, "capacity"), err, sizeof err);
    if (wrote != 0)
        fprintf(stderr, "harness capacity: %s\n", err);
    json_decref(doc);
    printf("%s\n  capacity: %s/%s\n", line, c->out, wrote == 0 ? "result.json" : "capacity.json");
    if (!rc && json_array_size(c->reasons))
        rc = 1;
out:
    if (c->cfg)
        options_free(c->cfg);
    free(c->cfg);
    json_decref(c->points);
    json_decref(c->reasons);
    free(c->fwd);
    free(c);
    return rc;
}
