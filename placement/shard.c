/* shard.c -- one host's share of a run over several (see shard.h). */
#include "shard.h"

#include <ctype.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/json.h"
#include "../common/oplog.h"
#include "../common/walltime.h"

int shard_check(const struct config *cfg, char *err, size_t errlen) {
    if (!cfg->shards && (cfg->rendezvous[0] || cfg->peers)) {
        snprintf(err, errlen, "--rendezvous and --peers need --shard I/N");
        return -1;
    }
    if (cfg->shards && cfg->ncontainers > 1) {
        snprintf(err, errlen, "--shard runs one point: give --containers one number, not a sweep");
        return -1;
    }
    if (cfg->shards && cfg->repeat > 1) {
        snprintf(err, errlen,
                 "--shard runs once: every run of a --repeat would need its own "
                 "--start-at; repeat the sharded run instead");
        return -1;
    }
    if (cfg->shards > 1 && cfg->start_at <= 0) {
        snprintf(err, errlen,
                 "--shard %u/%u needs --start-at T (the same T on every host): the shards must "
                 "start together",
                 cfg->shard, cfg->shards);
        return -1;
    }
    if (cfg->peers && !cfg->rendezvous[0]) {
        snprintf(err, errlen, "--peers needs --rendezvous NAME-{i}.SUBDOMAIN");
        return -1;
    }
    if (cfg->rendezvous[0] && !strstr(cfg->rendezvous, "{i}")) {
        snprintf(err, errlen,
                 "--rendezvous '%s': the pattern needs {i}, replaced by each shard's index",
                 cfg->rendezvous);
        return -1;
    }
    if (cfg->peers && cfg->peers != cfg->shards) {
        snprintf(err, errlen, "--peers %u with --shard %u/%u: the peers are the %u shards",
                 cfg->peers, cfg->shard, cfg->shards, cfg->shards);
        return -1;
    }
    if (cfg->results_url[0]) {
        char bucket[256], prefix[1024], why[512];
        if (!store_for_url(cfg->results_url, bucket, sizeof bucket, prefix, sizeof prefix, NULL,
                           why, sizeof why)) {
            snprintf(err, errlen, "--results-url %s", why);
            return -1;
        }
    }
    return 0;
}

int shard_check_prepare(const struct config *cfg, char *err, size_t errlen) {
    if (cfg->shards || cfg->start_at > 0 || cfg->results_url[0] || cfg->rendezvous[0] ||
        cfg->peers) {
        snprintf(err, errlen,
                 "prepare covers every shard at once: give it --containers for all of them "
                 "(containers per shard x shards) and none of --shard, --start-at, "
                 "--results-url, --peers, --rendezvous");
        return -1;
    }
    return 0;
}

void shard_init(struct shard_state *s, const struct config *cfg) {
    memset(s, 0, sizeof *s);
    s->rendezvous_s = -1;
    if (gethostname(s->host, sizeof s->host) != 0)
        snprintf(s->host, sizeof s->host, "unknown");
    s->host[sizeof s->host - 1] = 0;
    char path[1200];
    snprintf(path, sizeof path, "%s/proc/sys/kernel/random/boot_id",
             strcmp(cfg->sysroot, "/") ? cfg->sysroot : "");
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(s->boot_id, sizeof s->boot_id, f))
            s->boot_id[strcspn(s->boot_id, "\n")] = 0;
        fclose(f);
    }
    if (!cfg->results_url[0])
        return;
    char bucket[256], prefix[1024], err[512], host[64];
    if (!store_for_url(cfg->results_url, bucket, sizeof bucket, prefix, sizeof prefix, NULL, err,
                       sizeof err))
        return;
    /* One object per shard and process: a retried or repeated shard shows up
     * as a duplicate in the merge instead of silently replacing the first. */
    snprintf(host, sizeof host, "%s", s->host);
    for (char *p = host; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.')
            *p = '_';
    const char *sep = prefix[0] && prefix[strlen(prefix) - 1] != '/' ? "/" : "";
    if (cfg->shards)
        snprintf(s->key, sizeof s->key, "%s%sshard-%u-of-%u-%s-%d.json", prefix, sep, cfg->shard,
                 cfg->shards, host, (int)getpid());
    else
        snprintf(s->key, sizeof s->key, "%s%sresult-%s-%d.json", prefix, sep, host, (int)getpid());
}

void shard_measure_clock(struct shard_state *s, const struct config *cfg) {
    const struct workload *ref = NULL;
    if (cfg->results_url[0]) {
        char bucket[256], prefix[1024], err[512];
        store_for_url(cfg->results_url, bucket, sizeof bucket, prefix, sizeof prefix, &ref, err,
                      sizeof err);
        if (ref && !ref->clock_offset)
            ref = NULL;
    }
    for (int i = 0; !ref && workload_table[i]; i++)
        if ((cfg->wl_mask >> i & 1) && workload_table[i]->clock_offset)
            ref = workload_table[i];
    if (!ref) {
        snprintf(s->clock_err, sizeof s->clock_err,
                 "no workload of this run offers a reference clock (--results-url would)");
        return;
    }
    s->clock_at = wall_now();
    s->clock_ok = ref->clock_offset(cfg, &s->clock, s->clock_err, sizeof s->clock_err) == 0;
}

/* The pattern with every {i} replaced by i. */
static void peer_name(const char *pattern, unsigned i, char *out, size_t len) {
    size_t o = 0;
    for (const char *p = pattern; *p && o + 1 < len;) {
        if (!strncmp(p, "{i}", 3)) {
            o += (size_t)snprintf(out + o, len - o, "%u", i);
            if (o >= len)
                o = len - 1;
            p += 3;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = 0;
}

unsigned shard_resolve_round(const struct config *cfg, unsigned char *resolved, char *first,
                             size_t len) {
    unsigned peers = cfg->peers ? cfg->peers : cfg->shards, missing = 0;
    first[0] = 0;
    for (unsigned i = 0; i < peers; i++) {
        if (resolved[i])
            continue;
        char name[512];
        peer_name(cfg->rendezvous, i, name, sizeof name);
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
        if (getaddrinfo(name, NULL, &hints, &ai) == 0) {
            resolved[i] = 1;
            freeaddrinfo(ai);
            continue;
        }
        if (!missing++)
            snprintf(first, len, "%s", name);
    }
    return missing;
}

void config_hash(const json_t *config, char *out, size_t len) {
    json_t *c = json_deep_copy(config);
    json_object_del(c, "cgroups");
    /* Each workload's paths on this host may differ between shards. */
    for (int w = 0; workload_table[w]; w++)
        for (const char *const *k = workload_table[w]->host_keys; k && *k; k++) {
            char path[256], *dot;
            snprintf(path, sizeof path, "%s", *k);
            if (!(dot = strrchr(path, '.')))
                json_object_del(c, path);
            else {
                *dot = 0;
                json_object_del(jget(c, path), dot + 1);
            }
        }
    char *s = json_dumps(c, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    snprintf(out, len, "fnv1a64:%016llx", (unsigned long long)h);
    free(s);
    json_decref(c);
}

/* An absolute time as a pair: "<key>" RFC 3339 text for people and
 * "<key>_ns" epoch nanoseconds, exact (a double printed with 10 digits
 * would lose the fraction of a second). */
static void set_time(json_t *o, const char *key, double epoch) {
    char k[64], text[64];
    snprintf(k, sizeof k, "%s_ns", key);
    if (epoch <= 0) {
        json_object_set_new(o, key, json_null());
        json_object_set_new(o, k, json_null());
        return;
    }
    wall_format(epoch, text, sizeof text);
    json_object_set_new(o, key, json_string(text));
    json_object_set_new(o, k, json_integer((json_int_t)llround(epoch * 1e9)));
}

json_t *shard_json(const struct shard_state *s, const struct config *cfg, const json_t *res,
                   double released_at) {
    char hash[64], url[1800];
    config_hash(json_object_get(res, "config"), hash, sizeof hash);
    unsigned first = cfg->shard * cfg->n;
    json_t *o = json_pack("{s:i, s:i, s:i, s:[i, i], s:s, s:o}", "index", (int)cfg->shard, "count",
                          (int)(cfg->shards ? cfg->shards : 1), "containers", (int)cfg->n,
                          "worker_ids", (int)first, (int)(first + cfg->n - 1), "host", s->host,
                          "boot_id", s->boot_id[0] ? json_string(s->boot_id) : json_null());
    set_time(o, "start_at", cfg->start_at);
    set_time(o, "ready_at", s->ready_at);
    set_time(o, "released_at", released_at);
    json_object_set_new(o, "missed_start_s", json_num_or_null(s->missed_by, s->missed_by > 0));
    json_t *clock;
    if (s->clock_ok) {
        clock = json_pack("{s:f, s:f, s:s}", "offset_s", s->clock.offset_s, "uncertainty_s",
                          s->clock.uncertainty_s, "reference", s->clock.reference);
        set_time(clock, "measured_at", s->clock_at);
    } else {
        clock = json_pack("{s:n, s:n, s:s}", "offset_s", "uncertainty_s", "error",
                          s->clock_err[0] ? s->clock_err : "not measured");
    }
    json_object_set_new(o, "clock", clock);
    json_object_set_new(o, "rendezvous",
                        cfg->rendezvous[0]
                            ? json_pack("{s:s, s:i, s:o}", "pattern", cfg->rendezvous, "peers",
                                        (int)(cfg->peers ? cfg->peers : cfg->shards), "seconds",
                                        json_num_or_null(s->rendezvous_s, s->rendezvous_s >= 0))
                            : json_null());
    json_object_set_new(o, "config_hash", json_string(hash));
    char bucket[256], prefix[1024], err[512];
    const struct wl_store *st = s->key[0]
                                    ? store_for_url(cfg->results_url, bucket, sizeof bucket, prefix,
                                                    sizeof prefix, NULL, err, sizeof err)
                                    : NULL;
    if (st)
        snprintf(url, sizeof url, "%s://%s/%s", st->scheme, bucket, s->key);
    json_object_set_new(o, "results_url", st ? json_string(url) : json_null());
    return o;
}

int shard_upload(const struct shard_state *s, const struct config *cfg, const json_t *res,
                 char *err, size_t errlen) {
    char bucket[256], prefix[1024];
    const struct wl_store *st = store_for_url(cfg->results_url, bucket, sizeof bucket, prefix,
                                              sizeof prefix, NULL, err, errlen);
    if (!st)
        return -1;
    char *body = json_dumps(res, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    if (!body) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = st->put(cfg, bucket, s->key, body, strlen(body), err, errlen);
    free(body);
    /* The per-operation log beside it ("<key>.ops.log" for "<key>.json"), for
     * `harness check` of the merged result. */
    char path[4200], key[1100];
    snprintf(path, sizeof path, "%s/%s", cfg->out, OPLOG_FILE);
    snprintf(key, sizeof key, "%.*s.%s", (int)(strlen(s->key) - 5), s->key, OPLOG_FILE);
    char *log = NULL;
    size_t len = 0;
    if (rc == 0 && oplog_bytes(path, &log, &len) == 0) {
        rc = st->put(cfg, bucket, key, log, len, err, errlen);
        free(log);
    }
    return rc;
}
