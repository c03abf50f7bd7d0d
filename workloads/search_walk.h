/* search_walk.h -- the directory walk ripgrep does without config: hidden
 * entries skipped, symlinks not followed, regular files only.
 *
 * Reads directories with getdents64 into buffers allocated once, so a walk
 * inside a measured operation allocates nothing. Order is the file system's,
 * as ripgrep's without --sort. */
#ifndef AOPS_SEARCH_WALK_H
#define AOPS_SEARCH_WALK_H

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

#endif
