/* fuzz.h -- what every libFuzzer target in tests/fuzz/ shares.
 *
 * Each target is one parser of input the harness does not control (a run
 * directory sent by someone else, a BMC's answer, a sysroot). Most of them
 * read files, not buffers, so a target writes the fuzzer's bytes to a file
 * of its own process under /dev/shm and hands the parser that path; inputs
 * made of several files (a run directory) are split at a marker line, so a
 * seed stays a readable text file that anyone can edit. */
#ifndef AOPS_FUZZ_H
#define AOPS_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The marker between the parts of a multi-file input: a line of its own. */
#define FUZZ_SPLIT "\n--8<--\n"

/* A directory of this process's own (removed by tests/fuzz/run once this
 * PID is gone: libFuzzer exits without running atexit handlers on a crash).
 * Made again when missing: a runner from before that rule removed every
 * fuzzer's directory, live ones too, which made fuzz_write abort as if the
 * parser had crashed. */
static inline const char *fuzz_dir(void) {
    static char dir[64];
    if (!dir[0])
        snprintf(dir, sizeof dir, "/dev/shm/aops-fuzz-%d", (int)getpid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        abort();
    return dir;
}

/* fuzz_dir()/rel as a directory, with its parents (a target's sysroot or
 * corpus tree), made again whenever it is missing. */
static inline void fuzz_mkdirs(const char *rel) {
    char p[256];
    int n = snprintf(p, sizeof p, "%s/%s", fuzz_dir(), rel);
    if (n < 0 || (size_t)n >= sizeof p)
        abort();
    for (char *s = p + strlen(fuzz_dir()) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            abort();
        *s = '/';
    }
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
        abort();
}

/* A command's lines (one per input) would bury libFuzzer's own: its stdout
 * and stderr go to /dev/null (libFuzzer and the sanitizers write to fd 2
 * through their own handles, which this does not touch). */
static inline void fuzz_quiet(void) {
    static int done;
    if (!done) {
        FILE *n = fopen("/dev/null", "w");
        if (n)
            stdout = stderr = n;
        done = 1;
    }
}

/* Write len bytes to fuzz_dir()/name (replacing what was there); its path. */
static inline const char *fuzz_write(const char *name, const void *data, size_t len) {
    static char path[4][128];
    static int next;
    char *p = path[next++ & 3];
    snprintf(p, sizeof path[0], "%s/%s", fuzz_dir(), name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    /* Its directories removed under it (see fuzz_dir): made again. */
    for (int tries = 0; fd < 0 && errno == ENOENT && tries < 100; tries++) {
        char rel[128];
        snprintf(rel, sizeof rel, "%s", name);
        char *slash = strrchr(rel, '/');
        if (slash) {
            *slash = 0;
            fuzz_mkdirs(rel);
        } else {
            fuzz_dir();
        }
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    }
    if (fd < 0)
        abort();
    const char *c = data;
    while (len) {
        ssize_t w = write(fd, c, len);
        if (w <= 0)
            abort();
        c += w;
        len -= (size_t)w;
    }
    close(fd);
    return p;
}

/* Split data at FUZZ_SPLIT into at most n parts; parts past the input are
 * empty. The parts point into data. */
static inline void fuzz_split(const uint8_t *data, size_t size, size_t n, const uint8_t **part,
                              size_t *len) {
    size_t ml = strlen(FUZZ_SPLIT);
    for (size_t i = 0; i < n; i++) {
        part[i] = data;
        const uint8_t *m = i + 1 < n ? memmem(data, size, FUZZ_SPLIT, ml) : NULL;
        len[i] = m ? (size_t)(m - data) : size;
        size_t used = m ? len[i] + ml : size;
        data += used;
        size -= used;
    }
}

/* A NUL-terminated copy (for parsers of C strings); free() it. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

#endif
