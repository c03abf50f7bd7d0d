/* curl_dl.c -- libcurl, loaded on its first use rather than at every start
 * (dl_lazy.h says why and how).
 *
 * Debian's libcurl brings about thirty libraries with it (GnuTLS, Kerberos,
 * LDAP, SSH, RTMP, ...), most linked with BIND_NOW: loading and relocating
 * them cost each start of ./harness about 5 ms of CPU and 300 page faults
 * (perf stat: 6.0 ms and 613 faults for `harness search` of /dev/null, 0.9
 * ms with PCRE2 and liburing only). Only what talks HTTP needs it (S3,
 * MinIO's metrics, Docker, Redfish, bench/s3). A harness whose libcurl
 * cannot be loaded says so once, and every call fails as libcurl's would
 * (NULL, CURLE_FAILED_INIT, ...), so an operation that needs it is an
 * error.
 */
#define CURL_DISABLE_TYPECHECK /* the function definitions below, not the checking macros */
#include <curl/curl.h>
#include <pthread.h>
#include <stdarg.h>

#include "dl_lazy.h"

#define CURL_SONAME "libcurl.so.4"

/* X(name, return type, parameters) for each function the harness calls. */
#define CURL_FUNCS(X)                                                                              \
    X(curl_global_init, CURLcode, (long))                                                          \
    X(curl_global_cleanup, void, (void))                                                           \
    X(curl_easy_init, CURL *, (void))                                                              \
    X(curl_easy_cleanup, void, (CURL *))                                                           \
    X(curl_easy_reset, void, (CURL *))                                                             \
    X(curl_easy_perform, CURLcode, (CURL *))                                                       \
    X(curl_easy_setopt, CURLcode, (CURL *, CURLoption, ...))                                       \
    X(curl_easy_getinfo, CURLcode, (CURL *, CURLINFO, ...))                                        \
    X(curl_easy_strerror, const char *, (CURLcode))                                                \
    X(curl_easy_escape, char *, (CURL *, const char *, int))                                       \
    X(curl_easy_header, CURLHcode,                                                                 \
      (CURL *, const char *, size_t, unsigned int, int, struct curl_header **))                    \
    X(curl_free, void, (void *))                                                                   \
    X(curl_slist_append, struct curl_slist *, (struct curl_slist *, const char *))                 \
    X(curl_slist_free_all, void, (struct curl_slist *))                                            \
    X(curl_url, CURLU *, (void))                                                                   \
    X(curl_url_cleanup, void, (CURLU *))                                                           \
    X(curl_url_get, CURLUcode, (CURLU *, CURLUPart, char **, unsigned int))                        \
    X(curl_url_set, CURLUcode, (CURLU *, CURLUPart, const char *, unsigned int))                   \
    X(curl_version_info, curl_version_info_data *, (CURLversion))                                  \
    X(curl_multi_init, CURLM *, (void))                                                            \
    X(curl_multi_cleanup, CURLMcode, (CURLM *))                                                    \
    X(curl_multi_add_handle, CURLMcode, (CURLM *, CURL *))                                         \
    X(curl_multi_remove_handle, CURLMcode, (CURLM *, CURL *))                                      \
    X(curl_multi_perform, CURLMcode, (CURLM *, int *))                                             \
    X(curl_multi_poll, CURLMcode, (CURLM *, struct curl_waitfd[], unsigned int, int, int *))       \
    X(curl_multi_info_read, CURLMsg *, (CURLM *, int *))

DL_LAZY_LIBRARY(CURL_FUNCS, CURL_SONAME, "S3, Docker and Redfish")

#define FORWARD DL_LAZY_FORWARD

CURLcode curl_global_init(long flags) {
    FORWARD(CURLE_FAILED_INIT, curl_global_init, flags);
}
void curl_global_cleanup(void) {
    if (loaded())
        DL_LAZY_FN(fn, curl_global_cleanup)();
}
CURL *curl_easy_init(void) {
    FORWARD(NULL, curl_easy_init);
}
void curl_easy_cleanup(CURL *h) {
    if (loaded())
        DL_LAZY_FN(fn, curl_easy_cleanup)(h);
}
void curl_easy_reset(CURL *h) {
    if (loaded())
        DL_LAZY_FN(fn, curl_easy_reset)(h);
}
CURLcode curl_easy_perform(CURL *h) {
    FORWARD(CURLE_FAILED_INIT, curl_easy_perform, h);
}

/* The one argument after the option, taken as the type its number says
 * (curl.h: CURLOPTTYPE_* are the thousands of the option's value), and
 * passed on as that type. */
CURLcode curl_easy_setopt(CURL *h, CURLoption opt, ...) {
    if (!loaded())
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, opt);
    CURLcode rc;
    if (opt < CURLOPTTYPE_OBJECTPOINT) {
        long v = va_arg(ap, long);
        rc = DL_LAZY_FN(fn, curl_easy_setopt)(h, opt, v);
    } else if (opt < CURLOPTTYPE_FUNCTIONPOINT) {
        void *v = va_arg(ap, void *);
        rc = DL_LAZY_FN(fn, curl_easy_setopt)(h, opt, v);
    } else if (opt < CURLOPTTYPE_OFF_T) {
        void (*v)(void) = va_arg(ap, void (*)(void));
        rc = DL_LAZY_FN(fn, curl_easy_setopt)(h, opt, v);
    } else if (opt < CURLOPTTYPE_BLOB) {
        curl_off_t v = va_arg(ap, curl_off_t);
        rc = DL_LAZY_FN(fn, curl_easy_setopt)(h, opt, v);
    } else {
        void *v = va_arg(ap, void *);
        rc = DL_LAZY_FN(fn, curl_easy_setopt)(h, opt, v);
    }
    va_end(ap);
    return rc;
}

/* Every CURLINFO takes a pointer to where the answer goes. */
CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...) {
    if (!loaded())
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, info);
    void *p = va_arg(ap, void *);
    va_end(ap);
    return DL_LAZY_FN(fn, curl_easy_getinfo)(h, info, p);
}

const char *curl_easy_strerror(CURLcode rc) {
    FORWARD("libcurl could not be loaded", curl_easy_strerror, rc);
}
char *curl_easy_escape(CURL *h, const char *s, int len) {
    FORWARD(NULL, curl_easy_escape, h, s, len);
}
CURLHcode curl_easy_header(CURL *h, const char *name, size_t index, unsigned int origin,
                           int request, struct curl_header **hout) {
    FORWARD(CURLHE_NOT_BUILT_IN, curl_easy_header, h, name, index, origin, request, hout);
}
void curl_free(void *p) {
    if (loaded())
        DL_LAZY_FN(fn, curl_free)(p);
}
struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s) {
    FORWARD(NULL, curl_slist_append, l, s);
}
void curl_slist_free_all(struct curl_slist *l) {
    if (loaded())
        DL_LAZY_FN(fn, curl_slist_free_all)(l);
}
CURLU *curl_url(void) {
    FORWARD(NULL, curl_url);
}
void curl_url_cleanup(CURLU *u) {
    if (loaded())
        DL_LAZY_FN(fn, curl_url_cleanup)(u);
}
CURLUcode curl_url_get(CURLU *u, CURLUPart what, char **part, unsigned int flags) {
    FORWARD(CURLUE_OUT_OF_MEMORY, curl_url_get, u, what, part, flags);
}
CURLUcode curl_url_set(CURLU *u, CURLUPart what, const char *part, unsigned int flags) {
    FORWARD(CURLUE_OUT_OF_MEMORY, curl_url_set, u, what, part, flags);
}
curl_version_info_data *curl_version_info(CURLversion v) {
    FORWARD(NULL, curl_version_info, v);
}
CURLM *curl_multi_init(void) {
    FORWARD(NULL, curl_multi_init);
}
CURLMcode curl_multi_cleanup(CURLM *m) {
    FORWARD(CURLM_INTERNAL_ERROR, curl_multi_cleanup, m);
}
CURLMcode curl_multi_add_handle(CURLM *m, CURL *h) {
    FORWARD(CURLM_INTERNAL_ERROR, curl_multi_add_handle, m, h);
}
CURLMcode curl_multi_remove_handle(CURLM *m, CURL *h) {
    FORWARD(CURLM_INTERNAL_ERROR, curl_multi_remove_handle, m, h);
}
CURLMcode curl_multi_perform(CURLM *m, int *running) {
    FORWARD(CURLM_INTERNAL_ERROR, curl_multi_perform, m, running);
}
CURLMcode curl_multi_poll(CURLM *m, struct curl_waitfd fds[], unsigned int n, int timeout_ms,
                          int *numfds) {
    FORWARD(CURLM_INTERNAL_ERROR, curl_multi_poll, m, fds, n, timeout_ms, numfds);
}
CURLMsg *curl_multi_info_read(CURLM *m, int *left) {
    FORWARD(NULL, curl_multi_info_read, m, left);
}
