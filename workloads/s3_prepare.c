/* s3_prepare.c -- `harness prepare` for the s3 workload: create the bucket
 * and put every object the run will read, in parallel through curl multi,
 * each with its CRC-32C, and the objects manifest that lists them.
 *
 * Each transfer slot keeps one easy handle (and so one kept-alive
 * connection) and walks the objects given to it: a HEAD first (asking for
 * the stored checksum), and a PUT only when the object is missing, has the
 * wrong size or not the checksum of the content this seed makes, which
 * makes a second prepare nearly free and repairs an object overwritten
 * since. Bodies are generated on the fly by the read callback from the seed
 * and key, so nothing the size of an object is ever held in memory; an
 * object's CRC-32C is computed before its PUT (the header goes first) from
 * the same generator, or taken from the manifest an earlier prepare wrote.
 * Every PUT carries x-amz-checksum-crc32c (the server checks the body
 * against it and stores it) and the same value as user metadata
 * (x-amz-meta-aops-crc32c, for a server that answers a multipart object
 * with a composite checksum). A server that answers without a checksum is
 * said in one line, and the manifest records it (sums=0). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/crc32c.h"
#include "../common/util.h"
#include "s3_util.h"
#include "workload.h"

#define PREP_SLOTS 16

struct slot {
    CURL *h;
    int busy, putting;
    unsigned dw, op;
    uint64_t size, off, cseed;
    struct curl_slist *put_headers; /* the object's checksum headers */
    char key[S3_KEYLEN];
    char url[S3_URLLEN];
    size_t errlen;
    char errbody[1024];
    char curlerr[CURL_ERROR_SIZE];
};

struct prep {
    const struct config *cfg;
    struct curl_slist *get_headers;
    unsigned ndw, nops, next; /* objects handed out so far, of ndw * nops */
    unsigned done, uploaded, skipped;
    uint64_t bytes;
    /* The manifest: CRCs of workers [0, nw) (nw >= ndw when an earlier
     * prepare made more with the same seed), known[] those filled in. */
    unsigned nw;
    uint32_t *crc;
    unsigned char *known;
    struct s3_manifest_info old; /* the manifest found, when old_ok */
    int old_ok;
    int nosum; /* a PUT came back without x-amz-checksum-crc32c */
    char nosum_key[S3_KEYLEN];
};

/* The object's CRC: from the manifest, else from the generator. */
static uint32_t object_crc(struct prep *pr, struct slot *s) {
    size_t i = (size_t)s->dw * pr->nops + s->op;
    if (!pr->known[i]) {
        pr->crc[i] = s3_object_crc(s->cseed, s->size);
        pr->known[i] = 1;
    }
    return pr->crc[i];
}

/* The x-amz-checksum-crc32c of the answer on h: 0 and *crc, 1 when there is
 * none, 2 when it is composite ("...-N": a multipart object). */
static int answer_crc(CURL *h, uint32_t *crc) {
    struct curl_header *hh;
    if (curl_easy_header(h, "x-amz-checksum-crc32c", 0, CURLH_HEADER, -1, &hh) != CURLHE_OK)
        return 1;
    if (strchr(hh->value, '-'))
        return 2;
    return crc32c_from_base64(hh->value, strlen(hh->value), crc) == 0 ? 0 : 1;
}

static size_t on_read(char *buf, size_t sz, size_t n, void *ud) {
    struct slot *s = ud;
    uint64_t left = s->size - s->off;
    size_t len = sz * n < left ? sz * n : (size_t)left;
    s3_fill(buf, len, s->cseed, s->off);
    s->off += len;
    return len;
}

static size_t on_write(char *p, size_t sz, size_t n, void *ud) {
    struct slot *s = ud;
    size_t len = sz * n, room = sizeof s->errbody - 1 - s->errlen;
    size_t k = len < room ? len : room;
    memcpy(s->errbody + s->errlen, p, k);
    s->errlen += k;
    return len;
}

/* The PUT's headers: its payload unsigned, its checksum for the server to
 * check and keep, the same as metadata; crc < 0: none (the bucket). */
static struct curl_slist *put_headers(int64_t crc) {
    struct curl_slist *l = s3_put_headers();
    if (l && crc >= 0) {
        char b64[9], line[128];
        crc32c_base64((uint32_t)crc, b64);
        snprintf(line, sizeof line, "x-amz-checksum-crc32c: %s", b64);
        l = curl_slist_append(l, line);
        snprintf(line, sizeof line, "x-amz-meta-aops-crc32c: %08x", (uint32_t)crc);
        if (l)
            l = curl_slist_append(l, line);
    }
    return l;
}

static void start(struct prep *pr, struct slot *s, int put, int64_t crc) {
    s->putting = put;
    s->off = 0;
    s->errlen = 0;
    s->curlerr[0] = 0;
    CURL *h = s->h;
    curl_easy_setopt(h, CURLOPT_URL, s->url);
    if (put) {
        curl_slist_free_all(s->put_headers);
        s->put_headers = put_headers(crc);
        curl_easy_setopt(h, CURLOPT_NOBODY, 0L);
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)s->size);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, s->put_headers);
    } else {
        curl_easy_setopt(h, CURLOPT_UPLOAD, 0L);
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, pr->get_headers);
    }
}

/* Give the slot the next object, HEAD first. Returns 0 when none is left. */
static int next_object(struct prep *pr, struct slot *s) {
    if (pr->next >= pr->ndw * pr->nops)
        return 0;
    s->dw = pr->next / pr->nops;
    s->op = pr->next % pr->nops;
    pr->next++;
    s->size = s3_class_size(pr->cfg->profile, s3_op_class(s->op));
    s3_key(s->key, sizeof s->key, pr->cfg->profile, s->dw, s->op);
    s->cseed = s3_content_seed(pr->cfg->seed, s->key);
    s3_url(s->url, sizeof s->url, pr->cfg, s->key);
    start(pr, s, 0, -1);
    return 1;
}

/* A transfer ended: decide what the slot does next. Returns 1 when the slot
 * has a new transfer to add, 0 when it is idle, -1 on an error (err set). */
static int finished(struct prep *pr, struct slot *s, CURLcode cc, char *err, size_t len) {
    long status = 0;
    curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &status);
    if (cc == CURLE_OK && !s->putting) {
        curl_off_t cl = -1;
        curl_easy_getinfo(s->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
        if (status == 200 && cl == (curl_off_t)s->size) {
            uint32_t have, want = object_crc(pr, s);
            int got = answer_crc(s->h, &have);
            /* Its stored checksum is this content's, or the server keeps
             * none and the manifest vouches for it (made by an earlier
             * prepare that uploaded it). */
            if ((got == 0 && have == want) ||
                (got == 1 && pr->old_ok && !pr->old.sums && s->dw < pr->old.workers)) {
                pr->skipped++, pr->done++;
                return next_object(pr, s);
            }
        }
        if (status == 200 || status == 404) {
            start(pr, s, 1, object_crc(pr, s));
            return 1;
        }
    } else if (cc == CURLE_OK && status == 200) {
        uint32_t have;
        int got = answer_crc(s->h, &have);
        if (got == 1 && !pr->nosum) {
            pr->nosum = 1;
            snprintf(pr->nosum_key, sizeof pr->nosum_key, "%s", s->key);
        } else if (got == 0 && have != object_crc(pr, s)) {
            snprintf(err, len, "PUT %s: the server stored CRC-32C %08x, the body sent has %08x",
                     s->key, have, object_crc(pr, s));
            return -1;
        }
        pr->uploaded++, pr->done++;
        pr->bytes += s->size;
        return next_object(pr, s);
    }
    char code[64], what[S3_KEYLEN + 8];
    int fatal;
    double room;
    s3_error_code(s->errbody, s->errlen, code, sizeof code);
    snprintf(what, sizeof what, "%s %s", s->putting ? "PUT" : "HEAD", s->key);
    /* The first PUT the store has no room for ends the prepare, in one
     * line. Said by the answer, or (the local stack, whose several PUTs
     * at once may fail in other ways as the drives fill) by the drives. */
    if (s->putting &&
        (s3_no_room(status, code, s->errbody, s->errlen) ||
         (s3_local_room(pr->cfg, &room) == 0 && room < 2.0 * (double)s->size + (16 << 20)))) {
        char left[64] = "";
        if (s3_local_room(pr->cfg, &room) == 0)
            snprintf(left, sizeof left, "; %.1f MiB left on the drives", room / (1 << 20));
        snprintf(err, len,
                 "%s: S3 endpoint %s has no room left (HTTP %ld%s%s%s): its drives are full; free "
                 "space or prepare less (--profile small, --dataset shared), then prepare again",
                 what, s3_opts(pr->cfg)->endpoint, status, *code ? " " : "", code, left);
        return -1;
    }
    s3_describe_failure(err, len, pr->cfg, s->h, cc, s->curlerr, status, code, what, NULL, &fatal);
    return -1;
}

/* PUT the bucket; "already yours" is fine. Also the first check of the
 * endpoint and the credentials, with an error body to name the problem. */
static int make_bucket(struct prep *pr, struct slot *s, char *err, size_t len) {
    s3_url(s->url, sizeof s->url, pr->cfg, NULL);
    s->size = 0;
    snprintf(s->key, sizeof s->key, "%s", s3_opts(pr->cfg)->bucket);
    start(pr, s, 1, -1);
    CURLcode cc = curl_easy_perform(s->h);
    long status = 0;
    curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &status);
    char code[64];
    s3_error_code(s->errbody, s->errlen, code, sizeof code);
    if (cc == CURLE_OK && (status == 200 || !strcmp(code, "BucketAlreadyOwnedByYou")))
        return 0;
    if (cc == CURLE_OK && !strcmp(code, "BucketAlreadyExists")) {
        snprintf(err, len, "S3 bucket '%s' belongs to another account: choose another --bucket",
                 s3_opts(pr->cfg)->bucket);
        return -1;
    }
    int fatal;
    char what[200];
    snprintf(what, sizeof what, "creating bucket '%s'", s3_opts(pr->cfg)->bucket);
    s3_describe_failure(err, len, pr->cfg, s->h, cc, s->curlerr, status, code, what, NULL, &fatal);
    return -1;
}

static void progress(const struct prep *pr, int64_t t0, int final) {
    double secs = (double)(now_ns() - t0) / 1e9;
    double mib = (double)pr->bytes / (1 << 20);
    unsigned total = pr->ndw * pr->nops;
    if (!final) {
        fprintf(stderr, "\rs3 prepare: %u/%u objects, %.1f MiB uploaded, %.1f s ", pr->done, total,
                mib, secs);
        return;
    }
    if (isatty(2))
        fputc('\n', stderr);
    printf("s3: %u objects in bucket '%s': %u uploaded (%llu bytes), %u already there; "
           "%.2f s, %.1f MiB/s\n",
           total, s3_opts(pr->cfg)->bucket, pr->uploaded, (unsigned long long)pr->bytes,
           pr->skipped, secs, secs > 0 ? mib / secs : 0);
    fflush(stdout);
}

int s3_prepare(const struct config *cfg, char *err, size_t len) {
    return s3_prepare_ops(cfg, S3_OPS, err, len);
}

/* The manifest an earlier prepare left: its CRCs are reused when it was
 * made for this profile, seed and object count (and cover more workers
 * than asked now, those lines are kept). Then the table for pr->nw. */
static int manifest_begin(struct prep *pr, char *err, size_t len) {
    char *d = NULL;
    size_t n = 0;
    int got = s3_manifest_get(pr->cfg, 0, 0, &d, &n, err, len);
    if (got < 0)
        return -1;
    pr->old_ok = got == 0 && s3_manifest_parse_header(d, n, &pr->old) == 0 &&
                 !strcmp(pr->old.profile, profile_name(pr->cfg->profile)) &&
                 pr->old.seed == pr->cfg->seed && pr->old.ops == pr->nops &&
                 n == S3_MANIFEST_LINE * (1 + (size_t)pr->old.workers * pr->old.ops);
    pr->nw = pr->old_ok && pr->old.workers > pr->ndw ? pr->old.workers : pr->ndw;
    pr->crc = calloc((size_t)pr->nw * pr->nops, sizeof *pr->crc);
    pr->known = calloc((size_t)pr->nw * pr->nops, 1);
    if (!pr->crc || !pr->known) {
        free(d);
        snprintf(err, len, "s3 prepare: out of memory");
        return -1;
    }
    for (size_t i = 0; pr->old_ok && i < (size_t)pr->old.workers * pr->nops; i++) {
        char key[S3_KEYLEN], want[S3_KEYLEN];
        uint64_t size;
        uint32_t crc;
        unsigned dw = (unsigned)(i / pr->nops), op = (unsigned)(i % pr->nops);
        s3_key(want, sizeof want, pr->cfg->profile, dw, op);
        if (s3_manifest_parse_line(d + S3_MANIFEST_LINE * (1 + i), key, sizeof key, &size, &crc) ==
                0 &&
            !strcmp(key, want) && size == s3_class_size(pr->cfg->profile, s3_op_class(op))) {
            pr->crc[i] = crc;
            pr->known[i] = 1;
        }
    }
    free(d);
    return 0;
}

/* Write the manifest for pr->nw workers (all their CRCs are known: those
 * below ndw were checked or uploaded, those above came from the old one). */
static int manifest_end(struct prep *pr, char *err, size_t len) {
    struct s3_manifest_info mi = {.seed = pr->cfg->seed, .workers = pr->nw, .ops = pr->nops};
    snprintf(mi.profile, sizeof mi.profile, "%s", profile_name(pr->cfg->profile));
    /* sums: no answer lacked one (a prepare that uploaded nothing keeps
     * what the last one that did found). */
    mi.sums = pr->nosum ? 0 : pr->uploaded || !pr->old_ok ? 1 : pr->old.sums;
    size_t n = S3_MANIFEST_LINE * (1 + (size_t)pr->nw * pr->nops);
    char *d = malloc(n + 1), key[S3_KEYLEN];
    if (!d) {
        snprintf(err, len, "s3 prepare: out of memory");
        return -1;
    }
    s3_manifest_header(d, &mi);
    for (size_t i = 0; i < (size_t)pr->nw * pr->nops; i++) {
        unsigned dw = (unsigned)(i / pr->nops), op = (unsigned)(i % pr->nops);
        uint64_t size = s3_class_size(pr->cfg->profile, s3_op_class(op));
        s3_key(key, sizeof key, pr->cfg->profile, dw, op);
        if (!pr->known[i]) /* only after an interrupted walk: never written then */
            pr->crc[i] = s3_object_crc(s3_content_seed(pr->cfg->seed, key), size);
        s3_manifest_line(d + S3_MANIFEST_LINE * (1 + i), key, size, pr->crc[i]);
    }
    s3_manifest_key(key, sizeof key, pr->cfg->profile);
    int rc = s3_store.put(pr->cfg, s3_opts(pr->cfg)->bucket, key, d, n, err, len);
    free(d);
    if (rc == 0 && pr->nosum)
        printf("s3: %s answered the PUT of %s without x-amz-checksum-crc32c: it keeps no S3 "
               "checksums, so each GET is checked against the objects manifest's CRC-32C "
               "alone\n",
               s3_opts(pr->cfg)->endpoint, pr->nosum_key);
    return rc;
}

int s3_prepare_ops(const struct config *cfg, unsigned nops, char *err, size_t len) {
    if (s3_check_config(cfg, err, len) < 0)
        return -1;
    struct prep pr = {.cfg = cfg, .ndw = s3_opts(cfg)->dataset == DATASET_SHARED ? 1 : cfg->n};
    pr.nops = nops < S3_OPS ? nops : S3_OPS;
    struct slot *slots = calloc(PREP_SLOTS, sizeof *slots);
    CURLM *m = curl_multi_init();
    int rc = -1, tty = isatty(2);
    pr.get_headers = s3_get_headers();
    if (pr.get_headers) /* HEAD brings back the stored checksum */
        pr.get_headers = curl_slist_append(pr.get_headers, "x-amz-checksum-mode: ENABLED");
    if (!slots || !m || !pr.get_headers) {
        snprintf(err, len, "s3 prepare: out of memory");
        goto out;
    }
    for (int i = 0; i < PREP_SLOTS; i++) {
        struct slot *s = &slots[i];
        if (!(s->h = curl_easy_init())) {
            snprintf(err, len, "s3 prepare: out of memory");
            goto out;
        }
        s3_easy_setup(s->h, cfg);
        curl_easy_setopt(s->h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(s->h, CURLOPT_READDATA, s);
        curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, on_write);
        curl_easy_setopt(s->h, CURLOPT_WRITEDATA, s);
        curl_easy_setopt(s->h, CURLOPT_ERRORBUFFER, s->curlerr);
        curl_easy_setopt(s->h, CURLOPT_PRIVATE, s);
    }
    int64_t t0 = now_ns(), last = 0;
    if (make_bucket(&pr, &slots[0], err, len) < 0 || manifest_begin(&pr, err, len) < 0)
        goto out;
    for (int i = 0; i < PREP_SLOTS; i++)
        if ((slots[i].busy = next_object(&pr, &slots[i])))
            curl_multi_add_handle(m, slots[i].h);

    int running = 1;
    while (running) {
        if (curl_multi_perform(m, &running) != CURLM_OK) {
            snprintf(err, len, "s3 prepare: curl multi failed");
            goto out;
        }
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            struct slot *s;
            CURLcode cc = msg->data.result;
            CURL *h = msg->easy_handle;
            curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&s);
            curl_multi_remove_handle(m, h);
            int next = finished(&pr, s, cc, err, len);
            if (next < 0)
                goto out;
            if ((s->busy = next))
                curl_multi_add_handle(m, h), running = 1;
        }
        if (tty && now_ns() - last > 200000000) {
            progress(&pr, t0, 0);
            last = now_ns();
        }
        if (running)
            curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    if (manifest_end(&pr, err, len) < 0)
        goto out;
    progress(&pr, t0, 1);
    rc = 0;
out:
    for (int i = 0; slots && i < PREP_SLOTS; i++) {
        if (slots[i].h) {
            if (slots[i].busy)
                curl_multi_remove_handle(m, slots[i].h);
            curl_easy_cleanup(slots[i].h);
        }
        curl_slist_free_all(slots[i].put_headers);
    }
    if (m)
        curl_multi_cleanup(m);
    curl_slist_free_all(pr.get_headers);
    free(pr.crc);
    free(pr.known);
    free(slots);
    if (rc < 0 && tty)
        fputc('\n', stderr);
    return rc;
}
