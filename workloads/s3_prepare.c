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
 * said in one line, and the manifest records it (sums=0).
 *
 * --prepare-jobs J threads (default min(CPUs, 32)) each run their own curl
 * multi of 16 slots: generating and checksumming the bodies is the client's
 * CPU, one core's worth in one thread. They take objects from one shared
 * counter, so each object is HEADed, generated and checksummed by exactly
 * one of them, and its CRC lands in its own cell of the manifest's table:
 * the manifest is the same whatever J. The first error stops the others. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
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
    unsigned ndw, nops;
    atomic_uint next; /* objects handed out so far, of ndw * nops */
    atomic_uint done, uploaded, skipped;
    atomic_uint_fast64_t bytes;
    atomic_int stop;     /* a job failed: the others stop */
    atomic_uint running; /* jobs still walking */
    /* The manifest: CRCs of workers [0, nw) (nw >= ndw when an earlier
     * prepare made more with the same seed), known[] those filled in. */
    unsigned nw;
    uint32_t *crc;
    unsigned char *known;
    struct s3_manifest_info old; /* the manifest found, when old_ok */
    int old_ok;
    atomic_int nosum; /* a PUT came back without x-amz-checksum-crc32c */
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
    if (atomic_load(&pr->stop))
        return 0;
    unsigned k = atomic_fetch_add(&pr->next, 1);
    if (k >= pr->ndw * pr->nops)
        return 0;
    s->dw = k / pr->nops;
    s->op = k % pr->nops;
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
                atomic_fetch_add(&pr->skipped, 1), atomic_fetch_add(&pr->done, 1);
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
        if (got == 1 && !atomic_exchange(&pr->nosum, 1)) { /* the first says which */
            snprintf(pr->nosum_key, sizeof pr->nosum_key, "%s", s->key);
        } else if (got == 0 && have != object_crc(pr, s)) {
            snprintf(err, len, "PUT %s: the server stored CRC-32C %08x, the body sent has %08x",
                     s->key, have, object_crc(pr, s));
            return -1;
        }
        atomic_fetch_add(&pr->uploaded, 1), atomic_fetch_add(&pr->done, 1);
        atomic_fetch_add(&pr->bytes, s->size);
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

/* Objects done of the total, bytes uploaded and their rate, and an ETA from
 * the objects left at the rate objects finished so far: rewritten in place
 * on a terminal, one line at a time into a log (tty 0), where a \r would
 * pile every update onto one line nobody reads until the end. */
static void progress(struct prep *pr, int64_t t0, unsigned jobs, int final, int tty) {
    double secs = (double)(now_ns() - t0) / 1e9;
    double mib = (double)atomic_load(&pr->bytes) / (1 << 20);
    unsigned total = pr->ndw * pr->nops, done = atomic_load(&pr->done);
    if (!final) {
        char eta[32] = "";
        if (done && done < total)
            snprintf(eta, sizeof eta, ", ETA %.0f s", secs * (total - done) / done);
        fprintf(stderr, "%ss3 prepare: %u/%u objects, %.1f MiB uploaded, %.1f MiB/s, %.1f s%s%s",
                tty ? "\r" : "", done, total, mib, secs > 0 ? mib / secs : 0, secs, eta,
                tty ? " " : "\n");
        return;
    }
    if (tty)
        fputc('\n', stderr);
    printf("s3: %u objects in bucket '%s': %u uploaded (%llu bytes), %u already there; "
           "%.2f s, %.1f MiB/s, %u job%s\n",
           total, s3_opts(pr->cfg)->bucket, atomic_load(&pr->uploaded),
           (unsigned long long)atomic_load(&pr->bytes), atomic_load(&pr->skipped), secs,
           secs > 0 ? mib / secs : 0, jobs, jobs == 1 ? "" : "s");
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

/* One upload job: its slots (easy handles, kept-alive connections) in its
 * own curl multi, walking objects from the shared counter. */
struct job {
    struct prep *pr;
    struct slot slots[PREP_SLOTS];
    CURLM *m;
    pthread_t tid;
    int started, rc;
    char err[1024];
};

static int job_init(struct job *j, struct prep *pr) {
    j->pr = pr;
    if (!(j->m = curl_multi_init()))
        return -1;
    for (int i = 0; i < PREP_SLOTS; i++) {
        struct slot *s = &j->slots[i];
        if (!(s->h = curl_easy_init()))
            return -1;
        s3_easy_setup(s->h, pr->cfg);
        curl_easy_setopt(s->h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(s->h, CURLOPT_READDATA, s);
        curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, on_write);
        curl_easy_setopt(s->h, CURLOPT_WRITEDATA, s);
        curl_easy_setopt(s->h, CURLOPT_ERRORBUFFER, s->curlerr);
        curl_easy_setopt(s->h, CURLOPT_PRIVATE, s);
    }
    return 0;
}

static void job_free(struct job *j) {
    for (int i = 0; i < PREP_SLOTS; i++) {
        if (j->slots[i].h) {
            if (j->slots[i].busy)
                curl_multi_remove_handle(j->m, j->slots[i].h);
            curl_easy_cleanup(j->slots[i].h);
        }
        curl_slist_free_all(j->slots[i].put_headers);
    }
    if (j->m)
        curl_multi_cleanup(j->m);
}

/* Walk objects until none is left, this job failed (rc -1, err) or another
 * did (rc -1, err empty). */
static void *job_run(void *arg) {
    struct job *j = arg;
    struct prep *pr = j->pr;
    j->rc = -1;
    for (int i = 0; i < PREP_SLOTS; i++)
        if ((j->slots[i].busy = next_object(pr, &j->slots[i])))
            curl_multi_add_handle(j->m, j->slots[i].h);
    int running = 1;
    while (running) {
        if (atomic_load(&pr->stop))
            goto out;
        if (curl_multi_perform(j->m, &running) != CURLM_OK) {
            snprintf(j->err, sizeof j->err, "s3 prepare: curl multi failed");
            goto out;
        }
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(j->m, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            struct slot *s;
            CURLcode cc = msg->data.result;
            CURL *h = msg->easy_handle;
            curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&s);
            curl_multi_remove_handle(j->m, h);
            s->busy = 0;
            int next = finished(pr, s, cc, j->err, sizeof j->err);
            if (next < 0)
                goto out;
            if ((s->busy = next))
                curl_multi_add_handle(j->m, h), running = 1;
        }
        if (running)
            curl_multi_poll(j->m, NULL, 0, 100, NULL);
    }
    j->rc = 0;
out:
    if (j->rc < 0)
        atomic_store(&pr->stop, 1);
    atomic_fetch_sub(&pr->running, 1);
    return NULL;
}

int s3_prepare_ops(const struct config *cfg, unsigned nops, char *err, size_t len) {
    if (s3_check_config(cfg, err, len) < 0)
        return -1;
    struct prep pr = {.cfg = cfg, .ndw = s3_opts(cfg)->dataset == DATASET_SHARED ? 1 : cfg->n};
    pr.nops = nops < S3_OPS ? nops : S3_OPS;
    unsigned nj = config_prepare_jobs(cfg);
    unsigned total = pr.ndw * pr.nops;
    unsigned busy = (total + PREP_SLOTS - 1) / PREP_SLOTS; /* jobs that get an object */
    if (nj > busy)
        nj = busy ? busy : 1;
    struct job *jobs = calloc(nj, sizeof *jobs);
    int rc = -1, tty = isatty(2);
    pr.get_headers = s3_get_headers();
    if (pr.get_headers) /* HEAD brings back the stored checksum */
        pr.get_headers = curl_slist_append(pr.get_headers, "x-amz-checksum-mode: ENABLED");
    if (!jobs || !pr.get_headers) {
        snprintf(err, len, "s3 prepare: out of memory");
        goto out;
    }
    for (unsigned k = 0; k < nj; k++)
        if (job_init(&jobs[k], &pr) != 0) {
            snprintf(err, len, "s3 prepare: out of memory");
            goto out;
        }
    int64_t t0 = now_ns();
    if (make_bucket(&pr, &jobs[0].slots[0], err, len) < 0 || manifest_begin(&pr, err, len) < 0)
        goto out;
    int failed = 0; /* err set: err may hold an earlier, handled message until then */
    atomic_store(&pr.running, nj);
    for (unsigned k = 0; k < nj; k++) {
        if (pthread_create(&jobs[k].tid, NULL, job_run, &jobs[k]) != 0) {
            atomic_fetch_sub(&pr.running, nj - k); /* those never started */
            atomic_store(&pr.stop, 1);
            snprintf(err, len, "s3 prepare: cannot start upload thread %u of %u", k + 1, nj);
            failed = 1;
            break;
        }
        jobs[k].started = 1;
    }
    /* This thread only reports: every 0.2 s on a terminal, every 10 s into a
     * log (an hour's prepare of a big box piped to a file still says where
     * it is, as fio's --status-interval does). */
    int64_t every = tty ? 200000000 : 10000000000LL;
    for (int64_t last = now_ns(); atomic_load(&pr.running) > 0;) {
        usleep(20000);
        if (now_ns() - last > every) {
            progress(&pr, t0, nj, 0, tty);
            last = now_ns();
        }
    }
    for (unsigned k = 0; k < nj; k++) {
        if (jobs[k].started)
            pthread_join(jobs[k].tid, NULL);
        if (jobs[k].started && jobs[k].rc < 0 && jobs[k].err[0] && !failed) {
            snprintf(err, len, "%s", jobs[k].err);
            failed = 1;
        }
    }
    if (failed || atomic_load(&pr.stop)) {
        if (!failed)
            snprintf(err, len, "s3 prepare: stopped");
        goto out;
    }
    if (manifest_end(&pr, err, len) < 0)
        goto out;
    progress(&pr, t0, nj, 1, tty);
    rc = 0;
out:
    for (unsigned k = 0; jobs && k < nj; k++)
        job_free(&jobs[k]);
    curl_slist_free_all(pr.get_headers);
    free(pr.crc);
    free(pr.known);
    free(jobs);
    if (rc < 0 && tty)
        fputc('\n', stderr);
    return rc;
}
