/* search_floor.c -- the physical floor of a search: walk a tree the way the
 * search walks it, open, read and close every regular file from the page
 * cache, and do nothing with the bytes. bench/search prints it next to the
 * harness and ripgrep so the table shows how far each is from it.
 *
 * usage: search_floor [--mode read|uring] [--repeat N] DIR
 *   read:  openat + read into one reused 128 KiB buffer until a short read +
 *          close, as the harness's pread reader does (the default);
 *   uring: the harness's io_uring reader: openat/read/close as linked
 *          requests on direct descriptors, several files per submission.
 * Prints the median wall and CPU (user + system) milliseconds over N passes,
 * then files and bytes. */
#include <errno.h>
#include <fcntl.h>
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

int main(int argc, char **argv) {
    enum reader_kind kind = READER_PREAD;
    int repeat = 5, i = 1;
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
        else
            break;
    }
    if (i != argc - 1 || repeat < 1 || repeat > 1000) {
        fprintf(stderr, "usage: search_floor [--mode read|uring] [--repeat N] DIR\n");
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
    for (int r = 0; r < repeat; r++) {
        files = bytes = 0;
        double t0 = now_ms(), c0 = cpu_ms();
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
    printf("%.1f ms wall, %.1f ms cpu, median of %d (%s), %llu files, %llu bytes\n",
           t[repeat / 2], c[repeat / 2], repeat, reader_name(rd), files, bytes);
    reader_close(rd);
    walk_free(&w);
    return 0;
}
