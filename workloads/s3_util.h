/* s3_util.h -- the pieces of the s3 workload that prepare, open/run and the
 * tests share: which object an operation reads (key, size class, size), the
 * deterministic object content, URI encoding of keys for SigV4, one libcurl
 * handle set up for signed requests, and turning a failed request into the
 * one-line message a person can act on. */
#ifndef AOPS_S3_UTIL_H
#define AOPS_S3_UTIL_H

#include <curl/curl.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/config.h"
#include "workload.h"

#define S3_NCLASSES 3
#define S3_OPS 1190
#define S3_KEYLEN 128
#define S3_URLLEN 1024

enum s3_dataset { DATASET_PER_WORKER = 0, DATASET_SHARED };

/* The s3 workload's settings (its option rows in s3.c fill them). */
struct s3_opts {
    char endpoint[512];
    char region[64];
    char bucket[128];
    int dataset; /* enum s3_dataset */
    int insecure;
    char access_key[256]; /* secret: never printed nor written */
    char secret_key[256]; /* secret */
};

/* The figures an operation reports (op_result.count[] and hist_ns[]). */
enum { S3_COUNT_BYTES = 0 };
enum { S3_HIST_TTFB = 0 };

/* cfg's s3 settings. Inline, by the workload's slot: s3_util.c and the other
 * s3 files, which s3.c calls, reach them without calling back into s3.c (for
 * &s3_workload) or registry.c. */
static inline const struct s3_opts *s3_opts(const struct config *cfg) {
    return workload_opts_at(cfg, WL_SLOT_s3);
}
extern const struct workload s3_workload;

/* SHA-256 of the empty body: the x-amz-content-sha256 of a GET or HEAD. */
#define S3_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* The size classes, in op order: ops 0..499 read class 0 (1 MiB at full
 * size), 500..999 class 1 (10 MiB), 1000..1189 class 2 (50 MiB); the one
 * table of them is in s3_util.c. */
extern const char *const s3_class_names[S3_NCLASSES];
int s3_op_class(unsigned op);
unsigned s3_op_index(unsigned op); /* index of the object within its class */
unsigned s3_class_first_op(int klass);
unsigned s3_class_count(int klass);
uint64_t s3_class_size(enum profile p, int klass);
uint64_t s3_worker_bytes(enum profile p); /* bytes one worker reads per cycle */
/* The objects this host's workers read: one set each, or one shared. */
double s3_dataset_bytes(const struct config *cfg);

/* The worker whose object set `worker` reads: itself, or 0 with --dataset shared. */
unsigned s3_data_worker(const struct config *cfg, unsigned worker);

/* Key of operation `op` of data worker `dw`: "<profile>/w<dw>/<class>/<index>".
 * The profile is part of the key so that a tiny and a full data set can sit
 * in one bucket without one overwriting the other. */
void s3_key(char *buf, size_t len, enum profile p, unsigned dw, unsigned op);

/* Percent-encode src as AWS SigV4 wants a canonical URI: everything but
 * A-Z a-z 0-9 - . _ ~ (and '/' when keep_slash) as %XX, upper-case hex.
 * Returns the length, or -1 when it does not fit. */
int s3_uri_encode(char *dst, size_t len, const char *src, int keep_slash);

/* "<endpoint>/<bucket>/<encoded key>" (path-style), key NULL for the bucket.
 * Returns 0, or -1 when it does not fit. */
int s3_url(char *buf, size_t len, const struct config *cfg, const char *key);

/* Object content: a counter-based generator, so any byte range can be
 * produced on its own (uploads stream it in pieces) and the same seed and
 * key give the same bytes on every machine. Incompressible. */
uint64_t s3_content_seed(uint64_t seed, const char *key);
void s3_fill(void *buf, size_t len, uint64_t content_seed, uint64_t offset);

/* The <Code> of an S3 error XML body, or "" when there is none. */
void s3_error_code(const char *body, size_t blen, char *code, size_t clen);

/* Does this failed answer say the store is full? MinIO answers 507
 * XMinioStorageFull when an object will not fit its drives' free space,
 * but a PUT that runs out while writing (several at once) is HTTP 500
 * InternalError "...cause(no space left on device)". */
int s3_no_room(long status, const char *code, const char *body, size_t blen);

/* Headers: the x-amz-content-sha256 libcurl 7.88 does not add itself. */
struct curl_slist *s3_get_headers(void);
struct curl_slist *s3_put_headers(void);

/* Set up h for signed requests to cfg's endpoint: SigV4 with the full
 * provider string, credentials, timeouts, TLS verification. */
void s3_easy_setup(CURL *h, const struct config *cfg);
/* The same without the signing: timeouts, buffer, TLS verification (for
 * requests whose URL carries its signature, s3_presign.h). */
void s3_easy_transport(CURL *h, const struct config *cfg);

/* The message for a request that failed: a curl error (cc != CURLE_OK), or
 * an HTTP status >= 300 with the error body's code. `what` names the
 * request ("GET tiny/w0/1MiB/3"). *fatal is set when the endpoint is gone. */
void s3_describe_failure(char *err, size_t len, const struct config *cfg, CURL *h, CURLcode cc,
                         const char *curlerr, long status, const char *code, const char *what,
                         const char *key, int *fatal);

/* Checks before a run or prepare that need no request: credentials there,
 * endpoint a http(s) URL. Returns 0 or -1 with err set. */
int s3_check_config(const struct config *cfg, char *err, size_t len);

/* `harness prepare` for s3 (s3_prepare.c): create the bucket, upload every
 * object cfg->n workers read that is not there with the right size.
 * s3_prepare_ops does the same for ops [0, nops) of each worker only. */
int s3_prepare(const struct config *cfg, char *err, size_t len);
int s3_prepare_ops(const struct config *cfg, unsigned nops, char *err, size_t len);

/* s3.c: a worker's GET client as open() makes it, minus the checks that the
 * whole data set is there (bench/s3 reads only some objects); run it with
 * s3_run and free it with s3_workload.close. */
void *s3_client_open(const struct config *cfg, unsigned worker, char *err, size_t len);
struct op_result;
int s3_run(void *state, unsigned cycle, unsigned op, struct op_result *res);

/* s3_manifest.c: the objects manifest, "<profile>/objects-manifest" in the
 * bucket (key, size and CRC-32C of every object; the format is described
 * there). Lines are S3_MANIFEST_LINE bytes with the '\n'. */
#define S3_MANIFEST_LINE 96
struct s3_manifest_info {
    char profile[16];
    uint64_t seed;
    unsigned workers, ops; /* data workers, objects per worker */
    int sums;              /* the server stores x-amz-checksum-crc32c */
};
void s3_manifest_key(char *buf, size_t len, enum profile p);
void s3_manifest_header(char out[S3_MANIFEST_LINE + 1], const struct s3_manifest_info *mi);
int s3_manifest_parse_header(const char *line, size_t len, struct s3_manifest_info *mi);
void s3_manifest_line(char out[S3_MANIFEST_LINE + 1], const char *key, uint64_t size, uint32_t crc);
int s3_manifest_parse_line(const char *line, char *key, size_t klen, uint64_t *size, uint32_t *crc);
/* CRC-32C of an object's generated content (s3_fill), without holding it. */
uint32_t s3_object_crc(uint64_t content_seed, uint64_t size);
/* GET the manifest, or len bytes of it from off (len 0: all). 0; 1 when
 * there is none (err says to prepare); -1 with err. *data malloc'd. */
int s3_manifest_get(const struct config *cfg, uint64_t off, uint64_t len, char **data, size_t *dlen,
                    char *err, size_t errlen);
/* A worker's CRCs for its first min(mi->ops, max) objects, after checking
 * the header matches cfg (profile, seed) and lists that worker. 0, or -1
 * with err. */
int s3_manifest_load_worker(const struct config *cfg, unsigned dw, unsigned max, uint32_t *crc,
                            struct s3_manifest_info *mi, char *err, size_t errlen);
/* Its two halves over bytes in hand (for the fuzz target too): the header
 * line (d, n) checked against cfg and worker dw, into mi; then that
 * worker's first nops lines (exactly nops x S3_MANIFEST_LINE bytes) into
 * crc[0..nops). 0, or -1 with err. */
int s3_manifest_check_header(const struct config *cfg, unsigned dw, const char *d, size_t n,
                             struct s3_manifest_info *mi, char *err, size_t errlen);
int s3_manifest_check_section(const struct config *cfg, unsigned dw, unsigned nops, const char *d,
                              size_t n, uint32_t *crc, char *err, size_t errlen);
/* provenance.data.objects_manifest: {url, sha256, worker0_sha256, ...}, or
 * NULL with err. */
json_t *s3_manifest_provenance(const struct config *cfg, char *err, size_t errlen);
/* `harness objects-manifest`: a worker's section from the generator alone. */
int s3_manifest_main(int argc, char **argv);
/* s3_info.c: what serves the workload, outside the measured path (the
 * descriptor's backend, server_info, data_paths and server_locate hooks).
 * s3_layout_json turns MinIO's admin info (/minio/admin/v3/info) into
 * provenance.servers.s3's layout: drives, sets, set size, parity, paths. */
struct wl_server;
/* GET /minio/admin/v3/info with cfg's keys. *info: the parsed body (NULL
 * unless HTTP 200 with JSON), server: the Server header or "". 0 when the
 * endpoint answered at all, -1 with err set when it did not. */
int s3_admin_info(const struct config *cfg, json_t **info, char *server, size_t slen, long *status,
                  char *err, size_t errlen);
int s3_server_version(const struct config *cfg, char *out, size_t len);
json_t *s3_server_info(const struct config *cfg);
json_t *s3_layout_json(const json_t *info);
int s3_data_paths(const struct config *cfg, const char *names[], char paths[][4096], int max);
int s3_server_locate(const struct config *cfg, struct wl_server *out);

/* s3_space.c: what prepare will write and the room MinIO has for it (the
 * descriptor's plan hook). s3_admin_space reads the erasure layout and the
 * drives' free space from an admin info body: 0, or -1 when it holds none. */
struct wl_plan;
int s3_plan(const struct config *cfg, struct wl_plan *out, char *err, size_t errlen);
int s3_admin_space(const json_t *info, unsigned *data, unsigned *parity, unsigned *drives,
                   double *free_raw);
/* The raw room left on the local stack's drives (see s3_space.c), when
 * cfg's endpoint is the local stack's MinIO: 0, or -1 when it is not. */
int s3_local_room(const struct config *cfg, double *raw);

/* s3_store.c: result files in any bucket, and the clock of the S3 server
 * (the descriptor's store and clock_offset hooks). */
struct wl_store;
struct wl_clock;
extern const struct wl_store s3_store;
int s3_clock_offset(const struct config *cfg, struct wl_clock *out, char *err, size_t errlen);

#endif
