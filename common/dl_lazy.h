/* dl_lazy.h -- a shared library loaded on its first use, not at start.
 *
 * The harness links neither libcurl, nor libmariadb, nor libcrypto: their
 * dependencies (GnuTLS, Kerberos, LDAP, OpenSSL's ~5,000 relocations, ...)
 * cost every start of ./harness about 7 ms of CPU and 500 page faults, and
 * `harness search`, report or compare never call them. Each has a file
 * (curl_dl.c, mariadb_dl.c, crypto_dl.c) that defines the functions the
 * harness calls, each going on to the library's own, which the first call
 * loads under pthread_once. The functions are listed once, as an X-macro
 * X(name, return type, parameter list), from which these macros make the
 * table, its names and each call. A library that cannot be loaded is said
 * once on stderr, and every call then fails as the library's own would. */
#ifndef AOPS_DL_LAZY_H
#define AOPS_DL_LAZY_H

#include <pthread.h>
#include <stddef.h>

/* dlopen(soname) and resolve names[0..n) into fns[0..n). 1, or 0 after one
 * line on stderr naming the library, what needs it (needed_by) and why. */
int dl_lazy_open(const char *soname, const char *needed_by, const char *const *names, size_t n,
                 void **fns);

/* For a list LIST(X): DL_LAZY_INDEX makes enum entries DL_<name>, DL_LAZY_TYPE
 * a pointer type <name>_fn, DL_LAZY_NAME the name as a string. */
#define DL_LAZY_INDEX(name, ret, params) DL_##name,
#define DL_LAZY_TYPE(name, ret, params) typedef ret(*name##_fn) params;
#define DL_LAZY_NAME(name, ret, params) #name,

/* The library's own function `name`, from a table fn[] that dl_lazy_open
 * filled. */
#define DL_LAZY_FN(fn, name) ((name##_fn)(fn)[DL_##name])

/* In a library's file: its table (written once under dl_once, read-only
 * after, as crc32c.c's tables: the process's dynamic linking, not state)
 * and loaded(), which loads it on the first call and says whether it is
 * there. */
#define DL_LAZY_LIBRARY(LIST, soname, needed_by)                                                   \
    LIST(DL_LAZY_TYPE)                                                                             \
    enum { LIST(DL_LAZY_INDEX) DL_N };                                                             \
    static const char *const dl_names[] = {LIST(DL_LAZY_NAME)};                                    \
    static void *fn[DL_N];                                                                         \
    static int dl_ok;                                                                              \
    static pthread_once_t dl_once = PTHREAD_ONCE_INIT;                                             \
    static void dl_load(void) {                                                                    \
        dl_ok = dl_lazy_open(soname, needed_by, dl_names, DL_N, fn);                               \
    }                                                                                              \
    static int loaded(void) {                                                                      \
        pthread_once(&dl_once, dl_load);                                                           \
        return dl_ok;                                                                              \
    }

/* return the library's name(...), or FAIL when it could not be loaded. */
#define DL_LAZY_FORWARD(FAIL, name, ...) return loaded() ? DL_LAZY_FN(fn, name)(__VA_ARGS__) : FAIL

#endif
