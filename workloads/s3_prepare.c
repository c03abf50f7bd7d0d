/* s3_prepare.c -- `harness prepare` for the s3 workload: create the bucket
 * and put every object the run will read, in parallel through curl multi.
 *
 * Each transfer slot keeps one easy handle (and so one kept-alive
 * connection) and walks the objects given to it: a HEAD first, and a PUT
 * only when the object is missing or has the wrong size, which makes a
 * second prepare nearly free. Bodies are generated on the fly by the read
 * callback from the seed and key, so nothing the size of an object is ever
 * held in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/util.h"
#include "s3_util.h"

#define PREP_SLOTS 16

struct slot {
    CURL *h;
    int busy, putting;
    unsigned dw, op;
    uint64_t size, off, cseed;
    char key[S3_KEYLEN];
    char url[S3_URLLEN];
    size_t errlen;
    char errbody[1024];
    char curlerr[CURL_ERROR_SIZE];
};

struct prep {
    const struct config *cfg;
    struct curl_slist *get_headers, *put_headers;
    unsigned ndw, nops, next; /* objects handed out so far, of ndw * nops */
    unsigned done, uploaded, skipped;
    uint64_t bytes;
};

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

static void start(struct prep *pr, struct slot *s, int put) {
    s->putting = put;
    s->off = 0;
    s->errlen = 0;
    s->curlerr[0] = 0;
    CURL *h = s->h;
    curl_easy_setopt(h, CURLOPT_URL, s->url);
    if (put) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 0L);
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)s->size);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, pr->put_headers);
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
    start(pr, s, 0);
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
            pr->skipped++, pr->done++;
            return next_object(pr, s);
        }
        if (status == 200 || status == 404) {
            start(pr, s, 1);
            return 1;
        }
    } else if (cc == CURLE_OK && status == 200) {
        pr->uploaded++, pr->done++;
        pr->bytes += s->size;
        return next_object(pr, s);
    }
    char code[64], what[S3_KEYLEN + 8];
    int fatal;
    s3_error_code(s->errbody, s->errlen, code, sizeof code);
    snprintf(what, sizeof what, "%s %s", s->putting ? "PUT" : "HEAD", s->key);
    s3_describe_failure(err, len, pr->cfg, s->h, cc, s->curlerr, status, code, what, NULL, &fatal);
    return -1;
}

/* PUT the bucket; "already yours" is fine. Also the first check of the
 * endpoint and the credentials, with an error body to name the problem. */
static int make_bucket(struct prep *pr, struct slot *s, char *err, size_t len) {
    s3_url(s->url, sizeof s->url, pr->cfg, NULL);
    s->size = 0;
    snprintf(s->key, sizeof s->key, "%s", s3_opts(pr->cfg)->bucket);
    start(pr, s, 1);
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

int s3_prepare_ops(const struct config *cfg, unsigned nops, char *err, size_t len) {
    if (s3_check_config(cfg, err, len) < 0)
        return -1;
    struct prep pr = {.cfg = cfg, .ndw = s3_opts(cfg)->dataset == DATASET_SHARED ? 1 : cfg->n};
    pr.nops = nops < S3_OPS ? nops : S3_OPS;
    struct slot *slots = calloc(PREP_SLOTS, sizeof *slots);
    CURLM *m = curl_multi_init();
    int rc = -1, tty = isatty(2);
    pr.get_headers = s3_get_headers();
    pr.put_headers = s3_put_headers();
    if (!slots || !m || !pr.get_headers || !pr.put_headers) {
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
    if (make_bucket(&pr, &slots[0], err, len) < 0)
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
    progress(&pr, t0, 1);
    rc = 0;
out:
    for (int i = 0; slots && i < PREP_SLOTS; i++) {
        if (slots[i].h) {
            if (slots[i].busy)
                curl_multi_remove_handle(m, slots[i].h);
            curl_easy_cleanup(slots[i].h);
        }
    }
    if (m)
        curl_multi_cleanup(m);
    curl_slist_free_all(pr.get_headers);
    curl_slist_free_all(pr.put_headers);
    free(slots);
    if (rc < 0 && tty)
        fputc('\n', stderr);
    return rc;
}
