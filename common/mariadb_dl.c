/* mariadb_dl.c -- libmariadb, loaded on its first use rather than at every
 * start (dl_lazy.h says why and how): it brings libssl and libcrypto, about
 * 1.5 ms of CPU and 170 page faults at each start of ./harness, which only
 * the db workload (and prepare, bench/db_point) needs. A harness whose
 * libmariadb cannot be loaded says so once, and every call fails as a call
 * without a server would (NULL, a non-zero status, error 2000).
 */
#include <mysql.h>
#include <pthread.h>
#include <stdarg.h>

#include "dl_lazy.h"

#define MARIADB_SONAME "libmariadb.so.3"
#define NOT_LOADED "libmariadb could not be loaded"
#define CR_UNKNOWN 2000 /* CR_UNKNOWN_ERROR */

/* X(name, return type, parameters) for each function the harness calls. */
#define MARIADB_FUNCS(X)                                                                           \
    X(mysql_server_init, int, (int, char **, char **))                                             \
    X(mysql_server_end, void, (void))                                                              \
    X(mysql_init, MYSQL *, (MYSQL *))                                                              \
    X(mysql_optionsv, int, (MYSQL *, enum mysql_option, ...))                                      \
    X(mysql_real_connect, MYSQL *,                                                                 \
      (MYSQL *, const char *, const char *, const char *, const char *, unsigned int,              \
       const char *, unsigned long))                                                               \
    X(mysql_select_db, int, (MYSQL *, const char *))                                               \
    X(mysql_close, void, (MYSQL *))                                                                \
    X(mysql_error, const char *, (MYSQL *))                                                        \
    X(mysql_errno, unsigned int, (MYSQL *))                                                        \
    X(mysql_query, int, (MYSQL *, const char *))                                                   \
    X(mysql_store_result, MYSQL_RES *, (MYSQL *))                                                  \
    X(mysql_free_result, void, (MYSQL_RES *))                                                      \
    X(mysql_fetch_row, MYSQL_ROW, (MYSQL_RES *))                                                   \
    X(mysql_fetch_fields, MYSQL_FIELD *, (MYSQL_RES *))                                            \
    X(mysql_num_fields, unsigned int, (MYSQL_RES *))                                               \
    X(mysql_field_count, unsigned int, (MYSQL *))                                                  \
    X(mysql_get_ssl_cipher, const char *, (MYSQL *))                                               \
    X(mysql_get_server_info, char *, (MYSQL *))                                                    \
    X(mysql_get_client_info, const char *, (void))                                                 \
    X(mysql_stmt_init, MYSQL_STMT *, (MYSQL *))                                                    \
    X(mysql_stmt_prepare, int, (MYSQL_STMT *, const char *, unsigned long))                        \
    X(mysql_stmt_bind_param, my_bool, (MYSQL_STMT *, MYSQL_BIND *))                                \
    X(mysql_stmt_bind_result, my_bool, (MYSQL_STMT *, MYSQL_BIND *))                               \
    X(mysql_stmt_execute, int, (MYSQL_STMT *))                                                     \
    X(mysql_stmt_fetch, int, (MYSQL_STMT *))                                                       \
    X(mysql_stmt_reset, my_bool, (MYSQL_STMT *))                                                   \
    X(mysql_stmt_result_metadata, MYSQL_RES *, (MYSQL_STMT *))                                     \
    X(mysql_stmt_close, my_bool, (MYSQL_STMT *))                                                   \
    X(mysql_stmt_errno, unsigned int, (MYSQL_STMT *))                                              \
    X(mysql_stmt_error, const char *, (MYSQL_STMT *))

DL_LAZY_LIBRARY(MARIADB_FUNCS, MARIADB_SONAME, "the db workload and prepare")

#define FORWARD DL_LAZY_FORWARD
#define FORWARD_VOID(name, ...)                                                                    \
    if (loaded())                                                                                  \
    DL_LAZY_FN(fn, name)(__VA_ARGS__)

int STDCALL mysql_server_init(int argc, char **argv, char **groups) {
    FORWARD(1, mysql_server_init, argc, argv, groups);
}
void STDCALL mysql_server_end(void) {
    FORWARD_VOID(mysql_server_end);
}
MYSQL *STDCALL mysql_init(MYSQL *m) {
    FORWARD(NULL, mysql_init, m);
}
/* Every option the harness sets takes one pointer (timeouts, SSL
 * enforcement): that one is passed on. */
int mysql_optionsv(MYSQL *m, enum mysql_option option, ...) {
    va_list ap;
    va_start(ap, option);
    const void *arg = va_arg(ap, const void *);
    va_end(ap);
    FORWARD(1, mysql_optionsv, m, option, arg);
}
MYSQL *STDCALL mysql_real_connect(MYSQL *m, const char *host, const char *user, const char *passwd,
                                  const char *db, unsigned int port, const char *unix_socket,
                                  unsigned long clientflag) {
    FORWARD(NULL, mysql_real_connect, m, host, user, passwd, db, port, unix_socket, clientflag);
}
int STDCALL mysql_select_db(MYSQL *m, const char *db) {
    FORWARD(1, mysql_select_db, m, db);
}
void STDCALL mysql_close(MYSQL *m) {
    FORWARD_VOID(mysql_close, m);
}
const char *STDCALL mysql_error(MYSQL *m) {
    FORWARD(NOT_LOADED, mysql_error, m);
}
unsigned int STDCALL mysql_errno(MYSQL *m) {
    FORWARD(CR_UNKNOWN, mysql_errno, m);
}
int STDCALL mysql_query(MYSQL *m, const char *q) {
    FORWARD(1, mysql_query, m, q);
}
MYSQL_RES *STDCALL mysql_store_result(MYSQL *m) {
    FORWARD(NULL, mysql_store_result, m);
}
void STDCALL mysql_free_result(MYSQL_RES *r) {
    FORWARD_VOID(mysql_free_result, r);
}
MYSQL_ROW STDCALL mysql_fetch_row(MYSQL_RES *r) {
    FORWARD(NULL, mysql_fetch_row, r);
}
MYSQL_FIELD *STDCALL mysql_fetch_fields(MYSQL_RES *r) {
    FORWARD(NULL, mysql_fetch_fields, r);
}
unsigned int STDCALL mysql_num_fields(MYSQL_RES *r) {
    FORWARD(0, mysql_num_fields, r);
}
unsigned int STDCALL mysql_field_count(MYSQL *m) {
    FORWARD(0, mysql_field_count, m);
}
const char *STDCALL mysql_get_ssl_cipher(MYSQL *m) {
    FORWARD(NULL, mysql_get_ssl_cipher, m);
}
char *STDCALL mysql_get_server_info(MYSQL *m) {
    FORWARD(NULL, mysql_get_server_info, m);
}
const char *STDCALL mysql_get_client_info(void) {
    FORWARD(NOT_LOADED, mysql_get_client_info);
}
MYSQL_STMT *STDCALL mysql_stmt_init(MYSQL *m) {
    FORWARD(NULL, mysql_stmt_init, m);
}
int STDCALL mysql_stmt_prepare(MYSQL_STMT *s, const char *q, unsigned long len) {
    FORWARD(1, mysql_stmt_prepare, s, q, len);
}
my_bool STDCALL mysql_stmt_bind_param(MYSQL_STMT *s, MYSQL_BIND *b) {
    FORWARD(1, mysql_stmt_bind_param, s, b);
}
my_bool STDCALL mysql_stmt_bind_result(MYSQL_STMT *s, MYSQL_BIND *b) {
    FORWARD(1, mysql_stmt_bind_result, s, b);
}
int STDCALL mysql_stmt_execute(MYSQL_STMT *s) {
    FORWARD(1, mysql_stmt_execute, s);
}
int STDCALL mysql_stmt_fetch(MYSQL_STMT *s) {
    FORWARD(1, mysql_stmt_fetch, s);
}
my_bool STDCALL mysql_stmt_reset(MYSQL_STMT *s) {
    FORWARD(1, mysql_stmt_reset, s);
}
MYSQL_RES *STDCALL mysql_stmt_result_metadata(MYSQL_STMT *s) {
    FORWARD(NULL, mysql_stmt_result_metadata, s);
}
my_bool STDCALL mysql_stmt_close(MYSQL_STMT *s) {
    FORWARD(1, mysql_stmt_close, s);
}
unsigned int STDCALL mysql_stmt_errno(MYSQL_STMT *s) {
    FORWARD(CR_UNKNOWN, mysql_stmt_errno, s);
}
const char *STDCALL mysql_stmt_error(MYSQL_STMT *s) {
    FORWARD(NOT_LOADED, mysql_stmt_error, s);
}
