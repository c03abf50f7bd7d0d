/* db_util.c -- what the MariaDB workload's queries (db.c) and its prepare
 * (db_schema.c) share: the five patterns' SQL, a profile's data sizes, the
 * parameters of each operation, and the connection (see db.h). Kept apart
 * from both so that neither calls the other. */
#include <errmsg.h>
#include <math.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/util.h"
#include "db.h"
#include "workload.h"

const char *const db_pattern_sql[DB_NPATTERNS] = {
    [DB_POINT] = "SELECT id, agent_id, user_id, status, tokens, title FROM sessions WHERE id = ?",
    [DB_RANGE] = "SELECT id, session_id, kind, tool, latency_ms FROM events "
                 "WHERE created_at BETWEEN TIMESTAMP'2025-01-01 00:00:00' + INTERVAL ? SECOND "
                 "AND TIMESTAMP'2025-01-01 00:00:00' + INTERVAL ? SECOND",
    [DB_AGGREGATE] = "SELECT kind, COUNT(*), SUM(bytes), AVG(latency_ms) FROM events "
                     "WHERE agent_id = ? GROUP BY kind",
    [DB_ORDERED] = "SELECT id, session_id, tool, created_at FROM events WHERE agent_id = ? "
                   "ORDER BY created_at DESC LIMIT 50",
    [DB_DISTINCT] = "SELECT DISTINCT user_id FROM sessions WHERE agent_id = ?",
};

/* Parameters each pattern takes (a, then b). */
const int db_pattern_nparams[DB_NPATTERNS] = {1, 2, 1, 1, 1};

const char *const db_pattern_names[DB_NPATTERNS] = {"point", "range", "aggregate", "ordered",
                                                    "distinct"};

void db_sizes_for(enum profile p, struct db_sizes *s) {
    uint64_t div = profile_divisor(p);
    s->sessions = 2000000 / div;
    s->events = 8000000 / div;
    s->agents = 1000 / div < 8 ? 8 : 1000 / div;
    s->users = 100000 / div < 16 ? 16 : 100000 / div;
}

void db_params_for(uint64_t seed, unsigned worker, unsigned cycle, unsigned op,
                   const struct db_sizes *s, struct db_params *p) {
    struct rng r;
    /* Stream 0xdb<<56 | position: apart from any other workload's streams. */
    rng_seed(&r, seed, worker, (0xdbULL << 56) | ((uint64_t)cycle * 64 + op));
    p->a = p->b = 0;
    switch (op / DB_OPS_PER_PATTERN) {
    case DB_POINT:
        p->a = 1 + (long long)rng_below(&r, s->sessions);
        break;
    case DB_RANGE:
        p->a = 1 + (long long)rng_below(&r, s->events - DB_RANGE_ROWS + 1);
        p->b = p->a + DB_RANGE_ROWS - 1;
        break;
    default:
        p->a = 1 + (long long)rng_below(&r, s->agents);
        break;
    }
}

int db_render_sql(unsigned pattern, const struct db_params *p, char *buf, size_t len) {
    if (pattern >= DB_NPATTERNS)
        return -1;
    const long long v[2] = {p->a, p->b};
    size_t o = 0;
    int k = 0;
    for (const char *s = db_pattern_sql[pattern]; *s; s++) {
        int n = *s == '?' ? snprintf(buf + o, len - o, "%lld", v[k++])
                          : snprintf(buf + o, len - o, "%c", *s);
        if (n < 0 || (size_t)n >= len - o)
            return -1;
        o += (size_t)n;
    }
    return 0;
}

void db_where(const struct config *cfg, char *buf, size_t len) {
    const struct db_opts *o = db_opts(cfg);
    if (o->socket[0] &&
        (!o->host[0] || !strcmp(o->host, "localhost") || !strcmp(o->host, "127.0.0.1")) &&
        access(o->socket, F_OK) == 0)
        snprintf(buf, len, "socket %s", o->socket);
    else
        snprintf(buf, len, "%s:%u", o->host, o->port);
}

MYSQL *db_connect(const struct config *cfg, int for_prepare, char *err, size_t errlen) {
    const struct db_opts *o = db_opts(cfg);
    char where[1100];
    db_where(cfg, where, sizeof where);
    int use_socket = strncmp(where, "socket ", 7) == 0;

    MYSQL *m = mysql_init(NULL);
    if (!m) {
        snprintf(err, errlen, "out of memory creating a MariaDB handle");
        return NULL;
    }
    /* The client read/write timeouts are whole seconds: round --op-timeout up
     * and add one so the server's own max_statement_time fires first. */
    unsigned io = for_prepare ? 3600 : (unsigned)ceil(cfg->op_timeout) + 1;
    unsigned conn = io < 10 ? io : 10;
    mysql_optionsv(m, MYSQL_OPT_CONNECT_TIMEOUT, &conn);
    mysql_optionsv(m, MYSQL_OPT_READ_TIMEOUT, &io);
    mysql_optionsv(m, MYSQL_OPT_WRITE_TIMEOUT, &io);
    if (o->tls) {
        my_bool on = 1;
        mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &on);
    }
    if (!mysql_real_connect(m, use_socket ? "localhost" : o->host, o->user, o->password,
                            for_prepare ? NULL : o->name, use_socket ? 0 : o->port,
                            use_socket ? o->socket : NULL, 0)) {
        unsigned e = mysql_errno(m);
        char buf[1100];
        if (e == ER_DBACCESS_DENIED_ERROR) /* what a user without grants sees of a missing db */
            snprintf(err, errlen,
                     "MariaDB at %s: user '%s' cannot use database '%s' (missing or not "
                     "granted): run %s, or grant the user access",
                     where, o->user, o->name, config_prepare_hint(cfg, buf, sizeof buf, NULL));
        else if (e == ER_ACCESS_DENIED_ERROR)
            snprintf(err, errlen,
                     "MariaDB at %s: access denied for user '%s' (check MARIADB_PASSWORD or "
                     ".local/stack/credentials)",
                     where, o->user);
        else if (e == ER_BAD_DB_ERROR)
            snprintf(err, errlen, "MariaDB at %s has no database '%s': run %s first", where,
                     o->name, config_prepare_hint(cfg, buf, sizeof buf, NULL));
        else if (e == CR_CONNECTION_ERROR || e == CR_CONN_HOST_ERROR || e == CR_UNKNOWN_HOST ||
                 e == CR_SERVER_LOST || e == CR_SERVER_GONE_ERROR)
            snprintf(err, errlen,
                     "cannot reach MariaDB at %s (is it running? scripts/stack up): %s", where,
                     mysql_error(m));
        else
            snprintf(err, errlen, "MariaDB at %s: %s", where, mysql_error(m));
        mysql_close(m);
        return NULL;
    }
    /* Some client versions accept a server without TLS despite the option:
     * --db-tls promises encryption, so check it was negotiated. */
    if (o->tls && !mysql_get_ssl_cipher(m)) {
        snprintf(err, errlen,
                 "MariaDB at %s: --db-tls asked for TLS but the server did not "
                 "negotiate it (have_ssl disabled?)",
                 where);
        mysql_close(m);
        return NULL;
    }
    /* The server stops any statement that runs longer than --op-timeout. */
    char sql[96];
    snprintf(sql, sizeof sql, "SET SESSION max_statement_time = %.3f",
             for_prepare ? 0.0 : cfg->op_timeout);
    if (mysql_query(m, sql)) {
        snprintf(err, errlen, "MariaDB at %s: %s", where, mysql_error(m));
        mysql_close(m);
        return NULL;
    }
    return m;
}

/* ---- the rows, from (seed, table, id) alone ---- */

static const char *const tools[16] = {
    "read_file", "write_file", "grep",    "list_dir", "http_get",  "sql_query",
    "run_tests", "git_diff",   "git_log", "search",   "fetch_doc", "summarize",
    "embed",     "s3_get",     "s3_put",  "shell",
};

void db_session_row(uint64_t seed, const struct db_sizes *s, uint64_t id, struct db_session *out) {
    struct rng r;
    rng_seed(&r, seed, 0xdb0001ULL, id);
    out->id = id;
    out->agent = 1 + (id - 1) % s->agents;
    out->user = 1 + rng_below(&r, s->users);
    out->status = (unsigned)rng_below(&r, 4);
    out->tokens = (unsigned)rng_below(&r, 200000);
    out->started = DB_EPOCH + (long long)id * 4;
    snprintf(out->title, sizeof out->title, "session-%016llx", (unsigned long long)rng_next(&r));
}

void db_event_row(uint64_t seed, const struct db_sizes *s, uint64_t id, struct db_event *out) {
    struct rng r;
    rng_seed(&r, seed, 0xdb0002ULL, id);
    out->id = id;
    out->session = 1 + rng_below(&r, s->sessions);
    out->agent = 1 + (out->session - 1) % s->agents;
    out->kind = (unsigned)rng_below(&r, DB_NKINDS);
    out->tool = tools[rng_below(&r, 16)];
    out->latency = 1 + (unsigned)rng_below(&r, 5000);
    out->bytes = (unsigned)rng_below(&r, 1u << 20);
    uint64_t h = rng_next(&r);
    out->created = DB_EPOCH + (long long)id;
    snprintf(out->args, sizeof out->args, "{\"path\":\"src/%04x/%08x.c\",\"line\":%u}",
             (unsigned)(h >> 48), (unsigned)(h >> 16), (unsigned)(h & 0xffff) % 4000 + 1);
}

/* The columns each query selects, hashed as the client binds them:
 * integers as integers, text as its bytes. */
void db_expected_answer(uint64_t seed, const struct db_sizes *s, unsigned pattern,
                        const struct db_params *p, struct db_answer *out) {
    out->rows = out->sum = 0;
    if (pattern == DB_POINT) {
        struct db_session r;
        db_session_row(seed, s, (uint64_t)p->a, &r);
        uint64_t h = db_row_begin();
        h = db_cell_int(h, (long long)r.id);
        h = db_cell_int(h, (long long)r.agent);
        h = db_cell_int(h, (long long)r.user);
        h = db_cell_int(h, r.status);
        h = db_cell_int(h, r.tokens);
        h = db_cell_str(h, r.title, strlen(r.title));
        db_row_end(out, h);
    } else if (pattern == DB_RANGE) {
        for (long long id = p->a; id <= p->b; id++) {
            struct db_event e;
            db_event_row(seed, s, (uint64_t)id, &e);
            uint64_t h = db_row_begin();
            h = db_cell_int(h, (long long)e.id);
            h = db_cell_int(h, (long long)e.session);
            h = db_cell_int(h, e.kind);
            h = db_cell_str(h, e.tool, strlen(e.tool));
            h = db_cell_int(h, e.latency);
            db_row_end(out, h);
        }
    }
}

/* ---- prepared patterns ---- */

int db_stmt_prepare(MYSQL *m, unsigned i, struct db_stmt *s, const char *where, char *err,
                    size_t len) {
    memset(s, 0, sizeof *s);
    s->st = mysql_stmt_init(m);
    if (!s->st || mysql_stmt_prepare(s->st, db_pattern_sql[i], strlen(db_pattern_sql[i]))) {
        snprintf(err, len, "MariaDB at %s: preparing the %s query: %s (run ./harness prepare)",
                 where, db_pattern_names[i], s->st ? mysql_stmt_error(s->st) : "no memory");
        return -1;
    }
    for (int k = 0; k < db_pattern_nparams[i]; k++) {
        s->param[k].buffer_type = MYSQL_TYPE_LONGLONG;
        s->param[k].buffer = &s->pval[k];
    }
    if (mysql_stmt_bind_param(s->st, s->param)) {
        snprintf(err, len, "MariaDB: binding the %s query: %s", db_pattern_names[i],
                 mysql_stmt_error(s->st));
        return -1;
    }
    MYSQL_RES *meta = mysql_stmt_result_metadata(s->st);
    unsigned n = meta ? mysql_num_fields(meta) : 0;
    if (!meta || n > DB_MAX_COLS) {
        snprintf(err, len, "MariaDB: the %s query returns %u columns, expected 1 to %d",
                 db_pattern_names[i], n, DB_MAX_COLS);
        if (meta)
            mysql_free_result(meta);
        return -1;
    }
    /* Integers as integers, everything else as text into fixed buffers, so
     * fetching needs nothing from us. */
    MYSQL_FIELD *f = mysql_fetch_fields(meta);
    s->ncols = n;
    for (unsigned c = 0; c < n; c++) {
        MYSQL_BIND *b = &s->col[c];
        switch (f[c].type) {
        case MYSQL_TYPE_TINY:
        case MYSQL_TYPE_SHORT:
        case MYSQL_TYPE_LONG:
        case MYSQL_TYPE_INT24:
        case MYSQL_TYPE_LONGLONG:
            b->buffer_type = MYSQL_TYPE_LONGLONG;
            b->buffer = &s->ival[c];
            s->is_int[c] = 1;
            break;
        default:
            b->buffer_type = MYSQL_TYPE_STRING;
            b->buffer = s->sval[c];
            b->buffer_length = DB_STRBUF;
        }
        b->length = &s->len[c];
        b->is_null = &s->isnull[c];
        b->error = &s->error[c];
    }
    mysql_free_result(meta);
    if (mysql_stmt_bind_result(s->st, s->col)) {
        snprintf(err, len, "MariaDB: binding the %s results: %s", db_pattern_names[i],
                 mysql_stmt_error(s->st));
        return -1;
    }
    return 0;
}

int db_stmt_answer(struct db_stmt *s, struct db_answer *a, uint64_t *rows) {
    *rows = 0;
    if (a)
        a->rows = a->sum = 0;
    if (mysql_stmt_execute(s->st))
        return -1;
    int rc;
    while ((rc = mysql_stmt_fetch(s->st)) == 0 || rc == MYSQL_DATA_TRUNCATED) {
        ++*rows;
        if (!a)
            continue;
        uint64_t h = db_row_begin();
        for (unsigned c = 0; c < s->ncols; c++) {
            if (s->isnull[c])
                h = db_cell_str(h, "\0NULL", 5);
            else if (s->is_int[c])
                h = db_cell_int(h, s->ival[c]);
            else
                h = db_cell_str(h, s->sval[c], s->len[c] < DB_STRBUF ? s->len[c] : DB_STRBUF);
        }
        db_row_end(a, h);
    }
    return rc == MYSQL_NO_DATA ? 0 : -1;
}

void db_stmt_close(struct db_stmt *s) {
    if (s->st)
        mysql_stmt_close(s->st);
    s->st = NULL;
}
