/* test_curl_dl.c -- libcurl loaded on first use (common/curl_dl.c): a
 * process of the library that never calls libcurl never maps it (a search
 * over a tree does not), the first call maps it, and the calls reach
 * libcurl with their arguments whole: each kind of option (long, pointer,
 * function pointer, curl_off_t) and of getinfo answer, checked by what
 * libcurl does with a file:// transfer of a known file. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/libpath.h"
#include "../../workloads/search_engine.h"
#include "unit.h"

static size_t sink(char *d, size_t size, size_t n, void *arg) {
    (void)d;
    *(size_t *)arg += size * n;
    return size * n;
}

int main(void) {
    char path[4096];
    char file[] = "/tmp/aops-test-curl-XXXXXX";
    int fd = mkstemp(file);
    CHECK(fd >= 0);
    static char body[1000];
    memset(body, 'x', sizeof body);
    memcpy(body + 500, "\nfound\n", 7);
    CHECK(write(fd, body, sizeof body) == (ssize_t)sizeof body);
    close(fd);

    /* A search first: it needs no libcurl. */
    struct matcher m;
    char err[512];
    CHECK(matcher_compile(&m, "found", err, sizeof err) == 0);
    struct engine *e = engine_open(READER_PREAD, err, sizeof err);
    CHECK(e != NULL);
    struct engine_totals t = {0};
    CHECK(e && engine_search(e, &m, file, ENGINE_COUNT, NULL, NULL, &t) == 0);
    CHECKF(t.files == 1 && t.lines == 1, "%llu files, %llu lines: %s", (unsigned long long)t.files,
           (unsigned long long)t.lines, t.err);
    engine_close(e);
    matcher_free(&m);
    CHECKF(libpath_loaded("libcurl", path, sizeof path) < 0, "libcurl mapped before its use: %s",
           path);
    char url[64];
    snprintf(url, sizeof url, "file://%s", file);

    CURL *h = curl_easy_init();
    CHECK(h != NULL);
    CHECK(libpath_loaded("libcurl", path, sizeof path) == 0);
    if (!h)
        return unit_done("test_curl_dl");
    size_t got = 0;
    /* pointer, function pointer and pointer options; curl_off_t: from 600 */
    CHECK(curl_easy_setopt(h, CURLOPT_URL, url) == CURLE_OK);
    CHECK(curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink) == CURLE_OK);
    CHECK(curl_easy_setopt(h, CURLOPT_WRITEDATA, &got) == CURLE_OK);
    CHECK(curl_easy_setopt(h, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)600) == CURLE_OK);
    CHECK(curl_easy_perform(h) == CURLE_OK);
    CHECKF(got == 400, "%zu bytes after resuming at 600", got);
    curl_off_t dl = -1;
    CHECK(curl_easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &dl) == CURLE_OK && dl == 400);
    char *eff = NULL;
    CHECK(curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &eff) == CURLE_OK && eff &&
          !strcmp(eff, url));
    /* long: from 900 */
    curl_easy_reset(h);
    got = 0;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &got);
    CHECK(curl_easy_setopt(h, CURLOPT_RESUME_FROM, 900L) == CURLE_OK);
    CURLcode rc = curl_easy_perform(h);
    CHECKF(rc == CURLE_OK && got == 100, "%s, %zu bytes after resuming at 900",
           curl_easy_strerror(rc), got);
    CHECK(strstr(curl_easy_strerror(CURLE_FILESIZE_EXCEEDED), "size") != NULL);
    long code = -1;
    CHECK(curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code == 0);
    curl_easy_cleanup(h);
    char *esc = curl_easy_escape(NULL, "a b/c", 0);
    CHECK(esc && !strcmp(esc, "a%20b%2Fc"));
    curl_free(esc);
    unlink(file);
    return unit_done("test_curl_dl");
}
