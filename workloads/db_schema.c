/* db_schema.c -- `harness prepare` for the db workload: the agent store's
 * schema and its rows, generated from the seed at the profile's size.
 *
 * Rows go in as multi-row INSERTs in primary-key order into tables without
 * secondary indexes, and the indexes the five patterns need are built once
 * at the end (far faster than maintaining them row by row at millions of
 * rows), over --prepare-jobs connections at once. Each row is made from
 * (seed, table, id) alone (db_util.c), so a worker can make again the rows
 * a point lookup or range scan must return, and the tables hold the same
 * rows however many connections loaded them.
 * The per-agent patterns' answers are recorded once the data is in: each
 * such query runs once per agent through the same prepared statements the
 * workers use, and its rows and checksum go into aops_answers. aops_meta
 * records the schema version, profile, seed and row counts, with `complete`
 * written last: a prepare that matches is a no-op, an interrupted one is
 * redone, and --force always rebuilds. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/util.h"
#include "db.h"
#include "workload.h"

#define BATCH 2000
#define ROWMAX 320

static const char *const schema[] = {
    "DROP TABLE IF EXISTS events, sessions, aops_meta, aops_answers",
    "CREATE TABLE aops_meta (k VARCHAR(64) PRIMARY KEY, v VARCHAR(255) NOT NULL)",
    "CREATE TABLE aops_answers (pattern TINYINT UNSIGNED NOT NULL, param BIGINT NOT NULL, "
    "nrows BIGINT UNSIGNED NOT NULL, checksum BIGINT UNSIGNED NOT NULL, PRIMARY KEY (pattern, "
    "param)) ENGINE=InnoDB",
    "CREATE TABLE sessions (id BIGINT UNSIGNED PRIMARY KEY, agent_id INT UNSIGNED NOT NULL, "
    "user_id INT UNSIGNED NOT NULL, status TINYINT UNSIGNED NOT NULL, tokens INT UNSIGNED NOT "
    "NULL, started_at DATETIME NOT NULL, title VARCHAR(64) NOT NULL) ENGINE=InnoDB",
    "CREATE TABLE events (id BIGINT UNSIGNED PRIMARY KEY, session_id BIGINT UNSIGNED NOT NULL, "
    "agent_id INT UNSIGNED NOT NULL, kind TINYINT UNSIGNED NOT NULL, tool VARCHAR(32) NOT NULL, "
    "latency_ms INT UNSIGNED NOT NULL, bytes INT UNSIGNED NOT NULL, created_at DATETIME NOT "
    "NULL, args VARCHAR(128) NOT NULL) ENGINE=InnoDB",
    NULL,
};

/* The indexes the patterns use: distinct (agent_id, user_id) is covering;
 * range by created_at; aggregate and ordered by (agent_id, created_at). */
static const char *const indexes[] = {
    "ALTER TABLE sessions ADD INDEX agent_user (agent_id, user_id)",
    "ALTER TABLE events ADD INDEX created (created_at), ADD INDEX agent_created (agent_id, "
    "created_at), ADD INDEX session (session_id)",
    NULL,
};

static int exec(MYSQL *m, const char *sql, char *err, size_t len) {
    if (mysql_query(m, sql)) {
        unsigned e = mysql_errno(m);
        /* 1114 "table is full", 1021 "disk full": the first one ends the
         * prepare; `complete` is not written, so the next one redoes it. */
        snprintf(err, len, "MariaDB prepare: %s%s (in: %.60s...)",
                 e == 1114 || e == 1021 ? "no room left on MariaDB's disk: " : "", mysql_error(m),
                 sql);
        return -1;
    }
    if (mysql_field_count(m) > 0) /* ANALYZE answers with a table: drain it */
        mysql_free_result(mysql_store_result(m));
    return 0;
}

static void datetime(long long t, char *buf, size_t len) {
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/* Is the data there, complete, and made for this profile and seed? */
static int meta_matches(MYSQL *m, const struct config *cfg, const struct db_sizes *sz) {
    if (mysql_query(m, "SELECT k, v FROM aops_meta"))
        return 0;
    MYSQL_RES *res = mysql_store_result(m);
    if (!res)
        return 0;
    char want[6][64];
    snprintf(want[0], 64, "schema_version=%d", DB_SCHEMA_VERSION);
    snprintf(want[1], 64, "profile=%s", profile_name(cfg->profile));
    snprintf(want[2], 64, "seed=%" PRIu64, cfg->seed);
    snprintf(want[3], 64, "sessions=%" PRIu64, sz->sessions);
    snprintf(want[4], 64, "events=%" PRIu64, sz->events);
    snprintf(want[5], 64, "complete=1");
    int found = 0;
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(res))) {
        char kv[160];
        snprintf(kv, sizeof kv, "%s=%s", row[0] ? row[0] : "", row[1] ? row[1] : "");
        for (int i = 0; i < 6; i++)
            if (!strcmp(kv, want[i]))
                found |= 1 << i;
    }
    mysql_free_result(res);
    return found == 0x3f;
}

/* Append rows to `sql` and send it every BATCH rows. */
struct loader {
    MYSQL *m;
    const char *head;
    char *sql;
    size_t len, cap;
    unsigned rows;
};

static int flush(struct loader *l, char *err, size_t errlen) {
    if (!l->rows)
        return 0;
    int rc = exec(l->m, l->sql, err, errlen);
    l->len = 0;
    l->rows = 0;
    return rc;
}

static int add_row(struct loader *l, const char *row, char *err, size_t errlen) {
    if (!l->rows)
        l->len = (size_t)snprintf(l->sql, l->cap, "%s", l->head);
    l->len += (size_t)snprintf(l->sql + l->len, l->cap - l->len, "%s%s", l->rows ? "," : "", row);
    if (++l->rows == BATCH)
        return flush(l, err, errlen);
    return 0;
}

/* The rows go in as chunks of BATCH ids, taken from one shared counter by
 * J connections of their own (--prepare-jobs; sessions' chunks first, then
 * events'). A row is made from (seed, table, id) alone, so the tables hold
 * the same rows whatever J: only the order the chunks arrive in differs,
 * and a primary key does not keep that. J is capped at the chunks there are
 * and at 64, well under MariaDB's default max_connections of 151. */
#define LOAD_MAX_JOBS 64

struct load_all {
    const struct config *cfg;
    const struct db_sizes *sz;
    uint64_t sess_chunks, chunks, rows;
    _Atomic uint64_t next, done;
    atomic_int stop;
    pthread_mutex_t lock;
    char err[512]; /* the first loader's failure */
    int64_t t0;
};

struct loader_job {
    struct load_all *la;
    pthread_t tid;
    int started;
};

static void load_fail(struct load_all *la, const char *msg) {
    pthread_mutex_lock(&la->lock);
    if (!la->err[0])
        snprintf(la->err, sizeof la->err, "%s", msg);
    pthread_mutex_unlock(&la->lock);
    atomic_store(&la->stop, 1);
}

/* Rows of one chunk: ids BATCH * c + 1 .. of sessions, or of events. */
static int load_chunk(struct loader *l, const struct load_all *la, uint64_t c, uint64_t *rows,
                      char *err, size_t errlen) {
    char row[ROWMAX], when[32];
    int rc = 0, sess = c < la->sess_chunks;
    uint64_t n = sess ? la->sz->sessions : la->sz->events;
    uint64_t lo = (sess ? c : c - la->sess_chunks) * BATCH + 1;
    uint64_t hi = lo + BATCH - 1 < n ? lo + BATCH - 1 : n;
    l->head = sess ? "INSERT INTO sessions VALUES " : "INSERT INTO events VALUES ";
    *rows = hi - lo + 1;
    for (uint64_t i = lo; i <= hi && rc == 0; i++) {
        if (sess) {
            struct db_session r;
            db_session_row(la->cfg->seed, la->sz, i, &r);
            datetime(r.started, when, sizeof when);
            snprintf(row, sizeof row, "(%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u,'%s','%s')", r.id,
                     r.agent, r.user, r.status, r.tokens, when, r.title);
        } else {
            struct db_event e;
            db_event_row(la->cfg->seed, la->sz, i, &e);
            datetime(e.created, when, sizeof when);
            snprintf(row, sizeof row,
                     "(%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,'%s',%u,%u,'%s','%s')", e.id,
                     e.session, e.agent, e.kind, e.tool, e.latency, e.bytes, when, e.args);
        }
        rc = add_row(l, row, err, errlen);
    }
    return rc == 0 ? flush(l, err, errlen) : rc;
}

/* Every tenth of a large load, from whichever loader crossed it. */
static void load_progress(struct load_all *la, uint64_t before, uint64_t after) {
    if (la->cfg->quiet || la->rows < 1000000 || before * 10 / la->rows == after * 10 / la->rows)
        return;
    double s = (double)(now_ns() - la->t0) / 1e9;
    printf("db: %" PRIu64 "/%" PRIu64 " rows (%.0f rows/s)\n", after, la->rows,
           s > 0 ? (double)after / s : 0.0);
    fflush(stdout);
}

/* Each table's first chunk goes in on the prepare's own connection before
 * any loader starts. MariaDB (10.6 on) makes an INSERT into an empty table
 * with unique_checks = 0 and foreign_key_checks = 0 a bulk load that takes
 * the table's X lock: two loaders whose first INSERTs met on the empty table
 * each held IX and waited for the other's X, and the server rolled one back
 * with "Deadlock found" (a newcomer's first make demo, 2 connections, on a
 * freshly started server; SHOW ENGINE INNODB STATUS showed the two table
 * locks). Into a table that has rows, an INSERT takes row locks only. */
static int first_of_table(const struct load_all *la, uint64_t c) {
    return c == 0 || c == la->sess_chunks;
}

static void *loader_run(void *arg) {
    struct load_all *la = ((struct loader_job *)arg)->la;
    char err[512] = "";
    struct loader l = {.cap = (size_t)BATCH * ROWMAX + 256};
    l.sql = malloc(l.cap);
    l.m = l.sql ? db_connect(la->cfg, 1, err, sizeof err) : NULL;
    if (!l.sql)
        snprintf(err, sizeof err, "MariaDB prepare: out of memory");
    else if (l.m && mysql_select_db(l.m, db_opts(la->cfg)->name))
        snprintf(err, sizeof err, "MariaDB prepare: a loader cannot use database '%s': %s",
                 db_opts(la->cfg)->name, mysql_error(l.m));
    int rc = err[0] ? -1
                    : exec(l.m, "SET SESSION unique_checks = 0, foreign_key_checks = 0", err,
                           sizeof err);
    while (rc == 0 && !atomic_load(&la->stop)) {
        uint64_t c = atomic_fetch_add(&la->next, 1);
        if (c >= la->chunks)
            break;
        if (first_of_table(la, c)) /* in already, before the loaders */
            continue;
        uint64_t k = 0;
        rc = load_chunk(&l, la, c, &k, err, sizeof err);
        if (rc == 0) {
            uint64_t before = atomic_fetch_add(&la->done, k);
            load_progress(la, before, before + k);
        }
    }
    if (rc != 0)
        load_fail(la, err);
    if (l.m)
        mysql_close(l.m);
    free(l.sql);
    return NULL;
}

/* Load both tables over `*jobs` connections (set to the number used). */
static int load(MYSQL *m, const struct config *cfg, const struct db_sizes *sz, unsigned *jobs,
                char *err, size_t errlen) {
    struct load_all la = {.cfg = cfg, .sz = sz, .t0 = now_ns()};
    la.sess_chunks = (sz->sessions + BATCH - 1) / BATCH;
    la.chunks = la.sess_chunks + (sz->events + BATCH - 1) / BATCH;
    la.rows = sz->sessions + sz->events;
    struct loader first = {.m = m, .cap = (size_t)BATCH * ROWMAX + 256};
    first.sql = malloc(first.cap);
    if (!first.sql) {
        snprintf(err, errlen, "MariaDB prepare: out of memory");
        return -1;
    }
    uint64_t seeded = 0;
    for (uint64_t c = 0; c < la.chunks; c++) {
        if (!first_of_table(&la, c))
            continue;
        uint64_t k = 0;
        if (load_chunk(&first, &la, c, &k, err, errlen) != 0) {
            free(first.sql);
            return -1;
        }
        atomic_fetch_add(&la.done, k);
        seeded++;
    }
    free(first.sql);
    pthread_mutex_init(&la.lock, NULL);
    unsigned nj = config_prepare_jobs(cfg);
    nj = nj > LOAD_MAX_JOBS ? LOAD_MAX_JOBS : nj;
    uint64_t rest = la.chunks - seeded;
    nj = nj > rest ? (unsigned)(rest ? rest : 1) : nj;
    struct loader_job *jv = calloc(nj, sizeof *jv);
    if (!jv) {
        snprintf(err, errlen, "out of memory");
        pthread_mutex_destroy(&la.lock);
        return -1;
    }
    for (unsigned k = 0; k < nj; k++) {
        jv[k].la = &la;
        if (pthread_create(&jv[k].tid, NULL, loader_run, &jv[k]) != 0) {
            load_fail(&la, "MariaDB prepare: cannot start a loader thread");
            break;
        }
        jv[k].started = 1;
    }
    for (unsigned k = 0; k < nj; k++)
        if (jv[k].started)
            pthread_join(jv[k].tid, NULL);
    int rc = la.err[0] ? -1 : 0;
    if (rc < 0)
        snprintf(err, errlen, "%s", la.err);
    free(jv);
    pthread_mutex_destroy(&la.lock);
    *jobs = nj;
    return rc;
}

/* aops_answers: each per-agent pattern run once per agent, its answer
 * hashed as a worker hashes it (the same prepared statement). */
static int record_answers(MYSQL *m, const struct config *cfg, const struct db_sizes *sz,
                          const char *where, char *err, size_t errlen) {
    struct loader l = {
        .m = m, .cap = (size_t)BATCH * 96 + 256, .head = "INSERT INTO aops_answers VALUES "};
    l.sql = malloc(l.cap);
    if (!l.sql) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (unsigned pat = 0; pat < DB_NPATTERNS && rc == 0; pat++) {
        if (!db_pattern_recorded(pat))
            continue;
        struct db_stmt st;
        rc = db_stmt_prepare(m, pat, &st, where, err, errlen);
        for (uint64_t agent = 1; agent <= sz->agents && rc == 0; agent++) {
            struct db_answer a;
            uint64_t rows;
            st.pval[0] = (long long)agent;
            if (db_stmt_answer(&st, &a, &rows) != 0) {
                snprintf(err, errlen, "MariaDB prepare: recording the %s answers: %s",
                         db_pattern_names[pat], mysql_stmt_error(st.st));
                rc = -1;
                break;
            }
            char row[96];
            snprintf(row, sizeof row, "(%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ")", pat, agent,
                     a.rows, a.sum);
            rc = add_row(&l, row, err, errlen);
        }
        db_stmt_close(&st);
    }
    if (rc == 0)
        rc = flush(&l, err, errlen);
    free(l.sql);
    (void)cfg;
    return rc;
}

/* For prepare's plan: the rows it loads (their bytes on MariaDB's disk
 * are not estimated: InnoDB's pages and indexes make them what they are). */
int db_plan(const struct config *cfg, struct wl_plan *out, char *err, size_t errlen) {
    (void)err, (void)errlen;
    struct db_sizes sz;
    char where[1100];
    db_sizes_for(cfg->profile, &sz);
    db_where(cfg, where, sizeof where);
    memset(out, 0, sizeof *out);
    out->unit = "rows";
    out->items = sz.sessions + sz.events;
    out->bytes = -1;
    out->writes = 1;
    snprintf(out->where, sizeof out->where, "into MariaDB at %s, database '%s'", where,
             db_opts(cfg)->name);
    snprintf(out->detail, sizeof out->detail, "%" PRIu64 " sessions + %" PRIu64 " events",
             sz.sessions, sz.events);
    return 0;
}

int db_prepare(const struct config *cfg, char *err, size_t errlen) {
    struct db_sizes sz;
    db_sizes_for(cfg->profile, &sz);
    MYSQL *m = db_connect(cfg, 1, err, errlen);
    if (!m)
        return -1;
    char where[1100], sql[512];
    db_where(cfg, where, sizeof where);
    snprintf(sql, sizeof sql, "CREATE DATABASE IF NOT EXISTS `%s`", db_opts(cfg)->name);
    if (mysql_query(m, sql) && mysql_errno(m) != 1007 /* exists */) {
        /* A user without CREATE may still own an existing database. */
        if (mysql_select_db(m, db_opts(cfg)->name)) {
            snprintf(err, errlen, "MariaDB at %s: cannot create database '%s': %s", where,
                     db_opts(cfg)->name, mysql_error(m));
            mysql_close(m);
            return -1;
        }
    }
    if (mysql_select_db(m, db_opts(cfg)->name)) {
        snprintf(err, errlen, "MariaDB at %s: cannot use database '%s': %s", where,
                 db_opts(cfg)->name, mysql_error(m));
        mysql_close(m);
        return -1;
    }
    if (!cfg->force && meta_matches(m, cfg, &sz)) {
        if (!cfg->quiet)
            printf("db: %" PRIu64 " sessions and %" PRIu64 " events already loaded in '%s' "
                   "(profile %s, seed %" PRIu64 "); --force rebuilds\n",
                   sz.sessions, sz.events, db_opts(cfg)->name, profile_name(cfg->profile),
                   cfg->seed);
        mysql_close(m);
        return 0;
    }
    int64_t t0 = now_ns();
    int rc = exec(m, "SET SESSION unique_checks = 0, foreign_key_checks = 0", err, errlen);
    for (int i = 0; schema[i] && rc == 0; i++)
        rc = exec(m, schema[i], err, errlen);
    unsigned jobs = 1;
    if (rc == 0)
        rc = load(m, cfg, &sz, &jobs, err, errlen);
    int64_t t_rows = now_ns();
    for (int i = 0; indexes[i] && rc == 0; i++)
        rc = exec(m, indexes[i], err, errlen);
    if (rc == 0) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO aops_meta VALUES ('schema_version','%d'),('profile','%s'),"
                 "('seed','%" PRIu64 "'),('sessions','%" PRIu64 "'),('events','%" PRIu64 "'),"
                 "('agents','%" PRIu64 "'),('users','%" PRIu64 "')",
                 DB_SCHEMA_VERSION, profile_name(cfg->profile), cfg->seed, sz.sessions, sz.events,
                 sz.agents, sz.users);
        rc = exec(m, sql, err, errlen);
    }
    if (rc == 0)
        rc = exec(m, "ANALYZE TABLE sessions, events", err, errlen);
    int64_t t_index = now_ns();
    if (rc == 0)
        rc = record_answers(m, cfg, &sz, where, err, errlen);
    if (rc == 0) /* last: a prepare cut short before this is redone */
        rc = exec(m, "INSERT INTO aops_meta VALUES ('complete','1')", err, errlen);
    if (rc == 0 && !cfg->quiet)
        printf("db: loaded %" PRIu64 " sessions and %" PRIu64 " events into '%s' in %.1f s: the "
               "rows %.1f s (%u connection%s), indexes %.1f s, answers %.1f s\n",
               sz.sessions, sz.events, db_opts(cfg)->name, (double)(now_ns() - t0) / 1e9,
               (double)(t_rows - t0) / 1e9, jobs, jobs == 1 ? "" : "s",
               (double)(t_index - t_rows) / 1e9, (double)(now_ns() - t_index) / 1e9);
    mysql_close(m);
    return rc;
}
