/* test_db.c -- the db workload driven directly, without the coordinator.
 *
 * With no arguments it checks what needs no server: the pattern table and
 * names result.json relies on, the data sizes, and that an operation's
 * parameters are a pure, in-range function of seed, worker, cycle and op.
 *
 * `test_db --live` (run by tests/integration/test_db.sh against the real
 * MariaDB) also prepares the tiny profile, runs every operation of two
 * cycles for two workers and checks each row count against the same SQL run
 * through the `mariadb` command-line client, then the open() errors: wrong
 * password, unknown database, unreachable server, data of another profile.
 *
 * `test_db --fault PID` opens against the server in the config (a throwaway
 * one the caller started): a query blocked by another session's table lock
 * is stopped by the server at --op-timeout (one error, connection kept);
 * with PID stopped by SIGSTOP a query fails within --op-timeout + 1 s
 * instead of hanging; with PID killed the next query fails as fatal.
 *
 * `test_db --expect N C` prints, per pattern, the rows the mariadb client
 * returns for every query N workers run in C cycles: what result.json must
 * say. */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/util.h"
#include "../../coordinator/cmdline.h"
#include "../../workloads/db.h"
#include "../../workloads/workload.h"
#include "unit.h"

extern const struct workload db_workload;

static void check_offline(void) {
    CHECK(strcmp(db_workload.name, "db") == 0);
    CHECK(db_workload.ops_per_cycle == 50);
    CHECK(db_workload.nclasses == 5);
    const char *names[] = {"point", "range", "aggregate", "ordered", "distinct"};
    for (int i = 0; i < 5; i++)
        CHECKF(db_workload.class_names[i] && !strcmp(db_workload.class_names[i], names[i]),
               "class %d", i);

    struct db_sizes tiny, full;
    db_sizes_for(PROFILE_TINY, &tiny);
    db_sizes_for(PROFILE_FULL, &full);
    CHECK(full.events >= 1000000 && full.sessions >= 1000000);
    CHECK(tiny.events >= 1000 && tiny.events < 100000);
    /* Enough events per agent that ordered's LIMIT 50 is always filled. */
    CHECK(tiny.events / tiny.agents >= 10 * DB_ORDERED_LIMIT);

    struct db_params p, q;
    int in_range = 1, same = 1, differs = 0;
    char sql[1024];
    for (unsigned op = 0; op < 50; op++) {
        db_params_for(7, 3, 2, op, &full, &p);
        db_params_for(7, 3, 2, op, &full, &q);
        same &= p.a == q.a && p.b == q.b;
        db_params_for(7, 4, 2, op, &full, &q);
        differs += p.a != q.a;
        switch (op / 10) {
        case DB_POINT:
            in_range &= p.a >= 1 && (uint64_t)p.a <= full.sessions;
            break;
        case DB_RANGE:
            in_range &= p.a >= 1 && p.b == p.a + 99 && (uint64_t)p.b <= full.events;
            break;
        default:
            in_range &= p.a >= 1 && (uint64_t)p.a <= full.agents;
        }
        CHECK(db_render_sql(op / 10, &p, sql, sizeof sql) == 0 && !strchr(sql, '?'));
    }
    CHECK(in_range);
    CHECK(same);
    CHECKF(differs > 40, "workers 3 and 4 drew the same parameters %d times of 50", 50 - differs);
    CHECK(db_render_sql(5, &p, sql, sizeof sql) == -1);
    CHECK(db_render_sql(0, &p, sql, 10) == -1);
}

/* Rows the mariadb client returns for `sql`, or -1. */
static long client_rows(const char *cnf, const char *sql) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mariadb --defaults-extra-file=%s -N -B -e \"%s\" | wc -l", cnf, sql);
    FILE *f = popen(cmd, "r");
    long n = -1;
    if (!f || fscanf(f, "%ld", &n) != 1)
        n = -1;
    if (f)
        pclose(f);
    return n;
}

/* A client option file with the config's connection, for the mariadb CLI. */
static void write_cnf(const struct config *cfg, char *path, size_t len) {
    snprintf(path, len, "/tmp/aops-test-db-XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "[client]\nuser=%s\npassword=%s\ndatabase=%s\n", db_opts(cfg)->user,
            db_opts(cfg)->password, db_opts(cfg)->name);
    char where[1100];
    db_where(cfg, where, sizeof where);
    if (!strncmp(where, "socket ", 7))
        fprintf(f, "socket=%s\n", db_opts(cfg)->socket);
    else
        fprintf(f, "host=%s\nport=%u\nprotocol=tcp\n", db_opts(cfg)->host, db_opts(cfg)->port);
    fclose(f);
}

static int expect_open_error(const struct config *cfg, const char *needle) {
    char err[512] = "";
    void *st = db_workload.open(cfg, 0, err, sizeof err);
    if (st) {
        db_workload.close(st);
        fprintf(stderr, "open succeeded, expected an error with '%s'\n", needle);
        return 0;
    }
    printf("  open error: %s\n", err);
    return strstr(err, needle) != NULL && !strchr(err, '\n');
}

/* bad := cfg with settings of its own (a copy, not cfg's), returned for editing. */
static struct db_opts *like(struct config *bad, const struct config *cfg) {
    options_free(bad); /* the previous case's, or nothing on a zeroed bad */
    char e[256];
    CHECKF(options_load_env(bad, e, sizeof e) == 0, "%s", e);
    bad->profile = cfg->profile;
    bad->seed = cfg->seed;
    bad->quiet = cfg->quiet;
    bad->op_timeout = cfg->op_timeout;
    struct db_opts *o = (struct db_opts *)db_opts(bad);
    *o = *db_opts(cfg);
    return o;
}

static void check_live(struct config *cfg) {
    char err[512] = "";
    int64_t t0 = now_ns();
    CHECKF(db_workload.prepare(cfg, err, sizeof err) == 0, "prepare: %s", err);
    double first = (double)(now_ns() - t0) / 1e9;
    t0 = now_ns();
    CHECKF(db_workload.prepare(cfg, err, sizeof err) == 0, "second prepare: %s", err);
    double second = (double)(now_ns() - t0) / 1e9;
    printf("  prepare %.2f s, again %.3f s\n", first, second);
    CHECKF(second < 0.5, "a prepare of loaded data took %.2f s: it should be a no-op", second);

    char cnf[64];
    write_cnf(cfg, cnf, sizeof cnf);
    CHECK(client_rows(cnf, "SELECT 1") == 1);
    for (unsigned w = 0; w < 2; w++) {
        void *st = db_workload.open(cfg, w, err, sizeof err);
        CHECKF(st != NULL, "open: %s", err);
        if (!st)
            break;
        uint64_t total = 0;
        for (unsigned cycle = 0; cycle < 2; cycle++)
            for (unsigned op = 0; op < 50; op++) {
                struct op_result res = {.klass = -1};
                int rc = db_workload.run(st, cycle, op, &res);
                CHECKF(rc == 0, "worker %u cycle %u op %u: %s", w, cycle, op, res.err);
                CHECK(res.klass == (int)(op / 10));
                struct db_sizes sz;
                struct db_params p;
                char sql[1024];
                db_sizes_for(cfg->profile, &sz);
                db_params_for(cfg->seed, w, cycle, op, &sz, &p);
                db_render_sql(op / 10, &p, sql, sizeof sql);
                long want = client_rows(cnf, sql);
                CHECKF(want > 0 && (long)res.count[DB_COUNT_ROWS] == want,
                       "op %u: harness %llu rows, client %ld: %s", op,
                       (unsigned long long)res.count[DB_COUNT_ROWS], want, sql);
                long exact[] = {1, DB_RANGE_ROWS, -1, DB_ORDERED_LIMIT, -1};
                if (exact[op / 10] > 0)
                    CHECK((long)res.count[DB_COUNT_ROWS] == exact[op / 10]);
                total += res.count[DB_COUNT_ROWS];
            }
        printf("  worker %u: %llu rows in 100 queries\n", w, (unsigned long long)total);
        db_workload.close(st);
    }
    unlink(cnf);

    /* Each case: the run's settings with one thing wrong. */
    struct config bad;
    memset(&bad, 0, sizeof bad);
    struct db_opts *o = like(&bad, cfg);
    snprintf(o->password, sizeof o->password, "not-the-password");
    CHECK(expect_open_error(&bad, "access denied"));
    CHECK(!strstr(err, db_opts(cfg)->password) || !db_opts(cfg)->password[0]);
    o = like(&bad, cfg);
    snprintf(o->name, sizeof o->name, "aops_no_such_db");
    CHECK(expect_open_error(&bad, "run ./harness prepare"));
    o = like(&bad, cfg);
    o->socket[0] = 0;
    o->port = 1; /* nothing listens on port 1 */
    CHECK(expect_open_error(&bad, "cannot reach MariaDB at 127.0.0.1:1"));
    /* The stack's server has no certificate: --db-tls must refuse, not fall back. */
    o = like(&bad, cfg);
    o->tls = 1;
    o->socket[0] = 0;
    CHECK(expect_open_error(&bad, "TLS"));
    like(&bad, cfg);
    bad.profile = PROFILE_SMALL;
    CHECK(expect_open_error(&bad, "run ./harness prepare --profile small"));
    options_free(&bad);
}

/* SIGSTOP reaches each thread of the server a little later: wait until
 * every one shows state T, or a thread could still answer. */
static int wait_stopped(pid_t pid) {
    char path[64];
    for (int tries = 0; tries < 200; tries++) {
        snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d)
            return 0;
        int running = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char stat[128], buf[512];
            snprintf(stat, sizeof stat, "%s/%s/stat", path, e->d_name);
            FILE *f = fopen(stat, "r");
            if (f && fgets(buf, sizeof buf, f)) {
                char *close = strrchr(buf, ')');
                running += close && close[2] != 'T' && close[2] != 't';
            }
            if (f)
                fclose(f);
        }
        closedir(d);
        if (!running)
            return 1;
        usleep(10000);
    }
    return 0;
}

/* The server `pid` stops answering, then dies: no hang, then fatal. */
static void check_fault(struct config *cfg, pid_t pid) {
    char err[512] = "";
    cfg->op_timeout = 1;
    CHECKF(db_workload.prepare(cfg, err, sizeof err) == 0, "prepare: %s", err);
    void *st = db_workload.open(cfg, 0, err, sizeof err);
    CHECKF(st != NULL, "open: %s", err);
    if (!st)
        return;
    struct op_result res = {.klass = -1};
    CHECKF(db_workload.run(st, 0, 0, &res) == 0, "%s", res.err);

    /* Another session holds the table: the server stops the waiting query
     * at --op-timeout (max_statement_time); one error, connection kept. */
    MYSQL *locker = db_connect(cfg, 0, err, sizeof err);
    CHECKF(locker && !mysql_query(locker, "LOCK TABLES events WRITE"), "lock: %s",
           locker ? mysql_error(locker) : err);
    memset(&res, 0, sizeof res);
    int64_t t0 = now_ns();
    int rc = db_workload.run(st, 0, 10, &res);
    double took = (double)(now_ns() - t0) / 1e9;
    printf("  locked table: rc %d after %.2f s, fatal %d: %s\n", rc, took, res.fatal, res.err);
    CHECK(rc == -1 && res.fatal == 0 && strstr(res.err, "--op-timeout"));
    CHECKF(took >= 0.9 && took < 1.9, "a query over --op-timeout 1 took %.2f s", took);
    if (locker)
        mysql_close(locker);
    memset(&res, 0, sizeof res);
    CHECKF(db_workload.run(st, 0, 11, &res) == 0, "after a timeout the connection goes on: %s",
           res.err);

    CHECK(kill(pid, SIGSTOP) == 0);
    CHECK(wait_stopped(pid));
    memset(&res, 0, sizeof res);
    t0 = now_ns();
    rc = db_workload.run(st, 0, 15, &res);
    took = (double)(now_ns() - t0) / 1e9;
    printf("  stopped server: rc %d after %.2f s, fatal %d: %s\n", rc, took, res.fatal, res.err);
    CHECK(rc == -1 && res.err[0]);
    CHECKF(took < 5, "a query to a stopped server took %.1f s with --op-timeout 1", took);
    CHECK(res.fatal == 1);
    kill(pid, SIGCONT);
    db_workload.close(st);

    st = db_workload.open(cfg, 0, err, sizeof err);
    CHECKF(st != NULL, "reopen: %s", err);
    if (!st)
        return;
    CHECK(kill(pid, SIGKILL) == 0);
    usleep(300000);
    memset(&res, 0, sizeof res);
    t0 = now_ns();
    rc = db_workload.run(st, 0, 25, &res);
    took = (double)(now_ns() - t0) / 1e9;
    printf("  killed server: rc %d after %.2f s, fatal %d: %s\n", rc, took, res.fatal, res.err);
    CHECK(rc == -1 && res.fatal == 1 && strstr(res.err, "connection lost"));
    CHECK(took < 5);
    db_workload.close(st);
}

static void print_expected(const struct config *cfg, unsigned n, unsigned cycles) {
    char cnf[64], sql[1024];
    struct db_sizes sz;
    struct db_params p;
    long rows[DB_NPATTERNS] = {0};
    write_cnf(cfg, cnf, sizeof cnf);
    db_sizes_for(cfg->profile, &sz);
    for (unsigned w = 0; w < n; w++)
        for (unsigned c = 0; c < cycles; c++)
            for (unsigned op = 0; op < 50; op++) {
                db_params_for(cfg->seed, w, c, op, &sz, &p);
                db_render_sql(op / 10, &p, sql, sizeof sql);
                long r = client_rows(cnf, sql);
                CHECK(r > 0);
                rows[op / 10] += r;
            }
    unlink(cnf);
    for (int i = 0; i < DB_NPATTERNS; i++)
        printf("%s %ld\n", db_workload.class_names[i], rows[i]);
}

int main(int argc, char **argv) {
    check_offline();
    if (argc > 1) {
        struct config cfg;
        char err[512];
        if (options_load_env(&cfg, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        cfg.profile = PROFILE_TINY;
        cfg.quiet = 1;
        const char *h = getenv("AOPS_DB_HOST"), *p = getenv("AOPS_DB_PORT");
        /* Another server (a fault test's own): TCP to it, not the stack's socket. */
        if (h || p)
            options_set(&cfg, "db-socket", "", err, sizeof err);
        if (h && options_set(&cfg, "db-host", h, err, sizeof err) < 0)
            return fprintf(stderr, "%s\n", err), 1;
        if (p && options_set(&cfg, "db-port", p, err, sizeof err) < 0)
            return fprintf(stderr, "%s\n", err), 1;
        if (!strcmp(argv[1], "--live"))
            check_live(&cfg);
        else if (!strcmp(argv[1], "--fault") && argc > 2)
            check_fault(&cfg, (pid_t)atoi(argv[2]));
        else if (!strcmp(argv[1], "--expect") && argc > 3) {
            print_expected(&cfg, (unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
            options_free(&cfg);
            return unit_failed ? 1 : 0;
        }
        options_free(&cfg);
    }
    return unit_done("test_db");
}
