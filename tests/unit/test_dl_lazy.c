/* test_dl_lazy.c -- libcurl, libmariadb and libcrypto loaded on first use
 * (common/dl_lazy.h): a process of the library that never calls them never
 * maps them (a search over a tree does not), the first call maps each, and
 * the calls reach the library with their arguments whole: each kind of
 * libcurl option (long, pointer, function pointer, curl_off_t) and of
 * getinfo answer, checked by what libcurl does with a file:// transfer of a
 * known file; SHA-256 and HMAC-SHA256 against published test vectors;
 * libmariadb's client version and a refused connection. */
#include <curl/curl.h>
#include <mysql.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/digest.h"
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
    static const char *const libs[] = {"libcurl", "libmariadb", "libcrypto", "libssl"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        CHECKF(libpath_loaded(libs[i], path, sizeof path) < 0, "%s mapped before its use: %s",
               libs[i], path);

    /* libcrypto: FIPS 180-2's "abc", RFC 4231's test case 2. */
    char hex[SHA256_HEX];
    sha256_hex("abc", 3, hex);
    CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    CHECK(libpath_loaded("libcrypto", path, sizeof path) == 0);
    unsigned char mac[32];
    unsigned int maclen = 0;
    const char *msg = "what do ya want for nothing?";
    CHECK(HMAC(EVP_sha256(), "Jefe", 4, (const unsigned char *)msg, strlen(msg), mac, &maclen) &&
          maclen == 32);
    static const unsigned char want_mac[32] = {0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e,
                                               0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7,
                                               0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83,
                                               0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43};
    CHECK(!memcmp(mac, want_mac, 32));

    /* libmariadb: its version, and a connection nothing answers (port 1). */
    CHECK(libpath_loaded("libmariadb", path, sizeof path) < 0);
    const char *cv = mysql_get_client_info();
    CHECKF(cv && cv[0] >= '1' && cv[0] <= '9', "client version '%s'", cv ? cv : "(null)");
    CHECK(libpath_loaded("libmariadb", path, sizeof path) == 0);
    MYSQL *db = mysql_init(NULL);
    CHECK(db != NULL);
    if (db) {
        unsigned timeout = 2;
        CHECK(mysql_optionsv(db, MYSQL_OPT_CONNECT_TIMEOUT, &timeout) == 0);
        CHECK(mysql_real_connect(db, "127.0.0.1", "u", "p", NULL, 1, NULL, 0) == NULL);
        CHECKF(mysql_errno(db) == 2002 || mysql_errno(db) == 2003, "%u %s", mysql_errno(db),
               mysql_error(db));
        mysql_close(db);
    }
    char url[64];
    snprintf(url, sizeof url, "file://%s", file);

    CURL *h = curl_easy_init();
    CHECK(h != NULL);
    CHECK(libpath_loaded("libcurl", path, sizeof path) == 0);
    if (!h)
        return unit_done("test_dl_lazy");
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
    return unit_done("test_dl_lazy");
}
