/* test_s3.c -- the s3 workload's pure pieces (object naming, sizes per
 * profile and class, URI encoding, deterministic content, error codes) and,
 * with the argument "live", its behaviour against the real MinIO of
 * scripts/stack: prepare, a whole cycle with exact bytes, content as
 * generated, SigV4 on keys that need encoding, and the error messages for
 * wrong keys, no server, a server that never answers and missing objects.
 * tests/run runs the pure part; tests/integration/test_s3.sh runs "live"
 * once the stack is up. */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmdline.h"
#include "s3_presign.h"
#include "s3_util.h"
#include "unit.h"
#include "workload.h"

extern const struct workload s3_workload;

static void test_classes(void) {
    CHECK(s3_op_class(0) == 0 && s3_op_class(499) == 0);
    CHECK(s3_op_class(500) == 1 && s3_op_class(999) == 1);
    CHECK(s3_op_class(1000) == 2 && s3_op_class(1189) == 2);
    CHECK(s3_op_index(0) == 0 && s3_op_index(499) == 499 && s3_op_index(500) == 0);
    CHECK(s3_op_index(1189) == 189);
    CHECK(s3_class_size(PROFILE_FULL, 0) == 1 << 20);
    CHECK(s3_class_size(PROFILE_FULL, 2) == 50 << 20);
    CHECK(s3_class_size(PROFILE_SMALL, 1) == (10 << 20) / 64);
    CHECK(s3_class_size(PROFILE_TINY, 0) == 1024);
    CHECK(s3_class_size(PROFILE_TINY, 2) == 51200);
    CHECK(s3_worker_bytes(PROFILE_TINY) == 500 * 1024 + 500 * 10240 + 190 * 51200);
    CHECK(s3_worker_bytes(PROFILE_FULL) == (500ULL + 5000 + 9500) << 20);
    CHECK(s3_workload.ops_per_cycle == 1190 && s3_workload.nclasses == 3);
    for (int c = 0; c < 3; c++)
        CHECK(!strcmp(s3_workload.class_names[c], s3_class_names[c]));
    /* The classes' first ops come from the one table of counts. */
    CHECK(s3_class_first_op(0) == 0 && s3_class_first_op(1) == 500 && s3_class_first_op(2) == 1000);
    CHECK(s3_class_count(2) == 190);
}

static void test_keys(void) {
    char k[S3_KEYLEN];
    s3_key(k, sizeof k, PROFILE_TINY, 3, 0);
    CHECKF(!strcmp(k, "tiny/w3/1MiB/0"), "%s", k);
    s3_key(k, sizeof k, PROFILE_FULL, 0, 1189);
    CHECKF(!strcmp(k, "full/w0/50MiB/189"), "%s", k);
    s3_key(k, sizeof k, PROFILE_SMALL, 12, 742);
    CHECKF(!strcmp(k, "small/w12/10MiB/242"), "%s", k);

    struct config cfg;
    char err[256];
    CHECK(options_load_env(&cfg, err, sizeof err) == 0);
    CHECK(s3_data_worker(&cfg, 5) == 5);
    CHECK(options_set(&cfg, "dataset", "shared", err, sizeof err) == 0);
    CHECK(s3_data_worker(&cfg, 5) == 0);
    options_free(&cfg);
}

static void test_encoding(void) {
    char b[256];
    CHECK(s3_uri_encode(b, sizeof b, "tiny/w0/1MiB/7", 1) == 14 && !strcmp(b, "tiny/w0/1MiB/7"));
    s3_uri_encode(b, sizeof b, "a b+c=d/é~_.-", 1);
    CHECKF(!strcmp(b, "a%20b%2Bc%3Dd/%C3%A9~_.-"), "%s", b);
    s3_uri_encode(b, sizeof b, "a/b", 0);
    CHECKF(!strcmp(b, "a%2Fb"), "%s", b);
    s3_uri_encode(b, sizeof b, "*?#%&", 1);
    CHECKF(!strcmp(b, "%2A%3F%23%25%26"), "%s", b);
    CHECK(s3_uri_encode(b, 4, "abc", 1) == 3);
    CHECK(s3_uri_encode(b, 3, "abc", 1) == -1);
    CHECK(s3_uri_encode(b, 5, "ab c", 1) == -1);

    struct config cfg;
    char err[256];
    CHECK(options_load_env(&cfg, err, sizeof err) == 0);
    CHECK(options_set(&cfg, "s3-endpoint", "http://h:9000/", err, sizeof err) == 0);
    CHECK(options_set(&cfg, "bucket", "aops", err, sizeof err) == 0);
    CHECK(s3_url(b, sizeof b, &cfg, "x y/z") == 0 && !strcmp(b, "http://h:9000/aops/x%20y/z"));
    CHECK(s3_url(b, sizeof b, &cfg, NULL) == 0 && !strcmp(b, "http://h:9000/aops"));
    options_free(&cfg);
}

static void test_content(void) {
    enum { N = 1 << 20 };
    unsigned char *a = malloc(N), *b = malloc(N);
    uint64_t cs = s3_content_seed(1, "tiny/w0/1MiB/0");
    s3_fill(a, N, cs, 0);
    s3_fill(b, N, cs, 0);
    CHECK(memcmp(a, b, N) == 0);
    /* Any range on its own equals the same slice of the whole: uploads
     * generate the body piece by piece at arbitrary offsets. */
    s3_fill(b, 1000, cs, 13);
    CHECK(memcmp(a + 13, b, 1000) == 0);
    s3_fill(b, 5, cs, 3);
    CHECK(memcmp(a + 3, b, 5) == 0);
    s3_fill(b, 7, cs, N - 7);
    CHECK(memcmp(a + N - 7, b, 7) == 0);
    CHECK(s3_content_seed(1, "tiny/w0/1MiB/0") != s3_content_seed(2, "tiny/w0/1MiB/0"));
    CHECK(s3_content_seed(1, "tiny/w0/1MiB/0") != s3_content_seed(1, "tiny/w0/1MiB/1"));
    s3_fill(b, N, s3_content_seed(1, "tiny/w0/1MiB/1"), 0);
    CHECK(memcmp(a, b, N) != 0);
    /* Incompressible: byte frequencies uniform (chi-square, 255 degrees of
     * freedom, far below 400), and no run of equal 8-byte words. */
    unsigned hist[256] = {0};
    for (int i = 0; i < N; i++)
        hist[a[i]]++;
    double chi = 0, e = N / 256.0;
    for (int i = 0; i < 256; i++)
        chi += (hist[i] - e) * (hist[i] - e) / e;
    CHECKF(chi < 400, "chi-square %.1f", chi);
    int repeats = 0;
    for (int i = 8; i < N; i += 8)
        repeats += !memcmp(a + i, a + i - 8, 8);
    CHECK(repeats == 0);
    free(a);
    free(b);
}

static void test_error_code(void) {
    const char *xml = "<?xml version=\"1.0\"?><Error><Code>InvalidAccessKeyId</Code><Message>"
                      "x</Message></Error>";
    char c[64];
    s3_error_code(xml, strlen(xml), c, sizeof c);
    CHECK(!strcmp(c, "InvalidAccessKeyId"));
    s3_error_code(xml, 20, c, sizeof c);
    CHECK(c[0] == 0);
    s3_error_code(xml, strlen(xml), c, 8);
    CHECK(!strcmp(c, "Invalid"));
}

/* ---- live: against the stack's MinIO ---- */

struct buf {
    unsigned char *p;
    size_t len, cap;
};

static size_t to_buf(char *p, size_t sz, size_t n, void *ud) {
    struct buf *b = ud;
    size_t k = sz * n;
    if (b->len + k <= b->cap)
        memcpy(b->p + b->len, p, k);
    b->len += k;
    return k;
}

struct body {
    const unsigned char *p;
    size_t len, off;
};

static size_t from_body(char *dst, size_t sz, size_t n, void *ud) {
    struct body *b = ud;
    size_t k = sz * n < b->len - b->off ? sz * n : b->len - b->off;
    memcpy(dst, b->p + b->off, k);
    b->off += k;
    return k;
}

/* One request through the same handle setup the workload uses. Returns
 * the HTTP status, or -curlcode. */
static long request(const struct config *cfg, const char *method, const char *key, const void *body,
                    size_t blen, struct buf *out) {
    char url[S3_URLLEN];
    if (s3_url(url, sizeof url, cfg, key) < 0)
        return -1000;
    CURL *h = curl_easy_init();
    int put = !strcmp(method, "PUT");
    struct curl_slist *hd = put ? s3_put_headers() : s3_get_headers();
    struct body b = {body, blen, 0};
    struct buf sink = {0};
    s3_easy_setup(h, cfg);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, to_buf);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, out ? out : &sink);
    if (put) {
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_READFUNCTION, from_body);
        curl_easy_setopt(h, CURLOPT_READDATA, &b);
        curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)blen);
    } else if (!strcmp(method, "HEAD")) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (strcmp(method, "GET")) {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    }
    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(hd);
    curl_easy_cleanup(h);
    return cc ? -(long)cc : status;
}

static long last_modified(const struct config *cfg, const char *key) {
    char url[S3_URLLEN];
    s3_url(url, sizeof url, cfg, key);
    CURL *h = curl_easy_init();
    struct curl_slist *hd = s3_get_headers();
    s3_easy_setup(h, cfg);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    curl_easy_setopt(h, CURLOPT_FILETIME, 1L);
    long t = -1;
    if (curl_easy_perform(h) == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_FILETIME, &t);
    curl_slist_free_all(hd);
    curl_easy_cleanup(h);
    return t;
}

/* The sockets this process has open, as a sum of their inodes (libcurl
 * also keeps a socketpair of its own). The same sum before and after a
 * cycle means the GETs kept one connection open. */
static long sockets(void) {
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    long sum = 0;
    while (d && (e = readdir(d))) {
        char path[300], link[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= 0)
            continue;
        link[n] = 0;
        if (!strncmp(link, "socket:[", 8))
            sum += atol(link + 8);
    }
    if (d)
        closedir(d);
    return sum;
}

/* Open must fail, with a message containing want. */
static void open_fails(const struct config *cfg, unsigned worker, const char *want) {
    char err[WL_ERRLEN] = "";
    void *st = s3_workload.open(cfg, worker, err, sizeof err);
    CHECKF(st == NULL && strstr(err, want), "wanted '%s', got '%s'", want, err);
    if (st)
        s3_workload.close(st);
}

/* bad := cfg with s3 settings of its own (a copy, not cfg's), for editing. */
static struct s3_opts *like(struct config *bad, const struct config *cfg) {
    options_free(bad); /* the previous case's, or nothing on a zeroed bad */
    char e[256];
    CHECKF(options_load_env(bad, e, sizeof e) == 0, "%s", e);
    bad->profile = cfg->profile;
    bad->n = cfg->n;
    bad->seed = cfg->seed;
    bad->op_timeout = cfg->op_timeout;
    struct s3_opts *o = (struct s3_opts *)s3_opts(bad);
    *o = *s3_opts(cfg);
    return o;
}

static void test_live(void) {
    struct config cfg;
    char err[WL_ERRLEN] = "";
    CHECKF(options_load_env(&cfg, err, sizeof err) == 0, "%s", err);
    cfg.profile = PROFILE_TINY;
    cfg.n = 1;
    cfg.seed = 7;
    CHECK(options_set(&cfg, "bucket", "aops-unit-test", err, sizeof err) == 0);

    CHECKF(s3_workload.prepare(&cfg, err, sizeof err) == 0, "prepare: %s", err);
    long t1 = last_modified(&cfg, "tiny/w0/10MiB/3");
    CHECK(t1 > 0);
    sleep(1); /* Last-Modified has one-second resolution */
    CHECKF(s3_workload.prepare(&cfg, err, sizeof err) == 0, "prepare again: %s", err);
    CHECKF(last_modified(&cfg, "tiny/w0/10MiB/3") == t1, "a second prepare rewrote an object");

    /* A whole cycle: every op succeeds, bytes exact, classes and TTFB set. */
    void *st = s3_workload.open(&cfg, 0, err, sizeof err);
    CHECKF(st != NULL, "open: %s", err);
    if (st) {
        uint64_t bytes = 0, per_class[3] = {0};
        unsigned ok = 0, ttfb_ok = 0;
        long sock = sockets();
        for (unsigned op = 0; op < S3_OPS; op++) {
            struct op_result r = {.hist_ns = {-1, -1}, .klass = -1};
            if (s3_workload.run(st, 0, op, &r) == 0)
                ok++;
            else
                fprintf(stderr, "op %u: %s\n", op, r.err);
            bytes += r.count[S3_COUNT_BYTES];
            per_class[r.klass] += r.count[S3_COUNT_BYTES];
            ttfb_ok += r.hist_ns[S3_HIST_TTFB] > 0;
        }
        CHECKF(ok == S3_OPS, "%u of %u GETs succeeded", ok, S3_OPS);
        CHECKF(sockets() == sock, "the GETs did not keep one connection open");
        CHECK(ttfb_ok == S3_OPS);
        CHECK(bytes == s3_worker_bytes(PROFILE_TINY));
        CHECK(per_class[0] == 500 * 1024 && per_class[2] == 190 * 51200);
        s3_workload.close(st);
    }

    /* The bytes in the store are the generated ones. */
    struct buf got = {malloc(51200), 0, 51200};
    unsigned char *want = malloc(51200);
    CHECK(request(&cfg, "GET", "tiny/w0/50MiB/17", NULL, 0, &got) == 200);
    s3_fill(want, 51200, s3_content_seed(7, "tiny/w0/50MiB/17"), 0);
    CHECK(got.len == 51200 && memcmp(got.p, want, 51200) == 0);

    /* SigV4 on a key that needs encoding: PUT, HEAD, GET back, DELETE. */
    const char *odd = "odd keys/a b+c=d&e;f,g:h@i$j!k'l(m)n*o~p_q.r-s/é ü 中/100%.bin";
    CHECK(request(&cfg, "PUT", odd, want, 3000, NULL) == 200);
    CHECK(request(&cfg, "HEAD", odd, NULL, 0, NULL) == 200);
    got.len = 0;
    CHECK(request(&cfg, "GET", odd, NULL, 0, &got) == 200);
    CHECK(got.len == 3000 && memcmp(got.p, want, 3000) == 0);
    CHECK(request(&cfg, "DELETE", odd, NULL, 0, NULL) == 204);
    CHECK(request(&cfg, "HEAD", odd, NULL, 0, NULL) == 404);
    free(got.p);
    free(want);

    /* --dataset shared: worker 3 reads worker 0's set; per worker it has none. */
    open_fails(&cfg, 1,
               "S3 object 'tiny/w1/1MiB/0' is missing from bucket 'aops-unit-test': "
               "run ./harness prepare --profile tiny --containers 1");
    struct config bad;
    memset(&bad, 0, sizeof bad);
    struct s3_opts *o = like(&bad, &cfg);
    o->dataset = DATASET_SHARED;
    st = s3_workload.open(&bad, 3, err, sizeof err);
    CHECKF(st != NULL, "open shared: %s", err);
    if (st)
        s3_workload.close(st);

    /* A missing object late in the set is caught at open, and prepare puts
     * it back. */
    CHECK(request(&cfg, "DELETE", "tiny/w0/50MiB/189", NULL, 0, NULL) == 204);
    open_fails(&cfg, 0, "S3 object 'tiny/w0/50MiB/189' is missing");
    CHECKF(s3_workload.prepare(&cfg, err, sizeof err) == 0, "prepare: %s", err);
    CHECK(request(&cfg, "HEAD", "tiny/w0/50MiB/189", NULL, 0, NULL) == 200);

    /* Bad input and faults. */
    o = like(&bad, &cfg);
    snprintf(o->access_key, sizeof o->access_key, "not-a-key");
    open_fails(&bad, 0, "S3 rejected the credentials (403 InvalidAccessKeyId)");
    CHECK(s3_workload.prepare(&bad, err, sizeof err) < 0 &&
          strstr(err, "S3 rejected the credentials (403 InvalidAccessKeyId)"));
    o = like(&bad, &cfg);
    snprintf(o->secret_key, sizeof o->secret_key, "wrong-secret");
    open_fails(&bad, 0, "S3 rejected the credentials (403 SignatureDoesNotMatch)");
    o = like(&bad, &cfg);
    o->access_key[0] = 0;
    open_fails(&bad, 0, "no S3 credentials");
    o = like(&bad, &cfg);
    snprintf(o->endpoint, sizeof o->endpoint, "http://127.0.0.1:1");
    open_fails(&bad, 0, "cannot connect to S3 endpoint http://127.0.0.1:1: connection refused");
    CHECK(s3_workload.prepare(&bad, err, sizeof err) < 0 &&
          strstr(err, "cannot connect to S3 endpoint http://127.0.0.1:1: connection refused"));
    o = like(&bad, &cfg);
    snprintf(o->bucket, sizeof o->bucket, "aops-unit-no-such-bucket");
    open_fails(&bad, 0,
               "S3 object 'tiny/w0/1MiB/0' is missing from bucket "
               "'aops-unit-no-such-bucket' (no such bucket): run ./harness prepare");

    /* A server that accepts connections and never answers: --op-timeout. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    CHECK(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, 8) == 0);
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    o = like(&bad, &cfg);
    snprintf(o->endpoint, sizeof o->endpoint, "http://127.0.0.1:%d", ntohs(sa.sin_port));
    bad.op_timeout = 0.3;
    open_fails(&bad, 0, "GET tiny/w0/1MiB/0: no answer within 0.3 s (--op-timeout)");
    close(fd);
    options_free(&bad);
    options_free(&cfg);
}

/* SigV4 in the query string against AWS's own worked example ("Authenticating
 * Requests: Using Query Parameters", S3 API reference: GET test.txt of
 * examplebucket, 2013-05-24, 86,400 s), whose signature is printed there;
 * bench/s3_presign.py (Python's hmac and hashlib) gives the same. */
static void test_presign(void) {
    char out[2048];
    const char *ak = "AKIAIOSFODNN7EXAMPLE";
    unsigned char sk[32];
    CHECK(s3_presign_key(sk, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "20130524T000000Z",
                         "us-east-1") == 0);
    CHECK(s3_presign_key(sk, "x", "20130524", "us-east-1") < 0); /* not a date and time */
    CHECK(s3_presign_get(out, sizeof out, "https://examplebucket.s3.amazonaws.com/test.txt", ak, sk,
                         "us-east-1", "20130524T000000Z", 86400, NULL, NULL) == 0);
    CHECKF(!strcmp(out, "https://examplebucket.s3.amazonaws.com/test.txt"
                        "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE"
                        "%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z"
                        "&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature="
                        "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"),
           "%s", out);
    /* The default port is not in the Host header libcurl sends, so not in
     * the signature either; another port is. */
    char same[2048], port[2048];
    CHECK(s3_presign_get(same, sizeof same, "https://examplebucket.s3.amazonaws.com:443/test.txt",
                         ak, sk, "us-east-1", "20130524T000000Z", 86400, NULL, NULL) == 0);
    CHECK(!strcmp(strstr(same, "Signature="), strstr(out, "Signature=")));
    CHECK(s3_presign_get(port, sizeof port, "https://examplebucket.s3.amazonaws.com:8443/test.txt",
                         ak, sk, "us-east-1", "20130524T000000Z", 86400, NULL, NULL) == 0);
    CHECK(strcmp(strstr(port, "Signature="), strstr(out, "Signature=")) != 0);
    /* A signed extra header is named in SignedHeaders and changes the signature. */
    char hdr[2048];
    CHECK(s3_presign_get(hdr, sizeof hdr, "https://examplebucket.s3.amazonaws.com/test.txt", ak, sk,
                         "us-east-1", "20130524T000000Z", 86400, "x-amz-checksum-mode",
                         "ENABLED") == 0);
    CHECK(strstr(hdr, "&X-Amz-SignedHeaders=host%3Bx-amz-checksum-mode&") != NULL);
    CHECK(strcmp(strstr(hdr, "Signature="), strstr(out, "Signature=")) != 0);
    /* Refused: no scheme, no host, a bad date, a validity SigV4 does not
     * allow, a buffer too small (nothing half-written is used). */
    CHECK(s3_presign_get(out, sizeof out, "examplebucket/test.txt", ak, sk, "us-east-1",
                         "20130524T000000Z", 86400, NULL, NULL) < 0);
    CHECK(s3_presign_get(out, sizeof out, "http:///test.txt", ak, sk, "us-east-1",
                         "20130524T000000Z", 86400, NULL, NULL) < 0);
    CHECK(s3_presign_get(out, sizeof out, "http://h/t", ak, sk, "us-east-1", "20130524", 86400,
                         NULL, NULL) < 0);
    CHECK(s3_presign_get(out, sizeof out, "http://h/t", ak, sk, "us-east-1", "20130524T000000Z",
                         S3_PRESIGN_MAX_EXPIRES + 1, NULL, NULL) < 0);
    CHECK(s3_presign_get(out, 100, "http://h/t", ak, sk, "us-east-1", "20130524T000000Z", 60, NULL,
                         NULL) < 0);
}

int main(int argc, char **argv) {
    test_classes();
    test_keys();
    test_encoding();
    test_content();
    test_error_code();
    test_presign();
    if (argc > 1 && !strcmp(argv[1], "live"))
        test_live();
    return unit_done(argc > 1 ? "test_s3 live" : "test_s3");
}
