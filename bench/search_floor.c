/* search_floor.c -- the physical floor of a search: walk a tree the way the
 * search walks it, open, read and close every regular file from the page
 * cache, and do nothing with the bytes. bench/search prints it next to the
 * harness and ripgrep so the table shows how far each is from it.
 *
 * usage: search_floor [--mode read|uring] [--repeat N] [-j THREADS] DIR
 *   read:  openat + read into one reused 128 KiB buffer until a short read +
 *          close, as the harness's pread reader does (the default);
 *   uring: the harness's io_uring reader: openat/read/close as linked
 *          requests on direct descriptors, several files per submission.
 *   -j:    THREADS threads (default 1) walking the tree together as the
 *          harness's search does with -j (common/walk.h's parallel walk),
 *          each with a reader of its own, so the floor of `harness search
 *          -j N` is measured with N threads; 1 is the sequential walk.
 * Prints the median wall and CPU (user + system, all threads) milliseconds
 * over N passes, then files and bytes. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "reader.h"
#include "walk.h"

#define BUF (128u << 10)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}


#define MAX_THREADS 64

/* One thread of a parallel pass: the loop of engine_run() with nothing
 * done to the bytes. */
struct floor_thread {
    pthread_t th;
    struct pwalk *pw;
    struct pwalk_cur cur;
    struct reader *rd;
    unsigned long long files, bytes;
};

static void *floor_share(void *arg) {
    struct floor_thread *p = arg;
    static __thread char names[READER_SLOTS][WALK_PATH_MAX];
    int dirfds[READER_SLOTS];
    unsigned inflight = 0;
    int more = 1, slot;
    p->files = p->bytes = 0;
    pwalk_cur_reset(&p->cur);
    for (;;) {
        while (more && !reader_ready(p->rd) && (slot = reader_room(p->rd)) >= 0) {
            int dfd;
            const char *name, *path;
            int got = pwalk_next(&p->cur, inflight == 0, &dfd, &name, &path);
            if (got <= 0) {
                more = got < 0;
                break;
            }
            snprintf(names[slot], sizeof names[slot], "%s", name);
            reader_add(p->rd, dfd, names[slot]);
            dirfds[slot] = dfd;
            inflight++;
        }
        struct reader_file *f = reader_next(p->rd);
        int keep[READER_SLOTS], nkeep = 0;
        for (unsigned k = 0; k < READER_SLOTS; k++)
            if (reader_opening(p->rd, k))
                keep[nkeep++] = dirfds[k];
        pwalk_release(&p->cur, keep, nkeep);
        if (!f) {
            if (more && !reader_failed(p->rd))
                continue; /* nothing was ready: wait for the walk */
            break;
        }
        while (!f->err) {
            p->bytes += f->len;
            if (f->eof)
                break;
            reader_more(p->rd, f, 0);
        }
        if (!f->err)
            p->files++;
        reader_done(p->rd, f);
        inflight--;
    }
    pwalk_cur_finish(&p->cur);
    return NULL;
}

int main(int argc, char **argv) {
    enum reader_kind kind = READER_PREAD;
    int repeat = 5, threads = 1, i = 1;
    for (; i < argc - 1; i++) {
        if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            const char *m = argv[++i];
            if (!strcmp(m, "uring"))
                kind = READER_URING;
            else if (strcmp(m, "read")) {
                fprintf(stderr, "search_floor: --mode '%s': expected read or uring\n", m);
                return 2;
            }
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if ((!strcmp(argv[i], "-j") || !strcmp(argv[i], "--threads")) && i + 1 < argc)
            threads = atoi(argv[++i]);
        else
            break;
    }
    if (i != argc - 1 || repeat < 1 || repeat > 1000 || threads < 1 || threads > MAX_THREADS) {
        fprintf(stderr, "usage: search_floor [--mode read|uring] [--repeat N] [-j 1-%d] DIR\n",
                MAX_THREADS);
        return 2;
    }
    const char *root = argv[i];
    char err[256];
    struct walk w;
    struct reader *rd = reader_open(kind, err, sizeof err);
    if (!rd || walk_init(&w) < 0) {
        fprintf(stderr, "search_floor: %s\n", rd ? "out of memory" : err);
        return 1;
    }
    double t[1000], c[1000];
    unsigned long long files = 0, bytes = 0;
    static struct floor_thread th[MAX_THREADS];
    static struct pwalk pw;
    if (threads > 1) {
        if (pwalk_init(&pw) < 0) {
            fprintf(stderr, "search_floor: out of memory\n");
            return 1;
        }
        th[0].rd = rd;
        for (int k = 0; k < threads; k++) {
            th[k].pw = &pw;
            if (k && !(th[k].rd = reader_open(kind, err, sizeof err))) {
                fprintf(stderr, "search_floor: %s\n", err);
                return 1;
            }
            if (pwalk_cur_init(&th[k].cur, &pw) < 0) {
                fprintf(stderr, "search_floor: out of memory\n");
                return 1;
            }
        }
    }
    for (int r = 0; r < repeat; r++) {
        files = bytes = 0;
        double t0 = now_ms(), c0 = cpu_ms();
        if (threads > 1) {
            if (pwalk_start(&pw, root, err, sizeof err) < 0) {
                fprintf(stderr, "search_floor: %s\n", err);
                return 1;
            }
            for (int k = 1; k < threads; k++)
                if (pthread_create(&th[k].th, NULL, floor_share, &th[k]) != 0) {
                    fprintf(stderr, "search_floor: cannot start thread %d\n", k + 1);
                    return 1;
                }
            floor_share(&th[0]); /* thread 0 is this one */
            for (int k = 0; k < threads; k++) {
                if (k)
                    pthread_join(th[k].th, NULL);
                files += th[k].files, bytes += th[k].bytes;
            }
            t[r] = now_ms() - t0;
            c[r] = cpu_ms() - c0;
            continue;
        }
        if (walk_start(&w, root) < 0) {
            fprintf(stderr, "search_floor: %s\n", w.err);
            return 1;
        }
        static char names[READER_SLOTS][WALK_PATH_MAX];
        int dirfds[READER_SLOTS];
        struct reader_file *f;
        int more = 1, slot;
        for (;;) {
            while (more && !reader_ready(rd) && (slot = reader_room(rd)) >= 0) {
                int dfd;
                const char *name;
                if (!walk_next(&w, &dfd, &name)) {
                    more = 0;
                    break;
                }
                snprintf(names[slot], sizeof names[slot], "%s", name);
                reader_add(rd, dfd, names[slot]);
                dirfds[slot] = dfd;
            }
            f = reader_next(rd);
            int keep[READER_SLOTS], nkeep = 0;
            for (unsigned k = 0; k < READER_SLOTS; k++)
                if (reader_opening(rd, k))
                    keep[nkeep++] = dirfds[k];
            walk_release(&w, keep, nkeep);
            if (!f)
                break;
            while (!f->err) {
                bytes += f->len;
                if (f->eof)
                    break;
                reader_more(rd, f, 0);
            }
            if (!f->err)
                files++;
            reader_done(rd, f);
        }
        t[r] = now_ms() - t0;
        c[r] = cpu_ms() - c0;
    }
    qsort(t, (size_t)repeat, sizeof *t, cmp);
    qsort(c, (size_t)repeat, sizeof *c, cmp);
    printf("%.1f ms wall, %.1f ms cpu, median of %d (%s on %d thread%s), %llu files, %llu bytes\n",
           t[repeat / 2], c[repeat / 2], repeat, reader_name(rd), threads, threads > 1 ? "s" : "",
           files, bytes);
    for (int k = 1; k < threads; k++)
        reader_close(th[k].rd);
    for (int k = 0; threads > 1 && k < threads; k++)
        pwalk_cur_free(&th[k].cur);
    if (threads > 1)
        pwalk_free(&pw);
    reader_close(rd);
    walk_free(&w);
    return 0;
}
