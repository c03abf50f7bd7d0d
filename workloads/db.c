/* db.c -- the MariaDB workload: 50 queries per cycle, 10 of each of five
 * patterns an agent platform issues (point lookup, range scan, aggregation,
 * ordered scan, dedup), through libmariadb prepared statements on one
 * connection per worker.
 *
 * open() connects, checks the data prepare loaded matches this run's
 * profile and seed, prepares the five statements and binds every parameter
 * and result column to buffers it owns, so run() only writes two integers,
 * executes and fetches: no allocation of ours, no printing. Every result set
 * is fetched to the end, its rows counted and hashed, and the answer (rows
 * and checksum, db.h) compared with the one the data holds, made before the
 * barrier for every operation of the run: a wrong answer is an error naming
 * the query. A lost connection is fatal (the run is
 * invalid); a statement over --op-timeout is stopped by the server
 * (max_statement_time) and counts as one error. */
#include <errmsg.h>
#include <errno.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/digest.h"
#include "../common/fsread.h"
#include "../common/util.h"
#include "db.h"
#include "stack_state.h"
#include "workload.h"

struct db_state {
    MYSQL *m;
    uint64_t seed;
    unsigned worker, cycles;
    struct db_sizes sizes;
    char where[1100];
    struct db_stmt s[DB_NPATTERNS];
    int verify;
    struct db_answer *rec; /* per (pattern, agent): aops_answers */
    struct db_answer
        *expect; /* per (cycle, op) of the first nexp cycles, made before the barrier */
    unsigned nexp;
};

/* Cycles whose expected answers open() makes; a longer run (a stress test)
 * makes later ones as it goes (a few microseconds for a range scan's 100
 * rows), so open() stays short whatever --cycles says. */
#define DB_EXPECT_CYCLES 256

/* The answer operation (cycle, op) with parameters p must bring. */
static void expected_for(const struct db_state *d, unsigned op, const struct db_params *p,
                         struct db_answer *out) {
    unsigned pat = op / DB_OPS_PER_PATTERN;
    if (db_pattern_recorded(pat))
        *out = d->rec[pat * (d->sizes.agents + 1) + (size_t)p->a];
    else
        db_expected_answer(d->seed, &d->sizes, pat, p, out);
}

static void db_close(void *p) {
    struct db_state *d = p;
    if (!d)
        return;
    for (int i = 0; i < DB_NPATTERNS; i++)
        db_stmt_close(&d->s[i]);
    if (d->m)
        mysql_close(d->m);
    free(d->expect);
    free(d->rec);
    free(d);
}

/* Check aops_meta says the data is complete and made for this profile and
 * seed; otherwise the rows a pattern expects may not be there. */
static int check_meta(struct db_state *d, const struct config *cfg, char *err, size_t len) {
    char opts[128], buf[1100];
    if (mysql_query(d->m, "SELECT k, v FROM aops_meta")) {
        if (mysql_errno(d->m) == ER_NO_SUCH_TABLE)
            snprintf(err, len, "database '%s' at %s has no harness tables: run %s",
                     db_opts(cfg)->name, d->where, config_prepare_hint(cfg, buf, sizeof buf, NULL));
        else
            snprintf(err, len, "MariaDB at %s: %s", d->where, mysql_error(d->m));
        return -1;
    }
    MYSQL_RES *res = mysql_store_result(d->m);
    if (!res) {
        snprintf(err, len, "MariaDB at %s: %s", d->where, mysql_error(d->m));
        return -1;
    }
    long long version = -1, complete = 0, sessions = -1, events = -1;
    unsigned long long seed = 0;
    char profile[32] = "";
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(res))) {
        if (!row[0] || !row[1])
            continue;
        if (!strcmp(row[0], "schema_version"))
            version = atoll(row[1]);
        else if (!strcmp(row[0], "complete"))
            complete = atoll(row[1]);
        else if (!strcmp(row[0], "seed"))
            seed = strtoull(row[1], NULL, 10);
        else if (!strcmp(row[0], "profile"))
            snprintf(profile, sizeof profile, "%s", row[1]);
        else if (!strcmp(row[0], "sessions"))
            sessions = atoll(row[1]);
        else if (!strcmp(row[0], "events"))
            events = atoll(row[1]);
    }
    mysql_free_result(res);
    if (version != DB_SCHEMA_VERSION || !complete) {
        snprintf(opts, sizeof opts, "--profile %s", profile_name(cfg->profile));
        snprintf(err, len,
                 "database '%s' at %s holds no complete harness data of schema %d: run %s",
                 db_opts(cfg)->name, d->where, DB_SCHEMA_VERSION,
                 config_prepare_hint(cfg, buf, sizeof buf, opts));
        return -1;
    }
    if (seed != cfg->seed || (uint64_t)sessions != d->sizes.sessions ||
        (uint64_t)events != d->sizes.events) {
        snprintf(opts, sizeof opts, "--profile %s --seed %llu", profile_name(cfg->profile),
                 (unsigned long long)cfg->seed);
        snprintf(err, len,
                 "database '%s' at %s holds data for profile %s seed %llu, not profile %s seed "
                 "%llu: run %s",
                 db_opts(cfg)->name, d->where, profile, seed, profile_name(cfg->profile),
                 (unsigned long long)cfg->seed, config_prepare_hint(cfg, buf, sizeof buf, opts));
        return -1;
    }
    return 0;
}

/* The expected answer of every operation this worker will run: point and
 * range from the generator, the per-agent patterns from aops_answers. */
static int load_expected(struct db_state *d, const struct config *cfg, char *err, size_t len) {
    size_t nagents = (size_t)d->sizes.agents;
    d->rec = calloc(DB_NPATTERNS * (nagents + 1), sizeof *d->rec);
    unsigned char *have = calloc(DB_NPATTERNS * (nagents + 1), 1);
    d->nexp = d->cycles < DB_EXPECT_CYCLES ? d->cycles : DB_EXPECT_CYCLES;
    d->expect = calloc((size_t)d->nexp * DB_NPATTERNS * DB_OPS_PER_PATTERN, sizeof *d->expect);
    MYSQL_RES *res = NULL;
    int rc = -1;
    if (!d->rec || !have || !d->expect) {
        snprintf(err, len, "out of memory");
        goto out;
    }
    if (mysql_query(d->m, "SELECT pattern, param, nrows, checksum FROM aops_answers") ||
        !(res = mysql_store_result(d->m))) {
        snprintf(err, len,
                 "database '%s' at %s has no recorded answers (%s): run ./harness prepare "
                 "--force",
                 db_opts(cfg)->name, d->where, mysql_error(d->m));
        goto out;
    }
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(res))) {
        unsigned pat = row[0] ? (unsigned)atoi(row[0]) : DB_NPATTERNS;
        unsigned long long param = row[1] ? strtoull(row[1], NULL, 10) : 0;
        if (pat >= DB_NPATTERNS || param < 1 || param > nagents || !row[2] || !row[3])
            continue;
        size_t i = pat * (nagents + 1) + param;
        d->rec[i] = (struct db_answer){strtoull(row[2], NULL, 10), strtoull(row[3], NULL, 10)};
        have[i] = 1;
    }
    for (unsigned pat = 0; pat < DB_NPATTERNS; pat++)
        for (size_t a = 1; db_pattern_recorded(pat) && a <= nagents; a++)
            if (!have[pat * (nagents + 1) + a]) {
                snprintf(err, len,
                         "database '%s' at %s has no recorded answer for the %s query of agent "
                         "%zu: run ./harness prepare --force",
                         db_opts(cfg)->name, d->where, db_pattern_names[pat], a);
                goto out;
            }
    for (unsigned c = 0; c < d->nexp; c++)
        for (unsigned op = 0; op < DB_NPATTERNS * DB_OPS_PER_PATTERN; op++) {
            struct db_params prm;
            db_params_for(d->seed, d->worker, c, op, &d->sizes, &prm);
            expected_for(d, op, &prm,
                         &d->expect[(size_t)c * DB_NPATTERNS * DB_OPS_PER_PATTERN + op]);
        }
    rc = 0;
out:
    if (res)
        mysql_free_result(res);
    free(have);
    return rc;
}

static void *db_open(const struct config *cfg, unsigned worker, char *err, size_t len) {
    struct db_state *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    d->seed = cfg->seed;
    d->worker = worker;
    d->cycles = cfg->cycles ? cfg->cycles : 1;
    d->verify = !cfg->no_verify;
    db_sizes_for(cfg->profile, &d->sizes);
    db_where(cfg, d->where, sizeof d->where);
    d->m = db_connect(cfg, 0, err, len);
    if (!d->m || check_meta(d, cfg, err, len) < 0)
        goto fail;
    if (d->verify && load_expected(d, cfg, err, len) < 0)
        goto fail;
    for (int i = 0; i < DB_NPATTERNS; i++)
        if (db_stmt_prepare(d->m, (unsigned)i, &d->s[i], d->where, err, len) < 0)
            goto fail;
    return d;
fail:
    db_close(d);
    return NULL;
}

/* A failed statement: a dead connection stops the worker, anything else is
 * one error and the connection goes on (its pending rows dropped). */
static int fail_op(struct db_state *d, struct db_stmt *s, unsigned pattern, struct op_result *res) {
    unsigned e = mysql_stmt_errno(s->st);
    if (e == CR_SERVER_GONE_ERROR || e == CR_SERVER_LOST || e == CR_SERVER_LOST_EXTENDED) {
        res->fatal = 1;
        snprintf(res->err, sizeof res->err,
                 "MariaDB at %.80s: connection lost during the %s query (%.60s); no answer within "
                 "--op-timeout or the server went away",
                 d->where, db_pattern_names[pattern], mysql_stmt_error(s->st));
    } else if (e == ER_STATEMENT_TIMEOUT) {
        snprintf(res->err, sizeof res->err, "MariaDB: the %s query ran past --op-timeout",
                 db_pattern_names[pattern]);
        mysql_stmt_reset(s->st);
    } else {
        snprintf(res->err, sizeof res->err, "MariaDB at %.80s: the %s query failed: %.100s",
                 d->where, db_pattern_names[pattern], mysql_stmt_error(s->st));
        mysql_stmt_reset(s->st);
    }
    return -1;
}

static int db_run(void *p, unsigned cycle, unsigned op, struct op_result *res) {
    struct db_state *d = p;
    unsigned pattern = op / DB_OPS_PER_PATTERN;
    res->klass = (int)pattern;
    if (pattern >= DB_NPATTERNS) {
        snprintf(res->err, sizeof res->err, "db operation %u out of range", op);
        return -1;
    }
    struct db_stmt *s = &d->s[pattern];
    struct db_params prm;
    db_params_for(d->seed, d->worker, cycle, op, &d->sizes, &prm);
    s->pval[0] = prm.a;
    s->pval[1] = prm.b;
    uint64_t rows = 0;
    struct db_answer got;
    if (db_stmt_answer(s, d->verify ? &got : NULL, &rows) != 0)
        return fail_op(d, s, pattern, res);
    res->count[DB_COUNT_ROWS] = rows;
    if (d->verify) {
        struct db_answer later;
        const struct db_answer *want =
            cycle < d->nexp ? &d->expect[(size_t)cycle * DB_NPATTERNS * DB_OPS_PER_PATTERN + op]
                            : (expected_for(d, op, &prm, &later), &later);
        if (got.rows != want->rows || got.sum != want->sum) {
            snprintf(res->err, sizeof res->err,
                     "MariaDB: wrong answer from the %s query (%s %lld): %llu rows, checksum "
                     "%016llx; expected %llu rows, %016llx (the data changed since prepare: run "
                     "./harness prepare --force)",
                     db_pattern_names[pattern],
                     pattern == DB_POINT   ? "session"
                     : pattern == DB_RANGE ? "events from"
                                           : "agent",
                     prm.a, (unsigned long long)got.rows, (unsigned long long)got.sum,
                     (unsigned long long)want->rows, (unsigned long long)want->sum);
            return -1;
        }
        return 0;
    }
    if (rows == 0) {
        snprintf(res->err, sizeof res->err,
                 "MariaDB: the %s query returned no rows for %lld although the data holds "
                 "some: run ./harness prepare --force",
                 db_pattern_names[pattern], prm.a);
        return -1;
    }
    return 0;
}

/* For the inventory: the server's own version string ("10.11.14-MariaDB-0+deb12u2"). */
static int db_server_version(const struct config *cfg, char *out, size_t len) {
    MYSQL *m = db_connect(cfg, 0, out, len);
    if (!m)
        return -1;
    snprintf(out, len, "%s", mysql_get_server_info(m));
    mysql_close(m);
    return 0;
}

static int db_server_locate(const struct config *cfg, struct wl_server *out);

/* The server variables that move the db workload's results, as provenance
 * records them; a name the server does not have (MySQL has no
 * thread_handling pool, 8.0 no query cache) is null. */
static const char *const db_info_vars[] = {
    "innodb_buffer_pool_size", "max_connections",        "innodb_flush_method",
    "innodb_io_capacity",      "innodb_io_capacity_max", "innodb_flush_log_at_trx_commit",
    "innodb_flush_neighbors",  "innodb_log_file_size",   "thread_handling",
    "query_cache_type",
};
#define DB_NINFO (sizeof db_info_vars / sizeof db_info_vars[0])

/* A variable's text as JSON: an integer when it is one, else the string. */
static json_t *db_value_json(const char *v) {
    char *end;
    if (!v)
        return json_null();
    long long n = strtoll(v, &end, 10);
    return *v && !*end ? json_integer(n) : json_string(v);
}

/* provenance.servers.db: VERSION() and the variables in force, read from
 * whatever server this run uses (the stack's, started with
 * containers/mariadb/aops.cnf, or one the user brought: never changed). */
static json_t *db_server_info(const struct config *cfg) {
    char err[512];
    MYSQL *m = db_connect(cfg, 0, err, sizeof err);
    if (!m)
        return json_pack("{s:n, s:s}", "version", "unavailable", err);
    json_t *out = json_object(), *vars = json_object();
    char sql[1024] = "SHOW GLOBAL VARIABLES WHERE Variable_name IN (";
    for (size_t i = 0; i < DB_NINFO; i++) {
        json_object_set_new(vars, db_info_vars[i], json_null());
        snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "%s'%s'", i ? "," : "",
                 db_info_vars[i]);
    }
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ")");
    MYSQL_RES *r;
    MYSQL_ROW row;
    json_object_set_new(out, "version", json_null());
    json_object_set_new(out, "version_comment", json_null());
    if (mysql_query(m, "SELECT VERSION(), @@version_comment") == 0 && (r = mysql_store_result(m))) {
        if ((row = mysql_fetch_row(r))) {
            json_object_set_new(out, "version", row[0] ? json_string(row[0]) : json_null());
            json_object_set_new(out, "version_comment", row[1] ? json_string(row[1]) : json_null());
        }
        mysql_free_result(r);
    }
    if (json_is_null(json_object_get(out, "version"))) /* the reason beside the null */
        json_object_set_new(out, "unavailable",
                            json_sprintf("SELECT VERSION() gave no version: %s",
                                         mysql_errno(m) ? mysql_error(m) : "no row, or NULL"));
    if (mysql_query(m, sql) == 0 && (r = mysql_store_result(m))) {
        while ((row = mysql_fetch_row(r)))
            if (row[0])
                json_object_set_new(vars, row[0], db_value_json(row[1]));
        mysql_free_result(r);
    } else {
        json_object_set_new(out, "variables_unavailable", json_string(mysql_error(m)));
    }
    json_object_update(out, vars);
    json_decref(vars);
    mysql_close(m);
    /* The stack's server: the sizing it was started with (scripts/stack). */
    struct wl_server srv;
    char sd[4200], path[4300], sizing[512] = "";
    if (db_server_locate(cfg, &srv) == 0) {
        stack_dir(cfg, sd, sizeof sd);
        snprintf(path, sizeof path, "%s/mariadb/sizing", sd);
        if (fs_read_str(path, sizing, sizeof sizing) >= 0) {
            sizing[strcspn(sizing, "\r\n")] = 0;
            json_object_set_new(out, "started_by",
                                json_pack("{s:s, s:s}", "config_file",
                                          "containers/mariadb/aops.cnf", "options", sizing));
        }
    }
    return out;
}

/* result.json's config.db; the password stays out. */
static json_t *db_describe(const struct config *cfg, int selected, json_t *warnings) {
    (void)selected, (void)warnings;
    const struct db_opts *o = db_opts(cfg);
    return json_pack("{s:{s:s, s:i, s:s, s:s, s:b}}", "db", "host",
                     o->socket[0] ? o->socket : o->host, "port", (int)o->port, "user", o->user,
                     "database", o->name, "tls", o->tls);
}

/* The local stack's MariaDB keeps its tables here: the stack's own
 * directory (AOPS_STACK_DIR, the credentials file's), else .local/stack. */
static int db_data_paths(const struct config *cfg, const char *names[], char paths[][4096],
                         int max) {
    char sd[4200];
    struct stat st;
    if (max < 1)
        return 0;
    names[0] = "mariadb";
    stack_dir(cfg, sd, sizeof sd);
    snprintf(paths[0], 4096, "%s/mariadb", sd);
    if (stat(paths[0], &st) != 0)
        snprintf(paths[0], 4096, "%s/.local/stack/mariadb", cfg->harness_dir);
    return 1;
}

/* The MariaDB the local stack started, when this run talks to it. */
static int db_server_locate(const struct config *cfg, struct wl_server *out) {
    const struct db_opts *o = db_opts(cfg);
    char where[1100];
    db_where(cfg, where, sizeof where);
    int socket = strncmp(where, "socket ", 7) == 0; /* a socket is on this host */
    return stack_server_locate(cfg, "mariadb", "mariadbd.pid", socket ? NULL : o->host, o->port,
                               out);
}

/* --cache cold: db_cold.c restarts the server located here, so that it
 * never calls back into this file. */
static int db_cold(const struct config *cfg, char *note, size_t len) {
    struct wl_server srv;
    int located = db_server_locate(cfg, &srv);
    return db_cold_start(cfg, located, &srv, note, len);
}

/* The server's statement counters: Com_select counts every SELECT executed,
 * prepared ones included (measured on MariaDB 10.11: one per
 * mysql_stmt_execute; SHOW STATUS itself is not one), Questions every
 * statement clients sent. */
static int db_server_count(const struct config *cfg, struct wl_server_count *out, int max,
                           char *err, size_t errlen) {
    if (max < 2)
        return 0;
    MYSQL *m = db_connect(cfg, 0, err, errlen);
    if (!m)
        return -1;
    int n = -1;
    MYSQL_RES *res = NULL;
    if (mysql_query(m, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select', 'Questions')") ||
        !(res = mysql_store_result(m))) {
        snprintf(err, errlen, "MariaDB: SHOW GLOBAL STATUS: %s", mysql_error(m));
        goto done;
    }
    int got = 0;
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(res)))
        if (row[0] && row[1]) {
            int sel = !strcmp(row[0], "Com_select");
            out[sel ? 0 : 1] = (struct wl_server_count){sel ? "Com_select" : "Questions",
                                                        strtoull(row[1], NULL, 10), sel};
            got |= sel ? 1 : 2;
        }
    if (got != 3)
        snprintf(err, errlen, "MariaDB: SHOW GLOBAL STATUS lists no Com_select or Questions");
    else
        n = 2;
done:
    if (res)
        mysql_free_result(res);
    mysql_close(m);
    return n;
}

/* provenance: the client library as loaded, the digest of the recorded
 * answers, and how answers are checked. */
static json_t *db_provenance(const struct config *cfg) {
    json_t *libs = json_pack("{s:s}", "libmariadb", mysql_get_client_info());
    char err[512] = "";
    json_t *data = NULL;
    MYSQL *m = db_connect(cfg, 0, err, sizeof err);
    MYSQL_RES *res = NULL;
    if (m &&
        !mysql_query(m, "SELECT pattern, param, nrows, checksum FROM aops_answers ORDER BY "
                        "pattern, param") &&
        (res = mysql_store_result(m))) {
        char *text = NULL;
        size_t tlen = 0;
        FILE *f = open_memstream(&text, &tlen);
        MYSQL_ROW row;
        uint64_t n = 0;
        while (f && (row = mysql_fetch_row(res)))
            n++, fprintf(f, "%s %s %s %s\n", row[0], row[1], row[2], row[3]);
        if (f && fclose(f) == 0) {
            char sha[SHA256_HEX];
            sha256_hex(text, tlen, sha);
            data = json_pack("{s:s, s:I, s:s}", "sha256", sha, "answers", (json_int_t)n, "of",
                             "aops_answers: pattern param nrows checksum, one per line");
        }
        free(text);
    } else if (m)
        snprintf(err, sizeof err, "aops_answers: %s", mysql_error(m));
    if (res)
        mysql_free_result(res);
    if (m)
        mysql_close(m);
    json_t *ver =
        cfg->no_verify ? json_pack("{s:b, s:s}", "verified", 0, "why", "--no-verify")
        : data         ? json_pack("{s:b, s:s}", "verified", 1, "how",
                                   "each query's row count and order-independent row checksum against "
                                           "the data's answer (point and range made again from the generator, "
                                           "the per-agent patterns as prepare recorded them)")
                       : json_pack("{s:b, s:s}", "verified", 0, "why", err);
    return json_pack("{s:o, s:{s:o}, s:o}", "libraries", libs, "data", "db_answers",
                     data ? data : json_pack("{s:s}", "error", err), "verification", ver);
}

#define F(field) offsetof(struct db_opts, field), sizeof(((struct db_opts *)0)->field)
static const struct opt_row db_rows[] = {
    {"db-host", OPT_STR, F(host), 0, 0, "127.0.0.1", NULL, "MARIADB_HOST", 0, NULL, "MariaDB host"},
    {"db-port", OPT_UINT, F(port), 1, 65535, "3307", NULL, "MARIADB_PORT", 0, NULL, "MariaDB port"},
    {"db-socket", OPT_STR, F(socket), 0, 0, NULL, NULL, "MARIADB_SOCKET", 0, NULL,
     "MariaDB socket, used when it exists and the host is this machine"},
    {"db-user", OPT_STR, F(user), 0, 0, "harness", NULL, "MARIADB_USER", 0, NULL, "MariaDB user"},
    {"db-name", OPT_STR, F(name), 0, 0, "aops", NULL, "MARIADB_DATABASE", 0, NULL,
     "MariaDB database"},
    {"db-tls", OPT_FLAG, F(tls), 0, 0, NULL, NULL, NULL, 0, NULL, "connect to MariaDB over TLS"},
    {"db-password", OPT_STR, F(password), 0, 0, NULL, NULL, "MARIADB_PASSWORD", OPT_SECRET, NULL,
     "MariaDB password"},
};

static const struct wl_counter db_counters[] = {
    [DB_COUNT_ROWS] = {"rows", "rows fetched", WL_COUNT},
};

const struct workload db_workload = {
    .name = "db",
    .title = "MariaDB query",
    .ops_per_cycle = DB_NPATTERNS * DB_OPS_PER_PATTERN,
    .options = db_rows,
    .noptions = sizeof db_rows / sizeof db_rows[0],
    .opts_size = sizeof(struct db_opts),
    .counters = db_counters,
    .ncounters = 1,
    .classes_key = "patterns",
    .nclasses = DB_NPATTERNS,
    .class_names = db_pattern_names,
    .prepare = db_prepare,
    .plan = db_plan,
    .open = db_open,
    .run = db_run,
    .close = db_close,
    .backend = db_server_version,
    .server_info = db_server_info,
    .describe = db_describe,
    .data_paths = db_data_paths,
    .server_name = "mariadb",
    .server_locate = db_server_locate,
    .server_count = db_server_count,
    .cold_start = db_cold,
    .provenance = db_provenance,
};
