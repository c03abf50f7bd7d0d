/* walk.h -- the directory walk ripgrep does without config: hidden
 * entries skipped, symlinks not followed, regular files only. The search
 * workload walks its trees with it (and bench/ does); it knows no workload,
 * so it sits in common/.
 *
 * Reads directories with getdents64 into buffers allocated once, so a walk
 * inside a measured operation allocates nothing. Order is the file system's,
 * as ripgrep's without --sort. */
#ifndef AOPS_WALK_H
#define AOPS_WALK_H

#include <pthread.h>
#include <stddef.h>

#define WALK_MAX_DEPTH 96
#define WALK_PATH_MAX 4096

struct walk_level {
    int fd;
    int lent;        /* a file of this directory was returned: close it late */
    size_t pos, len; /* in buf */
    size_t pathlen;  /* length of path up to this directory's trailing '/' */
    char *buf;
};

struct walk {
    struct walk_level lv[WALK_MAX_DEPTH];
    int depth; /* levels open; 0 when done */
    char path[WALK_PATH_MAX];
    char *bufs;
    int root_is_file;
    int late[64], nlate;           /* finished directories walk_release() closes */
    unsigned errors;               /* directories and entries that could not be read */
    char err[WALK_PATH_MAX + 128]; /* the last of them, one line */
};

int walk_init(struct walk *w);
void walk_free(struct walk *w);

/* Start at root (a directory, or a single file). Returns 0 or -1 with w->err
 * set (root missing or unreadable). */
int walk_start(struct walk *w, const char *root);

/* Next regular file: *dirfd and *name to openat() it, w->path its path as
 * ripgrep prints it. Returns 1, 0 at the end. Unreadable directories are
 * counted in w->errors and skipped. */
int walk_next(struct walk *w, int *dirfd, const char **name);

/* Close the directories finished since the last call, except those in
 * keep[0..nkeep). walk_next() keeps a finished directory open when it
 * returned a file of it, so a reader that opens files relative to *dirfd
 * later (io_uring may open a batch in a worker thread, after the submit)
 * still finds it: call this with the directories of the opens not done yet,
 * at least every 64 files (past that, directories are closed at once). */
void walk_release(struct walk *w, const int *keep, int nkeep);

/* Close what is left open (a walk abandoned half way). */
void walk_stop(struct walk *w);

/* ---- the parallel walk: ripgrep's WalkParallel ----
 *
 * Several threads walk one tree together: a shared stack of directories
 * still to read (their paths in an arena allocated once), each thread taking
 * one, returning its files and pushing its subdirectories for any thread to
 * take. The walk ends when the stack is empty and no thread holds a
 * directory. When the arena is full a thread walks the subdirectory alone
 * (a struct walk of its own), so memory stays bounded whatever the tree. */

struct pwalk {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *arena; /* entries: a flag byte ('R' root, 'D' below), the path, NUL */
    size_t acap, atop;
    unsigned *stk; /* arena offsets, a stack */
    size_t scap, nstk;
    unsigned active; /* threads holding a directory */
    int done;
    int root_file; /* the root is a file: the first next() returns it */
    char root[WALK_PATH_MAX];
};

/* One thread's place in a parallel walk. */
struct pwalk_cur {
    struct pwalk *pw;
    int fd, lent; /* the directory in hand, -1 when none */
    size_t pos, len, pathlen;
    char *buf;
    char path[WALK_PATH_MAX];
    int late[64], nlate;
    struct walk own; /* a subtree walked alone when the arena is full */
    int in_own;
    unsigned errors;
    char err[WALK_PATH_MAX + 128];
};

int pwalk_init(struct pwalk *pw);
void pwalk_free(struct pwalk *pw);
/* Begin a walk of root (a directory or a file). 0, or -1 with err. */
int pwalk_start(struct pwalk *pw, const char *root, char *err, size_t errlen);

int pwalk_cur_init(struct pwalk_cur *c, struct pwalk *pw);
void pwalk_cur_free(struct pwalk_cur *c);
/* Before each walk: forget the last one's errors. */
void pwalk_cur_reset(struct pwalk_cur *c);
/* After this thread's part of a walk, also one that stopped early: let go
 * of what it holds, so the others' walk can end. */
void pwalk_cur_finish(struct pwalk_cur *c);
/* As engine_src.next: 1 a file, 0 the walk is over, -1 none now (!wait). */
int pwalk_next(struct pwalk_cur *c, int wait, int *dirfd, const char **name, const char **path);
/* As walk_release, for this thread's finished directories. */
void pwalk_release(struct pwalk_cur *c, const int *keep, int nkeep);

#endif
