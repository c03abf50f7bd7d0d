/* db.h -- what the MariaDB workload's two halves (db.c: the queries,
 * db_schema.c: the schema and its data) and their tests share (db_util.c): the data
 * sizes of a profile, the five query patterns as SQL text, the parameters a
 * worker draws for an operation, and the connection helper.
 *
 * The store reads like an agent platform's: `sessions` (one per agent
 * conversation) and `events` (one per tool call), plus `aops_meta` recording
 * the schema version, seed and row counts so prepare is idempotent and open()
 * can tell a run whose data does not match its options. */
#ifndef AOPS_DB_H
#define AOPS_DB_H

#include <mysql.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/config.h"

#define DB_SCHEMA_VERSION 1
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

/* cfg's db settings. */
const struct db_opts *db_opts(const struct config *cfg);

/* --cache cold: restart the local stack's MariaDB (db_cold.c). */
int db_cold_start(const struct config *cfg, char *note, size_t len);
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

/* "point", "range", ... : a pattern's name in result.json. */
extern const char *const db_pattern_names[DB_NPATTERNS];

/* Each pattern's SQL, with a ? per parameter, and how many it takes (a,
 * then b). */
extern const char *const db_pattern_sql[DB_NPATTERNS];
extern const int db_pattern_nparams[DB_NPATTERNS];

#endif
