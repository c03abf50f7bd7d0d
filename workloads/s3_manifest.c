/* s3_manifest.c -- the objects manifest: every object's key, size and
 * CRC-32C, written by prepare into the bucket beside the objects
 * ("<profile>/objects-manifest"), read by each worker before the run (its
 * own section, one ranged GET) to check every body it receives, and hashed
 * into the result's provenance.
 *
 * Text in fixed 96-byte lines, so anyone can read it (`mc cat`) and a
 * worker's section sits at a known offset: a header line
 *   aops-objects-manifest v1 profile=tiny seed=1 workers=4 ops=1190 sums=1
 * then `ops` lines per data worker, in worker then operation order:
 *   <key padded to 73> <size, 12 digits> <crc32c, 8 hex digits>
 * sums=1 says the server stored each object's x-amz-checksum-crc32c (so a
 * GET must bring it back), sums=0 that it keeps none (a body is then
 * checked against the manifest alone). A worker's section does not depend
 * on how many workers were prepared: its sha256 for worker 0 names the data
 * set of a profile and seed (provenance.data.objects_manifest). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/crc32c.h"
#include "../common/digest.h"
#include "s3_util.h"

void s3_manifest_key(char *buf, size_t len, enum profile p) {
    snprintf(buf, len, "%s/objects-manifest", profile_name(p));
}

static void pad_line(char *out, int n) {
    if (n < 0)
        n = 0;
    if (n > S3_MANIFEST_LINE - 1)
        n = S3_MANIFEST_LINE - 1;
    memset(out + n, ' ', (size_t)(S3_MANIFEST_LINE - 1 - n));
    out[S3_MANIFEST_LINE - 1] = '\n';
    out[S3_MANIFEST_LINE] = 0;
}

void s3_manifest_header(char out[S3_MANIFEST_LINE + 1], const struct s3_manifest_info *mi) {
    int n =
        snprintf(out, S3_MANIFEST_LINE + 1,
                 "aops-objects-manifest v1 profile=%s seed=%" PRIu64 " workers=%u ops=%u sums=%d",
                 mi->profile, mi->seed, mi->workers, mi->ops, mi->sums);
    pad_line(out, n);
}

int s3_manifest_parse_header(const char *line, size_t len, struct s3_manifest_info *mi) {
    char buf[S3_MANIFEST_LINE + 1];
    if (len < S3_MANIFEST_LINE || line[S3_MANIFEST_LINE - 1] != '\n')
        return -1;
    memcpy(buf, line, S3_MANIFEST_LINE - 1);
    buf[S3_MANIFEST_LINE - 1] = 0;
    memset(mi, 0, sizeof *mi);
    return sscanf(buf,
                  "aops-objects-manifest v1 profile=%15s seed=%" SCNu64
                  " workers=%u ops=%u sums=%d",
                  mi->profile, &mi->seed, &mi->workers, &mi->ops, &mi->sums) == 5
               ? 0
               : -1;
}

void s3_manifest_line(char out[S3_MANIFEST_LINE + 1], const char *key, uint64_t size,
                      uint32_t crc) {
    int n = snprintf(out, S3_MANIFEST_LINE + 1, "%-73s %12" PRIu64 " %08x", key, size, crc);
    pad_line(out, n);
}

int s3_manifest_parse_line(const char *line, char *key, size_t klen, uint64_t *size,
                           uint32_t *crc) {
    char buf[S3_MANIFEST_LINE + 1], k[80];
    memcpy(buf, line, S3_MANIFEST_LINE);
    buf[S3_MANIFEST_LINE] = 0;
    if (buf[S3_MANIFEST_LINE - 1] != '\n' || sscanf(buf, "%79s %" SCNu64 " %8x", k, size, crc) != 3)
        return -1;
    snprintf(key, klen, "%s", k);
    return 0;
}

uint32_t s3_object_crc(uint64_t content_seed, uint64_t size) {
    unsigned char buf[1 << 16];
    uint32_t crc = 0;
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < sizeof buf ? (size_t)(size - off) : sizeof buf;
        s3_fill(buf, n, content_seed, off);
        crc = crc32c(crc, buf, n);
        off += n;
    }
    return crc;
}

int s3_manifest_get(const struct config *cfg, uint64_t off, uint64_t len, char **data, size_t *dlen,
                    char *err, size_t errlen) {
    char key[S3_KEYLEN], url[S3_URLLEN], range[64], curlerr[CURL_ERROR_SIZE] = "";
    s3_manifest_key(key, sizeof key, cfg->profile);
    *data = NULL;
    *dlen = 0;
    if (s3_check_config(cfg, err, errlen) < 0)
        return -1;
    if (s3_url(url, sizeof url, cfg, key) < 0) {
        snprintf(err, errlen, "S3 endpoint or bucket name too long");
        return -1;
    }
    CURL *h = curl_easy_init();
    struct curl_slist *hdr = s3_get_headers();
    struct buf b = {0};
    int rc = -1;
    if (!h || !hdr) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    s3_easy_setup(h, cfg);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, buf_curl_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curlerr);
    if (len) {
        snprintf(range, sizeof range, "%" PRIu64 "-%" PRIu64, off, off + len - 1);
        curl_easy_setopt(h, CURLOPT_RANGE, range);
    }
    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (cc == CURLE_OK && (status == 200 || status == 206)) {
        *data = b.p ? b.p : calloc(1, 1);
        *dlen = b.len;
        b.p = NULL;
        rc = *data ? 0 : -1;
    } else if (cc == CURLE_OK && (status == 404 || status == 416)) {
        char opts[64], buf[1100];
        snprintf(opts, sizeof opts, "--profile %s", profile_name(cfg->profile));
        snprintf(err, errlen, "no objects manifest at s3://%s/%s%s: run %s", s3_opts(cfg)->bucket,
                 key, status == 416 ? " covering this worker" : "",
                 config_prepare_hint(cfg, buf, sizeof buf, opts));
        rc = 1;
    } else {
        char code[64], what[S3_KEYLEN + 8];
        int fatal;
        s3_error_code(b.p ? b.p : "", b.len, code, sizeof code);
        snprintf(what, sizeof what, "GET %s", key);
        s3_describe_failure(err, errlen, cfg, h, cc, curlerr, status, code, what, NULL, &fatal);
    }
out:
    free(b.p);
    curl_slist_free_all(hdr);
    if (h)
        curl_easy_cleanup(h);
    return rc;
}

int s3_manifest_check_header(const struct config *cfg, unsigned dw, const char *d, size_t n,
                             struct s3_manifest_info *mi, char *err, size_t errlen) {
    char opts[128], buf[1100];
    snprintf(opts, sizeof opts, "--profile %s", profile_name(cfg->profile));
    if (s3_manifest_parse_header(d, n, mi) != 0) {
        snprintf(err, errlen, "the objects manifest in bucket '%s' has no header line: run %s",
                 s3_opts(cfg)->bucket, config_prepare_hint(cfg, buf, sizeof buf, opts));
        return -1;
    }
    if (strcmp(mi->profile, profile_name(cfg->profile)) || mi->seed != cfg->seed ||
        mi->workers <= dw || mi->ops < 1) {
        snprintf(opts, sizeof opts, "--profile %s --seed %" PRIu64, profile_name(cfg->profile),
                 cfg->seed);
        snprintf(err, errlen,
                 "the objects in bucket '%s' were prepared for profile %s seed %" PRIu64
                 ", %u workers of %u objects, not profile %s seed %" PRIu64 " worker %u: run %s",
                 s3_opts(cfg)->bucket, mi->profile, mi->seed, mi->workers, mi->ops,
                 profile_name(cfg->profile), cfg->seed, dw,
                 config_prepare_hint(cfg, buf, sizeof buf, opts));
        return -1;
    }
    return 0;
}

int s3_manifest_check_section(const struct config *cfg, unsigned dw, unsigned nops, const char *d,
                              size_t n, uint32_t *crc, char *err, size_t errlen) {
    int rc = n == (size_t)nops * S3_MANIFEST_LINE ? 0 : -1;
    for (unsigned op = 0; rc == 0 && op < nops; op++) {
        char key[S3_KEYLEN], want[S3_KEYLEN];
        uint64_t size;
        s3_key(want, sizeof want, cfg->profile, dw, op);
        if (s3_manifest_parse_line(d + (size_t)op * S3_MANIFEST_LINE, key, sizeof key, &size,
                                   &crc[op]) != 0 ||
            strcmp(key, want) || size != s3_class_size(cfg->profile, s3_op_class(op)))
            rc = -1;
    }
    if (rc) {
        char opts[128], buf[1100];
        snprintf(opts, sizeof opts, "--profile %s", profile_name(cfg->profile));
        snprintf(err, errlen,
                 "the objects manifest in bucket '%s' does not list worker %u's objects as this "
                 "profile makes them: run %s",
                 s3_opts(cfg)->bucket, dw, config_prepare_hint(cfg, buf, sizeof buf, opts));
    }
    return rc;
}

int s3_manifest_load_worker(const struct config *cfg, unsigned dw, unsigned max, uint32_t *crc,
                            struct s3_manifest_info *mi, char *err, size_t errlen) {
    char *d = NULL;
    size_t n = 0;
    if (s3_manifest_get(cfg, 0, S3_MANIFEST_LINE, &d, &n, err, errlen) != 0)
        return -1;
    int bad = s3_manifest_check_header(cfg, dw, d, n, mi, err, errlen);
    free(d);
    if (bad)
        return -1;
    unsigned nops = mi->ops < max ? mi->ops : max;
    uint64_t off = S3_MANIFEST_LINE * (1 + (uint64_t)dw * mi->ops);
    if (s3_manifest_get(cfg, off, (uint64_t)nops * S3_MANIFEST_LINE, &d, &n, err, errlen) != 0)
        return -1;
    int rc = s3_manifest_check_section(cfg, dw, nops, d, n, crc, err, errlen);
    free(d);
    return rc;
}

/* `harness objects-manifest [--profile P] [--seed S] [--worker W]`: one
 * worker's section as prepare writes it, made from the generator alone (no
 * server): `| sha256sum` is provenance.data.objects_manifest.worker0_sha256
 * for worker 0. Full profile: 15 GiB generated, a few seconds. */
int s3_manifest_main(int argc, char **argv) {
    enum profile p = PROFILE_FULL;
    uint64_t seed = 1;
    unsigned w = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--profile") && v) {
            p = !strcmp(v, "full")    ? PROFILE_FULL
                : !strcmp(v, "small") ? PROFILE_SMALL
                : !strcmp(v, "tiny")  ? PROFILE_TINY
                                      : (enum profile) - 1;
            if ((int)p < 0) {
                fprintf(stderr, "harness objects-manifest: --profile full, small or tiny\n");
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--seed") && v && isdigit((unsigned char)*v)) {
            seed = strtoull(v, NULL, 10);
            i++;
        } else if (!strcmp(a, "--worker") && v && isdigit((unsigned char)*v)) {
            w = (unsigned)strtoul(v, NULL, 10);
            i++;
        } else {
            fprintf(stderr,
                    "usage: harness objects-manifest [--profile full|small|tiny] [--seed S] "
                    "[--worker W]\n");
            return 2;
        }
    }
    for (unsigned op = 0; op < S3_OPS; op++) {
        char key[S3_KEYLEN], line[S3_MANIFEST_LINE + 1];
        s3_key(key, sizeof key, p, w, op);
        uint64_t size = s3_class_size(p, s3_op_class(op));
        s3_manifest_line(line, key, size, s3_object_crc(s3_content_seed(seed, key), size));
        fputs(line, stdout);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

json_t *s3_manifest_provenance(const struct config *cfg, char *err, size_t errlen) {
    char *d = NULL;
    size_t n = 0;
    struct s3_manifest_info mi;
    if (s3_manifest_get(cfg, 0, 0, &d, &n, err, errlen) != 0)
        return NULL;
    if (s3_manifest_parse_header(d, n, &mi) != 0 ||
        n != S3_MANIFEST_LINE * (1 + (size_t)mi.workers * mi.ops)) {
        snprintf(err, errlen, "the objects manifest in bucket '%s' is malformed",
                 s3_opts(cfg)->bucket);
        free(d);
        return NULL;
    }
    char all[SHA256_HEX], w0[SHA256_HEX], key[S3_KEYLEN];
    sha256_hex(d, n, all);
    sha256_hex(d + S3_MANIFEST_LINE, (size_t)mi.ops * S3_MANIFEST_LINE, w0);
    free(d);
    s3_manifest_key(key, sizeof key, cfg->profile);
    return json_pack("{s:o, s:s, s:s, s:i, s:i, s:I, s:b}", "url",
                     json_sprintf("s3://%s/%s", s3_opts(cfg)->bucket, key), "sha256", all,
                     "worker0_sha256", w0, "workers", (int)mi.workers, "objects_per_worker",
                     (int)mi.ops, "seed", (json_int_t)mi.seed, "server_checksums", mi.sums);
}
