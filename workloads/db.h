/* db.h -- what the MariaDB workload's two halves (db.c: the queries,
 * db_schema.c: the schema and its data) and their tests share (db_util.c): the data
 * sizes of a profile, the five query patterns as SQL text, the parameters a
 * worker draws for an operation, and the connection helper.
 *
 * The store reads like an agent platform's: `sessions` (one per agent
 * conversation) and `events` (one per tool call), plus `aops_meta` recording
 * the schema version, seed and row counts so prepare is idempotent and open()
 * can tell a run whose data does not match its options.
 *
 * Every answer is checked: a query's answer is its row count and an
 * order-independent checksum of its rows (the sum of a hash of each row's
 * values as the client receives them). The expected answer of a point
 * lookup or range scan is made from the generator (any row can be made on
 * its own); those of the per-agent patterns (aggregate, ordered, distinct:
 * a few thousand at full size) are computed by prepare, which runs each
 * once after loading, and kept in aops_answers with the data. */
#ifndef AOPS_DB_H
#define AOPS_DB_H

#include <mysql.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/config.h"
#include "workload.h"

/* 2: rows made from (seed, table, id) alone, so any row can be made again
 * to check an answer; aops_answers. */
#define DB_SCHEMA_VERSION 2
#define DB_NPATTERNS 5
#define DB_OPS_PER_PATTERN 10
#define DB_RANGE_ROWS 100 /* events per range scan: created_at is one per second */
#define DB_ORDERED_LIMIT 50
#define DB_NKINDS 8 /* event kinds: the aggregate's groups */

enum db_pattern { DB_POINT = 0, DB_RANGE, DB_AGGREGATE, DB_ORDERED, DB_DISTINCT };

/* The db workload's settings (its option rows in db.c fill them). */
struct db_opts {
    char host[256];
    unsigned port;
    char socket[1024];
    char user[128];
    char name[128];
    char password[256]; /* secret: never printed nor written */
    int tls;
};

/* cfg's db settings. Inline, by the workload's slot: db_util.c and
 * db_schema.c, which db.c calls, reach them without calling back into db.c
 * (for &db_workload) or registry.c. */
static inline const struct db_opts *db_opts(const struct config *cfg) {
    return workload_opts_at(cfg, WL_SLOT_db);
}

/* --cache cold: restart the local stack's MariaDB (db_cold.c). located is
 * db's server_locate's answer: 0 with srv the local stack's MariaDB, or -1
 * with srv->unavailable saying why (then nothing is restarted: 1). */
int db_cold_start(const struct config *cfg, int located, const struct wl_server *srv, char *note,
                  size_t len);
extern const struct workload db_workload;

/* The figure an operation reports (op_result.count[]). */
enum { DB_COUNT_ROWS = 0 };

struct db_sizes {
    uint64_t sessions; /* ids 1..sessions, dense */
    uint64_t events;   /* ids 1..events, dense; created_at = epoch + id seconds */
    uint64_t agents;   /* session i belongs to agent 1 + (i-1) % agents */
    uint64_t users;
};

/* One operation's parameters; unused ones are 0. */
struct db_params {
    long long a, b;
};

void db_sizes_for(enum profile p, struct db_sizes *s);

/* Parameters of operation `op` of `cycle` for `worker`: a pure function of
 * the seed and those numbers, so tests can replay any operation. */
void db_params_for(uint64_t seed, unsigned worker, unsigned cycle, unsigned op,
                   const struct db_sizes *s, struct db_params *p);

/* The pattern's SQL with its parameters written in, for the mariadb client. */
int db_render_sql(unsigned pattern, const struct db_params *p, char *buf, size_t len);

/* Connect with the config's host/port/socket, user, password, TLS and
 * timeouts. for_prepare: select no database (prepare creates it) and allow
 * long statements (index builds); otherwise use cfg->db_name and stop any
 * statement after --op-timeout.
 * Returns the handle, or NULL with err set to one line a person understands
 * (access denied, unknown database: run ./harness prepare, unreachable). */
MYSQL *db_connect(const struct config *cfg, int for_prepare, char *err, size_t errlen);

/* "127.0.0.1:3307" or "socket /path", for messages. The socket is used
 * when set, present, and the host is this machine. */
void db_where(const struct config *cfg, char *buf, size_t len);

/* db_schema.c: `harness prepare` for the db workload. */
int db_prepare(const struct config *cfg, char *err, size_t errlen);
struct wl_plan;
int db_plan(const struct config *cfg, struct wl_plan *out, char *err, size_t errlen);

/* One row of each table, made from the seed and its id alone (prepare loads
 * exactly these). */
struct db_session {
    uint64_t id, agent, user;
    unsigned status, tokens;
    long long started; /* epoch seconds */
    char title[32];
};
struct db_event {
    uint64_t id, session, agent;
    unsigned kind, latency, bytes;
    const char *tool;
    long long created; /* epoch seconds */
    char args[96];
};
#define DB_EPOCH 1735689600LL /* 2025-01-01 00:00:00 UTC, the TIMESTAMP in the range query */
void db_session_row(uint64_t seed, const struct db_sizes *s, uint64_t id, struct db_session *out);
void db_event_row(uint64_t seed, const struct db_sizes *s, uint64_t id, struct db_event *out);

/* An answer: rows, and the sum of their hashes (order-independent). A row's
 * hash: db_row_begin(), a db_cell_* per column in order, db_row_end(). */
struct db_answer {
    uint64_t rows, sum;
};
static inline uint64_t db_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline uint64_t db_row_begin(void) {
    return 0x243f6a8885a308d3ULL;
}
static inline uint64_t db_cell_int(uint64_t h, long long v) {
    return db_mix(h ^ (uint64_t)v) + 0x9e3779b97f4a7c15ULL;
}
static inline uint64_t db_cell_str(uint64_t h, const char *s, size_t n) {
    uint64_t f = 0xcbf29ce484222325ULL ^ n;
    for (size_t i = 0; i < n; i++)
        f = (f ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return db_mix(h ^ f ^ 0x5bd1e9955bd1e995ULL) + 0x9e3779b97f4a7c15ULL;
}
static inline void db_row_end(struct db_answer *a, uint64_t h) {
    a->rows++;
    a->sum += db_mix(h);
}

/* The answer the data holds for a point lookup or range scan with p. */
void db_expected_answer(uint64_t seed, const struct db_sizes *s, unsigned pattern,
                        const struct db_params *p, struct db_answer *out);

/* One prepared pattern and the buffers its parameters and columns land in
 * (db.c runs them in the measured loop; db_schema.c to record answers). */
#define DB_MAX_COLS 6
#define DB_STRBUF 256
struct db_stmt {
    MYSQL_STMT *st;
    MYSQL_BIND param[2];
    long long pval[2];
    MYSQL_BIND col[DB_MAX_COLS];
    unsigned ncols;
    int is_int[DB_MAX_COLS];
    long long ival[DB_MAX_COLS];
    char sval[DB_MAX_COLS][DB_STRBUF];
    unsigned long len[DB_MAX_COLS];
    my_bool isnull[DB_MAX_COLS], error[DB_MAX_COLS];
};
/* Prepare pattern i on m and bind it; 0, or -1 with err (where: for it). */
int db_stmt_prepare(MYSQL *m, unsigned pattern, struct db_stmt *s, const char *where, char *err,
                    size_t errlen);
/* Execute with the parameters in s->pval and fetch every row, into *a when
 * a is not NULL (else only counted). 0, or -1 (the statement's error). */
int db_stmt_answer(struct db_stmt *s, struct db_answer *a, uint64_t *rows);
void db_stmt_close(struct db_stmt *s);

/* The per-agent patterns whose answers prepare records in aops_answers. */
static inline int db_pattern_recorded(unsigned pattern) {
    return pattern == DB_AGGREGATE || pattern == DB_ORDERED || pattern == DB_DISTINCT;
}

/* "point", "range", ... : a pattern's name in result.json. */
extern const char *const db_pattern_names[DB_NPATTERNS];

/* Each pattern's SQL, with a ? per parameter, and how many it takes (a,
 * then b). */
extern const char *const db_pattern_sql[DB_NPATTERNS];
extern const int db_pattern_nparams[DB_NPATTERNS];

#endif
